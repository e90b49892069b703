/* fastnb's exp of float64: a scalar function and a block loop with an AVX2
   path, included by _alpha_sweep_kernels.pyx (a search's soft-max sums: the
   exps of scores less their row's top, all <= 0). The AVX2 lanes do the scalar
   code's arithmetic operation for operation (no FMA: -std=c11 does not
   contract), so a value's exp is the same bits on any CPU path, block split or
   thread count.

   fdlibm's e_exp.c without branches: x = n ln2 + r, n = round(x / ln2) (by
   adding and subtracting 1.5 * 2**52), |r| <= ln2 / 2, with ln2 split into a
   32-bit head (n * head exact) and a tail; exp(r) = 1 - ((lo - r c / (2 - c))
   - hi), c = r - r**2 P(r**2) (fdlibm's degree-5 Remez polynomial, error <
   2**-59), within 1 ulp of exp x. The result is scaled by 2**n in two halves,
   2**n1 * 2**n2 built from exponent bits: exact where the result is normal,
   rounded once in the subnormals. Below -746 it is +0.0 (so for -inf), above
   709.78 +inf, NaN stays NaN; exp(0) = exp(-0) = 1 exactly. */
#ifndef FASTNB_EXP_SIMD_H
#define FASTNB_EXP_SIMD_H
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <math.h>

#define FASTNB_EXP_INV_LN2 1.44269504088896338700e+00
#define FASTNB_EXP_LN2_HI 6.93147180369123816490e-01   /* 0x3fe62e42fee00000 */
#define FASTNB_EXP_LN2_LO 1.90821492927058770002e-10
#define FASTNB_EXP_P1 1.66666666666666019037e-01
#define FASTNB_EXP_P2 -2.77777777770155933842e-03
#define FASTNB_EXP_P3 6.61375632143793436117e-05
#define FASTNB_EXP_P4 -1.65339022054652515390e-06
#define FASTNB_EXP_P5 4.13813679705723846039e-08
/* 1.5 * 2**52: adding it rounds a double of magnitude < 2**51 to an integer,
   which is then the low bits of the sum's mantissa */
#define FASTNB_EXP_SHIFT 6755399441055744.0
/* the shift plus the exponent bias: the sum's low 11 bits are 1023 + n */
#define FASTNB_EXP_SHIFT_BIASED 6755399441056767.0
#define FASTNB_EXP_LOWEST -746.0
#define FASTNB_EXP_HIGHEST 709.782712893384

static inline double fastnb_exp_as_double(uint64_t bits) {
    double v;
    memcpy(&v, &bits, sizeof v);
    return v;
}

static inline uint64_t fastnb_exp_bits(double v) {
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    return bits;
}

/* 2**n of a whole n in [-1022, 1023] */
static inline double fastnb_exp_pow2(double n) {
    return fastnb_exp_as_double(fastnb_exp_bits(n + FASTNB_EXP_SHIFT_BIASED) << 52);
}

static inline double fastnb_exp(double x) {
    double v, n, n1, n2, hi, lo, r, rr, c, y;
    /* (clamped: the lanes of out-of-range values compute something finite,
       replaced below) */
    v = x < FASTNB_EXP_LOWEST ? FASTNB_EXP_LOWEST : x;
    v = v > FASTNB_EXP_HIGHEST ? FASTNB_EXP_HIGHEST : v;
    n = (v * FASTNB_EXP_INV_LN2 + FASTNB_EXP_SHIFT) - FASTNB_EXP_SHIFT;
    hi = v - n * FASTNB_EXP_LN2_HI;
    lo = n * FASTNB_EXP_LN2_LO;
    r = hi - lo;
    rr = r * r;
    c = r - rr * (FASTNB_EXP_P1 + rr * (FASTNB_EXP_P2 + rr * (FASTNB_EXP_P3
            + rr * (FASTNB_EXP_P4 + rr * FASTNB_EXP_P5))));
    y = 1.0 - ((lo - (r * c) / (2.0 - c)) - hi);
    n1 = (n * 0.5 + FASTNB_EXP_SHIFT) - FASTNB_EXP_SHIFT;
    n2 = n - n1;
    y = (y * fastnb_exp_pow2(n1)) * fastnb_exp_pow2(n2);
    if (x < FASTNB_EXP_LOWEST) return 0.0;
    if (x > FASTNB_EXP_HIGHEST) return INFINITY;
    if (x != x) return x;
    return y;
}

#if defined(__AVX2__)
#include <immintrin.h>

static inline __m256d fastnb_exp_pow2_4(__m256d n) {
    __m256d biased = _mm256_add_pd(n, _mm256_set1_pd(FASTNB_EXP_SHIFT_BIASED));
    return _mm256_castsi256_pd(_mm256_slli_epi64(_mm256_castpd_si256(biased), 52));
}

/* fastnb_exp of 4 lanes: the same operations in the same order */
static inline __m256d fastnb_exp4(__m256d x) {
    const __m256d lowest = _mm256_set1_pd(FASTNB_EXP_LOWEST);
    const __m256d highest = _mm256_set1_pd(FASTNB_EXP_HIGHEST);
    const __m256d shift = _mm256_set1_pd(FASTNB_EXP_SHIFT);
    __m256d v, n, n1, n2, hi, lo, r, rr, c, y, p, low, high, nan;
    low = _mm256_cmp_pd(x, lowest, _CMP_LT_OQ);
    high = _mm256_cmp_pd(x, highest, _CMP_GT_OQ);
    nan = _mm256_cmp_pd(x, x, _CMP_UNORD_Q);
    v = _mm256_blendv_pd(x, lowest, low);
    v = _mm256_blendv_pd(v, highest, high);
    n = _mm256_sub_pd(_mm256_add_pd(
        _mm256_mul_pd(v, _mm256_set1_pd(FASTNB_EXP_INV_LN2)), shift), shift);
    hi = _mm256_sub_pd(v, _mm256_mul_pd(n, _mm256_set1_pd(FASTNB_EXP_LN2_HI)));
    lo = _mm256_mul_pd(n, _mm256_set1_pd(FASTNB_EXP_LN2_LO));
    r = _mm256_sub_pd(hi, lo);
    rr = _mm256_mul_pd(r, r);
    p = _mm256_add_pd(_mm256_set1_pd(FASTNB_EXP_P4),
                      _mm256_mul_pd(rr, _mm256_set1_pd(FASTNB_EXP_P5)));
    p = _mm256_add_pd(_mm256_set1_pd(FASTNB_EXP_P3), _mm256_mul_pd(rr, p));
    p = _mm256_add_pd(_mm256_set1_pd(FASTNB_EXP_P2), _mm256_mul_pd(rr, p));
    p = _mm256_add_pd(_mm256_set1_pd(FASTNB_EXP_P1), _mm256_mul_pd(rr, p));
    c = _mm256_sub_pd(r, _mm256_mul_pd(rr, p));
    y = _mm256_div_pd(_mm256_mul_pd(r, c), _mm256_sub_pd(_mm256_set1_pd(2.0), c));
    y = _mm256_sub_pd(_mm256_set1_pd(1.0), _mm256_sub_pd(_mm256_sub_pd(lo, y), hi));
    n1 = _mm256_sub_pd(_mm256_add_pd(_mm256_mul_pd(n, _mm256_set1_pd(0.5)), shift),
                       shift);
    n2 = _mm256_sub_pd(n, n1);
    y = _mm256_mul_pd(_mm256_mul_pd(y, fastnb_exp_pow2_4(n1)), fastnb_exp_pow2_4(n2));
    y = _mm256_blendv_pd(y, _mm256_setzero_pd(), low);
    y = _mm256_blendv_pd(y, _mm256_set1_pd(INFINITY), high);
    return _mm256_blendv_pd(y, x, nan);
}
#endif

#if defined(__AVX2__)
/* fastnb_exp4 of lanes all in [FASTNB_EXP_NORMAL_FROM, 0] (no NaN), whose
   results are normal: no clamps, and 2**n in one factor (exact, as the two
   halves are): the same bits in fewer operations */
#define FASTNB_EXP_NORMAL_FROM -708.0
static inline __m256d fastnb_exp4_normal(__m256d v) {
    const __m256d shift = _mm256_set1_pd(FASTNB_EXP_SHIFT);
    __m256d n, hi, lo, r, rr, c, y, p;
    n = _mm256_sub_pd(_mm256_add_pd(
        _mm256_mul_pd(v, _mm256_set1_pd(FASTNB_EXP_INV_LN2)), shift), shift);
    hi = _mm256_sub_pd(v, _mm256_mul_pd(n, _mm256_set1_pd(FASTNB_EXP_LN2_HI)));
    lo = _mm256_mul_pd(n, _mm256_set1_pd(FASTNB_EXP_LN2_LO));
    r = _mm256_sub_pd(hi, lo);
    rr = _mm256_mul_pd(r, r);
    p = _mm256_add_pd(_mm256_set1_pd(FASTNB_EXP_P4),
                      _mm256_mul_pd(rr, _mm256_set1_pd(FASTNB_EXP_P5)));
    p = _mm256_add_pd(_mm256_set1_pd(FASTNB_EXP_P3), _mm256_mul_pd(rr, p));
    p = _mm256_add_pd(_mm256_set1_pd(FASTNB_EXP_P2), _mm256_mul_pd(rr, p));
    p = _mm256_add_pd(_mm256_set1_pd(FASTNB_EXP_P1), _mm256_mul_pd(rr, p));
    c = _mm256_sub_pd(r, _mm256_mul_pd(rr, p));
    y = _mm256_div_pd(_mm256_mul_pd(r, c), _mm256_sub_pd(_mm256_set1_pd(2.0), c));
    y = _mm256_sub_pd(_mm256_set1_pd(1.0), _mm256_sub_pd(_mm256_sub_pd(lo, y), hi));
    return _mm256_mul_pd(y, fastnb_exp_pow2_4(n));
}
#endif

/* out[i] = fastnb_exp(x[i] - top) for i < n (x == out allowed), for a
   soft-max's terms (x[i] <= top, mostly): 4 at a time in the AVX2 build (by
   fastnb_exp4_normal where all 4 allow it, the last 1-3 padded), by the
   scalar function in the portable one (the same bits) */
static inline void fastnb_exps_below(const double* x, ptrdiff_t n, double top,
                                     double* out) {
    ptrdiff_t i = 0;
#if defined(__AVX2__)
    const __m256d top4 = _mm256_set1_pd(top);
    const __m256d from = _mm256_set1_pd(FASTNB_EXP_NORMAL_FROM);
    __m256d v, inside;
    double rest[4];
    ptrdiff_t left;
    for (; i < n; i += 4) {
        left = n - i;
        if (left >= 4) {
            v = _mm256_sub_pd(_mm256_loadu_pd(x + i), top4);
        } else {
            /* the last 1-3 values padded with top (exp 0 = 1, dropped): a lane
               is the scalar function's bits, and 1-3 scalar exps cost more
               than a vector of 4 */
            rest[0] = rest[1] = rest[2] = rest[3] = top;
            memcpy(rest, x + i, (size_t)left * sizeof(double));
            v = _mm256_sub_pd(_mm256_loadu_pd(rest), top4);
        }
        /* (false for NaN) */
        inside = _mm256_and_pd(_mm256_cmp_pd(v, from, _CMP_GE_OQ),
                               _mm256_cmp_pd(v, _mm256_setzero_pd(), _CMP_LE_OQ));
        v = _mm256_movemask_pd(inside) == 15 ? fastnb_exp4_normal(v) : fastnb_exp4(v);
        if (left >= 4) {
            _mm256_storeu_pd(out + i, v);
        } else {
            _mm256_storeu_pd(rest, v);
            memcpy(out + i, rest, (size_t)left * sizeof(double));
        }
    }
#endif
    for (; i < n; i++)
        out[i] = fastnb_exp(x[i] - top);
}

/* out[i] = fastnb_exp(x[i]) for i < n (x == out allowed): 4 at a time in the
   AVX2 build, the remainder by the scalar function (the same bits) */
static inline void fastnb_exps(const double* x, ptrdiff_t n, double* out) {
    ptrdiff_t i = 0;
#if defined(__AVX2__)
    for (; i + 4 <= n; i += 4)
        _mm256_storeu_pd(out + i, fastnb_exp4(_mm256_loadu_pd(x + i)));
#endif
    for (; i < n; i++)
        out[i] = fastnb_exp(x[i]);
}

#endif
