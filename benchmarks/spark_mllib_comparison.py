"""fastnb.spark beside Spark MLlib's NaiveBayes on the same DataFrames.

Usage::

    python -P benchmarks/spark_mllib_comparison.py          # writes the docs' tables
    python -P benchmarks/spark_mllib_comparison.py --print  # prints them only

Writes ``docs/user_guide/spark_vs_mllib.csv`` (accuracy and probabilities, model
by model) and ``docs/user_guide/spark_mllib_cannot.csv`` (inputs MLlib refuses),
which docs/user_guide/spark.rst includes; tests/test_spark_mllib.py checks on
small data that the differences written there hold.

Each model is fitted by both libraries on one cached training DataFrame (local[2],
the same partitions) and applied to one test DataFrame. "max abs dp" is the largest
difference of any class probability on any test row; "with MLlib's prior" refits
fastnb with ``priors``/``class_prior`` set to MLlib's fitted prior
(``exp(model.pi)``), which isolates what is left: MLlib smooths the prior with the
same lambda as the counts, scikit-learn and fastnb do not.
"""

import argparse
import csv
import pathlib
import sys

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import workloads_spark as ws  # noqa: E402

DOCS = HERE.parent / "docs" / "user_guide"


def probabilities(model, df):
    """The probability vectors of ``model.transform(df)``, rows ordered by ``id``."""
    rows = model.transform(df).orderBy("id").select("probability").collect()
    return np.array([row.probability.toArray() for row in rows])


def labels(df, column="label"):
    return np.array([row[0] for row in df.orderBy("id").select(column).collect()])


def frames(spark, n_text=2000, n_dense=2000, seed=0):
    """The cached train/test DataFrames the comparison fits on: HashingTF 2**18 counts
    (and their 0/1 version), dense Gaussian vectors, and the same shifted by 1e7
    and 1e8 (where E[x^2] - mean^2 loses the variance). Every frame has ``id``,
    ``label`` (a double 0..9, as MLlib needs) and ``features``."""
    from pyspark.ml.feature import HashingTF, Tokenizer
    from pyspark.ml.functions import array_to_vector, vector_to_array
    from pyspark.sql import functions as F

    text = ws.text_frame(spark, n_text, seed=seed).withColumn(
        "label", F.substring("label", 2, 9).cast("double"))
    words = Tokenizer(inputCol="text", outputCol="words").transform(
        text.withColumn("id", F.monotonically_increasing_id()))
    counts = HashingTF(inputCol="words", outputCol="features",
                       numFeatures=ws.TEXT_FEATURES).transform(words)
    binary = HashingTF(inputCol="words", outputCol="features", binary=True,
                       numFeatures=ws.TEXT_FEATURES).transform(words)
    dense = ws.dense_frame(spark, n_dense, d=20, seed=seed).withColumn(
        "id", F.monotonically_increasing_id())

    def shifted(offset):
        return dense.withColumn("features", array_to_vector(
            F.transform(vector_to_array("features"), lambda x: x + F.lit(offset))))

    out = {}
    for name, df in (("counts", counts), ("binary", binary), ("dense", dense),
                     ("dense+1e7", shifted(1e7)), ("dense+1e8", shifted(1e8))):
        df = df.select("id", "label", "features")
        train, test = df.randomSplit([0.75, 0.25], seed=seed)
        out[name] = (ws.cached(train), ws.cached(test))
    return out


# (row name, data, MLlib modelType, fastnb class name, prior parameter)
MODELS = [
    ("Gaussian", "dense", "gaussian", "GaussianNB", "priors"),
    ("Gaussian, features + 1e7", "dense+1e7", "gaussian", "GaussianNB", "priors"),
    ("Gaussian, features + 1e8", "dense+1e8", "gaussian", "GaussianNB", "priors"),
    ("Multinomial (HashingTF 2^18)", "counts", "multinomial", "MultinomialNB",
     "class_prior"),
    ("Bernoulli (HashingTF 2^18, binary)", "binary", "bernoulli", "BernoulliNB",
     "class_prior"),
    ("Complement (HashingTF 2^18)", "counts", "complement", "ComplementNB",
     "class_prior"),
]


def compare(spark, data):
    """One row per MODELS entry: accuracies, probability differences, and the
    largest relative difference of the Gaussian variances."""
    from pyspark.ml.classification import NaiveBayes

    import fastnb.spark

    rows = []
    for title, key, model_type, class_name, prior in MODELS:
        train, test = data[key]
        truth = labels(test)
        mllib = NaiveBayes(modelType=model_type, smoothing=1.0).fit(train)
        estimator = getattr(fastnb.spark, class_name)
        ours = estimator().fit(train)
        with_prior = estimator(**{prior: np.exp(mllib.pi.toArray())}).fit(train)
        p_mllib, p_ours = probabilities(mllib, test), probabilities(ours, test)
        p_prior = probabilities(with_prior, test)
        classes = ours.fastnb_model.classes_
        row = {
            "model": title,
            "fastnb accuracy": (classes[p_ours.argmax(1)] == truth).mean(),
            "MLlib accuracy": (p_mllib.argmax(1) == truth).mean(),
            "max abs dp": np.abs(p_ours - p_mllib).max(),
            "max abs dp with MLlib's prior": np.abs(p_prior - p_mllib).max(),
            "max rel. variance difference": "",
        }
        if model_type == "gaussian":
            ours_var = ours.fastnb_model.var_
            theirs_var = mllib.sigma.toArray()
            row["max rel. variance difference"] = \
                np.abs(theirs_var - ours_var).max() / ours_var.min()
        rows.append(row)
    return rows


def _error(call):
    try:
        call()
    except Exception as error:  # what MLlib raises is the point of the table
        message = str(error).strip().splitlines()[0]
        for marker in ("requirement failed: ", "IllegalArgumentException: "):
            if marker in message:
                message = message.split(marker, 1)[1]
        return f"{type(error).__name__}: {message[:110]}"
    return "fits"


def cannot(spark):
    """What MLlib's NaiveBayes refuses and fastnb.spark fits, on tiny DataFrames."""
    from pyspark.ml.classification import NaiveBayes
    from pyspark.ml.linalg import Vectors

    import fastnb.spark

    from pyspark.ml.linalg import VectorUDT
    from pyspark.sql.types import DoubleType, StringType, StructField, StructType

    def vectors(rows, label_type="double"):
        label = StringType() if label_type == "string" else DoubleType()
        return spark.createDataFrame(rows, StructType([
            StructField("features", VectorUDT()), StructField("label", label)]))

    numbers = [(Vectors.dense([1.0, 0.0]), 0.0), (Vectors.dense([0.0, 2.0]), 1.0)] * 4
    table = spark.createDataFrame(
        [("red", None, 1.5, "spam"), ("blue", "S", None, "ham"),
         (None, "M", 2.5, "spam"), ("red", "S", 0.5, "ham")] * 2,
        "colour string, size string, weight double, label string")
    cases = [
        ("string labels ('spam', 'ham')",
         lambda: NaiveBayes().fit(vectors([(v, str(y)) for v, y in numbers], "string")),
         lambda: fastnb.spark.MultinomialNB().fit(
             vectors([(v, str(y)) for v, y in numbers], "string"))),
        ("labels 3 and 7 (not 0..k-1)",
         lambda: NaiveBayes().fit(vectors([(v, 3.0 + 4 * y) for v, y in numbers])),
         lambda: fastnb.spark.MultinomialNB().fit(
             vectors([(v, 3.0 + 4 * y) for v, y in numbers]))),
        ("a negative value (Gaussian data, multinomial/complement)",
         lambda: NaiveBayes().fit(vectors(numbers + [(Vectors.dense([-1.0, 0.0]), 0.0)])),
         lambda: fastnb.spark.GaussianNB().fit(
             vectors(numbers + [(Vectors.dense([-1.0, 0.0]), 0.0)]))),
        ("a value 2 for Bernoulli (fastnb binarizes at 0)",
         lambda: NaiveBayes(modelType="bernoulli").fit(vectors(numbers)),
         lambda: fastnb.spark.BernoulliNB().fit(vectors(numbers))),
        ("a NaN feature (a missing value)",
         lambda: NaiveBayes(modelType="gaussian").fit(
             vectors(numbers + [(Vectors.dense([float("nan"), 1.0]), 1.0)])),
         lambda: fastnb.spark.GaussianNB().fit(
             vectors(numbers + [(Vectors.dense([float("nan"), 1.0]), 1.0)]))),
        ("string and null columns, a mixed table",
         lambda: NaiveBayes(featuresCol="colour").fit(table),
         lambda: fastnb.spark.ColumnwiseNB(
             inputCols=["colour", "size", "weight"]).fit(table)),
    ]
    return [{"input": name, "MLlib NaiveBayes": _error(theirs),
             "fastnb.spark": _error(ours)} for name, theirs, ours in cases]


def _format(value):
    if isinstance(value, (float, np.floating)):
        return f"{value:.3g}" if abs(value) < 1e-3 and value != 0 else f"{value:.4f}"
    return str(value)


def write_csv(rows, path):
    with open(path, "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]), lineterminator="\n")
        writer.writeheader()
        for row in rows:
            writer.writerow({k: _format(v) for k, v in row.items()})


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--print", action="store_true", help="do not write the CSVs")
    args = parser.parse_args(argv)
    spark = ws.session()
    tables = {"spark_vs_mllib.csv": compare(spark, frames(spark)),
              "spark_mllib_cannot.csv": cannot(spark)}
    for name, rows in tables.items():
        print(f"\n{name}")
        for row in rows:
            print({k: _format(v) for k, v in row.items()})
        if not args.print:
            write_csv(rows, DOCS / name)
    spark.stop()


if __name__ == "__main__":
    main()
