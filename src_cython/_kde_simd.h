/* KernelDensityNB predict's SIMD helper, included by _kde_kernels.pyx (both
   builds: the AVX2 one compiles the vector path). */
#ifndef FASTNB_KDE_SIMD_H
#define FASTNB_KDE_SIMD_H
#include <stddef.h>

/* The in-grid terms of 4 rows at a time with AVX2 (gcc 12 does not
   vectorise the table lookup itself). Each lane is the scalar code's
   arithmetic, operation for operation (no FMA: -std=c11 does not
   contract), so the bits are the scalar loop's. Lanes past the grid,
   NaN or infinite are left to the scalar code: their bits (of 64 rows)
   come back in the mask. */
#if defined(_MSC_VER)
#include <intrin.h>
static inline int kde_lowest_bit(unsigned long long bits) {
    unsigned long at;
    _BitScanForward64(&at, bits);
    return (int)at;
}
#else
static inline int kde_lowest_bit(unsigned long long bits) {
    return __builtin_ctzll(bits);
}
#endif
#if defined(__AVX2__)
#include <immintrin.h>
#define KDE_SIMD_WIDTH 4
static inline unsigned long long kde_inside_terms(
        const double* xs, double* scores, double inv_width, double origin,
        double top, int last, const double* pairs, ptrdiff_t m4) {
    const __m256d vinv = _mm256_set1_pd(inv_width);
    const __m256d vorigin = _mm256_set1_pd(origin);
    const __m256d vtop = _mm256_set1_pd(top);
    const __m256d vzero = _mm256_setzero_pd();
    const __m128i vlast = _mm_set1_epi32(last);
    unsigned long long outside = 0;
    for (ptrdiff_t r = 0; r < m4; r += 4) {
        __m256d v = _mm256_loadu_pd(xs + r);
        __m256d t = _mm256_sub_pd(_mm256_mul_pd(v, vinv), vorigin);
        /* (t > 0 ? t : 0), then (c < top ? c : top): NaN goes to 0 */
        __m256d c = _mm256_min_pd(_mm256_max_pd(t, vzero), vtop);
        __m128i i = _mm_min_epi32(_mm256_cvttpd_epi32(c), vlast);
        __m128i i2 = _mm_add_epi32(i, i);
        /* four 16-byte (value, step) loads and two unpacks: faster than
           two vgatherdpd on the AMD EPYC measured */
        int at[4];
        _mm_storeu_si128((__m128i*)at, i2);
        __m256d p02 = _mm256_insertf128_pd(
            _mm256_castpd128_pd256(_mm_loadu_pd(pairs + at[0])),
            _mm_loadu_pd(pairs + at[2]), 1);
        __m256d p13 = _mm256_insertf128_pd(
            _mm256_castpd128_pd256(_mm_loadu_pd(pairs + at[1])),
            _mm_loadu_pd(pairs + at[3]), 1);
        __m256d g = _mm256_unpacklo_pd(p02, p13);
        __m256d step = _mm256_unpackhi_pd(p02, p13);
        __m256d f = _mm256_sub_pd(t, _mm256_cvtepi32_pd(i));
        __m256d term = _mm256_add_pd(g, _mm256_mul_pd(f, step));
        __m256d inside = _mm256_cmp_pd(c, t, _CMP_EQ_OQ);
        __m256d sc = _mm256_loadu_pd(scores + r);
        _mm256_storeu_pd(scores + r,
                         _mm256_blendv_pd(sc, _mm256_add_pd(sc, term), inside));
        outside |= (unsigned long long)(~_mm256_movemask_pd(inside) & 0xF) << r;
    }
    return outside;
}
#else
#define KDE_SIMD_WIDTH 0
static inline unsigned long long kde_inside_terms(
        const double* xs, double* scores, double inv_width, double origin,
        double top, int last, const double* pairs, ptrdiff_t m4) {
    return 0;
}
#endif

#endif
