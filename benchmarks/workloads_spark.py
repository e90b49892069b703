"""K1: fastnb.spark against Spark MLlib's NaiveBayes on local[2], cached input.

Run on its own (it starts a JVM): ``python -P benchmarks/side_by_side.py --only K1``;
the default run and ``--quick`` leave it out unless ``--only`` names it. Every
DataFrame is generated inside Spark, cached and counted before any timing, with
the same partitions (``PARTITIONS``) for both libraries; transforms are timed
to the end by writing every output column to Spark's ``noop`` sink.

K1a raw text: 500,000 documents of 40 words, 10 classes. fastnb's MultinomialNB
reads the string column with its compiled HashingVectorizer (2**18) inside each
task; MLlib runs Tokenizer -> HashingTF(2**18) -> NaiveBayes.
K1b dense vectors: Gaussian 1,000,000 x 50 VectorUDT, 10 classes, against MLlib's
gaussian NaiveBayes and against the transfer floor measured in the same run
(``vector_to_array`` + ``mapInArrow`` reading the column into NumPy and
returning nothing; for transform, an arrow UDF reading it and returning one
double per row).
K1c model selection: fitMultiple over 4 alphas against 4 separate fits on a
cached fold of HashingTF vectors, and a 3-fold CrossValidator (12 models) against
the same CrossValidator with pyspark's default fitMultiple (one fit per map); the
two give equal avgMetrics (checked before timing).
K1d a table MLlib cannot take as it is: 8 string columns with nulls; fastnb's
CategoricalNB reads them as they are, MLlib needs StringIndexer + OneHotEncoder
+ VectorAssembler first. Fit time, and accuracy on a held-out quarter.
K1e driver memory: the Python heap's peak during a GaussianNB fit on K1b's data
stays within a model-sized allowance (never the data's 400 MB).
K1f a new user's text transform: 47,000 documents, 58 classes, 2**18 hashed
features (the size reported in issue 51), in steady state (the warm-up run has
shipped the model and each Python worker has read it), against MLlib's
Tokenizer -> HashingTF -> NaiveBayes transform; the same size at --quick.
K1g the gallery example "A Spark text pipeline" run end to end as the docs
build runs it (a fresh interpreter and SparkSession), against 30 seconds.
"""

import os
import pathlib
import shutil
import sys

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

from harness import Case, MemoryCase  # noqa: E402

# side_by_side.py runs this module only when --only names K1 (it needs Java).
ONLY_WHEN_NAMED = "K1"
# What this workload starts of its own: its threads count in the machine's load
# average, so side_by_side.py records the load before it starts them too, and
# benchmarks/render.py judges K1's rows by that one.
OWN_PROCESSES = "a local[2] Spark JVM and its Python workers"
PARTITIONS = 8
N_CLASSES = 10
N_WORDS = 40
VOCABULARY = 20_000
TEXT_FEATURES = 2**18
_SESSION = {}


def spark_available():
    """Whether pyspark, pyarrow and Java are all here."""
    try:
        import pyarrow  # noqa: F401
        import pyspark  # noqa: F401
    except ImportError:
        return False
    return shutil.which("java") is not None or bool(os.environ.get("JAVA_HOME"))


def session():
    """The one local[2] SparkSession of this process (loopback, UI off, 2g)."""
    if "spark" not in _SESSION:
        from pyspark.sql import SparkSession

        # The Python workers unpickle this module's task functions by reference:
        # they need this folder on their path, and this interpreter (its fastnb).
        here = str(pathlib.Path(__file__).resolve().parent)
        paths = [here] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep)
                          if p]
        os.environ["PYTHONPATH"] = os.pathsep.join(paths)
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)

        _SESSION["spark"] = (
            SparkSession.builder.master("local[2]").appName("fastnb-K1")
            .config("spark.driver.host", "127.0.0.1")
            .config("spark.driver.bindAddress", "127.0.0.1")
            .config("spark.ui.enabled", "false")
            .config("spark.sql.shuffle.partitions", "2")
            # (local mode: the driver is the executor. At 2g the full run's
            # K1f ran MLlib's NaiveBayes, 58 classes x 2**18 dense sums per
            # task, out of heap after K1a-K1e's data sets: OutOfMemoryError)
            .config("spark.driver.memory", "6g")
            .config("spark.ui.showConsoleProgress", "false")
            .getOrCreate())
        _SESSION["spark"].sparkContext.setLogLevel("ERROR")
    return _SESSION["spark"]


def cached(df):
    """``df`` repartitioned to PARTITIONS, cached and counted (materialised)."""
    df = df.repartition(PARTITIONS).cache()
    df.count()
    return df


def dense_frame(spark, n, d=50, seed=0):
    """n rows of ``label`` (0..9, double) and ``features`` (a dense VectorUDT of d
    normal features whose means move with the label)."""
    from pyspark.ml.functions import array_to_vector
    from pyspark.sql import functions as F

    label = (F.col("id") % N_CLASSES).cast("double")
    values = [F.randn(seed + j) + label * (0.05 + 0.01 * j) for j in range(d)]
    return (spark.range(n, numPartitions=PARTITIONS)
            .select(label.alias("label"), array_to_vector(F.array(*values))
                    .alias("features")))


def text_frame(spark, n, seed=0, n_classes=N_CLASSES):
    """n documents of N_WORDS words (``text``) with a string ``label``: each word
    is drawn from a skewed vocabulary shifted by the class, so the classes differ
    in their word frequencies."""
    from pyspark.sql import functions as F

    k = F.col("id") % n_classes
    words = [F.concat(F.lit("w"), ((F.floor(F.pow(F.rand(seed + j), 3) * VOCABULARY)
                                    + k * 7) % VOCABULARY).cast("int").cast("string"))
             for j in range(N_WORDS)]
    return (spark.range(n, numPartitions=PARTITIONS)
            .select(F.concat(F.lit("c"), k.cast("string")).alias("label"),
                    F.concat_ws(" ", *words).alias("text")))


def table_frame(spark, n, n_columns=8, seed=0):
    """n rows of n_columns string columns (20 levels, about 5% nulls each) and a
    string label with 4 classes that shifts the levels' frequencies."""
    from pyspark.sql import functions as F

    k = F.col("id") % 4
    columns = []
    for j in range(n_columns):
        level = (F.floor(F.pow(F.rand(seed + j), 2) * 20) + k * (j % 3 + 1)) % 20
        columns.append(F.when(F.rand(seed + 100 + j) < 0.05, F.lit(None))
                       .otherwise(F.concat(F.lit("v"), level.cast("int").cast("string")))
                       .alias(f"c{j}"))
    return (spark.range(n, numPartitions=PARTITIONS)
            .select(F.concat(F.lit("k"), k.cast("string")).alias("label"), *columns))


def run_to_end(df):
    """Compute every column of every row of ``df`` and drop them (Spark's noop
    sink): a transform's full cost, nothing collected."""
    df.write.format("noop").mode("overwrite").save()


def _drain(batches):
    """mapInArrow body of the transfer floor: each batch's vectors to one NumPy
    matrix (the work any Python consumer must do), nothing returned."""
    import pyarrow as pa

    for batch in batches:
        values = batch.column(0).values
        np.asarray(values.to_numpy(zero_copy_only=False)).reshape(batch.num_rows, -1)
    yield pa.RecordBatch.from_pylist([], schema=pa.schema([("n", pa.int64())]))


def transfer_floor_fit(df, column="features"):
    """Move a VectorUDT column to Python as NumPy (vector_to_array +
    mapInArrow), the least any Python fit on it can cost."""
    from pyspark.ml.functions import vector_to_array

    (df.select(vector_to_array(column).alias("f"))
     .mapInArrow(_drain, "n long").collect())


def _floor_udf():
    import pyarrow as pa
    from pyspark.sql.functions import ArrowUDFType, arrow_udf

    @arrow_udf("double", ArrowUDFType.SCALAR_ITER)
    def first_value(iterator):
        for array in iterator:
            values = np.asarray(array.values.to_numpy(zero_copy_only=False))
            yield pa.array(values.reshape(len(array), -1)[:, 0])

    return first_value


def transfer_floor_transform(df, column="features"):
    """An arrow UDF reading a VectorUDT column as NumPy and returning one double per
    row, computed to the end: the least a Python transform can cost."""
    from pyspark.ml.functions import vector_to_array

    run_to_end(df.select("*", _floor_udf()(vector_to_array(column)).alias("out")))


def _text_cases(spark, n):
    from pyspark.ml import Pipeline
    from pyspark.ml.classification import NaiveBayes
    from pyspark.ml.feature import HashingTF, StringIndexer, Tokenizer

    import fastnb.spark
    import fastnb.text

    docs = cached(text_frame(spark, n))
    # MLlib's labels must be doubles 0..k-1; index them outside the timing.
    docs_indexed = cached(StringIndexer(inputCol="label", outputCol="y").fit(docs)
                          .transform(docs).drop("label"))
    docs.unpersist()
    docs = docs_indexed
    ours = fastnb.spark.MultinomialNB(
        inputCol="text", labelCol="y",
        vectorizer=fastnb.text.HashingVectorizer(n_features=TEXT_FEATURES,
                                                alternate_sign=False, norm=None))
    theirs = Pipeline(stages=[
        Tokenizer(inputCol="text", outputCol="words"),
        HashingTF(inputCol="words", outputCol="tf", numFeatures=TEXT_FEATURES),
        NaiveBayes(featuresCol="tf", labelCol="y", modelType="multinomial")])
    fitted = {"ours": ours.fit(docs), "theirs": theirs.fit(docs)}
    name = f"K1a Spark text n={n:,} words={N_WORDS} V=2^18 k={N_CLASSES}"
    return [
        Case(name, "fit: string column -> MultinomialNB",
             lambda: ours.fit(docs), lambda: theirs.fit(docs),
             baseline="MLlib Tokenizer+HashingTF+NaiveBayes", target=4.0),
        Case(name, "transform (all output columns)",
             lambda: run_to_end(fitted["ours"].transform(docs)),
             lambda: run_to_end(fitted["theirs"].transform(docs)),
             baseline="MLlib Tokenizer+HashingTF+NaiveBayes", target=3.0),
    ], docs


def _dense_cases(spark, n):
    from pyspark.ml.classification import NaiveBayes

    import fastnb.spark

    data = cached(dense_frame(spark, n))
    ours = fastnb.spark.GaussianNB()
    theirs = NaiveBayes(modelType="gaussian")
    ours_model, theirs_model = ours.fit(data), theirs.fit(data)
    name = f"K1b Spark dense n={n:,} d=50 k={N_CLASSES} (VectorUDT)"
    floor = "transfer floor (vector_to_array + arrow)"
    return [
        Case(name, "GaussianNB fit", lambda: ours.fit(data), lambda: theirs.fit(data),
             baseline="MLlib NaiveBayes gaussian", target=1.0),
        Case(name, "GaussianNB fit vs moving the column to Python",
             lambda: ours.fit(data), lambda: transfer_floor_fit(data),
             baseline=floor, target=0.83),  # within 1.2x of the floor
        Case(name, "transform (all output columns)",
             lambda: run_to_end(ours_model.transform(data)),
             lambda: run_to_end(theirs_model.transform(data)),
             baseline="MLlib NaiveBayes gaussian", target=1.0),
        Case(name, "transform vs a UDF reading the column",
             lambda: run_to_end(ours_model.transform(data)),
             lambda: transfer_floor_transform(data),
             baseline=floor, target=0.83),  # within 1.2x of the floor
    ], data


class _OneFitPerMap:
    """pyspark's default Estimator.fitMultiple: one fit per parameter map."""

    @staticmethod
    def wrap(estimator):
        from pyspark.ml.base import Estimator

        class DefaultFitMultiple(type(estimator)):
            fitMultiple = Estimator.fitMultiple

        copy = DefaultFitMultiple()
        estimator._copyValues(copy)
        return copy


def _grid_cases(spark, docs):
    from pyspark.ml.evaluation import MulticlassClassificationEvaluator
    from pyspark.ml.feature import HashingTF, Tokenizer
    from pyspark.ml.tuning import CrossValidator, ParamGridBuilder

    import fastnb.spark

    words = Tokenizer(inputCol="text", outputCol="words").transform(docs)
    fold = cached(HashingTF(inputCol="words", outputCol="features",
                            numFeatures=TEXT_FEATURES).transform(words)
                  .select("features", "y"))
    estimator = fastnb.spark.MultinomialNB(labelCol="y")
    alphas = [0.01, 0.1, 0.5, 1.0]
    grid = ParamGridBuilder().addGrid(estimator.getParam("alpha"), alphas).build()

    def one_pass():
        return [model for _, model in estimator.fitMultiple(fold, grid)]

    def separate():
        return [estimator.fit(fold, params) for params in grid]

    default = _OneFitPerMap.wrap(estimator)
    evaluator = MulticlassClassificationEvaluator(labelCol="y", metricName="accuracy")

    def cross_validator(stage):
        # a param map's keys are the stage's own params (a Param belongs to one
        # stage: the copy's grid names the copy's alpha, or its fits ignore it)
        stage_grid = ParamGridBuilder().addGrid(stage.getParam("alpha"), alphas).build()
        return CrossValidator(estimator=stage, estimatorParamMaps=stage_grid, numFolds=3,
                              evaluator=evaluator, seed=0)

    ours_cv = cross_validator(estimator).fit(fold).avgMetrics
    default_cv = cross_validator(default).fit(fold).avgMetrics
    if not np.allclose(ours_cv, default_cv, rtol=1e-12, atol=0):
        raise AssertionError(f"avgMetrics differ: {ours_cv} vs {default_cv}")
    name = f"K1c Spark grid 4 alphas V=2^18 n={fold.count():,}"
    metrics = ", ".join(f"{m:.4f}" for m in ours_cv)
    return [
        Case(name, "fitMultiple (one pass) vs 4 fits", one_pass, separate,
             baseline="4 separate fastnb fits", target=3.0),
        Case(name, f"CrossValidator 3 folds, 12 models (avgMetrics equal: {metrics})",
             lambda: cross_validator(estimator).fit(fold),
             lambda: cross_validator(default).fit(fold),
             baseline="same, pyspark's default fitMultiple"),
    ], fold


def _table_cases(spark, n):
    from pyspark.ml import Pipeline
    from pyspark.ml.classification import NaiveBayes
    from pyspark.ml.evaluation import MulticlassClassificationEvaluator
    from pyspark.ml.feature import OneHotEncoder, StringIndexer, VectorAssembler

    import fastnb.spark

    table = table_frame(spark, n)
    columns = [c for c in table.columns if c != "label"]
    train, test = (cached(part) for part in table.randomSplit([0.75, 0.25], seed=0))
    ours = fastnb.spark.CategoricalNB(inputCols=columns)
    indexed = [f"{c}_i" for c in columns]
    encoded = [f"{c}_1" for c in columns]
    theirs = Pipeline(stages=[
        StringIndexer(inputCols=["label"] + columns, outputCols=["y"] + indexed,
                      handleInvalid="keep"),
        OneHotEncoder(inputCols=indexed, outputCols=encoded, handleInvalid="keep"),
        VectorAssembler(inputCols=encoded, outputCol="features"),
        NaiveBayes(labelCol="y", modelType="multinomial")])
    ours_model, theirs_model = ours.fit(train), theirs.fit(train)
    ours_accuracy = (ours_model.transform(test)
                     .where("predictedLabel = label").count()) / test.count()
    evaluator = MulticlassClassificationEvaluator(labelCol="y", metricName="accuracy")
    theirs_accuracy = evaluator.evaluate(theirs_model.transform(test))
    name = f"K1d Spark table n={n:,} 8 string columns with nulls k=4"
    return [
        Case(name, f"CategoricalNB fit (accuracy {ours_accuracy:.4f} vs MLlib's "
                   f"{theirs_accuracy:.4f})",
             lambda: ours.fit(train), lambda: theirs.fit(train),
             baseline="MLlib StringIndexer+OneHotEncoder+VectorAssembler+NaiveBayes"),
    ], (train, test)


NEW_USER_DOCUMENTS = 47_000
NEW_USER_CLASSES = 58


def _new_user_text_cases(spark):
    """K1f: the text transform at the size a new user tried (issue 51)."""
    from pyspark.ml import Pipeline
    from pyspark.ml.classification import NaiveBayes
    from pyspark.ml.feature import HashingTF, StringIndexer, Tokenizer

    import fastnb.spark
    import fastnb.text

    docs = cached(text_frame(spark, NEW_USER_DOCUMENTS, seed=7,
                             n_classes=NEW_USER_CLASSES))
    indexed = cached(StringIndexer(inputCol="label", outputCol="y").fit(docs)
                     .transform(docs).drop("label"))
    docs.unpersist()
    hashing = fastnb.text.HashingVectorizer(n_features=TEXT_FEATURES,
                                            alternate_sign=False, norm=None)
    ours = fastnb.spark.MultinomialNB(inputCol="text", labelCol="y",
                                      vectorizer=hashing).fit(indexed)
    theirs = Pipeline(stages=[
        Tokenizer(inputCol="text", outputCol="words"),
        HashingTF(inputCol="words", outputCol="tf", numFeatures=TEXT_FEATURES),
        NaiveBayes(featuresCol="tf", labelCol="y", modelType="multinomial")]).fit(indexed)
    name = (f"K1f Spark text transform n={NEW_USER_DOCUMENTS:,} V=2^18 "
            f"k={NEW_USER_CLASSES} (issue 51's size)")
    return [Case(name, "transform (all output columns), steady state",
                 lambda: run_to_end(ours.transform(indexed)),
                 lambda: run_to_end(theirs.transform(indexed)),
                 baseline="MLlib Tokenizer+HashingTF+NaiveBayes", target=1.0)], indexed


def _gallery_cases():
    """K1g: the Spark gallery example, end to end, as the docs build runs it."""
    import subprocess

    example = (pathlib.Path(__file__).resolve().parent.parent / "examples" / "in_practice"
               / "plot_spark_text_pipeline.py")

    def run_example():
        subprocess.run([sys.executable, "-P", str(example)], check=True,
                       capture_output=True, env={**os.environ, "MPLBACKEND": "Agg"})

    return [Case("K1g Spark gallery example", f"{example.name}, a fresh process",
                 run_example, max_seconds=30.0)]


def _sizes(quick):
    if quick:
        return {"text": 20_000, "dense": 40_000, "table": 20_000}
    return {"text": 500_000, "dense": 1_000_000, "table": 500_000}


def cases(quick=False):
    if not spark_available():
        return []
    sizes = _sizes(quick)
    spark = session()
    text, docs = _text_cases(spark, sizes["text"])
    grid, _ = _grid_cases(spark, docs)
    dense, _ = _dense_cases(spark, sizes["dense"])
    table, _ = _table_cases(spark, sizes["table"])
    new_user, _ = _new_user_text_cases(spark)
    return text + dense + grid + table + new_user + _gallery_cases()


def memory_cases(quick=False):
    if not spark_available():
        return []
    import fastnb.spark

    n = _sizes(quick)["dense"]
    data = cached(dense_frame(session(), n, seed=1))
    # theta_ and var_ (k x d doubles each) per model, a few partition models alive
    # at once in the merge, and Spark's own Python-side bookkeeping: 1 MiB.
    return [MemoryCase(f"K1e Spark driver memory n={n:,} d=50 k={N_CLASSES}",
                       "GaussianNB fit: Python heap peak on the driver",
                       lambda: fastnb.spark.GaussianNB().fit(data).fastnb_model.theta_,
                       allowance_bytes=2**20)]
