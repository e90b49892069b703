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

from cython.parallel cimport prange, threadid
from libc.stdint cimport int32_t, int64_t, uint8_t
from libc.math cimport INFINITY, NAN, exp, log

from _common cimport intp_t, floating
from _counts cimport FASTNB_PREFETCH
from _sparse_rows cimport block_is_full, find_entry


ctypedef fused index_t:
    int
    long long


# prefetch distances of ``table_add``, in non-zeros
cdef enum:
    PREFETCH_INDEX = 16
    PREFETCH_BLOCK = 8


def csr_check(
    const floating[::1] data,         # IN: CSR values
    const index_t[::1] indices,       # IN: CSR column indices
    const index_t[::1] indptr,        # IN: (n + 1,) row pointers
    Py_ssize_t n_features,
    const intp_t[::1] codes,          # IN: (n,) class index in [0, k)
    const double[::1] sample_weight,  # IN: (n,) or None
    double[::1] batch_total,          # OUT: (k,) weighted sum of the values per class
    bint binarize,
    double threshold,
):
    """Read-only validation pass over a batch, before the table is touched.

    Returns ``(n_nan, n_inf, n_neg, n_malformed)``.
    """
    cdef Py_ssize_t n = codes.shape[0]
    cdef Py_ssize_t nnz = data.shape[0]
    cdef Py_ssize_t i, p, start, stop, j
    cdef Py_ssize_t n_nan = 0, n_inf = 0, n_neg = 0, n_malformed = 0
    cdef double x, w, row_sum
    with nogil:
        for i in range(n):
            start = indptr[i]
            stop = indptr[i + 1]
            if start < 0 or stop > nnz or stop < start:
                n_malformed += 1
                continue
            w = 1.0 if sample_weight is None else sample_weight[i]
            row_sum = 0.0
            for p in range(start, stop):
                j = indices[p]
                if j < 0 or j >= n_features:
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
            batch_total[codes[i]] += w * row_sum
    return n_nan, n_inf, n_neg, n_malformed


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
    int64_t[::1] feat_start,          # IN/OUT: (d,) block start, -1 when empty
    int32_t[::1] feat_len,            # IN/OUT: (d,) entries in the block
    int32_t[::1] ent_class,           # IN/OUT: (capacity,) pool
    double[::1] ent_count,            # IN/OUT: (capacity,) pool
    double[::1] class_total,          # IN/OUT: (k,) sum of the counts per class
    double[::1] ent_weight,           # IN/OUT: (capacity,) pool (moved with blocks)
    int64_t[::1] pend_feat,           # IN/OUT: with `pending`, room for the listed
    int32_t[::1] pend_off,            # entries plus nnz: feature and block offset
    int64_t[::1] sizes,               # IN/OUT: [pool entries used, entries listed]
    Py_ssize_t row0,
    Py_ssize_t pos0,
    bint pending,
    bint zero_entries=False,
):
    """Add w_i * x_ij (or w_i * [x_ij > threshold]) into the table, from (row0, pos0).

    With ``zero_entries``, every stored position of the batch gets an entry for
    its row's class but nothing is added to it (BernoulliNB: the (class, feature)
    pairs with missing values need their own entry weights even where the count
    is zero).

    With ``pending``, the entries whose weights the batch makes stale are listed
    for the model's next refresh (``flush_multinomial``, ``pending_features``),
    so that a batch costs no log at all: an entry's weight is set to NaN - a
    weight no count gives (alpha > 0) - the first time it changes, and listed
    then by feature and offset in its block, which stay valid when the block
    moves. An entry is listed once however often it is hit until the refresh
    (Zipf: ~34,000 non-zeros of a T1 batch change ~24,500 entries), and a refresh
    costs what the batches since the last one changed.

    Returns ``(row, pos)`` where the pool ran out of room (nothing of that
    non-zero is applied yet: grow the pool and call again from there), or
    ``(-1, -1)`` when the batch is in.
    """
    cdef Py_ssize_t n = codes.shape[0]
    cdef Py_ssize_t capacity = ent_class.shape[0]
    cdef Py_ssize_t i, p, e, j, start
    cdef int64_t used = sizes[0], n_pending = sizes[1], old, fresh, ahead
    cdef int32_t c, length
    cdef double x, w
    cdef Py_ssize_t stop_row = -1, stop_pos = -1, last = indptr[n]
    with nogil:
        for i in range(row0, n):
            c = <int32_t>codes[i]
            w = 1.0 if sample_weight is None else sample_weight[i]
            start = pos0 if i == row0 else indptr[i]
            for p in range(start, indptr[i + 1]):
                # A batch's rare features are cache misses in the (d,) index and
                # the pool (~17,000 distinct features per T1 batch): fetch the
                # index PREFETCH_INDEX non-zeros ahead and, from it, the block
                # PREFETCH_BLOCK ahead, so that the misses overlap
                if p + PREFETCH_INDEX < last:
                    j = indices[p + PREFETCH_INDEX]
                    FASTNB_PREFETCH(&feat_len[j])
                    FASTNB_PREFETCH(&feat_start[j])
                if p + PREFETCH_BLOCK < last:
                    ahead = feat_start[indices[p + PREFETCH_BLOCK]]
                    ahead = ahead if ahead > 0 else 0
                    FASTNB_PREFETCH(&ent_class[ahead])
                    FASTNB_PREFETCH(&ent_count[ahead])
                    if pending:
                        FASTNB_PREFETCH(&ent_weight[ahead])
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
                    if block_is_full(length):
                        fresh = 1 if length == 0 else 2 * length
                        if used + fresh > capacity:
                            stop_row = i
                            stop_pos = p
                            break
                        old = feat_start[j]
                        for e in range(length):
                            ent_class[used + e] = ent_class[old + e]
                            ent_count[used + e] = ent_count[old + e]
                            ent_weight[used + e] = ent_weight[old + e]
                        feat_start[j] = used
                        used += fresh
                    e = feat_start[j] + length
                    ent_class[e] = c
                    ent_count[e] = 0.0
                    ent_weight[e] = 0.0  # not NaN: listed below
                    feat_len[j] = length + 1
                if not zero_entries:
                    ent_count[e] += x
                    class_total[c] += x
                if pending and ent_weight[e] == ent_weight[e]:
                    ent_weight[e] = NAN
                    pend_feat[n_pending] = j
                    pend_off[n_pending] = <int32_t>(e - feat_start[j])
                    n_pending += 1
            if stop_row >= 0:
                break
    sizes[0] = used
    sizes[1] = n_pending
    return stop_row, stop_pos


def flush_multinomial(
    const int64_t[::1] pend_feat,     # IN: the listed entries (``table_add``)
    const int32_t[::1] pend_off,
    const int64_t[::1] feat_start,
    const double[::1] ent_count,
    double[::1] ent_weight,           # OUT: log(N_cj + a_j) - log(a_j) of those entries
    const double[::1] alpha,          # IN: (d,) or (1,) smoothing
    int n_threads,
):
    """MultinomialNB's weights of the entries listed since the last refresh: the
    expression of ``refresh_multinomial`` (the same bits). The entries are
    distinct, so the threads share nothing."""
    cdef Py_ssize_t t, j, e, ahead, n = pend_feat.shape[0]
    cdef double a
    cdef bint scalar = alpha.shape[0] == 1
    cdef double a0 = alpha[0], log_a0 = log(alpha[0])
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
                ent_weight[e] = log(ent_count[e] + a0) - log_a0
            else:
                a = alpha[j]
                ent_weight[e] = log(ent_count[e] + a) - log(a)


def pending_features(
    int64_t[::1] pend_feat,           # IN/OUT: the listed entries' features; out: the
    const int32_t[::1] pend_off,      # distinct features in its first m places
    const int64_t[::1] feat_start,
    const int32_t[::1] feat_len,
    double[::1] ent_weight,           # IN/OUT: the listed entries' NaN become 0.0
):
    """The features of the listed entries, each once (ComplementNB refreshes every
    entry of a feature whose total changed): the first listed entry of a feature
    clears the NaN marks of its block, so its later entries are skipped. Returns m."""
    cdef Py_ssize_t t, j, e, s, m = 0
    with nogil:
        for t in range(pend_feat.shape[0]):
            j = pend_feat[t]
            s = feat_start[j]
            e = s + pend_off[t]
            if ent_weight[e] == ent_weight[e]:
                continue
            for e in range(s, s + feat_len[j]):
                ent_weight[e] = 0.0
            pend_feat[m] = j
            m += 1
    return m


def table_build(
    const floating[::1] data,         # IN: CSR values (validated, no NaN)
    const index_t[::1] indices,       # IN: CSR column indices (validated)
    const index_t[::1] indptr,        # IN: (n + 1,) row pointers (validated)
    const intp_t[::1] codes,          # IN: (n,) class index
    const double[::1] sample_weight,  # IN: (n,) or None
    bint binarize,
    double threshold,
    Py_ssize_t n_classes,
    int64_t[::1] feat_start,          # OUT: (d,) block start, -1 when empty
    int32_t[::1] feat_len,            # OUT: (d,) entries in the block
    double[::1] class_total,          # IN/OUT: (k,) zeros in, sums of the counts out
    int64_t[::1] bucket_start,        # SCRATCH: (d + 1,)
    int32_t[::1] bucket_class,        # SCRATCH: (nnz,)
    double[::1] bucket_value,         # SCRATCH: (nnz,)
    int32_t[:, ::1] slots,            # SCRATCH: (n_threads, k), all -1 (and left so)
    int n_threads,
):
    """The first batch of a fresh table, built by features instead of row by row.

    Gives the entries ``table_add`` would give from an empty table (each feature's
    classes in the order they first appear, each count summed in row order from
    0.0, ``class_total`` summed in row order) in a layout of its own: the
    non-zeros are bucketed by feature (two serial passes), then each feature's
    bucket is reduced to its entries, in place, in parallel over features (no
    feature shares anything with another, so the bits do not depend on the
    thread count). ``table_fill`` then copies the entries into the pool, whose
    blocks are sized by ``feat_len``. Returns ``(entries, pool size)``.
    """
    cdef Py_ssize_t n = codes.shape[0], d = feat_start.shape[0]
    cdef Py_ssize_t i, p, j, t, b, e, n_entries = 0, pool = 0, room
    cdef int32_t c, length
    cdef int32_t* slot
    cdef double x, w
    with nogil:
        for j in range(d + 1):
            bucket_start[j] = 0
        for i in range(n):
            for p in range(indptr[i], indptr[i + 1]):
                x = data[p]
                if binarize:
                    x = 1.0 if x > threshold else 0.0
                if x != 0.0:
                    bucket_start[indices[p] + 1] += 1
        for j in range(d):
            bucket_start[j + 1] += bucket_start[j]
        # bucket_start[j] runs ahead while filling; feat_start holds the fill point
        for j in range(d):
            feat_start[j] = bucket_start[j]
        for i in range(n):
            c = <int32_t>codes[i]
            w = 1.0 if sample_weight is None else sample_weight[i]
            for p in range(indptr[i], indptr[i + 1]):
                x = data[p]
                if binarize:
                    x = 1.0 if x > threshold else 0.0
                if x == 0.0:
                    continue
                x = w * x
                j = indices[p]
                b = feat_start[j]
                bucket_class[b] = c
                bucket_value[b] = x
                feat_start[j] = b + 1
                class_total[c] += x
    # reduce each bucket to its entries, in place: entry e of feature j is at
    # bucket_start[j] + e (e never passes the element being read)
    cdef int tid
    with nogil:
        for j in prange(d, schedule='static', num_threads=n_threads,
                        use_threads_if=n_threads > 1):
            tid = threadid()
            slot = &slots[tid, 0]
            b = bucket_start[j]
            length = 0
            for t in range(b, bucket_start[j + 1]):
                c = bucket_class[t]
                x = bucket_value[t]
                e = slot[c]
                if e < 0:
                    e = length
                    slot[c] = <int32_t>e
                    length = length + 1
                    bucket_class[b + e] = c
                    bucket_value[b + e] = 0.0 + x
                else:
                    bucket_value[b + e] = bucket_value[b + e] + x
            feat_len[j] = length
            for e in range(length):
                slot[bucket_class[b + e]] = -1
        for j in range(d):
            length = feat_len[j]
            if length > 0:
                n_entries += length
                room = 1
                while room < length:
                    room = 2 * room
                pool += room
    return n_entries, pool


def table_fill(
    const int64_t[::1] bucket_start,  # IN: (d + 1,) from table_build
    const int32_t[::1] bucket_class,  # IN: the entries, at the head of each bucket
    const double[::1] bucket_value,
    int64_t[::1] feat_start,          # OUT: (d,) block start in the pool, -1 when empty
    const int32_t[::1] feat_len,      # IN: (d,) entries per feature
    int32_t[::1] ent_class,           # OUT: the pool
    double[::1] ent_count,
):
    """Copy ``table_build``'s entries into the pool: blocks in feature order, each
    with room for the next power of two of its entries (as ``table_add`` expects).
    Returns the pool entries used."""
    cdef Py_ssize_t d = feat_start.shape[0], j, e, b
    cdef int64_t used = 0, room
    cdef int32_t length
    with nogil:
        for j in range(d):
            length = feat_len[j]
            if length == 0:
                feat_start[j] = -1
                continue
            feat_start[j] = used
            b = bucket_start[j]
            for e in range(length):
                ent_class[used + e] = bucket_class[b + e]
                ent_count[used + e] = bucket_value[b + e]
            room = 1
            while room < length:
                room = 2 * room
            used += room
    return used


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
    cdef Py_ssize_t t, j, e, s
    cdef double a, log_a
    cdef bint scalar = alpha.shape[0] == 1
    with nogil:
        # features are independent: parallel, the same bits for any thread count
        for t in prange(features.shape[0], schedule='static', num_threads=n_threads,
                        use_threads_if=n_threads > 1):
            j = features[t]
            a = alpha[0] if scalar else alpha[j]
            log_a = log(a)
            s = feat_start[j]
            for e in range(s, s + feat_len[j]):
                ent_weight[e] = log(ent_count[e] + a) - log_a


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
    cdef Py_ssize_t t, j, e, s
    cdef double a, total, log_all
    cdef bint scalar = alpha.shape[0] == 1
    with nogil:
        # features are independent: parallel, the same bits for any thread count
        for t in prange(features.shape[0], schedule='static', num_threads=n_threads,
                        use_threads_if=n_threads > 1):
            j = features[t]
            a = alpha[0] if scalar else alpha[j]
            s = feat_start[j]
            total = 0.0
            for e in range(s, s + feat_len[j]):
                total = total + ent_count[e]
            feature_all[j] = total
            log_all = log(total + a)
            feat_base[j] = log_all
            for e in range(s, s + feat_len[j]):
                ent_weight[e] = log((total + a) - ent_count[e]) - log_all


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
    depend on the thread count.
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
