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
    DoubleType,
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
    from pyspark.sql.types import LongType

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
    assert_array_equal(out["prediction"].to_numpy(), local.predict(Xo))
    proba = np.array([v.toArray() for v in out["probability"]])
    assert_allclose(proba, local.predict_proba(Xo), rtol=1e-10)
    raw = np.array([v.toArray() for v in out["rawPrediction"]])
    assert_allclose(raw, local.predict_joint_log_proba(Xo), rtol=1e-10)
