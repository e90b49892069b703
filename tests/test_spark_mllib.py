"""fastnb.spark against Spark MLlib's NaiveBayes: the differences docs/user_guide/spark.rst
states hold (benchmarks/spark_mllib_comparison.py measures them at a larger size).

- Given MLlib's smoothed prior, fastnb's Multinomial and Bernoulli give MLlib's
  probabilities to rounding; with their own (unsmoothed) prior they do not, on
  unbalanced classes.
- MLlib's Gaussian variances (E[x^2] - mean^2) lose the variance of features far
  from zero; fastnb's equal NumPy's two-pass variance of the collected data.
- MLlib refuses string labels, negative counts and non-binary Bernoulli features,
  which fastnb.spark fits.

One SparkSession on local[2] (loopback, UI off) for the module; skipped only where
pyspark, pyarrow or Java is missing. Small DataFrames: the module runs in seconds
once the JVM is up.
"""

import os
import shutil

import numpy as np
import pytest
from numpy.testing import assert_allclose

pytest.importorskip("pyspark", reason="fastnb.spark needs pyspark")
pytest.importorskip("pyarrow", reason="fastnb.spark needs pyarrow")
pytest.importorskip("scipy.sparse")
if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
    pytest.skip("Spark needs Java, which is not installed", allow_module_level=True)

import fastnb.spark  # noqa: E402
from pyspark.ml.classification import NaiveBayes  # noqa: E402
from pyspark.ml.linalg import Vectors, VectorUDT  # noqa: E402
from pyspark.sql import SparkSession  # noqa: E402
from pyspark.sql.types import (  # noqa: E402
    DoubleType,
    LongType,
    StringType,
    StructField,
    StructType,
)


def _schema(label_type, with_id=True):
    fields = [StructField("id", LongType())] if with_id else []
    return StructType(fields + [StructField("features", VectorUDT()),
                                StructField("label", label_type)])


@pytest.fixture(scope="module")
def spark():
    session = (SparkSession.builder.master("local[2]")
               .appName("fastnb-tests-mllib")
               .config("spark.driver.host", "127.0.0.1")
               .config("spark.driver.bindAddress", "127.0.0.1")
               .config("spark.ui.enabled", "false")
               .config("spark.sql.shuffle.partitions", "2")
               .config("spark.driver.memory", "2g")
               .getOrCreate())
    yield session
    session.stop()


def _frame(spark, X, y):
    rows = [(i, Vectors.dense(row), float(label))
            for i, (row, label) in enumerate(zip(X.tolist(), y.tolist()))]
    return spark.createDataFrame(rows, _schema(DoubleType())) \
        .repartition(3)


def _probabilities(model, df):
    rows = model.transform(df).orderBy("id").select("probability").collect()
    return np.array([row.probability.toArray() for row in rows])


def _unbalanced_counts(seed, n=300, d=12, k=3):
    rng = np.random.default_rng(seed)
    y = rng.choice(k, n, p=[0.7, 0.2, 0.1])
    X = rng.poisson(1.0 + np.arange(d)[None, :] * (y[:, None] + 1) / d, (n, d))
    return X.astype(float), y


@pytest.mark.parametrize("model_type, name, binary",
                         [("multinomial", "MultinomialNB", False),
                          ("bernoulli", "BernoulliNB", True)])
def test_equals_mllib_given_its_smoothed_prior(spark, model_type, name, binary):
    X, y = _unbalanced_counts(0)
    if binary:
        X = (X > 0).astype(float)
    df = _frame(spark, X, y)
    mllib = NaiveBayes(modelType=model_type, smoothing=1.0).fit(df)
    prior = np.exp(mllib.pi.toArray())
    counts = np.bincount(y)
    # MLlib's prior is smoothed with the counts' lambda; fastnb's is n_c / n.
    assert_allclose(prior, (counts + 1) / (len(y) + 3), rtol=1e-12)
    estimator = getattr(fastnb.spark, name)
    given = estimator(class_prior=prior).fit(df)
    assert_allclose(_probabilities(given, df), _probabilities(mllib, df),
                    rtol=1e-9, atol=1e-12)
    own = estimator().fit(df)
    assert_allclose(own.fastnb_model.class_log_prior_, np.log(counts / len(y)),
                    rtol=1e-12)
    assert np.abs(_probabilities(own, df) - _probabilities(mllib, df)).max() > 1e-6


def test_mllib_gaussian_variance_cancels_far_from_zero(spark):
    rng = np.random.default_rng(1)
    y = rng.integers(0, 2, 400)
    X = rng.normal(size=(400, 3)) + y[:, None] + 1e8
    df = _frame(spark, X, y)
    ours = fastnb.spark.GaussianNB().fit(df).fastnb_model
    mllib = NaiveBayes(modelType="gaussian").fit(df)
    exact = np.array([X[y == c].var(axis=0) for c in (0, 1)])
    # fastnb's variances are the two-pass ones (plus var_smoothing's epsilon)
    assert_allclose(ours.var_, exact + ours.epsilon_, rtol=1e-6)
    # MLlib's E[x^2] - mean^2 has lost them to cancellation
    theirs = mllib.sigma.toArray()
    assert np.abs(theirs - exact).max() / exact.min() > 0.1


def test_gaussian_agrees_with_mllib_near_zero_given_its_prior(spark):
    rng = np.random.default_rng(2)
    y = rng.choice(2, 400, p=[0.8, 0.2])
    X = rng.normal(size=(400, 3)) + y[:, None]
    df = _frame(spark, X, y)
    mllib = NaiveBayes(modelType="gaussian").fit(df)
    given = fastnb.spark.GaussianNB(priors=np.exp(mllib.pi.toArray())).fit(df)
    assert_allclose(given.fastnb_model.var_, mllib.sigma.toArray(), rtol=1e-6)
    assert_allclose(_probabilities(given, df), _probabilities(mllib, df), atol=1e-6)


def test_what_mllib_cannot_fit_fastnb_fits(spark):
    X, y = _unbalanced_counts(3, n=60)
    words = np.array(["ham", "spam", "eggs"])
    rows = [(Vectors.dense(row), str(words[label])) for row, label in zip(X.tolist(), y)]
    strings = spark.createDataFrame(rows, _schema(StringType(), with_id=False))
    with pytest.raises(Exception, match="(?i)label|numeric|double"):
        NaiveBayes().fit(strings)
    model = fastnb.spark.MultinomialNB().fit(strings)
    assert model.fastnb_model.classes_.tolist() == ["eggs", "ham", "spam"]

    negative = _frame(spark, X - 1.0, y)
    with pytest.raises(Exception, match="(?i)negative|nonnegative"):
        NaiveBayes().fit(negative)
    fastnb.spark.GaussianNB().fit(negative)

    with pytest.raises(Exception, match=r"(?i)\{0, 1\}|0 or 1|binary"):
        NaiveBayes(modelType="bernoulli").fit(_frame(spark, X, y))
    fastnb.spark.BernoulliNB().fit(_frame(spark, X, y))
