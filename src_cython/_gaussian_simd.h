/* GaussianNB's sums of several var_smoothing candidates at once, included by
   _gaussian_kernels.pyx (both builds: the AVX2 one compiles the vector path).

   gaussian_consider_candidates: for each of 2 rows (or 1) and 3 candidates
   u, the sum over j of squares[j] * weights[u * d + j], in eight accumulators
   (feature j in the (j % 8)-th, in increasing j) added in sum_of_8's tree
   (_common.pxd): the arithmetic of gaussian_class_jll (_gaussian.pxd) for one
   model, operation for operation (no FMA: -std=c11 does not contract), so
   each candidate's sum is the bits its own predict computes. The AVX2 path
   holds the 2 x 3 pairs' 48 accumulators in 12 registers: each block of
   eight weights is loaded once for the two rows and each block of eight
   squares once for the three candidates, 10 loads for 12 vector multiply-adds
   (4 candidates of one row took 10 for 8, and the loads set the pace: H1
   Gaussian's fold, 1 thread, 69 ms a group of 4 for 200,000 rows). It adds
   them up in registers too (IEEE addition commutes, so the tree's pairs may
   be added in either order); the portable path is the same loops in plain C. */
#ifndef FASTNB_GAUSSIAN_SIMD_H
#define FASTNB_GAUSSIAN_SIMD_H
#include <stddef.h>

#define GAUSSIAN_CANDIDATES_AT_ONCE 3
/* A group's slots in the log norms, running maxima, classes and values: its
   three candidates and one unused (whole vectors: AMD's masked stores are
   slow) */
#define GAUSSIAN_GROUP_SLOTS 4

static inline double gaussian_sum_of_8(const double* acc) {
    return ((acc[0] + acc[1]) + (acc[2] + acc[3]))
           + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
}

#if defined(__AVX2__)
#include <immintrin.h>

/* Lanes [0, n) of a load, the others 0.0 (n in 1..4): adding 0.0 * 0.0
   leaves an accumulator as it is (they hold sums of non-negative products,
   never -0.0), so a lane past the row adds nothing, as in the scalar code. */
static inline __m256d gaussian_load_first(const double* at, ptrdiff_t n) {
    const __m256i mask = _mm256_setr_epi64x(n > 0 ? -1 : 0, n > 1 ? -1 : 0,
                                            n > 2 ? -1 : 0, n > 3 ? -1 : 0);
    return _mm256_maskload_pd(at, mask);
}

/* For two candidates' accumulators (lanes 0-3 in lo, 4-7 in hi): the pair of
   sums ((a0 + a1) + (a2 + a3)) + ((a4 + a5) + (a6 + a7)), sum_of_8's tree. */
static inline __m128d gaussian_sums_of_two(__m256d lo_u, __m256d hi_u,
                                           __m256d lo_v, __m256d hi_v) {
    /* hadd: (u0 + u1, v0 + v1, u2 + u3, v2 + v3) */
    __m256d lo = _mm256_hadd_pd(lo_u, lo_v);
    __m256d hi = _mm256_hadd_pd(hi_u, hi_v);
    __m128d low_sums = _mm_add_pd(_mm256_castpd256_pd128(lo),
                                  _mm256_extractf128_pd(lo, 1));
    __m128d high_sums = _mm_add_pd(_mm256_castpd256_pd128(hi),
                                   _mm256_extractf128_pd(hi, 1));
    return _mm_add_pd(low_sums, high_sums);
}

#define GAUSSIAN_ACCUMULATE(acc, square, weight) \
    acc = _mm256_add_pd(acc, _mm256_mul_pd(square, weight))

/* A loaded block of weights is used by both rows; gcc 12 folds the load into
   each multiply instead (16 loads a block, not 10) unless told that the
   value lives in a register. */
#if defined(__GNUC__)
#define GAUSSIAN_IN_REGISTER(value) __asm__("" : "+x"(value))
#else
#define GAUSSIAN_IN_REGISTER(value) ((void)0)
#endif

/* The 2 x 3 pairs' accumulators, low (features j % 8 in 0-3) and high. */
typedef struct {
    __m256d l[2][3];
    __m256d h[2][3];
} gaussian_accumulators;

/* One step of four features (``at``) for the 2 x 3 pairs: the two rows'
   squares once, each candidate's weights once for both rows, into the
   accumulators A<row><candidate>; LOAD is how a vector is read (whole, or the
   first few lanes at a row's end). */
#define GAUSSIAN_STEP(LOAD, at, A00, A01, A02, A10, A11, A12) do {                \
    __m256d q0_ = LOAD(s0 + (at)), q1_ = LOAD(s1 + (at));                       \
    __m256d w_ = LOAD(w0 + (at));                                               \
    GAUSSIAN_IN_REGISTER(w_);                                                   \
    GAUSSIAN_ACCUMULATE(A00, q0_, w_);                                          \
    GAUSSIAN_ACCUMULATE(A10, q1_, w_);                                          \
    w_ = LOAD(w1 + (at));                                                       \
    GAUSSIAN_IN_REGISTER(w_);                                                   \
    GAUSSIAN_ACCUMULATE(A01, q0_, w_);                                          \
    GAUSSIAN_ACCUMULATE(A11, q1_, w_);                                          \
    w_ = LOAD(w2 + (at));                                                       \
    GAUSSIAN_IN_REGISTER(w_);                                                   \
    GAUSSIAN_ACCUMULATE(A02, q0_, w_);                                          \
    GAUSSIAN_ACCUMULATE(A12, q1_, w_);                                          \
} while (0)
#define GAUSSIAN_LOAD_PART(at) gaussian_load_first(at, n_part)

static inline void gaussian_accumulate_two_rows(
        const double* s0, const double* s1, const double* weights, ptrdiff_t d,
        gaussian_accumulators* a) {
    ptrdiff_t d_blocked = d - d % 8;
    ptrdiff_t rest = d - d_blocked;
    const double* w0 = weights;
    const double* w1 = weights + d;
    const double* w2 = weights + 2 * d;
    __m256d l00 = _mm256_setzero_pd(), l01 = _mm256_setzero_pd(), l02 = _mm256_setzero_pd();
    __m256d l10 = _mm256_setzero_pd(), l11 = _mm256_setzero_pd(), l12 = _mm256_setzero_pd();
    __m256d h00 = _mm256_setzero_pd(), h01 = _mm256_setzero_pd(), h02 = _mm256_setzero_pd();
    __m256d h10 = _mm256_setzero_pd(), h11 = _mm256_setzero_pd(), h12 = _mm256_setzero_pd();
    for (ptrdiff_t j = 0; j < d_blocked; j += 8) {
        GAUSSIAN_STEP(_mm256_loadu_pd, j, l00, l01, l02, l10, l11, l12);
        GAUSSIAN_STEP(_mm256_loadu_pd, j + 4, h00, h01, h02, h10, h11, h12);
    }
    /* the last d % 8 features go to accumulators 0, 1, ...: the low halves,
       then the high ones */
    if (rest > 0) {
        ptrdiff_t n_part = rest >= 4 ? 4 : rest;
        GAUSSIAN_STEP(GAUSSIAN_LOAD_PART, d_blocked, l00, l01, l02, l10, l11, l12);
        if (rest > 4) {
            n_part = rest - 4;
            GAUSSIAN_STEP(GAUSSIAN_LOAD_PART, d_blocked + 4, h00, h01, h02, h10, h11, h12);
        }
    }
    a->l[0][0] = l00; a->l[0][1] = l01; a->l[0][2] = l02;
    a->l[1][0] = l10; a->l[1][1] = l11; a->l[1][2] = l12;
    a->h[0][0] = h00; a->h[0][1] = h01; a->h[0][2] = h02;
    a->h[1][0] = h10; a->h[1][1] = h11; a->h[1][2] = h12;
}

/* Row r's three candidates' scores, log_norm[u] - sum (lane 3: a copy of
   lane 2), into their running arg-max (consider_class of _common.pxd, lane
   by lane: a score greater than the best so far replaces it, with its class).
   The scores go to ``values`` when ``keep_values``. Returns 1, updating
   nothing and writing ``values``, when a score is NaN: the caller then takes
   the three one at a time (a missing value's marginalised score). */
static inline int gaussian_consider_row(
        const gaussian_accumulators* a, int r, const double* log_norm, ptrdiff_t c,
        double* best, ptrdiff_t* best_class, double* values, int keep_values) {
    __m128d sums01 = gaussian_sums_of_two(a->l[r][0], a->h[r][0], a->l[r][1], a->h[r][1]);
    __m128d sums22 = gaussian_sums_of_two(a->l[r][2], a->h[r][2], a->l[r][2], a->h[r][2]);
    __m256d scores = _mm256_sub_pd(_mm256_loadu_pd(log_norm),
                                   _mm256_set_m128d(sums22, sums01));
    int nan = _mm256_movemask_pd(_mm256_cmp_pd(scores, scores, _CMP_UNORD_Q)) & 7;
    if (keep_values || nan) {
        _mm256_storeu_pd(values, scores);
    }
    if (nan) {
        return 1;
    }
    __m256d top = _mm256_loadu_pd(best);
    __m256d better = _mm256_cmp_pd(scores, top, _CMP_GT_OQ);
    _mm256_storeu_pd(best, _mm256_blendv_pd(top, scores, better));
    __m256d classes = _mm256_castsi256_pd(_mm256_loadu_si256((const __m256i*)best_class));
    __m256d here = _mm256_castsi256_pd(_mm256_set1_epi64x((long long)c));
    _mm256_storeu_si256((__m256i*)best_class,
                        _mm256_castpd_si256(_mm256_blendv_pd(classes, here, better)));
    return 0;
}

/* Rows 0 and 1 (``squares`` and ``squares + square_stride``; just row 0 when
   ``n_rows`` is 1) under a group of three candidates (``weights``: (3, d),
   ``log_norm``: a group's 4 slots): each row's three scores of class c into
   its running arg-max (``best`` and ``best_class`` of row r at r *
   ``best_stride``, a group's 4 slots), and to ``values`` (row r's 4 slots
   at r * 4) when ``keep_values``. Returns a bit per
   row, set when one of its scores is NaN (that row is then left as it was). */
static inline int gaussian_consider_candidates(
        const double* squares, ptrdiff_t n_rows, ptrdiff_t square_stride,
        const double* weights, ptrdiff_t d, const double* log_norm, ptrdiff_t c,
        double* best, ptrdiff_t* best_class, ptrdiff_t best_stride,
        double* values, int keep_values) {
    gaussian_accumulators a;
    /* one row alone takes the two-row loop over itself twice (only the last
       row of a block of odd length) */
    gaussian_accumulate_two_rows(squares, n_rows == 2 ? squares + square_stride : squares,
                                 weights, d, &a);
    int nan = gaussian_consider_row(&a, 0, log_norm, c, best, best_class, values,
                                    keep_values);
    if (n_rows == 2) {
        nan |= gaussian_consider_row(&a, 1, log_norm, c, best + best_stride,
                                     best_class + best_stride, values + GAUSSIAN_GROUP_SLOTS,
                                     keep_values) << 1;
    }
    return nan;
}
#else
static inline int gaussian_consider_candidates(
        const double* squares, ptrdiff_t n_rows, ptrdiff_t square_stride,
        const double* weights, ptrdiff_t d, const double* log_norm, ptrdiff_t c,
        double* best, ptrdiff_t* best_class, ptrdiff_t best_stride,
        double* values, int keep_values) {
    ptrdiff_t d_blocked = d - d % 8;
    int any_nan = 0;
    for (ptrdiff_t r = 0; r < n_rows; ++r) {
        const double* row_squares = squares + r * square_stride;
        double acc[8 * GAUSSIAN_CANDIDATES_AT_ONCE];
        double scores[GAUSSIAN_CANDIDATES_AT_ONCE];
        int nan = 0;
        for (int t = 0; t < 8 * GAUSSIAN_CANDIDATES_AT_ONCE; ++t) {
            acc[t] = 0.0;
        }
        for (ptrdiff_t j = 0; j < d_blocked; j += 8) {
            for (int u = 0; u < GAUSSIAN_CANDIDATES_AT_ONCE; ++u) {
                for (int t = 0; t < 8; ++t) {
                    acc[u * 8 + t] += row_squares[j + t] * weights[u * d + j + t];
                }
            }
        }
        for (ptrdiff_t j = d_blocked; j < d; ++j) {
            for (int u = 0; u < GAUSSIAN_CANDIDATES_AT_ONCE; ++u) {
                acc[u * 8 + (j - d_blocked)] += row_squares[j] * weights[u * d + j];
            }
        }
        for (int u = 0; u < GAUSSIAN_CANDIDATES_AT_ONCE; ++u) {
            scores[u] = log_norm[u] - gaussian_sum_of_8(acc + u * 8);
            nan |= scores[u] != scores[u];
        }
        if (keep_values || nan) {
            for (int u = 0; u < GAUSSIAN_CANDIDATES_AT_ONCE; ++u) {
                values[r * GAUSSIAN_GROUP_SLOTS + u] = scores[u];
            }
        }
        if (nan) {
            any_nan |= 1 << r;
            continue;
        }
        double* row_best = best + r * best_stride;
        ptrdiff_t* row_best_class = best_class + r * best_stride;
        for (int u = 0; u < GAUSSIAN_CANDIDATES_AT_ONCE; ++u) {
            if (scores[u] > row_best[u]) {
                row_best[u] = scores[u];
                row_best_class[u] = c;
            }
        }
    }
    return any_nan;
}
#endif
#endif
