"""Bad input to BernoulliNB, MultinomialNB and ComplementNB: a clear error
(scikit-learn's where it has one), never a crash, and a failed partial_fit
leaves the model as it was."""

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

import fastnb
from fastnb import BernoulliNB, ComplementNB, MultinomialNB, NotFittedError
from _discrete_data import MODELS, _as_kind, _counts

sklearn_nb = pytest.importorskip("sklearn.naive_bayes")
sp = pytest.importorskip("scipy.sparse")


# -- bad input ----------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["MultinomialNB", "ComplementNB"])
@pytest.mark.parametrize("sparse", [False, True])
def test_negative_values_rejected(name, sparse, rng):
    X, y = _counts(rng)
    X[5, 3] = -1.0
    Xk = sp.csr_matrix(X) if sparse else X
    with pytest.raises(ValueError, match=f"Negative values in data passed to {name}"):
        getattr(fastnb, name)().fit(Xk, y)
    with pytest.raises(ValueError, match="Negative values in data"):
        getattr(fastnb, name)().fit(X.astype(np.int8), y)


@pytest.mark.parametrize("name", MODELS)
@pytest.mark.parametrize("value", [np.inf, -np.inf])
@pytest.mark.parametrize("kind", ["float64", "float32", "csr32"])
def test_infinity_rejected_in_fit_and_predict(name, value, kind, rng):
    # (NaN means missing: tests/test_discrete_missing.py.)
    X, y = _counts(rng)
    good = getattr(fastnb, name)().fit(_as_kind(X, kind), y)
    X[7, 2] = value
    X[8, 3] = np.nan  # a missing value beside it does not hide the infinity
    Xk = _as_kind(X, kind)
    with pytest.raises(ValueError, match="Input X contains infinity"):
        getattr(fastnb, name)().fit(Xk, y)
    for method in ("predict", "predict_proba", "predict_joint_log_proba"):
        with pytest.raises(ValueError, match="Input X contains infinity"):
            getattr(good, method)(Xk)


def test_nan_hidden_by_threshold_is_still_seen_as_missing(rng):
    # x > binarize is False for NaN: the kernel must look for it explicitly, so
    # that it is counted as missing, not as an observed zero.
    X, y = _counts(rng)
    X[0, 0] = np.nan
    for data in (X, sp.csr_matrix(X)):
        model = BernoulliNB(binarize=0.0).fit(data, y)
        assert model._missing_count[np.searchsorted(model.classes_, y[0]), 0] == 1.0
        assert model._missing_count.sum() == 1.0


def test_nan_with_zero_weight_is_missing_with_no_weight(rng):
    # A NaN row of weight 0 adds 0 * NaN = NaN to the counts: it must be seen, and
    # then it counts for nothing.
    X, y = _counts(rng)
    X[3, 1] = np.nan
    weights = np.ones(X.shape[0])
    weights[3] = 0.0
    for model in (BernoulliNB(binarize=None), BernoulliNB(), MultinomialNB(),
                  ComplementNB()):
        model.fit(X, y, sample_weight=weights)
        reference = type(model)(**model.get_params()).fit(np.delete(X, 3, 0), np.delete(y, 3))
        assert_allclose(model.feature_log_prob_, reference.feature_log_prob_,
                        rtol=1e-12)


@pytest.mark.parametrize("name", MODELS)
def test_bad_parameters(name, rng):
    X, y = _counts(rng)
    cls = getattr(fastnb, name)
    with pytest.raises(ValueError, match="'alpha' parameter"):
        cls(alpha=-1.0).fit(X, y)
    with pytest.raises(ValueError, match="All values in alpha must be greater than 0"):
        cls(alpha=-np.ones(X.shape[1])).fit(X, y)
    with pytest.raises(ValueError, match="should contains `n_features`. Got 3 elements "
                                         "instead of 13"):
        cls(alpha=[1.0, 1.0, 1.0]).fit(X, y)
    with pytest.raises(ValueError, match="Number of priors must match number of classes"):
        cls(class_prior=[0.5, 0.5]).fit(X, y)
    with pytest.raises(TypeError, match="'fit_prior' parameter"):
        cls(fit_prior="yes").fit(X, y)
    with pytest.raises(ValueError, match="'n_threads' parameter"):
        cls(n_threads=0).fit(X, y)
    if name == "BernoulliNB":
        with pytest.raises(ValueError, match="'binarize' parameter"):
            cls(binarize=-0.5).fit(X, y)


@pytest.mark.parametrize("name", MODELS)
def test_feature_count_mismatch(name, rng):
    X, y = _counts(rng)
    model = getattr(fastnb, name)().fit(X, y)
    with pytest.raises(ValueError, match="X has 12 features, but .* is expecting 13"):
        model.predict(X[:, :12])
    with pytest.raises(ValueError, match="X has 12 features, but .* is expecting 13"):
        model.predict_proba(sp.csr_matrix(X[:, :12]))
    with pytest.raises(ValueError, match="X has 12 features"):
        model.partial_fit(X[:, :12], y)


def _state(model):
    return {key: (value.copy() if isinstance(value, np.ndarray) else value)
            for key, value in vars(model).items()}


def _assert_state_equal(before, model):
    after = vars(model)
    assert set(before) == set(after)
    for key, value in before.items():
        if isinstance(value, np.ndarray):
            assert_array_equal(after[key], value, err_msg=key)
        else:
            assert after[key] is value or after[key] == value, key


@pytest.mark.parametrize("name", MODELS)
def test_failed_partial_fit_leaves_model_unchanged(name, rng):
    X, y = _counts(rng)
    model = getattr(fastnb, name)().partial_fit(X[:60], y[:60], classes=[0, 1, 2])
    model.predict_proba(sp.csr_matrix(X))  # builds the sparse-weights cache too
    before = _state(model)
    bad_X = X[60:].copy()
    bad_X[-1, -1] = np.inf
    negative_X = X[60:].copy()
    negative_X[-1, -1] = -3.0
    failures = [
        (lambda: model.partial_fit(bad_X, y[60:]), "infinity"),
        (lambda: model.partial_fit(sp.csr_matrix(bad_X), y[60:]), "infinity"),
        (lambda: model.partial_fit(X[60:, :5], y[60:]), "features"),
        (lambda: model.partial_fit(X[60:], np.full(60, 7)), "do not exist"),
        (lambda: model.partial_fit(X[60:], y[60:], classes=[0, 1]), "not the same"),
        (lambda: model.partial_fit(X[60:], y[60:], sample_weight=-np.ones(60)),
         "Negative values in data passed to sample_weight"),
        (lambda: model.set_params(alpha=[1.0]).partial_fit(X[60:], y[60:]),
         "n_features"),
    ]
    if name != "BernoulliNB":
        failures.append((lambda: model.partial_fit(negative_X, y[60:]), "Negative"))
    for call, match in failures:
        with pytest.raises(ValueError, match=match):
            call()
        model.set_params(alpha=1.0)
        _assert_state_equal(before, model)


def test_partial_fit_needs_classes_first(rng):
    X, y = _counts(rng)
    with pytest.raises(ValueError, match="classes must be passed on the first call"):
        MultinomialNB().partial_fit(X, y)


@pytest.mark.parametrize("name", MODELS)
def test_not_fitted(name):
    from sklearn.exceptions import NotFittedError as SklearnNotFittedError

    model = getattr(fastnb, name)()
    for method in ("predict", "predict_proba", "predict_log_proba"):
        with pytest.raises(NotFittedError, match="not fitted"):
            getattr(model, method)(np.ones((1, 2)))
        with pytest.raises(SklearnNotFittedError):
            getattr(model, method)(np.ones((1, 2)))


def test_malformed_csr_is_an_error_not_a_crash(rng):
    X, y = _counts(rng, n=10, d=4)
    good = sp.csr_matrix(X)
    model = MultinomialNB().fit(good, y)
    bad = good.copy()
    bad.indices[0] = 4000  # out of range, not caught by scipy's light checks
    with pytest.raises(ValueError, match="malformed CSR"):
        MultinomialNB().fit(bad, y)
    with pytest.raises(ValueError, match="malformed CSR"):
        model.predict(bad)


def test_complex_and_object_input(rng):
    X, y = _counts(rng, n=10, d=4)
    with pytest.raises(ValueError, match="Complex data not supported"):
        MultinomialNB().fit(X.astype(complex), y)
    model = MultinomialNB().fit(X.astype(object), y)
    assert_allclose(model.feature_count_, MultinomialNB().fit(X, y).feature_count_)
