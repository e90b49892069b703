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
from _registry import ESTIMATORS as REGISTRY


def gaussian_data(rng, n=120, d=4, k=3):
    y = np.arange(n) % k
    return rng.normal(size=(n, d)) + y[:, None], y


def count_data(rng, n=120, d=4, k=3):
    y = np.arange(n) % k
    return rng.poisson(1.0 + y[:, None], size=(n, d)).astype(np.float64), y


# name -> (factory, data maker, class-prior parameter name, its valid value for k=3),
# for every registered estimator; CategoricalNB, whose X holds category values of
# any kind, has its own table below, and ColumnwiseNB (which takes strings and
# objects too) its own in test_columnwise.py.
def positive_data(rng, n=120, d=4, k=3):
    y = np.arange(n) % k
    return 1.0 + rng.poisson(1.0 + y[:, None], size=(n, d)).astype(np.float64), y


_DATA = {"continuous": gaussian_data, "counts": count_data, "positive": positive_data}
ESTIMATORS = {
    name: (spec.make, _DATA[spec.data_kind], spec.prior_param, [0.2, 0.3, 0.5])
    for name, spec in REGISTRY.items() if spec.data_kind not in ("categories", "mixed")
}


def _snapshot(model):
    return pickle.dumps(vars(model), protocol=5)


def _add_sample_weight_cases(add, method, m):
    """Bad sample weights: the same cases for every estimator's table."""
    E = (ValueError,)
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
        _add_sample_weight_cases(add, method, m)
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


# (the class totals of the second fit overflow, in both libraries: NumPy warns)
@pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")
@pytest.mark.filterwarnings("ignore:divide by zero:RuntimeWarning")
@pytest.mark.filterwarnings("ignore:invalid value:RuntimeWarning")
@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("name", ["MultinomialNB", "ComplementNB"])
def test_discrete_counts_that_overflow_are_an_error(sparse, name):
    # Two values of 1e308 in one (class, feature) sum to infinity: an error that
    # names the problem, not a model of infinite counts. 1e308 in two features of
    # a class (finite counts, though their sum is not) fits as scikit-learn's.
    sklearn_nb = pytest.importorskip("sklearn.naive_bayes")
    sp = pytest.importorskip("scipy.sparse")
    as_input = sp.csr_matrix if sparse else np.asarray
    y = np.array([0, 0, 1])
    with pytest.raises(ValueError, match="too large in magnitude"):
        getattr(fastnb, name)().fit(as_input([[1e308, 0.0], [1e308, 1.0], [1.0, 1.0]]), y)
    X = np.array([[1e308, 0.0], [0.0, 1e308], [1.0, 1.0]])
    from fastnb._count_table import wants_table

    if sparse and wants_table(2, 2, 4):
        # (FASTNB_TEST_SPARSE_TABLE=1) the sparse count table keeps each class's
        # total, which overflows here: it refuses the batch instead
        with pytest.raises(ValueError, match="too large in magnitude"):
            getattr(fastnb, name)().fit(as_input(X), y)
        return
    ours = getattr(fastnb, name)().fit(as_input(X), y)
    theirs = getattr(sklearn_nb, name)().fit(X, y)
    assert_array_equal(ours.feature_count_, theirs.feature_count_)
    assert_allclose(ours.feature_log_prob_, theirs.feature_log_prob_, rtol=1e-12)


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


# -- CategoricalNB: its own table (X holds category values of any kind) -------------
def categorical_data(n=60):
    """Object X: a string column, integer codes, negative ints; labels 0..2."""
    y = np.arange(n) % 3
    X = np.empty((n, 3), dtype=object)
    X[:, 0] = np.array(["red", "green", "blue"], dtype=object)[(np.arange(n) + y) % 3]
    X[:, 1] = (np.arange(n) * 7 + y) % 5
    X[:, 2] = -((np.arange(n) + 2 * y) % 4)
    return X, y


def _frame(X):
    pd = pytest.importorskip("pandas")
    return pd.DataFrame(X, columns=["colour", "size", "shift"])


def _codes(X):
    """X with its negative column: codes for a min_categories model."""
    return X[:, 1:].astype(np.int64)


def _categorical_cases():
    cases = []

    def add(case_id, call, error, match):
        cases.append(pytest.param(call, error, match, id=case_id))

    E, T = (ValueError,), (TypeError,)
    for method in ("fit", "partial_fit"):
        def m(model, method=method):
            return getattr(model, method)

        add(f"{method}-X-1d", lambda md, X, y, m=m: m(md)(X[:, 0], y), E,
            "Expected 2D array")
        add(f"{method}-X-3d", lambda md, X, y, m=m: m(md)(X[:, :, None], y), E, "dim 3")
        add(f"{method}-X-scalar", lambda md, X, y, m=m: m(md)("red", y), E, "scalar")
        add(f"{method}-X-no-rows", lambda md, X, y, m=m: m(md)(X[:0], y[:0]), E,
            "0 sample")
        add(f"{method}-X-no-features", lambda md, X, y, m=m: m(md)(X[:, :0], y), E,
            "0 feature")
        add(f"{method}-X-unhashable", lambda md, X, y, m=m: m(md)(
            _put_at(X, 1, [1, 2]), y), T, "column 1 holds an unhashable value")
        add(f"{method}-X-unhashable-named", lambda md, X, y, m=m: m(md)(
            _frame(_put_at(X, 2, {"a": 1})), y), T, r"column 2 \('shift'\) .*unhashable")
        add(f"{method}-X-ragged", lambda md, X, y, m=m: m(md)(
            [list(r) for r in X[:-1]] + [list(X[-1])[:-1]], y), E,
            "inhomogeneous|sequence")
        add(f"{method}-X-complex", lambda md, X, y, m=m: m(md)(
            _codes(X) + 1j, y), E, "Complex")
        add(f"{method}-X-sparse", lambda md, X, y, m=m: m(md)(
            _sparse(_codes(X)), y), T, "sparse")
        add(f"{method}-y-short", lambda md, X, y, m=m: m(md)(X, y[:-1]), E, "inconsistent")
        add(f"{method}-y-2d", lambda md, X, y, m=m: m(md)(X, np.c_[y, y]), E, "1d array")
        add(f"{method}-y-nan", lambda md, X, y, m=m: m(md)(
            X, _put(y.astype(float), np.nan)), E, "NaN")
        _add_sample_weight_cases(add, method, m)
        add(f"{method}-alpha-negative", lambda md, X, y, m=m: m(md.set_params(alpha=-0.5))(
            X, y), E, "'alpha' parameter")
        add(f"{method}-alpha-nan", lambda md, X, y, m=m: m(md.set_params(alpha=np.nan))(
            X, y), E, "'alpha' parameter")
        add(f"{method}-alpha-string", lambda md, X, y, m=m: m(md.set_params(alpha="1"))(
            X, y), T, "'alpha' parameter")
        add(f"{method}-prior-wrong-length", lambda md, X, y, m=m: m(
            md.set_params(class_prior=[0.5, 0.5]))(X, y), E, "Number of priors")
        add(f"{method}-prior-negative", lambda md, X, y, m=m: m(
            md.set_params(class_prior=[1.2, -0.1, -0.1]))(X, y), E, "class_prior")
        add(f"{method}-prior-nan", lambda md, X, y, m=m: m(
            md.set_params(class_prior=[np.nan, 0.5, 0.5]))(X, y), E, "class_prior")
        add(f"{method}-min_categories-negative-code", lambda md, X, y, m=m: m(
            md.set_params(min_categories=3))(np.c_[_codes(X), _codes(X)[:, :1]], y), E,
            "feature 1 has the negative code -3")
        add(f"{method}-min_categories-string-value", lambda md, X, y, m=m: m(
            md.set_params(min_categories=3))(X, y), E, "min_categories is set")
    add("fit-X-inconsistent-features-in-lists", lambda md, X, y: md.fit(
        [["a", 1]] + [["b"]] * (len(y) - 1), y), E, "inhomogeneous|sequence")
    add("fit-y-none", lambda md, X, y: md.fit(X, None), E, "requires y")
    add("fit-y-continuous", lambda md, X, y: md.fit(X, y + 0.5), E, "continuous")
    add("fit-y-mixed-types", lambda md, X, y: md.fit(X, np.array(
        ["a", 1] * (len(y) // 2), dtype=object)), E, "Mix of label")
    add("fit-w-all-zero", lambda md, X, y: md.fit(X, y, sample_weight=np.zeros(len(y))),
        E, "sum of sample_weight is zero")
    add("fit-min_categories-float", lambda md, X, y: md.set_params(
        min_categories=2.5).fit(_codes(X) ** 2, y), E, "min_categories")
    add("fit-min_categories-wrong-shape", lambda md, X, y: md.set_params(
        min_categories=[3, 3, 3]).fit(_codes(X) ** 2, y), E, "min_categories")
    add("fit-min_categories-float-array", lambda md, X, y: md.set_params(
        min_categories=[3.0, 3.0]).fit(_codes(X) ** 2, y), E, "integral type")
    add("fit-hash_buckets-zero", lambda md, X, y: md.set_params(hash_buckets=0).fit(X, y),
        E, "hash_buckets")
    add("fit-hash_buckets-and-min_categories", lambda md, X, y: md.set_params(
        hash_buckets=8, min_categories=3).fit(X, y), E, "set only one")
    add("fit-force_alpha-string", lambda md, X, y: md.set_params(
        force_alpha="yes").fit(X, y), T, "force_alpha")
    add("fit-n_threads-zero", lambda md, X, y: md.set_params(n_threads=0).fit(X, y), E,
        "n_threads")
    add("fit-n_threads-float", lambda md, X, y: md.set_params(n_threads=1.5).fit(X, y), T,
        "n_threads")
    add("partial_fit-unknown-label", lambda md, X, y: md.partial_fit(X, y + 10), E,
        r"label\(s\)")
    add("partial_fit-features", lambda md, X, y: md.partial_fit(X[:, :-1], y), E,
        "features")
    add("partial_fit-unhashable-late-row", lambda md, X, y: md.partial_fit(
        _put_at(X, 0, set(), row=-1), y), T, "column 0 holds an unhashable value")
    add("predict-features", lambda md, X, y: md.predict(X[:, :-1]), E, "features, but")
    add("predict-1d", lambda md, X, y: md.predict(X[0]), E, "Reshape your data")
    add("predict-empty", lambda md, X, y: md.predict(X[:0]), E, "0 sample")
    add("predict_proba-unhashable", lambda md, X, y: md.predict_proba(
        _put_at(X, 2, [0])), T, "column 2 holds an unhashable value")
    add("predict_log_proba-complex", lambda md, X, y: md.predict_log_proba(
        _codes(X).astype(complex).repeat([2, 1], axis=1)), E, "Complex")
    add("predict_joint_log_proba-sparse", lambda md, X, y: md.predict_joint_log_proba(
        _sparse(np.c_[_codes(X), _codes(X)[:, :1]])), T, "sparse")
    add("score-y-short", lambda md, X, y: md.score(X, y[:-1]), E,
        "shape|inconsistent|broadcast")
    add("set_params-unknown", lambda md, X, y: md.set_params(nonsense=1), E,
        "Invalid parameter")
    return cases


def _put_at(X, column, value, row=3):
    X = np.array(X, dtype=object, copy=True)
    X[row, column] = value
    return X


def _sparse(X):
    sparse = pytest.importorskip("scipy.sparse")
    return sparse.csr_matrix(X)


CATEGORICAL_CASES = _categorical_cases()


def test_the_categorical_table_has_at_least_40_bad_inputs():
    assert len(CATEGORICAL_CASES) >= 40


@pytest.mark.parametrize("call, errors, match", CATEGORICAL_CASES)
def test_categorical_bad_input_raises_clearly_and_leaves_model_unchanged(
        call, errors, match):
    X, y = categorical_data()
    model = fastnb.CategoricalNB().partial_fit(X, y, classes=np.unique(y))
    params = model.get_params()
    before = pickle.dumps({k: v for k, v in vars(model).items() if k not in params},
                          protocol=5)
    with pytest.raises(errors, match=match):
        call(model, X, y)
    # The fitted state, byte for byte (set_params cases change a parameter on
    # purpose, so parameters are left out).
    after = {k: v for k, v in vars(model).items() if k not in params}
    assert pickle.dumps(after, protocol=5) == before
    model.set_params(**params)
    assert_array_equal(model.predict(X), fastnb.CategoricalNB().fit(X, y).predict(X))


def test_messages_show_plain_values_not_numpy_reprs(rng):
    """Labels, columns and categories read from NumPy arrays are shown as the
    Python values they hold: 1 and 'a', not np.int64(1) and np.str_('a')."""
    from fastnb._validation import plain

    assert plain([np.int64(6), (np.str_("a"), np.float32(0.5))]) == [6, ("a", 0.5)]
    X = rng.random((6, 3)) - 5
    y = np.array([1, 2, 3, 1, 2, 3])
    spec = [("g", fastnb.GaussianNB(), [0]), ("m", fastnb.MultinomialNB(), [1, 2])]
    with pytest.raises(ValueError) as info:
        fastnb.ColumnwiseNB(spec).fit(X, y)
    assert "(columns [1, 2])" in str(info.value)
    codes = np.array([[np.str_("a")], [np.str_("b")]], dtype=object)
    with pytest.raises(ValueError) as info:
        fastnb.CategoricalNB(min_categories=3).fit(codes, [0, 1])
    assert "the value 'a'" in str(info.value)
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"x": rng.random(6), "name": list("abcabc")})
    with pytest.raises(ValueError) as info:
        fastnb.ColumnwiseNB([("g", fastnb.GaussianNB(), ["x", "nope"])]).fit(frame, y)
    assert "['x', 'name']" in str(info.value) and "np." not in str(info.value)


@pytest.mark.parametrize("name", ["GaussianNB", "MultinomialNB", "BernoulliNB",
                                  "ComplementNB"])
def test_numbers_as_strings_are_rejected_as_scikit_learn_rejects_them(name):
    """An array of strings or bytes ("1.5") is not numeric X, in fit, partial_fit
    and predict, as in scikit-learn; an object array of them is converted, as
    scikit-learn converts it."""
    sklearn_nb = pytest.importorskip("sklearn.naive_bayes")
    X = np.array([[1.5, 2.0], [0.5, 3.0], [2.5, 1.0]])
    y = [0, 1, 0]
    for bad in (X.astype(str), X.astype(str).astype(bytes), X.astype(str).tolist()):
        for call in (lambda m: m.fit(bad, y), lambda m: m.partial_fit(bad, y, [0, 1]),
                     lambda m: m.fit(X, y).predict(bad)):
            with pytest.raises(ValueError, match="not compatible with arrays of "
                               "bytes/strings") as ours:
                call(getattr(fastnb, name)())
            assert name in str(ours.value)
            with pytest.raises(ValueError, match="bytes/strings"):
                call(getattr(sklearn_nb, name)())
    objects = X.astype(str).astype(object)
    assert_allclose(getattr(fastnb, name)().fit(objects, y).predict_proba(X),
                    getattr(sklearn_nb, name)().fit(objects, y).predict_proba(X),
                    rtol=1e-9)


@pytest.mark.parametrize("name, params, error, match", [
    # a str is a sequence: it was taken for an alpha array of length 0
    ("MultinomialNB", {"alpha": "1"}, TypeError, "number|float"),
    ("ComplementNB", {"alpha": "1"}, TypeError, "number|float"),
    ("BernoulliNB", {"alpha": b"1"}, TypeError, "number|float"),
    ("MultinomialNB", {"alpha": np.array("1")}, TypeError, "number|float"),
    ("MultinomialNB", {"alpha": ["a", "b"]}, ValueError, "array-like of numbers"),
    ("MultinomialNB", {"alpha": [[1.0, 2.0]]}, ValueError, "1d array-like of numbers"),
    ("MultinomialNB", {"alpha": [1.0, None]}, ValueError, "array-like of numbers"),
    ("MultinomialNB", {"alpha": [1.0, [2.0]]}, ValueError, "array-like of numbers"),
    ("CategoricalNB", {"alpha": "1"}, TypeError, "float"),
    ("GaussianNB", {"var_smoothing": "1e-9"}, TypeError, "'var_smoothing'.*float"),
    ("BernoulliNB", {"binarize": "0"}, TypeError, "'binarize'.*float"),
    ("GaussianNB", {"priors": "x"}, TypeError, "'priors'.*array-like"),
    ("GaussianNB", {"priors": ["a", "b"]}, ValueError, "Priors must be numbers"),
    ("MultinomialNB", {"class_prior": "x"}, TypeError, "'class_prior'.*array-like"),
    ("CategoricalNB", {"min_categories": "3"}, ValueError, "'min_categories'.*int"),
    ("CategoricalNB", {"min_categories": ["a", "b"]}, ValueError, "integral"),
    ("CategoricalNB", {"hash_buckets": "3"}, ValueError, "'hash_buckets'.*int"),
    ("ColumnwiseNB", {"priors": "x"}, TypeError, "'priors'.*array-like"),
])
def test_numeric_parameters_of_the_wrong_type_say_what_they_must_be(
        name, params, error, match):
    """Never a message about array lengths for a number given as a string."""
    X, y = np.array([[1.0, 0.0], [0.0, 2.0], [1.0, 1.0]]), [0, 1, 0]
    model = getattr(fastnb, name)(**params)
    with pytest.raises(error, match=match) as info:
        model.fit(X, y)
    assert "n_features" not in str(info.value) and "elements" not in str(info.value)
    with pytest.raises(error, match=match):
        model.partial_fit(X, y, classes=[0, 1])
