"""CategoricalNB's kernels: the in-place small-call path, failed allocations, and the
public cimport API computing what the estimator computes."""

import ctypes
import pickle

import numpy as np
import pytest
from numpy.testing import assert_array_equal

import fastnb.cython_kernels
from fastnb import CategoricalNB
from fastnb._categorical import _estimator, _kernels
from fastnb._threads import PARALLEL_MIN_WORK


def _codes(rng, n, n_categories=(3, 5, 2, 7), k=3):
    X = np.column_stack([rng.integers(0, m, n) for m in n_categories])
    return X, rng.integers(0, k, n)


def _fitted_state(model):
    params = model.get_params()
    return pickle.dumps({k: v for k, v in vars(model).items() if k not in params})


def _assert_same_fit(a, b):
    assert_array_equal(a.class_count_, b.class_count_)
    assert_array_equal(a.class_log_prior_, b.class_log_prior_)
    assert_array_equal(a.n_categories_, b.n_categories_)
    for name in ("categories_", "category_count_", "feature_log_prob_"):
        for x, y in zip(getattr(a, name), getattr(b, name)):
            assert_array_equal(x, y, err_msg=name)


@pytest.fixture
def all_parallel(monkeypatch):
    """The parallel paths of every kernel, however small the data."""
    for kind in PARALLEL_MIN_WORK:
        monkeypatch.setitem(PARALLEL_MIN_WORK, kind, 0)


# -- the small-call path -----------------------------------------------------------------
@pytest.mark.parametrize("dtype", [np.int64, np.uint8, np.float32])
def test_small_partial_fit_adds_in_place_with_the_bits_of_the_general_path(rng, dtype):
    """A batch of codes inside the fitted categories is counted into the fitted
    arrays (the cost follows the batch); the same batch keyed as Python objects
    takes the general path: the same bits, weights and NaN included."""
    X, y = _codes(rng, 400)
    X = X.astype(dtype)
    if np.dtype(dtype).kind == "f":
        X[::7, 1] = np.nan
    w = rng.uniform(0.1, 3.0, 400)
    fast, general = CategoricalNB(), CategoricalNB()
    for model in (fast, general):
        model.partial_fit(X[:100], y[:100], classes=[0, 1, 2], sample_weight=w[:100])
    counts = fast._count_table.category_count
    views = fast.category_count_
    for start in range(100, 400, 60):
        rows = slice(start, start + 60)
        fast.partial_fit(X[rows], y[rows], sample_weight=w[rows])
        general.partial_fit(X[rows].astype(object), y[rows], sample_weight=w[rows])
        _assert_same_fit(fast, general)
        assert_array_equal(fast.predict_joint_log_proba(X), general.predict_joint_log_proba(X))
    assert fast._count_table.category_count is counts  # counted where it was
    assert all(a is b for a, b in zip(fast.category_count_, views))
    whole = CategoricalNB().fit(X, y, sample_weight=w)
    for a, b in zip(fast.category_count_, whole.category_count_):
        np.testing.assert_allclose(a, b, rtol=1e-13)


@pytest.mark.parametrize("whole_logs", [None, 150])
def test_small_batches_keep_their_cells_logs_through_the_other_paths(rng, monkeypatch,
                                                                     whole_logs):
    """The small-call path keeps log(count + alpha) of every cell and takes again
    only those of the cells a batch counted into (refresh_batch_cells), from its
    table of the logs of whole counts below WHOLE_LOGS (150: counts on both
    sides of it) or by a log call; a batch with a new category (a new table),
    one keyed as objects (counts added by the general path), and a change of
    alpha leave it the same bits as a twin that always takes the general path."""
    if whole_logs is not None:
        monkeypatch.setattr(_estimator, "WHOLE_LOGS", whole_logs)
    X, y = _codes(rng, 4000)
    fast, general = CategoricalNB(), CategoricalNB()
    for model in (fast, general):
        model.fit(X[:2000], y[:2000])   # counts of ~100-250 a cell: beyond the table
    batches = [(X[i:i + 50], y[i:i + 50]) for i in range(2000, 4000, 50)]
    for step, (Xb, yb) in enumerate(batches):
        if step == 10:
            Xb = Xb.copy()
            Xb[3, 0] = 3   # a new category of feature 0: the model is rebuilt
        if step == 25:
            for model in (fast, general):
                model.set_params(alpha=0.5)
        fast.partial_fit(Xb.astype(object) if step == 18 else Xb, yb)
        general.partial_fit(Xb.astype(object), yb)
        _assert_same_fit(fast, general)
        assert_array_equal(fast.predict_joint_log_proba(X[:300]),
                           general.predict_joint_log_proba(X[:300]))
    assert fast._count_table.small_batches is not None
    assert general._count_table.small_batches is None


def _count_general_calls(monkeypatch):
    """A function of a model: how many of its fit or partial_fit calls took _fit
    since (not the one-call path of SmallBatches.add)."""
    calls = []
    general_fit = CategoricalNB._fit

    def counted(self, *args, **kwargs):
        calls.append(id(self))
        return general_fit(self, *args, **kwargs)

    monkeypatch.setattr(CategoricalNB, "_fit", counted)
    return lambda model: calls.count(id(model))


@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.float64, np.float32])
@pytest.mark.parametrize("alpha", [1.0, 0.1])
def test_one_call_batches_have_the_bits_of_the_general_path(rng, monkeypatch, dtype,
                                                            alpha):
    """After a first small batch, the next ones are counted by one kernel call
    (SmallBatches.add): codes of four dtypes (NaN missing), labels searched in the
    classes, totals kept by increments (alpha=1.0) or summed again (0.1), class log
    prior in place. Interleaved with batches it does not take (weighted, a list,
    a new category, a pickle round trip, an unknown label), every batch leaves the
    model the same bits as a twin fed the same batches as objects."""
    X, y = _codes(rng, 3000)
    X = X.astype(dtype)
    if np.dtype(dtype).kind == "f":
        X[::11, 2] = np.nan
    fast, general = CategoricalNB(alpha=alpha), CategoricalNB(alpha=alpha)
    for model in (fast, general):
        model.fit(X[:1000], y[:1000])
    calls = _count_general_calls(monkeypatch)
    classes = np.array([0, 1, 2])
    n_one_call = 0
    for step, start in enumerate(range(1000, 3000, 40)):
        Xb, yb = X[start:start + 40], y[start:start + 40]
        weights, given = None, (classes, None, [0, 1, 2])[step % 3]
        if step == 8:
            weights = np.full(40, 2.0)        # whole weights: the state stays whole
        if step == 12:
            Xb = Xb.tolist()                  # no buffer: the general path
        if step == 16:
            Xb = Xb.copy()
            Xb[0, 1] = 6                      # a new category: a new model table
        if step == 20:
            fast = pickle.loads(pickle.dumps(fast))   # the state is not pickled
        if step == 24:
            before = _fitted_state(fast)
            bad = yb.copy()
            bad[5] = 7
            with pytest.raises(ValueError, match="7"):
                fast.partial_fit(Xb, bad, classes=given)
            assert _fitted_state(fast) == before
        general.partial_fit(np.asarray(Xb, dtype=object), yb, classes=given,
                            sample_weight=weights)
        n_calls = calls(fast)
        had_state = fast._count_table.small_batches is not None
        fast.partial_fit(Xb, yb, classes=given, sample_weight=weights)
        one_call = calls(fast) == n_calls
        # the one-call path takes every plain batch once a small batch made its
        # state, which the model keeps until a new table (or a pickle)
        assert one_call == (had_state and step not in (8, 12, 16)), step
        n_one_call += one_call
        _assert_same_fit(fast, general)
    assert n_one_call >= 40
    state = fast._count_table.small_batches
    assert state.whole_counts and state.exact_totals == (alpha == 1.0)
    assert_array_equal(fast.predict_joint_log_proba(X[:500]),
                       general.predict_joint_log_proba(X[:500]))
    # a fractional weight turns the one-call path off: counts are no longer whole
    fast.partial_fit(X[:40], y[:40], sample_weight=np.full(40, 0.5))
    general.partial_fit(X[:40].astype(object), y[:40], sample_weight=np.full(40, 0.5))
    general.partial_fit(X[40:80].astype(object), y[40:80])
    n_calls = calls(fast)
    fast.partial_fit(X[40:80], y[40:80])
    assert calls(fast) == n_calls + 1 and not state.whole_counts
    _assert_same_fit(fast, general)


@pytest.mark.parametrize("params", [dict(fit_prior=False), dict(min_categories=7),
                                    dict(class_prior=[.2, .3, .5])])
def test_one_call_batches_follow_the_prior_parameters(rng, monkeypatch, params):
    """The class log prior: taken again from the counts only with fit_prior and no
    class_prior; a set_params between batches sends the next one to _fit. (A
    class_prior list is not a plain value: such a model's batches all take _fit,
    which validates it each call.)"""
    X, y = _codes(rng, 600)
    fast = CategoricalNB(**params).partial_fit(X[:100], y[:100], classes=[0, 1, 2])
    calls = _count_general_calls(monkeypatch)
    for start in range(100, 500, 50):
        fast.partial_fit(X[start:start + 50], y[start:start + 50])
    plain = "class_prior" not in params
    # the first small batch makes the state
    assert calls(fast) == (1 if plain else 8)
    _assert_same_fit(fast, CategoricalNB(**params).fit(X[:500], y[:500]))
    fast.set_params(fit_prior=True, class_prior=None, n_threads=1)
    fast.partial_fit(X[500:550], y[500:550])
    fast.partial_fit(X[550:], y[550:])
    assert calls(fast) == (2 if plain else 9)
    expected = CategoricalNB(**params).set_params(fit_prior=True, class_prior=None,
                                                  n_threads=1)
    _assert_same_fit(fast, expected.fit(X, y))


def test_one_call_batches_with_huge_whole_counts(rng, monkeypatch):
    """Totals past 2**40 are summed again rather than kept (the increments would
    stop being exact); counts that would pass 2**52 take the general path."""
    X, y = _codes(rng, 400)
    weights = np.r_[np.full(100, 2.0**38), np.ones(300)]
    fast = CategoricalNB().fit(X[:100], y[:100], sample_weight=weights[:100])
    general = CategoricalNB()
    calls = _count_general_calls(monkeypatch)
    for start in range(100, 400, 50):
        fast.partial_fit(X[start:start + 50], y[start:start + 50])
        _assert_same_fit(fast, general.fit(X[:start + 50], y[:start + 50],
                                           sample_weight=weights[:start + 50]))
    state = fast._count_table.small_batches
    assert calls(fast) == 1 and state.whole_counts and not state.exact_totals
    huge = CategoricalNB().fit(X[:100], y[:100], sample_weight=np.full(100, 2.0**51))
    huge.partial_fit(X[100:150], y[100:150])
    assert not huge._count_table.small_batches.whole_counts
    huge.partial_fit(X[150:200], y[150:200])
    assert calls(huge) == 3


def test_small_partial_fit_follows_parameter_changes(rng):
    X, y = _codes(rng, 300)
    model = CategoricalNB().partial_fit(X[:150], y[:150], classes=[0, 1, 2])
    model.set_params(alpha=0.25, min_categories=[3, 9, 2, 7])
    model.partial_fit(X[150:], y[150:])
    expected = CategoricalNB(alpha=0.25, min_categories=[3, 9, 2, 7]).fit(X, y)
    _assert_same_fit(model, expected)
    assert_array_equal(model.predict_proba(X), expected.predict_proba(X))


def test_a_code_outside_the_fitted_categories_takes_the_general_path(rng):
    X, y = _codes(rng, 200)
    model = CategoricalNB().partial_fit(X[:100], y[:100], classes=[0, 1, 2])
    late = X[100:].copy()
    late[5, 2] = 4  # a new category of feature 2
    late[6, 3] = -1  # feature 3 turns into a value feature
    model.partial_fit(late, y[100:])
    expected = CategoricalNB().fit(np.r_[X[:100], late], y)
    _assert_same_fit(model, expected)
    assert model._predict_tables.kind(3) == "value"


def test_small_calls_stay_thread_count_independent(rng, all_parallel):
    X, y = _codes(rng, 500)
    models = [CategoricalNB(n_threads=t) for t in (1, 2)]
    for model in models:
        for start in range(0, 500, 100):
            model.partial_fit(X[start:start + 100], y[start:start + 100],
                              classes=[0, 1, 2])
    _assert_same_fit(*models)
    assert_array_equal(models[0].predict_proba(X), models[1].predict_proba(X))


# -- failed allocations ------------------------------------------------------------------
@pytest.fixture
def refuse_allocations():
    """refuse(module, allowed): that kernel module's next C allocations fail after
    ``allowed`` more; reset afterwards."""
    used = []

    def refuse(module, allowed):
        used.append(module)
        module._refuse_allocations_after(allowed)

    yield refuse
    for module in used:
        module._refuse_allocations_after(-1)


def _fit_cases(rng):
    X, y = _codes(rng, 300)
    ids = rng.integers(-(2**62), 2**62, 300)  # a value feature: the hash tables
    return {
        "in-place codes": (X, y, X[:60], y[:60]),
        "hash tables": (np.c_[X, ids], y, np.c_[X, ids], y),
    }


# The in-place batch is one allocation; a hash table count makes about 16 (the
# table, then the distinct values' arrays, grown four times): each one fails once.
@pytest.mark.parametrize("parallel", [False, True])
@pytest.mark.parametrize("case, allowed", [("in-place codes", 0)] + [
    ("hash tables", allowed) for allowed in (0, 1, 3, 4, 7, 12)])
def test_a_failed_allocation_raises_memory_error_and_changes_nothing(
        rng, refuse_allocations, monkeypatch, parallel, case, allowed):
    if parallel:
        for kind in PARALLEL_MIN_WORK:
            monkeypatch.setitem(PARALLEL_MIN_WORK, kind, 0)
    X, y, X_more, y_more = _fit_cases(rng)[case]
    model = CategoricalNB(n_threads=2 if parallel else 1).partial_fit(
        X, y, classes=[0, 1, 2])
    before = _fitted_state(model)
    refuse_allocations(_kernels.count, allowed)
    with pytest.raises(MemoryError):
        model.partial_fit(X_more, y_more)
    if case == "hash tables":
        with pytest.raises(MemoryError):
            CategoricalNB(n_threads=model.n_threads).fit(X, y)
    _kernels.count._refuse_allocations_after(-1)
    assert _fitted_state(model) == before
    model.partial_fit(X_more, y_more)  # and it works again


@pytest.mark.parametrize("parallel", [False, True])
def test_a_failed_predict_allocation_raises_memory_error(rng, refuse_allocations,
                                                         monkeypatch, parallel):
    if parallel:
        for kind in PARALLEL_MIN_WORK:
            monkeypatch.setitem(PARALLEL_MIN_WORK, kind, 0)
    X, y = _codes(rng, 5000)
    model = CategoricalNB(n_threads=2 if parallel else 1).fit(X, y)
    expected = model.predict_proba(X)
    refuse_allocations(_kernels.predict, 0)
    for method in ("predict", "predict_proba"):
        with pytest.raises(MemoryError):
            getattr(model, method)(X)
    _kernels.predict._refuse_allocations_after(-1)
    assert_array_equal(model.predict_proba(X), expected)


# -- the public cimport API is the estimator's arithmetic ----------------------------------
def _capi(name, restype, *argtypes):
    capsule = fastnb.cython_kernels.__pyx_capi__[name]
    get_name = ctypes.pythonapi.PyCapsule_GetName
    get_name.restype, get_name.argtypes = ctypes.c_char_p, [ctypes.py_object]
    get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
    get_pointer.restype = ctypes.c_void_p
    get_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
    address = get_pointer(capsule, get_name(capsule))
    return ctypes.CFUNCTYPE(restype, *argtypes)(address)


def _ptr(array):
    return array.ctypes.data_as(ctypes.c_void_p)


@pytest.mark.parametrize("k", [3, 6, 11])  # row widths 4, 8 and unpadded
def test_cython_api_categorical_functions_give_the_estimators_bits(rng, k):
    ssize, p = ctypes.c_ssize_t, ctypes.c_void_p
    accumulate = _capi("categorical_accumulate", ctypes.c_int,
                       p, ssize, ssize, p, p, ssize, p, p, ssize, p, p)
    jll = _capi("categorical_jll", ctypes.c_int, p, ssize, ssize, p, p, ssize, p, p, ssize, p)
    X, y = _codes(rng, 3000, n_categories=(4, 9, 2, 13, 6), k=k)
    w = rng.uniform(0.5, 2.0, 3000)
    model = CategoricalNB(alpha=0.7).fit(X, y, sample_weight=w)
    codes_X = np.ascontiguousarray(X, dtype=np.longlong)
    n_categories = model.n_categories_.astype(np.intp)
    offsets = np.concatenate([[0], np.cumsum(n_categories)[:-1]]).astype(np.intp)
    total = int(n_categories.sum())
    class_count, table = np.zeros(k), np.zeros((k, total))
    status = accumulate(_ptr(codes_X), 3000, 5, _ptr(y.astype(np.intp)), _ptr(w), k,
                        _ptr(n_categories), _ptr(offsets), total, _ptr(class_count),
                        _ptr(table))
    assert status == 0
    np.testing.assert_allclose(class_count, model.class_count_, rtol=1e-13)
    np.testing.assert_allclose(table, np.concatenate(model.category_count_, axis=1),
                               rtol=1e-13)
    log_prob = np.ascontiguousarray(np.concatenate(model.feature_log_prob_, axis=1))
    out = np.empty((3000, k))
    status = jll(_ptr(codes_X), 3000, 5, _ptr(n_categories), _ptr(offsets), total,
                 _ptr(log_prob), _ptr(model.class_log_prior_), k, _ptr(out))
    assert status == 0
    assert_array_equal(out, model.predict_joint_log_proba(X))


# -- predict with a large hash table (its rows are resolved a few at a time) ----------------
@pytest.mark.parametrize("n_threads", [1, 2])
def test_predict_with_a_large_hash_table_sums_the_fitted_log_probabilities(
        rng, all_parallel, n_threads):
    n, k = 60_000, 3
    ids = rng.choice(2**62, size=40_000, replace=False).astype(np.int64)
    X = np.column_stack([ids[rng.integers(0, ids.size, n)], rng.integers(0, 4, n),
                         ids[rng.integers(0, ids.size, n)] - 7])
    y = rng.integers(0, k, n)
    model = CategoricalNB(n_threads=n_threads).fit(X, y)
    assert model._predict_tables.hash_keys.size > 1 << 16
    queries = X[:5000].copy()
    queries[::9, 0] = -1  # unseen values take the unseen row
    expected = np.zeros((5000, k))
    for j in range(3):
        position = np.searchsorted(model.categories_[j], queries[:, j])
        position = np.minimum(position, model.categories_[j].size - 1)
        seen = model.categories_[j][position] == queries[:, j]
        counts = model.category_count_[j].sum(axis=1)
        unseen = np.log(1.0) - np.log(counts + model.n_categories_[j])
        expected += np.where(seen[:, None], model.feature_log_prob_[j][:, position].T,
                             unseen)
    expected += model.class_log_prior_
    np.testing.assert_allclose(model.predict_joint_log_proba(queries), expected,
                               rtol=1e-13)
    assert_array_equal(model.predict(queries), model.classes_[expected.argmax(axis=1)])
    assert_array_equal(model.predict_proba(queries),
                       model.predict_proba(queries.astype(object)))
