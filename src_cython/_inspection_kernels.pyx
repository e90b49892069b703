"""Per-feature terms of the joint log likelihood (fastnb.inspection).

Naive Bayes's joint log likelihood is a sum over features,

    jll[i, c] = base[c] + sum_j term(c, j, x[i, j]),

so each term is an exact explanation of a prediction. These kernels write the
terms of every model's predict kernel, term by term as that kernel adds them:

- linear (the count models' dense weights): term = x' W[c, j], x' the value or
  its 0/1 threshold; a zero, and a missing value (NaN), add nothing here;
- Gaussian: term = -(0.5 log(2 pi var) + (x - theta)^2 / (2 var)); NaN adds nothing;
- the sparse count table: term = mult[c] x' (base_j + scale[c] + w_cj), w_cj the
  entry of (c, j) if it has one, else 0 (see _sparse_predict.pyx);
- CategoricalNB: the log probability of the value's table row; NaN adds nothing.

and, for ``top_contributions``, the top-n terms of the difference of two classes
per row, kept in a small heap a row (never all terms): by |difference|, largest
first, the smaller feature index first among equals, and a term of exactly 0.0
left out. Every row is computed alone: the same bits for any thread count.
"""

from cython.parallel cimport prange
from libc.math cimport log, INFINITY
from libc.stdint cimport int32_t, int64_t, uint8_t, uint64_t

from _common cimport intp_t, floating, block_start
from _categorical_point cimport value_t, table_row
from _counts cimport FASTNB_PREFETCH_L1
from _sparse_slots cimport FeatureSlot

import numpy as np

ctypedef fused index_t:
    int
    long long


# -- the top-n heap --------------------------------------------------------------------
cdef inline bint worse(double a, Py_ssize_t ja, double b, Py_ssize_t jb) noexcept nogil:
    """Whether the term (a, ja) ranks below (b, jb)."""
    a = a if a >= 0 else -a
    b = b if b >= 0 else -b
    return a < b or (a == b and ja > jb)


cdef inline void sift_down(double* val, int64_t* feat, Py_ssize_t size,
                           Py_ssize_t i) noexcept nogil:
    """Restore the min-heap (the worst term at the root) below position i."""
    cdef Py_ssize_t child
    cdef double v
    cdef int64_t f
    while True:
        child = 2 * i + 1
        if child >= size:
            return
        if child + 1 < size and worse(val[child + 1], feat[child + 1],
                                      val[child], feat[child]):
            child += 1
        if not worse(val[child], feat[child], val[i], feat[i]):
            return
        v = val[i]; val[i] = val[child]; val[child] = v
        f = feat[i]; feat[i] = feat[child]; feat[child] = f
        i = child


cdef inline Py_ssize_t heap_push(double* val, int64_t* feat, Py_ssize_t size,
                                 Py_ssize_t n_top, double v, int64_t j) noexcept nogil:
    """Offer the term (v, j) to a heap of ``size`` of at most ``n_top``; the new size."""
    cdef Py_ssize_t i, parent
    cdef double tv
    cdef int64_t tf
    if v == 0.0 or v != v:
        # a term of exactly 0.0 explains nothing; NaN has no rank (a class of
        # the pair without data: its whole row is -inf, kept in the base)
        return size
    if size < n_top:
        i = size
        val[i] = v
        feat[i] = j
        while i > 0:
            parent = (i - 1) // 2
            if not worse(val[i], feat[i], val[parent], feat[parent]):
                break
            tv = val[i]; val[i] = val[parent]; val[parent] = tv
            tf = feat[i]; feat[i] = feat[parent]; feat[parent] = tf
            i = parent
        return size + 1
    if worse(val[0], feat[0], v, j):
        val[0] = v
        feat[0] = j
        sift_down(val, feat, size, 0)
    return size


cdef enum:
    # up to this many terms a row are kept in a sorted array (one comparison
    # rejects a term, an insertion moves a few): T1's top-10 ~40% faster than
    # the heap, which keeps a larger n to O(log n) an offer
    SORTED_MAX = 32


cdef inline Py_ssize_t sorted_push(double* val, int64_t* feat, Py_ssize_t size,
                                   Py_ssize_t n_top, double v, int64_t j) noexcept nogil:
    """heap_push into an array kept best first."""
    cdef Py_ssize_t pos
    if v == 0.0 or v != v:
        return size
    if size == n_top:
        if not worse(val[size - 1], feat[size - 1], v, j):
            return size
        pos = size - 1
    else:
        pos = size
        size += 1
    while pos > 0 and worse(val[pos - 1], feat[pos - 1], v, j):
        val[pos] = val[pos - 1]
        feat[pos] = feat[pos - 1]
        pos -= 1
    val[pos] = v
    feat[pos] = j
    return size


cdef inline Py_ssize_t offer(double* val, int64_t* feat, Py_ssize_t size,
                             Py_ssize_t n_top, double v, int64_t j) noexcept nogil:
    """Offer the term (v, j) to the best n_top kept so far; the new count."""
    if n_top <= SORTED_MAX:
        return sorted_push(val, feat, size, n_top, v, j)
    return heap_push(val, feat, size, n_top, v, j)


cdef inline void heap_finish(double* val, int64_t* feat, Py_ssize_t size,
                             Py_ssize_t n_top) noexcept nogil:
    """Sort the kept terms best first (a heap; a sorted array already is), and
    pad them to n_top (-1, 0.0)."""
    cdef Py_ssize_t end
    cdef double v
    cdef int64_t f
    end = size if n_top > SORTED_MAX else 0
    while end > 1:
        end -= 1
        v = val[0]; val[0] = val[end]; val[end] = v
        f = feat[0]; feat[0] = feat[end]; feat[end] = f
        sift_down(val, feat, end, 0)
    for end in range(size, n_top):
        val[end] = 0.0
        feat[end] = -1


cdef extern from *:
    """
    #include <stdint.h>
    #include <string.h>
    /* log(x) for a positive normal double, to within 2e-4: the exponent, and the
       series 2 atanh((m - 1) / (m + 1)) of the mantissa m in [1, 2) to t^5. A
       filter only: a value it puts near a kept one is computed exactly. */
    static inline double fastnb_log_approx(double x) {
        uint64_t u; double m, t, t2;
        memcpy(&u, &x, sizeof u);
        int64_t e = (int64_t)((u >> 52) & 0x7ff) - 1023;
        u = (u & 0x000FFFFFFFFFFFFFULL) | 0x3FF0000000000000ULL;
        memcpy(&m, &u, sizeof m);
        t = (m - 1.0) / (m + 1.0);
        t2 = t * t;
        return (double)e * 0.6931471805599453 + 2.0 * t * (1.0 + t2 * (1.0 / 3.0 + t2 * 0.2));
    }
    """
    double fastnb_log_approx(double x) nogil

# what fastnb_log_approx may be off by, with room (a score within this of the
# worst kept one is computed exactly)
cdef double LOG_APPROX_MARGIN = 1e-3


cdef inline double kept_worst(const double* val, Py_ssize_t size,
                              Py_ssize_t n_top) noexcept nogil:
    """The smallest |value| of a full list (its last, sorted; its root, a heap),
    or -1 while it is not full."""
    cdef double v
    if size < n_top:
        return -1.0
    v = val[n_top - 1] if n_top <= SORTED_MAX else val[0]
    return v if v >= 0 else -v


cdef inline double thresholded(double x, bint binarize, double threshold) noexcept nogil:
    """The value a count model multiplies its weight by (NaN stays NaN: missing)."""
    if binarize and x == x:
        return 1.0 if x > threshold else 0.0
    return x


# -- every term ------------------------------------------------------------------------
def linear_dense_values(
    const floating[:, :] X,         # IN: (n, d), NaN = missing
    const double[:, ::1] weights,   # IN: (k, d)
    bint binarize, double threshold,
    double[:, :, ::1] out,          # OUT: (n, k, d)
    int n_threads,
):
    cdef Py_ssize_t n = X.shape[0], d = X.shape[1], k = weights.shape[0]
    cdef Py_ssize_t i, c, j
    cdef double x
    with nogil:
        for i in prange(n, schedule='static', num_threads=max(n_threads, 1)):
            for c in range(k):
                for j in range(d):
                    x = thresholded(X[i, j], binarize, threshold)
                    out[i, c, j] = x * weights[c, j] if x != 0.0 and x == x else 0.0


def gaussian_dense_values(
    const floating[:, :] X,                 # IN: (n, d), NaN = missing
    const double[:, ::1] theta,             # IN: (k, d)
    const double[:, ::1] half_inv_var,      # IN: (k, d) 0.5 / var
    const double[:, ::1] half_log_2pi_var,  # IN: (k, d)
    double[:, :, ::1] out,                  # OUT: (n, k, d)
    int n_threads,
):
    cdef Py_ssize_t n = X.shape[0], d = X.shape[1], k = theta.shape[0]
    cdef Py_ssize_t i, c, j
    cdef double x, dx
    with nogil:
        for i in prange(n, schedule='static', num_threads=max(n_threads, 1)):
            for c in range(k):
                for j in range(d):
                    x = X[i, j]
                    if x != x:
                        out[i, c, j] = 0.0
                    else:
                        dx = x - theta[c, j]
                        out[i, c, j] = -(half_log_2pi_var[c, j]
                                         + half_inv_var[c, j] * dx * dx)


def categorical_dense_values(
    const value_t[:, ::1] X,          # IN: (n, d) values or table rows
    const int32_t[::1] lookup,        # IN: (d,) how each column finds its row
    const intp_t[::1] n_categories,   # IN: (d,)
    const double[::1] log_prob,       # IN: the blocks of _categorical_tables
    const intp_t[::1] block_start_,   # IN: (d,)
    Py_ssize_t row_width,
    const uint64_t[::1] hash_keys,
    const uint8_t[::1] hash_tags,
    const int64_t[::1] hash_rows,
    const intp_t[::1] hash_start,
    const intp_t[::1] hash_mask,
    double[:, :, ::1] out,            # OUT: (n, k, d)
    int n_threads,
):
    """The categorical_predict gather, term by term (bounds: its docstring)."""
    cdef Py_ssize_t n = X.shape[0], d = X.shape[1], k = out.shape[1]
    cdef Py_ssize_t i, c, j, h
    cdef intp_t row
    with nogil:
        for i in prange(n, schedule='static', num_threads=max(n_threads, 1)):
            for j in range(d):
                h = hash_start[j]
                row = table_row(X[i, j], lookup[j], n_categories[j], &hash_keys[h],
                                &hash_tags[h], &hash_rows[h], hash_mask[j])
                for c in range(k):
                    out[i, c, j] = 0.0 if row < 0 else \
                        log_prob[block_start_[j] + row * row_width + c]


def linear_csr_values(
    const floating[::1] data, const index_t[::1] indices, const index_t[::1] indptr,
    const double[:, ::1] weights_fm,   # IN: (d, >= k) feature-major weights
    bint binarize, double threshold,
    double[:, ::1] out,                # OUT: (k, nnz)
    int n_threads,
):
    """Terms at X's stored entries (indices checked by the caller's predict)."""
    cdef Py_ssize_t n = indptr.shape[0] - 1, k = out.shape[0]
    cdef Py_ssize_t i, p, c, j
    cdef double x
    with nogil:
        for i in prange(n, schedule='static', num_threads=max(n_threads, 1)):
            for p in range(indptr[i], indptr[i + 1]):
                j = indices[p]
                x = thresholded(data[p], binarize, threshold)
                for c in range(k):
                    out[c, p] = x * weights_fm[j, c] if x != 0.0 and x == x else 0.0


cdef inline double table_term(
    Py_ssize_t c, Py_ssize_t j, double x,
    const int64_t* feat_start, const int32_t* feat_len, const int32_t* ent_class,
    const double* ent_weight, const double* feat_base, bint scalar_base,
    const double* scale, const double* mult,
) noexcept nogil:
    """mult[c] x (base_j + scale[c] + w_cj): the sparse table's term of (c, j)."""
    cdef Py_ssize_t e
    cdef double w = 0.0
    cdef int64_t start = feat_start[j]
    for e in range(feat_len[j]):
        if ent_class[start + e] == c:
            w = ent_weight[start + e]
            break
    return mult[c] * (x * ((feat_base[0] if scalar_base else feat_base[j]) + scale[c] + w))


def table_csr_values(
    const floating[::1] data, const index_t[::1] indices, const index_t[::1] indptr,
    const int64_t[::1] feat_start, const int32_t[::1] feat_len,
    const int32_t[::1] ent_class, const double[::1] ent_weight,
    const double[::1] feat_base, const double[::1] scale, const double[::1] mult,
    bint binarize, double threshold,
    double[:, ::1] out,                # OUT: (k, nnz)
    int n_threads,
):
    cdef Py_ssize_t n = indptr.shape[0] - 1, k = out.shape[0]
    cdef Py_ssize_t i, p, c, j, e
    cdef int64_t start
    cdef double x, b
    cdef bint scalar_base = feat_base.shape[0] == 1
    with nogil:
        for i in prange(n, schedule='static', num_threads=max(n_threads, 1)):
            for p in range(indptr[i], indptr[i + 1]):
                j = indices[p]
                x = thresholded(data[p], binarize, threshold)
                if x == 0.0 or x != x:
                    for c in range(k):
                        out[c, p] = 0.0
                    continue
                b = feat_base[0] if scalar_base else feat_base[j]
                for c in range(k):
                    out[c, p] = b + scale[c]
                start = feat_start[j]
                for e in range(feat_len[j]):
                    out[ent_class[start + e], p] += ent_weight[start + e]
                for c in range(k):
                    out[c, p] = mult[c] * (x * out[c, p])


# -- the top-n terms of two classes' difference -------------------------------------------
def top_of_rows(
    const double[:, ::1] diff,   # IN: (m, d) one difference of terms a row
    int64_t[:, ::1] features,    # OUT: (m, n_top)
    double[:, ::1] values,       # OUT: (m, n_top)
    int n_threads,
):
    cdef Py_ssize_t m = diff.shape[0], d = diff.shape[1], n_top = values.shape[1]
    cdef Py_ssize_t i, j, size
    if n_top == 0:
        return
    with nogil:
        for i in prange(m, schedule='static', num_threads=max(n_threads, 1)):
            size = 0
            for j in range(d):
                size = offer(&values[i, 0], &features[i, 0], size, n_top,
                                 diff[i, j], j)
            heap_finish(&values[i, 0], &features[i, 0], size, n_top)


def top_of_csr_rows(
    const double[::1] diff,      # IN: (nnz,) one difference of terms a stored entry
    const index_t[::1] indices, const index_t[::1] indptr,
    int64_t[:, ::1] features, double[:, ::1] values,   # OUT: (n, n_top)
    int n_threads,
):
    cdef Py_ssize_t n = indptr.shape[0] - 1, n_top = values.shape[1]
    cdef Py_ssize_t i, p, size
    if n_top == 0:
        return
    with nogil:
        for i in prange(n, schedule='static', num_threads=max(n_threads, 1)):
            size = 0
            for p in range(indptr[i], indptr[i + 1]):
                size = offer(&values[i, 0], &features[i, 0], size, n_top, diff[p],
                                 indices[p])
            heap_finish(&values[i, 0], &features[i, 0], size, n_top)


def top_linear_csr(
    const floating[::1] data, const index_t[::1] indices, const index_t[::1] indptr,
    const double[:, ::1] weights_fm,   # IN: (d, >= k) feature-major weights
    bint binarize, double threshold,
    const intp_t[::1] first, const intp_t[::1] second,   # IN: (n,) the two classes
    int64_t[:, ::1] features, double[:, ::1] values,     # OUT: (n, n_top)
    int n_threads,
):
    cdef Py_ssize_t n = indptr.shape[0] - 1, n_top = values.shape[1]
    cdef Py_ssize_t i, p, j, size, a, b
    cdef double x
    if n_top == 0:
        return
    with nogil:
        for i in prange(n, schedule='static', num_threads=max(n_threads, 1)):
            size = 0
            a = first[i]
            b = second[i]
            for p in range(indptr[i], indptr[i + 1]):
                j = indices[p]
                x = thresholded(data[p], binarize, threshold)
                if x != 0.0 and x == x:
                    size = offer(&values[i, 0], &features[i, 0], size, n_top,
                                     x * weights_fm[j, a] - x * weights_fm[j, b], j)
            heap_finish(&values[i, 0], &features[i, 0], size, n_top)


def top_table_csr(
    const floating[::1] data, const index_t[::1] indices, const index_t[::1] indptr,
    const int64_t[::1] feat_start, const int32_t[::1] feat_len,
    const int32_t[::1] ent_class, const double[::1] ent_weight,
    const double[::1] feat_base, const double[::1] scale, const double[::1] mult,
    bint binarize, double threshold,
    const intp_t[::1] first, const intp_t[::1] second,
    int64_t[:, ::1] features, double[:, ::1] values,
    int n_threads,
):
    cdef Py_ssize_t n = indptr.shape[0] - 1, n_top = values.shape[1]
    cdef Py_ssize_t i, p, j, size, a, b
    cdef bint scalar_base = feat_base.shape[0] == 1
    cdef double x, ta, tb
    if n_top == 0:
        return
    with nogil:
        for i in prange(n, schedule='static', num_threads=max(n_threads, 1)):
            size = 0
            a = first[i]
            b = second[i]
            for p in range(indptr[i], indptr[i + 1]):
                j = indices[p]
                x = thresholded(data[p], binarize, threshold)
                if x == 0.0 or x != x:
                    continue
                ta = table_term(a, j, x, &feat_start[0], &feat_len[0], &ent_class[0],
                                &ent_weight[0], &feat_base[0], scalar_base, &scale[0],
                                &mult[0])
                tb = table_term(b, j, x, &feat_start[0], &feat_len[0], &ent_class[0],
                                &ent_weight[0], &feat_base[0], scalar_base, &scale[0],
                                &mult[0])
                size = offer(&values[i, 0], &features[i, 0], size, n_top, ta - tb, j)
            heap_finish(&values[i, 0], &features[i, 0], size, n_top)


cdef enum:
    SLOT_PREFETCH = 32   # non-zeros ahead whose slot is fetched (as the predictor)


cdef inline double slot_pair_term(const FeatureSlot* slot, const double* rows,
                                  Py_ssize_t kp, Py_ssize_t a, Py_ssize_t b, double x,
                                  const double* scale, const double* mult) noexcept nogil:
    """table_term(a) - table_term(b) of the slot's feature, its entries scanned
    once: the same bits as table_csr_values' terms."""
    cdef Py_ssize_t e
    cdef double wa = 0.0, wb = 0.0
    cdef int32_t n = slot.n
    cdef const double* row
    if a == b:
        return 0.0
    if n >= 0:
        for e in range(n):
            if slot.entry_class[e] == a:
                wa = slot.entry_weight[e]
            elif slot.entry_class[e] == b:
                wb = slot.entry_weight[e]
    else:
        row = rows + (-(n + 1)) * kp
        wa = row[a]
        wb = row[b]
    return (mult[a] * (x * ((slot.base + scale[a]) + wa))
            - mult[b] * (x * ((slot.base + scale[b]) + wb)))


def top_slots_csr(
    const floating[::1] data, const index_t[::1] indices, const index_t[::1] indptr,
    const unsigned char[::1] slots,   # IN: the table's feature slots (fill_slots)
    const double[:, ::1] rows,        # IN: their dense rows (kp padded classes)
    const double[::1] scale, const double[::1] mult,
    bint binarize, double threshold,
    const intp_t[::1] first, const intp_t[::1] second,
    int64_t[:, ::1] features, double[:, ::1] values,
    int n_threads,
):
    """top_table_csr over the feature slots: one cache line a non-zero (indices
    checked by the predict of the same batch)."""
    cdef Py_ssize_t n = indptr.shape[0] - 1, n_top = values.shape[1]
    cdef Py_ssize_t kp = rows.shape[1], d = slots.shape[0] // sizeof(FeatureSlot)
    cdef Py_ssize_t i, p, j, size, a, b, ahead
    cdef const FeatureSlot* slot = <const FeatureSlot*>&slots[0]
    cdef const double* row0 = &rows[0, 0]
    cdef double x
    cdef Py_ssize_t nnz = indptr[n]
    if n_top == 0:
        return
    with nogil:
        for i in prange(n, schedule='static', num_threads=max(n_threads, 1)):
            size = 0
            a = first[i]
            b = second[i]
            for p in range(indptr[i], indptr[i + 1]):
                if p + SLOT_PREFETCH < nnz:   # (across rows: rows are short)
                    ahead = indices[p + SLOT_PREFETCH]
                    if 0 <= ahead < d:
                        FASTNB_PREFETCH_L1(&slot[ahead])
                j = indices[p]
                x = thresholded(data[p], binarize, threshold)
                if x == 0.0 or x != x:
                    continue
                size = offer(&values[i, 0], &features[i, 0], size, n_top,
                             slot_pair_term(&slot[j], row0, kp, a, b, x, &scale[0],
                                            &mult[0]), j)
            heap_finish(&values[i, 0], &features[i, 0], size, n_top)


def top_two(
    const double[:, ::1] jll,        # IN: (n, k), k >= 2
    intp_t[::1] first, intp_t[::1] second,   # OUT: (n,) the best class, the runner-up
    int n_threads,
):
    """Each row's best class and runner-up (the first among equals; a NaN score
    never wins)."""
    cdef Py_ssize_t n = jll.shape[0], k = jll.shape[1]
    cdef Py_ssize_t i, c, a, b
    with nogil:
        for i in prange(n, schedule='static', num_threads=max(n_threads, 1)):
            a = 0
            for c in range(1, k):
                if jll[i, c] > jll[i, a] or jll[i, a] != jll[i, a]:
                    a = c
            b = 1 if a == 0 else 0
            for c in range(k):
                if c != a and (jll[i, c] > jll[i, b] or jll[i, b] != jll[i, b]):
                    b = c
            first[i] = a
            second[i] = b


# -- the most informative features of a table model ---------------------------------------
cdef inline void offer_scores(
    const double* w, double* ex, Py_ssize_t k, const double* prior, double total_prior,
    bint log_mixture, int64_t j, double* values, int64_t* features, Py_ssize_t* sizes,
    Py_ssize_t n_top, const uint8_t* counted, Py_ssize_t counted_stride,
) noexcept nogil:
    """Offer feature j's score of each class to that class's heap: w[c] against
    the prior-weighted mix of the other classes' w (log of the mean of exp(w), or
    the mean of w). The sum over the other classes is the total less c's share,
    except for the largest share, whose others are summed directly: no
    cancellation (every other class's others include that largest share)."""
    cdef Py_ssize_t c, c_max = 0
    cdef double top = -INFINITY, s = 0.0, s_max = 0.0, m = 0.0, others, score
    for c in range(k):
        if w[c] > top:
            top = w[c]
    if top == -INFINITY:
        return
    for c in range(k):
        if log_mixture:
            ex[c] = prior[c] * _exp(w[c] - top)
        else:
            ex[c] = prior[c] * w[c]
        s = s + ex[c]
        if ex[c] > ex[c_max]:
            c_max = c
    for c in range(k):
        if c != c_max:
            s_max = s_max + ex[c]
    for c in range(k):
        if total_prior - prior[c] <= 0.0 or not counted[c * counted_stride]:
            continue
        others = s_max if c == c_max else s - ex[c]
        if log_mixture:
            score = w[c] - (top + log(others / (total_prior - prior[c])))
        else:
            score = w[c] - others / (total_prior - prior[c])
        if score > 0.0:
            sizes[c] = offer(&values[c * n_top], &features[c * n_top], sizes[c],
                                 n_top, score, j)


def table_informative(
    const int64_t[::1] feat_start, const int32_t[::1] feat_len,
    const int32_t[::1] ent_class, const double[::1] ent_weight,
    const double[::1] ent_count,      # IN: the entries' counts (with from_counts)
    const double[::1] alpha,          # IN: (1,) or (d,) (with from_counts)
    bint from_counts,                 # IN: exp(w_e) - 1 = count / alpha (MultinomialNB)
    const double[::1] feat_base, const double[::1] scale, const double[::1] mult,
    const double[::1] prior,          # IN: (k,) the class priors of the mix
    bint log_mixture,                 # IN: log mean exp (else mean) of the others' w
    int64_t[:, :, ::1] features,      # OUT: (n_blocks, k, n_top) each block's best
    double[:, :, ::1] values,         # OUT: (n_blocks, k, n_top) their scores
    double[:, ::1] scratch,           # SCRATCH: (n_blocks, k)
    intp_t[:, ::1] sizes,             # SCRATCH: (n_blocks, k) zeroed
    int n_threads,
):
    """offer_scores over the table's entries: each (class, feature) with a count,
    in O(k + entries) in all. With w_cj = mult_c (b_j + s_c + e_cj) (e_cj = 0
    without an entry), the mix over every class of feature j is a constant plus
    one term an entry: log mixture (mult = 1), sum_c p_c exp(w_cj) = exp(b_j + S)
    (A + sum_e p_c exp(s_c - S) expm1(e_cj)), A = sum_c p_c exp(s_c - S), S = max
    s_c, b_j cancelling out of the score; mean, sum_c p_c w_cj = b_j P1 + P2 +
    sum_e p_c mult_c e_cj. The other classes' mix is the total less c's share.
    MultinomialNB's expm1(e_cj) is N_cj / a_j (its entry weight is log(N_cj +
    a_j) - log a_j): no exp. The log of a score is first taken approximately, and
    exactly only for a score that may enter its class's list."""
    cdef Py_ssize_t d = feat_start.shape[0], k = prior.shape[0]
    cdef Py_ssize_t n_blocks = features.shape[0], n_top = values.shape[2]
    cdef Py_ssize_t block, j, c, e, lo, hi
    cdef double total_prior = 0.0, S = -INFINITY, A = 0.0, P1 = 0.0, P2 = 0.0
    cdef double U, M, w, b, others, score, worst
    cdef double* grown
    cdef int64_t start
    cdef bint scalar_base = feat_base.shape[0] == 1
    cdef bint scalar_alpha = alpha.shape[0] == 1
    # per class: p_c exp(s_c - S), and log of the other classes' prior mass
    cdef double[::1] weight_arr = np.zeros(k)
    cdef double[::1] log_rest = np.zeros(k)
    if n_top == 0:
        return
    for c in range(k):
        total_prior += prior[c]
        if scale[c] > S:
            S = scale[c]
    for c in range(k):
        weight_arr[c] = prior[c] * _exp(scale[c] - S)
        A += weight_arr[c]
        P1 += prior[c] * mult[c]
        P2 += prior[c] * mult[c] * scale[c]
        log_rest[c] = log(total_prior - prior[c]) if total_prior - prior[c] > 0.0 \
            else INFINITY
    with nogil:
        for block in prange(n_blocks, schedule='static', num_threads=max(n_threads, 1)):
            grown = &scratch[block, 0]
            lo = block_start(block, n_blocks, d)
            hi = block_start(block + 1, n_blocks, d)
            for j in range(lo, hi):
                start = feat_start[j]
                if feat_len[j] == 0:
                    continue
                U = A
                M = 0.0
                b = feat_base[0] if scalar_base else feat_base[j]
                for e in range(feat_len[j]):
                    c = ent_class[start + e]
                    if not log_mixture:
                        M = M + prior[c] * mult[c] * ent_weight[start + e]
                        continue
                    if from_counts:
                        grown[e] = weight_arr[c] * (ent_count[start + e] / (
                            alpha[0] if scalar_alpha else alpha[j]))
                    else:
                        grown[e] = weight_arr[c] * _expm1(ent_weight[start + e])
                    U = U + grown[e]
                for e in range(feat_len[j]):
                    c = ent_class[start + e]
                    if log_rest[c] == INFINITY:
                        continue   # no other class to compare with
                    if log_mixture:
                        # c's share of U is weight_arr[c] exp(e_cj) = its base
                        # share plus grown[e]
                        others = U - (weight_arr[c] + grown[e])
                        score = (scale[c] + ent_weight[start + e]) - (S - log_rest[c])
                        worst = kept_worst(&values[block, c, 0], sizes[block, c], n_top)
                        if score - fastnb_log_approx(others) < worst - LOG_APPROX_MARGIN:
                            continue
                        score = score - log(others)
                    else:
                        w = mult[c] * ((b + scale[c]) + ent_weight[start + e])
                        others = ((b * P1 + P2 + M) - prior[c] * w) / (
                            total_prior - prior[c])
                        score = w - others
                    if score > 0.0:
                        sizes[block, c] = offer(&values[block, c, 0], &features[block, c, 0],
                                                sizes[block, c], n_top, score, j)
            for c in range(k):
                heap_finish(&values[block, c, 0], &features[block, c, 0],
                            sizes[block, c], n_top)


def dense_informative(
    const double[:, ::1] weights,     # IN: (k, d) the weight of one occurrence
    const uint8_t[:, ::1] counted,    # IN: (k, d) whether class c has a count of j
    const double[::1] prior, bint log_mixture,
    int64_t[:, :, ::1] features, double[:, :, ::1] values,
    double[:, ::1] scratch, intp_t[:, ::1] sizes, int n_threads,
):
    """table_informative for a model of dense weights."""
    cdef Py_ssize_t d = weights.shape[1], k = prior.shape[0]
    cdef Py_ssize_t n_blocks = features.shape[0], n_top = values.shape[2]
    cdef Py_ssize_t block, j, c, lo, hi
    cdef double total_prior = 0.0
    cdef double* w
    if n_top == 0:
        return
    for c in range(k):
        total_prior += prior[c]
    with nogil:
        for block in prange(n_blocks, schedule='static', num_threads=max(n_threads, 1)):
            w = &scratch[block, 0]
            lo = block_start(block, n_blocks, d)
            hi = block_start(block + 1, n_blocks, d)
            for j in range(lo, hi):
                for c in range(k):
                    w[c] = weights[c, j]
                offer_scores(w, &scratch[block, k], k, &prior[0], total_prior,
                             log_mixture, j, &values[block, 0, 0],
                             &features[block, 0, 0], &sizes[block, 0], n_top,
                             &counted[0, j], d)
            for c in range(k):
                heap_finish(&values[block, c, 0], &features[block, c, 0],
                            sizes[block, c], n_top)


cdef extern from "math.h" nogil:
    double _exp "exp"(double)
    double _expm1 "expm1"(double)
