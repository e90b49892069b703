"""CategoricalNB fit kernels: count category values per class, without the GIL.

Design
------
Counts are laid out class-major, as ``category_count_``: the counts of class c are
one row, and feature j's categories are the columns ``starts[j]:starts[j] + n_j``
of it (the layout of ``fastnb.cython_kernels.categorical_accumulate``, whose row
function, ``count_code_row`` in _categorical_point.pxd, these loops call too).

Integer-code features (non-negative integers below a fixed limit) are counted
straight into dense arrays by row chunks whose number depends only on the data's
shape; chunks are summed in chunk order, so the result is the same bits for any
thread count. Integer columns of small codes (below a cap) are checked and counted
in that single pass; other integer columns get a range pass first. Other numeric
features are counted per feature, in row order, into a growable hash table (the
features run in parallel, each sequentially: thread-count independent again).
Object columns are keyed with the GIL (_categorical_keys.pyx) into per-row ids,
which ``count_ids`` counts.

Threads: every parallel loop is one body function called from
``for ... in prange(...)`` when n_threads > 1 and from a plain ``for`` otherwise,
so a small call (and a forked child, which resolves to one thread) never enters an
OpenMP region. (Cython's ``prange(use_threads_if=...)`` is not used: it compiles
to ``#pragma omp parallel if(...)``, which still starts a one-thread region.)

Memory: every C allocation goes through fastnb_malloc (_categorical_point.pxd); a
kernel that cannot allocate raises MemoryError, whatever the thread count.
"""

from cython.parallel cimport prange
from libc.stdint cimport int32_t, int64_t, uint8_t, uint64_t
from libc.string cimport memcpy
from libc.math cimport floor, INFINITY

from _common cimport intp_t
cimport _categorical_point as point
from _categorical_point cimport (
    value_t, int_value_t, TAG_EMPTY, numeric_key, slot_hash, bucket_of,
    code_row, count_code_row, fastnb_malloc, fastnb_calloc, fastnb_realloc, fastnb_free,
)

import numpy as np


def _refuse_allocations_after(Py_ssize_t allowed):
    """Tests: let ``allowed`` more C allocations succeed, then fail every one
    (-1: back to normal)."""
    point.fastnb_allocations_left = allowed


cdef inline Py_ssize_t padded(Py_ssize_t n) noexcept nogil:
    """n rounded up to whole 64-byte lines of 8-byte items, plus one line: chunk
    buffers laid side by side then never share a cache line."""
    return (n + 7) // 8 * 8 + 8


# -- code features: ranges, then dense counts ----------------------------------------------
def column_ranges(const value_t[:, ::1] X):
    """Per column: (min, max) of the non-missing values as float64, and whether every
    non-missing value is integral. Columns with no value get (inf, -inf)."""
    cdef Py_ssize_t n = X.shape[0]
    cdef Py_ssize_t d = X.shape[1]
    cdef Py_ssize_t i, j
    cdef double v
    lo_arr = np.full(d, INFINITY)
    hi_arr = np.full(d, -INFINITY)
    integral_arr = np.ones(d, dtype=np.uint8)
    cdef double[::1] lo = lo_arr
    cdef double[::1] hi = hi_arr
    cdef uint8_t[::1] integral = integral_arr
    with nogil:
        for i in range(n):
            for j in range(d):
                v = <double>X[i, j]
                if value_t is float or value_t is double:
                    if v != v:
                        continue
                    if v != floor(v):
                        integral[j] = 0
                if v < lo[j]:
                    lo[j] = v
                if v > hi[j]:
                    hi[j] = v
    return lo_arr, hi_arr, integral_arr.astype(bool)


cdef inline void umax_chunk(const int_value_t[:, ::1] X, Py_ssize_t start, Py_ssize_t stop,
                            uint64_t* top) noexcept nogil:
    cdef Py_ssize_t i, j
    cdef Py_ssize_t d = X.shape[1]
    cdef uint64_t u
    for i in range(start, stop):
        for j in range(d):
            u = <uint64_t>(<int64_t>X[i, j])
            top[j] = u if u > top[j] else top[j]


def int_umax(const int_value_t[:, ::1] X, Py_ssize_t n_chunks, int n_threads):
    """Per column, the largest value seen as uint64 (negatives count as huge), so
    ``umax < limit`` says every value is a code in [0, limit). Integer X only."""
    cdef Py_ssize_t n = X.shape[0]
    cdef Py_ssize_t d = X.shape[1]
    cdef Py_ssize_t chunk
    n_chunks = max(1, n_chunks)
    parts_arr = np.zeros((n_chunks, padded(d)), dtype=np.uint64)
    cdef uint64_t[:, ::1] parts = parts_arr
    with nogil:
        if n_threads > 1:
            for chunk in prange(n_chunks, schedule='static', num_threads=n_threads):
                umax_chunk(X, chunk * n // n_chunks, (chunk + 1) * n // n_chunks,
                           &parts[chunk, 0])
        else:
            for chunk in range(n_chunks):
                umax_chunk(X, chunk * n // n_chunks, (chunk + 1) * n // n_chunks,
                           &parts[chunk, 0])
    return parts_arr[:, :d].max(axis=0)


cdef inline void capped_chunk(
    const int_value_t[:, ::1] X,
    uint64_t cap,
    const intp_t* y,
    const double* w,
    Py_ssize_t start,
    Py_ssize_t stop,
    double* counts,       # OUT: (k, d, cap) this chunk's counts
    uint64_t* top,        # OUT: (d,) largest code below cap seen
    uint8_t* over,        # OUT: (d,) whether a value outside [0, cap) was seen
) noexcept nogil:
    cdef Py_ssize_t i, j
    cdef Py_ssize_t d = X.shape[1]
    cdef uint64_t u
    cdef double wi
    cdef double* class_counts
    for i in range(start, stop):
        wi = 1.0 if w == NULL else w[i]
        class_counts = counts + y[i] * d * cap
        for j in range(d):
            u = <uint64_t>(<int64_t>X[i, j])
            if u < cap:
                class_counts[j * cap + u] += wi
                top[j] = u if u > top[j] else top[j]
            else:
                over[j] = 1


def count_codes_capped(
    const int_value_t[:, ::1] X,          # IN: (n, d) integers
    Py_ssize_t cap,                   # IN: codes below this are counted
    const intp_t[::1] y,              # IN: (n,) class indices
    const double[::1] sample_weight,  # IN: (n,) or None
    Py_ssize_t k,
    Py_ssize_t n_chunks,
    int n_threads,
):
    """One pass that both checks and counts small integer codes.

    Returns ``(counts, n_codes, over)``: counts (k, d, cap) of the values in
    [0, cap), n_codes (d,) = largest such value + 1, and over (d,) True for a
    column holding any value outside [0, cap) (its counts are then incomplete and
    the caller counts it another way). Chunks as in count_codes.
    """
    cdef Py_ssize_t n = X.shape[0]
    cdef Py_ssize_t d = X.shape[1]
    cdef Py_ssize_t chunk, t
    cdef Py_ssize_t total = k * d * cap
    cdef const double* w = NULL
    if sample_weight is not None:
        w = &sample_weight[0]
    n_chunks = max(1, n_chunks)
    counts_arr = np.zeros((k, d, cap), dtype=np.float64)
    if n == 0 or d == 0:
        return counts_arr, np.zeros(d, dtype=np.intp), np.zeros(d, dtype=bool)
    chunk_counts_arr = np.zeros((n_chunks, padded(total)), dtype=np.float64)
    chunk_top_arr = np.zeros((n_chunks, padded(d)), dtype=np.uint64)
    chunk_over_arr = np.zeros((n_chunks, 8 * padded(d)), dtype=np.uint8)
    cdef double[:, ::1] chunk_counts = chunk_counts_arr
    cdef uint64_t[:, ::1] chunk_top = chunk_top_arr
    cdef uint8_t[:, ::1] chunk_over = chunk_over_arr
    cdef double[:, :, ::1] counts_view = counts_arr
    cdef double* counts = &counts_view[0, 0, 0]
    with nogil:
        if n_threads > 1:
            for chunk in prange(n_chunks, schedule='static', num_threads=n_threads):
                capped_chunk(X, cap, &y[0], w,
                             chunk * n // n_chunks, (chunk + 1) * n // n_chunks,
                             &chunk_counts[chunk, 0], &chunk_top[chunk, 0],
                             &chunk_over[chunk, 0])
        else:
            for chunk in range(n_chunks):
                capped_chunk(X, cap, &y[0], w,
                             chunk * n // n_chunks, (chunk + 1) * n // n_chunks,
                             &chunk_counts[chunk, 0], &chunk_top[chunk, 0],
                             &chunk_over[chunk, 0])
        for chunk in range(n_chunks):
            for t in range(total):
                counts[t] = counts[t] + chunk_counts[chunk, t]
    # Integers have no missing value: a column that is not `over` saw some code.
    n_codes = chunk_top_arr[:, :d].max(axis=0).astype(np.intp) + 1
    over = chunk_over_arr[:, :d].any(axis=0)
    return counts_arr, n_codes, over


cdef inline void codes_chunk(
    const value_t[:, ::1] X,
    const intp_t* n_categories,     # (d,) 0 for the columns not counted
    const intp_t* starts,
    const intp_t* y,
    const double* w,
    Py_ssize_t total,
    Py_ssize_t start,
    Py_ssize_t stop,
    double* counts,                 # OUT: (k, total) this chunk's counts
) noexcept nogil:
    cdef Py_ssize_t i
    for i in range(start, stop):
        count_code_row(&X[i, 0], X.shape[1], n_categories, starts,
                       1.0 if w == NULL else w[i], counts + y[i] * total)


def count_codes(
    const value_t[:, ::1] X,          # IN: (n, d)
    const intp_t[::1] n_categories,   # IN: (d,) codes per column; 0: not counted
    const intp_t[::1] starts,         # IN: (d,) where each column's counts start
    Py_ssize_t total,                 # IN: columns of the result
    const intp_t[::1] y,              # IN: (n,) class indices
    const double[::1] sample_weight,  # IN: (n,) or None
    Py_ssize_t k,
    Py_ssize_t n_chunks,
    int n_threads,
):
    """Dense (k, total) counts of code columns: column j's codes are counted at
    ``starts[j] + code`` (codes outside [0, n_categories[j]) and NaN are skipped).

    Rows are cut into ``n_chunks`` chunks (a function of the shape only), each
    counted into its own buffer; buffers are summed in chunk order.
    """
    cdef Py_ssize_t n = X.shape[0]
    cdef Py_ssize_t chunk, t
    cdef const double* w = NULL
    if sample_weight is not None:
        w = &sample_weight[0]
    n_chunks = max(1, n_chunks)
    counts_arr = np.zeros((k, total), dtype=np.float64)
    if n == 0 or total == 0:
        return counts_arr
    chunk_counts_arr = np.zeros((n_chunks, padded(k * total)), dtype=np.float64)
    cdef double[:, ::1] chunk_counts = chunk_counts_arr
    cdef double[:, ::1] counts_view = counts_arr
    cdef double* counts = &counts_view[0, 0]
    with nogil:
        if n_threads > 1:
            for chunk in prange(n_chunks, schedule='static', num_threads=n_threads):
                codes_chunk(X, &n_categories[0], &starts[0], &y[0], w, total,
                            chunk * n // n_chunks, (chunk + 1) * n // n_chunks,
                            &chunk_counts[chunk, 0])
        else:
            for chunk in range(n_chunks):
                codes_chunk(X, &n_categories[0], &starts[0], &y[0], w, total,
                            chunk * n // n_chunks, (chunk + 1) * n // n_chunks,
                            &chunk_counts[chunk, 0])
        for chunk in range(n_chunks):
            for t in range(k * total):
                counts[t] = counts[t] + chunk_counts[chunk, t]
    return counts_arr


def accumulate_codes(
    const value_t[:, ::1] X,          # IN: (n, d) codes of every feature
    const intp_t[::1] y,              # IN: (n,) class indices
    const double[::1] sample_weight,  # IN: (n,) or None
    const intp_t[::1] n_categories,   # IN: (d,) the fitted categories per feature
    const intp_t[::1] starts,         # IN: (d,) where feature j's counts start
    double[:, ::1] category_count,    # IN/OUT: (k, C) the fitted counts
    double decay=1.0,                 # what the fitted counts are scaled by first
):
    """Add a batch of codes to fitted counts in place, when it fits their layout.

    Returns False, having written nothing, when some value is not a code below its
    feature's fitted n_categories (nor missing): the batch then needs new columns.
    Otherwise the batch, counted by rows into a zeroed buffer as count_codes counts
    one chunk, is added: the fitted counts plus the batch's, the same bits as
    merging a separately counted batch. Under forgetting (``decay`` < 1) the
    fitted counts are decayed in the same pass: counts * decay + batch.
    """
    cdef Py_ssize_t n = X.shape[0]
    cdef Py_ssize_t d = X.shape[1]
    cdef Py_ssize_t k = category_count.shape[0]
    cdef Py_ssize_t total = category_count.shape[1]
    cdef Py_ssize_t i, t
    cdef const double* w = NULL
    cdef double* counts = &category_count[0, 0]
    cdef bint fits = True
    cdef double* batch = <double*>fastnb_calloc(k * total, sizeof(double))
    if batch == NULL:
        raise MemoryError("out of memory for the categorical batch counts")
    if sample_weight is not None:
        w = &sample_weight[0]
    with nogil:
        for i in range(n):
            if not count_code_row(&X[i, 0], d, &n_categories[0], &starts[0],
                                  1.0 if w == NULL else w[i], batch + y[i] * total):
                fits = False
                break
        if fits and decay == 1.0:
            for t in range(k * total):
                counts[t] = counts[t] + batch[t]
        elif fits:
            for t in range(k * total):
                counts[t] = counts[t] * decay + batch[t]
    fastnb_free(batch)
    return fits


# -- value features: a growable hash table per column -----------------------------------------
cdef struct Table:
    uint64_t* keys
    uint8_t* tags
    int64_t* ids      # the local id of the value in each used slot
    int64_t mask
    int64_t used


cdef int table_init(Table* t, int64_t size) noexcept nogil:
    t.keys = <uint64_t*>fastnb_malloc(size, sizeof(uint64_t))
    t.tags = <uint8_t*>fastnb_calloc(size, sizeof(uint8_t))
    t.ids = <int64_t*>fastnb_malloc(size, sizeof(int64_t))
    t.mask = size - 1
    t.used = 0
    if t.keys == NULL or t.tags == NULL or t.ids == NULL:
        table_free(t)
        return -1
    return 0


cdef void table_free(Table* t) noexcept nogil:
    fastnb_free(t.keys)
    fastnb_free(t.tags)
    fastnb_free(t.ids)
    t.keys = NULL
    t.tags = NULL
    t.ids = NULL


cdef inline int64_t table_slot(Table* t, uint8_t tag, uint64_t key) noexcept nogil:
    """The slot holding (tag, key), or the empty slot where it would go."""
    cdef int64_t slot = <int64_t>(slot_hash(tag, key) & <uint64_t>t.mask)
    while t.tags[slot] != TAG_EMPTY:
        if t.keys[slot] == key and t.tags[slot] == tag:
            return slot
        slot = (slot + 1) & t.mask
    return slot


cdef int table_grow(Table* t) noexcept nogil:
    cdef Table bigger
    cdef int64_t i, slot
    if table_init(&bigger, 2 * (t.mask + 1)) != 0:
        return -1
    for i in range(t.mask + 1):
        if t.tags[i] != TAG_EMPTY:
            slot = table_slot(&bigger, t.tags[i], t.keys[i])
            bigger.tags[slot] = t.tags[i]
            bigger.keys[slot] = t.keys[i]
            bigger.ids[slot] = t.ids[i]
    bigger.used = t.used
    table_free(t)
    t[0] = bigger
    return 0


cdef inline int64_t table_insert(Table* t, uint8_t tag, uint64_t key, int64_t id) noexcept nogil:
    """Insert (tag, key) -> id if absent; return the stored id, or -2 on no memory."""
    cdef int64_t slot = table_slot(t, tag, key)
    if t.tags[slot] != TAG_EMPTY:
        return t.ids[slot]
    if 2 * (t.used + 1) > t.mask + 1:
        if table_grow(t) != 0:
            return -2
        slot = table_slot(t, tag, key)
    t.tags[slot] = tag
    t.keys[slot] = key
    t.ids[slot] = id
    t.used += 1
    return id


# The distinct keys of one column in first-seen order, and their counts.
cdef struct Distinct:
    uint8_t* tags
    uint64_t* keys
    double* counts      # (capacity, k)
    int64_t n
    int64_t capacity


cdef int distinct_reserve(Distinct* found, int64_t need, Py_ssize_t k) noexcept nogil:
    cdef int64_t cap = found.capacity
    cdef int64_t i
    cdef void* p
    if need <= cap:
        return 0
    while cap < need:
        cap = 2 * cap if cap > 0 else 64
    p = fastnb_realloc(found.tags, cap, sizeof(uint8_t))
    if p == NULL:
        return -1
    found.tags = <uint8_t*>p
    p = fastnb_realloc(found.keys, cap, sizeof(uint64_t))
    if p == NULL:
        return -1
    found.keys = <uint64_t*>p
    p = fastnb_realloc(found.counts, cap * k, sizeof(double))
    if p == NULL:
        return -1
    found.counts = <double*>p
    for i in range(found.capacity * k, cap * k):
        found.counts[i] = 0.0
    found.capacity = cap
    return 0


cdef int hash_count_column(
    const value_t[:, ::1] X,      # IN: (n, d)
    Py_ssize_t col,               # IN: which column
    const intp_t* y,              # IN: (n,) class indices
    const double* w,              # IN: (n,) weights or NULL
    Py_ssize_t k,
    Distinct* found,              # OUT
) noexcept nogil:
    """Count one column's values in row order; 0, or -1 when out of memory."""
    cdef Table t
    cdef Py_ssize_t i
    cdef uint8_t tag = 0
    cdef uint64_t key = 0
    cdef int64_t id
    if table_init(&t, 1024) != 0:
        return -1
    for i in range(X.shape[0]):
        if numeric_key(X[i, col], &tag, &key):
            continue
        id = table_insert(&t, tag, key, found.n)
        if id == -2:
            table_free(&t)
            return -1
        if id == found.n:
            if distinct_reserve(found, found.n + 1, k) != 0:
                table_free(&t)
                return -1
            found.tags[id] = tag
            found.keys[id] = key
            found.n += 1
        found.counts[id * k + y[i]] += 1.0 if w == NULL else w[i]
    table_free(&t)
    return 0


def hash_count(
    const value_t[:, ::1] X,          # IN: (n, d)
    const intp_t[::1] cols,           # IN: the columns to count through hash tables
    const intp_t[::1] y,              # IN: (n,) class indices
    const double[::1] sample_weight,  # IN: (n,) or None
    Py_ssize_t k,
    int n_threads,
):
    """Count each column's distinct values per class in a growable hash table.

    Returns one ``(tags, keys, counts)`` per column: the distinct keys in
    first-seen order and their (k, n_distinct) counts. Each column is counted in
    row order by one thread, so the result does not depend on the thread count.
    """
    cdef Py_ssize_t m = cols.shape[0]
    cdef Py_ssize_t jj
    cdef const double* w = NULL
    cdef int failed = 0
    cdef Distinct* found = <Distinct*>fastnb_calloc(m, sizeof(Distinct))
    if found == NULL:
        raise MemoryError("out of memory in the categorical hash tables")
    if sample_weight is not None:
        w = &sample_weight[0]
    try:
        with nogil:
            if n_threads > 1:
                for jj in prange(m, schedule='static', num_threads=n_threads):
                    failed += hash_count_column(X, cols[jj], &y[0], w, k, &found[jj])
            else:
                for jj in range(m):
                    failed += hash_count_column(X, cols[jj], &y[0], w, k, &found[jj])
        if failed:
            raise MemoryError("out of memory in the categorical hash tables")
        return [distinct_arrays(&found[jj], k) for jj in range(m)]
    finally:
        for jj in range(m):
            fastnb_free(found[jj].tags)
            fastnb_free(found[jj].keys)
            fastnb_free(found[jj].counts)
        fastnb_free(found)


cdef tuple distinct_arrays(Distinct* found, Py_ssize_t k):
    """(tags, keys, counts (k, n)) arrays of what a column's table found."""
    cdef int64_t n = found.n
    cdef Py_ssize_t i, c
    tags_arr = np.empty(n, dtype=np.uint8)
    keys_arr = np.empty(n, dtype=np.uint64)
    counts_arr = np.empty((k, n), dtype=np.float64)
    cdef uint8_t[::1] tags = tags_arr
    cdef uint64_t[::1] keys = keys_arr
    cdef double[:, ::1] counts = counts_arr
    if n:
        memcpy(&tags[0], found.tags, n * sizeof(uint8_t))
        memcpy(&keys[0], found.keys, n * sizeof(uint64_t))
        # One pass over the value-major counts, k sequential streams out.
        for i in range(n):
            for c in range(k):
                counts[c, i] = found.counts[i * k + c]
    return tags_arr, keys_arr, counts_arr


# -- feature hashing ---------------------------------------------------------------------
cdef inline void bucket_count_column(const value_t[:, ::1] X, Py_ssize_t col,
                                     const intp_t* y, const double* w,
                                     intp_t n_buckets, double* counts) noexcept nogil:
    """counts (k, n_buckets) of one column's buckets, in row order."""
    cdef Py_ssize_t i
    cdef uint8_t tag = 0
    cdef uint64_t key = 0
    for i in range(X.shape[0]):
        if numeric_key(X[i, col], &tag, &key):
            continue
        counts[y[i] * n_buckets + bucket_of(tag, key, n_buckets)] += 1.0 if w == NULL else w[i]


def bucket_count(
    const value_t[:, ::1] X,          # IN: (n, d)
    const intp_t[::1] y,              # IN: (n,) class indices
    const double[::1] sample_weight,  # IN: (n,) or None
    Py_ssize_t k,
    intp_t n_buckets,
    int n_threads,
):
    """Feature hashing: (d, k, n_buckets) counts of each value's bucket.

    Memory is fixed by n_buckets, whatever the number of distinct values. Each
    column is counted in row order by one thread.
    """
    cdef Py_ssize_t d = X.shape[1]
    cdef Py_ssize_t jj
    cdef const double* w = NULL
    counts_arr = np.zeros((d, k, n_buckets), dtype=np.float64)
    cdef double[:, :, ::1] counts = counts_arr
    if sample_weight is not None:
        w = &sample_weight[0]
    with nogil:
        if n_threads > 1:
            for jj in prange(d, schedule='static', num_threads=n_threads):
                bucket_count_column(X, jj, &y[0], w, n_buckets, &counts[jj, 0, 0])
        else:
            for jj in range(d):
                bucket_count_column(X, jj, &y[0], w, n_buckets, &counts[jj, 0, 0])
    return counts_arr


# -- values keyed by the GIL side: counts of per-row ids ---------------------------------------
def count_ids(
    const int32_t[::1] ids,           # IN: (n,) the value's id per row, -1 missing
    Py_ssize_t n_ids,
    const intp_t[::1] y,              # IN: (n,) class indices
    const double[::1] sample_weight,  # IN: (n,) or None
    Py_ssize_t k,
):
    """(k, n_ids) counts of pre-keyed values, in row order."""
    cdef Py_ssize_t i
    cdef const double* w = NULL
    counts_arr = np.zeros((k, n_ids), dtype=np.float64)
    cdef double[:, ::1] counts = counts_arr
    if sample_weight is not None:
        w = &sample_weight[0]
    with nogil:
        for i in range(ids.shape[0]):
            if ids[i] >= 0:
                counts[y[i], ids[i]] += 1.0 if w == NULL else w[i]
    return counts_arr


def gather_ids(const int32_t[::1] lut, const int64_t[::1] positions, int32_t[::1] ids_out):
    """ids_out[i] = lut[positions[i]] (-1 where positions[i] < 0): the ids of a pandas
    Categorical's values from the ids of its categories."""
    cdef Py_ssize_t i
    with nogil:
        for i in range(positions.shape[0]):
            ids_out[i] = lut[positions[i]] if positions[i] >= 0 else -1


# -- in-place updates of fitted counts -------------------------------------------------------
def add_columns(double[:, ::1] category_count, Py_ssize_t start,
                const intp_t[::1] columns, const double[:, :] batch):
    """category_count[:, start + columns[i]] += batch[:, i], without temporaries."""
    cdef Py_ssize_t c, i
    with nogil:
        for c in range(batch.shape[0]):
            for i in range(batch.shape[1]):
                category_count[c, start + columns[i]] += batch[c, i]
