"""CategoricalNB tables and predict kernels: frozen hash tables, log-probability
tables and a gather predictor.

Design
------
The log-probability table of feature j (``PredictTables.log_prob`` in
fastnb/_categorical/_tables.py) is a block of (n_categories[j] + 1) rows of
``row_width`` values: row r holds log P(category r | class c) in column c, the last
row the smoothed probability of an unseen category, and row_width is k padded to 4
or 8 (for k <= 8) so that the class accumulators stay in registers: one lookup
gives all k classes contiguously. ``refresh_log_probs`` writes these blocks and
``feature_log_prob_`` (k, C) from the counts, for the (feature, class) pairs a fit
touched, by the same point function (``smooth_counts``) every time.

``build_table`` freezes a value feature's keys into an open-addressing table (at
most half full) that maps a key to its category index; ``lookup_table`` looks keys
up in it.

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
from libc.math cimport floor, log
from libc.stdint cimport int32_t, int64_t, uint8_t, uint64_t

from _common cimport intp_t, MODE_ARGMAX
cimport _categorical_point as point
from _categorical_point cimport (
    value_t, LOOKUP_CODE, TAG_EMPTY, SMALL_COUNTS, slot_hash, table_find, table_row,
    code_row, fill_small_logs, smooth_counts, gather_fixed, gather8_codes,
    gather_strided, finish_prediction, fastnb_malloc, fastnb_free, fastnb_exp_shifted8,
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
def build_table(const uint8_t[::1] tags, const uint64_t[::1] keys):
    """A frozen table mapping (tags[i], keys[i]) -> i, at most half full.

    Returns ``(table_keys, table_tags, table_rows, duplicate)`` where duplicate is
    None, or the pair (i, j) of two entries with the same (tag, key).
    """
    cdef Py_ssize_t m = tags.shape[0]
    cdef int64_t size = 8
    cdef Py_ssize_t i
    cdef int64_t slot, mask
    cdef Py_ssize_t dup_i = -1, dup_j = -1
    while size < 2 * m:
        size *= 2
    mask = size - 1
    table_keys_arr = np.zeros(size, dtype=np.uint64)
    table_tags_arr = np.zeros(size, dtype=np.uint8)
    table_rows_arr = np.full(size, -1, dtype=np.int64)
    cdef uint64_t[::1] table_keys = table_keys_arr
    cdef uint8_t[::1] table_tags = table_tags_arr
    cdef int64_t[::1] table_rows = table_rows_arr
    with nogil:
        for i in range(m):
            slot = <int64_t>(slot_hash(tags[i], keys[i]) & <uint64_t>mask)
            while table_tags[slot] != TAG_EMPTY:
                if table_keys[slot] == keys[i] and table_tags[slot] == tags[i]:
                    break
                slot = (slot + 1) & mask
            if table_tags[slot] != TAG_EMPTY:
                if dup_i < 0:
                    dup_i = table_rows[slot]
                    dup_j = i
                continue
            table_tags[slot] = tags[i]
            table_keys[slot] = keys[i]
            table_rows[slot] = i
    duplicate = None if dup_i < 0 else (dup_i, dup_j)
    return table_keys_arr, table_tags_arr, table_rows_arr, duplicate


def lookup_table(
    const uint64_t[::1] table_keys, const uint8_t[::1] table_tags,
    const int64_t[::1] table_rows,
    const uint8_t[::1] tags, const uint64_t[::1] keys,
):
    """The row of each (tags[i], keys[i]) in a frozen table, or -1."""
    cdef Py_ssize_t i
    cdef int64_t mask = table_keys.shape[0] - 1
    out_arr = np.empty(tags.shape[0], dtype=np.intp)
    cdef intp_t[::1] out = out_arr
    with nogil:
        for i in range(tags.shape[0]):
            out[i] = table_find(&table_keys[0], &table_tags[0], &table_rows[0], mask,
                                tags[i], keys[i])
    return out_arr


# -- log-probability tables ---------------------------------------------------------------------------
cdef inline void refresh_pair(
    const double[:, ::1] category_count, const intp_t* starts, double alpha,
    const double* small_logs, Py_ssize_t j, Py_ssize_t c,
    double[:, ::1] feature_log_prob, double* table, const intp_t* block_start,
    Py_ssize_t row_width,
) noexcept nogil:
    """Feature j's log probabilities for class c, into both layouts."""
    cdef Py_ssize_t r
    cdef Py_ssize_t n = starts[j + 1] - starts[j]
    cdef double* block = table + block_start[j] + c
    smooth_counts(&category_count[c, starts[j]], n, alpha, small_logs, block, row_width,
                  block + n * row_width)
    for r in range(n):
        feature_log_prob[c, starts[j] + r] = block[r * row_width]


def refresh_log_probs(
    const double[:, ::1] category_count,   # IN: (k, C) counts of every feature
    const intp_t[::1] starts,              # IN: (d + 1,) feature j: columns starts[j]:starts[j+1]
    double alpha,
    const uint8_t[::1] features,           # IN: (d,) the features to refresh (non-zero)
    const uint8_t[::1] classes,            # IN: (k,) the classes to refresh
    double[:, ::1] feature_log_prob,       # OUT: (k, C)
    double[::1] table,                     # OUT: the predict blocks
    const intp_t[::1] block_start,         # IN: (d,) where feature j's block starts
    Py_ssize_t row_width,
    int n_threads,
):
    """Smoothed log probabilities of the chosen (feature, class) pairs; the others
    are left as they are. Pairs are independent: any thread count, the same bits."""
    cdef Py_ssize_t d = features.shape[0]
    cdef Py_ssize_t k = classes.shape[0]
    cdef Py_ssize_t pair
    cdef double* blocks = &table[0]
    cdef double small_logs[SMALL_COUNTS]
    with nogil:
        fill_small_logs(alpha, small_logs)
        if n_threads > 1:
            for pair in prange(d * k, schedule='static', num_threads=n_threads):
                if features[pair // k] and classes[pair % k]:
                    refresh_pair(category_count, &starts[0], alpha, small_logs, pair // k,
                                 pair % k, feature_log_prob, blocks, &block_start[0],
                                 row_width)
        else:
            for pair in range(d * k):
                if features[pair // k] and classes[pair % k]:
                    refresh_pair(category_count, &starts[0], alpha, small_logs, pair // k,
                                 pair % k, feature_log_prob, blocks, &block_start[0],
                                 row_width)


cdef inline double log_whole(double count, double alpha, const double* whole_logs,
                            Py_ssize_t n_whole) noexcept nogil:
    """log(count + alpha), from ``whole_logs`` (log(c + alpha) of c < n_whole) when
    count is a whole number below n_whole: the same bits as the log itself."""
    if count < n_whole and count == floor(count):
        return whole_logs[<Py_ssize_t>count]
    return log(count + alpha)


def fill_log_counts(
    const double[:, ::1] category_count,   # IN: (k, C) counts of every feature
    double alpha,
    double[:, ::1] log_count,              # OUT: (k, C) log(count + alpha)
    double[::1] whole_logs,                # OUT: (W,) log(c + alpha) of c = 0 .. W - 1
):
    """Each cell's log(count + alpha), as ``smooth_counts`` takes it, and the logs
    of the whole counts below W: the terms that ``refresh_batch_cells`` keeps
    between small batches."""
    cdef Py_ssize_t c, i, n_whole = whole_logs.shape[0]
    with nogil:
        for c in range(n_whole):
            whole_logs[c] = log(<double>c + alpha)
        for c in range(category_count.shape[0]):
            for i in range(category_count.shape[1]):
                log_count[c, i] = log_whole(category_count[c, i], alpha, &whole_logs[0],
                                            n_whole)


def refresh_batch_cells(
    const value_t[:, ::1] X,               # IN: (n, d) what ``accumulate_codes`` added
    const intp_t[::1] y,                   # IN: (n,) its class indices
    const double[:, ::1] category_count,   # IN: (k, C) the counts, the batch added
    const intp_t[::1] starts,              # IN: (d + 1,) where each feature starts
    double alpha,
    const uint8_t[::1] classes,            # IN: (k,) the classes whose totals moved
    const double[::1] whole_logs,          # IN: (W,) as ``fill_log_counts`` wrote them
    double[:, ::1] log_count,              # IN/OUT: (k, C) log(count + alpha)
    double[:, ::1] feature_log_prob,       # OUT: (k, C)
    double[::1] table,                     # OUT: the predict blocks
    const intp_t[::1] block_start,         # IN: (d,) where feature j's block starts
    Py_ssize_t row_width,
):
    """``refresh_log_probs`` of every feature and the flagged classes after a small
    batch: the logs of the cells the batch counted into are taken again (from
    ``whole_logs`` for whole counts below W), the others kept in ``log_count``,
    and one log a (feature, class) total, where refresh_log_probs takes one log a
    cell. The same bits: each value is the same difference of the same logs."""
    cdef Py_ssize_t n = X.shape[0], d = X.shape[1], k = classes.shape[0]
    cdef Py_ssize_t i, j, c, r, n_j, cell, n_whole = whole_logs.shape[0]
    cdef intp_t code
    cdef double total, log_total, value
    cdef const double* counts
    cdef double* block
    with nogil:
        for i in range(n):
            c = y[i]
            for j in range(d):
                code = code_row(X[i, j], starts[j + 1] - starts[j], -2)
                if code >= 0:
                    cell = starts[j] + code
                    log_count[c, cell] = log_whole(category_count[c, cell], alpha,
                                                   &whole_logs[0], n_whole)
        for j in range(d):
            n_j = starts[j + 1] - starts[j]
            for c in range(k):
                if not classes[c]:
                    continue
                # smooth_counts' total, in its order
                counts = &category_count[c, starts[j]]
                total = 0.0
                for r in range(n_j):
                    total = total + (counts[r] + alpha)
                log_total = log(total)
                block = &table[0] + block_start[j] + c
                for r in range(n_j):
                    value = log_count[c, starts[j] + r] - log_total
                    block[r * row_width] = value
                    feature_log_prob[c, starts[j] + r] = value
                block[n_j * row_width] = (0.0 if total == 0.0
                                          else whole_logs[0] - log_total)


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
    """Joint log likelihoods by table gathers, with the arg-max or normalisation fused."""
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
