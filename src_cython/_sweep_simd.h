/* The alpha sweep's inner step (_sparse_sweep.pxd): a row's class cell of
   ``lanes`` alpha sums (m padded to a multiple of 4) plus x times a weight row,
   4 alphas a lane in the AVX2 build. Both paths multiply, then add (no FMA:
   -std=c11 does not contract), so a sum is the same bits on either. */
#ifndef FASTNB_SWEEP_SIMD_H
#define FASTNB_SWEEP_SIMD_H
#include <stddef.h>

#if defined(__AVX2__)
#include <immintrin.h>
#endif

static inline void fastnb_sweep_add(double* cell, const double* weight, double x,
                                    ptrdiff_t lanes) {
    ptrdiff_t a;
#if defined(__AVX2__)
    const __m256d x4 = _mm256_set1_pd(x);
    for (a = 0; a < lanes; a += 4)
        _mm256_storeu_pd(cell + a, _mm256_add_pd(
            _mm256_loadu_pd(cell + a), _mm256_mul_pd(x4, _mm256_loadu_pd(weight + a))));
#else
    for (a = 0; a < lanes; a++)
        cell[a] = cell[a] + x * weight[a];
#endif
}

#endif
