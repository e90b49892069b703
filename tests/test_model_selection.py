"""fastnb.model_selection and the models' ``with_params``: a fitted model's
statistics under other parameter values equal a refit, and the searches built on
it give scikit-learn's own ``cv_results_``."""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal

import fastnb
from _registry import mixed_data


def gaussian_data(rng, n=120, d=4, k=3):
    y = rng.integers(0, k, n)
    return rng.normal(size=(n, d)) + y[:, None], y


def count_data(rng, n=120, d=6, k=3):
    y = rng.integers(0, k, n)
    return rng.poisson(1.0 + y[:, None], size=(n, d)).astype(np.float64), y


def category_data(rng, n=120, d=3, k=3):
    y = rng.integers(0, k, n)
    X = np.empty((n, d), dtype=object)
    words = np.array(["red", "green", "blue", "sun"], dtype=object)
    X[:, 0] = words[(rng.integers(0, 3, n) + y) % 4]
    X[:, 1] = (rng.integers(0, 3, n) + y) % 5
    X[:, 2] = rng.integers(0, 4, n)
    return X, y


def columnwise():
    return fastnb.ColumnwiseNB([("g", fastnb.GaussianNB(), [0, 4]),
                                ("b", fastnb.BernoulliNB(), [2]),
                                ("c", fastnb.CategoricalNB(), [1, 3])])


def _priors(draw, k):
    if not draw(st.booleans()):
        return None
    weights = np.array(draw(st.lists(st.floats(0.05, 1.0), min_size=k, max_size=k)))
    return weights / weights.sum()


def _alpha(draw):
    return draw(st.sampled_from([0.0, 1e-12, 1e-3, 0.1, 0.5, 1.0, 2.5]))


# name -> (unfitted model, data maker, draw of statistics-free parameters)
MODELS = {
    "GaussianNB": (fastnb.GaussianNB, gaussian_data, lambda draw, k: {
        "var_smoothing": draw(st.sampled_from([0.0, 1e-9, 1e-4, 0.1, 2.0])),
        "priors": _priors(draw, k)}),
    "MultinomialNB": (fastnb.MultinomialNB, count_data, lambda draw, k: {
        "alpha": _alpha(draw), "force_alpha": draw(st.booleans()),
        "fit_prior": draw(st.booleans()), "class_prior": _priors(draw, k)}),
    "ComplementNB": (fastnb.ComplementNB, count_data, lambda draw, k: {
        "alpha": _alpha(draw), "norm": draw(st.booleans()),
        "fit_prior": draw(st.booleans()), "class_prior": _priors(draw, k)}),
    "BernoulliNB": (lambda: fastnb.BernoulliNB(binarize=1.0), count_data,
                    lambda draw, k: {"alpha": _alpha(draw),
                                     "fit_prior": draw(st.booleans()),
                                     "class_prior": _priors(draw, k)}),
    "CategoricalNB": (fastnb.CategoricalNB, category_data, lambda draw, k: {
        "alpha": _alpha(draw), "fit_prior": draw(st.booleans()),
        "class_prior": _priors(draw, k)}),
    "ColumnwiseNB": (columnwise, lambda rng: mixed_data(rng, n=150), lambda draw, k: {
        "priors": _priors(draw, k),
        "g__var_smoothing": draw(st.sampled_from([1e-9, 1e-3, 0.5])),
        "b__alpha": _alpha(draw), "c__alpha": _alpha(draw)}),
}


def assert_same_model(derived, refit, X):
    assert derived.get_params(deep=False).keys() == refit.get_params(deep=False).keys()
    assert_array_equal(derived.classes_, refit.classes_)
    for method in ("predict_joint_log_proba", "predict_proba"):
        assert_allclose(getattr(derived, method)(X), getattr(refit, method)(X),
                        rtol=1e-13, atol=1e-300, err_msg=method)
    assert_array_equal(derived.predict(X), refit.predict(X))


# -- with_params -----------------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(MODELS))
@pytest.mark.parametrize("sparse", [False, True])
@given(data=st.data())
def test_with_params_equals_a_refit(name, sparse, data, table_fits):
    make, make_data, draw_params = MODELS[name]
    if sparse and make_data is not count_data:
        return
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    X, y = make_data(rng)
    weights = rng.uniform(0.2, 2.0, len(y)) if data.draw(st.booleans()) else None
    if sparse:
        X = sp.csr_matrix(X)
    params = draw_params(data.draw, np.unique(y).shape[0])
    with table_fits(sparse and data.draw(st.booleans())):
        model = make().fit(X, y, sample_weight=weights)
        before = model.predict_joint_log_proba(X)
        derived = model.with_params(**params)
        refit = make().set_params(**params).fit(X, y, sample_weight=weights)
        assert_same_model(derived, refit, X)
        for key, value in params.items():
            assert derived.get_params()[key] is not None or value is None
    # the model it came from is left as it was
    assert_array_equal(model.predict_joint_log_proba(X), before)


def test_with_params_after_partial_fit_and_on_float32(rng):
    X, y = count_data(rng)
    model = fastnb.MultinomialNB()
    model.partial_fit(X[:50].astype(np.float32), y[:50], classes=[0, 1, 2])
    model.partial_fit(X[50:].astype(np.float32), y[50:])
    derived = model.with_params(alpha=0.25, fit_prior=False)
    refit = fastnb.MultinomialNB(alpha=0.25, fit_prior=False).fit(X, y)
    assert_same_model(derived, refit, X)


@pytest.mark.parametrize("make, make_data, params", [
    (fastnb.BernoulliNB, count_data, {"binarize": 0.5}),
    (fastnb.MultinomialNB, count_data, {"half_life": 10.0}),
    (fastnb.GaussianNB, gaussian_data, {"half_life": 10.0}),
    (fastnb.CategoricalNB, category_data, {"min_categories": 9}),
    (fastnb.CategoricalNB, category_data, {"hash_buckets": 16}),
    (columnwise, mixed_data, {"estimators": "auto"}),
    (columnwise, mixed_data, {"c__min_categories": 9}),
])
def test_with_params_refuses_what_needs_the_data(make, make_data, params, rng):
    model = make().fit(*make_data(rng))
    (name,) = params
    with pytest.raises(ValueError, match=f"cannot change '{name}'.*Refit"):
        model.with_params(**params)


def test_with_params_names_and_values_are_checked(rng):
    X, y = count_data(rng)
    model = fastnb.MultinomialNB().fit(X, y)
    with pytest.raises(ValueError, match="Invalid parameter 'alhpa'"):
        model.with_params(alhpa=0.1)
    with pytest.raises(ValueError, match="alpha"):
        model.with_params(alpha=-1.0)
    # a parameter that needs the data may be repeated at its own value
    assert model.with_params(half_life=None, alpha=0.5).alpha == 0.5
    with pytest.raises(fastnb.NotFittedError if hasattr(fastnb, "NotFittedError")
                       else Exception, match="not fitted"):
        fastnb.MultinomialNB().with_params(alpha=0.1)
    auto = fastnb.ColumnwiseNB().fit(*mixed_data(rng, n=60))
    with pytest.raises(ValueError, match="Invalid parameter 'gaussian__var_smoothing'"):
        auto.with_params(gaussian__var_smoothing=0.1)

