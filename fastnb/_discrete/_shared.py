"""Shared pieces of the discrete models: the compiled kernels, the predict
cache, input helpers (missing values, CSR views) and the table-backed attributes."""

import math
import threading
import weakref
from numbers import Real

import numpy as np

from .._dispatch import load_kernels
from .._validation import CSRInput

_kernels = load_kernels("_discrete_kernels")  # fit, log probabilities
_predict_kernels = load_kernels("_discrete_predict")  # dense, CSR, byte-table predict
_table_kernels = load_kernels("_sparse_counts")  # a batch checked, partitioned
_table_update_kernels = load_kernels("_sparse_update")  # the stream: adds, refreshes
_table_predict_kernels = load_kernels("_sparse_predict")

# Bool input is predicted through a table of 256 partial sums per 8 features when
# it fits: at most this many classes (the kernel's local accumulator) and bytes.
_BOOL_TABLE_OK = _predict_kernels.bool_table_supported()
_BOOL_TABLE_MAX_CLASSES = 64
_BOOL_TABLE_MAX_BYTES = 16 << 20


# Arrays derived from a fitted model that only some inputs need (the (d, k)
# weights for CSR input, the byte-pattern table), made on first use. They live
# here, keyed weakly by the model, not in its __dict__: they are not state, so
# predict changes no attribute, and pickles, copies and saved files never hold them.
_PREDICT_CACHE = weakref.WeakKeyDictionary()

# A table-backed model predicts a CSR batch through dense feature-major weights
# (built once from the table, O(k d)) when the batch has at least d / this many
# non-zeros: past that, reading one contiguous row per non-zero repays the build.
TABLE_DENSE_PREDICT_NNZ_RATIO = 8


def _by_row_blocks(n_rows, n_threads, rows):
    """Call ``rows(start, stop)`` on ``n_threads`` contiguous blocks of rows, each
    on a thread of its own (NumPy's loops release the GIL). For the row-wise
    (or column-wise) NumPy work of a fit, such as the log probabilities of a
    (k, d) table: each row's operations are the same whatever the block, so the
    results are the same bits for any thread count. The first error raised in a
    block is raised here, after every block is done."""
    n_blocks = max(1, min(n_threads, n_rows))
    if n_blocks == 1:
        rows(0, n_rows)
        return
    bounds = [block * n_rows // n_blocks for block in range(n_blocks + 1)]
    errors = []

    def run(start, stop):
        try:
            rows(start, stop)
        except BaseException as error:  # re-raised below, in the caller's thread
            errors.append(error)

    helpers = [threading.Thread(target=run, args=(bounds[block], bounds[block + 1]))
               for block in range(1, n_blocks)]
    for helper in helpers:
        helper.start()
    run(bounds[0], bounds[1])
    for helper in helpers:
        helper.join()
    if errors:
        raise errors[0]


class _MissingValues(Exception):
    """Signal from the fit kernels' pass: X holds NaN (and no infinity)."""


def _only_nan_among_nonfinite(values):
    """True when every non-finite value of a float array is NaN (missing)."""
    if values.dtype.kind != "f":
        return False
    return bool(np.isnan(values).any() and not np.isinf(values).any())


def _split_missing(X):
    """(X with NaN read as 0, the indicator of the NaN entries), dense or CSR.

    Used only when X has missing values: a zero contributes nothing to the counts
    or to a linear score, so the observed part is scored by the ordinary kernels.
    """
    if isinstance(X, CSRInput):
        nan = np.isnan(X.data)
        observed = CSRInput(np.where(nan, 0, X.data).astype(X.data.dtype), X.indices,
                            X.indptr, X.shape, X.source)
        # Row pointers of the NaN entries: the running count of NaN at each row start.
        indptr = np.concatenate([[0], np.cumsum(nan, dtype=np.int64)])[X.indptr]
        indptr = indptr.astype(X.indptr.dtype)
        missing = CSRInput(np.ones(int(nan.sum()), dtype=np.float64),
                           np.ascontiguousarray(X.indices[nan]), indptr, X.shape, None)
        return observed, missing
    nan = np.isnan(X)
    return np.where(nan, 0, X).astype(X.dtype), nan.astype(np.float64)


def _kernel_view(X):
    """The array a dense kernel reads: bool as uint8 (a view, no copy)."""
    return X.view(np.uint8) if X.dtype == np.bool_ else X


def _nonnegative_threshold(value):
    return (
        isinstance(value, Real)
        and not isinstance(value, bool)
        and value >= 0
        and np.isfinite(value)
    )


def _dense_to_csr(X):
    """A dense batch as CSR arrays (float64 values, int64 indices), for a model
    whose counts are in a sparse table."""
    rows, cols = np.nonzero(X)
    data = np.ascontiguousarray(X[rows, cols], dtype=np.float64)
    indptr = np.zeros(X.shape[0] + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=X.shape[0]), out=indptr[1:])
    return CSRInput(data, cols.astype(np.int64), indptr, X.shape, None)


def aligned_array(shape, dtype=np.float64, *, zeroed=True, alignment=64):
    """A C-ordered array whose data starts on an ``alignment``-byte boundary (a
    cache line): NumPy aligns to 16 bytes only, and a kernel that reads a row of
    8 doubles then reads two lines where it could read one. Zeroed unless
    ``zeroed=False``. The one place the project allocates aligned memory."""
    dtype = np.dtype(dtype)
    nbytes = math.prod(shape) * dtype.itemsize
    raw = (np.zeros if zeroed else np.empty)(nbytes + alignment, dtype=np.uint8)
    offset = -raw.ctypes.data % alignment
    return raw[offset:offset + nbytes].view(dtype).reshape(shape)


def _aligned_feature_major(n_features, n_classes):
    """A zeroed (d, kp) array for the dense CSR predict kernel: one feature's
    weights contiguous, rows padded to a multiple of 8 classes up to 48 (a
    fixed-length, register-resident loop; whole cache lines) and 64-byte
    aligned."""
    k, d = n_classes, n_features
    padded_k = -(-k // 8) * 8 if k <= 48 else k
    return aligned_array((d, padded_k))


def _build_bool_table(weights, padded_k):
    """The byte-pattern table of (k, d) ``weights`` (``build_bool_table``), its
    class axis zero-padded to ``padded_k``, on a 64-byte line."""
    k, d = weights.shape
    table = aligned_array(((d + 7) // 8, 256, max(padded_k, k)))
    _predict_kernels.build_bool_table(weights, table)
    return table


def _raise_malformed_csr(name, count, counted):
    """The error of a CSR matrix whose row pointers or column indices the kernel
    found out of range (``count`` of them, counted in ``counted``)."""
    raise ValueError(
        f"{name} got a malformed CSR matrix: row pointers or column indices out of "
        f"range ({count} {counted})."
    )


def _table_backed(name, doc):
    """A fitted attribute that a dense model stores and a table-backed model
    computes when asked for (never stored: no second copy of the model)."""

    def get(self):
        try:
            return self.__dict__[name]
        except KeyError:
            pass
        if self.__dict__.get("_table") is None:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        return self._dense_from_table(name)

    def set(self, value):
        self.__dict__[name] = value

    def delete(self):
        del self.__dict__[name]

    return property(get, set, delete, doc)


# State that only one of the two representations has.
_DENSE_ONLY = ("feature_count_", "feature_log_prob_", "_missing_count", "_weights", "_bias",
               "feature_all_")
_TABLE_ONLY = ("_table", "_missing_table", "_table_alpha", "_feat_base", "_table_norm",
               "_feature_all")
