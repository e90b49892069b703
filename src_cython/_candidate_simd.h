/* A search candidate's results on a row (_alpha_sweep_kernels.pyx), 4
   classes a step in the AVX2 build, the same bits on either path:

   - its predicted class: the first arg-max of its joint log likelihoods
     s[c] + p[c] (an alpha's scores less the prior, plus the candidate's log
     prior), NumPy's argmax of them. Each sum is one add; the maximum is
     exact, so both paths find the same index. (The scalar loop's compare and
     select made a dependency chain a class: 20 candidates a row were ~10 ms
     of a T1 fold's 30.)
   - its soft-max's denominator from its alpha's shared exps: a dot product
     in 4 interleaved partial sums, combined in one order on both paths, and
     the largest score those exps are taken below. */
#ifndef FASTNB_CANDIDATE_SIMD_H
#define FASTNB_CANDIDATE_SIMD_H
#include <stddef.h>

#if defined(__AVX2__)
#include <immintrin.h>
#endif

/* The first c < k (k > 0; no sum is NaN) whose s[c] + p[c] is the largest,
   that sum in *top; every sum written to out[c] unless out is NULL. (A -0.0
   and a +0.0 compare equal: the first of them is taken, as NumPy takes it.) */
static inline ptrdiff_t fastnb_argmax_of_sum(const double* s, const double* p,
                                             ptrdiff_t k, double* out,
                                             double* top) {
    ptrdiff_t c = 0;
    double best, v;
#if defined(__AVX2__)
    if (k >= 4) {
        __m256d most = _mm256_add_pd(_mm256_loadu_pd(s), _mm256_loadu_pd(p)), four;
        __m128d half;
        if (out != NULL) _mm256_storeu_pd(out, most);
        for (c = 4; c + 4 <= k; c += 4) {
            four = _mm256_add_pd(_mm256_loadu_pd(s + c), _mm256_loadu_pd(p + c));
            if (out != NULL) _mm256_storeu_pd(out + c, four);
            most = _mm256_max_pd(most, four);
        }
        half = _mm_max_pd(_mm256_castpd256_pd128(most), _mm256_extractf128_pd(most, 1));
        half = _mm_max_sd(half, _mm_unpackhi_pd(half, half));
        best = _mm_cvtsd_f64(half);
        for (; c < k; c++) {
            v = s[c] + p[c];
            if (out != NULL) out[c] = v;
            best = v > best ? v : best;
        }
    } else
#endif
    {
        best = s[0] + p[0];
        if (out != NULL) out[0] = best;
        for (c = 1; c < k; c++) {
            v = s[c] + p[c];
            if (out != NULL) out[c] = v;
            best = v > best ? v : best;
        }
    }
    /* (bounded: a NaN sum, which callers exclude, must not run past k) */
    for (c = 0; c < k - 1 && s[c] + p[c] != best; c++)
        ;
    *top = s[c] + p[c];
    return c;
}

/* sum over c < k of a[c] * b[c]: lane j (c = j mod 4) summed in order, then
   (lane 0 + lane 1) + (lane 2 + lane 3), then the last k mod 4 terms */
static inline double fastnb_dot(const double* a, const double* b, ptrdiff_t k) {
    ptrdiff_t c = 0;
    double total;
#if defined(__AVX2__)
    __m256d sums = _mm256_setzero_pd();
    __m128d half;
    for (; c + 4 <= k; c += 4)
        sums = _mm256_add_pd(sums, _mm256_mul_pd(_mm256_loadu_pd(a + c),
                                                 _mm256_loadu_pd(b + c)));
    half = _mm_hadd_pd(_mm256_castpd256_pd128(sums), _mm256_extractf128_pd(sums, 1));
    /* (hadd: (l0 + l1, l2 + l3)) */
    total = _mm_cvtsd_f64(half) + _mm_cvtsd_f64(_mm_unpackhi_pd(half, half));
#else
    double lane[4] = {0.0, 0.0, 0.0, 0.0};
    ptrdiff_t j;
    for (; c + 4 <= k; c += 4)
        for (j = 0; j < 4; j++)
            lane[j] = lane[j] + a[c + j] * b[c + j];
    total = (lane[0] + lane[1]) + (lane[2] + lane[3]);
#endif
    for (; c < k; c++)
        total = total + a[c] * b[c];
    return total;
}

/* the largest of s[0..k) (k > 0, no NaN), 4 a step in the AVX2 build: the
   top an alpha's shared exps are taken below (exact; where the largest is a
   zero, its sign may differ between the builds, which changes no exp(x - top):
   x - 0.0 and x - -0.0 differ only for x = +-0, whose exp is 1 either way) */
static inline double fastnb_max(const double* s, ptrdiff_t k) {
    ptrdiff_t c = 0;
    double best;
#if defined(__AVX2__)
    if (k >= 4) {
        __m256d most = _mm256_loadu_pd(s);
        __m128d half;
        for (c = 4; c + 4 <= k; c += 4)
            most = _mm256_max_pd(most, _mm256_loadu_pd(s + c));
        half = _mm_max_pd(_mm256_castpd256_pd128(most), _mm256_extractf128_pd(most, 1));
        half = _mm_max_sd(half, _mm_unpackhi_pd(half, half));
        best = _mm_cvtsd_f64(half);
    } else
#endif
    {
        best = s[0];
        c = 1;
    }
    for (; c < k; c++)
        best = s[c] > best ? s[c] : best;
    return best;
}

#endif
