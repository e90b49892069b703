"""PoissonNB, ExponentialNB, GammaNB and LogNormalNB through fastnb.onnx and
fastnb.inspection.

ONNX: onnxruntime's probabilities within 1e-12 of ``predict_proba`` (float64;
1e-5 float32) and its labels equal to ``predict``, on rows with missing values
and values out of the support (which the model's predict reads as missing).
Inspection: each contribution equals scipy's ``logpdf``/``logpmf`` of the value
under the class's fitted distribution (0 where the value is missing or out of
the support), and base + contributions equals ``predict_joint_log_proba``.
"""

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

import fastnb
from fastnb.inspection import contributions, top_contributions
from test_parametric import FAMILIES, make, sample, scipy_log_densities

TOLERANCE = {np.float32: 1e-5, np.float64: 1e-12}


def _data(family, rng):
    return sample(family, rng, n=300, d=6)


def _test_rows(family, rng, X):
    """Rows to predict: missing values, a row with nothing observed, and values
    out of the support (negative; zero for the gamma and log-normal), and a
    non-integer count (scored by the Poisson, not missing)."""
    X = np.array(X[:120], dtype=np.float64)
    X[rng.random(X.shape) < 0.1] = np.nan
    X[0] = np.nan
    X[1, :3] = -1.0
    X[2, :2] = 0.0
    X[3, 1] = 2.5
    X[4] = -np.arange(1.0, X.shape[1] + 1)
    return X


def _session(onnx_model):
    onnx = pytest.importorskip("onnx")
    ort = pytest.importorskip("onnxruntime")
    onnx.checker.check_model(onnx_model, full_check=True)
    return ort.InferenceSession(onnx_model.SerializeToString(),
                                providers=["CPUExecutionProvider"])


def _probabilities(onnx_model, X, classes):
    labels, probabilities = _session(onnx_model).run(None, {"X": X})
    if isinstance(probabilities, list):   # ZipMap
        probabilities = np.array([[row[int(c)] for c in classes] for row in probabilities])
    return labels, probabilities


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("family", FAMILIES)
def test_onnx_matches_fastnb(family, dtype, rng):
    fastnb_onnx = pytest.importorskip("fastnb.onnx")
    X, y = _data(family, rng)
    model = make(family, 1e-9).fit(X, y)
    X_test = _test_rows(family, rng, X).astype(dtype)
    expected = model.predict_proba(X_test)
    assert np.all(np.isfinite(expected))
    for zipmap in (False, True):
        onnx_model = fastnb_onnx.to_onnx(model, X[:1], dtype=dtype, zipmap=zipmap)
        labels, probabilities = _probabilities(onnx_model, X_test, model.classes_)
        tolerance = TOLERANCE[np.float32 if zipmap else dtype]
        assert_allclose(probabilities, expected, rtol=0, atol=tolerance)
        assert_array_equal(labels, model.predict(X_test))


@pytest.mark.parametrize("family", FAMILIES)
def test_onnx_out_of_support_is_missing(family, rng):
    """A value out of the support gives the probabilities of the row with that
    value missing, in fastnb and in the graph."""
    fastnb_onnx = pytest.importorskip("fastnb.onnx")
    X, y = _data(family, rng)
    model = make(family, 1e-9).fit(X, y)
    bad = X[:20].copy()
    bad[:, 0] = -3.0 if family in ("poisson", "exponential") else 0.0
    bad[:, 1] = -0.5
    missing = X[:20].copy()
    missing[:, :2] = np.nan
    onnx_model = fastnb_onnx.to_onnx(model, X[:1], dtype=np.float64, zipmap=False)
    _, from_bad = _probabilities(onnx_model, bad, model.classes_)
    _, from_missing = _probabilities(onnx_model, missing, model.classes_)
    assert_allclose(from_bad, from_missing, rtol=0, atol=1e-15)
    assert_allclose(model.predict_proba(bad), model.predict_proba(missing),
                    rtol=0, atol=1e-15)


def test_onnx_alpha_zero_poisson_stays_finite(rng):
    """PoissonNB(alpha=0): a class that saw only zeros has the log rate
    float64's most negative number; a zero count must still add 0, also in
    float32, and a positive count rule the class out."""
    fastnb_onnx = pytest.importorskip("fastnb.onnx")
    X = np.array([[0.0, 1.0], [0.0, 2.0], [3.0, 1.0], [4.0, 2.0]])
    model = fastnb.PoissonNB(alpha=0.0).fit(X, [0, 0, 1, 1])
    X_test = np.array([[0.0, 1.0], [2.0, 1.0], [np.nan, 2.0]])
    for dtype in (np.float32, np.float64):
        onnx_model = fastnb_onnx.to_onnx(model, X[:1], dtype=dtype, zipmap=False)
        labels, probabilities = _probabilities(onnx_model, X_test.astype(dtype),
                                               model.classes_)
        assert np.all(np.isfinite(probabilities))
        assert_allclose(probabilities, model.predict_proba(X_test), rtol=0,
                        atol=TOLERANCE[dtype])
        assert_array_equal(labels, model.predict(X_test))


@pytest.mark.parametrize("family", FAMILIES)
def test_skl2onnx_converts_them(family, rng):
    skl2onnx = pytest.importorskip("skl2onnx")
    pytest.importorskip("fastnb.onnx")
    X, y = _data(family, rng)
    model = make(family, 1e-9).fit(X, y)
    X_test = _test_rows(family, rng, X).astype(np.float32)
    onnx_model = skl2onnx.to_onnx(model, X[:1].astype(np.float32),
                                  options={"zipmap": False})
    labels, probabilities = _probabilities(onnx_model, X_test, model.classes_)
    assert_allclose(probabilities, model.predict_proba(X_test), rtol=0, atol=1e-5)
    assert_array_equal(labels, model.predict(X_test))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("family", FAMILIES)
def test_contributions_are_scipy_log_densities(family, dtype, rng):
    X, y = _data(family, rng)
    weights = rng.random(y.shape[0]) + 0.5
    model = make(family, 1e-9).fit(X, y, sample_weight=weights)
    X_test = _test_rows(family, rng, X).astype(dtype)
    base, values = contributions(model, X_test)
    assert_allclose(base, np.broadcast_to(np.log(model.class_prior_), base.shape),
                    rtol=1e-14)
    X64 = X_test.astype(np.float64)
    with np.errstate(invalid="ignore"):
        observed = (X64 > 0) if family in ("gamma", "lognormal") else (X64 >= 0)
    if family == "poisson":
        observed &= X64 != 2.5   # (scored with lgamma; scipy: -inf)
    with np.errstate(all="ignore"):
        expected = scipy_log_densities(family, model, X64)
    at = np.broadcast_to(observed[:, None, :], values.shape)
    assert_allclose(values[at], expected[at], rtol=1e-10, atol=1e-10)
    assert np.all(values[~at & ~np.broadcast_to(X64[:, None, :] == 2.5, at.shape)] == 0)
    jll = model.predict_joint_log_proba(X_test)
    assert_allclose(base + values.sum(axis=2), jll, rtol=1e-12, atol=1e-10)


@pytest.mark.parametrize("family", FAMILIES)
def test_top_contributions_and_threads(family, rng, parallel_kernels):
    X, y = _data(family, rng)
    X_test = _test_rows(family, rng, X)
    results = []
    with parallel_kernels():
        for n_threads in (1, 2):
            model = make(family, 1e-9, n_threads=n_threads).fit(X, y)
            _, values = contributions(model, X_test)
            top = top_contributions(model, X_test, n=3, classes=(2, 0))
            results.append((values, top.features, top.values))
    values, features, top_values = results[0]
    for other in results[1:]:
        for a, b in zip(results[0], other):
            assert_array_equal(a, b)
    # the top terms of the pair (2, 0): the largest |difference|, ties by feature
    diff = values[:, 2, :] - values[:, 0, :]
    for i in range(diff.shape[0]):
        order = sorted((-abs(v), j) for j, v in enumerate(diff[i]) if v != 0)[:3]
        assert_array_equal(features[i, :len(order)], [j for _, j in order])
        assert_allclose(top_values[i, :len(order)], [diff[i, j] for _, j in order],
                        rtol=0, atol=0)


def test_infinity_is_refused_as_by_predict(rng):
    X, y = _data("gamma", rng)
    model = fastnb.GammaNB().fit(X, y)
    bad = X[:3].copy()
    bad[1, 2] = np.inf
    with pytest.raises(ValueError, match="infinity"):
        model.predict(bad)
    with pytest.raises(ValueError, match="infinity"):
        contributions(model, bad)
