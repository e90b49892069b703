/* GaussianNB's sums of several var_smoothing candidates at once, included by
   _gaussian_kernels.pyx (both builds: the AVX2 one compiles the vector path).

   gaussian_candidate_sums: for each of 4 candidates u, the sum over j of
   squares[j] * weights[u * d + j], in eight accumulators (feature j in the
   (j % 8)-th, in increasing j) added in sum_of_8's tree (_common.pxd): the
   arithmetic of gaussian_class_jll (_gaussian.pxd) for one model, operation
   for operation (no FMA: -std=c11 does not contract), so each candidate's sum
   is the bits its own predict computes. The AVX2 path holds the 32
   accumulators in 8 registers and loads each block of eight squares once for
   the four candidates (gcc 12 kept them in memory, a load and a store per
   multiply-add), and adds them up in registers too (IEEE addition commutes,
   so the tree's pairs may be added in either order); the portable path is
   the same loops in plain C. */
#ifndef FASTNB_GAUSSIAN_SIMD_H
#define FASTNB_GAUSSIAN_SIMD_H
#include <stddef.h>

#define GAUSSIAN_CANDIDATES_AT_ONCE 4

static inline double gaussian_sum_of_8(const double* acc) {
    return ((acc[0] + acc[1]) + (acc[2] + acc[3]))
           + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
}

#if defined(__AVX2__)
#include <immintrin.h>

/* Lanes [0, n) of a load, the others 0.0 (n in 1..3): adding 0.0 * 0.0
   leaves an accumulator as it is (they hold sums of non-negative products,
   never -0.0), so a lane past the row adds nothing, as in the scalar code. */
static inline __m256d gaussian_load_first(const double* at, ptrdiff_t n) {
    const __m256i mask = _mm256_setr_epi64x(n > 0 ? -1 : 0, n > 1 ? -1 : 0,
                                            n > 2 ? -1 : 0, 0);
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

static inline __m256d gaussian_candidate_sums_vector(
        const double* squares, const double* weights, ptrdiff_t d) {
    ptrdiff_t d_blocked = d - d % 8;
    ptrdiff_t rest = d - d_blocked;
    const double* w0 = weights;
    const double* w1 = weights + d;
    const double* w2 = weights + 2 * d;
    const double* w3 = weights + 3 * d;
    __m256d a0l = _mm256_setzero_pd(), a0h = _mm256_setzero_pd();
    __m256d a1l = _mm256_setzero_pd(), a1h = _mm256_setzero_pd();
    __m256d a2l = _mm256_setzero_pd(), a2h = _mm256_setzero_pd();
    __m256d a3l = _mm256_setzero_pd(), a3h = _mm256_setzero_pd();
    for (ptrdiff_t j = 0; j < d_blocked; j += 8) {
        __m256d sl = _mm256_loadu_pd(squares + j);
        __m256d sh = _mm256_loadu_pd(squares + j + 4);
        a0l = _mm256_add_pd(a0l, _mm256_mul_pd(sl, _mm256_loadu_pd(w0 + j)));
        a0h = _mm256_add_pd(a0h, _mm256_mul_pd(sh, _mm256_loadu_pd(w0 + j + 4)));
        a1l = _mm256_add_pd(a1l, _mm256_mul_pd(sl, _mm256_loadu_pd(w1 + j)));
        a1h = _mm256_add_pd(a1h, _mm256_mul_pd(sh, _mm256_loadu_pd(w1 + j + 4)));
        a2l = _mm256_add_pd(a2l, _mm256_mul_pd(sl, _mm256_loadu_pd(w2 + j)));
        a2h = _mm256_add_pd(a2h, _mm256_mul_pd(sh, _mm256_loadu_pd(w2 + j + 4)));
        a3l = _mm256_add_pd(a3l, _mm256_mul_pd(sl, _mm256_loadu_pd(w3 + j)));
        a3h = _mm256_add_pd(a3h, _mm256_mul_pd(sh, _mm256_loadu_pd(w3 + j + 4)));
    }
    /* the last d % 8 features go to accumulators 0, 1, ...: the low halves,
       then the high ones */
    if (rest >= 4) {
        __m256d sl = _mm256_loadu_pd(squares + d_blocked);
        a0l = _mm256_add_pd(a0l, _mm256_mul_pd(sl, _mm256_loadu_pd(w0 + d_blocked)));
        a1l = _mm256_add_pd(a1l, _mm256_mul_pd(sl, _mm256_loadu_pd(w1 + d_blocked)));
        a2l = _mm256_add_pd(a2l, _mm256_mul_pd(sl, _mm256_loadu_pd(w2 + d_blocked)));
        a3l = _mm256_add_pd(a3l, _mm256_mul_pd(sl, _mm256_loadu_pd(w3 + d_blocked)));
        if (rest > 4) {
            ptrdiff_t at = d_blocked + 4, n = rest - 4;
            __m256d sh = gaussian_load_first(squares + at, n);
            a0h = _mm256_add_pd(a0h, _mm256_mul_pd(sh, gaussian_load_first(w0 + at, n)));
            a1h = _mm256_add_pd(a1h, _mm256_mul_pd(sh, gaussian_load_first(w1 + at, n)));
            a2h = _mm256_add_pd(a2h, _mm256_mul_pd(sh, gaussian_load_first(w2 + at, n)));
            a3h = _mm256_add_pd(a3h, _mm256_mul_pd(sh, gaussian_load_first(w3 + at, n)));
        }
    } else if (rest > 0) {
        ptrdiff_t at = d_blocked;
        __m256d sl = gaussian_load_first(squares + at, rest);
        a0l = _mm256_add_pd(a0l, _mm256_mul_pd(sl, gaussian_load_first(w0 + at, rest)));
        a1l = _mm256_add_pd(a1l, _mm256_mul_pd(sl, gaussian_load_first(w1 + at, rest)));
        a2l = _mm256_add_pd(a2l, _mm256_mul_pd(sl, gaussian_load_first(w2 + at, rest)));
        a3l = _mm256_add_pd(a3l, _mm256_mul_pd(sl, gaussian_load_first(w3 + at, rest)));
    }
    return _mm256_set_m128d(gaussian_sums_of_two(a2l, a2h, a3l, a3h),
                            gaussian_sums_of_two(a0l, a0h, a1l, a1h));
}

static inline void gaussian_candidate_sums(
        const double* squares, const double* weights, ptrdiff_t d, double* sums) {
    _mm256_storeu_pd(sums, gaussian_candidate_sums_vector(squares, weights, d));
}

/* Four candidates' scores of one class, log_norm[u] - sum, into the running
   arg-max of each (consider_class of _common.pxd, lane by lane: a score
   greater than the best so far replaces it, with its class). The scores go to
   ``values`` when ``keep_values``. Returns 1, updating nothing and writing
   ``values``, when a score is NaN: the caller then takes the four one at a
   time (a missing value's marginalised score). */
static inline int gaussian_consider_candidates(
        const double* squares, const double* weights, ptrdiff_t d,
        const double* log_norm, ptrdiff_t c, double* best, ptrdiff_t* best_class,
        double* values, int keep_values) {
    __m256d scores = _mm256_sub_pd(_mm256_loadu_pd(log_norm),
                                   gaussian_candidate_sums_vector(squares, weights, d));
    int nan = _mm256_movemask_pd(_mm256_cmp_pd(scores, scores, _CMP_UNORD_Q));
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
#else
static inline void gaussian_candidate_sums(
        const double* squares, const double* weights, ptrdiff_t d, double* sums) {
    ptrdiff_t d_blocked = d - d % 8;
    double acc[8 * GAUSSIAN_CANDIDATES_AT_ONCE];
    for (int t = 0; t < 8 * GAUSSIAN_CANDIDATES_AT_ONCE; ++t) {
        acc[t] = 0.0;
    }
    for (ptrdiff_t j = 0; j < d_blocked; j += 8) {
        for (int u = 0; u < GAUSSIAN_CANDIDATES_AT_ONCE; ++u) {
            for (int t = 0; t < 8; ++t) {
                acc[u * 8 + t] += squares[j + t] * weights[u * d + j + t];
            }
        }
    }
    for (ptrdiff_t j = d_blocked; j < d; ++j) {
        for (int u = 0; u < GAUSSIAN_CANDIDATES_AT_ONCE; ++u) {
            acc[u * 8 + (j - d_blocked)] += squares[j] * weights[u * d + j];
        }
    }
    for (int u = 0; u < GAUSSIAN_CANDIDATES_AT_ONCE; ++u) {
        sums[u] = gaussian_sum_of_8(acc + u * 8);
    }
}

static inline int gaussian_consider_candidates(
        const double* squares, const double* weights, ptrdiff_t d,
        const double* log_norm, ptrdiff_t c, double* best, ptrdiff_t* best_class,
        double* values, int keep_values) {
    double scores[GAUSSIAN_CANDIDATES_AT_ONCE];
    int nan = 0;
    gaussian_candidate_sums(squares, weights, d, scores);
    for (int u = 0; u < GAUSSIAN_CANDIDATES_AT_ONCE; ++u) {
        scores[u] = log_norm[u] - scores[u];
        nan |= scores[u] != scores[u];
    }
    if (keep_values || nan) {
        for (int u = 0; u < GAUSSIAN_CANDIDATES_AT_ONCE; ++u) {
            values[u] = scores[u];
        }
    }
    if (nan) {
        return 1;
    }
    for (int u = 0; u < GAUSSIAN_CANDIDATES_AT_ONCE; ++u) {
        if (scores[u] > best[u]) {
            best[u] = scores[u];
            best_class[u] = c;
        }
    }
    return 0;
}
#endif
#endif
