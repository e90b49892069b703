"""A table of bad inputs, run against every estimator.

Each entry either raises a clear exception whose message names the problem, or
gives a correct answer (checked). After every failure the model is exactly as it
was before the call: its whole state is compared, not a sample of it.
"""

import pickle

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

import fastnb


def gaussian_data(rng, n=120, d=4, k=3):
    y = np.arange(n) % k
    return rng.normal(size=(n, d)) + y[:, None], y


def count_data(rng, n=120, d=4, k=3):
    y = np.arange(n) % k
    return rng.poisson(1.0 + y[:, None], size=(n, d)).astype(np.float64), y


# name -> (factory, data maker, class-prior parameter name, its valid value for k=3)
ESTIMATORS = {
    "GaussianNB": (fastnb.GaussianNB, gaussian_data, "priors", [0.2, 0.3, 0.5]),
    "BernoulliNB": (fastnb.BernoulliNB, count_data, "class_prior", [0.2, 0.3, 0.5]),
    "MultinomialNB": (fastnb.MultinomialNB, count_data, "class_prior", [0.2, 0.3, 0.5]),
    "ComplementNB": (fastnb.ComplementNB, count_data, "class_prior", [0.2, 0.3, 0.5]),
}


def _snapshot(model):
    return pickle.dumps(vars(model), protocol=5)


# (id, function(model, X, y) -> call, exception types, message pattern)
# The call is made on a model already fitted (with partial_fit) on good data.
def _cases():
    cases = []

    def add(case_id, call, error, match):
        cases.append(pytest.param(call, error, match, id=case_id))

    E = (ValueError,)
    T = (TypeError,)
    for method in ("fit", "partial_fit"):
        def m(model, method=method):
            return getattr(model, method)

        add(f"{method}-X-1d", lambda md, X, y, m=m: m(md)(X[:, 0], y), E, "Expected 2D array")
        add(f"{method}-X-3d", lambda md, X, y, m=m: m(md)(X[:, :, None], y), E, "dim 3")
        add(f"{method}-X-scalar", lambda md, X, y, m=m: m(md)(X[0, 0], y), E, "scalar")
        add(f"{method}-X-no-rows", lambda md, X, y, m=m: m(md)(X[:0], y[:0]), E, "0 sample")
        add(f"{method}-X-no-features", lambda md, X, y, m=m: m(md)(X[:, :0], y), E,
            "0 feature")
        add(f"{method}-X-inf", lambda md, X, y, m=m: m(md)(_put(X, np.inf), y), E,
            "infinity")
        add(f"{method}-X-minus-inf", lambda md, X, y, m=m: m(md)(_put(X, -np.inf), y), E,
            "infinity")
        add(f"{method}-X-dict", lambda md, X, y, m=m: m(md)(_put(X.astype(object), {}), y),
            T, "float")
        add(f"{method}-X-strings", lambda md, X, y, m=m: m(md)(_put(X.astype(object), "x"), y),
            E, "could not convert|numeric")
        add(f"{method}-X-complex", lambda md, X, y, m=m: m(md)(X + 1j, y), E, "Complex")
        add(f"{method}-X-ragged", lambda md, X, y, m=m: m(md)(
            [list(r) for r in X[:-1]] + [list(X[-1])[:-1]], y), E, "inhomogeneous|sequence")
        add(f"{method}-X-datetime", lambda md, X, y, m=m: m(md)(
            X.astype("datetime64[s]"), y), T, "numeric")
        add(f"{method}-y-short", lambda md, X, y, m=m: m(md)(X, y[:-1]), E, "inconsistent")
        add(f"{method}-y-2d", lambda md, X, y, m=m: m(md)(X, np.c_[y, y]), E, "1d array")
        add(f"{method}-y-nan", lambda md, X, y, m=m: m(md)(X, _put(y.astype(float), np.nan)),
            E, "NaN")
        add(f"{method}-y-inf", lambda md, X, y, m=m: m(md)(X, _put(y.astype(float), np.inf)),
            E, "infinity")
        add(f"{method}-y-complex", lambda md, X, y, m=m: m(md)(X, y + 1j), E, "Complex")
        add(f"{method}-w-negative", lambda md, X, y, m=m: m(md)(
            X, y, sample_weight=_put(np.ones(len(y)), -1.0)), E, "Negative")
        add(f"{method}-w-nan", lambda md, X, y, m=m: m(md)(
            X, y, sample_weight=_put(np.ones(len(y)), np.nan)), E, "NaN or infinity")
        add(f"{method}-w-inf", lambda md, X, y, m=m: m(md)(
            X, y, sample_weight=_put(np.ones(len(y)), np.inf)), E, "NaN or infinity")
        add(f"{method}-w-short", lambda md, X, y, m=m: m(md)(
            X, y, sample_weight=np.ones(len(y) - 1)), E, "sample_weight.shape")
        add(f"{method}-w-2d", lambda md, X, y, m=m: m(md)(
            X, y, sample_weight=np.ones((len(y), 2))), E, "1D array or scalar")
        add(f"{method}-w-strings", lambda md, X, y, m=m: m(md)(
            X, y, sample_weight=["a"] * len(y)), E, "numeric")
    add("fit-y-none", lambda md, X, y: md.fit(X, None), E, "requires y")
    add("fit-y-continuous", lambda md, X, y: md.fit(X, y + 0.5), E, "continuous")
    add("fit-y-mixed-types", lambda md, X, y: md.fit(X, np.array(
        ["a", 1] * (len(y) // 2), dtype=object)), E, "Mix of label")
    add("fit-w-all-zero", lambda md, X, y: md.fit(X, y, sample_weight=np.zeros(len(y))),
        E, "sum of sample_weight is zero")
    add("partial_fit-unknown-label", lambda md, X, y: md.partial_fit(X, y + 10), E,
        r"label\(s\)")
    add("partial_fit-features", lambda md, X, y: md.partial_fit(X[:, :-1], y), E,
        "features")
    add("predict-features", lambda md, X, y: md.predict(X[:, :-1]), E,
        "features, but")
    add("predict-1d", lambda md, X, y: md.predict(X[0]), E, "Reshape your data")
    add("predict-empty", lambda md, X, y: md.predict(X[:0]), E, "0 sample")
    add("predict_proba-inf", lambda md, X, y: md.predict_proba(_put(X, np.inf)), E,
        "infinity")
    add("predict_log_proba-strings", lambda md, X, y: md.predict_log_proba(
        _put(X.astype(object), "x")), E, "could not convert|numeric")
    add("predict_joint_log_proba-complex", lambda md, X, y: md.predict_joint_log_proba(
        X + 1j), E, "Complex")
    add("score-y-short", lambda md, X, y: md.score(X, y[:-1]), E, "shape|inconsistent|broadcast")
    add("set_params-unknown", lambda md, X, y: md.set_params(nonsense=1), E,
        "Invalid parameter")
    add("fit-n_threads-zero", lambda md, X, y: md.set_params(n_threads=0).fit(X, y), E,
        "n_threads")
    add("fit-n_threads-float", lambda md, X, y: md.set_params(n_threads=1.5).fit(X, y), T,
        "n_threads")
    add("fit-prior-wrong-length", lambda md, X, y: _set_prior(md, [0.5, 0.5]).fit(X, y),
        E, "prior")
    add("fit-prior-negative", lambda md, X, y: _set_prior(md, [1.2, -0.1, -0.1]).fit(X, y),
        E, "prior|negative")
    return cases


def _put(array, value):
    array = np.array(array, copy=True)
    array.flat[min(3, array.size - 1)] = value
    return array


def _set_prior(model, value):
    name = ESTIMATORS[type(model).__name__][2]
    return model.set_params(**{name: value})


CASES = _cases()


def test_the_table_has_at_least_40_bad_inputs():
    assert len(CASES) >= 40


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
@pytest.mark.parametrize("call, errors, match", CASES)
def test_bad_input_raises_clearly_and_leaves_model_unchanged(name, call, errors, match,
                                                             rng):
    factory, make, _, _ = ESTIMATORS[name]
    X, y = make(rng)
    model = factory().partial_fit(X, y, classes=np.unique(y))
    before = _snapshot(model)
    with pytest.raises(errors, match=match):
        call(model, X, y)
    # set_params-based cases change a parameter on purpose: compare fitted state.
    after = vars(model)
    reference = pickle.loads(before)
    assert after.keys() == reference.keys()
    for key in after:
        if key in model._get_param_names():
            continue
        a, b = after[key], reference[key]
        if isinstance(a, np.ndarray):
            assert_array_equal(a, b, err_msg=key)
        else:
            assert a == b or (a != a and b != b), key


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_predict_before_fit(name, rng):
    factory, make, _, _ = ESTIMATORS[name]
    X, _ = make(rng)
    for method in ("predict", "predict_proba", "predict_log_proba",
                   "predict_joint_log_proba"):
        with pytest.raises(fastnb.NotFittedError, match="not fitted"):
            getattr(factory(), method)(X)
    with pytest.raises(ValueError, match="classes must be passed"):
        factory().partial_fit(X, np.zeros(len(X)))


# -- inputs that must give a correct answer -------------------------------------------
@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_layouts_and_dtypes_give_the_same_answer(name, rng):
    factory, make, _, _ = ESTIMATORS[name]
    X, y = make(rng)
    model = factory().fit(X, y)
    expected = model.predict_joint_log_proba(X)
    readonly = X.copy()
    readonly.setflags(write=False)
    variants = {
        "fortran": np.asfortranarray(X),
        "strided": np.repeat(X, 2, axis=0)[::2],
        "readonly": readonly,
        "list": X.tolist(),
        "object": X.astype(object),
    }
    for label, variant in variants.items():
        assert_array_equal(model.predict_joint_log_proba(variant), expected, err_msg=label)
        refit = factory().fit(variant, y)
        assert_array_equal(refit.predict_joint_log_proba(X), expected, err_msg=label)


def test_gaussian_extreme_but_valid_inputs(rng):
    sklearn_nb = pytest.importorskip("sklearn.naive_bayes")
    y = np.arange(60) % 3
    base = rng.normal(size=(60, 3)) + y[:, None]
    with pytest.raises(ValueError, match="too small in magnitude"):
        fastnb.GaussianNB().fit(base * 1e-300, y)
    with pytest.raises(ValueError, match="too large in magnitude"):
        fastnb.GaussianNB().fit(base * 1e300, y)
    for label, X in {
        "small": base * 1e-150,
        "huge": base * 1e150,
        "constant feature": np.c_[base, np.full(60, 7.0)],
        "float16": base.astype(np.float16),
        "bool": base > 0,
        "int8": (base * 10).astype(np.int8),
    }.items():
        ours = fastnb.GaussianNB().fit(X, y)
        theirs = sklearn_nb.GaussianNB().fit(np.asarray(X, dtype=np.float64), y)
        assert_allclose(ours.theta_, theirs.theta_, rtol=1e-10, err_msg=label)
        assert_allclose(ours.var_, theirs.var_, rtol=1e-9, err_msg=label)
        assert_array_equal(ours.predict(X), theirs.predict(np.asarray(X, np.float64)),
                           err_msg=label)


def test_gaussian_one_sample_classes_and_one_row(rng):
    X = rng.normal(size=(5, 2))
    model = fastnb.GaussianNB().fit(X, [0, 1, 2, 3, 4])  # one sample per class
    assert_array_equal(model.predict(X), [0, 1, 2, 3, 4])
    one = fastnb.GaussianNB().fit(X[:1], [7])
    assert_array_equal(one.predict(X), [7] * 5)
    assert_allclose(one.predict_proba(X), 1.0)


def test_gaussian_ten_thousand_classes(rng):
    sklearn_nb = pytest.importorskip("sklearn.naive_bayes")
    y = np.repeat(np.arange(10_000), 3)
    X = rng.normal(size=(30_000, 2)) + (y % 97)[:, None]
    ours = fastnb.GaussianNB().fit(X, y)
    theirs = sklearn_nb.GaussianNB().fit(X, y)
    assert_allclose(ours.var_, theirs.var_, rtol=1e-9)
    assert_allclose(ours.predict_joint_log_proba(X[:50]),
                    theirs.predict_joint_log_proba(X[:50]), rtol=1e-10)


def test_gaussian_rejects_sparse_input_naming_it(rng):
    sparse = pytest.importorskip("scipy.sparse")
    X, y = gaussian_data(rng)
    with pytest.raises(TypeError, match="sparse"):
        fastnb.GaussianNB().fit(sparse.csr_matrix(X), y)
