"""The most informative features of a model (fastnb.inspection's
``informative_features``): for each class, the features whose weight for that
class most exceeds the prior-weighted mix of the other classes' weights, kept in
a top-n list a class and block of features (_inspection_heap.pxd, shared with
_inspection_kernels.pyx), the blocks merged by the caller. Every block is
computed alone: the same bits for any thread count.
"""

from cython.parallel cimport prange
from libc.math cimport log, INFINITY
from libc.stdint cimport int32_t, int64_t, uint8_t

from _common cimport intp_t, block_start
from _inspection_heap cimport offer, heap_finish, kept_worst

import numpy as np


# a score within this (relative) of the worst kept one is computed exactly: the
# filter's products differ from the exact logs by rounding, ~1e-15
cdef double FILTER_MARGIN = 1e-9
# past this worst kept score, exp() of it would overflow: no filter
cdef double FILTER_MAX_LOG = 600.0
# table_informative's gate, a feature at a time, is the filter rearranged: it
# skips a feature only when all its entries miss the filter by this much more
# (rounding of the rearranged sums, ~1e-15; the filter keeps FILTER_MARGIN)
cdef double GATE_MARGIN = 1e-12


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
    double[:, ::1] scratch,           # SCRATCH: (n_blocks, 4 k)
    intp_t[:, ::1] sizes,             # SCRATCH: (n_blocks, k) zeroed
    const int64_t[::1] active,        # IN: the features with entries, ascending
    const int64_t[::1] bounds,        # IN: (n_blocks + 1,) each block's first of them
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
    a_j) - log a_j): no exp, and a product by 1 / a_j (a quotient an entry
    was a third of the pass, T1). A score's log is taken only for a score that may
    enter its class's list: exp(score) is a product, compared with exp(the
    worst kept score), kept a class (an approximate log a score, before, cost
    the pass ~3x one pass over the counts)."""
    cdef Py_ssize_t d = feat_start.shape[0], k = prior.shape[0]
    cdef Py_ssize_t n_blocks = features.shape[0], n_top = values.shape[2]
    cdef Py_ssize_t block, j, c, e, lo, hi, t
    cdef double total_prior = 0.0, S = -INFINITY, A = 0.0, P1 = 0.0, P2 = 0.0
    cdef double U, M, w, b, others, score, worst, inv_a, reach
    cdef double inv_alpha0 = 1.0 / alpha[0] if alpha.shape[0] else 0.0
    cdef double* grown
    cdef double* ratio
    cdef double* bar
    cdef double* gate
    cdef int64_t start
    cdef bint scalar_base = feat_base.shape[0] == 1
    cdef bint scalar_alpha = alpha.shape[0] == 1
    # per class: p_c exp(s_c - S), log of the other classes' prior mass, and
    # exp(s_c - S) times that mass (the filter's factor)
    cdef double[::1] weight_arr = np.zeros(k)
    cdef double[::1] log_rest = np.zeros(k)
    cdef double[::1] filter_factor = np.zeros(k)
    if n_top == 0:
        return
    if scratch.shape[1] < 4 * k or scratch.shape[0] < n_blocks:
        raise ValueError("table_informative: scratch too small")
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
        filter_factor[c] = _exp(scale[c] - S) * (total_prior - prior[c])
    with nogil:
        for block in prange(n_blocks, schedule='static', num_threads=max(n_threads, 1)):
            grown = &scratch[block, 0]
            ratio = &scratch[block, k]
            bar = &scratch[block, 2 * k]
            gate = &scratch[block, 3 * k]
            for c in range(k):
                bar[c] = 1.0 - FILTER_MARGIN   # a score > 0: a ratio > 1
                gate[c] = filter_factor[c] / bar[c] + weight_arr[c]
            lo = min(max(bounds[block], 0), active.shape[0])
            hi = min(max(bounds[block + 1], lo), active.shape[0])
            for t in range(lo, hi):
                # (only the features with entries: a test of each feature's
                # length mispredicted on half of T1's 2**20, ~15% of the pass)
                j = active[t]
                if not 0 <= j < d:
                    continue
                start = feat_start[j]
                U = A
                M = 0.0
                reach = 0.0
                b = feat_base[0] if scalar_base else feat_base[j]
                inv_a = inv_alpha0 if scalar_alpha else 1.0 / alpha[j]
                for e in range(feat_len[j]):
                    c = ent_class[start + e]
                    if not log_mixture:
                        M = M + prior[c] * mult[c] * ent_weight[start + e]
                        continue
                    if from_counts:
                        ratio[e] = ent_count[start + e] * inv_a
                    else:
                        ratio[e] = _expm1(ent_weight[start + e])
                    grown[e] = weight_arr[c] * ratio[e]
                    U = U + grown[e]
                    # the filter below, solved for U: an entry passes it only if
                    # (1 + ratio) gate[c] >= U, gate[c] = filter_factor[c] /
                    # bar[c] + weight_arr[c] (infinite while bar[c] is 0)
                    reach = max(reach, (1.0 + ratio[e]) * gate[c])
                if log_mixture and reach < U * (1.0 - GATE_MARGIN):
                    # no entry of the feature can pass the filter (the second
                    # loop's tests an entry, on every feature, were ~half the pass)
                    continue
                for e in range(feat_len[j]):
                    c = ent_class[start + e]
                    if log_rest[c] == INFINITY:
                        continue   # no other class to compare with
                    if log_mixture:
                        # c's share of U is weight_arr[c] exp(e_cj) = its base
                        # share plus grown[e]
                        others = U - (weight_arr[c] + grown[e])
                        # exp(score) = exp(s_c - S) rest_c exp(e_cj) / others,
                        # exp(e_cj) = 1 + ratio[e]: below exp(worst kept) (less
                        # a margin), it cannot enter; a product, not a log
                        if filter_factor[c] * (1.0 + ratio[e]) < others * bar[c]:
                            continue
                        score = ((scale[c] + ent_weight[start + e]) - (S - log_rest[c])
                                 - log(others))
                    else:
                        w = mult[c] * ((b + scale[c]) + ent_weight[start + e])
                        others = ((b * P1 + P2 + M) - prior[c] * w) / (
                            total_prior - prior[c])
                        score = w - others
                    if score > 0.0:
                        sizes[block, c] = offer(&values[block, c, 0], &features[block, c, 0],
                                                sizes[block, c], n_top, score, j)
                        worst = kept_worst(&values[block, c, 0], sizes[block, c], n_top)
                        if worst > FILTER_MAX_LOG:
                            bar[c] = 0.0
                        elif worst > 0.0:
                            bar[c] = _exp(worst) * (1.0 - FILTER_MARGIN)
                        gate[c] = (filter_factor[c] / bar[c] + weight_arr[c]
                                   if bar[c] > 0.0 else INFINITY)
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
