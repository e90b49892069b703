"""BernoulliNB on the sparse count table: against scikit-learn (missing values
by fastnb's rule), partial_fit, array alpha, failures, save and load."""

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn import naive_bayes as sk

import fastnb
from _count_tables import _count_table_thresholds, _table_of, _with_missing
from _registry import hashed_text


@pytest.fixture
def text():
    return hashed_text(400, seed=3)


def _sk_bernoulli_with_missing(Xm, y, params, sample_weight=None):
    """scikit-learn's BernoulliNB with fastnb's missing-value rule (a missing value
    is left out of its feature's counts and denominator, and of the joint log
    likelihood), computed from scikit-learn's counts on the observed values."""
    observed = Xm.copy()
    observed.data = np.nan_to_num(observed.data)
    theirs = sk.BernoulliNB(**params).fit(observed, y, sample_weight=sample_weight)
    nan = Xm.copy()
    nan.data = np.isnan(nan.data).astype(float)
    nan.eliminate_zeros()
    classes = np.unique(y)
    onehot = (y[:, None] == classes).astype(float)
    if sample_weight is not None:
        onehot *= sample_weight[:, None]
    missing = np.asarray((nan.T @ onehot).T)
    alpha = params.get("alpha", 1.0)
    flp = (np.log(theirs.feature_count_ + alpha)
           - np.log(theirs.class_count_[:, None] - missing + 2 * alpha))
    return theirs, flp, missing


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n_threads", [1, 2])
@pytest.mark.parametrize("params", [{}, {"binarize": 1.5, "alpha": 0.5},
                                    {"binarize": None, "alpha": 2.0},
                                    {"fit_prior": False, "alpha": 1e-3}])
def test_bernoulli_table_matches_sklearn(text, dtype, n_threads, params):
    X, y = text
    X = X.astype(dtype)
    if params.get("binarize", 0.0) is None:
        X.data[:] = 1.0  # binary input, as binarize=None presumes
    ours = fastnb.BernoulliNB(n_threads=n_threads, **params).fit(X, y)
    theirs = sk.BernoulliNB(**params).fit(X, y)
    assert _table_of(ours) is not None
    assert "feature_log_prob_" not in ours.__dict__
    assert_allclose(ours.feature_count_, theirs.feature_count_, rtol=1e-12)
    assert_allclose(ours.feature_log_prob_, theirs.feature_log_prob_, rtol=1e-10)
    assert_allclose(ours.class_log_prior_, theirs.class_log_prior_, rtol=1e-12)
    for rows in (X[:1], X[:5], X):  # the table walk, and the dense weights
        assert_allclose(ours.predict_joint_log_proba(rows),
                        theirs.predict_joint_log_proba(rows), rtol=1e-10)
        assert_array_equal(ours.predict(rows), theirs.predict(rows))
    assert_allclose(ours.predict_proba(X[:50].toarray()),
                    theirs.predict_proba(X[:50].toarray()), rtol=1e-9, atol=1e-12)


def test_bernoulli_partial_fit_splits_weights_and_priors(text):
    X, y = text
    rng = np.random.default_rng(8)
    w = rng.uniform(0, 3, X.shape[0])
    params = {"class_prior": rng.dirichlet(np.ones(35)), "alpha": 0.7, "binarize": 1.0}
    classes = np.unique(y)
    whole = fastnb.BernoulliNB(**params).fit(X, y, sample_weight=w)
    stream = fastnb.BernoulliNB(**params)
    theirs = sk.BernoulliNB(**params)
    for start, stop in [(0, 1), (1, 130), (130, 131), (131, 400)]:
        stream.partial_fit(X[start:stop], y[start:stop], classes=classes,
                           sample_weight=w[start:stop])
        theirs.partial_fit(X[start:stop], y[start:stop], classes=classes,
                           sample_weight=w[start:stop])
        assert_allclose(stream.predict_joint_log_proba(X[:3]),
                        theirs.predict_joint_log_proba(X[:3]), rtol=1e-10)
    assert _table_of(stream) is not None
    assert_array_equal(stream.feature_count_, whole.feature_count_)
    assert_array_equal(stream.predict_joint_log_proba(X), whole.predict_joint_log_proba(X))
    assert_allclose(stream.predict_joint_log_proba(X), theirs.predict_joint_log_proba(X),
                    rtol=1e-10)


def test_bernoulli_array_alpha_stays_dense(text):
    X, y = text
    alpha = np.random.default_rng(5).uniform(0.1, 2, X.shape[1])
    ours = fastnb.BernoulliNB(alpha=alpha).fit(X, y)
    theirs = sk.BernoulliNB(alpha=1.0).fit(X, y)
    assert _table_of(ours) is None
    expected = (np.log(theirs.feature_count_ + alpha)
                - np.log(theirs.class_count_[:, None] + 2 * alpha))
    assert_allclose(ours.feature_log_prob_, expected, rtol=1e-10)
    # a table-backed model given an array alpha goes dense on its next call,
    # with the same counts
    model = fastnb.BernoulliNB().partial_fit(X[:200], y[:200], classes=np.unique(y))
    assert _table_of(model) is not None
    model.set_params(alpha=alpha).partial_fit(X[200:], y[200:])
    assert _table_of(model) is None
    assert_array_equal(model.feature_count_, theirs.feature_count_)
    assert_allclose(model.feature_log_prob_, expected, rtol=1e-10)


def test_bernoulli_failed_partial_fit_changes_nothing(text):
    X, y = text
    model = fastnb.BernoulliNB(binarize=None).fit(X, y)
    before = model.predict_joint_log_proba(X)
    counts = model.feature_count_
    bad = X[:5].copy()
    bad.data[-1] = np.inf  # after valid rows: the batch is checked in full first
    with pytest.raises(ValueError, match="infinity"):
        model.partial_fit(bad, y[:5])
    bad.data[-1] = 1e308
    bad.data[-2] = 1e308
    with pytest.raises(ValueError, match="too large"):
        model.partial_fit(bad, y[:5])
    with pytest.raises(ValueError):
        model.partial_fit(X[:5], np.array([0, 1, 2, 3, 99]))  # an unknown class
    with pytest.raises(ValueError):
        model.partial_fit(X[:5, :100], y[:5])  # the wrong number of features
    assert_array_equal(model.feature_count_, counts)
    assert_array_equal(model.predict_joint_log_proba(X), before)
    # binarized, infinity is still refused, at fit and at predict
    model = fastnb.BernoulliNB().fit(X, y)
    with pytest.raises(ValueError, match="infinity"):
        model.partial_fit(bad.multiply(np.inf).tocsr(), y[:5])
    with pytest.raises(ValueError, match="infinity"):
        model.predict(sp.csr_matrix(np.where(X[:2].toarray() > 0, np.inf, 0)))


@pytest.mark.parametrize("binarize", [0.0, None])
def test_bernoulli_missing_values_merge_and_save(text, tmp_path, binarize):
    X, y = text
    if binarize is None:
        X = X.copy()
        X.data[:] = 1.0
    Xm = _with_missing(X)
    params = {"binarize": binarize, "alpha": 0.5}
    w = np.random.default_rng(2).uniform(0.5, 2, X.shape[0])
    model = fastnb.BernoulliNB(**params).fit(Xm, y, sample_weight=w)
    assert _table_of(model) is not None
    theirs, flp, missing = _sk_bernoulli_with_missing(Xm, y, params, w)
    assert_allclose(model.feature_count_, theirs.feature_count_, rtol=1e-12)
    assert_allclose(model._missing_count, missing, rtol=1e-12)
    assert_allclose(model.feature_log_prob_, flp, rtol=1e-10)
    # the dense model with the same data is the reference for the outputs
    dense = fastnb.BernoulliNB(**params).fit(Xm.toarray(), y, sample_weight=w)
    assert _table_of(dense) is None
    assert_allclose(model.feature_log_prob_, dense.feature_log_prob_, rtol=1e-12)
    for rows in (Xm[:1], Xm[:5], Xm, X):
        assert_allclose(model.predict_joint_log_proba(rows),
                        dense.predict_joint_log_proba(rows.toarray()), rtol=1e-10)
    # partial_fit in any split, with the missing values in some batches only
    stream = fastnb.BernoulliNB(**params)
    for start, stop in [(0, 50), (50, 51), (51, 400)]:
        stream.partial_fit(Xm[start:stop], y[start:stop], classes=np.unique(y),
                           sample_weight=w[start:stop])
    assert_array_equal(stream.predict_joint_log_proba(Xm),
                       model.predict_joint_log_proba(Xm))
    # merge (exact to rounding) and save/load (the same bits)
    half = fastnb.BernoulliNB(**params).fit(Xm[:200], y[:200], sample_weight=w[:200])
    other = fastnb.BernoulliNB(**params).fit(Xm[200:], y[200:], sample_weight=w[200:])
    merged = fastnb.merge(half, other)
    assert_allclose(merged.predict_joint_log_proba(Xm), model.predict_joint_log_proba(Xm),
                    rtol=1e-10)
    model.save(tmp_path / "b.npz")
    loaded = fastnb.load(tmp_path / "b.npz")
    assert _table_of(loaded) is not None
    assert_array_equal(loaded._missing_count, model._missing_count)
    for rows in (Xm[:2], Xm):
        assert_array_equal(loaded.predict_joint_log_proba(rows),
                           model.predict_joint_log_proba(rows))


def test_bernoulli_saved_with_array_alpha_loads_dense(text, tmp_path):
    X, y = text
    model = fastnb.BernoulliNB().fit(X, y)
    alpha = np.full(X.shape[1], 0.5)
    model.set_params(alpha=alpha)
    model.save(tmp_path / "b.npz")
    loaded = fastnb.load(tmp_path / "b.npz")
    assert _table_of(loaded) is None
    expected = fastnb.BernoulliNB(alpha=alpha).fit(X, y)
    assert_array_equal(loaded.feature_count_, expected.feature_count_)
    assert_allclose(loaded.predict_joint_log_proba(X), expected.predict_joint_log_proba(X),
                    rtol=1e-12)


def test_bernoulli_same_bits_for_any_thread_count(text):
    X, y = text
    Xm = _with_missing(X, 23)
    one = fastnb.BernoulliNB(n_threads=1).fit(Xm, y)
    two = fastnb.BernoulliNB(n_threads=2).fit(Xm, y)
    for rows in (Xm[:3], Xm):
        assert_array_equal(one.predict_joint_log_proba(rows),
                           two.predict_joint_log_proba(rows))


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n_batches=st.integers(1, 4),
       binarize=st.sampled_from([0.0, 0.5, 1.5]), alpha=st.floats(1e-3, 3.0))
def test_bernoulli_table_property(seed, n_batches, binarize, alpha):
    """Any data, any split into batches: the table-backed model is scikit-learn's."""
    rng = np.random.default_rng(seed)
    n, d, k = int(rng.integers(5, 60)), int(rng.integers(2000, 5000)), int(rng.integers(2, 9))
    X = sp.random(n, d, density=float(rng.uniform(0.0005, 0.01)), format="csr",
                  random_state=rng, data_rvs=lambda size: rng.integers(1, 4, size) / 2.0)
    y = rng.integers(0, k, n)
    classes = np.arange(k)
    params = {"binarize": binarize, "alpha": alpha}
    ours = fastnb.BernoulliNB(**params)
    theirs = sk.BernoulliNB(**params)
    bounds = np.unique(np.r_[0, np.sort(rng.integers(0, n + 1, n_batches - 1)), n])
    with _count_table_thresholds(0, 0):
        for start, stop in zip(bounds[:-1], bounds[1:]):
            ours.partial_fit(X[start:stop], y[start:stop], classes=classes)
            theirs.partial_fit(X[start:stop], y[start:stop], classes=classes)
    assert _table_of(ours) is not None
    assert_allclose(ours.feature_count_, theirs.feature_count_, rtol=1e-12)
    assert_allclose(ours.feature_log_prob_, theirs.feature_log_prob_, rtol=1e-10)
    for rows in (X[:1], X):
        assert_allclose(ours.predict_joint_log_proba(rows),
                        theirs.predict_joint_log_proba(rows), rtol=1e-9, atol=1e-9)
