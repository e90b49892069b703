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
    assert fast._count_table.log_count is not None
    assert general._count_table.log_count is None


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
