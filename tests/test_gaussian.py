"""GaussianNB against scikit-learn, the oracle, and against its own promises."""

import pickle
import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal

import fastnb
from fastnb import GaussianNB, NotFittedError

sklearn_nb = pytest.importorskip("sklearn.naive_bayes")

ATTRIBUTES = ("theta_", "var_", "class_count_", "class_prior_")


def make_data(rng, n=600, d=7, k=3, dtype=np.float64, offset=0.0):
    y = rng.integers(0, k, n)
    centres = rng.normal(0, 3, (k, d))
    X = centres[y] + rng.normal(0, 1 + np.arange(d) / 3, (n, d)) + offset
    return X.astype(dtype), y


def assert_matches_sklearn(ours, theirs, X, rtol):
    for name in ATTRIBUTES:
        assert_allclose(getattr(ours, name), getattr(theirs, name), rtol=rtol, err_msg=name)
    assert_allclose(ours.epsilon_, theirs.epsilon_, rtol=rtol)
    assert_array_equal(ours.classes_, theirs.classes_)
    assert_allclose(
        ours.predict_joint_log_proba(X), theirs.predict_joint_log_proba(X), rtol=rtol
    )
    assert_allclose(ours.predict_log_proba(X), theirs.predict_log_proba(X),
                    rtol=rtol, atol=1e-12)
    assert_allclose(ours.predict_proba(X), theirs.predict_proba(X), rtol=rtol, atol=1e-13)
    assert_array_equal(ours.predict(X), theirs.predict(X))


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("n_threads", [1, 2])
@pytest.mark.parametrize("weighted", [False, True])
def test_fit_matches_sklearn(rng, dtype, n_threads, weighted):
    # Large enough that the fit is chunked and runs on several threads.
    X, y = make_data(rng, n=20000, d=13, k=4, dtype=dtype)
    weights = rng.uniform(0.1, 3.0, X.shape[0]) if weighted else None
    ours = GaussianNB(n_threads=n_threads).fit(X, y, sample_weight=weights)
    # sklearn keeps float32 statistics for float32 input; compare against its float64
    # fit of the same values, which is what fastnb computes.
    theirs = sklearn_nb.GaussianNB().fit(X.astype(np.float64), y, sample_weight=weights)
    assert_matches_sklearn(ours, theirs, X.astype(np.float64), rtol=1e-10)
    # float32 X is read as float32 at predict: same answer as its float64 copy.
    assert_allclose(ours.predict_joint_log_proba(X),
                    theirs.predict_joint_log_proba(X.astype(np.float64)), rtol=1e-10)


def test_float32_close_to_sklearn_float32(rng):
    X, y = make_data(rng, dtype=np.float32)
    ours = GaussianNB().fit(X, y)
    theirs = sklearn_nb.GaussianNB().fit(X, y)
    assert theirs.theta_.dtype == np.float32
    for name in ATTRIBUTES:
        assert_allclose(getattr(ours, name), getattr(theirs, name), rtol=2e-5)
    assert_array_equal(ours.predict(X), theirs.predict(X))


def test_priors_and_var_smoothing_match_sklearn(rng):
    X, y = make_data(rng, k=3)
    params = dict(priors=[0.2, 0.5, 0.3], var_smoothing=1e-3)
    ours = GaussianNB(**params).fit(X, y)
    theirs = sklearn_nb.GaussianNB(**params).fit(X, y)
    assert_matches_sklearn(ours, theirs, X, rtol=1e-10)


@pytest.mark.parametrize(
    "labels",
    [
        np.array(["cat", "dog", "emu"]),
        np.array([-5, 7, 2**40]),
        np.array([2**62, -(2**62), 0]),
        np.array([3.0, -1.0, 10.0]),
        np.array([b"x", b"y", b"z"]),
        np.array(["b", "a", "c"], dtype=object),
        np.array([10, 200, 255], dtype=np.uint8),
    ],
    ids=["str", "neg-int", "huge-int", "float", "bytes", "object", "uint8"],
)
def test_any_label_kind(rng, labels):
    X, codes = make_data(rng, k=len(labels))
    y = labels[codes]
    ours = GaussianNB().fit(X, y)
    # The oracle sees the same classes as sorted integer codes (it rejects bytes).
    expected_classes = np.unique(y)
    theirs = sklearn_nb.GaussianNB().fit(X, np.searchsorted(expected_classes, y))
    assert_array_equal(ours.classes_, expected_classes)
    assert ours.classes_.dtype == y.dtype
    assert_array_equal(ours.predict(X), expected_classes[theirs.predict(X)])
    assert_allclose(ours.theta_, theirs.theta_, rtol=1e-12)


def test_bool_labels(rng):
    X, codes = make_data(rng, k=2)
    y = codes.astype(bool)
    ours = GaussianNB().fit(X, y)
    assert_array_equal(ours.classes_, [False, True])
    assert ours.predict(X).dtype == bool
    assert_array_equal(ours.predict(X), sklearn_nb.GaussianNB().fit(X, y).predict(X))


def test_variance_is_exact_far_from_zero(rng):
    # E[x^2] - E[x]^2 loses every digit here; centred moments lose none.
    n = 50_000
    X = 1e8 + rng.standard_normal((n, 3))
    y = rng.integers(0, 2, n)
    model = GaussianNB(var_smoothing=0.0).fit(X, y)
    for c in range(2):
        expected = np.var(X[y == c], axis=0)  # NumPy's two-pass variance
        assert_allclose(model.var_[c], expected, rtol=1e-9)
        assert_allclose(model.theta_[c], X[y == c].mean(axis=0), rtol=1e-14)


@given(
    n_batches=st.integers(1, 5),
    seed=st.integers(0, 2**32 - 1),
    weighted=st.booleans(),
)
def test_partial_fit_over_any_split_equals_fit(n_batches, seed, weighted):
    rng = np.random.default_rng(seed)
    X, y = make_data(rng, n=int(rng.integers(5, 300)), d=4, k=3, offset=1e4)
    y[:3] = [0, 1, 2]  # every class present, so fit and partial_fit know the same classes
    weights = rng.uniform(0, 2, X.shape[0]) if weighted else None
    full = GaussianNB().fit(X, y, sample_weight=weights)
    cuts = np.unique(rng.integers(1, X.shape[0], n_batches - 1))  # non-empty batches
    online = GaussianNB()
    for rows in np.split(np.arange(X.shape[0]), cuts):
        online.partial_fit(X[rows], y[rows], classes=[0, 1, 2],
                           sample_weight=None if weights is None else weights[rows])
    assert_allclose(online.class_count_, full.class_count_, rtol=1e-12)
    assert_allclose(online.theta_, full.theta_, rtol=1e-10, atol=1e-10)
    assert_allclose(online.var_, full.var_, rtol=1e-10)
    assert_allclose(online.epsilon_, full.epsilon_, rtol=1e-10)


def test_partial_fit_on_empty_batch_is_allowed_after_first_call(rng):
    X, y = make_data(rng, n=50)
    model = GaussianNB().partial_fit(X, y, classes=[0, 1, 2])
    with pytest.raises(ValueError, match="0 sample"):
        model.partial_fit(X[:0], y[:0])


def test_partial_fit_matches_sklearn_except_epsilon(rng):
    X, y = make_data(rng, n=400)
    ours, theirs = GaussianNB(), sklearn_nb.GaussianNB()
    for rows in np.array_split(np.arange(400), 4):
        ours.partial_fit(X[rows], y[rows], classes=[0, 1, 2])
        theirs.partial_fit(X[rows], y[rows], classes=[0, 1, 2])
    assert_allclose(ours.theta_, theirs.theta_, rtol=1e-10)
    assert_allclose(ours.class_count_, theirs.class_count_)
    # scikit-learn's epsilon_ comes from the last batch only (its issue #14054), and
    # each call subtracts the new batch's epsilon from variances that hold the old
    # one, so its variances drift by about var_smoothing * (change of epsilon).
    assert_allclose(ours.var_ - ours.epsilon_, theirs.var_ - theirs.epsilon_, rtol=1e-8)
    assert_allclose(ours.epsilon_, 1e-9 * np.var(X, axis=0).max(), rtol=1e-10)


@given(seed=st.integers(0, 2**32 - 1), dtype=st.sampled_from([np.float32, np.float64]))
def test_same_bits_for_any_thread_count(parallel_kernels, seed, dtype):
    rng = np.random.default_rng(seed)
    X, y = make_data(rng, n=int(rng.integers(10, 40000)), d=int(rng.integers(1, 20)),
                     k=int(rng.integers(2, 6)), dtype=dtype)
    with parallel_kernels():
        check_same_bits_for_any_thread_count(X, y)


def check_same_bits_for_any_thread_count(X, y):
    models = [GaussianNB(n_threads=t).fit(X, y) for t in (1, 2, 4)]
    for model in models[1:]:
        for name in ATTRIBUTES:
            assert_array_equal(getattr(model, name), getattr(models[0], name))
        assert model.epsilon_ == models[0].epsilon_
    outputs = [
        (m.predict(X), m.predict_joint_log_proba(X), m.predict_proba(X)) for m in models
    ]
    for out in outputs[1:]:
        for a, b in zip(out, outputs[0]):
            assert_array_equal(a, b)


def test_layouts_give_identical_results(rng):
    X, y = make_data(rng, n=3000)
    model = GaussianNB().fit(X, y)
    expected = model.predict_joint_log_proba(X)
    assert_array_equal(model.predict_joint_log_proba(np.asfortranarray(X)), expected)
    assert_array_equal(model.predict_joint_log_proba(X[::1].tolist()), expected)
    strided = np.repeat(X, 2, axis=0)[::2]
    assert_array_equal(model.predict_joint_log_proba(strided), expected)
    assert_array_equal(GaussianNB().fit(np.asfortranarray(X), y).theta_, model.theta_)


def test_integer_and_readonly_input(rng):
    X = rng.integers(-5, 5, (200, 4))
    y = rng.integers(0, 2, 200)
    X.setflags(write=False)
    ours = GaussianNB().fit(X, y)
    theirs = sklearn_nb.GaussianNB().fit(X, y)
    assert_allclose(ours.var_, theirs.var_, rtol=1e-12)
    assert_array_equal(ours.predict(X), theirs.predict(X))


def test_unseen_class_in_classes_gets_zero_prior(rng):
    X, y = make_data(rng, k=2)
    ours = GaussianNB().partial_fit(X, y, classes=[0, 1, 2])
    theirs = sklearn_nb.GaussianNB().partial_fit(X, y, classes=[0, 1, 2])
    assert_allclose(ours.class_prior_, theirs.class_prior_)
    assert_allclose(ours.var_, theirs.var_, rtol=1e-10)
    assert_allclose(ours.predict_proba(X), theirs.predict_proba(X), atol=1e-13)
    assert np.all(ours.predict(X) != 2)


def test_zero_weight_rows_are_ignored(rng):
    X, y = make_data(rng, n=300)
    weights = np.ones(300)
    weights[::3] = 0.0
    weighted = GaussianNB(var_smoothing=0).fit(X, y, sample_weight=weights)
    kept = GaussianNB(var_smoothing=0).fit(X[weights > 0], y[weights > 0])
    assert_allclose(weighted.theta_, kept.theta_, rtol=1e-12)
    assert_allclose(weighted.var_, kept.var_, rtol=1e-12)


def test_pandas_feature_names(rng):
    pd = pytest.importorskip("pandas")
    X, y = make_data(rng, d=3)
    frame = pd.DataFrame(X, columns=["a", "b", "c"])
    model = GaussianNB().fit(frame, pd.Series(y))
    assert_array_equal(model.feature_names_in_, ["a", "b", "c"])
    assert_array_equal(model.predict(frame), model.predict(X[:, :]))  # warns, same answer
    with pytest.raises(ValueError, match="feature names should match"):
        model.predict(frame[["c", "b", "a"]])
    with pytest.warns(UserWarning, match="does not have valid feature names"):
        model.predict(X)
    plain = GaussianNB().fit(X, y)
    assert not hasattr(plain, "feature_names_in_")
    with pytest.warns(UserWarning, match="fitted without feature names"):
        plain.predict(frame)


def test_score_with_weights(rng):
    X, y = make_data(rng)
    weights = rng.uniform(0, 1, X.shape[0])
    ours = GaussianNB().fit(X, y)
    theirs = sklearn_nb.GaussianNB().fit(X, y)
    assert ours.score(X, y) == pytest.approx(theirs.score(X, y))
    assert ours.score(X, y, weights) == pytest.approx(theirs.score(X, y, weights))


def test_pickle_round_trip_is_exact(rng):
    X, y = make_data(rng)
    model = GaussianNB().fit(X, y)
    clone = pickle.loads(pickle.dumps(model))
    assert_array_equal(clone.predict_joint_log_proba(X), model.predict_joint_log_proba(X))
    for name in ATTRIBUTES:
        assert_array_equal(getattr(clone, name), getattr(model, name))


def test_pickle_from_another_version_warns(rng):
    X, y = make_data(rng)
    state = GaussianNB().fit(X, y).__getstate__()
    state["_fastnb_version"] = "0.0.1"
    restored = GaussianNB.__new__(GaussianNB)
    with pytest.warns(UserWarning, match="from fastnb 0.0.1"):
        restored.__setstate__(state)
    assert_array_equal(restored.predict(X), GaussianNB().fit(X, y).predict(X))


def test_works_inside_sklearn_tools(rng):
    from sklearn.base import clone
    from sklearn.model_selection import GridSearchCV, cross_val_score
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    X, y = make_data(rng)
    pipeline = make_pipeline(StandardScaler(), GaussianNB())
    assert pipeline.fit(X, y).score(X, y) > 0.8
    search = GridSearchCV(GaussianNB(), {"var_smoothing": [1e-9, 1e-3, 1.0]}, cv=3)
    search.fit(X, y)
    assert search.best_params_["var_smoothing"] in (1e-9, 1e-3, 1.0)
    scores = cross_val_score(GaussianNB(), X, y, cv=3)
    expected = cross_val_score(sklearn_nb.GaussianNB(), X, y, cv=3)
    assert_allclose(scores, expected)
    cloned = clone(GaussianNB(var_smoothing=0.5, n_threads=1))
    assert cloned.get_params() == {"priors": None, "var_smoothing": 0.5, "n_threads": 1,
                                   "grow_classes": False, "half_life": None}
    assert repr(cloned) == "GaussianNB(n_threads=1, var_smoothing=0.5)"


def test_predict_memory_is_output_plus_model(rng):
    import tracemalloc

    X, y = make_data(rng, n=100_000, d=100, k=5)
    model = GaussianNB().fit(X, y)
    model.predict(X[:10])
    for method, output_bytes in [
        (model.predict, 100_000 * 8),  # int64 labels, written over their indices
        (model.predict_proba, 100_000 * 5 * 8),
        (model.predict_joint_log_proba, 100_000 * 5 * 8),
    ]:
        tracemalloc.start()
        method(X)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        assert peak <= output_bytes + 64 * 1024, (method.__name__, peak)
    for labels in (model.classes_.astype(np.float64), model.classes_.astype(np.uint64)):
        model.classes_ = labels
        tracemalloc.start()
        predicted = model.predict(X)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        assert predicted.dtype == labels.dtype
        assert_array_equal(predicted, labels[model.predict_joint_log_proba(X).argmax(1)])
        assert peak <= 100_000 * 8 + 64 * 1024


# -- bad input ---------------------------------------------------------------------
BAD_FIT = [
    (np.zeros(5), np.zeros(5), ValueError, "Expected 2D array, got 1D"),
    (np.zeros((2, 2, 2)), np.zeros(2), ValueError, "dim 3"),
    (np.zeros((0, 3)), np.zeros(0), ValueError, "0 sample"),
    (np.zeros((3, 0)), np.zeros(3), ValueError, "0 feature"),
    (np.array([[1.0, np.inf], [0, 1]]), [0, 1], ValueError, "infinity"),
    (np.array([["a", "b"], ["c", "d"]]), [0, 1], ValueError, "numeric"),
    (np.array([[1 + 2j, 0], [0, 1]]), [0, 1], ValueError, "Complex"),
    (np.ones((3, 2)), [0, 1], ValueError, "inconsistent numbers of samples"),
    (np.ones((3, 2)), None, ValueError, "requires y to be passed"),
    (np.ones((3, 2)), [0.5, 1.5, 2.0], ValueError, "Unknown label type: continuous"),
    (np.ones((3, 2)), [0, np.nan, 1], ValueError, "y contains NaN"),
    (np.ones((3, 2)), np.zeros((3, 2)), ValueError, "1d array"),
    (np.array([[1e300], [-1e300], [1e300]]), [0, 0, 1], ValueError, "too large"),
]


@pytest.mark.parametrize("X, y, error, match", BAD_FIT)
def test_bad_fit_input(X, y, error, match):
    with pytest.raises(error, match=match):
        GaussianNB().fit(X, y)


@pytest.mark.parametrize(
    "params, match",
    [
        ({"priors": [0.5, 0.6]}, "sum of the priors"),
        ({"priors": [0.5, 0.25, 0.25]}, "Number of priors"),
        ({"priors": [1.5, -0.5]}, "non-negative"),
        ({"var_smoothing": -1.0}, "var_smoothing"),
        ({"var_smoothing": "x"}, "var_smoothing"),
        ({"n_threads": 0}, "n_threads"),
        ({"n_threads": 1.5}, "n_threads"),
    ],
)
def test_bad_parameters(params, match):
    X = np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 2.0], [3.0, 1.0]])
    with pytest.raises((ValueError, TypeError), match=match):
        GaussianNB(**params).fit(X, [0, 0, 1, 1])


@pytest.mark.parametrize(
    "weights, match",
    [
        ([1.0, -1.0, 1.0, 1.0], "Negative"),
        ([1.0, np.nan, 1.0, 1.0], "NaN or infinity"),
        ([1.0, np.inf, 1.0, 1.0], "NaN or infinity"),
        ([1.0, 1.0], "sample_weight.shape"),
        ([0.0, 0.0, 0.0, 0.0], "sum of sample_weight is zero"),
    ],
)
def test_bad_sample_weight(weights, match):
    X = np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 2.0], [3.0, 1.0]])
    with pytest.raises(ValueError, match=match):
        GaussianNB().fit(X, [0, 0, 1, 1], sample_weight=weights)


def test_predict_errors(rng):
    X, y = make_data(rng, d=3)
    with pytest.raises(NotFittedError, match="not fitted"):
        GaussianNB().predict(X)
    model = GaussianNB().fit(X, y)
    with pytest.raises(ValueError, match="X has 2 features, but GaussianNB is expecting 3"):
        model.predict(X[:, :2])
    with pytest.raises(ValueError, match="Reshape your data"):
        model.predict(X[0])
    bad = X[:5].copy()
    bad[2, 1] = np.inf
    for method in (model.predict, model.predict_proba, model.predict_log_proba):
        with pytest.raises(ValueError, match="infinity"):
            method(bad)
    with pytest.raises(TypeError, match="sparse"):
        model.predict(pytest.importorskip("scipy.sparse").csr_matrix(X))


def snapshot(model):
    return pickle.dumps(model.__dict__)


@pytest.mark.parametrize(
    "make_call, match",
    [
        (lambda m, X, y: m.partial_fit(X[:, :2], y), "features"),
        (lambda m, X, y: m.partial_fit(X, np.full(len(y), 7)), r"label\(s\) \[7\]"),
        (lambda m, X, y: m.partial_fit(np.where(X > 1, np.inf, X), y), "infinity"),
        (lambda m, X, y: m.partial_fit(X, y, sample_weight=-np.ones(len(y))), "Negative"),
        (lambda m, X, y: m.partial_fit(X, y[:-1]), "inconsistent"),
        (lambda m, X, y: m.partial_fit(np.sign(X - 0.5) * 1e300, y), "too large"),
    ],
)
def test_failed_partial_fit_leaves_model_unchanged(rng, make_call, match):
    X, y = make_data(rng, n=100)
    model = GaussianNB().partial_fit(X, y, classes=[0, 1, 2])
    before = snapshot(model)
    with pytest.raises(ValueError, match=match):
        make_call(model, X, y)
    assert snapshot(model) == before


def test_partial_fit_needs_classes_first():
    with pytest.raises(ValueError, match="classes must be passed"):
        GaussianNB().partial_fit(np.ones((2, 2)), [0, 1])


def test_column_vector_y_warns(rng):
    X, y = make_data(rng)
    with pytest.warns(fastnb.DataConversionWarning, match="column-vector y"):
        model = GaussianNB().fit(X, y[:, None])
    assert_array_equal(model.predict(X), GaussianNB().fit(X, y).predict(X))


def test_all_classes_impossible_gives_nan_not_a_crash():
    model = GaussianNB(priors=[1.0, 0.0]).fit([[0.0], [1.0], [5.0], [6.0]], [0, 0, 1, 1])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        proba = model.predict_proba([[0.5]])
    assert_allclose(proba, [[1.0, 0.0]])


def test_not_fitted_error_is_sklearns_too():
    from sklearn.exceptions import NotFittedError as SklearnNotFittedError

    with pytest.raises(SklearnNotFittedError):
        GaussianNB().predict_proba(np.zeros((1, 2)))
    with pytest.raises(NotFittedError):
        GaussianNB().predict_proba(np.zeros((1, 2)))


# -- missing values (NaN) ----------------------------------------------------------
def _with_missing(rng, X, fraction=0.2):
    X = X.copy()
    X[rng.random(X.shape) < fraction] = np.nan
    return X


def test_missing_values_fit_matches_dropping_them_by_hand(rng):
    X, y = make_data(rng, n=3000, d=5, k=3)
    X = _with_missing(rng, X)
    model = GaussianNB(var_smoothing=1e-3).fit(X, y)
    observed_var = [np.var(X[~np.isnan(X[:, j]), j]) for j in range(5)]
    epsilon = 1e-3 * max(observed_var)
    assert model.epsilon_ == pytest.approx(epsilon, rel=1e-12)
    for c in range(3):
        for j in range(5):
            values = X[(y == c) & ~np.isnan(X[:, j]), j]
            assert model.theta_[c, j] == pytest.approx(values.mean(), rel=1e-12)
            assert model.var_[c, j] == pytest.approx(values.var() + epsilon, rel=1e-12)
    # Rows with missing values still count for their class.
    assert_array_equal(model.class_count_, np.bincount(y))


def test_missing_values_predict_marginalises_the_feature(rng):
    X, y = make_data(rng, n=2000, d=4, k=3)
    model = GaussianNB().fit(X, y)
    X_test = _with_missing(rng, X[:200], fraction=0.4)
    X_test[0] = np.nan  # a row with nothing observed: the prior alone
    observed = ~np.isnan(X_test)
    terms = -0.5 * np.log(2 * np.pi * model.var_)[None] - (
        (X_test[:, None, :] - model.theta_[None]) ** 2 / (2 * model.var_[None])
    )
    expected = np.log(model.class_prior_) + np.where(observed[:, None, :], terms, 0).sum(-1)
    assert_allclose(model.predict_joint_log_proba(X_test), expected, rtol=1e-12)
    assert_allclose(model.predict_joint_log_proba(X_test[:1]),
                    np.log(model.class_prior_)[None], rtol=1e-15)
    assert_array_equal(model.predict(X_test), model.classes_[expected.argmax(1)])
    assert_allclose(model.predict_proba(X_test).sum(1), 1.0)


@given(seed=st.integers(0, 2**32 - 1), n_batches=st.integers(1, 4))
def test_missing_values_partial_fit_and_threads(parallel_kernels, seed, n_batches):
    rng = np.random.default_rng(seed)
    X, y = make_data(rng, n=int(rng.integers(30, 30000)), d=3, k=2)
    y[:2] = [0, 1]
    X = _with_missing(rng, X, fraction=float(rng.uniform(0, 0.5)))
    X[:2] = 1.0  # every feature observed at least once per class
    with parallel_kernels():
        full = [GaussianNB(n_threads=t).fit(X, y) for t in (1, 2, 4)]
        probas = [model.predict_proba(X) for model in full]
    for model, proba in zip(full[1:], probas[1:]):
        assert_array_equal(model.var_, full[0].var_)
        assert_array_equal(proba, probas[0])
    online = GaussianNB()
    cuts = np.unique(rng.integers(1, X.shape[0], n_batches - 1))
    for rows in np.split(np.arange(X.shape[0]), cuts):
        online.partial_fit(X[rows], y[rows], classes=[0, 1])
    assert_allclose(online.theta_, full[0].theta_, rtol=1e-10, atol=1e-12)
    assert_allclose(online.var_, full[0].var_, rtol=1e-10)


def test_missing_values_weighted_fit(rng):
    X, y = make_data(rng, n=500, d=3, k=2)
    X = _with_missing(rng, X)
    weights = rng.integers(0, 4, 500).astype(float)
    weighted = GaussianNB(var_smoothing=0).fit(X, y, sample_weight=weights)
    repeated = GaussianNB(var_smoothing=0).fit(np.repeat(X, weights.astype(int), axis=0),
                                               np.repeat(y, weights.astype(int)))
    assert_allclose(weighted.theta_, repeated.theta_, rtol=1e-12)
    assert_allclose(weighted.var_, repeated.var_, rtol=1e-10)


def test_nan_is_declared_in_the_tags():
    from sklearn.utils import get_tags

    assert get_tags(GaussianNB()).input_tags.allow_nan


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("d", [1, 5, 40])
def test_strided_X_gives_the_same_bits_as_c_ordered(rng, parallel_kernels, dtype, d):
    """Arrays that are not C-ordered (a DataFrame's columns) are read where they
    live: the same model and predictions as from a C-ordered copy."""
    X = (rng.normal(size=(3000, d)) * 10 + 1e3).astype(dtype)
    X[rng.random(X.shape) < 0.05] = np.nan
    y = rng.integers(0, 3, 3000)
    weights = rng.uniform(0.5, 2, 3000)
    wide = np.zeros((3000, 2 * d), dtype=dtype, order="F")
    wide[:, ::2] = X
    layouts = [np.asfortranarray(X), wide[:, ::2], np.ascontiguousarray(X[:, ::-1])[:, ::-1]]
    with parallel_kernels():
        for n_threads in (1, 2):
            expected = GaussianNB(n_threads=n_threads).fit(X, y, sample_weight=weights)
            for strided in layouts:
                assert_array_equal(strided, X)
                model = GaussianNB(n_threads=n_threads).fit(strided, y,
                                                             sample_weight=weights)
                for name in ("theta_", "var_", "class_count_", "epsilon_"):
                    assert_array_equal(getattr(model, name), getattr(expected, name))
                for method in ("predict", "predict_joint_log_proba"):
                    assert_array_equal(getattr(expected, method)(strided),
                                       getattr(expected, method)(X))
