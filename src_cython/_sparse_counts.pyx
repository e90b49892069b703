"""Kernels of the sparse per-class count table (text-scale discrete models): a
CSR batch checked, and partitioned by feature for a build.

The table, its layout (``_sparse_rows.pxd``) and why it exists: _sparse_update.pyx.
Here: ``csr_check`` (a batch's validation pass: non-finite, negative and
malformed values counted, row totals for ComplementNB), ``add_class_counts``, and
``table_partition``, the first step of building a fresh table from a large first
batch (the next two are in _sparse_build.pyx). Records are laid out as
``_sparse_records.pxd`` says.
"""

from cython.parallel cimport prange
from libc.stdint cimport int32_t, int64_t, uint8_t
from libc.math cimport INFINITY, NAN, exp, floor, log
from libc.string cimport memcpy

from _common cimport block_start, intp_t, floating
from _counts cimport FASTNB_PREFETCH, FASTNB_PREFETCH_W
from _sparse_records cimport (
    BucketRecord, COMPACT_KEY_BITS, COMPACT_VALUE_LIMIT, compact_record, record_offset,
)

import numpy as np


ctypedef fused index_t:
    int
    long long


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
    const intp_t* rows=NULL,          # (n,) or NULL: batch row i is X's row rows[i]
                                      #   (row_total and weights by batch row)
) noexcept nogil:
    cdef Py_ssize_t nnz = data.shape[0]
    cdef Py_ssize_t i, p, start, stop, j, q, row
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
        row = i if rows == NULL else rows[i]
        start = indptr[row]
        stop = indptr[row + 1]
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
    const intp_t* rows=NULL,          # (n,) or NULL: as ``check_rows``
) noexcept nogil:
    cdef Py_ssize_t i, p, j, row
    cdef int64_t q = 0, part, current = -1
    cdef int64_t mask = (<int64_t>1 << part_shift) - 1
    cdef int32_t c
    cdef double x, w
    for i in range(row_start, row_stop):
        c = <int32_t>codes[i]
        w = 1.0 if weights == NULL else weights[i]
        row = i if rows == NULL else rows[i]
        for p in range(indptr[row], indptr[row + 1]):
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
    const intp_t[::1] rows=None,      # IN: (n,) or None: the batch is these rows of
                                      #   the CSR arrays, in this order (a search's
                                      #   split, read in place); codes,
                                      #   sample_weight and row_total by batch row
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
    cdef Py_ssize_t block, q, largest = 0, i
    cdef Py_ssize_t n_rows = indptr.shape[0] - 1
    cdef int64_t position = 0, size
    cdef const double* weights = NULL
    cdef const intp_t* row_of = NULL
    if sample_weight is not None:
        weights = &sample_weight[0]
    if rows is not None:
        if rows.shape[0] != n:
            raise ValueError("table_partition: rows must have one index per code")
        for i in range(n):
            if rows[i] < 0 or rows[i] >= n_rows:
                raise ValueError(f"table_partition: {rows[i]} is not a row of X")
        if n:
            row_of = &rows[0]
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
                       part_shift, n_parts, &lanes[0, 0], &block_compact[0], row_of)
        else:
            for block in prange(n_blocks, schedule='static', num_threads=n_blocks):
                check_rows(data, indices, indptr, n_features, weights, &row_total[0],
                           binarize, threshold, &flags[block, 0],
                           block_start(block, n_blocks, n),
                           block_start(block + 1, n_blocks, n), &fill[block, 0],
                           part_shift, n_parts, &lanes[block, 0],
                           &block_compact[block], row_of)
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
                           compact, row_of)
        else:
            for block in prange(n_blocks, schedule='static', num_threads=n_blocks):
                partition_rows(data, indices, indptr, codes, weights, binarize, threshold,
                               part_shift, &fill[block, 0], &rec_value[0], &rec_key[0],
                               block_start(block, n_blocks, n),
                               block_start(block + 1, n_blocks, n), compact, row_of)
    return n_nan, n_inf, n_neg, n_malformed, largest, compact


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
