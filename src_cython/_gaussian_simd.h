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
   multiply-add); the portable path is the same loops in plain C. */
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
static inline void gaussian_candidate_sums(
        const double* squares, const double* weights, ptrdiff_t d, double* sums) {
    ptrdiff_t d_blocked = d - d % 8;
    const double* w0 = weights;
    const double* w1 = weights + d;
    const double* w2 = weights + 2 * d;
    const double* w3 = weights + 3 * d;
    __m256d a0l = _mm256_setzero_pd(), a0h = _mm256_setzero_pd();
    __m256d a1l = _mm256_setzero_pd(), a1h = _mm256_setzero_pd();
    __m256d a2l = _mm256_setzero_pd(), a2h = _mm256_setzero_pd();
    __m256d a3l = _mm256_setzero_pd(), a3h = _mm256_setzero_pd();
    double acc[8 * GAUSSIAN_CANDIDATES_AT_ONCE];
    ptrdiff_t tail = 0;
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
    if (d - d_blocked >= 4) {
        /* the tail's first four features go to accumulators 0-3: the low halves */
        __m256d sl = _mm256_loadu_pd(squares + d_blocked);
        a0l = _mm256_add_pd(a0l, _mm256_mul_pd(sl, _mm256_loadu_pd(w0 + d_blocked)));
        a1l = _mm256_add_pd(a1l, _mm256_mul_pd(sl, _mm256_loadu_pd(w1 + d_blocked)));
        a2l = _mm256_add_pd(a2l, _mm256_mul_pd(sl, _mm256_loadu_pd(w2 + d_blocked)));
        a3l = _mm256_add_pd(a3l, _mm256_mul_pd(sl, _mm256_loadu_pd(w3 + d_blocked)));
        tail = 4;
    }
    _mm256_storeu_pd(acc, a0l);
    _mm256_storeu_pd(acc + 4, a0h);
    _mm256_storeu_pd(acc + 8, a1l);
    _mm256_storeu_pd(acc + 12, a1h);
    _mm256_storeu_pd(acc + 16, a2l);
    _mm256_storeu_pd(acc + 20, a2h);
    _mm256_storeu_pd(acc + 24, a3l);
    _mm256_storeu_pd(acc + 28, a3h);
    for (ptrdiff_t j = d_blocked + tail; j < d; ++j) {
        for (int u = 0; u < GAUSSIAN_CANDIDATES_AT_ONCE; ++u) {
            acc[u * 8 + (j - d_blocked)] += squares[j] * weights[u * d + j];
        }
    }
    for (int u = 0; u < GAUSSIAN_CANDIDATES_AT_ONCE; ++u) {
        sums[u] = gaussian_sum_of_8(acc + u * 8);
    }
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
#endif
#endif
