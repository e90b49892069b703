"""A search's GaussianNB candidates scored in one pass over a split's test rows.

The candidates that differ only in ``var_smoothing`` (and the priors) share
their means and differ in every variance, so each one's predict is a full pass:
(x - theta)**2 * half_inv_var summed over features. Here each row's squared
deviations from one class's means are computed once, and every candidate's sum
over them is one multiply and one add per feature, with the eight accumulators
and the tree of ``gaussian_class_jll`` (_gaussian.pxd): each candidate's score is
the one ``gaussian_predict`` (_gaussian_kernels.pyx) gives it, the same bits (the
builds contract no multiply-add into an FMA, src_cython/meson.build). With
label-only scoring, a candidate close to another is not summed where its label
is proved from the other's scores (below).
"""

from cython.parallel cimport prange

from libc.math cimport INFINITY, fabs

from _common cimport (
    intp_t, floating, block_start, block_scratch_bytes, consider_class,
    finish_scores, MODE_ARGMAX,
)
from _gaussian cimport gaussian_predict_row, gaussian_class_jll_missing
from _gaussian_rows cimport row_of, row_scratch, scratch_row

import numpy as np


# Two rows' sums under three candidates at a time, in C (the AVX2 build's with
# intrinsics).
cdef extern from "_gaussian_simd.h":
    enum: GAUSSIAN_CANDIDATES_AT_ONCE
    enum: GAUSSIAN_GROUP_SLOTS
    int gaussian_consider_candidates(
        const double* squares, Py_ssize_t n_rows, Py_ssize_t square_stride,
        const double* weights, Py_ssize_t d, const double* log_norm, Py_ssize_t c,
        double* best, intp_t* best_class, Py_ssize_t best_stride,
        double* values, int keep_values) noexcept nogil

# how many candidates the pass sums together (fastnb/_gaussian.py fills a
# last group's free places)
CANDIDATES_AT_ONCE = GAUSSIAN_CANDIDATES_AT_ONCE


# Rows go in tiles of up to this many: a tile's squared deviations from one
# class's means (tile x d values) stay in L1 while every group of candidates
# reads them, and each group's (3, d) weights are read once for the tile
# rather than once a row. Row by row, the 20 candidates' weights (160 KiB at
# d = 100, k = 10) came from L2 for every row (H1 Gaussian's fold, 2 threads:
# 227 ms row by row, 194 ms in tiles of 16 rows, 178 ms with the tile's rows
# in pairs under groups of three candidates, _gaussian_simd.h).
cdef enum:
    MAX_TILE_ROWS = 16
    TILE_SQUARES_BYTES = 16384


cdef inline Py_ssize_t tile_rows(Py_ssize_t d) noexcept nogil:
    """Rows a tile takes at d features: as many as fit TILE_SQUARES_BYTES of
    squares, an even number (the rows go in pairs) from 2 to MAX_TILE_ROWS."""
    cdef Py_ssize_t rows = min(<Py_ssize_t>MAX_TILE_ROWS, TILE_SQUARES_BYTES // (8 * max(d, 1)))
    return max(2, rows - rows % 2)


# -- labels derived from an anchor's scores, with a certified bound ---------------
#
# With label-only scoring (accuracy), a candidate v need not be summed when its
# label is certain from another candidate's: its anchor a, summed in this pass.
# Both sums run over the same rounded squares, and v's weights are a's times a
# ratio in [lo_c, hi_c] for class c, so in exact arithmetic v's sum lies in
# [lo_c Q_a, hi_c Q_a]. Every rounding on the way is bounded too: a's sum and
# v's each within gamma = m u / (1 - m u) of exact (m = d / 8 + 7: a product,
# an accumulator's d / 8 additions and the tree's three; u = 2**-53), a's sum
# recovered from its score L_a - S_a within 4 u (|L_a| + |S_a|), v's score
# L_v - Q_v rounded within u (|L_v| + Q_v), and the bounds' own arithmetic
# (their coefficients and the few operations here) within a few u more; kappa
# = 4 gamma + 96 u covers them all, relative to |L_v| + hi_c Q_a. When the
# lower bound of v's score of the anchor's class b is above the upper bounds
# of all other classes, v's own predict computes a larger score for b than for
# any other (no tie), so b is v's label: the bits of v's predict, not an
# estimate. Otherwise (a close call, a missing value, a non-finite term: NaN
# compares false) the row is summed for v as its own predict does.

cdef double UNIT_ROUNDOFF = 1.1102230246251565e-16   # 2**-53


def derivation_slack(Py_ssize_t d):
    """kappa: the relative slack that covers every rounding of a derived
    score's bounds at d features (see above)."""
    cdef double m = <double>(d // 8 + 7)
    cdef double gamma = m * UNIT_ROUNDOFF / (1.0 - m * UNIT_ROUNDOFF)
    return 4.0 * gamma + 96.0 * UNIT_ROUNDOFF


cdef inline void anchor_sum_bounds(
    const double* scores,        # IN (k,): the anchor's scores of a row
    const double* norm,          # IN (k,): its log norms
    Py_ssize_t k,
    double* sum_hi,              # OUT (k,): upper bounds of its sums
    double* sum_lo,              # OUT (k,): lower bounds (at least 0)
) noexcept nogil:
    cdef Py_ssize_t c
    cdef double total, slack
    for c in range(k):
        total = norm[c] - scores[c]
        slack = 4.0 * UNIT_ROUNDOFF * (fabs(norm[c]) + fabs(scores[c]))
        sum_hi[c] = total + slack
        sum_lo[c] = max(total - slack, 0.0)


cdef inline bint label_is_certain(
    Py_ssize_t b,                # the anchor's label of the row
    const double* sum_hi,        # IN (k,): the anchor's sums' bounds
    const double* sum_lo,        # IN (k,)
    const double* coefficients,  # IN (5, k): the candidate's (below)
    Py_ssize_t k,
) noexcept nogil:
    """Whether the candidate's label of the row is b: its score of b is at
    least low_b = A_b - B_b sum_hi_b, and of class c at most up_c = C_c -
    D_c sum_lo_c + E_c sum_hi_c (A = L - kappa |L|, B = (1 + kappa) hi, C =
    L + kappa |L|, D = lo, E = kappa hi); b is certain when low_b > up_c for
    every other c. No branch in the loop: a mismatch is rare."""
    cdef const double* A = coefficients
    cdef const double* B = coefficients + k
    cdef const double* C = coefficients + 2 * k
    cdef const double* D = coefficients + 3 * k
    cdef const double* E = coefficients + 4 * k
    cdef double low_b = A[b] - B[b] * sum_hi[b]
    cdef Py_ssize_t c
    cdef int beaten = 0
    for c in range(k):
        beaten |= (c != b) & (not (C[c] - D[c] * sum_lo[c] + E[c] * sum_hi[c] < low_b))
    return not beaten


cdef void predict_candidate_rows(
    const floating[:, :] X,
    floating* gathered,                    # SCRATCH: (tile, d) values when X's rows are strided
    double* squares,                       # SCRATCH: (tile, d) values
    double* values,                        # SCRATCH: (2, 4) values
    double* best,                          # SCRATCH: (tile, n_slots) running maxima
    double* anchor_scores,                 # SCRATCH: (tile, n_anchors, k) when derived
    double* sum_bounds,                    # SCRATCH: (n_anchors, 2, k) when derived
    intp_t* best_class,                    # SCRATCH: (tile, n_slots)
    intp_t* saw_nan,                       # SCRATCH: (tile, n_slots)
    intp_t* row_missing,                   # SCRATCH: (tile,)
    intp_t* suspect,                       # OUT: (g,) rows with no finite best, added
    const intp_t[::1] anchors,             # IN: (n_anchors,) the candidates summed
    const intp_t[::1] derived,             # IN: (n_derived,) those derived, if any
    const intp_t[::1] derived_anchor,      # IN: (n_derived,) position of each one's anchor
    const intp_t[::1] anchor_has_derived,  # IN: (n_anchors,) whether any is derived from it
    const double[:, :, ::1] coefficients,  # IN: (n_derived, 5, k) see label_is_certain
    const double[:, ::1] theta,
    const double[:, :, ::1] half_inv_var,
    const double[:, :, :, ::1] weights_of_groups,  # IN: (n_groups, k, 3, d): anchors
    const double[:, :, ::1] log_norm_of_groups,    # IN: (n_groups, k, 4), 1 unused
    const double[:, :, ::1] half_log_2pi_var,
    const double[:, ::1] log_norm,
    const double[:, ::1] log_prior,
    int mode,
    intp_t[:, ::1] labels_out,
    double[:, :, ::1] out,
    Py_ssize_t row_start,
    Py_ssize_t row_stop,
) noexcept nogil:
    """The rows [row_start, row_stop), a tile of rows at a time: per class,
    the tile's squared deviations once, then each group of three anchors'
    scores of the tile's rows, two rows at a time, from them, taken into each
    row's running arg-max three at a time (one at a time when one is NaN: a
    missing value). Each row sees its classes in increasing order, as in its
    own predict. Then each derived candidate's label of each row of the tile,
    from its anchor's scores where they prove it, else from its own predict
    of the row."""
    cdef Py_ssize_t i, c, v, j, q, u, r, first, slot, at, tile_start, n_tile, pair, n_rows
    cdef Py_ssize_t position, label
    cdef int nan_rows
    cdef double* row_values
    cdef Py_ssize_t n_anchors = anchors.shape[0]
    cdef Py_ssize_t n_derived = derived.shape[0]
    cdef Py_ssize_t n_groups = weights_of_groups.shape[0]
    # anchor p's slot in a row's best, best_class and saw_nan is
    # (p // 3) * 4 + p % 3: a group's three, then one unused
    cdef Py_ssize_t n_slots = n_groups * GAUSSIAN_GROUP_SLOTS
    cdef Py_ssize_t k = theta.shape[0]
    cdef Py_ssize_t d = theta.shape[1]
    cdef Py_ssize_t tile = tile_rows(d)
    cdef double diff, value
    cdef bint nan_seen
    cdef int keep_values = mode != MODE_ARGMAX or n_derived > 0
    cdef const floating* rows_x[MAX_TILE_ROWS]
    cdef const floating* x
    cdef const double* mean
    cdef double* row_squares
    tile_start = row_start
    while tile_start < row_stop:
        n_tile = min(tile, row_stop - tile_start)
        for r in range(n_tile):
            rows_x[r] = row_of(X, tile_start + r,
                               NULL if gathered == NULL else gathered + r * d)
            row_missing[r] = 0
        for v in range(n_tile * n_slots):
            best[v] = -INFINITY
            best_class[v] = 0
            saw_nan[v] = 0
        for c in range(k):
            mean = &theta[c, 0]
            for r in range(n_tile):
                x = rows_x[r]
                row_squares = squares + r * d
                for j in range(d):
                    diff = x[j] - mean[j]
                    row_squares[j] = diff * diff
            for q in range(n_groups):
                first = q * GAUSSIAN_CANDIDATES_AT_ONCE
                slot = q * GAUSSIAN_GROUP_SLOTS
                for pair in range(0, n_tile, 2):
                    n_rows = min(2, n_tile - pair)
                    nan_rows = gaussian_consider_candidates(
                        squares + pair * d, n_rows, d, &weights_of_groups[q, c, 0, 0],
                        d, &log_norm_of_groups[q, c, 0], c, &best[pair * n_slots + slot],
                        &best_class[pair * n_slots + slot], n_slots, values, keep_values)
                    if not keep_values and not nan_rows:
                        continue
                    for r in range(pair, pair + n_rows):
                        i = tile_start + r
                        row_values = values + (r - pair) * GAUSSIAN_GROUP_SLOTS
                        if nan_rows & (1 << (r - pair)):
                            row_missing[r] = 1
                        for u in range(min(<Py_ssize_t>GAUSSIAN_CANDIDATES_AT_ONCE,
                                           n_anchors - first)):
                            position = first + u
                            v = anchors[position]
                            value = row_values[u]
                            if nan_rows & (1 << (r - pair)):
                                if value != value:
                                    value = gaussian_class_jll_missing(
                                        rows_x[r], mean, &half_inv_var[v, c, 0],
                                        &half_log_2pi_var[v, c, 0], log_prior[v, c], d)
                                at = r * n_slots + slot + u
                                nan_seen = saw_nan[at] != 0
                                consider_class(value, c, &best[at], &best_class[at],
                                               &nan_seen)
                                saw_nan[at] = nan_seen
                            if mode != MODE_ARGMAX:
                                out[v, i, c] = value
                            elif n_derived:
                                anchor_scores[(r * n_anchors + position) * k + c] = value
        for r in range(n_tile):
            i = tile_start + r
            for position in range(n_anchors):
                v = anchors[position]
                at = (r * n_slots + (position // GAUSSIAN_CANDIDATES_AT_ONCE)
                      * GAUSSIAN_GROUP_SLOTS + position % GAUSSIAN_CANDIDATES_AT_ONCE)
                suspect[v] += finish_scores(
                    NULL if mode == MODE_ARGMAX else &out[v, i, 0], k, mode,
                    &labels_out[v, i] if mode == MODE_ARGMAX else NULL,
                    best[at], best_class[at], saw_nan[at] != 0)
            if n_derived:
                for position in range(n_anchors):
                    if anchor_has_derived[position]:
                        anchor_sum_bounds(anchor_scores + (r * n_anchors + position) * k,
                                          &log_norm[anchors[position], 0], k,
                                          sum_bounds + 2 * position * k,
                                          sum_bounds + (2 * position + 1) * k)
            for j in range(n_derived):
                v = derived[j]
                position = derived_anchor[j]
                label = labels_out[anchors[position], i]
                if not row_missing[r] and label_is_certain(
                        label, sum_bounds + 2 * position * k,
                        sum_bounds + (2 * position + 1) * k, &coefficients[j, 0, 0], k):
                    labels_out[v, i] = label
                else:
                    suspect[v] += gaussian_predict_row(
                        rows_x[r], &theta[0, 0], &half_inv_var[v, 0, 0],
                        &half_log_2pi_var[v, 0, 0], &log_norm[v, 0], &log_prior[v, 0],
                        k, d, MODE_ARGMAX, &labels_out[v, i], NULL)
        tile_start += n_tile


def gaussian_predict_candidates(
    const floating[:, :] X,                      # IN: (n, d) samples, NaN = missing
    const double[:, ::1] theta,                  # IN: (k, d) class means, shared
    const double[:, :, ::1] half_inv_var,        # IN: (g, k, d) each candidate's
    const double[:, :, ::1] half_log_2pi_var,    # IN: (g, k, d)
    const double[:, ::1] log_norm,               # IN: (g, k)
    const double[:, ::1] log_prior,              # IN: (g, k)
    int mode,                                    # MODE_ARGMAX or MODE_JLL
    intp_t[:, ::1] labels_out,                   # OUT: (g, n) for MODE_ARGMAX, else None
    double[:, :, ::1] out,                       # OUT: (g, n, k) for MODE_JLL, else None
    int n_threads,
    const intp_t[::1] anchor_of=None,            # IN: (g,) -1, or the anchor of a derived one
    const double[:, ::1] ratio_lo=None,          # IN: (g, k) bounds of half_inv_var[v] /
    const double[:, ::1] ratio_hi=None,          #     half_inv_var[anchor_of[v]], per class
):
    """``gaussian_predict`` of g models that share their means, in one pass over X.

    Candidate v's scores (or labels) are those ``gaussian_predict`` computes
    from its own terms (``half_inv_var[v]``, ...), the same sums in the same
    order. With ``anchor_of`` (MODE_ARGMAX only), a candidate v whose
    ``anchor_of[v]`` is an anchor (itself -1) is not summed where its label is
    certain from its anchor's scores and the bounds ``ratio_lo[v, c] <=
    half_inv_var[v, c, j] / half_inv_var[anchor, c, j] <= ratio_hi[v, c]``
    over j; its labels are still those of its own predict (see
    ``label_is_certain``), provided the bounds hold. Returns a (g,) intp array:
    each candidate's number of rows whose best score was not finite. The rows
    are cut into blocks by position: the result does not depend on
    ``n_threads``.
    """
    cdef Py_ssize_t n = X.shape[0]
    cdef Py_ssize_t d = X.shape[1]
    cdef Py_ssize_t g = half_inv_var.shape[0]
    cdef Py_ssize_t k = theta.shape[0]
    cdef Py_ssize_t block, v
    cdef Py_ssize_t n_blocks = max(1, min(n_threads, n))
    if (theta.shape[1] != d or half_inv_var.shape[1] != k or half_inv_var.shape[2] != d
            or half_log_2pi_var.shape[0] != g or half_log_2pi_var.shape[1] != k
            or half_log_2pi_var.shape[2] != d or log_norm.shape[0] != g
            or log_norm.shape[1] != k or log_prior.shape[0] != g
            or log_prior.shape[1] != k):
        raise ValueError("The candidates' terms do not match X and theta.")
    if mode == MODE_ARGMAX:
        if labels_out is None or labels_out.shape[0] != g or labels_out.shape[1] != n:
            raise ValueError("labels_out must be a (g, n) intp array.")
    elif out is None or out.shape[0] != g or out.shape[1] != n or out.shape[2] != k:
        raise ValueError("out must be a (g, n, k) float64 array.")
    anchor_of_arr = np.full(g, -1, dtype=np.intp) if anchor_of is None else np.asarray(anchor_of)
    if anchor_of_arr.shape != (g,) or np.any(anchor_of_arr < -1):
        raise ValueError("anchor_of must be a (g,) intp array of -1 (an anchor) or "
                         "the anchor of a derived candidate.")
    is_derived = anchor_of_arr >= 0
    derived_arr = np.flatnonzero(is_derived)
    anchors_arr = np.flatnonzero(~is_derived)
    if derived_arr.size:
        if mode != MODE_ARGMAX:
            raise ValueError("Only labels can be derived from an anchor's scores.")
        if ratio_lo is None or ratio_hi is None:
            raise ValueError("A derived candidate needs ratio_lo and ratio_hi.")
        lo, hi = np.asarray(ratio_lo), np.asarray(ratio_hi)
        of = anchor_of_arr[derived_arr]
        if (lo.shape != (g, k) or hi.shape != (g, k) or np.any(of >= g)
                or np.any(anchor_of_arr[of] != -1)):
            raise ValueError("Each derived candidate's anchor must be an anchor, and "
                             "ratio_lo and ratio_hi (g, k) arrays.")
        lo, hi = lo[derived_arr], hi[derived_arr]
        if not (np.all(np.isfinite(hi)) and np.all(lo >= 0) and np.all(lo <= hi)):
            raise ValueError("ratio_lo and ratio_hi must be finite, with "
                             "0 <= ratio_lo <= ratio_hi.")
        position_of = np.full(g, -1, dtype=np.intp)
        position_of[anchors_arr] = np.arange(anchors_arr.size)
        derived_anchor_arr = position_of[of]
        has_derived_arr = np.zeros(anchors_arr.size, dtype=np.intp)
        has_derived_arr[derived_anchor_arr] = 1
        # label_is_certain's A, B, C, D, E; an absolute 1e-290 covers the
        # (absolute, not relative) rounding of products that underflow
        kappa = derivation_slack(d)
        norm = np.asarray(log_norm)[derived_arr]
        with np.errstate(invalid="ignore", over="ignore"):
            coefficients_arr = np.ascontiguousarray(np.stack(
                [norm - kappa * np.abs(norm) - 1e-290, (1.0 + kappa) * hi,
                 norm + kappa * np.abs(norm) + 1e-290, lo, kappa * hi], axis=1))
    else:
        derived_anchor_arr = np.zeros(0, dtype=np.intp)
        has_derived_arr = np.zeros(anchors_arr.size, dtype=np.intp)
        coefficients_arr = np.zeros((0, 5, k))
    cdef const double[:, :, ::1] coefficients = coefficients_arr
    cdef const intp_t[::1] anchor_has_derived = has_derived_arr
    cdef const intp_t[::1] anchors = anchors_arr
    cdef const intp_t[::1] derived = derived_arr
    cdef const intp_t[::1] derived_anchor = derived_anchor_arr
    cdef Py_ssize_t n_anchors = anchors.shape[0]
    cdef Py_ssize_t n_derived = derived.shape[0]
    cdef bint strided = d > 1 and X.strides[1] != sizeof(floating)
    cdef Py_ssize_t tile = tile_rows(d)
    cdef floating[:, ::1] gathered = row_scratch(n_blocks, tile * d, strided,
                                                 floating is float)
    # the anchors in groups of three, each group's inverse variances (k, 3, d)
    # and log norms (k, 4: the fourth unused) (the last group padded with
    # zeros, its scores unused)
    cdef Py_ssize_t per_group = GAUSSIAN_CANDIDATES_AT_ONCE
    cdef Py_ssize_t n_groups = (n_anchors + per_group - 1) // per_group
    cdef Py_ssize_t n_slots = n_groups * GAUSSIAN_GROUP_SLOTS
    groups = np.zeros((n_groups * per_group, k, d), dtype=np.float64)
    groups[:n_anchors] = np.asarray(half_inv_var)[anchors_arr]
    cdef const double[:, :, :, ::1] weights_of_groups = np.ascontiguousarray(
        groups.reshape(n_groups, per_group, k, d).transpose(0, 2, 1, 3))
    norms = np.zeros((n_groups, k, GAUSSIAN_GROUP_SLOTS), dtype=np.float64)
    for position in range(n_anchors):
        norms[position // per_group, :, position % per_group] = log_norm[anchors_arr[position]]
    cdef const double[:, :, ::1] log_norm_of_groups = norms
    # per block: a tile's (tile, d) squares, (2, 4) scores, (tile, n_slots)
    # maxima; when labels are derived, the anchors' (tile, n_anchors, k)
    # scores and (n_anchors, 2, k) bounds of their sums; (tile, n_slots)
    # classes and NaN flags, (tile,) missing flags, g suspect counts
    cdef Py_ssize_t at_values = tile * d
    cdef Py_ssize_t at_best = at_values + 2 * GAUSSIAN_GROUP_SLOTS
    cdef Py_ssize_t at_scores = at_best + tile * n_slots
    cdef Py_ssize_t at_bounds = at_scores + (tile * n_anchors * k if n_derived else 0)
    cdef Py_ssize_t n_doubles = at_bounds + (2 * n_anchors * k if n_derived else 0)
    cdef Py_ssize_t at_nan = tile * n_slots, at_missing = 2 * tile * n_slots
    cdef Py_ssize_t at_suspect = at_missing + tile
    cdef double[:, ::1] double_scratch = np.zeros(
        (n_blocks, block_scratch_bytes(n_doubles * 8) // 8), dtype=np.float64)
    cdef intp_t[:, ::1] int_scratch = np.zeros(
        (n_blocks, block_scratch_bytes((at_suspect + g) * 8) // 8), dtype=np.intp)
    suspect_arr = np.zeros(g, dtype=np.intp)
    cdef intp_t[::1] suspect = suspect_arr
    if g == 0:
        return suspect_arr
    with nogil:
        if n_blocks == 1:
            predict_candidate_rows(
                X, scratch_row(gathered, 0), &double_scratch[0, 0],
                &double_scratch[0, at_values], &double_scratch[0, at_best],
                &double_scratch[0, at_scores], &double_scratch[0, at_bounds],
                &int_scratch[0, 0], &int_scratch[0, at_nan], &int_scratch[0, at_missing],
                &int_scratch[0, at_suspect], anchors, derived, derived_anchor,
                anchor_has_derived, coefficients, theta, half_inv_var, weights_of_groups,
                log_norm_of_groups, half_log_2pi_var, log_norm, log_prior, mode,
                labels_out, out, 0, n)
        else:
            for block in prange(n_blocks, schedule='static', num_threads=n_blocks):
                predict_candidate_rows(
                    X, scratch_row(gathered, block), &double_scratch[block, 0],
                    &double_scratch[block, at_values], &double_scratch[block, at_best],
                    &double_scratch[block, at_scores], &double_scratch[block, at_bounds],
                    &int_scratch[block, 0], &int_scratch[block, at_nan],
                    &int_scratch[block, at_missing], &int_scratch[block, at_suspect],
                    anchors, derived, derived_anchor, anchor_has_derived, coefficients,
                    theta,
                    half_inv_var, weights_of_groups, log_norm_of_groups,
                    half_log_2pi_var, log_norm, log_prior, mode, labels_out, out,
                    block_start(block, n_blocks, n), block_start(block + 1, n_blocks, n))
        for block in range(n_blocks):
            for v in range(g):
                suspect[v] += int_scratch[block, at_suspect + v]
    return suspect_arr
