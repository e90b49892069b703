"""Kernels of the sparse per-class count table (text-scale discrete models): a
fresh table built from a large first batch, steps 2 and 3.

``table_reduce`` sums each partition's records (from ``table_partition`` in
_sparse_counts.pyx; their layout in ``_sparse_records.pxd``) into entries
through an in-cache (feature, class) map and places them by feature;
``table_fill`` copies them into the pool with the model's weights
(``_sparse_weights.pxd``). The plan of the three steps is in _sparse_counts.pyx.
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
from _sparse_records cimport (
    BucketRecord, COMPACT_KEY_BITS, COMPACT_VALUE_LIMIT, ENTRY_SHIFT, compact_count,
    compact_key, compact_record, record_offset,
)
from _sparse_rows cimport block_room
from _sparse_weights cimport (
    complement_block, complement_log_all, complement_weight, multinomial_weight,
)

import numpy as np


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
