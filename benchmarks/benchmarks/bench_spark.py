"""asv benchmarks for fastnb.spark beside Spark MLlib's NaiveBayes (workload K1's
data, smaller): fit and transform on local[2], cached input.

Skipped (setup raises NotImplementedError, asv's skip) where pyspark, pyarrow or
Java is missing; asv's environments do not install pyspark (asv.conf.json), so
run it with ``asv run --environment existing`` in a venv holding the spark extra.
"""

import pathlib
import sys

# The data makers and the session are shared with the side-by-side workload K1.
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
import workloads_spark as ws  # noqa: E402

_FRAMES = {}


def _frame(kind, n):
    if (kind, n) not in _FRAMES:
        spark = ws.session()
        if kind == "text":
            from pyspark.ml.feature import StringIndexer

            docs = ws.text_frame(spark, n)
            docs = StringIndexer(inputCol="label", outputCol="y").fit(docs) \
                .transform(docs).drop("label")
        else:
            docs = ws.dense_frame(spark, n).withColumnRenamed("label", "y")
        _FRAMES[kind, n] = ws.cached(docs)
    return _FRAMES[kind, n]


def _estimator(library, kind):
    if library == "fastnb":
        import fastnb.spark
        import fastnb.text

        if kind == "text":
            return fastnb.spark.MultinomialNB(
                inputCol="text", labelCol="y",
                vectorizer=fastnb.text.HashingVectorizer(
                    n_features=ws.TEXT_FEATURES, alternate_sign=False, norm=None))
        return fastnb.spark.GaussianNB(labelCol="y")
    from pyspark.ml import Pipeline
    from pyspark.ml.classification import NaiveBayes
    from pyspark.ml.feature import HashingTF, Tokenizer

    if kind == "text":
        return Pipeline(stages=[
            Tokenizer(inputCol="text", outputCol="words"),
            HashingTF(inputCol="words", outputCol="tf", numFeatures=ws.TEXT_FEATURES),
            NaiveBayes(featuresCol="tf", labelCol="y")])
    return NaiveBayes(labelCol="y", modelType="gaussian")


class SparkSuite:
    """fit and transform (to Spark's noop sink) of a text pipeline on a string
    column and of GaussianNB on dense vectors, fastnb.spark against MLlib."""

    param_names = ["library", "input", "n"]
    params = (["fastnb", "mllib"], ["text", "dense"], [50_000])
    timeout = 600

    def setup(self, library, kind, n):
        if not ws.spark_available():
            raise NotImplementedError("fastnb.spark needs pyspark, pyarrow and Java")
        self.df = _frame(kind, n)
        self.estimator = _estimator(library, kind)
        self.model = self.estimator.fit(self.df)

    def time_fit(self, library, kind, n):
        self.estimator.fit(self.df)

    def time_transform(self, library, kind, n):
        ws.run_to_end(self.model.transform(self.df))
