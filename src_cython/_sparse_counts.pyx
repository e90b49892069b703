"""Kernels of the sparse per-class count table (text-scale discrete models).

Design
------
With hashed text features (2**18 to 2**20 columns) and tens of classes, the dense
k x d count table is mostly zeros, and every partial_fit that rewrites it costs
O(k d) whatever the size of the batch. The sparse table (layout in
``_sparse_rows.pxd``) keeps only the non-zero counts, grouped by feature, so that

* ``table_add`` adds a CSR batch in O(nnz) (one short scan of the feature's
  block per non-zero; new classes are appended, a full block moves once) and
  lists the entries it changed;
* the models' log-likelihood weights are refreshed at the next predict, for
  the entries (``flush_multinomial``) or features (``pending_features``, then
  ``refresh_complement``) changed since, plus O(k) per-class terms in Python
  (BernoulliNB's weights depend on every class count, so they are derived at
  predict time instead, once per model state: ``bernoulli_entry_terms``);
* ``TablePredictor.predict`` (in ``_sparse_predict.pyx``) scores a CSR row in
  O(nnz x classes with counts).

Every count is summed in row order, starting from the current value, and the
entries of a feature are in the order their classes first appeared: any split of
the rows into batches gives the same bits as one fit. ``table_add`` is serial (a
batch is a millisecond of work); the refreshes are parallel over entries or
features and predict over rows, each computed alone, so results do not depend on
the thread count.

The joint log likelihood of row x is, for every model here,

    jll[c] = bias[c] + mult[c] * (sum_j x_j base_j + s(x) scale[c] + sum_{e of j} x_j w_e)

with s(x) = sum_j x_j, ``base`` a per-feature term shared by the classes without
a count, and ``w_e`` the difference a class's count makes.
"""

from cython.parallel cimport prange
from libc.stdint cimport int32_t, int64_t, uint8_t
from libc.math cimport INFINITY, NAN, exp, floor, log
from libc.string cimport memcpy

from _common cimport block_start, intp_t, floating
from _counts cimport (
    FASTNB_PREFETCH, FASTNB_PREFETCH_W, SMALL_COUNTS, fill_small_weights, is_small_whole,
    log_shifted,
)
from _sparse_rows cimport block_is_full, block_room, find_entry, is_stale, mark_stale

import numpy as np


ctypedef fused index_t:
    int
    long long


# prefetch distances of ``table_add``, in non-zeros
cdef enum:
    PREFETCH_INDEX = 16
    PREFETCH_BLOCK = 8

cdef inline double multinomial_weight(double count, double a, double log_a,
                                      const double* small) noexcept nogil:
    """log(count + a) - log(a); from ``small`` (``fill_small_weights`` of the
    same a, or NULL) for whole counts below SMALL_COUNTS: the same bits."""
    if small != NULL and is_small_whole(count):
        return small[<int>count]
    return log(count + a) - log_a


cdef inline void multinomial_block(const double* count, double* weight,
                                   Py_ssize_t length, double a, double log_a,
                                   const double* small) noexcept nogil:
    """MultinomialNB's weights of one feature's entries: what a count adds over
    the smoothing alone, log(N_cj + a_j) - log(a_j)."""
    cdef Py_ssize_t e
    for e in range(length):
        weight[e] = multinomial_weight(count[e], a, log_a, small)


cdef inline double complement_log_all(double total, double a,
                                      const double* small_logs) noexcept nogil:
    """ComplementNB's per-feature term log(F_j + a_j), in scikit-learn's order of
    operations, from the table where F_j is small and whole (a rare feature's;
    T1's refresh, 2 threads: 8.3 -> 6.5 ms)."""
    return log_shifted(total, total + a, a, small_logs)


cdef inline double complement_weight(double total, double count, double a,
                                     const double* small_logs,
                                     double log_all) noexcept nogil:
    """ComplementNB's weight of one entry: log(F_j + a_j - N_cj) - log(F_j + a_j),
    in scikit-learn's order of operations (``log_all``: ``complement_log_all``)."""
    return log_shifted(total - count, (total + a) - count, a, small_logs) - log_all


cdef inline void complement_block(const double* count, double* weight,
                                  Py_ssize_t length, double a,
                                  const double* small_logs, double* feature_all,
                                  double* feat_base) noexcept nogil:
    """ComplementNB's terms of one feature: F_j (its entries' counts added in
    block order) into ``feature_all``, log(F_j + a_j) into ``feat_base``, and each
    entry's log(F_j + a_j - N_cj) - log(F_j + a_j)."""
    cdef Py_ssize_t e
    cdef double total = 0.0, log_all
    for e in range(length):
        total = total + count[e]
    feature_all[0] = total
    log_all = complement_log_all(total, a, small_logs)
    feat_base[0] = log_all
    for e in range(length):
        weight[e] = complement_weight(total, count[e], a, small_logs, log_all)


# A clean row (every index in range, every value finite and >= 0) whose values,
# thresholded, are whole numbers below WHOLE_LIMIT, in a row of fewer than
# WHOLE_ROW_LIMIT non-zeros, is summed by ``whole_row_sum`` in four interleaved
# sums: every partial sum of such a row, in any order, is a whole number below
# 2**52, which a double holds exactly, so any order of the additions gives the
# bits of the sum in order. Text counts are whole, and their rows' sums were a
# chain of dependent additions (a floating-point add's latency a non-zero). Other
# rows are summed in order.
cdef double WHOLE_LIMIT = 2147483648.0      # 2**31
cdef Py_ssize_t WHOLE_ROW_LIMIT = 1 << 21
# a block stops trying once this many rows were not whole (tf-idf values, say)
cdef Py_ssize_t WHOLE_TRIES = 8

# A batch of unweighted whole counts below COMPACT_VALUE_LIMIT (after
# thresholding: 0/1), whose (class, feature offset) keys fit in COMPACT_KEY_BITS,
# is partitioned in compact records (``table_partition``): one int32 each, the
# count above the key, where a record was a double and an int32. Such a count
# converts to the double it was exactly, so the reduction's sums are the same.
cdef double COMPACT_VALUE_LIMIT = 32768.0    # 2**15: the count << 16 is an int32
cdef enum:
    COMPACT_KEY_BITS = 16                    # a constant: the shifts below fold
    # a compact partition's reduction keeps an entry's number above this bit of
    # its map cell, and its count below (``reduce_partition``)
    ENTRY_SHIFT = 47


cdef inline int32_t compact_record(int32_t count, int32_t key) noexcept nogil:
    """A compact record (or entry): the count above the key's COMPACT_KEY_BITS."""
    return (count << COMPACT_KEY_BITS) | key


cdef inline int32_t compact_key(int32_t record) noexcept nogil:
    return record & ((1 << COMPACT_KEY_BITS) - 1)


cdef inline int32_t compact_count(int32_t record) noexcept nogil:
    return record >> COMPACT_KEY_BITS


cdef inline bint whole_row_sum(const floating* x, Py_ssize_t n, bint binarize,
                               double threshold, double* total,
                               double* largest, double* smallest) noexcept nogil:
    """Whether the n values are finite and >= 0 and, thresholded (with binarize),
    whole numbers below WHOLE_LIMIT; if so, their sum into ``total``, and the
    largest and smallest values, before thresholding, into ``largest`` (0.0 for
    none) and ``smallest`` (+inf for none).

    Branch-free, in four lanes of running sums, minima, maxima and fractional
    parts: four independent chains of additions, which overlap (gcc 12 keeps
    the lanes scalar, some of them on the stack, and still ~1.6x faster than one
    chain on T1). A NaN or an infinity makes its lane's raw sum NaN or
    infinite."""
    cdef double raw0 = 0.0, raw1 = 0.0, raw2 = 0.0, raw3 = 0.0
    cdef double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0
    cdef double lo0 = INFINITY, lo1 = INFINITY, lo2 = INFINITY, lo3 = INFINITY
    cdef double hi0 = 0.0, hi1 = 0.0, hi2 = 0.0, hi3 = 0.0
    cdef double fr0 = 0.0, fr1 = 0.0, fr2 = 0.0, fr3 = 0.0
    cdef double v0, v1, v2, v3, raw, lo, hi, fr
    cdef Py_ssize_t p, n4 = n - n % 4
    if n >= WHOLE_ROW_LIMIT:
        return False
    for p in range(0, n4, 4):
        v0 = x[p]
        v1 = x[p + 1]
        v2 = x[p + 2]
        v3 = x[p + 3]
        raw0 += v0
        raw1 += v1
        raw2 += v2
        raw3 += v3
        lo0 = v0 if v0 < lo0 else lo0
        lo1 = v1 if v1 < lo1 else lo1
        lo2 = v2 if v2 < lo2 else lo2
        lo3 = v3 if v3 < lo3 else lo3
        hi0 = v0 if v0 > hi0 else hi0
        hi1 = v1 if v1 > hi1 else hi1
        hi2 = v2 if v2 > hi2 else hi2
        hi3 = v3 if v3 > hi3 else hi3
        if binarize:
            s0 += 1.0 if v0 > threshold else 0.0
            s1 += 1.0 if v1 > threshold else 0.0
            s2 += 1.0 if v2 > threshold else 0.0
            s3 += 1.0 if v3 > threshold else 0.0
        else:
            fr0 += v0 - floor(v0)
            fr1 += v1 - floor(v1)
            fr2 += v2 - floor(v2)
            fr3 += v3 - floor(v3)
    for p in range(n4, n):
        v0 = x[p]
        raw0 += v0
        lo0 = v0 if v0 < lo0 else lo0
        hi0 = v0 if v0 > hi0 else hi0
        if binarize:
            s0 += 1.0 if v0 > threshold else 0.0
        else:
            fr0 += v0 - floor(v0)
    raw = (raw0 + raw1) + (raw2 + raw3)
    lo = min(min(lo0, lo1), min(lo2, lo3))
    hi = max(max(hi0, hi1), max(hi2, hi3))
    fr = (fr0 + fr1) + (fr2 + fr3)
    if not (raw < INFINITY and lo >= 0.0):  # NaN fails
        return False
    largest[0] = hi
    smallest[0] = lo
    if binarize:
        total[0] = (s0 + s1) + (s2 + s3)
        return True
    total[0] = raw
    return hi < WHOLE_LIMIT and fr == 0.0


cdef void check_rows(
    const floating[::1] data,
    const index_t[::1] indices,
    const index_t[::1] indptr,
    Py_ssize_t n_features,
    const double* weights,            # (n,) or NULL
    double* row_total,                # OUT: (n,)
    bint binarize,
    double threshold,
    intp_t* flags,                    # OUT: [n_nan, n_inf, n_neg, n_malformed]
    Py_ssize_t row_start,             # the rows [row_start, row_stop) of this block
    Py_ssize_t row_stop,
    int64_t* part_count=NULL,         # OUT: (n_parts,) or NULL: the block's non-zeros
    int part_shift=0,                 #   (after thresholding) per partition of
    Py_ssize_t n_parts=0,             #   2**part_shift features (``table_partition``)
    int64_t* lane_count=NULL,         # SCRATCH: (3 * n_parts,) with part_count
    int* compact=NULL,                # OUT, or NULL: whether the block's records fit
                                      #   the compact form (see COMPACT_VALUE_LIMIT)
) noexcept nogil:
    cdef Py_ssize_t nnz = data.shape[0]
    cdef Py_ssize_t i, p, start, stop, j, q
    cdef Py_ssize_t n_nan = 0, n_inf = 0, n_neg = 0, n_malformed = 0
    cdef double x, row_sum, row_max, row_min
    cdef bint in_range
    cdef bint all_compact = weights == NULL
    # A text row's counts go to four histograms by position, summed at the end:
    # frequent features share a partition, and one histogram made its increments
    # a chain through memory (each waiting for the store before it), 36% of this
    # pass on T1
    cdef int64_t* count1 = lane_count
    cdef int64_t* count2 = lane_count + n_parts
    cdef int64_t* count3 = lane_count + 2 * n_parts
    if part_count != NULL:
        for q in range(n_parts):
            part_count[q] = 0
            count1[q] = 0
            count2[q] = 0
            count3[q] = 0
    cdef Py_ssize_t tries = WHOLE_TRIES
    cdef bint odd_index
    for i in range(row_start, row_stop):
        start = indptr[i]
        stop = indptr[i + 1]
        row_total[i] = 0.0
        if start < 0 or stop > nnz or stop < start:
            n_malformed += 1
            continue
        if tries > 0 and stop > start:
            odd_index = False
            for p in range(start, stop):
                odd_index = odd_index | (<size_t>indices[p] >= <size_t>n_features)
            if not odd_index:
                if whole_row_sum(&data[start], stop - start, binarize, threshold,
                                 &row_sum, &row_max, &row_min):
                    # a clean row: its partitions' counts, then the next row
                    all_compact = all_compact & (binarize
                                                 or row_max < COMPACT_VALUE_LIMIT)
                    if part_count != NULL:
                        if (row_sum == <double>(stop - start)) if binarize else (
                                row_min > 0.0):
                            # every value makes a record (text counts): the
                            # indices alone, where the test of each value was
                            # half of the loop's work
                            p = start
                            while p + 4 <= stop:
                                part_count[indices[p] >> part_shift] += 1
                                count1[indices[p + 1] >> part_shift] += 1
                                count2[indices[p + 2] >> part_shift] += 1
                                count3[indices[p + 3] >> part_shift] += 1
                                p = p + 4
                            while p < stop:
                                part_count[indices[p] >> part_shift] += 1
                                p = p + 1
                        else:
                            for p in range(start, stop):
                                part_count[indices[p] >> part_shift] += (
                                    (data[p] > threshold) if binarize
                                    else (data[p] != 0.0))
                    row_total[i] = (1.0 if weights == NULL else weights[i]) * row_sum
                    continue
                tries -= 1
        # (an empty row has no records)
        all_compact = all_compact & (stop == start)
        row_sum = 0.0
        for p in range(start, stop):
            j = indices[p]
            in_range = 0 <= j < n_features
            if not in_range:
                n_malformed += 1
            x = data[p]
            if x != x:
                n_nan += 1
                continue
            if x == INFINITY or x == -INFINITY:
                n_inf += 1
                continue
            if x < 0:
                n_neg += 1
            if binarize:
                x = 1.0 if x > threshold else 0.0
            row_sum = row_sum + x
            if part_count != NULL and x != 0.0 and in_range:
                part_count[j >> part_shift] += 1
        row_total[i] = (1.0 if weights == NULL else weights[i]) * row_sum
    if part_count != NULL:
        for q in range(n_parts):
            part_count[q] += count1[q] + count2[q] + count3[q]
    flags[0] = n_nan
    flags[1] = n_inf
    flags[2] = n_neg
    flags[3] = n_malformed
    if compact != NULL:
        compact[0] = all_compact


def csr_check(
    const floating[::1] data,         # IN: CSR values
    const index_t[::1] indices,       # IN: CSR column indices
    const index_t[::1] indptr,        # IN: (n + 1,) row pointers
    Py_ssize_t n_features,
    const intp_t[::1] codes,          # IN: (n,) class index in [0, k)
    const double[::1] sample_weight,  # IN: (n,) or None
    double[::1] row_total,            # OUT: (n,) each row's weighted sum of values
    double[::1] batch_total,          # OUT: (k,) zeros in, the row totals per class
    bint binarize,
    double threshold,
    int n_threads,
):
    """Read-only validation pass over a batch, before the table is touched, in
    parallel over blocks of rows.

    A row's total is ``w_i * (sum of its values)``, NaN left out and thresholded
    when binarizing, summed in non-zero order from 0.0: the table's class totals
    are these, added in row order (``add_row_totals``), so that any split of the
    rows into batches, and any thread count, gives the same bits.

    Returns ``(n_nan, n_inf, n_neg, n_malformed)``.
    """
    cdef Py_ssize_t n = codes.shape[0]
    cdef Py_ssize_t block, n_blocks = max(1, min(n_threads, n))
    cdef const double* weights = NULL
    if sample_weight is not None:
        weights = &sample_weight[0]
    flags_arr = np.zeros((n_blocks, 4), dtype=np.intp)
    cdef intp_t[:, ::1] flags = flags_arr
    if n == 0:
        return 0, 0, 0, 0
    with nogil:
        if n_blocks == 1:
            check_rows(data, indices, indptr, n_features, weights, &row_total[0],
                       binarize, threshold, &flags[0, 0], 0, n)
        else:
            for block in prange(n_blocks, schedule='static', num_threads=n_blocks):
                check_rows(data, indices, indptr, n_features, weights, &row_total[0],
                           binarize, threshold, &flags[block, 0],
                           block_start(block, n_blocks, n),
                           block_start(block + 1, n_blocks, n))
        add_totals(codes, &row_total[0], &batch_total[0], 0, n)
    totals = flags_arr.sum(axis=0)
    return tuple(int(t) for t in totals)


cdef inline void add_totals(const intp_t[::1] codes, const double* row_total,
                            double* class_total, Py_ssize_t row_start,
                            Py_ssize_t row_stop) noexcept nogil:
    cdef Py_ssize_t i
    for i in range(row_start, row_stop):
        class_total[codes[i]] += row_total[i]


def add_row_totals(const intp_t[::1] codes, const double[::1] row_total,
                   double[::1] class_total):
    """class_total[c] += the total of each row of class c, in row order."""
    if codes.shape[0] == 0:
        return
    with nogil:
        add_totals(codes, &row_total[0], &class_total[0], 0, codes.shape[0])


def add_class_counts(const intp_t[::1] codes, const double[::1] sample_weight,
                     double[::1] class_count):
    """class_count[c] += the weight of each row of class c, in row order."""
    cdef Py_ssize_t i
    with nogil:
        for i in range(codes.shape[0]):
            class_count[codes[i]] += 1.0 if sample_weight is None else sample_weight[i]


def table_add(
    const floating[::1] data,         # IN: CSR values (validated, no NaN)
    const index_t[::1] indices,       # IN: CSR column indices (validated)
    const index_t[::1] indptr,        # IN: (n + 1,) row pointers (validated)
    const intp_t[::1] codes,          # IN: (n,) class index
    const double[::1] sample_weight,  # IN: (n,) or None
    bint binarize,
    double threshold,
    int64_t[::1] feat_start,          # IN/OUT: (d,) block start (undefined when empty)
    int32_t[::1] feat_len,            # IN/OUT: (d,) entries in the block
    int32_t[::1] ent_class,           # IN/OUT: (capacity,) pool
    double[::1] ent_count,            # IN/OUT: (capacity,) pool
    double[::1] ent_weight,           # IN/OUT: (capacity,) pool (moved with blocks)
    uint8_t[::1] ent_stale,           # IN/OUT: (>= capacity / 8,) bitmap of the listed
    int64_t[::1] pend_feat,           # IN/OUT: with `pending`, room for the listed
    int32_t[::1] pend_off,            # entries plus nnz: feature and block offset
    int64_t[::1] sizes,               # IN/OUT: [pool entries used, entries listed]
    int64_t[:, ::1] undo_block,       # OUT: (nnz, 3) block changes: feature, start, length
    int64_t[::1] undo_entry,          # OUT: (2 nnz,) the entries changed, in order,
    double[::1] undo_value,           #   and their old counts
    int64_t[::1] undo_sizes,          # OUT: [block changes, entry changes]
    bint pending,
    bint zero_entries=False,
):
    """Add w_i * x_ij (or w_i * [x_ij > threshold]) into the table.

    With ``zero_entries``, every stored position of the batch gets an entry for
    its row's class but nothing is added to it (BernoulliNB: the (class, feature)
    pairs with missing values need their own entry weights even where the count
    is zero).

    With ``pending``, the entries whose weights the batch makes stale are listed
    for the model's next refresh (``flush_multinomial``, ``pending_features``),
    so that a batch costs no log at all: an entry is marked stale in
    ``ent_stale`` the first time it changes, and listed then by feature and
    offset in its block, which stay valid when the block moves. An entry is
    listed once however often it is hit until the refresh (Zipf: ~34,000
    non-zeros of a T1 batch change ~24,500 entries), and a refresh costs what the
    batches since the last one changed. The weight itself is not read or
    written until the refresh: the mark is a bit in cache, the weight a line of
    a third pool array.

    Every change is logged (``undo_*``), so that ``table_undo`` can put the table
    back as it was: a partial_fit that fails later (the pool cannot grow, a later
    step raises) changes nothing. The log is two sequential stores a non-zero;
    an entry's old count is kept in ``undo_value`` with its position in
    ``undo_entry``, and a new mark as -(position + 1). Moving a block writes
    only beyond the pool's used entries, which undoing the block change (and
    the pool's size, in Python) gives back.

    Returns the row where the pool ran out of room (nothing of its non-zero
    is applied: undo, grow the pool and add the batch again), or -1 when the
    batch is in.
    """
    cdef Py_ssize_t n = codes.shape[0]
    cdef Py_ssize_t capacity = ent_class.shape[0]
    cdef Py_ssize_t i, p, e, j
    cdef int64_t used = sizes[0], n_pending = sizes[1], old, fresh, ahead
    cdef int64_t n_blocks = 0, n_entries = 0
    cdef int32_t c, length
    cdef double x, w
    cdef Py_ssize_t stop_row = -1, last = indptr[n]
    if ent_stale.shape[0] * 8 < capacity:
        raise ValueError("table_add: the stale bitmap is smaller than the pool")
    cdef uint8_t* marks = &ent_stale[0]
    with nogil:
        for i in range(n):
            c = <int32_t>codes[i]
            w = 1.0 if sample_weight is None else sample_weight[i]
            for p in range(indptr[i], indptr[i + 1]):
                # A batch's rare features are cache misses in the (d,) index and
                # the pool (~17,000 distinct features per T1 batch): fetch the
                # index PREFETCH_INDEX non-zeros ahead and, from it, the block
                # PREFETCH_BLOCK ahead, so that the misses overlap
                if p + PREFETCH_INDEX < last:
                    j = indices[p + PREFETCH_INDEX]
                    FASTNB_PREFETCH(&feat_len[j])
                    FASTNB_PREFETCH(&feat_start[j])
                if p + PREFETCH_BLOCK < last:
                    # (an empty feature's start is undefined: kept in the pool)
                    ahead = feat_start[indices[p + PREFETCH_BLOCK]]
                    ahead = ahead if 0 < ahead < capacity else 0
                    FASTNB_PREFETCH(&ent_class[ahead])
                    FASTNB_PREFETCH(&ent_count[ahead])
                if zero_entries:
                    x = 0.0
                else:
                    x = data[p]
                    if binarize:
                        x = 1.0 if x > threshold else 0.0
                    if x == 0.0:
                        continue
                    x = w * x
                j = indices[p]
                length = feat_len[j]
                e = -1
                if length > 0:
                    e = find_entry(&ent_class[0], feat_start[j], length, c)
                if e < 0:
                    fresh = 0
                    if block_is_full(length):
                        fresh = 1 if length == 0 else 2 * length
                        if used + fresh > capacity:
                            stop_row = i
                            break
                    undo_block[n_blocks, 0] = j
                    undo_block[n_blocks, 1] = feat_start[j]
                    undo_block[n_blocks, 2] = length
                    n_blocks += 1
                    if fresh:
                        old = feat_start[j]
                        for e in range(length):
                            ent_class[used + e] = ent_class[old + e]
                            ent_count[used + e] = ent_count[old + e]
                            ent_weight[used + e] = ent_weight[old + e]
                            mark_stale(marks, used + e, is_stale(marks, old + e))
                        feat_start[j] = used
                        used += fresh
                    e = feat_start[j] + length
                    ent_class[e] = c
                    ent_count[e] = 0.0
                    ent_weight[e] = 0.0
                    mark_stale(marks, e, False)  # listed below
                    feat_len[j] = length + 1
                if not zero_entries:
                    undo_entry[n_entries] = e
                    undo_value[n_entries] = ent_count[e]
                    n_entries += 1
                    ent_count[e] += x
                if pending and not is_stale(marks, e):
                    # (a mark's undo_value is not read: the mark was clear)
                    undo_entry[n_entries] = -(e + 1)
                    n_entries += 1
                    mark_stale(marks, e, True)
                    pend_feat[n_pending] = j
                    pend_off[n_pending] = <int32_t>(e - feat_start[j])
                    n_pending += 1
            if stop_row >= 0:
                break
    sizes[0] = used
    sizes[1] = n_pending
    undo_sizes[0] = n_blocks
    undo_sizes[1] = n_entries
    return stop_row


def table_undo(
    int64_t[::1] feat_start,          # IN/OUT: (d,)
    int32_t[::1] feat_len,            # IN/OUT: (d,)
    double[::1] ent_count,            # IN/OUT: the pool ``table_add`` wrote into
    uint8_t[::1] ent_stale,
    const int64_t[:, ::1] undo_block,  # IN: the log of ``table_add``
    const int64_t[::1] undo_entry,
    const double[::1] undo_value,
    const int64_t[::1] undo_sizes,
):
    """Put back what ``table_add`` changed, last change first: the table's index,
    counts and stale marks are those before the call, bit for bit (it writes no
    weight of a live entry)."""
    cdef Py_ssize_t r, e
    with nogil:
        for r in range(undo_sizes[1] - 1, -1, -1):
            e = undo_entry[r]
            if e >= 0:
                ent_count[e] = undo_value[r]
            else:
                mark_stale(&ent_stale[0], -e - 1, False)
        for r in range(undo_sizes[0] - 1, -1, -1):
            feat_start[undo_block[r, 0]] = undo_block[r, 1]
            feat_len[undo_block[r, 0]] = <int32_t>undo_block[r, 2]


def flush_multinomial(
    const int64_t[::1] pend_feat,     # IN: the listed entries (``table_add``)
    const int32_t[::1] pend_off,
    const int64_t[::1] feat_start,
    const double[::1] ent_count,
    double[::1] ent_weight,           # OUT: log(N_cj + a_j) - log(a_j) of those entries
    uint8_t[::1] ent_stale,           # IN/OUT: their marks are cleared
    const double[::1] alpha,          # IN: (d,) or (1,) smoothing
    int n_threads,
):
    """MultinomialNB's weights of the entries listed since the last refresh: the
    expression of ``refresh_multinomial`` (the same bits). The entries are
    distinct, so the threads share nothing; their marks (bits that share bytes)
    are cleared after, on one thread."""
    cdef Py_ssize_t t, j, e, ahead, n = pend_feat.shape[0]
    cdef double a
    cdef bint scalar = alpha.shape[0] == 1
    cdef double a0 = alpha[0], log_a0 = log(alpha[0])
    cdef double small[SMALL_COUNTS]
    cdef const double* lookup = NULL
    if scalar and n >= SMALL_COUNTS:
        fill_small_weights(small, a0, log_a0)
        lookup = small
    with nogil:
        for t in prange(n, schedule='static', num_threads=n_threads,
                        use_threads_if=n_threads > 1):
            # the listed entries are in first-touch order, scattered over the
            # index and the pool: prefetched ahead as in ``table_add``
            if t + PREFETCH_INDEX < n:
                FASTNB_PREFETCH(&feat_start[pend_feat[t + PREFETCH_INDEX]])
            if t + PREFETCH_BLOCK < n:
                ahead = feat_start[pend_feat[t + PREFETCH_BLOCK]] + pend_off[t + PREFETCH_BLOCK]
                FASTNB_PREFETCH(&ent_count[ahead])
                FASTNB_PREFETCH(&ent_weight[ahead])
            j = pend_feat[t]
            e = feat_start[j] + pend_off[t]
            if scalar:
                ent_weight[e] = multinomial_weight(ent_count[e], a0, log_a0, lookup)
            else:
                a = alpha[j]
                ent_weight[e] = multinomial_weight(ent_count[e], a, log(a), NULL)
        for t in range(n):
            mark_stale(&ent_stale[0], feat_start[pend_feat[t]] + pend_off[t], False)


def pending_features(
    int64_t[::1] pend_feat,           # IN/OUT: the listed entries' features; out: the
    const int32_t[::1] pend_off,      # distinct features in its first m places
    const int64_t[::1] feat_start,
    const int32_t[::1] feat_len,
    uint8_t[::1] ent_stale,           # IN/OUT: the listed entries' marks are cleared
):
    """The features of the listed entries, each once (ComplementNB refreshes every
    entry of a feature whose total changed): the first listed entry of a feature
    clears the stale marks of its block, so its later entries are skipped.
    Returns m."""
    cdef Py_ssize_t t, j, e, s, m = 0
    cdef uint8_t* marks = &ent_stale[0]
    with nogil:
        for t in range(pend_feat.shape[0]):
            j = pend_feat[t]
            s = feat_start[j]
            e = s + pend_off[t]
            if not is_stale(marks, e):
                continue
            for e in range(s, s + feat_len[j]):
                mark_stale(marks, e, False)
            pend_feat[m] = j
            m += 1
    return m


# -- building a fresh table from a large first batch ----------------------------
#
# The non-zeros are bucketed by feature in two steps, so that no step writes at
# random into memory much larger than a core's caches (one step straight into d
# buckets missed the cache on nearly every non-zero: 20 ns each on T1):
#
# 1. ``table_partition`` copies each non-zero into the partition of its feature
#    (2**part_shift consecutive features: about a thousand partitions, so that
#    their write positions stay cached), in parallel over blocks of rows, each
#    block's records after those of the blocks before it (T1: 17.7 ms on one
#    thread, 7.4 ms on two);
# 2. ``table_reduce``: each partition's non-zeros are summed into entries through
#    a dense (feature, class) map of the partition (in cache), and its entries
#    placed by feature (a stable counting sort), in parallel over partitions
#    (for ComplementNB, each feature's total F_j summed as its entries are placed);
# 3. ``table_fill`` copies the entries into the pool, with the model's weights,
#    in parallel over partitions.
#
# Each step keeps row order inside a feature, and no partition shares anything
# with another: the entries and bits are those of ``table_add`` from an empty
# table, whatever the thread count.
#
# A record is a value (the weighted count, ``rec_value``) and a key (class <<
# part_shift | the feature's offset in its partition, ``rec_key``: the key of
# the partition's map as it is), 12 bytes, in two arrays rather than one of
# 12-byte structs: T1's 3.4M records in one array took 41 MB, above glibc's
# largest mmap threshold (32 MB), so every fit mapped it afresh and the kernel
# zeroed its pages (1,200-1,400 page faults, 4-10 ms of system time a fit);
# arrays of 27 and 14 MB come back from the heap. A partition's reduction keeps
# its entries (in cache) as structs. A batch of unweighted whole counts below
# COMPACT_VALUE_LIMIT, whose keys fit in COMPACT_KEY_BITS, is copied in compact
# records instead, one int32 each in ``rec_key`` (count << COMPACT_KEY_BITS |
# key; ``rec_value`` is not written): T1's copy writes 14 MB, not 41 MB, and
# took 20.7-21.3 ms where it took 25.2-28.3 ms (with the validation pass, 2
# threads). The reduction reads either form. It writes a partition's entries in
# the same compact form where it read compact records and every entry's count
# is still below COMPACT_VALUE_LIMIT (T1: every partition but the first, whose
# frequent features count up to 10**5), else as a value and a key; the fill
# reads either form.

cdef packed struct BucketRecord:
    double value        # the count (the weighted value)
    int32_t key         # as ``rec_key``


cdef inline int32_t record_offset(int32_t key, int part_shift) noexcept nogil:
    return key & ((1 << part_shift) - 1)


cdef void partition_rows(
    const floating[::1] data,
    const index_t[::1] indices,
    const index_t[::1] indptr,
    const intp_t[::1] codes,
    const double* weights,            # (n,) or NULL
    bint binarize,
    double threshold,
    int part_shift,
    int64_t* fill,                    # IN/OUT: (n_parts,) the block's next record
    double* out_value,                #   of each partition; OUT: the records
    int32_t* out_key,
    Py_ssize_t row_start,             # the rows [row_start, row_stop) of this block
    Py_ssize_t row_stop,
    bint compact,                     # compact records: out_key only, the count in
                                      #   its high bits (``table_partition``)
) noexcept nogil:
    cdef Py_ssize_t i, p, j
    cdef int64_t q = 0, part, current = -1
    cdef int64_t mask = (<int64_t>1 << part_shift) - 1
    cdef int32_t c
    cdef double x, w
    for i in range(row_start, row_stop):
        c = <int32_t>codes[i]
        w = 1.0 if weights == NULL else weights[i]
        for p in range(indptr[i], indptr[i + 1]):
            x = data[p]
            if binarize:
                x = 1.0 if x > threshold else 0.0
            if x == 0.0:
                continue
            j = indices[p]
            # The write position of the partition of the last record stays in a
            # register while the records stay in it (a row's indices ascend, and
            # its frequent features share a partition): read and written back
            # through memory for each record, it made a chain of dependent loads
            # and stores (T1: two thirds of this pass)
            part = j >> part_shift
            if part != current:
                if current >= 0:
                    fill[current] = q
                current = part
                q = fill[part]
            if compact:
                FASTNB_PREFETCH_W(&out_key[q + 16])
                out_key[q] = compact_record(<int32_t>x,
                                            (c << part_shift) | <int32_t>(j & mask))
            else:
                FASTNB_PREFETCH_W(&out_value[q + 8])
                FASTNB_PREFETCH_W(&out_key[q + 16])
                out_value[q] = w * x
                out_key[q] = (c << part_shift) | <int32_t>(j & mask)
            q = q + 1
    if current >= 0:
        fill[current] = q


def table_partition(
    const floating[::1] data,         # IN: CSR values
    const index_t[::1] indices,       # IN: CSR column indices
    const index_t[::1] indptr,        # IN: (n + 1,) row pointers
    Py_ssize_t n_features,
    const intp_t[::1] codes,          # IN: (n,) class index in [0, k)
    const double[::1] sample_weight,  # IN: (n,) or None
    bint binarize,
    double threshold,
    int part_shift,                   # a partition holds 2**part_shift features
    int64_t[::1] part_start,          # OUT: (n_parts + 1,) first record of each
    double[::1] rec_value,            # OUT: (>= nnz,) the records' values
    int32_t[::1] rec_key,             # OUT: (>= nnz,) and keys (``BucketRecord``)
    int64_t[:, ::1] fill,             # SCRATCH: (n_blocks, n_parts)
    double[::1] row_total,            # OUT: (n,) as ``csr_check``
    double[::1] batch_total,          # OUT: (k,) zeros in, as ``csr_check``
    bint stop_on_negative,
    bint compact_keys=False,          # the (class, offset) keys fit in COMPACT_KEY_BITS
):
    """Validate a batch and copy its non-zeros (thresholded and weighted) into
    their features' partitions, in row order, in parallel over ``fill.shape[0]``
    blocks of rows.

    A batch of unweighted whole counts below COMPACT_VALUE_LIMIT (any batch,
    thresholded), with ``compact_keys``, is written in compact records: each an
    int32 in ``rec_key``, count << COMPACT_KEY_BITS | key, and ``rec_value`` is
    not written (T1: 14 MB written where it was 41 MB).

    The first pass is ``csr_check``'s, which also counts each block's records
    per partition (one read of the batch where a check and a count took two:
    T1, 2 threads, ~3 ms). Only a batch it finds clean - no NaN, infinity or
    malformed entry, and no negative value with ``stop_on_negative`` - is
    written, by the second pass: a parallel counting sort, each block writing
    its records after those of the blocks before it, so that the records are
    the same for any number of blocks.

    Returns ``(n_nan, n_inf, n_neg, n_malformed, largest, compact)``:
    ``csr_check``'s flags, the size of the largest partition, or -1 when nothing
    was written, and whether the records are compact.
    """
    cdef Py_ssize_t n = codes.shape[0], n_parts = part_start.shape[0] - 1
    cdef Py_ssize_t n_blocks = fill.shape[0]
    cdef Py_ssize_t block, q, largest = 0
    cdef int64_t position = 0, size
    cdef const double* weights = NULL
    if sample_weight is not None:
        weights = &sample_weight[0]
    flags_arr = np.zeros((n_blocks, 4), dtype=np.intp)
    cdef intp_t[:, ::1] flags = flags_arr
    compact_arr = np.zeros(n_blocks, dtype=np.intc)
    cdef int[::1] block_compact = compact_arr
    cdef int64_t[:, ::1] lanes = np.empty((n_blocks, 3 * n_parts), dtype=np.int64)
    cdef bint compact
    with nogil:
        if n_blocks == 1:
            check_rows(data, indices, indptr, n_features, weights, &row_total[0],
                       binarize, threshold, &flags[0, 0], 0, n, &fill[0, 0],
                       part_shift, n_parts, &lanes[0, 0], &block_compact[0])
        else:
            for block in prange(n_blocks, schedule='static', num_threads=n_blocks):
                check_rows(data, indices, indptr, n_features, weights, &row_total[0],
                           binarize, threshold, &flags[block, 0],
                           block_start(block, n_blocks, n),
                           block_start(block + 1, n_blocks, n), &fill[block, 0],
                           part_shift, n_parts, &lanes[block, 0],
                           &block_compact[block])
        add_totals(codes, &row_total[0], &batch_total[0], 0, n)
    n_nan, n_inf, n_neg, n_malformed = (int(t) for t in flags_arr.sum(axis=0))
    if n_nan or n_inf or n_malformed or (n_neg and stop_on_negative):
        return n_nan, n_inf, n_neg, n_malformed, -1, False
    # (and fewer than 2**32 records, so that a partition's reduction sums them
    # below 2**47: see ENTRY_SHIFT)
    compact = compact_keys and bool(compact_arr.all()) and data.shape[0] < 2**32
    with nogil:
        # each block's first record of each partition
        for q in range(n_parts):
            part_start[q] = position
            for block in range(n_blocks):
                size = fill[block, q]
                fill[block, q] = position
                position += size
            largest = max(largest, position - part_start[q])
        part_start[n_parts] = position
        if n_blocks == 1:
            partition_rows(data, indices, indptr, codes, weights, binarize, threshold,
                           part_shift, &fill[0, 0], &rec_value[0], &rec_key[0], 0, n,
                           compact)
        else:
            for block in prange(n_blocks, schedule='static', num_threads=n_blocks):
                partition_rows(data, indices, indptr, codes, weights, binarize, threshold,
                               part_shift, &fill[block, 0], &rec_value[0], &rec_key[0],
                               block_start(block, n_blocks, n),
                               block_start(block + 1, n_blocks, n), compact)
    return n_nan, n_inf, n_neg, n_malformed, largest, compact


cdef inline double largest_value(const BucketRecord* entries,
                                 Py_ssize_t n) noexcept nogil:
    """The largest of the entries' values (>= 0, not NaN), or 0.0: in four running
    maxima, where one was a chain of max latencies (7% of T1's reduction)."""
    cdef double m0 = 0.0, m1 = 0.0, m2 = 0.0, m3 = 0.0
    cdef Py_ssize_t e, n4 = n - n % 4
    for e in range(0, n4, 4):
        m0 = max(m0, entries[e].value)
        m1 = max(m1, entries[e + 1].value)
        m2 = max(m2, entries[e + 2].value)
        m3 = max(m3, entries[e + 3].value)
    for e in range(n4, n):
        m0 = max(m0, entries[e].value)
    return max(max(m0, m1), max(m2, m3))


cdef int64_t reduce_partition(
    double* rec_value,                # IN/OUT: the partition's records; its entries out
    int32_t* rec_key,
    Py_ssize_t n_records,
    Py_ssize_t first_feature,
    Py_ssize_t n_features,            # of this partition
    int part_shift,
    int64_t* index,                   # SCRATCH: (2**part_shift * k,) all -1, left so
    BucketRecord* entries,            # SCRATCH: (entries of the largest partition,)
    int64_t* start,                   # SCRATCH: (n_features + 1,)
    int32_t* feat_len,                # OUT: entries of each feature
    bint compact,                     # IN: compact records (``table_partition``)
    uint8_t* compact_entries,         # OUT: whether the entries are written compact
    double* feature_total,            # OUT, or NULL: (n_features,) each feature's
                                      #   entries summed in block order from 0.0
) noexcept nogil:
    """Reduce one partition to its entries (each feature's classes in the order
    they first appear, counts summed in row order from 0.0), written over the
    partition's records in feature order: compact (as compact records) where the
    records were and every count still fits, else a value and a key each.
    Returns the pool room of its features.

    The records are summed into entries in row order through ``index``, a dense
    (feature, class) map of the partition (in cache): of int32 entry numbers, or,
    for compact records, of int64 cells holding the entry number and the count
    (ENTRY_SHIFT); either form leaves every byte of the map -1 again. The
    entries, in the order they were made, are then placed by feature (a stable
    counting sort).
    A compact partition writes 4 bytes an entry over its records (in cache), where
    a value and a key wrote 8 more into ``rec_value``, which the records had not
    touched (T1: 10 MB read for ownership and written, and read again by the
    fill). Where an entry starts is not written: the fill sums the lengths."""
    cdef Py_ssize_t r, f, e, n_entries = 0
    cdef int32_t key, offset
    cdef int64_t room_sum = 0, t
    cdef int32_t length
    cdef int64_t is_new, bits, cell
    cdef double so_far, value, largest = 0.0
    cdef bint as_compact
    cdef int32_t* index32 = <int32_t*>index
    cdef int32_t* order = <int32_t*>entries
    if compact:
        # Whole counts: each (feature, class) cell of the map holds its entry's
        # number above ENTRY_SHIFT and its count below (exact: a partition's
        # entries number at most 2**16, and the counts of its records, each below
        # 2**15, sum below 2**47), -1 for none yet; ``order`` lists the keys as
        # their entries are made. A record reads and writes one cell, where an
        # entry number from the map, then the entry, made two dependent loads
        # (the entry's a cache miss in T1's first partition, whose entries do
        # not fit in L2 beside the map: 31% of this step).
        for r in range(n_records):
            key = compact_key(rec_key[r])
            cell = index[key]
            is_new = cell >> 63                  # all ones for a new entry, else 0
            cell = (cell & ~is_new) | ((<int64_t>n_entries << ENTRY_SHIFT) & is_new)
            order[n_entries] = key               # kept only by a new entry
            n_entries -= is_new
            index[key] = cell + compact_count(rec_key[r])
        # the entries, in the order they were made (``order`` is read before the
        # entry written over it: 12 bytes an entry, 4 a key)
        for e in range(n_entries - 1, -1, -1):
            key = order[e]
            cell = index[key]
            entries[e].key = key
            entries[e].value = <double>(cell & ((<int64_t>1 << ENTRY_SHIFT) - 1))
            index[key] = -1
    else:
        for r in range(n_records):
            # Branch-free (masks, which the compiler keeps; it turns a select
            # back into a branch): whether a record starts an entry is a coin
            # toss (T1: a third of them do). A new entry's value is read from the
            # scratch and masked to +0.0, so that it starts as 0.0 + the
            # record's value.
            key = rec_key[r]
            value = rec_value[r]
            e = index32[key]
            is_new = <int64_t>e >> 63            # all ones for a new entry, else 0
            e = (e & ~is_new) | (n_entries & is_new)
            n_entries -= is_new
            index32[key] = <int32_t>e
            entries[e].key = key
            memcpy(&bits, &entries[e].value, sizeof(double))
            bits = bits & ~is_new
            memcpy(&so_far, &bits, sizeof(double))
            entries[e].value = so_far + value
        for e in range(n_entries):
            index32[entries[e].key] = -1
    for f in range(n_features + 1):
        start[f] = 0
    if feature_total != NULL:
        # ComplementNB's F_j: the entries of a feature are made, and so summed
        # here, in the order the placement below keeps in its block (the sum
        # ``complement_block`` takes, the same bits), so the fill computes each
        # entry's weight as it copies it, in one pass where it took two
        for f in range(n_features):
            feature_total[f] = 0.0
        for e in range(n_entries):
            offset = record_offset(entries[e].key, part_shift)
            start[offset + 1] += 1
            feature_total[offset] = feature_total[offset] + entries[e].value
    else:
        for e in range(n_entries):
            start[record_offset(entries[e].key, part_shift) + 1] += 1
    if compact:
        largest = largest_value(entries, n_entries)
    for f in range(n_features):
        length = <int32_t>start[f + 1]
        start[f + 1] += start[f]
        feat_len[first_feature + f] = length
        room_sum += block_room(length)
    # (compact records hold whole counts from 1 to COMPACT_VALUE_LIMIT - 1, without
    # weights: their sums are whole, and exact)
    as_compact = compact and largest < COMPACT_VALUE_LIMIT
    compact_entries[0] = as_compact
    if as_compact:
        for e in range(n_entries):
            offset = record_offset(entries[e].key, part_shift)
            t = start[offset]
            rec_key[t] = compact_record(<int32_t>entries[e].value, entries[e].key)
            start[offset] = t + 1
    else:
        for e in range(n_entries):
            offset = record_offset(entries[e].key, part_shift)
            t = start[offset]
            rec_value[t] = entries[e].value
            rec_key[t] = entries[e].key
            start[offset] = t + 1
    return room_sum


def table_reduce(
    double[::1] rec_value,            # IN/OUT: the records from table_partition
    int32_t[::1] rec_key,
    const int64_t[::1] part_start,    # IN: (n_parts + 1,) from table_partition
    int part_shift,
    int32_t[::1] feat_len,            # OUT: (d,) entries of each feature
    int64_t[::1] part_room,           # OUT: (n_parts,) pool room of each partition
    uint8_t[::1] part_compact,        # OUT: (n_parts,) its entries are compact
    int64_t[:, ::1] index,            # SCRATCH: (n_threads, 2**part_shift * k), all -1
    uint8_t[:, ::1] entries,          # SCRATCH: (n_threads, 12 * entries of a partition)
    int64_t[:, ::1] starts,           # SCRATCH: (n_threads, 2**part_shift + 1)
    int n_threads,
    bint compact=False,               # the records are compact (``table_partition``)
    double[::1] feature_all=None,     # OUT, or None: (d,) each feature's total, in
                                      #   block order (ComplementNB's F_j)
):
    """Reduce every partition to its entries (``reduce_partition``), in parallel:
    each thread a run of consecutive partitions of about equal work
    (``balanced_runs``). Each partition's entries follow in feature order from
    its ``part_start``: a feature's start is the sum of the lengths before it."""
    cdef Py_ssize_t d = feat_len.shape[0], n_parts = part_start.shape[0] - 1
    cdef Py_ssize_t q, first, t
    cdef double* values = &rec_value[0]
    cdef int32_t* keys = &rec_key[0]
    cdef double* totals = NULL
    if feature_all is not None:
        if feature_all.shape[0] != d:
            raise ValueError("table_reduce: feature_all must have one value a feature")
        totals = &feature_all[0]
    # index.shape[1]: the (feature, class) pairs of a partition
    cdef intp_t[::1] runs = balanced_runs(part_start, <int64_t>1 << part_shift,
                                          index.shape[1], n_threads)
    with nogil:
        for t in prange(n_threads, schedule='static', num_threads=n_threads,
                        use_threads_if=n_threads > 1):
            for q in range(runs[t], runs[t + 1]):
                first = q << part_shift
                part_room[q] = reduce_partition(
                    values + part_start[q], keys + part_start[q],
                    part_start[q + 1] - part_start[q], first,
                    min(d - first, <Py_ssize_t>1 << part_shift), part_shift,
                    &index[t, 0], <BucketRecord*>&entries[t, 0], &starts[t, 0],
                    &feat_len[0], compact, &part_compact[q],
                    NULL if totals == NULL else totals + first)


def balanced_runs(const int64_t[::1] part_start, int64_t width, int64_t cells,
                  int n_runs):
    """(n_runs + 1,) bounds cutting the partitions into n_runs runs of consecutive
    partitions of about equal work: run t holds [runs[t], runs[t + 1]).

    Partitions by feature are far from equal when the frequent features are
    numbered together (a vocabulary by frequency: T1's first partition holds 44%
    of its records), and an equal count of partitions a thread left one thread
    with most of the work. A partition's work is counted as its records, plus
    the entries they can make (at most min(records, ``cells``), its (feature,
    class) pairs), plus its ``width`` features, whose index it writes: each
    costs about the same (T1, one thread: the first partition, 1.48M records,
    36k entries and 1,024 features, 4.0 ms; the rest, 1.92M records, 1.22M
    entries and 1.05M features, 10.7 ms). A partition is reduced whole, by one
    thread, so the entries and bits do not depend on the cut."""
    cdef Py_ssize_t n_parts = part_start.shape[0] - 1, t, q = 0
    cdef int64_t total = 0, done = 0, size
    cdef int runs_count = max(1, n_runs)
    runs_arr = np.empty(runs_count + 1, dtype=np.intp)
    cdef intp_t[::1] runs = runs_arr
    for q in range(n_parts):
        size = part_start[q + 1] - part_start[q]
        total += size + min(size, cells) + width
    runs[0] = 0
    q = 0
    for t in range(1, runs_count):
        # the first partition boundary at or past t shares of the work
        while q < n_parts and done * runs_count < total * t:
            size = part_start[q + 1] - part_start[q]
            done += size + min(size, cells) + width
            q += 1
        runs[t] = q
    runs[runs_count] = n_parts
    return runs_arr


# what ``table_fill`` computes beside the counts: no weights, or a model's, as
# its refresh computes them (``refresh_multinomial``, ``refresh_complement``)
cpdef enum FillWeights:
    FILL_COUNTS = 0
    FILL_MULTINOMIAL = 1
    FILL_COMPLEMENT = 2


def table_fill(
    const double[::1] rec_value,      # IN: the entries, from table_reduce
    const int32_t[::1] rec_key,
    const int64_t[::1] part_start,    # IN: (n_parts + 1,) where each partition's
                                      #   entries start in the records
    const uint8_t[::1] part_compact,  # IN: (n_parts,) they are compact
    const int64_t[::1] part_pool,     # IN: (n_parts + 1,) the pool start of each
                                      #   partition, and the pool's end
    int part_shift,
    int64_t[::1] feat_start,          # OUT: (d,) each feature's block, -1 if empty
    const int32_t[::1] feat_len,      # IN: (d,) entries per feature
    int32_t[::1] ent_class,           # OUT: the pool
    double[::1] ent_count,
    int n_threads,
    int fill_weights=FILL_COUNTS,     # FILL_*: the weights to compute as well, into
    double[::1] ent_weight=None,      #   ent_weight, for alpha ((d,) or (1,));
    const double[::1] alpha=None,     #   ComplementNB's F_j ((d,), from
    const double[::1] feature_all=None,  # table_reduce: 0.0 where a feature has no
                                      #   entries, as a fresh model's is), and
    double[::1] feat_base=None,       #   log(F_j + a_j) into feat_base ((d,)) for
                                      #   each feature with entries, and
    double dead_base=NAN,             #   unless NaN, this (log a) for each without
):
    """Copy the entries into the pool: blocks in feature order, each with room for
    the next power of two of its entries (as ``table_add`` expects), and compute
    the model's weights of each block while it is in cache (a refresh of every
    feature after the fill read the pool again, and took 3.4 ms of a T1 fit for
    MultinomialNB, 5.3 ms for ComplementNB, 2 threads). The weights are the
    refresh's, bit for bit: the same expressions, in the same order
    (``multinomial_weight``, ``complement_log_all``, ``complement_weight``).

    In parallel: each thread a run of consecutive partitions of about equal pool
    room and features (``balanced_runs``)."""
    cdef Py_ssize_t d = feat_start.shape[0], n_parts = part_pool.shape[0] - 1
    cdef Py_ssize_t q, j, e, src, t
    cdef int64_t used
    cdef int32_t length, key
    cdef const double* values = &rec_value[0]
    cdef const int32_t* keys = &rec_key[0]
    cdef intp_t[::1] runs = balanced_runs(part_pool, <int64_t>1 << part_shift, 0,
                                          n_threads)
    cdef bint scalar = True
    cdef double a = 0.0, log_a = 0.0
    cdef double small[SMALL_COUNTS]
    if fill_weights != FILL_COUNTS:
        if (ent_weight is None or ent_weight.shape[0] < ent_count.shape[0]
                or alpha is None or alpha.shape[0] not in (1, d)):
            raise ValueError("table_fill: weights need ent_weight (as long as "
                             "ent_count) and alpha ((1,) or (d,))")
        if fill_weights == FILL_COMPLEMENT and (
                feature_all is None or feat_base is None
                or feature_all.shape[0] != d or feat_base.shape[0] != d):
            raise ValueError("table_fill: ComplementNB's weights need feature_all "
                             "and feat_base of shape (d,)")
        scalar = alpha.shape[0] == 1
        a = alpha[0]
        log_a = log(a)
        # the refreshes' small-count tables (the same bits as the logs)
        fill_small_weights(small, a, log_a if fill_weights == FILL_MULTINOMIAL else 0.0)
    # The entries are copied in one loop over them, each to its feature's block
    # (``shift``): a loop over the features, each with a loop over its 1 to k
    # entries, mispredicted the ends of those short loops. What a weight needs of
    # its feature (an alpha a feature's log; ComplementNB's log(F_j + a_j), of
    # the F_j table_reduce summed) is computed over the features with entries
    # (``live``) before the entries are copied.
    cdef bint complement = fill_weights == FILL_COMPLEMENT
    # (one alpha: the base of a feature without entries written here, in the pass
    # over the features, where the model wrote all d of them before: T1, ~0.5 ms)
    cdef bint dead_bases = complement and dead_base == dead_base
    cdef bint multinomial = fill_weights == FILL_MULTINOMIAL
    cdef double total, a_j, log_a_j
    cdef const double* small_j = small if scalar else NULL
    cdef Py_ssize_t width = <Py_ssize_t>1 << part_shift
    live_arr = np.empty((n_threads, width), dtype=np.int32)
    shift_arr = np.empty((n_threads, width), dtype=np.int64)
    log_alpha_arr = np.empty((n_threads, width if multinomial and not scalar else 1))
    cdef int32_t[:, ::1] live = live_arr
    cdef int64_t[:, ::1] shift = shift_arr
    cdef double[:, ::1] log_alpha = log_alpha_arr
    cdef Py_ssize_t n_live, i, first, f
    cdef int64_t has_entries, pos
    cdef int32_t* live_row
    cdef int64_t* shift_row
    cdef double* log_alpha_row
    with nogil:
        for t in prange(n_threads, schedule='static', num_threads=n_threads,
                        use_threads_if=n_threads > 1):
            for q in range(runs[t], runs[t + 1]):
                # Branch-free over the partition's features: each block's start
                # (-1 for none), what to add to an entry's place among the
                # records to find its place in the pool, and the list of the
                # features with entries. About half of T1's features have none,
                # in no pattern: a branch on it was mispredicted on every other
                # feature.
                first = q << part_shift
                used = part_pool[q]
                src = part_start[q]
                n_live = 0
                # (the thread's rows as pointers: indexed as 2-d views, their
                # addresses were computed afresh for each feature)
                live_row = &live[t, 0]
                shift_row = &shift[t, 0]
                log_alpha_row = &log_alpha[t, 0]
                for j in range(first, min(d, first + width)):
                    length = feat_len[j]
                    has_entries = -<int64_t>(length > 0)      # all ones, or 0
                    feat_start[j] = (used & has_entries) | ~has_entries
                    shift_row[j - first] = used - src
                    if dead_bases:
                        feat_base[j] = dead_base  # (a live feature's follows)
                    live_row[n_live] = <int32_t>j
                    n_live = n_live + (length > 0)
                    used = used + block_room(length)
                    src = src + length
                if multinomial and not scalar:
                    for i in range(n_live):
                        j = live_row[i]
                        log_alpha_row[j - first] = log(alpha[j])
                if complement:
                    for i in range(n_live):
                        j = live_row[i]
                        feat_base[j] = complement_log_all(
                            feature_all[j], a if scalar else alpha[j], small_j)
                for e in range(part_start[q], src):
                    key = keys[e]
                    if part_compact[q]:
                        f = record_offset(compact_key(key), part_shift)
                        pos = e + shift_row[f]
                        ent_class[pos] = compact_key(key) >> part_shift
                        ent_count[pos] = <double>compact_count(key)
                    else:
                        f = record_offset(key, part_shift)
                        pos = e + shift_row[f]
                        ent_class[pos] = key >> part_shift
                        ent_count[pos] = values[e]
                    if multinomial:
                        a_j = a if scalar else alpha[first + f]
                        log_a_j = log_a if scalar else log_alpha_row[f]
                        ent_weight[pos] = multinomial_weight(ent_count[pos], a_j,
                                                             log_a_j, small_j)
                    elif complement:
                        j = first + f
                        ent_weight[pos] = complement_weight(
                            feature_all[j], ent_count[pos], a if scalar else alpha[j],
                            small_j, feat_base[j])


def live_features(const int32_t[::1] feat_len):
    """The features with entries, ascending, as int64 (np.flatnonzero's answer,
    in two passes over the index without its intermediate arrays)."""
    cdef Py_ssize_t j, n = 0, d = feat_len.shape[0]
    with nogil:
        for j in range(d):
            n += feat_len[j] != 0
    out_arr = np.empty(n + 1, dtype=np.int64)
    cdef int64_t[::1] out = out_arr
    n = 0
    with nogil:
        # branch-free (every feature written, kept when it has entries): with
        # hashed text about half the features have entries, a coin toss
        for j in range(d):
            out[n] = j
            n += feat_len[j] != 0
    return out_arr[:n]


def refresh_multinomial(
    const int64_t[::1] features,      # IN: the features to refresh
    const int64_t[::1] feat_start,
    const int32_t[::1] feat_len,
    const double[::1] ent_count,
    double[::1] ent_weight,           # OUT: log(N_cj + a_j) - log(a_j)
    const double[::1] alpha,          # IN: (d,) or (1,) smoothing
    int n_threads,
):
    """MultinomialNB's entry weights: what a count adds over the smoothing alone."""
    cdef Py_ssize_t t, j, s
    cdef double a, log_a
    cdef bint scalar = alpha.shape[0] == 1
    # one alpha: its log once, not once a feature
    cdef double log_a0 = log(alpha[0])
    cdef double small[SMALL_COUNTS]
    cdef const double* lookup = NULL
    if scalar and features.shape[0] >= SMALL_COUNTS:
        fill_small_weights(small, alpha[0], log_a0)
        lookup = small
    with nogil:
        # features are independent: parallel, the same bits for any thread count
        for t in prange(features.shape[0], schedule='static', num_threads=n_threads,
                        use_threads_if=n_threads > 1):
            j = features[t]
            a = alpha[0] if scalar else alpha[j]
            log_a = log_a0 if scalar else log(a)
            s = feat_start[j]
            multinomial_block(&ent_count[s], &ent_weight[s], feat_len[j], a, log_a,
                              lookup)


def refresh_complement(
    const int64_t[::1] features,      # IN: the features to refresh
    const int64_t[::1] feat_start,
    const int32_t[::1] feat_len,
    const double[::1] ent_count,
    double[::1] ent_weight,           # OUT: log(F_j - N_cj + a_j) - log(F_j + a_j)
    double[::1] feature_all,          # OUT: (d,) F_j, the count over all classes
    double[::1] feat_base,            # OUT: (d,) log(F_j + a_j)
    const double[::1] alpha,          # IN: (d,) or (1,) smoothing
    int n_threads,
):
    """ComplementNB's per-feature terms and entry weights.

    The complement count of class c is F_j + a_j - N_cj: log(F_j + a_j) for every
    class without a count of j, and the entry weight corrects it for the others.
    """
    cdef Py_ssize_t t, j, s
    cdef double a
    cdef bint scalar = alpha.shape[0] == 1
    cdef double small[SMALL_COUNTS]
    cdef const double* small_logs = NULL
    if scalar and features.shape[0] >= SMALL_COUNTS:
        fill_small_weights(small, alpha[0], 0.0)  # log(n + a) - 0.0: the logs
        small_logs = small
    with nogil:
        # features are independent: parallel, the same bits for any thread count
        for t in prange(features.shape[0], schedule='static', num_threads=n_threads,
                        use_threads_if=n_threads > 1):
            j = features[t]
            a = alpha[0] if scalar else alpha[j]
            s = feat_start[j]
            complement_block(&ent_count[s], &ent_weight[s], feat_len[j], a, small_logs,
                             &feature_all[j], &feat_base[j])


def bernoulli_entry_terms(
    const int64_t[::1] feat_start,    # IN: the count table (see _sparse_rows.pxd)
    const int32_t[::1] feat_len,
    const int32_t[::1] ent_class,
    const double[::1] ent_count,
    const int64_t[::1] miss_start,    # IN: the missing-value table, or (0,) arrays
    const int32_t[::1] miss_len,
    const int32_t[::1] miss_class,
    const double[::1] miss_count,
    const double[::1] class_count,    # IN: (k,) C_c
    double alpha,
    const double[::1] w0,             # IN: (k,) weight of a feature without an entry
    const double[::1] ln0,            # IN: (k,) log(1 - p) of a feature without an entry
    double[::1] ent_weight,           # OUT: (capacity,) w_cj - w0_c at each entry
    double[::1] const_delta,          # OUT: (k,) sum over c's entries of ln_cj - ln0_c
    double[::1] scratch,              # (capacity,) ln_cj - ln0_c at each entry
    int n_threads,
):
    """BernoulliNB's predict terms from its counts, O(entries + d / threads).

    For class c and feature j, p_cj = (N_cj + a) / (C_c - M_cj + 2a) (M: the weight
    of the missing values), with scikit-learn's formulas log p = log(N + a) -
    log(C - M + 2a) and log(1 - p) = log(1 - exp(log p)). A feature without an
    entry (N = M = 0) has the per-class values w0_c = log p0 - log(1 - p0) and
    ln0_c = log(1 - p0), computed by the caller; an entry stores the difference
    its counts make. Entries are independent (parallel over features); the
    per-class sums are then added serially in feature order, so the bits do not
    depend on the thread count. Bounds of a loaded table: ent_class and
    miss_class < k (``_invariants.table_entries`` at load).
    """
    cdef Py_ssize_t d = feat_start.shape[0], k = class_count.shape[0]
    cdef Py_ssize_t j, e, s, me
    cdef int32_t c
    cdef double m, lp, ln
    cdef bint has_missing = miss_start.shape[0] > 0
    with nogil:
        for j in prange(d, schedule='static', num_threads=n_threads,
                        use_threads_if=n_threads > 1):
            s = feat_start[j]
            for e in range(s, s + feat_len[j]):
                c = ent_class[e]
                m = 0.0
                if has_missing and miss_len[j] > 0:
                    me = find_entry(&miss_class[0], miss_start[j], miss_len[j], c)
                    if me >= 0:
                        m = miss_count[me]
                lp = log(ent_count[e] + alpha) - log((class_count[c] - m) + alpha * 2)
                ln = log(1 - exp(lp))
                ent_weight[e] = (lp - ln) - w0[c]
                scratch[e] = ln - ln0[c]
        for c in range(k):
            const_delta[c] = 0.0
        for j in range(d):
            s = feat_start[j]
            for e in range(s, s + feat_len[j]):
                const_delta[ent_class[e]] += scratch[e]


def check_table_entries(
    const int64_t[::1] features,      # IN: (n,) each entry's feature, from a file
    const int64_t[::1] classes,       # IN: (n,) each entry's class, from a file
    const double[::1] counts,         # IN: (n,) each entry's count
    int64_t n_features,
    int64_t[::1] class_mark,          # (k,) scratch
    double[::1] class_sum,            # OUT: (k,) each class's counts summed, in order
    double[::1] class_max,            # OUT: (k,) each class's largest count (-inf: none)
    int64_t[::1] live,                # OUT: (n,) the features with entries, ascending,
    int64_t[::1] lengths,             #   and their numbers of entries (first n_runs)
):
    """The load check of a saved table's entries (``_invariants.table_entries``),
    in one O(n + k) pass: features non-decreasing and in [0, n_features), classes
    in [0, k), no (feature, class) pair twice (the feature that last had each
    class: a class seen again within its feature's run repeats), each class's
    sum (in entry order: np.bincount's bits) and largest count. Returns (status, n_runs, negative):
    status 0 clean, 1 features not grouped, 2 a feature out of range, 3 a class
    out of range, 4 a pair twice; negative, whether a count is below zero."""
    cdef Py_ssize_t e, n = features.shape[0], k = class_mark.shape[0], runs = 0
    cdef int64_t f, c, prev = -1
    cdef int status = 0
    cdef bint negative = False
    with nogil:
        for e in range(k):
            class_mark[e] = -1
            class_sum[e] = 0.0
            class_max[e] = -INFINITY
        for e in range(n):
            f = features[e]
            c = classes[e]
            if f < prev:
                status = 1
                break
            if f < 0 or f >= n_features:
                status = 2
                break
            if c < 0 or c >= k:
                status = 3
                break
            if class_mark[c] == f:
                status = 4
                break
            class_mark[c] = f
            if f != prev:
                live[runs] = f
                lengths[runs] = 0
                runs += 1
                prev = f
            lengths[runs - 1] += 1
            class_sum[c] += counts[e]
            if counts[e] > class_max[c]:
                class_max[c] = counts[e]
            negative |= counts[e] < 0
    return status, runs, negative
