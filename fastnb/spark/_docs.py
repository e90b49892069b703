"""The docstrings of the generated Spark Estimators and Models."""

_EXAMPLE = """
Examples
--------
>>> from pyspark.sql import SparkSession
>>> from pyspark.ml.linalg import Vectors
>>> import fastnb.spark
>>> spark = (SparkSession.builder.master("local[2]")
...          .config("spark.ui.enabled", "false").getOrCreate())
>>> df = spark.createDataFrame(
...     [(Vectors.dense([{a}]), "spam"), (Vectors.dense([{b}]), "ham"),
...      (Vectors.dense([{a2}]), "spam"), (Vectors.dense([{b2}]), "ham")],
...     ["features", "label"])
>>> model = fastnb.spark.{name}().fit(df)
>>> model.fastnb_model.classes_.tolist()
['ham', 'spam']
>>> [row.predictedLabel for row in model.transform(df).collect()]
['spam', 'ham', 'spam', 'ham']
"""
_COLUMNWISE_EXAMPLE = """
Examples
--------
>>> from pyspark.sql import SparkSession
>>> import fastnb.spark
>>> spark = (SparkSession.builder.master("local[2]")
...          .config("spark.ui.enabled", "false").getOrCreate())
>>> df = spark.createDataFrame(
...     [(0.1, "red", "spam"), (3.0, "blue", "ham"), (0.2, None, "spam"),
...      (3.1, "blue", "ham")], ["size", "colour", "label"])
>>> model = fastnb.spark.ColumnwiseNB(inputCols=["size", "colour"]).fit(df)
>>> [name for name, _, _ in model.fastnb_model.estimators]
['gaussian', 'categorical']
>>> [row.predictedLabel for row in model.transform(df).collect()]
['spam', 'ham', 'spam', 'ham']
"""
# The example's rows of each kind of input (Capabilities.reads): a spam row, a
# ham row, another spam row and another ham row.
_EXAMPLE_ROWS = {"continuous": ("0.1, 0.2", "3.0, 4.0", "0.1, 0.2", "3.0, 4.0"),
                 "categories": ("0.0, 1.0", "1.0, 0.0", "0.0, 1.0", "1.0, 0.0"),
                 "counts": ("5.0, 0.0", "0.0, 5.0", "5.0, 0.0", "0.0, 5.0"),
                 "positive": ("1.0, 6.0", "6.0, 1.0", "2.0, 5.0", "5.0, 2.0")}


def estimator_doc(fastnb_class, names):
    name = fastnb_class.__name__
    a, b, a2, b2 = _EXAMPLE_ROWS.get(fastnb_class._capabilities.reads,
                                     _EXAMPLE_ROWS["continuous"])
    example = _EXAMPLE.format(name=name, a=a, b=b, a2=a2, b2=b2)
    if name == "ColumnwiseNB":
        example = _COLUMNWISE_EXAMPLE
    listed = ", ".join(f"``{n}``" for n in names)
    return f"""fastnb's {name} as a pyspark.ml Estimator: one pass over a DataFrame.

Each Spark task fits a fastnb.{name} on its partition's Arrow batches with the
compiled kernels (one thread per task); the partition models travel as fastnb's
pickle-free bytes (a count model's as its non-zero counts) and the driver merges
them exactly (``fastnb.merge``, or one sum of the counts), so the model equals a
local fit of the collected data to rounding.

Parameters
----------
{listed}
    The parameters of ``fastnb.{name}``, with its defaults, checked by its own
    validators when ``fit`` starts.
featuresCol : str, default="features"
    A vector column (``VectorUDT``, dense or sparse: sparse vectors are read
    as CSR, never densified) or an array of numbers. Used unless inputCols or
    inputCol is set.
inputCols : list of str, optional
    Separate columns instead of a vector: numbers, and for CategoricalNB and
    ColumnwiseNB strings and booleans too; nulls are missing values.
inputCol : str, optional
    A string column of documents, turned into counts in each task by
    ``vectorizer`` (MultinomialNB, ComplementNB, BernoulliNB).
vectorizer : fastnb.text vectorizer, optional
    ``fastnb.text.HashingVectorizer``, or a ``CountVectorizer`` with a fixed
    ``vocabulary``.
labelCol : str, default="label"
    The labels, of any type (strings, ints, doubles, booleans).
weightCol : str, optional
    Sample weights.
orderCol : str, optional
    The column that orders the rows, oldest first (numbers, strings, dates):
    needed by a model that forgets (``half_life``), whose rows are weighted by
    their age in that order, as a local fit of the sorted rows weights them.
predictionCol, predictedLabelCol, probabilityCol, rawPredictionCol : str
    The model's output columns (``""`` leaves one out): the prediction as a
    double, which Spark's evaluators read (a numeric label's value; for string
    labels the class's index in ``classes_``), the predicted label in the label
    column's own type (default ``"predictedLabel"``), the class probabilities
    and the joint log likelihoods as vectors.
{example}"""


def model_doc(fastnb_class):
    name = fastnb_class.__name__
    return f"""A fitted fastnb.spark.{name}: a Transformer, and the local fastnb model.

``transform`` adds ``predictionCol`` (a double: a numeric label's value, a
string label's index in ``classes_``), ``predictedLabelCol`` (the label in the
label column's type), ``probabilityCol`` and ``rawPredictionCol`` (vectors of the class
probabilities and joint log likelihoods, classes in ``classes_`` order), with
the compiled predict run on each Arrow batch by a Spark arrow UDF; the model
travels with the UDF as fastnb's file bytes, and each Python worker reads it
once (not once per task). ``fastnb_model`` is the fitted ``fastnb.{name}``.

Examples
--------
See ``fastnb.spark.{name}``.
"""
