"""A parameter search's sweep of MultinomialNB's alphas
(fastnb/model_selection/_alpha_sweep.py): every alpha's scores from one walk
over a fold's CSR rows (the layout and the row walk: _sparse_sweep.pxd).

``alpha_sweep_scores`` writes each alpha's (n, k) scores less the log prior;
``alpha_sweep_rows`` turns a row's (k, m) sums at once into each candidate's
(alpha, log prior) predicted class and log-loss term, so no (m, n, k) array is
written and read back: what a fold's accuracy and log loss need, as
``fold_row_scores`` (_discrete_predict.pyx) and NumPy compute them from the
candidate's joint log likelihoods.
"""

from cython.parallel cimport prange
from libc.stdint cimport int32_t, int64_t
from libc.math cimport INFINITY, isfinite, log
import numpy as np

from _sparse_sweep cimport (DENSE_BLOCK_CELLS, FEATURE_RECORD, PARALLEL_FILL_CELLS,
                           WHOLE_COUNTS, fill_block, is_tabulated, sweep_lanes, sweep_row)
from _common cimport intp_t, floating, block_start
from _sparse_slots cimport index_t


# exp of float64 (_exp_simd.h): within 1 ulp, the same bits from the scalar
# function and the AVX2 block loop (libm's exp, a call per value, was most of a
# fused sweep's time: k exps a candidate and row)
cdef extern from "_exp_simd.h":
    double fastnb_exp(double x) noexcept nogil
    void fastnb_exps(const double* x, Py_ssize_t n, double* out) noexcept nogil
    void fastnb_exps_below(const double* x, Py_ssize_t n, double top,
                           double* out) noexcept nogil


# a candidate's predicted class (the first arg-max of its alpha's scores plus
# its prior), its soft-max's denominator from shared exps and the top they are
# taken below: 4 classes a step in the AVX2 build, the same bits on both
cdef extern from "_candidate_simd.h":
    Py_ssize_t fastnb_argmax_of_sum(const double* s, const double* p, Py_ssize_t k,
                                    double* out, double* top) noexcept nogil
    double fastnb_dot(const double* a, const double* b, Py_ssize_t k) noexcept nogil
    double fastnb_max(const double* s, Py_ssize_t k) noexcept nogil


# log of float64 (_log_simd.h): within about 0.5 ulp, a few times libm's speed
# (a row's candidates' log-loss terms, 4 at a time in the AVX2 build)
cdef extern from "_log_simd.h":
    void fastnb_logs_f64(const double* x, Py_ssize_t n, double* out, int outside_given,
                         double outside) noexcept nogil


# NumPy's pairwise summation (numpy/_core/src/umath/loops_utils.h.src): a sum
# of up to this many values takes eight interleaved partial sums
cdef enum:
    PAIRWISE_BLOCK = 128

# the float64 machine epsilon: log loss clips probabilities to [EPS, 1 - EPS]
cdef double EPS = 2.220446049250313e-16


cdef double pairwise_sum(const double* a, Py_ssize_t n) noexcept nogil:
    """The sum of ``a[:n]`` as ``np.sum`` adds a row (the same bits)."""
    cdef Py_ssize_t i, half
    cdef double r0, r1, r2, r3, r4, r5, r6, r7, res
    if n < 8:
        res = -0.0
        for i in range(n):
            res = res + a[i]
        return res
    if n <= PAIRWISE_BLOCK:
        r0, r1, r2, r3 = a[0], a[1], a[2], a[3]
        r4, r5, r6, r7 = a[4], a[5], a[6], a[7]
        i = 8
        while i < n - (n % 8):
            r0 = r0 + a[i]
            r1 = r1 + a[i + 1]
            r2 = r2 + a[i + 2]
            r3 = r3 + a[i + 3]
            r4 = r4 + a[i + 4]
            r5 = r5 + a[i + 5]
            r6 = r6 + a[i + 6]
            r7 = r7 + a[i + 7]
            i += 8
        res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
        while i < n:
            res = res + a[i]
            i += 1
        return res
    half = n // 2
    half -= half % 8
    return pairwise_sum(a, half) + pairwise_sum(a + half, n - half)


cdef inline void alpha_scores(
    const double* row, const double* base_sum, double s, const double* scale,
    Py_ssize_t k, Py_ssize_t m, Py_ssize_t lanes, double* scores,
) noexcept nogil:
    """A row's (m, k) scores less the log prior from its (k, lanes) sums: each
    alpha's k scores contiguous, as its candidates read them
    (``alpha_sweep_scores``'s expression: the same bits)."""
    cdef Py_ssize_t a, c
    for c in range(k):
        for a in range(m):
            scores[a * k + c] = ((base_sum[a] + s * scale[c * m + a])
                                 + row[c * lanes + a])


cdef inline bint score_candidates(
    const double* scores, const double* priors, const double* weights,
    const intp_t* cand_alpha, Py_ssize_t n_cand, Py_ssize_t k, Py_ssize_t m,
    intp_t code, bint want_loss, double* jll, double* shares, double* probas,
    intp_t* predicted, double* loss, Py_ssize_t n, Py_ssize_t i,
) noexcept nogil:
    """A row's candidates' predicted classes (and log-loss terms, if wanted)
    from its (m, k) scores less the prior; False when a candidate's scores
    have a NaN or a top that is not finite, or the row's label code is not a
    class. ``weights`` (a (C, k) array, or NULL): each candidate's exp(log
    prior - its largest), with which the soft-max's exps are taken once an
    alpha (into ``shares``, (m, k)), not once a candidate. ``probas``: n_cand
    doubles of scratch."""
    cdef Py_ssize_t q, c, a, best
    cdef const double* alpha_row
    cdef const double* prior
    cdef const double* share
    cdef const double* weight
    cdef double top, total, true_proba, positive
    cdef int saw_nan = 0
    if want_loss and not 0 <= code < k:
        return False
    # (the priors are finite: a candidate's jll is NaN only where its alpha's
    # scores are)
    for c in range(m * k):
        saw_nan |= scores[c] != scores[c]
    if saw_nan:
        return False
    if want_loss and weights != NULL:
        # exp(S_c - max S) of each alpha's scores S: a candidate's soft-max
        # exp(S_c + p_c - top) / sum is share_c w_c / sum_c share_c w_c (its
        # factors exp(max S + max p - top) cancel), so its k exps are its
        # alpha's.
        for a in range(m):
            alpha_row = &scores[a * k]
            fastnb_exps_below(alpha_row, k, fastnb_max(alpha_row, k), &shares[a * k])
    for q in range(n_cand):
        # (``summarise_row``'s score + prior: the bits of the candidate's jll)
        alpha_row = &scores[cand_alpha[q] * k]
        prior = &priors[q * k]
        # (the jll written only where its exps are taken below)
        best = fastnb_argmax_of_sum(alpha_row, prior, k,
                                    jll if want_loss and weights == NULL else NULL,
                                    &top)
        if top == INFINITY or top == -INFINITY:
            return False
        predicted[q * n + i] = best
        if not want_loss:
            continue
        if weights != NULL:
            # share_y w_y / sum_c share_c w_c
            share = &shares[cand_alpha[q] * k]
            weight = &weights[q * k]
            total = fastnb_dot(share, weight, k)
            true_proba = share[code] * weight[code] / total
        else:
            # the soft-max's exp(jll - top) and their sum, as NumPy takes them
            fastnb_exps_below(jll, k, top, jll)
            total = pairwise_sum(jll, k)
            if k == 2:
                positive = jll[1] / total
                true_proba = positive if code == 1 else 1 - positive
            else:
                true_proba = jll[code] / total
        # np.clip(p, eps, 1 - eps)
        if true_proba < EPS:
            true_proba = EPS
        if true_proba > 1 - EPS:
            true_proba = 1 - EPS
        probas[q] = true_proba
    if want_loss:
        # the candidates' -log p, 4 a step in the AVX2 build
        fastnb_logs_f64(probas, n_cand, probas, 0, 0.0)
        for q in range(n_cand):
            loss[q * n + i] = -probas[q]
    return True


cdef class _SweepTables:
    """A split's tables for the row walk (see _sparse_sweep.pxd)."""
    cdef public object dense_at, blocks, small, log_alpha


cdef _SweepTables sweep_tables(
    const int64_t[::1] feat_start, const int32_t[::1] feat_len,
    const int32_t[::1] ent_class, const double[::1] ent_count,
    const double[::1] alpha, Py_ssize_t k, int n_threads,
):
    """Each feature's record (its dense block or -1, its entries' count and
    start: ``dense_at``), the blocks, the weight rows and log(alpha) of the
    table for the alphas ``alpha``."""
    cdef Py_ssize_t d = feat_start.shape[0], m = alpha.shape[0], km = k * m
    cdef Py_ssize_t lanes = sweep_lanes(m)
    cdef Py_ssize_t most_dense = max(1, DENSE_BLOCK_CELLS // max(1, k)), n_dense = 0
    cdef Py_ssize_t i, j, a, v, e, n_extra = 0
    if feat_len.shape[0] != d:
        raise ValueError("alpha sweep: feat_start and feat_len differ in length")
    # each feature's record of FEATURE_RECORD int32 (one cache line, where the
    # walk read three (d,) arrays): its dense block or -1 (it walks its
    # entries), its entries' count and their int64 start; a dense feature's
    # counts that are not tabulated get weight rows of their own
    dense_at_np = np.empty(d * FEATURE_RECORD + 4, dtype=np.int32)
    dense_features_np = np.empty(max(1, min(d, most_dense)), dtype=np.int64)
    extra_at_np = np.empty(max(1, min(d, most_dense)), dtype=np.int64)
    cdef int32_t[::1] dense_at = dense_at_np
    cdef int64_t[::1] dense_features = dense_features_np
    cdef int64_t[::1] extra_at = extra_at_np
    # (the records from a 16-byte boundary: each in one line, its start aligned)
    cdef Py_ssize_t record_at = (16 - <size_t>&dense_at[0] % 16) % 16 // 4
    cdef int32_t* record
    with nogil:
        for j in range(d):
            record = &dense_at[record_at + j * FEATURE_RECORD]
            record[1] = feat_len[j]
            (<int64_t*>&record[2])[0] = feat_start[j]
            if 2 * feat_len[j] >= k and feat_len[j] > 0 and n_dense < most_dense:
                record[0] = <int32_t>n_dense
                dense_features[n_dense] = j
                extra_at[n_dense] = WHOLE_COUNTS + 1 + n_extra
                for e in range(feat_start[j], feat_start[j] + feat_len[j]):
                    if not is_tabulated(ent_count[e]):
                        n_extra += 1
                n_dense += 1
            else:
                record[0] = -1
    if WHOLE_COUNTS + 1 + n_extra > 2147483647:
        raise ValueError("alpha sweep: too many counts above the table")
    # small[v, a]: the weight of a whole count v below WHOLE_COUNTS, computed as
    # ``multinomial_weight`` computes it (``fill_small_weights`` below
    # SMALL_COUNTS: the same expression); then a zero row, then the dense
    # features' other counts' rows
    small_np = np.zeros((WHOLE_COUNTS + 1 + n_extra, lanes))
    log_alpha_np = np.empty(m)
    cdef double[:, ::1] small = small_np
    cdef double[::1] log_alpha = log_alpha_np
    for a in range(m):
        log_alpha[a] = log(alpha[a])
    with nogil:
        for v in range(WHOLE_COUNTS):
            for a in range(m):
                small[v, a] = log(<double>v + alpha[a]) - log_alpha[a]
    blocks_np = np.empty((max(1, n_dense), k), dtype=np.int32)
    cdef int32_t[:, ::1] blocks = blocks_np
    cdef int fill_threads = n_threads if n_dense * km >= PARALLEL_FILL_CELLS else 1
    with nogil:
        for i in prange(n_dense, schedule='static', num_threads=fill_threads,
                        use_threads_if=fill_threads > 1):
            j = dense_features[i]
            fill_block(feat_start[j], feat_len[j], &ent_class[0], &ent_count[0],
                       &alpha[0], &log_alpha[0], m, lanes, &blocks[i, 0], k, &small[0, 0],
                       extra_at[i])
    tables = _SweepTables()
    tables.dense_at, tables.blocks = dense_at_np[record_at:], blocks_np
    tables.small, tables.log_alpha = small_np, log_alpha_np
    return tables


cdef struct FoldWalk:
    # a split's tables for ``sweep_row``, as every row of a fold reads them
    const int64_t* feat_start
    const int32_t* feat_len
    const int32_t* ent_class
    const double* ent_count
    const int32_t* records
    const int32_t* blocks
    const double* alpha
    const double* log_alpha
    const double* base
    const double* small
    Py_ssize_t d
    Py_ssize_t k
    Py_ssize_t m
    Py_ssize_t lanes


cdef FoldWalk fold_walk(
    const int64_t[::1] feat_start, const int32_t[::1] feat_len,
    const int32_t[::1] ent_class, const double[::1] ent_count, _SweepTables tables,
    const double[::1] alpha, const double[::1] base, Py_ssize_t k,
):
    """The walk over the table and ``tables`` (which the caller keeps alive)."""
    cdef int32_t[::1] records = tables.dense_at
    cdef int32_t[:, ::1] blocks = tables.blocks
    cdef double[:, ::1] small = tables.small
    cdef double[::1] log_alpha = tables.log_alpha
    cdef FoldWalk walk
    walk.feat_start, walk.feat_len = &feat_start[0], &feat_len[0]
    walk.ent_class, walk.ent_count = &ent_class[0], &ent_count[0]
    walk.records, walk.blocks, walk.small = &records[0], &blocks[0, 0], &small[0, 0]
    walk.alpha, walk.log_alpha, walk.base = &alpha[0], &log_alpha[0], &base[0]
    walk.d, walk.k, walk.m = feat_start.shape[0], k, alpha.shape[0]
    walk.lanes = sweep_lanes(walk.m)
    return walk


cdef inline bint walk_row(
    const FoldWalk* walk, const floating* data, const index_t* indices,
    const index_t* indptr, Py_ssize_t i, Py_ssize_t limit, double* row, double* total,
) noexcept nogil:
    """Row i's (k, lanes) sums into ``row`` and its lanes base sums after them
    (``sweep_row``), and the sum of its values into ``total``; False if an
    index is out of range. ``limit``: the end of the block's non-zeros."""
    cdef Py_ssize_t v
    cdef double s = 0.0
    if not sweep_row(data, indices, indptr[i], indptr[i + 1], walk.d, walk.feat_start,
                     walk.feat_len, walk.ent_class, walk.ent_count, walk.records,
                     walk.blocks, walk.alpha, walk.log_alpha, walk.base, walk.small,
                     walk.k, walk.m, walk.lanes, row, row + walk.k * walk.lanes, limit):
        return False
    for v in range(indptr[i], indptr[i + 1]):
        s = s + data[v]
    total[0] = s
    return True


def alpha_sweep_scores(
    const floating[::1] data,         # IN: CSR values (finite, non-negative)
    const index_t[::1] indices,       # IN: CSR column indices
    const index_t[::1] indptr,        # IN: (n + 1,) row pointers
    const int64_t[::1] feat_start,    # IN: the table (see _sparse_rows.pxd)
    const int32_t[::1] feat_len,
    const int32_t[::1] ent_class,
    const double[::1] ent_count,      # IN: its counts (count_scale 1)
    const double[::1] alpha,          # IN: (m,) scalar smoothing values
    const double[::1] base,           # IN: (m,) log(alpha), the models' feat_base
    const double[:, ::1] scale,       # IN: (k, m) -log(N_c + alpha d)
    double[:, :, ::1] out,            # OUT: (m, n, k) scores, less the log prior
    int n_threads,
):
    """MultinomialNB's joint log likelihoods of CSR rows, less the log prior,
    for each of m smoothing values at once: out[a, i, c] is what the table walk
    of the model with alpha[a] adds to class c's log prior. Rows are scored in
    parallel blocks, each row alone: the same bits for any thread count.
    Returns the number of rows with an index out of range (their scores are
    not written). Costs O(d + entries) once, then m multiply-adds an entry a
    non-zero reads (k m for a feature with a dense block)."""
    cdef Py_ssize_t n = indptr.shape[0] - 1, k = scale.shape[0], m = alpha.shape[0]
    cdef Py_ssize_t d = feat_start.shape[0], block, i, a, c, v
    cdef Py_ssize_t lanes = sweep_lanes(m), kl = k * lanes
    cdef Py_ssize_t n_blocks = max(1, min(n_threads, n))
    cdef double* row
    cdef double s
    if (scale.shape[1] != m or base.shape[0] != m or out.shape[0] != m
            or out.shape[1] != n or out.shape[2] != k or m == 0):
        raise ValueError("alpha_sweep_scores: shapes of alpha, base, scale and out "
                         "do not agree")
    if feat_len.shape[0] != d:
        raise ValueError("alpha_sweep_scores: feat_start and feat_len differ in length")
    if n == 0:
        return 0
    tables = sweep_tables(feat_start, feat_len, ent_class, ent_count, alpha, k,
                          n_threads)
    cdef FoldWalk walk = fold_walk(feat_start, feat_len, ent_class, ent_count, tables,
                                   alpha, base, k)
    # a block's (k, lanes) sums and lanes base sums
    scratch_np = np.empty((n_blocks, kl + lanes))
    bad_np = np.zeros(n_blocks, dtype=np.intp)
    cdef double[:, ::1] scratch = scratch_np
    cdef intp_t[::1] bad = bad_np
    with nogil:
        for block in prange(n_blocks, schedule='static', num_threads=n_blocks,
                            use_threads_if=n_blocks > 1):
            row = &scratch[block, 0]
            for i in range(block_start(block, n_blocks, n),
                           block_start(block + 1, n_blocks, n)):
                # (assigned here, so that each thread has its own ``s``: prange
                # makes private only what its body assigns)
                s = 0.0
                if not walk_row(&walk, &data[0], &indices[0], &indptr[0], i,
                                indptr[block_start(block + 1, n_blocks, n)], row, &s):
                    bad[block] += 1
                    continue
                for c in range(k):
                    for a in range(m):
                        out[a, i, c] = ((row[kl + a] + s * scale[c, a])
                                        + row[c * lanes + a])
    return int(bad_np.sum())


def alpha_sweep_rows(
    const floating[::1] data,         # IN: CSR values (finite, non-negative)
    const index_t[::1] indices,       # IN: CSR column indices
    const index_t[::1] indptr,        # IN: (n + 1,) row pointers
    const int64_t[::1] feat_start,    # IN: the table (see _sparse_rows.pxd)
    const int32_t[::1] feat_len,
    const int32_t[::1] ent_class,
    const double[::1] ent_count,      # IN: its counts (count_scale 1)
    const double[::1] alpha,          # IN: (m,) scalar smoothing values
    const double[::1] base,           # IN: (m,) log(alpha), the models' feat_base
    const double[:, ::1] scale,       # IN: (k, m) -log(N_c + alpha d)
    const intp_t[::1] cand_alpha,     # IN: (C,) each candidate's place in alpha
    const double[:, ::1] priors,      # IN: (C, k) each candidate's log prior
    const double[:, ::1] weights,     # IN: (C, k) exp(prior - its largest), or (0, k)
    const intp_t[::1] codes,          # IN: (n,) each row's label's class, or -1
    intp_t[:, ::1] predicted,         # OUT: (C, n) each candidate's arg-max
    double[:, ::1] loss,              # OUT: (C, n) its log-loss terms, or (0, n)
    int n_threads,
):
    """Each candidate's (alpha[cand_alpha[q]], log prior priors[q]) predicted
    class of every row, NumPy's ``argmax`` of its joint log likelihoods (the
    bits of ``alpha_sweep_scores`` plus the prior, as ``fold_row_scores`` adds
    it), and, unless ``loss`` has no rows, the row's log-loss term as
    ``FoldScorer`` computes it: -log(clip(p, eps, 1 - eps)) with p the
    soft-max's probability of the row's class ``codes[i]`` (a binary model's
    1 - p of the second class for the first). A row's (k, m) sums become the
    candidates' results at once. Given ``weights`` (k > 2: see
    ``score_candidates``), the soft-max's exps are taken once an alpha, not
    once a candidate: the same probabilities to a few ulps, not the same bits.
    Rows in parallel blocks, each row alone: the same bits for any thread
    count. Returns the number of rows with an index
    out of range, a candidate's NaN or non-finite top score, or (with the loss)
    a code that is not a class: the caller takes the general path."""
    cdef Py_ssize_t n = indptr.shape[0] - 1, k = scale.shape[0], m = alpha.shape[0]
    cdef Py_ssize_t d = feat_start.shape[0], km = k * m, block, i, v, q, c
    cdef Py_ssize_t lanes = sweep_lanes(m), kl = k * lanes
    cdef Py_ssize_t n_cand = cand_alpha.shape[0], n_blocks = max(1, min(n_threads, n))
    cdef bint want_loss = loss.shape[0] != 0
    cdef bint shared = weights.shape[0] != 0
    cdef double* row
    cdef double s
    if (scale.shape[1] != m or base.shape[0] != m or m == 0 or n_cand == 0
            or priors.shape[0] != n_cand or priors.shape[1] != k
            or codes.shape[0] != n or predicted.shape[0] != n_cand
            or predicted.shape[1] != n or loss.shape[1] != n
            or (want_loss and loss.shape[0] != n_cand)
            or (shared and (weights.shape[0] != n_cand or weights.shape[1] != k
                            or k < 3))):
        raise ValueError("alpha_sweep_rows: shapes of alpha, base, scale, the "
                         "candidates, codes and the outputs do not agree")
    for q in range(n_cand):
        if not 0 <= cand_alpha[q] < m:
            raise ValueError("alpha_sweep_rows: a candidate's alpha is out of range")
        for c in range(k):
            # (``score_candidates`` reads a NaN jll from the scores alone)
            if not isfinite(priors[q, c]):
                raise ValueError("alpha_sweep_rows: a candidate's log prior is not "
                                 "finite")
    if n == 0:
        return 0
    if k == 0:
        return n
    tables = sweep_tables(feat_start, feat_len, ent_class, ent_count, alpha, k,
                          n_threads)
    cdef FoldWalk walk = fold_walk(feat_start, feat_len, ent_class, ent_count, tables,
                                   alpha, base, k)
    # a block's (k, lanes) sums, lanes base sums, (m, k) scores, k of a
    # candidate, (m, k) shares and a probability a candidate
    scratch_np = np.empty((n_blocks, kl + lanes + km + k + km + n_cand))
    bad_np = np.zeros(n_blocks, dtype=np.intp)
    cdef double[:, ::1] scratch = scratch_np
    cdef intp_t[::1] bad = bad_np
    cdef double* loss_at = &loss[0, 0] if want_loss else NULL
    cdef const double* weights_at = &weights[0, 0] if shared else NULL
    with nogil:
        for block in prange(n_blocks, schedule='static', num_threads=n_blocks,
                            use_threads_if=n_blocks > 1):
            row = &scratch[block, 0]
            for i in range(block_start(block, n_blocks, n),
                           block_start(block + 1, n_blocks, n)):
                # (assigned here, so that each thread has its own ``s``: prange
                # makes private only what its body assigns)
                s = 0.0
                if not walk_row(&walk, &data[0], &indices[0], &indptr[0], i,
                                indptr[block_start(block + 1, n_blocks, n)], row, &s):
                    bad[block] += 1
                    continue
                alpha_scores(row, row + kl, s, &scale[0, 0], k, m, lanes,
                             row + kl + lanes)
                if not score_candidates(row + kl + lanes, &priors[0, 0], weights_at,
                                        &cand_alpha[0], n_cand, k, m, codes[i],
                                        want_loss, row + kl + lanes + km,
                                        row + kl + lanes + km + k,
                                        row + kl + lanes + km + k + km,
                                        &predicted[0, 0], loss_at, n, i):
                    bad[block] += 1
    return int(bad_np.sum())


def exp_values(const double[::1] x):
    """fastnb's exp of every value (_exp_simd.h's block loop: AVX2 in that
    build), for its tests."""
    out = np.empty(x.shape[0])
    cdef double[::1] out_view = out
    if x.shape[0]:
        fastnb_exps(&x[0], x.shape[0], &out_view[0])
    return out


def exp_values_scalar(const double[::1] x):
    """fastnb's exp of every value, by the scalar function, for its tests."""
    out = np.empty(x.shape[0])
    cdef double[::1] out_view = out
    cdef Py_ssize_t i
    for i in range(x.shape[0]):
        out_view[i] = fastnb_exp(x[i])
    return out


def exp_values_below(const double[::1] x, double top):
    """fastnb's exp of every value less ``top`` (_exp_simd.h's soft-max loop),
    for its tests."""
    out = np.empty(x.shape[0])
    cdef double[::1] out_view = out
    if x.shape[0]:
        fastnb_exps_below(&x[0], x.shape[0], top, &out_view[0])
    return out


def argmax_of_sums(const double[:, ::1] scores, const double[::1] prior):
    """Each row's first arg-max of ``scores[i] + prior`` and that sum
    (_candidate_simd.h's, AVX2 in that build), for its tests."""
    cdef Py_ssize_t n = scores.shape[0], k = scores.shape[1], i
    if prior.shape[0] != k or k == 0:
        raise ValueError("argmax_of_sums: scores and prior do not agree")
    best_np, top_np = np.empty(n, dtype=np.intp), np.empty(n)
    cdef intp_t[::1] best = best_np
    cdef double[::1] top = top_np
    for i in range(n):
        best[i] = fastnb_argmax_of_sum(&scores[i, 0], &prior[0], k, NULL, &top[i])
    return best_np, top_np
