"""Differential fuzzing against scikit-learn: random shapes, dtypes, weights,
priors and partial_fit splits; outputs must agree within the stated tolerances.

Tolerances: float64 input agrees to rtol 1e-9 on fitted attributes and joint log
likelihoods (atol scaled by their magnitude, since sums of d terms cancel); float32
input is compared against scikit-learn fitted on the same values as float64 (fastnb
accumulates in float64; scikit-learn would accumulate in float32).
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal

import fastnb

sklearn_nb = pytest.importorskip("sklearn.naive_bayes")


def _splits(rng, n, n_batches):
    cuts = np.unique(rng.integers(1, n, n_batches - 1)) if n > 1 else []
    return np.split(np.arange(n), cuts)


def _check_outputs(ours, theirs, X, rtol=1e-9):
    ours_jll = ours.predict_joint_log_proba(X)
    theirs_jll = theirs.predict_joint_log_proba(X)
    scale = np.abs(theirs_jll).max() + 1.0
    assert_allclose(ours_jll, theirs_jll, rtol=rtol, atol=1e-12 * scale)
    assert_allclose(ours.predict_proba(X), theirs.predict_proba(X), atol=1e-8)
    # Predictions agree except where two classes tie within rounding.
    top2 = np.sort(theirs_jll, axis=1)[:, -2:] if theirs_jll.shape[1] > 1 else None
    clear = np.ones(len(X), bool) if top2 is None else (
        top2[:, 1] - top2[:, 0] > 1e-9 * scale)
    assert_array_equal(ours.predict(X)[clear], theirs.predict(X)[clear])


@settings(max_examples=80)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(2, 400),
    d=st.integers(1, 12),
    k=st.integers(1, 5),
    dtype=st.sampled_from([np.float64, np.float32]),
    weighted=st.booleans(),
    use_priors=st.booleans(),
    var_smoothing=st.sampled_from([1e-9, 1e-6, 1e-2, 0.5]),
    offset=st.sampled_from([0.0, 1e3, -1e6]),
    n_batches=st.integers(1, 4),
)
def test_gaussian_nb_agrees_with_sklearn(seed, n, d, k, dtype, weighted, use_priors,
                                         var_smoothing, offset, n_batches):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    y[: min(k, n)] = np.arange(min(k, n))
    X = (rng.normal(size=(n, d)) * rng.uniform(0.5, 5, d) + offset + y[:, None]).astype(
        dtype)
    X64 = X.astype(np.float64)
    weights = rng.uniform(0.05, 4, n) if weighted else None
    classes = np.unique(y)
    priors = rng.dirichlet(np.ones(len(classes))) if use_priors else None
    params = dict(var_smoothing=var_smoothing, priors=priors)

    ours = fastnb.GaussianNB(**params).fit(X, y, sample_weight=weights)
    theirs = sklearn_nb.GaussianNB(**params).fit(X64, y, sample_weight=weights)
    assert_array_equal(ours.classes_, theirs.classes_)
    assert_allclose(ours.class_count_, theirs.class_count_, rtol=1e-12)
    assert_allclose(ours.class_prior_, theirs.class_prior_, rtol=1e-12)
    assert_allclose(ours.theta_, theirs.theta_, rtol=1e-9, atol=1e-9 * (abs(offset) + 1))
    assert_allclose(ours.var_, theirs.var_, rtol=1e-7)
    _check_outputs(ours, theirs, X64, rtol=1e-7)

    # partial_fit over random batches: the same model as fit (scikit-learn's own
    # partial_fit differs by its last-batch epsilon, so fit is the oracle here).
    online = fastnb.GaussianNB(**params)
    for rows in _splits(rng, n, n_batches):
        online.partial_fit(X[rows], y[rows], classes=classes,
                           sample_weight=None if weights is None else weights[rows])
    assert_allclose(online.theta_, ours.theta_, rtol=1e-9, atol=1e-9 * (abs(offset) + 1))
    assert_allclose(online.var_, ours.var_, rtol=1e-9)


@settings(max_examples=60)
@given(
    seed=st.integers(0, 2**32 - 1),
    name=st.sampled_from(["BernoulliNB", "MultinomialNB", "ComplementNB"]),
    n=st.integers(2, 300),
    d=st.integers(1, 15),
    k=st.integers(1, 5),
    dtype=st.sampled_from([np.float64, np.float32]),
    weighted=st.booleans(),
    alpha=st.sampled_from([1.0, 0.5, 1e-3, "array"]),
    fit_prior=st.booleans(),
    use_class_prior=st.booleans(),
    option=st.booleans(),
    sparse_input=st.booleans(),
    n_batches=st.integers(1, 4),
)
def test_discrete_nb_agrees_with_sklearn(seed, name, n, d, k, dtype, weighted, alpha,
                                         fit_prior, use_class_prior, option,
                                         sparse_input, n_batches):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    y[: min(k, n)] = np.arange(min(k, n))
    X = rng.poisson(rng.uniform(0.2, 3, d), size=(n, d)).astype(dtype)
    weights = rng.uniform(0.05, 4, n) if weighted else None
    classes = np.unique(y)
    params = {"alpha": rng.uniform(0.1, 2, d) if alpha == "array" else alpha,
              "fit_prior": fit_prior, "force_alpha": True}
    if use_class_prior:
        params["class_prior"] = rng.dirichlet(np.ones(len(classes)))
    if name == "BernoulliNB":
        params["binarize"] = 1.0 if option else 0.0
        if alpha == "array":
            params["alpha"] = float(params["alpha"][0])  # sklearn 1.9 crashes on arrays
    if name == "ComplementNB":
        params["norm"] = option
    if sparse_input:
        scipy_sparse = pytest.importorskip("scipy.sparse")
        X_in = scipy_sparse.csr_matrix(X)
    else:
        X_in = X
    ours = getattr(fastnb, name)(**params).fit(X_in, y, sample_weight=weights)
    theirs = getattr(sklearn_nb, name)(**params).fit(X.astype(np.float64), y,
                                                     sample_weight=weights)
    assert_array_equal(ours.classes_, theirs.classes_)
    for attribute in ("class_count_", "feature_count_", "class_log_prior_",
                      "feature_log_prob_"):
        assert_allclose(getattr(ours, attribute), getattr(theirs, attribute),
                        rtol=1e-10, atol=1e-12, err_msg=attribute)
    _check_outputs(ours, theirs, X.astype(np.float64), rtol=1e-9)

    online = getattr(fastnb, name)(**params)
    for rows in _splits(rng, n, n_batches):
        online.partial_fit(X_in[rows], y[rows], classes=classes,
                           sample_weight=None if weights is None else weights[rows])
    assert_allclose(online.feature_count_, ours.feature_count_, rtol=1e-12)
    assert_allclose(online.feature_log_prob_, ours.feature_log_prob_, rtol=1e-12)
@settings(max_examples=80)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(1, 300),
    d=st.integers(1, 10),
    k=st.integers(1, 5),
    max_code=st.integers(0, 12),
    dtype=st.sampled_from([np.int64, np.int32, np.uint8, np.int8, np.float64]),
    weighted=st.booleans(),
    use_prior=st.booleans(),
    fit_prior=st.booleans(),
    alpha=st.sampled_from([1.0, 0.5, 1e-3, 2.5]),
    min_categories=st.sampled_from([None, "int", "array"]),
    n_batches=st.integers(1, 4),
)
def test_categorical_nb_agrees_with_sklearn(seed, n, d, k, max_code, dtype, weighted,
                                            use_prior, fit_prior, alpha, min_categories,
                                            n_batches):
    """Integer codes 0..n-1: the layout and every output are scikit-learn's."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    y[: min(k, n)] = np.arange(min(k, n))
    X = ((rng.integers(0, max_code + 1, (n, d)) + y[:, None]) % (max_code + 1)).astype(
        dtype)
    weights = rng.uniform(0.05, 4, n) if weighted else None
    classes = np.unique(y)
    prior = rng.dirichlet(np.ones(len(classes))) if use_prior else None
    if min_categories == "int":
        mc = int(rng.integers(1, 16))
    elif min_categories == "array":
        mc = rng.integers(1, 16, d)
    else:
        mc = None
    params = dict(alpha=alpha, class_prior=prior, fit_prior=fit_prior, min_categories=mc)

    ours = fastnb.CategoricalNB(**params).fit(X, y, sample_weight=weights)
    theirs = sklearn_nb.CategoricalNB(**params).fit(X, y, sample_weight=weights)
    assert_array_equal(ours.classes_, theirs.classes_)
    assert_allclose(ours.class_count_, theirs.class_count_, rtol=1e-12)
    assert_allclose(ours.class_log_prior_, theirs.class_log_prior_, rtol=1e-12)
    assert_array_equal(ours.n_categories_, theirs.n_categories_)
    for j in range(d):
        assert_allclose(ours.category_count_[j], theirs.category_count_[j], rtol=1e-12)
        assert_allclose(ours.feature_log_prob_[j], theirs.feature_log_prob_[j],
                        rtol=1e-12, atol=1e-12)
    _check_outputs(ours, theirs, X, rtol=1e-10)

    # partial_fit over random batches: the same model as fit (scikit-learn's
    # n_categories_ after partial_fit reflects the last batch only, so fit is the
    # oracle here).
    online = fastnb.CategoricalNB(**params)
    for rows in _splits(rng, n, n_batches):
        online.partial_fit(X[rows], y[rows], classes=classes,
                           sample_weight=None if weights is None else weights[rows])
    assert_array_equal(online.n_categories_, ours.n_categories_)
    for j in range(d):
        assert_allclose(online.category_count_[j], ours.category_count_[j], rtol=1e-12)
    assert_allclose(online.predict_joint_log_proba(X), ours.predict_joint_log_proba(X),
                    rtol=1e-10, atol=1e-10)
