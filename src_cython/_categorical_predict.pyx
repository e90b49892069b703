"""CategoricalNB's predict kernel: a gather predictor over the tables of
_categorical_tables.pyx.

Design
------
Each predicted row resolves its values to table rows (``table_row``), sums the rows
in feature order (scikit-learn's order), adds the class log prior, then fuses the
arg-max or the log-sum-exp (``finish_prediction``): the point functions of
_categorical_point.pxd, which the public cython_kernels API calls too.

Rows are cut into fixed chunks; a chunk's scratch is allocated by the chunk, and
with large hash tables rows are resolved a few at a time before they are summed,
so that the lookups (cache misses) of neighbouring rows overlap. Chunks run on
a prange when n_threads > 1 and in a plain loop otherwise (no OpenMP region for
small calls or forked children); either way a failed allocation raises
MemoryError. Each row is computed alone, so the result is the same bits for any
thread count.
"""

from cython.parallel cimport prange
from libc.stdint cimport int32_t, int64_t, uint8_t, uint64_t

from _common cimport intp_t, MODE_ARGMAX
cimport _categorical_point as point
from _categorical_point cimport (
    value_t, LOOKUP_CODE, table_row, gather_fixed, gather8_codes, gather_strided,
    finish_prediction, fastnb_malloc, fastnb_free, fastnb_exp_shifted8,
)

import numpy as np

# Rows per predict chunk: a chunk's rows are consecutive, so each thread streams
# through whole runs of X and of the output.
cdef enum:
    CHUNK_ROWS = 2048
    # With hash tables larger than LARGE_TABLE slots (beyond the L2 cache), rows are
    # resolved ROW_BLOCK at a time before they are summed; with smaller ones (or
    # none) one at a time, which is faster when lookups hit the cache.
    ROW_BLOCK = 4
    LARGE_TABLE = 1 << 16


def _refuse_allocations_after(Py_ssize_t allowed):
    """Tests: let ``allowed`` more C allocations succeed, then fail every one
    (-1: back to normal)."""
    point.fastnb_allocations_left = allowed


def exp_nonpositive(const double[::1] x):
    """exp(x) for x <= 0 through the kernels' vectorised exp (for tests)."""
    cdef Py_ssize_t n = x.shape[0]
    cdef Py_ssize_t i, c
    cdef double lanes[8]
    cdef double e[8]
    out_arr = np.empty(n, dtype=np.float64)
    cdef double[::1] out = out_arr
    for i in range(0, n, 8):
        for c in range(8):
            lanes[c] = x[i + c] if i + c < n else 0.0
        fastnb_exp_shifted8(lanes, 0.0, e)
        for c in range(8):
            if i + c < n:
                out[i + c] = e[c]
    return out_arr


# -- frozen tables: a value feature's keys, for lookups --------------------------------


# -- predict ------------------------------------------------------------------------------
# Pointers to the fields of a PredictTables (fastnb/_categorical/_tables.py).
cdef struct Tables:
    const int32_t* lookup          # (d,) LOOKUP_CODE / HASH / RESOLVED / BUCKET
    const intp_t* n_categories     # (d,)
    const double* log_prob         # the blocks
    const intp_t* block_start      # (d,)
    Py_ssize_t row_width
    const uint64_t* hash_keys      # the value features' frozen tables, side by side
    const uint8_t* hash_tags
    const int64_t* hash_rows
    const intp_t* hash_start       # (d,)
    const intp_t* hash_mask        # (d,)
    const double* class_log_prior  # (k,)
    Py_ssize_t k
    bint all_codes                 # every feature looks up LOOKUP_CODE
    Py_ssize_t row_block           # rows resolved together (ROW_BLOCK or 1)


cdef inline void resolve_row(const value_t* x, Py_ssize_t d, const Tables* t,
                             intp_t* rows) noexcept nogil:
    """The table row of each of a row's values."""
    cdef Py_ssize_t j, h
    for j in range(d):
        h = t.hash_start[j]
        rows[j] = table_row(x[j], t.lookup[j], t.n_categories[j], &t.hash_keys[h],
                            &t.hash_tags[h], &t.hash_rows[h], t.hash_mask[j])


cdef inline void sum_row(const intp_t* rows, Py_ssize_t d, const Tables* t,
                         double* acc) noexcept nogil:
    """The sums of a row's log probabilities, class accumulators in registers."""
    if t.row_width == 4:
        gather_fixed(rows, d, t.log_prob, t.block_start, acc, 4)
    elif t.row_width == 8:
        gather_fixed(rows, d, t.log_prob, t.block_start, acc, 8)
    else:
        gather_strided(rows, d, t.log_prob, t.block_start, t.row_width, 1, t.k, acc)


cdef void finish(double* acc, const Tables* t, int mode, Py_ssize_t i,
                 intp_t* labels_out, double* out) noexcept nogil:
    """Row i's output from its sums. Not inline: the loops that call it stay small."""
    if mode == MODE_ARGMAX:
        finish_prediction(acc, t.k, t.class_log_prior, mode, NULL, &labels_out[i])
    else:
        finish_prediction(acc, t.k, t.class_log_prior, mode, &out[i * t.k], NULL)


cdef int predict_chunk(
    const value_t[:, ::1] X, const Tables* t, int mode, Py_ssize_t chunk,
    intp_t* labels_out, double* out,
) noexcept nogil:
    """Predict one chunk of rows; 0, or 1 when its scratch cannot be allocated.

    With large hash tables, rows are resolved ROW_BLOCK at a time before they are
    summed: the lookups of neighbouring rows (cache misses) are then independent
    instructions close together, which the CPU overlaps.
    """
    cdef Py_ssize_t n = X.shape[0]
    cdef Py_ssize_t d = X.shape[1]
    cdef Py_ssize_t i, b, block, block_stop
    cdef Py_ssize_t first = chunk * CHUNK_ROWS
    cdef Py_ssize_t stop = min(n, first + CHUNK_ROWS)
    cdef Py_ssize_t block_rows = t.row_block
    cdef Tables tables = t[0]   # a local copy: its fields stay in registers
    cdef bint codes_only = False
    cdef intp_t* rows = <intp_t*>fastnb_malloc(block_rows * d, sizeof(intp_t))
    cdef double* acc = <double*>fastnb_malloc(tables.row_width, sizeof(double))
    if rows == NULL or acc == NULL:
        fastnb_free(rows)
        fastnb_free(acc)
        return 1
    if value_t is not float and value_t is not double:
        # Integer codes for every feature, 5 to 8 classes: straight to the sums.
        codes_only = tables.all_codes and tables.row_width == 8
    for b in range((stop - first + block_rows - 1) // block_rows):
        block = first + b * block_rows
        block_stop = min(stop, block + block_rows)
        if not codes_only:
            for i in range(block, block_stop):
                resolve_row(&X[i, 0], d, &tables, rows + (i - block) * d)
        for i in range(block, block_stop):
            if codes_only:
                gather8_codes(&X[i, 0], d, tables.n_categories, tables.log_prob,
                              tables.block_start, acc)
            else:
                sum_row(rows + (i - block) * d, d, &tables, acc)
            finish(acc, &tables, mode, i, labels_out, out)
    fastnb_free(rows)
    fastnb_free(acc)
    return 0


def categorical_predict(
    const value_t[:, ::1] X,          # IN: (n, d) values, or table rows (LOOKUP_RESOLVED)
    const int32_t[::1] lookup,        # IN: (d,) how each column finds its table row
    const intp_t[::1] n_categories,   # IN: (d,)
    const double[::1] log_prob,       # IN: the blocks, (n_categories[j] + 1, row_width) each
    const intp_t[::1] block_start,    # IN: (d,)
    Py_ssize_t row_width,
    const uint64_t[::1] hash_keys,    # IN: the value features' frozen tables
    const uint8_t[::1] hash_tags,
    const int64_t[::1] hash_rows,
    const intp_t[::1] hash_start,     # IN: (d,) where feature j's table starts
    const intp_t[::1] hash_mask,      # IN: (d,) its size - 1
    const double[::1] class_log_prior,  # IN: (k,)
    int mode,                         # a PredictMode
    intp_t[::1] labels_out,           # OUT: (n,) for MODE_ARGMAX, else None
    double[:, ::1] out,               # OUT: (n, k) for the other modes, else None
    int n_threads,
):
    """Joint log likelihoods by table gathers, with the arg-max or normalisation fused.
    Bounds of a loaded model: each block's n_categories[j] + 1 rows lie in log_prob
    (n_categories_ checked in [0, min(C, 2**31 - 2)], summing exactly to C, at load:
    ``_categorical._file_format.check_state_invariants``)."""
    cdef Py_ssize_t n = X.shape[0]
    cdef Py_ssize_t d = X.shape[1]
    cdef Py_ssize_t n_chunks = (n + CHUNK_ROWS - 1) // CHUNK_ROWS
    cdef Py_ssize_t chunk, j
    cdef int failed = 0
    cdef intp_t* labels = NULL
    cdef double* rows_out = NULL
    cdef Tables t
    if n == 0:
        return
    t.lookup = &lookup[0]
    t.n_categories = &n_categories[0]
    t.log_prob = &log_prob[0]
    t.block_start = &block_start[0]
    t.row_width = row_width
    t.hash_keys = &hash_keys[0]
    t.hash_tags = &hash_tags[0]
    t.hash_rows = &hash_rows[0]
    t.hash_start = &hash_start[0]
    t.hash_mask = &hash_mask[0]
    t.class_log_prior = &class_log_prior[0]
    t.k = class_log_prior.shape[0]
    t.row_block = ROW_BLOCK if hash_keys.shape[0] > LARGE_TABLE else 1
    t.all_codes = True
    for j in range(d):
        if lookup[j] != LOOKUP_CODE:
            t.all_codes = False
    if mode == MODE_ARGMAX:
        labels = &labels_out[0]
    else:
        rows_out = &out[0, 0]
    with nogil:
        if n_threads > 1:
            for chunk in prange(n_chunks, schedule='static', num_threads=n_threads):
                failed += predict_chunk(X, &t, mode, chunk, labels, rows_out)
        else:
            for chunk in range(n_chunks):
                failed += predict_chunk(X, &t, mode, chunk, labels, rows_out)
    if failed:
        raise MemoryError("out of memory for the categorical predict scratch")


def resolve_numeric(
    const value_t[:, ::1] X,          # IN: (n, >= 1) values
    Py_ssize_t col,                   # IN: which column of X
    int lookup, intp_t n_categories,
    const uint64_t[::1] hash_keys, const uint8_t[::1] hash_tags,
    const int64_t[::1] hash_rows, intp_t hash_start, intp_t hash_mask,
    int32_t[:, ::1] out, Py_ssize_t out_col,   # OUT: table rows
):
    """The table rows of one numeric column (for inputs of mixed column kinds)."""
    cdef Py_ssize_t i
    with nogil:
        for i in range(X.shape[0]):
            out[i, out_col] = <int32_t>table_row(
                X[i, col], lookup, n_categories, &hash_keys[hash_start],
                &hash_tags[hash_start], &hash_rows[hash_start], hash_mask)
