"""The compiled loop kernels called directly: failed allocations, thread-count
invariance on block splits (more threads than rows included)."""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_array_equal

import fastnb
from fastnb import _count_table, _discrete, _gaussian
from fastnb._base import MODE_ARGMAX, MODE_JLL, MODE_LOG_PROBA, MODE_PROBA

GAUSSIAN = _gaussian._kernels
DISCRETE = _discrete._kernels
DISCRETE_PREDICT = _discrete._predict_kernels
TABLE = _count_table._kernels  # the sparse count table's (FASTNB_TEST_SPARSE_TABLE=1)
INT_MAX = 2**31 - 1  # the largest n_threads a kernel takes (a C int)


# -- a failed allocation raises MemoryError ---------------------------------------------
# The sizes below ask for more than 2**47 bytes (more than any x86-64 or arm64 address
# space), so the allocation fails whatever the machine's overcommit policy.

def test_gaussian_fit_scratch_too_large_raises_memory_error():
    X = np.zeros((4, 3))
    codes = np.zeros(4, dtype=np.intp)
    with pytest.raises(MemoryError):
        GAUSSIAN.gaussian_fit(X, codes, None, 2**46, False, False, 1, 1)


def test_csr_predict_spill_too_large_raises_memory_error():
    k = 2**17  # more than LOCAL_K classes: argmax needs a spill row per block
    X = sp.csr_matrix(np.ones((2, 1)))
    WT = np.zeros((1, k))
    labels = np.empty(2, dtype=np.intp)
    with pytest.raises(MemoryError):
        DISCRETE_PREDICT.csr_predict(X.data, X.indices, X.indptr, WT, np.zeros(k), False, 0.0,
                             MODE_ARGMAX, labels, None, INT_MAX)


def test_bool_table_too_large_raises_memory_error():
    with pytest.raises(MemoryError):
        _discrete._shared._build_bool_table(np.zeros((1, 8)), 2**44)


class _NumpyWithoutMemory:
    """numpy, except that new arrays cannot be allocated."""

    def __getattr__(self, name):
        return getattr(np, name)

    @staticmethod
    def _fail(*args, **kwargs):
        raise MemoryError("no memory for kernel scratch (test)")

    zeros = empty = _fail


@pytest.fixture
def kernels_without_memory(monkeypatch):
    """Make every NumPy allocation inside the kernel modules fail."""

    def apply():
        # (and the table side of the count models, which allocates the feature
        # slots of a large predict batch before its kernel runs, in malloc's
        # scratch alone: FASTNB_TEST_SPARSE_TABLE=1)
        # (and the aligned allocations of the discrete models' predict, which
        # are NumPy's too: _discrete._shared.aligned_array)
        for module in (GAUSSIAN, DISCRETE, DISCRETE_PREDICT, TABLE,
                       _count_table._build_kernels, _count_table._update_kernels,
                       _discrete._table, _discrete._table_predict, _discrete._shared):
            monkeypatch.setattr(module, "np", _NumpyWithoutMemory())

    return apply


def _counts(rng, n=200, d=12, k=3):
    y = rng.integers(0, k, n)
    return rng.poisson(1.0 + y[:, None], size=(n, d)).astype(np.float64), y


@pytest.mark.parametrize("case", [
    "gaussian", "multinomial_dense", "multinomial_csr", "bernoulli_int8",
])
def test_failed_fit_allocation_raises_and_keeps_the_model(rng, case,
                                                          kernels_without_memory):
    X, y = _counts(rng)
    if case == "gaussian":
        model = fastnb.GaussianNB()
    elif case == "bernoulli_int8":
        # the int32 counting path allocates its own table
        model, X = fastnb.BernoulliNB(binarize=1.0), X.astype(np.int8)
    else:
        model = fastnb.MultinomialNB()
        if case == "multinomial_csr":
            X = sp.csr_matrix(X)
    model.partial_fit(X, y, classes=np.unique(y))
    before = {name: np.copy(value) for name, value in vars(model).items()
              if isinstance(value, np.ndarray)}
    kernels_without_memory()
    with pytest.raises(MemoryError):
        model.partial_fit(X, y)
    for name, value in before.items():
        assert_array_equal(getattr(model, name), value, err_msg=name)


@pytest.mark.parametrize("case", ["threshold_table", "csr"])
def test_failed_predict_allocation_raises(rng, case, kernels_without_memory):
    X, y = _counts(rng)
    if case == "threshold_table":
        model = fastnb.BernoulliNB(binarize=1.0).fit(X, y)  # thresholds rows into bytes
    else:
        X = sp.csr_matrix(X)
        model = fastnb.MultinomialNB().fit(X, y)
    kernels_without_memory()
    with pytest.raises(MemoryError):
        model.predict(X)


# -- the same bits for any number of blocks ---------------------------------------------

THREADS = [1, 2, 3, 8]  # 8 > the 5 rows below: empty blocks


def _outputs(predict, n, k):
    """predict(mode, labels_out, out) in every mode, for every thread count."""
    results = []
    for n_threads in THREADS:
        labels = np.empty(n, dtype=np.intp)
        predict(MODE_ARGMAX, labels, None, n_threads)
        scores = []
        for mode in (MODE_JLL, MODE_LOG_PROBA, MODE_PROBA):
            out = np.empty((n, k))
            predict(mode, None, out, n_threads)
            scores.append(out)
        results.append((labels, scores))
    return results


def _assert_all_equal(results):
    labels, scores = results[0]
    for other_labels, other_scores in results[1:]:
        assert_array_equal(other_labels, labels)
        for a, b in zip(other_scores, scores):
            assert_array_equal(a, b)


@pytest.mark.parametrize("k", [5, 20, 33, 40, 45, 48])
@pytest.mark.parametrize("binarize", [False, True])
def test_csr_predict_same_bits_for_any_padding(rng, k, binarize):
    # kp a multiple of 8 up to 48 takes the register accumulators, kp = k the
    # generic loop: each class's sum is taken in non-zero order either way
    X = rng.poisson(0.7, size=(60, 23)).astype(np.float64)
    X[4, 2] = np.nan  # thresholding reports it (suspect row), on both paths
    csr = sp.csr_matrix(X)
    W = rng.normal(size=(k, 23))
    bias = rng.normal(size=k)
    outputs = []
    for kp in (k, -(-k // 8) * 8 + 8, -(-k // 8) * 8):
        WT = np.zeros((23, kp))
        WT[:, :k] = W.T
        outputs.append(_outputs(lambda m, lab, out, t: DISCRETE_PREDICT.csr_predict(
            csr.data, csr.indices, csr.indptr, WT, bias, binarize, 1.0, m, lab, out, t),
            60, k))
    _assert_all_equal([result for output in outputs for result in output])


def test_gaussian_kernels_same_bits_for_any_block_split(rng):
    X = rng.normal(size=(5, 11))
    X[2, 3] = np.nan  # a missing value takes the marginalising path
    codes = np.array([0, 1, 2, 0, 1], dtype=np.intp)
    fits = [GAUSSIAN.gaussian_fit(X[[0, 1, 3, 4]], codes[[0, 1, 3, 4]], None, 3, False,
                                  False, 3, t) for t in THREADS]
    for fit in fits[1:]:
        for a, b in zip(fit, fits[0]):
            assert_array_equal(a, b)
    model = fastnb.GaussianNB().fit(rng.normal(size=(60, 11)), rng.integers(0, 4, 60))

    def predict(mode, labels, out, n_threads):
        GAUSSIAN.gaussian_predict(X, model.theta_, model._half_inv_var,
                                  model._half_log_2pi_var, model._log_norm,
                                  model._log_prior, mode, labels, out, n_threads)

    _assert_all_equal(_outputs(predict, 5, 4))


@pytest.mark.parametrize("k", [3, 8, 20, 35, 70])  # register paths, generic, spill
def test_count_kernels_same_bits_for_any_block_split(rng, k):
    X, y = _counts(rng, n=5, d=19, k=k)
    y = np.arange(5) % k
    W = rng.normal(size=(k, 19))
    bias = rng.normal(size=k)
    csr = sp.csr_matrix(X)
    kp = -(-k // 8) * 8 if k <= 48 else k
    WT = np.zeros((19, kp))
    WT[:, :k] = W.T
    table = _discrete._shared._build_bool_table(W, 8 if k <= 8 else (16 if k <= 16 else k))
    bits = X > 1.0
    predictors = {
        "dense": lambda m, lab, out, t: DISCRETE_PREDICT.dense_predict(
            X, W, bias, False, 0.0, m, lab, out, t),
        "dense_binarized": lambda m, lab, out, t: DISCRETE_PREDICT.dense_predict(
            X, W, bias, True, 1.0, m, lab, out, t),
        "csr": lambda m, lab, out, t: DISCRETE_PREDICT.csr_predict(
            csr.data, csr.indices, csr.indptr, WT, bias, False, 0.0, m, lab, out, t),
    }
    if k <= 64:
        predictors["bool"] = lambda m, lab, out, t: DISCRETE_PREDICT.bool_predict(
            bits.view(np.uint8), table, bias, m, lab, out, t)
        predictors["threshold"] = lambda m, lab, out, t: DISCRETE_PREDICT.dense_threshold_predict(
            X, table, bias, 1.0, m, lab, out, t)
    for name, predict in predictors.items():
        _assert_all_equal(_outputs(predict, 5, k))
    codes = y.astype(np.intp)
    for fit in (
        lambda fc, cc, t: DISCRETE.dense_fit(X, codes, None, fc, cc, True, 1.0, False, 1,
                                             False, t),
        # unweighted thresholding: the threads may split the rows
        lambda fc, cc, t: DISCRETE.dense_fit(X, codes, None, fc, cc, True, 1.0, False, 1,
                                             True, t),
        lambda fc, cc, t: DISCRETE.dense_fit(X, codes, None, fc, cc, False, 0.0, False, 1,
                                             True, t),
        lambda fc, cc, t: DISCRETE.csr_fit(csr.data, csr.indices, csr.indptr, 19, codes,
                                           None, fc, cc, False, 0.0, True, t),
    ):
        tables = []
        for n_threads in THREADS:
            fc, cc = np.zeros((k, 19)), np.zeros(k)
            fit(fc, cc, n_threads)
            tables.append(fc)
        for fc in tables[1:]:
            assert_array_equal(fc, tables[0])


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.uint8, np.int16])
def test_dense_threshold_fit_rows_or_columns_same_counts(rng, dtype):
    """Unweighted thresholding counts integers: split by rows (each thread a table
    of its own) or by columns, the counts are those of adding 1.0 row by row,
    added to the running counts."""
    X = rng.integers(0, 4, size=(300, 37)).astype(dtype)
    codes = rng.integers(0, 5, 300).astype(np.intp)
    start = rng.integers(0, 50, size=(5, 37)).astype(np.float64)
    expected = start.copy()
    np.add.at(expected, codes, (X > 1.5).astype(np.float64))
    for split_rows in (False, True):
        for n_threads in THREADS:
            fc, cc = start.copy(), np.zeros(5)
            n_bad, _ = DISCRETE.dense_fit(X, codes, None, fc, cc, True, 1.5, False, 1,
                                          split_rows, n_threads)
            assert n_bad == 0
            assert_array_equal(fc, expected)
            assert_array_equal(cc, np.bincount(codes, minlength=5))
    if X.dtype.kind == "f":
        X[7, 3] = np.nan  # thresholding would hide it: counted as bad in both splits
        for split_rows in (False, True):
            fc = start.copy()
            n_bad, _ = DISCRETE.dense_fit(X, codes, None, fc, np.zeros(5), True, 1.5, False,
                                          1, split_rows, 2)
            assert n_bad == 1


@pytest.mark.parametrize("k", [1, 3, 20])
def test_csr_fit_zero_counts_ignores_what_the_table_held(rng, k):
    """With zero_counts, csr_fit zeroes each class's row before adding its rows:
    a table of garbage gives the counts of one from zeros, the same bits for any
    thread count, classes without rows included; without it, the counts are
    added to what the table held."""
    X, _ = _counts(rng, n=60, d=23, k=k)
    X[rng.random(X.shape) < 0.5] = 0
    csr = sp.csr_matrix(X)
    codes = (np.arange(60) % max(1, k - 1)).astype(np.intp)  # the last class: no rows
    expected = np.zeros((k, 23))
    np.add.at(expected, codes, X)
    for n_threads in THREADS:
        fc = np.full((k, 23), np.nan)
        cc = np.zeros(k)
        flags = DISCRETE.csr_fit(csr.data, csr.indices, csr.indptr, 23, codes, None, fc,
                                 cc, False, 0.0, True, n_threads, True)
        assert flags == (0, 0, 0)
        assert_array_equal(fc, expected)
        assert_array_equal(cc, np.bincount(codes, minlength=k))
        start = np.ones((k, 23))
        DISCRETE.csr_fit(csr.data, csr.indices, csr.indptr, 23, codes, None, start,
                         np.zeros(k), False, 0.0, True, n_threads, False)
        assert_array_equal(start, expected + 1)


def test_count_nonfinite_any_thread_count(rng):
    table = rng.random((7, 31))
    table[[0, 3, 3, 6], [5, 0, 30, 12]] = [np.nan, np.inf, -np.inf, np.nan]
    for n_threads in THREADS:
        assert DISCRETE.count_nonfinite(table, n_threads) == 4
        assert DISCRETE.count_nonfinite(np.zeros((3, 4)), n_threads) == 0


@given(
    class_values=st.lists(st.integers(-2**31, 2**31 - 1), min_size=1, max_size=40,
                          unique=True),
    picks=st.lists(st.integers(0, 39), min_size=1, max_size=700),
    label_dtype=st.sampled_from([np.int32, np.int64]),
    class_dtype=st.sampled_from([np.int32, np.int64]),
    stranger=st.booleans(),
)
@settings(max_examples=60, deadline=None)
def test_labels_of_small_and_large_batches_encode_alike(class_values, picks,
                                                        label_dtype, class_dtype,
                                                        stranger):
    """encode_with_classes finds a small batch's labels by binary search
    (_labels.search_labels) and a large one's by its other paths (a lookup table
    over a narrow span of classes, np.searchsorted over a wide one): all give
    np.searchsorted's indices, and name a label that is not a class."""
    from fastnb import _labels
    from fastnb._encoding import _SEARCH_MAX_LABELS, encode_with_classes

    classes = np.unique(np.array(class_values, dtype=class_dtype))
    y = classes[np.array(picks) % classes.size].astype(label_dtype)
    if stranger:
        outside = np.setdiff1d(np.arange(-3, 3), classes)[0]
        y[len(y) // 2] = outside
    codes = np.empty(y.size, dtype=np.intp)
    n_unknown = _labels.search_labels(y, classes, codes)
    expected = np.searchsorted(classes, y)
    found = classes[np.minimum(expected, classes.size - 1)]
    known = (expected < classes.size) & (found == y)
    assert n_unknown == int((~known).sum())
    assert_array_equal(codes, np.where(known, expected, -1))
    if stranger:
        with pytest.raises(ValueError, match="do not exist in the initial classes"):
            encode_with_classes(y, classes)
    else:
        assert_array_equal(encode_with_classes(y, classes), expected)
        # the other path on the same labels: tiled past the search bound
        repeats = _SEARCH_MAX_LABELS // y.size + 1
        assert_array_equal(encode_with_classes(np.tile(y, repeats), classes),
                           np.tile(expected, repeats))


@given(
    values=st.lists(st.one_of(st.integers(-2**70, 2**70).map(float),
                              st.sampled_from([0.5, -0.0, np.nan, np.inf, -np.inf,
                                               2.0**53 + 2, 2.0**63, -2.0**63])),
                    min_size=1, max_size=60),
    small=st.booleans(), dtype=st.sampled_from([np.float64, np.float32]),
)
@settings(max_examples=200, deadline=None)
def test_float_labels_encode_as_np_unique(values, small, dtype):
    """Float labels that are all whole numbers take the compiled integer encoder
    (MLlib's 0.0, 1.0, ...); any other float (a fraction, NaN, infinity, past
    int64) np.unique: both give np.unique's classes and indices, in y's dtype."""
    from fastnb._encoding import encode_labels

    y = np.array([v % 7 if small and np.isfinite(v) else v for v in values], dtype=dtype)
    classes, codes = encode_labels(y)
    expected_classes, expected_codes = np.unique(y, return_inverse=True)
    assert classes.dtype == y.dtype
    assert_array_equal(classes, expected_classes)
    assert_array_equal(codes, expected_codes.ravel())
    if np.isfinite(y).all() and (y == np.round(y)).all() and np.abs(y).max() < 2**62:
        # a later batch against integer classes: the compiled lookup, the same
        # indices (and against float classes, np.searchsorted's)
        from fastnb._encoding import encode_with_classes

        int_classes = expected_classes.astype(np.int64)
        assert_array_equal(encode_with_classes(np.tile(y, 20), int_classes),
                           np.tile(expected_codes.ravel(), 20))
        assert_array_equal(encode_with_classes(y, expected_classes),
                           expected_codes.ravel())
