"""fastnb's estimators as pyspark.ml Estimators: one pass over a DataFrame, exact.

``fastnb.spark.GaussianNB``, ``MultinomialNB``, ``ComplementNB``, ``BernoulliNB``,
``CategoricalNB`` and ``ColumnwiseNB`` take the fastnb model's own parameters and
Spark's column parameters, and fit as follows: each Spark task turns its Arrow
batches (``mapInArrow``) into a fastnb model with the compiled kernels on one
thread, ships it as fastnb's pickle-free bytes (a count model as its non-zero
counts), and the driver merges the partition models exactly (``fastnb.merge``
pairwise, or one sum of the counts), so the fit equals a local
fit of the collected data to rounding. A model that forgets (``half_life``)
needs ``orderCol``, the column that orders the rows: each row is then weighted
by its age in that order, as a local fit of the sorted rows weights it. Labels of any type are kept (no
``StringIndexer``): ``predictedLabelCol`` holds them, ``predictionCol`` the
double Spark's evaluators read. The driver holds models (O(classes x features) each), never
the data.

Inputs: ``featuresCol`` (a ``VectorUDT`` column, sparse vectors read as CSR and
never densified, or an array of numbers), ``inputCols`` (separate numeric, string
or boolean columns with nulls, as CategoricalNB and ColumnwiseNB read raw
columns), or ``inputCol`` with ``vectorizer`` (a ``fastnb.text`` vectorizer run
on a string column inside each task, so a text pipeline builds no Spark vectors).
Nulls are missing values, as in a local fit.

The fitted models are Transformers (an arrow UDF runs the compiled predict per
batch; the model is shipped once) whose ``fastnb_model`` is the local fastnb
model; ``fitMultiple`` counts once for a grid of smoothing and prior parameters;
``write().save(path)`` / ``Model.load(path)`` store fastnb's model file through
DataFrames, so Pipelines save and load. Nothing in fit, transform or persistence
uses the SparkContext, the RDD API or py4j.

This module needs pyspark >= 4.1 (arrow UDFs), pyarrow and SciPy
(``pip install "fastnb[spark]"``); ``import fastnb`` does not import it.

Examples
--------
>>> from pyspark.sql import SparkSession
>>> import fastnb.spark, fastnb.text
>>> spark = (SparkSession.builder.master("local[2]")
...          .config("spark.ui.enabled", "false").getOrCreate())
>>> df = spark.createDataFrame([("cheap pills now", "spam"), ("meeting at noon", "ham"),
...                             ("cheap cheap offer", "spam"), ("lunch at noon", "ham")],
...                            ["text", "label"])
>>> nb = fastnb.spark.MultinomialNB(
...     inputCol="text",
...     vectorizer=fastnb.text.HashingVectorizer(n_features=2**10, alternate_sign=False))
>>> model = nb.fit(df)
>>> model.transform(df).select("predictedLabel").collect()[0].predictedLabel
'spam'
"""

# One Estimator and one Model class for every registered fastnb model
# (fastnb/_capabilities.py), made in _estimators from the model's capabilities.
from . import _estimators

__all__ = list(_estimators.__all__)
globals().update({_name: getattr(_estimators, _name) for _name in __all__})
