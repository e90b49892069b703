"""NaN means missing for BernoulliNB, MultinomialNB and ComplementNB, dense and
sparse: fit leaves it out of that feature's statistics, predict leaves that
feature's term out of the joint log likelihood. References are computed by hand."""

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

import fastnb

sparse = pytest.importorskip("scipy.sparse")


def _data(rng, n=400, d=6, k=3, missing=0.2):
    y = rng.integers(0, k, n)
    y[:k] = np.arange(k)
    X = rng.poisson(1.0 + y[:, None] * np.linspace(0, 1, d), size=(n, d)).astype(float)
    X[rng.random(X.shape) < missing] = np.nan
    X[:k] = 1.0  # every feature observed in every class
    return X, y


def _bernoulli_reference(X, y, k, alpha, binarize):
    observed = ~np.isnan(X)
    ones = np.where(observed, X > binarize, False)
    count = np.array([ones[y == c].sum(0) for c in range(k)], dtype=float)
    seen = np.array([observed[y == c].sum(0) for c in range(k)], dtype=float)
    log_p = np.log(count + alpha) - np.log(seen + 2 * alpha)
    return count, log_p


@pytest.mark.parametrize("as_sparse", [False, True])
def test_bernoulli_fit_and_predict_leave_missing_values_out(rng, as_sparse):
    X, y = _data(rng)
    model = fastnb.BernoulliNB(alpha=0.5, binarize=1.0)
    model.fit(sparse.csr_matrix(X) if as_sparse else X, y)
    count, log_p = _bernoulli_reference(X, y, 3, 0.5, 1.0)
    assert_allclose(model.feature_count_, count)
    assert_allclose(model.feature_log_prob_, log_p, rtol=1e-12)
    assert_array_equal(model.class_count_, np.bincount(y))

    X_test = X[:120]
    observed = ~np.isnan(X_test)
    x = np.where(observed, X_test > 1.0, 0.0)
    log_not_p = np.log(1 - np.exp(log_p))
    terms = x[:, None, :] * log_p[None] + (1 - x[:, None, :]) * log_not_p[None]
    expected = model.class_log_prior_ + np.where(observed[:, None, :], terms, 0).sum(-1)
    data = sparse.csr_matrix(X_test) if as_sparse else X_test
    assert_allclose(model.predict_joint_log_proba(data), expected, rtol=1e-10)
    assert_array_equal(model.predict(data), model.classes_[expected.argmax(1)])
    proba = model.predict_proba(data)
    assert_allclose(proba.sum(1), 1.0)
    assert_allclose(np.log(proba), model.predict_log_proba(data), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("name", ["MultinomialNB", "ComplementNB"])
@pytest.mark.parametrize("as_sparse", [False, True])
def test_linear_models_read_missing_as_absent(rng, name, as_sparse):
    # A count that is missing adds nothing to the counts nor to the linear score:
    # exactly a zero, so scikit-learn on the zero-filled data is the oracle.
    sklearn_nb = pytest.importorskip("sklearn.naive_bayes")
    X, y = _data(rng)
    zero_filled = np.nan_to_num(X, nan=0.0)
    data = sparse.csr_matrix(X) if as_sparse else X
    ours = getattr(fastnb, name)().fit(data, y)
    theirs = getattr(sklearn_nb, name)().fit(zero_filled, y)
    assert_allclose(ours.feature_count_, theirs.feature_count_)
    assert_allclose(ours.feature_log_prob_, theirs.feature_log_prob_, rtol=1e-12)
    assert_allclose(ours.predict_joint_log_proba(data),
                    theirs.predict_joint_log_proba(zero_filled), rtol=1e-10)
    assert_allclose(ours.predict_proba(data), theirs.predict_proba(zero_filled),
                    rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("name", ["BernoulliNB", "MultinomialNB", "ComplementNB"])
def test_missing_values_partial_fit_merge_save_and_threads(rng, name, tmp_path,
                                                           parallel_kernels):
    X, y = _data(rng, n=3000)
    whole = getattr(fastnb, name)().fit(X, y)
    online = getattr(fastnb, name)()
    for rows in np.array_split(np.arange(3000), 4):
        online.partial_fit(X[rows], y[rows], classes=[0, 1, 2])
    assert_array_equal(online.feature_log_prob_, whole.feature_log_prob_)
    merged = fastnb.merge(getattr(fastnb, name)().fit(X[:1000], y[:1000]),
                          getattr(fastnb, name)().fit(X[1000:], y[1000:]))
    assert_allclose(merged.feature_log_prob_, whole.feature_log_prob_, rtol=1e-12)
    whole.save(tmp_path / "m.npz")
    loaded = fastnb.load(tmp_path / "m.npz")
    assert_array_equal(loaded.predict_proba(X), whole.predict_proba(X))
    with parallel_kernels():
        outputs = [getattr(fastnb, name)(n_threads=t).fit(X, y).predict_proba(X)
                   for t in (1, 2, 4)]
    for output in outputs[1:]:
        assert_array_equal(output, outputs[0])


@pytest.mark.parametrize("name", ["BernoulliNB", "MultinomialNB", "ComplementNB"])
def test_infinity_still_raises(rng, name):
    X, y = _data(rng)
    model = getattr(fastnb, name)().fit(X, y)
    bad = X.copy()
    bad[5, 2] = np.inf
    with pytest.raises(ValueError, match="infinity"):
        getattr(fastnb, name)().fit(bad, y)
    with pytest.raises(ValueError, match="infinity"):
        model.predict(bad)


def test_missing_values_are_declared_in_the_tags():
    from sklearn.utils import get_tags

    for name in ("BernoulliNB", "MultinomialNB", "ComplementNB"):
        assert get_tags(getattr(fastnb, name)()).input_tags.allow_nan
