"""fastnb's common checks on the Spark path: every registered model through
every feature, fitted by its ``fastnb.spark`` estimator, against the local fit
of the same rows (tests/test_common_checks.py has the other paths and the
features' makers). Each cell is decided by the library (a refused one must be
refused at the driver, before any job, with the decided message).

Plain fits and fixed priors also run on 1, 2 and 7 partitions of rows sorted by
class (so that partitions lack classes) and shuffled. Skipped where pyspark or
Java is missing (CI runs it in its Spark step).
"""

import shutil

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

from fastnb._capabilities import FEATURES, decision
from _registry import ESTIMATORS

pytest.importorskip("pyspark")
pytest.importorskip("pyarrow")
if shutil.which("java") is None:
    pytest.skip("no Java: Spark cannot start", allow_module_level=True)

from pyspark.ml.linalg import Vectors, VectorUDT  # noqa: E402
from pyspark.sql import SparkSession  # noqa: E402
from pyspark.sql.types import (  # noqa: E402
    BooleanType, DoubleType, LongType, StringType, StructField, StructType)

import fastnb.spark  # noqa: E402
from test_common_checks import MAKERS, _assert_same_model, _local_fit  # noqa: E402


@pytest.fixture(scope="module")
def spark():
    session = (SparkSession.builder.master("local[2]")
               .appName("fastnb-common-checks")
               .config("spark.driver.host", "127.0.0.1")
               .config("spark.driver.bindAddress", "127.0.0.1")
               .config("spark.ui.enabled", "false")
               .config("spark.sql.shuffle.partitions", "2")
               .getOrCreate())
    yield session
    session.stop()


def _label_type(y):
    kind = np.asarray(y).dtype.kind
    return StringType() if kind in "OU" else DoubleType() if kind == "f" else LongType()


def _python(value):
    if value is None or isinstance(value, (str, bool)):
        return value
    if isinstance(value, (np.bool_,)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    return float(value)


def _column_type(values):
    present = [v for v in values if v is not None
               and not (isinstance(v, float) and np.isnan(v))]
    if all(isinstance(v, (bool, np.bool_)) for v in present):
        return BooleanType()
    if all(isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))
           for v in present):
        return LongType()
    if all(isinstance(v, (float, np.floating)) for v in present):
        return DoubleType()
    return StringType()


def _frame(session, X, y, sample_weight, partitions, mixed):
    """A DataFrame of X's rows: a dense vector column ``features``, or (a mixed
    table) one column a feature, ``x0``, ``x1``, ..., with nulls."""
    if mixed:
        types = [_column_type(X[:, j]) for j in range(X.shape[1])]
        fields = [StructField(f"x{j}", t) for j, t in enumerate(types)]
        rows = [[None if (isinstance(v, float) and np.isnan(v)) else _python(v)
                 for v in row] for row in X]
    else:
        fields = [StructField("features", VectorUDT())]
        rows = [[Vectors.dense(np.asarray(row, dtype=float).tolist())] for row in X]
    fields.append(StructField("label", _label_type(y)))
    for row, label in zip(rows, y):
        row.append(_python(label))
    if sample_weight is not None:
        fields.append(StructField("w", DoubleType()))
        for row, w in zip(rows, sample_weight):
            row.append(float(w))
    # a range of rows a partition, in the rows' order (sorted stays sorted)
    fields.append(StructField("row", LongType()))
    for i, row in enumerate(rows):
        row.append(i)
    frame = session.createDataFrame(rows, StructType(fields), verifySchema=False)
    return frame.repartitionByRange(partitions, "row")


def _spark_fit_in(session, partitions):
    def fit(estimator, X, y, sample_weight=None):
        name = type(estimator).__name__
        mixed = ESTIMATORS[name].data_kind == "mixed"
        frame = _frame(session, X, y, sample_weight, partitions, mixed)
        columns = ({"inputCols": [f"x{j}" for j in range(X.shape[1])]} if mixed
                   else {"featuresCol": "features"})
        if sample_weight is not None:
            columns["weightCol"] = "w"
        if estimator.get_params(deep=False).get("half_life") is not None:
            columns["orderCol"] = "row"  # the rows' order, for forgetting
        spark_estimator = getattr(fastnb.spark, name)(
            labelCol="label", **columns, **estimator.get_params(deep=False))
        return spark_estimator.fit(frame).fastnb_model
    return fit


CELLS = [(name, feature) for name in sorted(ESTIMATORS) for feature in FEATURES]


@pytest.mark.parametrize("name, feature", CELLS)
def test_spark_cell(spark, name, feature, record_property):
    cell = decision(ESTIMATORS[name].cls, feature, "spark")
    record_property("common_check", "supported" if cell.supported else "refused")
    fit = _spark_fit_in(spark, 2)
    if not cell.supported:
        with pytest.raises((ValueError, TypeError), match=cell.match):
            MAKERS[feature](name, fit)
        return
    model, X = MAKERS[feature](name, fit)
    local, _ = MAKERS[feature](name, _local_fit)
    _assert_same_model(model, local, X)


@pytest.mark.parametrize("order", ["sorted", "shuffled"])
@pytest.mark.parametrize("partitions", [1, 7])
@pytest.mark.parametrize("feature", ["plain", "priors"])
@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_spark_partitionings(spark, name, feature, partitions, order):
    """Any partitioning of the rows, sorted by class (7 partitions: some lack
    a class) or shuffled, gives the local fit."""
    spark_fit = _spark_fit_in(spark, partitions)
    permutation = {}

    def reorder(fit):
        def fit_rows(estimator, X, y, sample_weight=None):
            if "rows" not in permutation:
                rng = np.random.default_rng(3)
                permutation["rows"] = (np.argsort(y, kind="stable") if order == "sorted"
                                       else rng.permutation(len(y)))
            rows = permutation["rows"]
            return fit(estimator, X[rows], np.asarray(y)[rows],
                       None if sample_weight is None else sample_weight[rows])
        return fit_rows

    model, X = MAKERS[feature](name, reorder(spark_fit))
    local, _ = MAKERS[feature](name, reorder(_local_fit))
    _assert_same_model(model, local, X)


def test_spark_transform_gives_an_evaluable_prediction(spark):
    """The prediction column is a double Spark's evaluators read, the labels
    in predictedLabelCol, and the scores are the local model's."""
    from pyspark.ml.evaluation import MulticlassClassificationEvaluator

    rng = np.random.default_rng(0)
    y = rng.integers(0, 3, 200)
    X = rng.normal(size=(200, 4)) + y[:, None]
    frame = _frame(spark, X, y, None, 2, False)
    stage = fastnb.spark.GaussianNB(featuresCol="features", labelCol="label").fit(frame)
    out = stage.transform(frame).toPandas()
    local = fastnb.GaussianNB().fit(X, y)
    rows = np.array([v.toArray() for v in out["features"]])
    assert_allclose(np.array([v.toArray() for v in out["rawPrediction"]]),
                    local.predict_joint_log_proba(rows), rtol=1e-9)
    assert_array_equal(out["predictedLabel"].to_numpy(), local.predict(rows))
    accuracy = MulticlassClassificationEvaluator(metricName="accuracy").evaluate(
        stage.transform(frame))
    assert accuracy == pytest.approx(np.mean(local.predict(rows) == out["label"]))
