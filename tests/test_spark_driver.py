"""fastnb.spark at the driver: what can be checked before any job is (bad input,
vectorizer mistakes, a model that forgets without the order of its rows), what
only a job finds comes back as a clear error at the driver, and a model that
forgets fits its rows in order exactly. The session and data helpers are
test_spark.py's.
"""

import numpy as np
import pytest

import fastnb

pytest.importorskip("pyspark", reason="fastnb.spark needs pyspark")
pytest.importorskip("pyarrow", reason="fastnb.spark needs pyarrow")

from test_spark import (  # noqa: E402
    F, LongType, StructField, StructType, Vectors, VectorUDT, _counts, _documents,
    _state_equal, _table, _vector_frame, fs, spark)

__all__ = ["spark"]  # (the module-scoped SparkSession fixture, shared)

class _NoJob:
    """Asserts that the block runs no Spark job (its jobs are in a job group)."""

    def __init__(self, spark):
        self.context = spark.sparkContext

    def __enter__(self):
        self.context.setJobGroup("fastnb-no-job", "jobs a driver-side check must not run")
        return self

    def __exit__(self, *exc):
        jobs = self.context.statusTracker().getJobIdsForGroup("fastnb-no-job")
        self.context.setLocalProperty("spark.jobGroup.id", None)
        assert list(jobs) == [], f"{len(jobs)} Spark job(s) ran"
        return False


@pytest.mark.parametrize("name", ["GaussianNB", "MultinomialNB", "ColumnwiseNB"])
def test_a_model_that_forgets_needs_the_order_of_its_rows(spark, rng, name):
    """A row's weight under half_life depends on its place in one order, which
    partitions do not have: without orderCol the fit is refused at the driver
    (it was a different model for each partitioning), with fastnb.dask's words."""
    X, y = _counts(rng, n=40, d=3)
    df = _vector_frame(spark, X, y, partitions=2)
    estimator = getattr(fs, name)(half_life=500.0)
    if name == "ColumnwiseNB":
        estimator.setInputCols(["label"])
    with _NoJob(spark), pytest.raises(
            ValueError, match=r"fastnb.spark does not fit a model that forgets "
                              r"\(half_life=500.0\) without the order.*\(orderCol\)"):
        estimator.fit(df)
    # inf forgets nothing: fitted as half_life=None is
    model = fs.MultinomialNB(half_life=float("inf")).fit(df)
    _state_equal(model.fastnb_model, fs.MultinomialNB().fit(df).fastnb_model)


@pytest.mark.parametrize("partitions", [1, 2, 7])
@pytest.mark.parametrize("name", ["GaussianNB", "MultinomialNB"])
def test_a_model_that_forgets_fits_its_rows_in_order_exactly(spark, monkeypatch, name,
                                                             partitions):
    """Given orderCol, each row weighs by its age in that order, whatever the
    partitioning (shuffled rows), as the local fit of the sorted rows; and the
    model forgets on from where the local fit's clock is."""
    from fastnb.spark import _ordered

    places = []
    positions = _ordered.positions
    monkeypatch.setattr(_ordered, "positions",
                        lambda *a: places.append(positions(*a)) or places[-1])
    rng = np.random.default_rng(partitions)
    n = 2000
    y = rng.integers(0, 2, n)
    X = rng.poisson(1.0 + y[:, None] * np.array([0.0, 1.0, 2.0]), size=(n, 3)).astype(float)
    t = rng.permutation(n) * 3 + 10   # the order, unrelated to the rows' place
    rows = [(Vectors.dense(x.tolist()), int(label), int(time))
            for x, label, time in zip(X, y, t)]
    df = spark.createDataFrame(rows, StructType([
        StructField("features", VectorUDT()), StructField("label", LongType()),
        StructField("t", LongType())])).repartition(partitions)
    # three ranges of the order, not coalesced into one: rows age across them
    spark.conf.set("spark.sql.adaptive.coalescePartitions.enabled", "false")
    spark.conf.set("spark.sql.shuffle.partitions", "3")
    try:
        model = getattr(fs, name)(half_life=500.0, orderCol="t").fit(df).fastnb_model
    finally:
        spark.conf.set("spark.sql.shuffle.partitions", "2")
        spark.conf.unset("spark.sql.adaptive.coalescePartitions.enabled")
    assert len(places[0]) == 3 and sorted(n for n, _ in places[0].values())[0] > 0
    order = np.argsort(t)
    local = getattr(fastnb, name)(half_life=500.0).fit(X[order], y[order])
    _state_equal(model, local)
    assert model.half_life == 500.0
    X_new, y_new = X[:50], y[:50]
    model.partial_fit(X_new, y_new)
    local.partial_fit(X_new, y_new)
    _state_equal(model, local)


def test_bad_input_fails_before_any_job(spark, rng):
    X, y = _counts(rng, n=20, d=3)
    df = _vector_frame(spark, X, y, partitions=1)
    with pytest.raises(ValueError, match="'nope' is not a column"):
        fs.MultinomialNB(featuresCol="nope").fit(df)
    with pytest.raises(ValueError, match="labelCol='y'"):
        fs.MultinomialNB(labelCol="y").fit(df)
    with pytest.raises(TypeError, match="featuresCol 'label' is bigint"):
        fs.GaussianNB(featuresCol="label").fit(df)
    with pytest.raises(ValueError, match="alpha"):
        fs.MultinomialNB(alpha=-1.0).fit(df)
    with pytest.raises(TypeError, match="unexpected parameters"):
        fs.MultinomialNB(alhpa=1.0)
    table = _table(spark, rng)
    with pytest.raises(TypeError, match="'colour' is string"):
        fs.GaussianNB(inputCols=["colour"]).fit(table)
    with pytest.raises(ValueError, match="needs a vectorizer"):
        fs.MultinomialNB(inputCol="label").fit(table)
    with pytest.raises(ValueError, match="'nope' is not a column"):
        fs.MultinomialNB().fit(df).setFeaturesCol("nope").transform(df)


def test_a_negative_count_names_the_column_at_the_driver(spark, rng):
    X, y = _counts(rng, n=20, d=3)
    X[5, 1] = -2.0
    df = _vector_frame(spark, X, y, partitions=1)
    with pytest.raises(ValueError, match="Column 'features' holds a negative") as error:
        fs.MultinomialNB().fit(df)
    assert error.type is ValueError   # not an executor's stack trace
    table = _table(spark, rng).withColumn("neg", F.col("level") - 5)
    with pytest.raises(ValueError, match="Column 'neg' holds a negative value") as error:
        fs.MultinomialNB(inputCols=["level", "neg"]).fit(table)
    assert error.type is ValueError


def test_what_only_a_job_finds_is_a_value_error_at_the_driver(spark, rng):
    """A null label is found by a task: it comes back as the ValueError it is
    (it came back as a Py4J/executor stack trace)."""
    X, y = _counts(rng, n=30, d=3)
    rows = [(Vectors.dense(x.tolist()), None if i == 7 else int(v))
            for i, (x, v) in enumerate(zip(X, y))]
    schema = StructType([StructField("features", VectorUDT()),
                         StructField("label", LongType())])
    df = spark.createDataFrame(rows, schema).repartition(2)
    for estimator in (fs.GaussianNB(), fs.MultinomialNB()):
        with pytest.raises(ValueError, match="labelCol 'label' holds nulls") as error:
            estimator.fit(df)
        assert error.type is ValueError


def test_vectorizer_mistakes_fail_at_the_driver_before_any_job(spark, rng):
    docs, y = _documents(rng, n=20)
    df = spark.createDataFrame(list(zip(docs, y.tolist())), "text string, label long")
    with _NoJob(spark):
        with pytest.raises(ValueError, match="CountVectorizer needs its vocabulary"):
            fs.MultinomialNB(inputCol="text",
                             vectorizer=fastnb.text.CountVectorizer()).fit(df)
        for name in ("MultinomialNB", "ComplementNB"):
            with pytest.raises(ValueError, match=f"alternate_sign=True.*{name} counts"):
                getattr(fs, name)(inputCol="text",
                                  vectorizer=fastnb.text.HashingVectorizer()).fit(df)
        with pytest.raises(TypeError, match="GaussianNB does not read text"):
            fs.GaussianNB(inputCol="text").fit(df)
        with pytest.raises(ValueError, match="needs a vectorizer"):
            fs.MultinomialNB(inputCol="text").fit(df)
        with pytest.raises(ValueError, match="inputCols=\\['label'\\] and "
                                             "inputCol='text' are set together"):
            fs.MultinomialNB(inputCol="text", inputCols=["label"]).fit(df)
        with pytest.raises(ValueError, match="inputCol='text' and featuresCol='f' are set"):
            fs.MultinomialNB(inputCol="text", featuresCol="f").fit(df)
    # BernoulliNB binarizes: alternate signs are values like any other
    hashing = fastnb.text.HashingVectorizer(n_features=2**8)
    fs.BernoulliNB(inputCol="text", vectorizer=hashing).fit(df)
