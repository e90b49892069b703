/* The alpha sweep's inner step (_sparse_sweep.pxd): a row's class cell of
   ``lanes`` alpha sums (m padded to a multiple of 4) plus x times a weight row,
   4 alphas a lane in the AVX2 build. Both paths multiply, then add (no FMA:
   -std=c11 does not contract), so a sum is the same bits on either. */
#ifndef FASTNB_SWEEP_SIMD_H
#define FASTNB_SWEEP_SIMD_H
#include <stddef.h>
#include <stdint.h>

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

/* A run of a row's dense features with no sparse one between them (at most
   FASTNB_SWEEP_RUN): each class's cell takes the run's terms in the run's
   order in registers, cell = ((cell + x0 w0) + x1 w1) + ..., the bits of
   fastnb_sweep_add once a feature, with one load and store of the cell a run
   rather than a feature (the dense blocks' adds ~40% faster, the T1 walk
   ~15%). ``blocks[r]``: the r-th feature's k weight row numbers into
   ``weights`` (rows of ``lanes``). */
#define FASTNB_SWEEP_RUN 8

#if defined(__AVX2__)
/* lanes (4 NV) and the run's length R compile-time constants: a loop over
   the classes with no inner loop to mispredict (a run length known only at
   run time cost a branch miss a class and was slower than a feature at a
   time) */
#define FASTNB_SWEEP_RUN_FIXED(NV, R)                                           \
static inline void fastnb_sweep_run_##NV##_##R(                                 \
        double* row, const double* weights, const int32_t* const* blocks,      \
        const double* xs, ptrdiff_t k) {                                        \
    ptrdiff_t c, r, v;                                                          \
    __m256d x4[R];                                                              \
    for (r = 0; r < R; r++) x4[r] = _mm256_set1_pd(xs[r]);                      \
    for (c = 0; c < k; c++) {                                                   \
        double* cell = row + c * (4 * NV);                                      \
        __m256d acc[NV];                                                        \
        for (v = 0; v < NV; v++) acc[v] = _mm256_loadu_pd(cell + 4 * v);       \
        for (r = 0; r < R; r++) {                                               \
            const double* w = weights + (ptrdiff_t)blocks[r][c] * (4 * NV);     \
            for (v = 0; v < NV; v++)                                            \
                acc[v] = _mm256_add_pd(acc[v],                                  \
                                       _mm256_mul_pd(x4[r], _mm256_loadu_pd(w + 4 * v))); \
        }                                                                       \
        for (v = 0; v < NV; v++) _mm256_storeu_pd(cell + 4 * v, acc[v]);        \
    }                                                                           \
}
#define FASTNB_SWEEP_RUN_LANES(NV)                                              \
FASTNB_SWEEP_RUN_FIXED(NV, 1) FASTNB_SWEEP_RUN_FIXED(NV, 2)                     \
FASTNB_SWEEP_RUN_FIXED(NV, 3) FASTNB_SWEEP_RUN_FIXED(NV, 4)                     \
FASTNB_SWEEP_RUN_FIXED(NV, 5) FASTNB_SWEEP_RUN_FIXED(NV, 6)                     \
FASTNB_SWEEP_RUN_FIXED(NV, 7) FASTNB_SWEEP_RUN_FIXED(NV, 8)                     \
static inline void fastnb_sweep_run_##NV(                                       \
        double* row, const double* weights, const int32_t* const* blocks,      \
        const double* xs, ptrdiff_t n_run, ptrdiff_t k) {                       \
    switch (n_run) {                                                            \
    case 1: fastnb_sweep_run_##NV##_1(row, weights, blocks, xs, k); return;     \
    case 2: fastnb_sweep_run_##NV##_2(row, weights, blocks, xs, k); return;     \
    case 3: fastnb_sweep_run_##NV##_3(row, weights, blocks, xs, k); return;     \
    case 4: fastnb_sweep_run_##NV##_4(row, weights, blocks, xs, k); return;     \
    case 5: fastnb_sweep_run_##NV##_5(row, weights, blocks, xs, k); return;     \
    case 6: fastnb_sweep_run_##NV##_6(row, weights, blocks, xs, k); return;     \
    case 7: fastnb_sweep_run_##NV##_7(row, weights, blocks, xs, k); return;     \
    default: fastnb_sweep_run_##NV##_8(row, weights, blocks, xs, k); return;    \
    }                                                                           \
}
FASTNB_SWEEP_RUN_LANES(1)
FASTNB_SWEEP_RUN_LANES(2)
FASTNB_SWEEP_RUN_LANES(3)
FASTNB_SWEEP_RUN_LANES(4)
#endif

static inline void fastnb_sweep_run(double* row, const double* weights,
                                    const int32_t* const* blocks, const double* xs,
                                    ptrdiff_t n_run, ptrdiff_t k, ptrdiff_t lanes) {
    ptrdiff_t c, r, a;
#if defined(__AVX2__)
    switch (lanes) {
    case 4: fastnb_sweep_run_1(row, weights, blocks, xs, n_run, k); return;
    case 8: fastnb_sweep_run_2(row, weights, blocks, xs, n_run, k); return;
    case 12: fastnb_sweep_run_3(row, weights, blocks, xs, n_run, k); return;
    case 16: fastnb_sweep_run_4(row, weights, blocks, xs, n_run, k); return;
    default: break;
    }
#endif
    for (c = 0; c < k; c++) {
        double* cell = row + c * lanes;
        for (a = 0; a < lanes; a++) {
            double sum = cell[a];
            for (r = 0; r < n_run; r++)
                sum = sum + xs[r] * weights[(ptrdiff_t)blocks[r][c] * lanes + a];
            cell[a] = sum;
        }
    }
}

#endif
