/* fastnb's exp of float64: a scalar function and block loops with an AVX2
   path, included by _alpha_sweep_kernels.pyx (a search's soft-max sums: the
   exps of scores less their row's top, all <= 0). The AVX2 lanes do the scalar
   code's arithmetic operation for operation (no FMA: -std=c11 does not
   contract), so a value's exp is the same bits on any CPU path, block split or
   thread count.

   Table-driven, without a division or a branch: k = 128 n + j = round(x 128 /
   ln2) (by adding and subtracting 1.5 * 2**52 plus a bias that keeps k's low
   bits positive), r = x - k ln2 / 128, |r| <= ln2 / 256 (+ a hair), with
   ln2 / 128 split into a 35-bit head (k * head exact) and a tail. Row j of
   tools/gen_exp_table.py's table holds 2**(j/128) as a double H and the rest
   relative to it, so exp x = 2**n H (1 + tmp), tmp = tail + exp r - 1 by
   Taylor's degree-5 polynomial (its error < 2**-60 on |r| <= ln2 / 256); y =
   H + H tmp is rounded once (ARM optimized-routines' exp is this scheme):
   within 0.509 ulp of exp x on tests/test_exp.py's sweep (NumPy's AVX-512
   exp: 0.71), where its predecessor, fdlibm's e_exp.c without branches, was
   0.86 and divided once a value (~2x slower in the soft-max loop). The
   result is scaled by 2**n in two halves, 2**n1 * 2**n2 built from exponent
   bits: exact where the result is normal, rounded once in the subnormals.
   Below -746 it is +0.0 (so for -inf), above 709.78 +inf, NaN stays NaN;
   exp(0) = exp(-0) = 1 exactly. */
#ifndef FASTNB_EXP_SIMD_H
#define FASTNB_EXP_SIMD_H
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <math.h>

/* tools/gen_exp_table.py: 128 / ln2, and ln2 / 128 as head + tail */
#define FASTNB_EXP_N_LN2 0x1.71547652b82fep+7
#define FASTNB_EXP_LN2_N_HI 0x1.62e42fefc0000p-8
#define FASTNB_EXP_LN2_N_LO -0x1.c610ca86c3899p-44
/* 1 / k! of Taylor's exp r - 1 - r = r**2 (1/2 + r (1/6 + r (1/24 + r/120))),
   taken as r**2 (C2 + r C3) + r**4 (C4 + r C5) */
#define FASTNB_EXP_C2 0.5
#define FASTNB_EXP_C3 0x1.5555555555555p-3
#define FASTNB_EXP_C4 0x1.5555555555555p-5
#define FASTNB_EXP_C5 0x1.1111111111111p-7
/* 1.5 * 2**52 + 2046 * 128: adding it rounds a double of magnitude < 2**51 to
   an integer k, and the sum's low 19 bits are then k + 2046 * 128 = 128 (n +
   2046) + j (> 0 for x >= -746), so j = bits & 127 and n + 2046 = (bits >> 7)
   & 4095 */
#define FASTNB_EXP_SHIFT 6755399441317632.0
#define FASTNB_EXP_LOWEST -746.0
#define FASTNB_EXP_HIGHEST 709.782712893384
#if defined(_MSC_VER)
#define FASTNB_EXP_ALIGN __declspec(align(64))
#else
#define FASTNB_EXP_ALIGN __attribute__((aligned(64)))
#endif
/* per j: 2**(j/128) as a double H, and (2**(j/128) - H) / H */
static const FASTNB_EXP_ALIGN double fastnb_exp_table[128][2] = {
    {0x1.0000000000000p+0, 0x0.0p+0},
    {0x1.0163da9fb3335p+0, 0x1.b3b4f1a88bf6ep-54},
    {0x1.02c9a3e778061p+0, -0x1.160139cd8dc5dp-56},
    {0x1.04315e86e7f85p+0, -0x1.05e7a108766d1p-54},
    {0x1.059b0d3158574p+0, 0x1.cd2523567f613p-55},
    {0x1.0706b29ddf6dep+0, -0x1.bce8023f98efap-55},
    {0x1.0874518759bc8p+0, 0x1.0f74e61e6c861p-57},
    {0x1.09e3ecac6f383p+0, 0x1.0a3e45b33d399p-54},
    {0x1.0b5586cf9890fp+0, 0x1.79aa65d837b6dp-54},
    {0x1.0cc922b7247f7p+0, 0x1.eb51a92fdeffcp-55},
    {0x1.0e3ec32d3d1a2p+0, 0x1.ebe3d702f9cd1p-60},
    {0x1.0fb66affed31bp+0, -0x1.a033489906e0bp-57},
    {0x1.11301d0125b51p+0, -0x1.556522a2fbd0ep-54},
    {0x1.12abdc06c31ccp+0, -0x1.080ef8c4eea55p-58},
    {0x1.1429aaea92de0p+0, -0x1.1c923b9d5f416p-54},
    {0x1.15a98c8a58e51p+0, 0x1.0d3e3e95c55afp-55},
    {0x1.172b83c7d517bp+0, -0x1.01b15eaa59348p-55},
    {0x1.18af9388c8deap+0, -0x1.f1ff055de323dp-55},
    {0x1.1a35beb6fcb75p+0, 0x1.b898c3f1353bfp-55},
    {0x1.1bbe084045cd4p+0, -0x1.6d99c7611eb26p-54},
    {0x1.1d4873168b9aap+0, 0x1.aecf73e3a2f60p-54},
    {0x1.1ed5022fcd91dp+0, -0x1.fe782cb86389dp-55},
    {0x1.2063b88628cd6p+0, 0x1.a6f4144a6c38dp-55},
    {0x1.21f49917ddc96p+0, 0x1.07a05b0e4047dp-55},
    {0x1.2387a6e756238p+0, 0x1.68efde3a8a894p-54},
    {0x1.251ce4fb2a63fp+0, 0x1.75e18f274487dp-55},
    {0x1.26b4565e27cddp+0, 0x1.0472b981fe7f2p-55},
    {0x1.284dfe1f56381p+0, -0x1.6b87b3f71085ep-54},
    {0x1.29e9df51fdee1p+0, 0x1.2f7e16d09ab31p-55},
    {0x1.2b87fd0dad990p+0, -0x1.d219b1a6fbffap-60},
    {0x1.2d285a6e4030bp+0, 0x1.b3782720c0ab4p-55},
    {0x1.2ecafa93e2f56p+0, 0x1.e149289cecb8fp-57},
    {0x1.306fe0a31b715p+0, 0x1.34d754db0abb6p-55},
    {0x1.32170fc4cd831p+0, 0x1.64201e2ac744cp-55},
    {0x1.33c08b26416ffp+0, 0x1.fdd395dd3f84ap-55},
    {0x1.356c55f929ff1p+0, -0x1.6a3803b8e5b04p-55},
    {0x1.371a7373aa9cbp+0, -0x1.24aedcc4b5068p-54},
    {0x1.38cae6d05d866p+0, -0x1.907f81b512d8ep-54},
    {0x1.3a7db34e59ff7p+0, -0x1.1d1e83e9436d2p-56},
    {0x1.3c32dc313a8e5p+0, -0x1.91919b3ce1b15p-54},
    {0x1.3dea64c123422p+0, 0x1.59f48a72a4c6dp-55},
    {0x1.3fa4504ac801cp+0, -0x1.312607a28698ap-54},
    {0x1.4160a21f72e2ap+0, -0x1.8a78f4817895bp-58},
    {0x1.431f5d950a897p+0, -0x1.c2c9b67499a1bp-56},
    {0x1.44e086061892dp+0, 0x1.363ed60c2ac11p-59},
    {0x1.46a41ed1d0057p+0, 0x1.666093b0664efp-54},
    {0x1.486a2b5c13cd0p+0, 0x1.ecce1daa10379p-57},
    {0x1.4a32af0d7d3dep+0, 0x1.3ff8e3f0f1230p-54},
    {0x1.4bfdad5362a27p+0, 0x1.690cebb7aafb0p-56},
    {0x1.4dcb299fddd0dp+0, 0x1.31dbdeb54e077p-54},
    {0x1.4f9b2769d2ca7p+0, -0x1.f94340071a38ep-55},
    {0x1.516daa2cf6642p+0, -0x1.7deccdc93a349p-55},
    {0x1.5342b569d4f82p+0, -0x1.8dec6bd0f385fp-56},
    {0x1.551a4ca5d920fp+0, -0x1.61246ec7b5cf6p-55},
    {0x1.56f4736b527dap+0, 0x1.3350518fdd78ep-54},
    {0x1.58d12d497c7fdp+0, 0x1.b98b72f8a9b05p-56},
    {0x1.5ab07dd485429p+0, 0x1.063e1e21c5409p-54},
    {0x1.5c9268a5946b7p+0, 0x1.4c7855019c6eap-60},
    {0x1.5e76f15ad2148p+0, 0x1.432e62b64c035p-54},
    {0x1.605e1b976dc09p+0, -0x1.ce44a6199769fp-55},
    {0x1.6247eb03a5585p+0, -0x1.c33c53bef4da8p-55},
    {0x1.6434634ccc320p+0, -0x1.45378892be9aep-55},
    {0x1.6623882552225p+0, -0x1.3cedd78565858p-54},
    {0x1.68155d44ca973p+0, 0x1.710aa807e1964p-58},
    {0x1.6a09e667f3bcdp+0, -0x1.3b3efbf5e2228p-54},
    {0x1.6c012750bdabfp+0, -0x1.a12ad8734b982p-57},
    {0x1.6dfb23c651a2fp+0, -0x1.367efb86da9eep-57},
    {0x1.6ff7df9519484p+0, -0x1.0dc3d54e08851p-55},
    {0x1.71f75e8ec5f74p+0, -0x1.81f647e5a3ecfp-56},
    {0x1.73f9a48a58174p+0, -0x1.6ee4ac08b7db0p-55},
    {0x1.75feb564267c9p+0, -0x1.619321e55e68ap-55},
    {0x1.780694fde5d3fp+0, 0x1.09ccb5e09d4d3p-54},
    {0x1.7a11473eb0187p+0, -0x1.b32dcb94da51dp-56},
    {0x1.7c1ed0130c132p+0, 0x1.4ecfd5467c06bp-54},
    {0x1.7e2f336cf4e62p+0, 0x1.5ebe1abd66c55p-57},
    {0x1.80427543e1a12p+0, -0x1.8a1c52fb3cf42p-55},
    {0x1.82589994cce13p+0, -0x1.369b6f13b3734p-54},
    {0x1.8471a4623c7adp+0, -0x1.05e843a19ff1ep-55},
    {0x1.868d99b4492edp+0, -0x1.4d450d872576ep-54},
    {0x1.88ac7d98a6699p+0, 0x1.0ad675b0e8a00p-54},
    {0x1.8ace5422aa0dbp+0, 0x1.db72fc1f0eab4p-55},
    {0x1.8cf3216b5448cp+0, -0x1.5b6609cc5e7ffp-57},
    {0x1.8f1ae99157736p+0, 0x1.bf68359f35f44p-56},
    {0x1.9145b0b91ffc6p+0, -0x1.3091fa71e3d83p-54},
    {0x1.93737b0cdc5e5p+0, -0x1.da9b88b6c1e29p-58},
    {0x1.95a44cbc8520fp+0, -0x1.c23f97c90b959p-57},
    {0x1.97d829fde4e50p+0, -0x1.2434322f4f9aap-54},
    {0x1.9a0f170ca07bap+0, -0x1.5ca6cd7668e4bp-55},
    {0x1.9c49182a3f090p+0, 0x1.1affc2b91ce27p-56},
    {0x1.9e86319e32323p+0, 0x1.dd235e10a73bbp-57},
    {0x1.a0c667b5de565p+0, -0x1.7c50422622263p-55},
    {0x1.a309bec4a2d33p+0, 0x1.b1c86e3e231d5p-55},
    {0x1.a5503b23e255dp+0, -0x1.1bbd1d3bcbb15p-54},
    {0x1.a799e1330b358p+0, 0x1.0cc319cee31d2p-54},
    {0x1.a9e6b5579fdbfp+0, 0x1.469846e735ab3p-55},
    {0x1.ac36bbfd3f37ap+0, -0x1.2dfcd978e9db4p-55},
    {0x1.ae89f995ad3adp+0, 0x1.c1a7792cb3387p-55},
    {0x1.b0e07298db666p+0, -0x1.07b8f4ad1d9fap-54},
    {0x1.b33a2b84f15fbp+0, -0x1.5c3d956dcaebap-58},
    {0x1.b59728de5593ap+0, -0x1.0a40e3da6f640p-54},
    {0x1.b7f76f2fb5e47p+0, -0x1.8d6f438ad9334p-57},
    {0x1.ba5b030a1064ap+0, -0x1.1eee26b588a35p-54},
    {0x1.bcc1e904bc1d2p+0, 0x1.4ffd70a5fddcdp-56},
    {0x1.bf2c25bd71e09p+0, -0x1.1bdfbfa9298acp-54},
    {0x1.c199bdd85529cp+0, 0x1.36eae30af0cb3p-56},
    {0x1.c40ab5fffd07ap+0, 0x1.ee3325c9ffd94p-55},
    {0x1.c67f12e57d14bp+0, 0x1.4e08fd10959acp-55},
    {0x1.c8f6d9406e7b5p+0, 0x1.3cdaf384e1a67p-57},
    {0x1.cb720dcef9069p+0, 0x1.76b2c6c921968p-57},
    {0x1.cdf0b555dc3fap+0, -0x1.08a1883ccb5d2p-55},
    {0x1.d072d4a07897cp+0, -0x1.fad5d3ffffa6fp-55},
    {0x1.d2f87080d89f2p+0, -0x1.00dae3875a949p-54},
    {0x1.d5818dcfba487p+0, 0x1.4a385a63d07a7p-56},
    {0x1.d80e316c98398p+0, -0x1.2919e2040220fp-55},
    {0x1.da9e603db3285p+0, 0x1.e5a50d5c192acp-55},
    {0x1.dd321f301b460p+0, 0x1.43a59ac016b4bp-55},
    {0x1.dfc97337b9b5fp+0, -0x1.2d52107b43e1fp-55},
    {0x1.e264614f5a129p+0, -0x1.92ab93b470dc9p-55},
    {0x1.e502ee78b3ff6p+0, 0x1.4b604603a88d3p-56},
    {0x1.e7a51fbc74c83p+0, 0x1.3c5ec519d7271p-55},
    {0x1.ea4afa2a490dap+0, -0x1.ff7128fd391f0p-55},
    {0x1.ecf482d8e67f1p+0, -0x1.dae98e223747dp-55},
    {0x1.efa1bee615a27p+0, 0x1.ec3bc41aa2008p-55},
    {0x1.f252b376bba97p+0, 0x1.42b94c3a9eb32p-55},
    {0x1.f50765b6e4540p+0, 0x1.a64a931d185eep-55},
    {0x1.f7bfdad9cbe14p+0, -0x1.e37bae43be3edp-55},
    {0x1.fa7c1819e90d8p+0, 0x1.7893b4d91cd9dp-56},
    {0x1.fd3c22b8f71f1p+0, 0x1.305c14160cc89p-58},
};

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

static inline double fastnb_exp(double x) {
    const double* row;
    double v, shifted, k, r, rr, tmp, y;
    uint64_t bits, biased, half;
    /* (clamped: the lanes of out-of-range values compute something finite,
       replaced below) */
    v = x < FASTNB_EXP_LOWEST ? FASTNB_EXP_LOWEST : x;
    v = v > FASTNB_EXP_HIGHEST ? FASTNB_EXP_HIGHEST : v;
    shifted = v * FASTNB_EXP_N_LN2 + FASTNB_EXP_SHIFT;
    k = shifted - FASTNB_EXP_SHIFT;
    r = (v - k * FASTNB_EXP_LN2_N_HI) - k * FASTNB_EXP_LN2_N_LO;
    bits = fastnb_exp_bits(shifted);
    row = fastnb_exp_table[bits & 127];
    rr = r * r;
    tmp = ((row[1] + r) + rr * (FASTNB_EXP_C2 + r * FASTNB_EXP_C3))
          + (rr * rr) * (FASTNB_EXP_C4 + r * FASTNB_EXP_C5);
    y = row[0] + row[0] * tmp;
    /* 2**n as 2**(half - 1023) * 2**(biased - half - 1023), both normal for n
       in [-1077, 1024] */
    biased = (bits >> 7) & 4095;
    half = biased >> 1;
    y = (y * fastnb_exp_as_double(half << 52))
        * fastnb_exp_as_double((biased - half) << 52);
    if (x < FASTNB_EXP_LOWEST) return 0.0;
    if (x > FASTNB_EXP_HIGHEST) return INFINITY;
    if (x != x) return x;
    return y;
}

#if defined(__AVX2__)
#include <immintrin.h>

/* the rows j = bits & 127 of 4 lanes: H and tail */
static inline void fastnb_exp_rows4(__m256i bits, __m256d* head, __m256d* tail) {
    /* four 16-byte rows, transposed (two gathers, _mm256_i64gather_pd, were
       ~25% slower a value on AMD EPYC) */
    __m256i j = _mm256_and_si256(bits, _mm256_set1_epi64x(127));
    __m128i j01 = _mm256_castsi256_si128(j), j23 = _mm256_extracti128_si256(j, 1);
    __m256d rows02, rows13;
    rows02 = _mm256_insertf128_pd(
        _mm256_castpd128_pd256(_mm_load_pd(fastnb_exp_table[_mm_cvtsi128_si64(j01)])),
        _mm_load_pd(fastnb_exp_table[_mm_cvtsi128_si64(j23)]), 1);
    rows13 = _mm256_insertf128_pd(
        _mm256_castpd128_pd256(_mm_load_pd(fastnb_exp_table[_mm_extract_epi64(j01, 1)])),
        _mm_load_pd(fastnb_exp_table[_mm_extract_epi64(j23, 1)]), 1);
    *head = _mm256_unpacklo_pd(rows02, rows13);
    *tail = _mm256_unpackhi_pd(rows02, rows13);
}

/* H (1 + tmp) of 4 lanes, before the scaling by 2**n; the sum's bits in
   *bits */
static inline __m256d fastnb_exp4_unscaled(__m256d v, __m256i* bits) {
    const __m256d shift = _mm256_set1_pd(FASTNB_EXP_SHIFT);
    __m256d shifted, k, r, rr, head, tail, tmp;
    shifted = _mm256_add_pd(_mm256_mul_pd(v, _mm256_set1_pd(FASTNB_EXP_N_LN2)), shift);
    k = _mm256_sub_pd(shifted, shift);
    r = _mm256_sub_pd(
        _mm256_sub_pd(v, _mm256_mul_pd(k, _mm256_set1_pd(FASTNB_EXP_LN2_N_HI))),
        _mm256_mul_pd(k, _mm256_set1_pd(FASTNB_EXP_LN2_N_LO)));
    *bits = _mm256_castpd_si256(shifted);
    fastnb_exp_rows4(*bits, &head, &tail);
    rr = _mm256_mul_pd(r, r);
    tmp = _mm256_add_pd(_mm256_add_pd(tail, r), _mm256_mul_pd(rr, _mm256_add_pd(
        _mm256_set1_pd(FASTNB_EXP_C2), _mm256_mul_pd(r, _mm256_set1_pd(FASTNB_EXP_C3)))));
    tmp = _mm256_add_pd(tmp, _mm256_mul_pd(_mm256_mul_pd(rr, rr), _mm256_add_pd(
        _mm256_set1_pd(FASTNB_EXP_C4), _mm256_mul_pd(r, _mm256_set1_pd(FASTNB_EXP_C5)))));
    return _mm256_add_pd(head, _mm256_mul_pd(head, tmp));
}

/* fastnb_exp of 4 lanes: the same operations in the same order */
static inline __m256d fastnb_exp4(__m256d x) {
    const __m256d lowest = _mm256_set1_pd(FASTNB_EXP_LOWEST);
    const __m256d highest = _mm256_set1_pd(FASTNB_EXP_HIGHEST);
    __m256d v, y, low, high, nan;
    __m256i bits, biased, half;
    low = _mm256_cmp_pd(x, lowest, _CMP_LT_OQ);
    high = _mm256_cmp_pd(x, highest, _CMP_GT_OQ);
    nan = _mm256_cmp_pd(x, x, _CMP_UNORD_Q);
    v = _mm256_blendv_pd(x, lowest, low);
    v = _mm256_blendv_pd(v, highest, high);
    y = fastnb_exp4_unscaled(v, &bits);
    biased = _mm256_and_si256(_mm256_srli_epi64(bits, 7), _mm256_set1_epi64x(4095));
    half = _mm256_srli_epi64(biased, 1);
    y = _mm256_mul_pd(
        _mm256_mul_pd(y, _mm256_castsi256_pd(_mm256_slli_epi64(half, 52))),
        _mm256_castsi256_pd(_mm256_slli_epi64(_mm256_sub_epi64(biased, half), 52)));
    y = _mm256_blendv_pd(y, _mm256_setzero_pd(), low);
    y = _mm256_blendv_pd(y, _mm256_set1_pd(INFINITY), high);
    return _mm256_blendv_pd(y, x, nan);
}

/* fastnb_exp4 of lanes all in [FASTNB_EXP_NORMAL_FROM, 0] (no NaN), whose
   results are normal (n >= -1022, and y >= 1 where n = -1022): no clamps, and
   2**n in one factor (exact, as the two halves are): the same bits in fewer
   operations */
#define FASTNB_EXP_NORMAL_FROM -708.0
static inline __m256d fastnb_exp4_normal(__m256d v) {
    __m256i bits, power;
    __m256d y = fastnb_exp4_unscaled(v, &bits);
    /* ((n + 2046) << 52) - (1023 << 52): the bits of 2**n */
    power = _mm256_sub_epi64(_mm256_slli_epi64(_mm256_srli_epi64(bits, 7), 52),
                             _mm256_set1_epi64x((int64_t)1023 << 52));
    return _mm256_mul_pd(y, _mm256_castsi256_pd(power));
}

/* fastnb_exp4 of 4 soft-max terms (v <= 0 mostly): by fastnb_exp4_normal
   where all 4 allow it */
static inline __m256d fastnb_exp4_below(__m256d v) {
    /* (false for NaN) */
    __m256d inside = _mm256_and_pd(
        _mm256_cmp_pd(v, _mm256_set1_pd(FASTNB_EXP_NORMAL_FROM), _CMP_GE_OQ),
        _mm256_cmp_pd(v, _mm256_setzero_pd(), _CMP_LE_OQ));
    return _mm256_movemask_pd(inside) == 15 ? fastnb_exp4_normal(v) : fastnb_exp4(v);
}
#endif

/* out[i] = fastnb_exp(x[i] - top) for i < n (x == out allowed), for a
   soft-max's terms (x[i] <= top, mostly): 4 at a time by fastnb_exp4_below in
   the AVX2 build, by the scalar function in the portable one (the same bits) */
static inline void fastnb_exps_below(const double* x, ptrdiff_t n, double top,
                                     double* out) {
#if defined(__AVX2__)
    const __m256d top4 = _mm256_set1_pd(top);
    __m256d last;
    double rest[4];
    ptrdiff_t i;
    if (n >= 4) {
        /* the last 4 values first, stored last (so x == out works): where they
           overlap the loop's last vector, its lanes get the same bits */
        last = fastnb_exp4_below(_mm256_sub_pd(_mm256_loadu_pd(x + n - 4), top4));
        for (i = 0; i < n - 4; i += 4)
            _mm256_storeu_pd(out + i, fastnb_exp4_below(
                _mm256_sub_pd(_mm256_loadu_pd(x + i), top4)));
        _mm256_storeu_pd(out + n - 4, last);
    } else if (n > 0) {
        /* 1-3 values padded with top (exp 0 = 1, dropped): one vector costs
           less than 1-3 scalar exps */
        _mm256_storeu_pd(rest, fastnb_exp4_below(_mm256_sub_pd(_mm256_setr_pd(
            x[0], n > 1 ? x[1] : top, n > 2 ? x[2] : top, top), top4)));
        out[0] = rest[0];
        if (n > 1) out[1] = rest[1];
        if (n > 2) out[2] = rest[2];
    }
#else
    ptrdiff_t i;
    for (i = 0; i < n; i++)
        out[i] = fastnb_exp(x[i] - top);
#endif
}

/* out[i] = fastnb_exp(x[i]) for i < n (x == out allowed): 4 at a time by
   fastnb_exp4 in the AVX2 build, by the scalar function in the portable one
   (the same bits) */
static inline void fastnb_exps(const double* x, ptrdiff_t n, double* out) {
#if defined(__AVX2__)
    __m256d last;
    double rest[4];
    ptrdiff_t i;
    if (n >= 4) {
        /* as in fastnb_exps_below */
        last = fastnb_exp4(_mm256_loadu_pd(x + n - 4));
        for (i = 0; i < n - 4; i += 4)
            _mm256_storeu_pd(out + i, fastnb_exp4(_mm256_loadu_pd(x + i)));
        _mm256_storeu_pd(out + n - 4, last);
    } else if (n > 0) {
        /* 1-3 values padded with 0 (exp 0 = 1, dropped) */
        _mm256_storeu_pd(rest, fastnb_exp4(_mm256_setr_pd(
            x[0], n > 1 ? x[1] : 0.0, n > 2 ? x[2] : 0.0, 0.0)));
        out[0] = rest[0];
        if (n > 1) out[1] = rest[1];
        if (n > 2) out[2] = rest[2];
    }
#else
    ptrdiff_t i;
    for (i = 0; i < n; i++)
        out[i] = fastnb_exp(x[i]);
#endif
}

#endif
