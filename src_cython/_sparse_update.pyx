"""Kernels of the sparse per-class count table (text-scale discrete models): the
stream's adds, and the weights they make stale, refreshed.

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
  O(nnz x classes with counts);
* under forgetting (``half_life``), the counts are kept in a frame: the true
  count is ``count_scale`` times the stored one, so a batch decays the whole
  table by changing one number and adds its rows with weights divided by it;
  the weights a predict reads are refreshed where their epoch is older than the
  scale's (``stale_weights``): each call costs what it touches.

Every count is summed in row order, starting from the current value, and the
entries of a feature are in the order their classes first appeared: any split of
the rows into batches gives the same bits as one fit. ``table_add`` is serial (a
batch is a millisecond of work); the refreshes are parallel over entries or
features and predict over rows, each computed alone, so results do not depend on
the thread count.

A fresh table is built from a large first batch in three passes instead
(``table_partition`` in _sparse_counts.pyx, ``table_reduce`` and ``table_fill`` in
_sparse_build.pyx), which give the entries of ``table_add`` from an empty table.

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
from _sparse_weights cimport (
    complement_block, complement_log_all, complement_weight, multinomial_block,
    multinomial_weight,
)

import numpy as np


ctypedef fused index_t:
    int
    long long


# prefetch distances of ``table_add``, in non-zeros
cdef enum:
    PREFETCH_INDEX = 16
    PREFETCH_BLOCK = 8

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
    double count_scale=1.0,           # IN: N_cj = count_scale * ent_count (forgetting)
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
    # (the table of small whole counts holds N_cj, not a scaled count's weight)
    if scalar and n >= SMALL_COUNTS and count_scale == 1.0:
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
            # (x * 1.0 is x: without forgetting, the bits of the unscaled count)
            if scalar:
                ent_weight[e] = multinomial_weight(ent_count[e] * count_scale, a0, log_a0,
                                                   lookup)
            else:
                a = alpha[j]
                ent_weight[e] = multinomial_weight(ent_count[e] * count_scale, a, log(a),
                                                   NULL)
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
    double count_scale=1.0,           # IN: N_cj = count_scale * ent_count (forgetting)
):
    """MultinomialNB's entry weights: what a count adds over the smoothing alone."""
    cdef Py_ssize_t t, j, s, e
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
            if count_scale == 1.0:
                multinomial_block(&ent_count[s], &ent_weight[s], feat_len[j], a, log_a,
                                  lookup)
            else:
                # a model that forgets keeps its counts in a frame (``stale_weights``)
                for e in range(s, s + feat_len[j]):
                    ent_weight[e] = multinomial_weight(ent_count[e] * count_scale, a,
                                                       log_a, NULL)


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
    double count_scale=1.0,           # IN: N_cj = count_scale * ent_count (forgetting)
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
    # (the logs of small whole values hold for any value: a scaled count too)
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
                             &feature_all[j], &feat_base[j], count_scale)


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
    double count_scale=1.0,           # the true counts are count_scale x the stored
):
    """BernoulliNB's predict terms from its counts, O(entries + d / threads).

    For class c and feature j, p_cj = (N_cj + a) / (C_c - M_cj + 2a) (M: the weight
    of the missing values), with scikit-learn's formulas log p = log(N + a) -
    log(C - M + 2a) and log(1 - p) = log(1 - exp(log p)). A feature without an
    entry (N = M = 0) has the per-class values w0_c = log p0 - log(1 - p0) and
    ln0_c = log(1 - p0), computed by the caller; an entry stores the difference
    its counts make. Entries are independent (parallel over features); the
    per-class sums are then added serially in feature order, so the bits do not
    depend on the thread count. Under forgetting both tables hold their counts
    in one frame: N and M are ``count_scale`` times the stored values (the bits
    of ``SparseCountTable.normalize``; C is the model's true class count).
    Bounds of a loaded table: ent_class and miss_class < k
    (``_invariants.table_entries`` at load).
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
                        m = miss_count[me] * count_scale
                lp = (log(ent_count[e] * count_scale + alpha)
                      - log((class_count[c] - m) + alpha * 2))
                ln = log(1 - exp(lp))
                ent_weight[e] = (lp - ln) - w0[c]
                scratch[e] = ln - ln0[c]
        for c in range(k):
            const_delta[c] = 0.0
        for j in range(d):
            s = feat_start[j]
            for e in range(s, s + feat_len[j]):
                const_delta[ent_class[e]] += scratch[e]


def stale_weights(
    const index_t[::1] indices,       # IN: the column indices a predict reads
    bint every_feature,               # every feature instead of ``indices``
    const int32_t[::1] feat_len,      # IN: (d,) the table's block lengths
    int64_t[::1] weight_epoch,        # IN/OUT: (d,) the epoch of each block's weights
    int64_t epoch,                    # IN: the count scale's epoch
    int64_t[::1] listed,              # OUT: (min(nnz, d),) the blocks to refresh
):
    """Under forgetting, every batch changes the count scale (a new epoch), and
    with it every weight; a weight is recomputed only when a predict reads it.
    Lists the blocks of ``indices`` (or all) with entries whose weights are of
    an older epoch, each once, and stamps them with ``epoch`` (the caller
    refreshes them next). An index outside [0, d) is skipped: the predict kernel
    reports the malformed row. Serial, O(nnz), the stamps prefetched ahead as in
    ``table_add``. Returns how many were listed."""
    cdef Py_ssize_t d = weight_epoch.shape[0]
    cdef Py_ssize_t n = d if every_feature else indices.shape[0]
    cdef Py_ssize_t i, n_listed = 0
    cdef int64_t j, ahead
    with nogil:
        for i in range(n):
            if not every_feature and i + PREFETCH_INDEX < n:
                ahead = indices[i + PREFETCH_INDEX]
                if 0 <= ahead < d:
                    FASTNB_PREFETCH(&weight_epoch[ahead])
                    FASTNB_PREFETCH(&feat_len[ahead])
            j = i if every_feature else indices[i]
            if j < 0 or j >= d or weight_epoch[j] == epoch:
                continue
            weight_epoch[j] = epoch
            if feat_len[j] > 0:
                listed[n_listed] = j
                n_listed += 1
    return n_listed
