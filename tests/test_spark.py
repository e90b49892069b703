"""fastnb.spark: a Spark fit equals the local fit of the collected data.

One SparkSession on local[2] (loopback, UI off) for the module; skipped only where
pyspark, pyarrow or Java is missing. Every comparison is against fastnb fitted
locally on the same rows (``toPandas``), rtol 1e-12, same classes.
"""

import os
import shutil

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

import fastnb

pyspark = pytest.importorskip("pyspark", reason="fastnb.spark needs pyspark")
pytest.importorskip("pyarrow", reason="fastnb.spark needs pyarrow")
sparse = pytest.importorskip("scipy.sparse")
if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
    pytest.skip("Spark needs Java, which is not installed", allow_module_level=True)

import fastnb.spark as fs  # noqa: E402
import fastnb.text  # noqa: E402
from pyspark.ml import Pipeline, PipelineModel  # noqa: E402
from pyspark.ml.feature import HashingTF, Tokenizer, VectorAssembler  # noqa: E402
from pyspark.ml.linalg import SparseVector, Vectors, VectorUDT  # noqa: E402
from pyspark.sql import SparkSession  # noqa: E402
from pyspark.sql import functions as F  # noqa: E402
from pyspark.sql.types import (  # noqa: E402
    ArrayType,
    BooleanType,
    DoubleType,
    LongType,
    StringType,
    StructField,
    StructType,
)

RTOL = 1e-12


@pytest.fixture(scope="module")
def spark():
    session = (SparkSession.builder.master("local[2]")
               .appName("fastnb-tests")
               .config("spark.driver.host", "127.0.0.1")
               .config("spark.driver.bindAddress", "127.0.0.1")
               .config("spark.ui.enabled", "false")
               .config("spark.sql.shuffle.partitions", "2")
               .config("spark.driver.memory", "2g")
               .getOrCreate())
    yield session
    session.stop()


def _state_equal(spark_model, local_model):
    assert_array_equal(spark_model.classes_, local_model.classes_)
    a, b = spark_model._sufficient_state(), local_model._sufficient_state()
    assert a.keys() == b.keys()
    for name in a:
        assert_allclose(np.asarray(a[name], dtype=float), np.asarray(b[name], dtype=float),
                        rtol=RTOL, atol=1e-300, err_msg=name)


def _counts(rng, n=300, d=8, k=3):
    y = rng.integers(0, k, n)
    X = rng.poisson(1.0 + y[:, None] * np.linspace(0, 2, d), size=(n, d)).astype(float)
    return X, y


def _vector_frame(spark, X, y, *, sparse_rows=False, partitions=2, weights=None):
    rows = []
    for i, (x, label) in enumerate(zip(X, y)):
        if sparse_rows and i % 2:
            nz = np.flatnonzero(x)
            vector = SparseVector(len(x), nz.tolist(), x[nz].tolist())
        else:
            vector = Vectors.dense(x.tolist())
        row = (vector, label.item() if hasattr(label, "item") else label)
        rows.append(row + ((float(weights[i]),) if weights is not None else ()))
    fields = [StructField("features", VectorUDT()), StructField("label", _type_of(y))]
    if weights is not None:
        fields.append(StructField("w", DoubleType()))
    return spark.createDataFrame(rows, StructType(fields)).repartition(partitions)


def _type_of(y):
    return StringType() if np.asarray(y).dtype.kind in "OU" else (
        DoubleType() if np.asarray(y).dtype.kind == "f" else LongType())


def _collected(df, cols=("features",)):
    """The rows of df as the Spark fit saw them (partition order is irrelevant)."""
    pdf = df.toPandas()
    X = np.array([np.asarray(v.toArray()) for v in pdf[cols[0]]])
    return X, pdf


@pytest.mark.parametrize("partitions", [1, 2, 7])
@pytest.mark.parametrize("sparse_rows", [False, True])
def test_multinomial_on_vectors_equals_the_local_fit(spark, rng, partitions, sparse_rows):
    X, y = _counts(rng)
    df = _vector_frame(spark, X, y, sparse_rows=sparse_rows, partitions=partitions)
    model = fs.MultinomialNB(alpha=0.5).fit(df)
    Xc, pdf = _collected(df)
    local = fastnb.MultinomialNB(alpha=0.5).fit(Xc, pdf["label"].to_numpy())
    _state_equal(model.fastnb_model, local)
    out = model.transform(df).toPandas()
    Xo = np.array([v.toArray() for v in out["features"]])
    assert_array_equal(out["predictedLabel"].to_numpy(), local.predict(Xo))
    proba = np.array([v.toArray() for v in out["probability"]])
    assert_allclose(proba, local.predict_proba(Xo), rtol=1e-10)
    raw = np.array([v.toArray() for v in out["rawPrediction"]])
    assert_allclose(raw, local.predict_joint_log_proba(Xo), rtol=1e-10)


@pytest.mark.parametrize("name", ["GaussianNB", "BernoulliNB", "ComplementNB",
                                  "CategoricalNB"])
def test_every_vector_model_equals_the_local_fit(spark, rng, name):
    X, y = _counts(rng, n=200)
    df = _vector_frame(spark, X, y.astype(str), sparse_rows=True, partitions=3)
    model = getattr(fs, name)().fit(df)
    Xc, pdf = _collected(df)
    local = getattr(fastnb, name)().fit(Xc, pdf["label"].to_numpy())
    _state_equal(model.fastnb_model, local)
    out = model.transform(df).toPandas()
    Xo = np.array([v.toArray() for v in out["features"]])
    assert_array_equal(out["predictedLabel"].to_numpy(), local.predict(Xo))
    assert_allclose(np.array([v.toArray() for v in out["probability"]]),
                    local.predict_proba(Xo), rtol=1e-9)


@pytest.mark.parametrize("column", ["vector", "array"])
def test_dense_rows_fitted_batch_by_batch_equal_the_local_fit(spark, column):
    """Dense rows (a dense vector or an array column) are fitted one Arrow batch
    at a time and merged, not joined first; batches under _DIRECT_MIN_ROWS are
    joined: batches of 2,100 rows (each partition's last one smaller) give the
    local fit of the collected rows."""
    from pyspark.ml.functions import array_to_vector
    from pyspark.sql import functions as F

    from fastnb.spark import _estimators

    assert _estimators._DIRECT_MIN_ROWS <= 2100
    label = (F.col("id") % 4).cast("double")
    values = F.array(*[F.randn(j) * (1 + j) + label * j + 1e4 for j in range(6)])
    features = array_to_vector(values) if column == "vector" else values
    df = (spark.range(9000, numPartitions=2)
          .select(label.alias("label"), features.alias("features")).cache())
    key = "spark.sql.execution.arrow.maxRecordsPerBatch"
    before = spark.conf.get(key)
    spark.conf.set(key, "2100")
    try:
        model = fs.GaussianNB().fit(df)
    finally:
        spark.conf.set(key, before)
    pdf = df.toPandas()
    X = np.array([np.asarray(v.toArray() if column == "vector" else v)
                  for v in pdf["features"]])
    local = fastnb.GaussianNB().fit(X, pdf["label"].to_numpy())
    _state_equal(model.fastnb_model, local)
    assert_allclose(model.fastnb_model.var_, local.var_, rtol=1e-11)
    df.unpersist()


@pytest.mark.parametrize("labels", ["int", "double", "string", "boolean"])
def test_labels_keep_their_type_and_the_prediction_is_a_double(spark, rng, labels):
    """predictionCol is the double Spark's evaluators read (a numeric label's
    value, a string label's index in classes_); predictedLabelCol keeps the
    label's own type (the prediction kept it, and the evaluators refused it)."""
    X, y = _counts(rng, n=120, d=4, k=2 if labels == "boolean" else 3)
    y = {"int": y * 5, "double": y.astype(float) + 1.0, "boolean": y.astype(bool),
         "string": np.array(["b", "a", "c"])[y]}[labels]
    df = _vector_frame(spark, X, y, partitions=2) if labels != "boolean" else \
        spark.createDataFrame([(Vectors.dense(x.tolist()), bool(v)) for x, v in zip(X, y)],
                              StructType([StructField("features", VectorUDT()),
                                          StructField("label", BooleanType())]))
    model = fs.GaussianNB().fit(df)
    out = model.transform(df)
    assert out.schema["prediction"].dataType == DoubleType()
    assert out.schema["predictedLabel"].dataType == df.schema["label"].dataType
    assert isinstance(out.schema["probability"].dataType, VectorUDT)
    assert isinstance(out.schema["rawPrediction"].dataType, VectorUDT)
    pdf = out.toPandas()
    Xc = np.array([v.toArray() for v in pdf["features"]])
    predicted = model.fastnb_model.predict(Xc)
    assert_array_equal(pdf["predictedLabel"], predicted)
    expected = np.searchsorted(model.classes_, predicted) if labels == "string" \
        else predicted.astype(float)
    assert_array_equal(pdf["prediction"], expected)
    assert "predictedLabel" not in model.copy({model.predictedLabelCol: ""}) \
        .transform(df).columns


def test_a_transform_warns_nothing(spark, rng):
    """The arrow UDF has type hints: pyspark warned "specify type hints for arrow
    UDF" at each transform, from fastnb's own call."""
    import warnings

    X, y = _counts(rng, n=40, d=3)
    df = _vector_frame(spark, X, y, partitions=2)
    model = fs.MultinomialNB().fit(df)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = model.transform(df)
    assert [str(w.message) for w in caught] == []
    assert out.count() == 40


def test_spark_evaluators_and_cross_validation_read_the_prediction(spark, rng):
    from pyspark.ml.evaluation import MulticlassClassificationEvaluator
    from pyspark.ml.tuning import CrossValidator, ParamGridBuilder

    y = rng.integers(0, 3, 120)
    X = rng.poisson(np.where(np.arange(6) % 3 == y[:, None], 6.0, 1.0)).astype(float)
    df = _vector_frame(spark, X, y * 2, partitions=2).cache()
    nb = fs.MultinomialNB()
    evaluator = MulticlassClassificationEvaluator(metricName="accuracy")
    model = nb.fit(df)
    pdf = model.transform(df).toPandas()
    assert evaluator.evaluate(model.transform(df)) == pytest.approx(
        np.mean(pdf["predictedLabel"] == pdf["label"]), rel=1e-12)
    grid = ParamGridBuilder().addGrid(nb.getParam("alpha"), [0.5, 1.0]).build()
    cv = CrossValidator(estimator=nb, estimatorParamMaps=grid, evaluator=evaluator,
                        numFolds=2, seed=3).fit(df)
    assert len(cv.avgMetrics) == 2 and all(0.8 < m <= 1.0 for m in cv.avgMetrics)
    df.unpersist()


def test_empty_partitions_and_a_class_in_one_partition(spark, rng):
    X, y = _counts(rng, n=60, d=5)
    df = _vector_frame(spark, X, y, partitions=2).repartition(7, "label")
    sizes = df.groupBy(F.spark_partition_id().alias("p")).count().collect()
    assert len(sizes) < 7   # some partitions are empty, each class is in one
    model = fs.MultinomialNB().fit(df)
    Xc, pdf = _collected(df)
    _state_equal(model.fastnb_model, fastnb.MultinomialNB().fit(Xc, pdf["label"]))


def test_weights(spark, rng):
    X, y = _counts(rng, n=150, d=5)
    w = rng.uniform(0.1, 3.0, size=150)
    df = _vector_frame(spark, X, y, partitions=3, weights=w)
    for name in ("MultinomialNB", "GaussianNB"):
        model = getattr(fs, name)(weightCol="w").fit(df)
        Xc, pdf = _collected(df)
        local = getattr(fastnb, name)().fit(Xc, pdf["label"], sample_weight=pdf["w"])
        _state_equal(model.fastnb_model, local)


def test_array_column_with_nulls_is_missing_values(spark, rng):
    X, y = _counts(rng, n=150, d=4)
    X[rng.random(X.shape) < 0.2] = np.nan
    rows = [([None if np.isnan(v) else float(v) for v in x], int(label))
            for x, label in zip(X, y)]
    df = spark.createDataFrame(rows, "features array<double>, label long").repartition(3)
    pdf = df.toPandas()
    Xc = np.array([[np.nan if v is None else v for v in r] for r in pdf["features"]],
                  dtype=float)
    for name in ("GaussianNB", "MultinomialNB", "BernoulliNB"):
        model = getattr(fs, name)().fit(df)
        local = getattr(fastnb, name)().fit(Xc, pdf["label"])
        _state_equal(model.fastnb_model, local)
        out = model.transform(df).toPandas()
        Xo = np.array([[np.nan if v is None else v for v in r] for r in out["features"]],
                      dtype=float)
        assert_array_equal(out["predictedLabel"], local.predict(Xo))


def _vector(x, form, i):
    sparse_vector = Vectors.sparse(4, {0: x[0], 2: x[2]})
    dense_vector = Vectors.dense([x[0], 0.0, x[2], 0.0])
    return {"sparse": sparse_vector, "dense": dense_vector,
            "mixed": dense_vector if i % 2 else sparse_vector}[form]


@pytest.mark.parametrize("form", ["sparse", "dense", "mixed"])
def test_null_vectors_are_rows_of_missing_values(spark, rng, form):
    """Count models read dense rows through vector_to_array and sparse rows as
    their structs, each row as its type says; nulls are rows of missing values."""
    X, y = _counts(rng, n=80, d=4)
    rows = [(None if i % 9 == 0 else _vector(x, form, i), int(label))
            for i, (x, label) in enumerate(zip(X, y))]
    schema = StructType([StructField("features", VectorUDT()),
                         StructField("label", _type_of(y))])
    df = spark.createDataFrame(rows, schema).repartition(2)
    pdf = df.toPandas()
    Xc = np.array([np.full(4, np.nan) if v is None else v.toArray()
                   for v in pdf["features"]])
    model = fs.MultinomialNB().fit(df)
    _state_equal(model.fastnb_model, fastnb.MultinomialNB().fit(Xc, pdf["label"]))


def _table(spark, rng, n=200):
    y = rng.integers(0, 3, n)
    colour = np.array(["red", "green", "blue", "grey"])[(y + rng.integers(0, 2, n)) % 4]
    size = rng.normal(y * 2.0, 1.0)
    rows = [(None if i % 11 == 0 else str(c), None if i % 13 == 0 else float(s),
             bool(s > 1), int(i % 3 + y[i]), ["x", "y", "z"][y[i]])
            for i, (c, s) in enumerate(zip(colour, size))]
    schema = "colour string, size double, big boolean, level long, label string"
    return spark.createDataFrame(rows, schema).repartition(3)


@pytest.mark.parametrize("name, cols", [("CategoricalNB", ["colour", "level"]),
                                        ("ColumnwiseNB", ["colour", "size", "big", "level"])])
def test_raw_columns_with_strings_and_nulls(spark, rng, name, cols):
    df = _table(spark, rng)
    model = getattr(fs, name)(inputCols=cols).fit(df)
    pdf = df.toPandas()
    # ColumnwiseNB picked its sub-models from the first rows: the same ones locally
    params = model.fastnb_model.get_params(deep=False)
    local = getattr(fastnb, name)(**params).fit(pdf[cols], pdf["label"])
    assert_array_equal(model.fastnb_model.classes_, local.classes_)
    out = model.transform(df).toPandas()
    assert_array_equal(out["predictedLabel"], local.predict(out[cols]))
    assert_allclose(np.array([v.toArray() for v in out["probability"]]),
                    local.predict_proba(out[cols]), rtol=1e-9)


@pytest.mark.parametrize("n_threads", [None, 2])
def test_columnwise_sub_models_have_the_estimators_threads(spark, rng, n_threads):
    """The tasks fit on one thread each; the model handed back has the threads
    the estimator asked for, its sub-models too (they kept the tasks' 1)."""
    model = fs.ColumnwiseNB(inputCols=["colour", "size"], n_threads=n_threads).fit(
        _table(spark, rng, n=60)).fastnb_model
    assert model.n_threads == n_threads
    assert [sub.n_threads for _, sub, _ in model.estimators_] == [n_threads] * 2


def test_gaussian_on_numeric_input_columns(spark, rng):
    df = _table(spark, rng)
    model = fs.GaussianNB(inputCols=["size", "level"]).fit(df)
    pdf = df.toPandas()
    X = pdf[["size", "level"]].to_numpy(dtype=float)
    _state_equal(model.fastnb_model, fastnb.GaussianNB().fit(X, pdf["label"]))


def _documents(rng, n=300):
    words = np.array(["cheap", "pills", "offer", "now", "meeting", "noon", "lunch", "report",
                      "team", "win"])
    y = rng.integers(0, 2, n)
    docs = [" ".join(words[rng.integers(0, 5, 8) + 5 * label]) for label in y]
    return docs, y


def test_text_column_with_a_vectorizer(spark, rng):
    docs, y = _documents(rng)
    df = spark.createDataFrame(list(zip(docs, y.tolist())), "text string, label long")
    df = df.repartition(3)
    vectorizer = fastnb.text.HashingVectorizer(n_features=2**12, alternate_sign=False,
                                               norm=None)
    model = fs.MultinomialNB(inputCol="text", vectorizer=vectorizer).fit(df)
    pdf = df.toPandas()
    local = fastnb.MultinomialNB().fit(vectorizer.transform(pdf["text"].tolist()),
                                       pdf["label"])
    _state_equal(model.fastnb_model, local)
    out = model.transform(df).toPandas()
    assert_array_equal(out["predictedLabel"],
                       local.predict(vectorizer.transform(out["text"].tolist())))


@pytest.mark.parametrize("name", ["MultinomialNB", "ComplementNB", "BernoulliNB"])
def test_text_scale_partition_tables_merge_to_the_local_fit(spark, rng, name):
    """At 2**18 features the partition models keep sparse count tables; the driver
    sums their entries into one model, equal to a local fit of all the rows."""
    words = np.array([f"w{i}" for i in range(400)])
    y = rng.integers(0, 4, 400)
    docs = [" ".join(words[(rng.integers(0, 100, 12) + 50 * label) % 400]) for label in y]
    df = spark.createDataFrame(list(zip(docs, y.tolist())), "text string, label long")
    df = df.repartition(3)
    vectorizer = fastnb.text.HashingVectorizer(n_features=2**18, alternate_sign=False,
                                               norm=None)
    model = getattr(fs, name)(inputCol="text", vectorizer=vectorizer).fit(df)
    pdf = df.toPandas()
    X = vectorizer.transform(pdf["text"].tolist())
    part = getattr(fastnb, name)().fit(X[:130], pdf["label"][:130])
    assert part.__dict__.get("_table") is not None  # the partitions' layout
    local = getattr(fastnb, name)().fit(X, pdf["label"])
    spark_model = model.fastnb_model
    assert_array_equal(spark_model.classes_, local.classes_)
    for attribute in ("class_count_", "feature_count_", "feature_log_prob_"):
        assert_allclose(getattr(spark_model, attribute), getattr(local, attribute),
                        rtol=RTOL, err_msg=attribute)
    out = model.transform(df).toPandas()
    X_out = vectorizer.transform(out["text"].tolist())
    assert_array_equal(out["predictedLabel"], local.predict(X_out))
    assert_allclose(np.array([v.toArray() for v in out["probability"]]),
                    local.predict_proba(X_out), rtol=1e-9)


def test_a_python_worker_reads_each_model_once(monkeypatch):
    """The transform's model is read from its bytes once per worker and digest;
    the worker keeps the last two models it used."""
    from fastnb import _persist
    from fastnb.spark import _estimators

    monkeypatch.setattr(_estimators, "_WORKER_MODELS", type(_estimators._WORKER_MODELS)())
    reads = []
    real = _persist.from_bytes
    monkeypatch.setattr(_persist, "from_bytes",
                        lambda blob: reads.append(blob) or real(blob))
    X, y = np.array([[1.0, 0.0], [0.0, 2.0]]), np.array([0, 1])
    blobs = {a: _estimators._shipped(fastnb.MultinomialNB(alpha=a).fit(X, y))
             for a in (0.5, 1.0, 2.0)}
    first = _estimators._worker_model(blobs[0.5], b"a")
    assert _estimators._worker_model(blobs[0.5], b"a") is first
    assert first.alpha == 0.5 and first.n_threads == 1 and len(reads) == 1
    _estimators._worker_model(blobs[1.0], b"b")
    _estimators._worker_model(blobs[0.5], b"a")   # used last: kept
    _estimators._worker_model(blobs[2.0], b"c")   # evicts b, the least recently used
    assert len(reads) == 3
    assert list(_estimators._WORKER_MODELS) == [b"a", b"c"]


def test_fit_multiple_counts_once_and_equals_separate_fits(spark, rng):
    from pyspark.ml.tuning import ParamGridBuilder

    X, y = _counts(rng, n=150, d=5)
    df = _vector_frame(spark, X, y, partitions=2).cache()
    for estimator, param, values in (
            (fs.MultinomialNB(), "alpha", [0.1, 0.5, 1.0, 2.0]),
            (fs.GaussianNB(), "var_smoothing", [1e-9, 1e-3, 0.1])):
        grid = ParamGridBuilder().addGrid(estimator.getParam(param), values).build()
        models = dict(estimator.fitMultiple(df, grid))
        assert sorted(models) == list(range(len(values)))
        for i, value in enumerate(values):
            separate = estimator.copy({estimator.getParam(param): value}).fit(df)
            assert getattr(models[i].fastnb_model, param) == value
            for attr in ("feature_log_prob_", "theta_", "var_", "class_log_prior_"):
                if hasattr(separate.fastnb_model, attr):
                    assert_allclose(getattr(models[i].fastnb_model, attr),
                                    getattr(separate.fastnb_model, attr), rtol=RTOL)
    df.unpersist()


def _sorted_by_class(spark, rng, n=90):
    """Count rows of 3 classes in partitions sorted by class."""
    X, y = _counts(rng, n=n, d=4)
    return _vector_frame(spark, X, y, partitions=1).repartitionByRange(3, "label")


@pytest.mark.parametrize("name, param, value", [
    ("GaussianNB", "priors", [0.2, 0.3, 0.5]),
    ("MultinomialNB", "class_prior", [0.2, 0.3, 0.5]),
    ("CategoricalNB", "class_prior", [0.2, 0.3, 0.5]),
    ("ColumnwiseNB", "priors", [0.2, 0.3, 0.5])])
def test_fixed_priors_apply_once_when_a_partition_lacks_a_class(spark, rng, name, param,
                                                                value):
    """The priors are one per class, and a partition may not see every class:
    partitions fit without them, the driver applies them to the merge (they
    failed in the executors: "Number of priors must match number of classes")."""
    df = _sorted_by_class(spark, rng)
    per_partition = df.groupBy(F.spark_partition_id()).agg(
        F.countDistinct("label").alias("n")).collect()
    assert max(row.n for row in per_partition) < 3
    Xc, pdf = _collected(df)
    if name == "ColumnwiseNB":
        df = df.withColumn("a", F.col("label") * 0.5 + F.rand(seed=1))
        estimator = fs.ColumnwiseNB(inputCols=["a"], **{param: value})
        model = estimator.fit(df)
        pdf = df.toPandas()
        local = fastnb.ColumnwiseNB(**{**model.fastnb_model.get_params(deep=False)}).fit(
            pdf[["a"]], pdf["label"])
        assert model.fastnb_model.priors == value
    else:
        model = getattr(fs, name)(**{param: value}).fit(df)
        local = getattr(fastnb, name)(**{param: value}).fit(Xc, pdf["label"])
    _state_equal(model.fastnb_model, local)
    assert_allclose(model.fastnb_model.predict_joint_log_proba(
        pdf[["a"]] if name == "ColumnwiseNB" else Xc),
        local.predict_joint_log_proba(pdf[["a"]] if name == "ColumnwiseNB" else Xc),
        rtol=1e-10)
    with pytest.raises(ValueError, match="Number of priors must match number of "
                                         r"classes.*classes found: \[0, 1, 2\]"):
        fs.GaussianNB(priors=[0.5, 0.5]).fit(df)


def test_a_grid_of_priors_with_partitions_lacking_classes(spark, rng):
    from pyspark.ml.evaluation import BinaryClassificationEvaluator
    from pyspark.ml.tuning import ParamGridBuilder, TrainValidationSplit

    X, y = _counts(rng, n=80, d=4, k=2)
    df = _vector_frame(spark, X, y.astype(float), partitions=1) \
        .repartitionByRange(2, "label").cache()
    nb = fs.MultinomialNB()
    grid = ParamGridBuilder().addGrid(nb.getParam("class_prior"),
                                      [[0.5, 0.5], [0.9, 0.1]]).build()
    models = dict(nb.fitMultiple(df, grid))
    Xc, pdf = _collected(df)
    for i, prior in enumerate(([0.5, 0.5], [0.9, 0.1])):
        local = fastnb.MultinomialNB(class_prior=prior).fit(Xc, pdf["label"])
        assert_allclose(models[i].fastnb_model.class_log_prior_, local.class_log_prior_,
                        rtol=RTOL)
    split = TrainValidationSplit(estimator=nb, estimatorParamMaps=grid, trainRatio=0.7,
                                 seed=1, evaluator=BinaryClassificationEvaluator())
    best = split.fit(df).bestModel
    assert best.fastnb_model.class_prior in ([0.5, 0.5], [0.9, 0.1])
    df.unpersist()


def test_save_and_load_a_model(spark, rng, tmp_path):
    X, y = _counts(rng, n=100, d=5)
    df = _vector_frame(spark, X, y.astype(str), partitions=2)
    model = fs.ComplementNB(alpha=0.3, norm=True, predictionCol="guess").fit(df)
    model.write().save(str(tmp_path / "model"))
    loaded = fs.ComplementNBModel.load(str(tmp_path / "model"))
    assert loaded.uid == model.uid and loaded.getPredictionCol() == "guess"
    assert loaded.fastnb_model.alpha == 0.3 and loaded.fastnb_model.norm is True
    _state_equal(loaded.fastnb_model, model.fastnb_model)
    a = model.transform(df).select("guess").toPandas()
    b = loaded.transform(df).select("guess").toPandas()
    assert_array_equal(a["guess"], b["guess"])
    fs.GaussianNB(var_smoothing=0.5).write().save(str(tmp_path / "estimator"))
    assert fs.GaussianNB.load(str(tmp_path / "estimator")).getOrDefault(
        "var_smoothing") == 0.5


def test_pipelines_save_load_and_predict_the_same(spark, rng, tmp_path):
    table = _table(spark, rng).na.fill({"size": 0.0})
    docs, y = _documents(rng, n=120)
    text = spark.createDataFrame(list(zip(docs, y.tolist())), "text string, label long")
    for pipeline, df in (
            (Pipeline(stages=[VectorAssembler(inputCols=["size", "level"],
                                              outputCol="features"), fs.GaussianNB()]),
             table),
            (Pipeline(stages=[Tokenizer(inputCol="text", outputCol="words"),
                              HashingTF(inputCol="words", outputCol="features",
                                        numFeatures=2**10),
                              fs.MultinomialNB()]), text),
            (Pipeline(stages=[fs.MultinomialNB(
                inputCol="text", vectorizer=fastnb.text.HashingVectorizer(
                    n_features=2**10, alternate_sign=False, norm=None))]), text)):
        fitted = pipeline.fit(df)
        path = str(tmp_path / f"pipeline{len(os.listdir(tmp_path))}")
        fitted.write().save(path)
        loaded = PipelineModel.load(path)
        a = fitted.transform(df).select("prediction", "probability").toPandas()
        b = loaded.transform(df).select("prediction", "probability").toPandas()
        assert_array_equal(a["prediction"], b["prediction"])
        assert_array_equal(np.array([v.toArray() for v in a["probability"]]),
                           np.array([v.toArray() for v in b["probability"]]))


_CONNECT_SCRIPT = """
import sys
from pyspark.sql import SparkSession
from pyspark.ml.linalg import Vectors
import fastnb.spark as fs
spark = (SparkSession.builder.remote("local[2]").config("spark.ui.enabled", "false")
         .config("spark.driver.host", "127.0.0.1")
         .config("spark.driver.bindAddress", "127.0.0.1").getOrCreate())
assert "connect" in type(spark).__module__
df = spark.createDataFrame([(Vectors.dense([5.0, 0.0]), "spam"),
                            (Vectors.sparse(2, {1: 5.0}), "ham")] * 3, ["features", "label"])
model = fs.MultinomialNB().fit(df)
model.write().save(sys.argv[1])
loaded = fs.MultinomialNBModel.load(sys.argv[1])
print(sorted({r.predictedLabel for r in loaded.transform(df).collect()}))
spark.stop()
"""


def test_fit_transform_save_and_load_under_spark_connect(tmp_path):
    """No SparkContext, RDD or py4j: the same code runs on a Spark Connect session
    (a subprocess: one process holds either kind of session)."""
    import subprocess
    import sys

    pytest.importorskip("grpc", reason="Spark Connect needs pyspark[connect] (grpcio)")
    pytest.importorskip("google.protobuf", reason="Spark Connect needs protobuf")
    result = subprocess.run([sys.executable, "-P", "-c", _CONNECT_SCRIPT,
                             str(tmp_path / "model")], capture_output=True, text=True,
                            timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.strip().splitlines()[-1] == "['ham', 'spam']"
