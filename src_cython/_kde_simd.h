/* KernelDensityNB's predict terms, included by _kde_kernels.pyx (both builds:
   the AVX2 one compiles the vector path).

   kde_feature_term is the one formula of a feature's term (inspection and
   predict's exceptions call it). kde_row_terms adds a row's terms, feature
   by feature (j = 0, 1, ...), to the classes' scores. A feature whose
   predict grid is shared by the classes (one spacing and origin) has a
   class-interleaved table: node i's k log densities, then their k steps to
   node i + 1 (padded to kp lanes, the padding zero), so one index reads
   every class's (value, step) and the classes' multiply-adds are one vector
   operation. Each lane is the scalar code's arithmetic, operation for
   operation (no FMA: -std=c11 does not contract), so both builds, and
   kde_feature_term, give the same bits. */
#ifndef FASTNB_KDE_SIMD_H
#define FASTNB_KDE_SIMD_H
#include <stddef.h>
#include <stdint.h>
#include <math.h>

typedef struct {
    ptrdiff_t k, kp, d, n_nodes;
    const double* fast;        /* (d, 2) shared (1 / spacing, origin); (0, 1):
                                  not shared, t = -1 sends it to the scalar code */
    const double* table;       /* (d, n_nodes, 2 kp) */
    const double* class_inv_width;  /* (d, kp) a feature whose classes keep their */
    const double* class_origin;     /* own grids: theirs (0 on padding lanes), */
    const int64_t* class_base;      /* and where each grid starts in grid */
    const double* inv_width;   /* (k, d) each class's grid, as kde_feature_term's */
    const double* origin;
    const double* start;
    const double* stop;
    const double* grid;        /* (k, d, n_nodes) */
    const double* slope_low;
    const double* slope_high;
    const double* curvature;
    double floor_;
} KdeModel;

/* Feature j's term of a class for a finite value v: with t = v / w - origin,
   0 <= t <= n - 1: grid[i] + (t - i) (grid[i + 1] - grid[i]), i = floor(t)
   (n - 2 at the top node); past an end node e (u = v - e): the Gaussian
   tail grid[end] + slope u - curvature u**2, at least floor_. */
static inline double kde_feature_term(
        double v, double inv_width, double origin, double start, double stop,
        const double* row, double slope_low, double slope_high, double curvature,
        ptrdiff_t n_nodes, double floor_) {
    double top = (double)(n_nodes - 1);
    double t = v * inv_width - origin;
    double clamped = t > 0.0 ? t : 0.0;
    ptrdiff_t i;
    double g, u, term;
    clamped = clamped < top ? clamped : top;
    i = (ptrdiff_t)clamped;
    i = i < n_nodes - 2 ? i : n_nodes - 2;
    g = row[i];
    if (clamped == t)
        return g + (t - (double)i) * (row[i + 1] - g);
    if (t < 0.0) {
        u = v - start;
        term = row[0] + slope_low * u - curvature * u * u;
    } else {
        u = v - stop;
        term = row[n_nodes - 1] + slope_high * u - curvature * u * u;
    }
    return term > floor_ ? term : floor_;
}

/* Every class's term of feature j for v (finite), into terms[0:k]: the
   rare path (past the shared grid, or a feature whose classes keep their
   own grids). */
static inline void kde_class_terms(const KdeModel* m, ptrdiff_t j, double v,
                                   double* terms) {
    for (ptrdiff_t c = 0; c < m->k; c++) {
        ptrdiff_t at = c * m->d + j;
        terms[c] = kde_feature_term(
            v, m->inv_width[at], m->origin[at], m->start[at], m->stop[at],
            m->grid + at * m->n_nodes, m->slope_low[at], m->slope_high[at],
            m->curvature[at], m->n_nodes, m->floor_);
    }
}

/* The portable loop (and the AVX2 build's for kp > 8): acc (kp) zeroed
   here; returns whether the row holds an infinite value (it adds nothing,
   as NaN). */
static inline int kde_row_terms_scalar(const KdeModel* m, const double* x,
                                       double* acc, double* terms) {
    const ptrdiff_t k = m->k, kp = m->kp;
    const double top = (double)(m->n_nodes - 1);
    int infinite = 0;
    for (ptrdiff_t c = 0; c < kp; c++)
        acc[c] = 0.0;
    for (ptrdiff_t j = 0; j < m->d; j++) {
        double v = x[j];
        double t = v * m->fast[2 * j] - m->fast[2 * j + 1];
        if (t >= 0.0 && t < top) {
            ptrdiff_t i = (ptrdiff_t)t;
            double f = t - (double)i;
            const double* e = m->table + (j * m->n_nodes + i) * 2 * kp;
            for (ptrdiff_t c = 0; c < k; c++)
                acc[c] = acc[c] + (e[c] + f * e[kp + c]);
            continue;
        }
        if (!(v - v == 0.0)) {      /* NaN or infinite: missing */
            infinite |= (v == INFINITY) | (v == -INFINITY);
            continue;
        }
        kde_class_terms(m, j, v, terms);
        for (ptrdiff_t c = 0; c < k; c++)
            acc[c] = acc[c] + terms[c];
    }
    return infinite;
}

#if defined(__AVX2__)
#include <immintrin.h>

/* kp = 4, 8, 12 or 16 lanes (k <= 16) in registers across the row. A
   feature whose classes keep their own grids computes every class's
   position in lanes too, and gathers their two nodes' values (unless one
   lies past its grid: then kde_feature_term per class). */
#define KDE_LANE(Q, LANES, OP) if (LANES > 4 * Q) { OP; }
#define KDE_ROW_TERMS_AVX(NAME, LANES)                                          \
static inline int NAME(const KdeModel* m, const double* x, double* acc,         \
                       double* terms) {                                         \
    const double top = (double)(m->n_nodes - 1);                                \
    const __m256d vtop = _mm256_set1_pd(top);                                   \
    const __m256d vzero = _mm256_setzero_pd();                                  \
    const ptrdiff_t node_stride = 2 * LANES;                                    \
    const ptrdiff_t feature_stride = m->n_nodes * node_stride;                  \
    __m256d a0 = vzero, a1 = vzero, a2 = vzero, a3 = vzero;                     \
    int infinite = 0;                                                           \
    for (ptrdiff_t c = 0; c < LANES; c++)                                       \
        terms[c] = 0.0;                                                         \
    for (ptrdiff_t j = 0; j < m->d; j++) {                                      \
        double v = x[j];                                                        \
        double t = v * m->fast[2 * j] - m->fast[2 * j + 1];                     \
        if (t >= 0.0 && t < top) {                                              \
            ptrdiff_t i = (ptrdiff_t)t;                                         \
            __m256d f = _mm256_set1_pd(t - (double)i);                          \
            const double* e = m->table + j * feature_stride + i * node_stride;  \
            KDE_LANE(0, LANES, a0 = _mm256_add_pd(a0, _mm256_add_pd(            \
                _mm256_loadu_pd(e), _mm256_mul_pd(f, _mm256_loadu_pd(e + LANES)))))  \
            KDE_LANE(1, LANES, a1 = _mm256_add_pd(a1, _mm256_add_pd(            \
                _mm256_loadu_pd(e + 4), _mm256_mul_pd(f, _mm256_loadu_pd(e + LANES + 4))))) \
            KDE_LANE(2, LANES, a2 = _mm256_add_pd(a2, _mm256_add_pd(            \
                _mm256_loadu_pd(e + 8), _mm256_mul_pd(f, _mm256_loadu_pd(e + LANES + 8))))) \
            KDE_LANE(3, LANES, a3 = _mm256_add_pd(a3, _mm256_add_pd(            \
                _mm256_loadu_pd(e + 12), _mm256_mul_pd(f, _mm256_loadu_pd(e + LANES + 12))))) \
            continue;                                                           \
        }                                                                       \
        if (!(v - v == 0.0)) {      /* NaN or infinite: missing */              \
            infinite |= (v == INFINITY) | (v == -INFINITY);                     \
            continue;                                                           \
        }                                                                       \
        if (m->fast[2 * j] == 0.0) {                                            \
            const __m256d vv = _mm256_set1_pd(v);                               \
            const double* iw = m->class_inv_width + j * LANES;                  \
            const double* og = m->class_origin + j * LANES;                     \
            const int64_t* at = m->class_base + j * LANES;                      \
            __m256d t0 = vzero, t1 = vzero, t2 = vzero, t3 = vzero;             \
            __m256d in = _mm256_castsi256_pd(_mm256_set1_epi64x(-1));           \
            KDE_LANE(0, LANES, t0 = _mm256_sub_pd(_mm256_mul_pd(vv, _mm256_loadu_pd(iw)), _mm256_loadu_pd(og)); \
                in = _mm256_and_pd(in, _mm256_and_pd(_mm256_cmp_pd(t0, vzero, _CMP_GE_OQ), _mm256_cmp_pd(t0, vtop, _CMP_LT_OQ)))) \
            KDE_LANE(1, LANES, t1 = _mm256_sub_pd(_mm256_mul_pd(vv, _mm256_loadu_pd(iw + 4)), _mm256_loadu_pd(og + 4)); \
                in = _mm256_and_pd(in, _mm256_and_pd(_mm256_cmp_pd(t1, vzero, _CMP_GE_OQ), _mm256_cmp_pd(t1, vtop, _CMP_LT_OQ)))) \
            KDE_LANE(2, LANES, t2 = _mm256_sub_pd(_mm256_mul_pd(vv, _mm256_loadu_pd(iw + 8)), _mm256_loadu_pd(og + 8)); \
                in = _mm256_and_pd(in, _mm256_and_pd(_mm256_cmp_pd(t2, vzero, _CMP_GE_OQ), _mm256_cmp_pd(t2, vtop, _CMP_LT_OQ)))) \
            KDE_LANE(3, LANES, t3 = _mm256_sub_pd(_mm256_mul_pd(vv, _mm256_loadu_pd(iw + 12)), _mm256_loadu_pd(og + 12)); \
                in = _mm256_and_pd(in, _mm256_and_pd(_mm256_cmp_pd(t3, vzero, _CMP_GE_OQ), _mm256_cmp_pd(t3, vtop, _CMP_LT_OQ)))) \
            if (_mm256_movemask_pd(in) == 0xF) {                                \
                KDE_LANE(0, LANES, a0 = _mm256_add_pd(a0, kde_gathered_terms(m->grid, t0, at))) \
                KDE_LANE(1, LANES, a1 = _mm256_add_pd(a1, kde_gathered_terms(m->grid, t1, at + 4))) \
                KDE_LANE(2, LANES, a2 = _mm256_add_pd(a2, kde_gathered_terms(m->grid, t2, at + 8))) \
                KDE_LANE(3, LANES, a3 = _mm256_add_pd(a3, kde_gathered_terms(m->grid, t3, at + 12))) \
                continue;                                                       \
            }                                                                   \
        }                                                                       \
        /* (the padding lanes add 0.0) */                                       \
        kde_class_terms(m, j, v, terms);                                        \
        KDE_LANE(0, LANES, a0 = _mm256_add_pd(a0, _mm256_loadu_pd(terms)))      \
        KDE_LANE(1, LANES, a1 = _mm256_add_pd(a1, _mm256_loadu_pd(terms + 4)))  \
        KDE_LANE(2, LANES, a2 = _mm256_add_pd(a2, _mm256_loadu_pd(terms + 8)))  \
        KDE_LANE(3, LANES, a3 = _mm256_add_pd(a3, _mm256_loadu_pd(terms + 12))) \
    }                                                                           \
    KDE_LANE(0, LANES, _mm256_storeu_pd(acc, a0))                               \
    KDE_LANE(1, LANES, _mm256_storeu_pd(acc + 4, a1))                           \
    KDE_LANE(2, LANES, _mm256_storeu_pd(acc + 8, a2))                           \
    KDE_LANE(3, LANES, _mm256_storeu_pd(acc + 12, a3))                          \
    return infinite;                                                            \
}

/* Four classes' terms at positions t (each in [0, n - 1)), their grids
   starting at grid + at[c]: g + (t - i) (g' - g), i = floor(t), g and g'
   the values at nodes i and i + 1 (kde_feature_term's arithmetic). Four
   16-byte loads and two unpacks: faster than two vgatherqpd on the AMD
   EPYC measured. */
static inline __m256d kde_gathered_terms(const double* grid, __m256d t,
                                         const int64_t* at) {
    __m128i i = _mm256_cvttpd_epi32(t);
    int node[4];
    _mm_storeu_si128((__m128i*)node, i);
    __m256d p02 = _mm256_insertf128_pd(
        _mm256_castpd128_pd256(_mm_loadu_pd(grid + at[0] + node[0])),
        _mm_loadu_pd(grid + at[2] + node[2]), 1);
    __m256d p13 = _mm256_insertf128_pd(
        _mm256_castpd128_pd256(_mm_loadu_pd(grid + at[1] + node[1])),
        _mm_loadu_pd(grid + at[3] + node[3]), 1);
    __m256d g = _mm256_unpacklo_pd(p02, p13);
    __m256d next = _mm256_unpackhi_pd(p02, p13);
    __m256d f = _mm256_sub_pd(t, _mm256_cvtepi32_pd(i));
    return _mm256_add_pd(g, _mm256_mul_pd(f, _mm256_sub_pd(next, g)));
}

KDE_ROW_TERMS_AVX(kde_row_terms_4, 4)
KDE_ROW_TERMS_AVX(kde_row_terms_8, 8)
KDE_ROW_TERMS_AVX(kde_row_terms_12, 12)
KDE_ROW_TERMS_AVX(kde_row_terms_16, 16)
#undef KDE_ROW_TERMS_AVX
#undef KDE_LANE

#if defined(_MSC_VER)
#define KDE_ALWAYS_INLINE __forceinline
#else
#define KDE_ALWAYS_INLINE inline __attribute__((always_inline))
#endif
/* (inlined into the row loop: called, it cost the shared path ~25%) */
static KDE_ALWAYS_INLINE int kde_row_terms(const KdeModel* m, const double* x,
                                           double* acc, double* terms) {
    switch (m->kp) {
    case 4: return kde_row_terms_4(m, x, acc, terms);
    case 8: return kde_row_terms_8(m, x, acc, terms);
    case 12: return kde_row_terms_12(m, x, acc, terms);
    case 16: return kde_row_terms_16(m, x, acc, terms);
    default: return kde_row_terms_scalar(m, x, acc, terms);
    }
}
#else
static inline int kde_row_terms(const KdeModel* m, const double* x, double* acc,
                                double* terms) {
    return kde_row_terms_scalar(m, x, acc, terms);
}
#endif

/* The class-by-class path, for models whose features mostly keep their
   classes' own grids: a block of rows transposed feature-major (xs), and
   per class and feature one pass adding each row's term from (value, step)
   pairs (k, d, 2 n) to its score, the AVX2 build 4 rows at a time
   (kde_inside_terms); each term kde_feature_term's bits (the step is the
   next node's value less this one's). */
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


static inline void kde_add_term(
        const double* xs, double* scores, ptrdiff_t r, double inv_width,
        double origin, double start, double stop, const double* pairs,
        double slope_low, double slope_high, double curvature, ptrdiff_t n_nodes,
        double floor_) {
    const double top = (double)(n_nodes - 1);
    const int last = (int)(n_nodes - 2);
    double v = xs[r];
    double t = v * inv_width - origin;
    double clamped = t > 0.0 ? t : 0.0;
    double term, u;
    int i;     /* (int: AVX2 converts doubles to 32-bit indices) */
    clamped = clamped < top ? clamped : top;
    i = (int)clamped;
    i = i < last ? i : last;
    term = pairs[2 * i] + (t - (double)i) * pairs[2 * i + 1];
    if (clamped != t) {
        /* past the grid (rare), or NaN / infinite: missing, adds nothing */
        if (!(v - v == 0.0))
            return;
        if (t < 0.0) {
            u = v - start;
            term = pairs[0] + slope_low * u - curvature * u * u;
        } else {
            u = v - stop;
            term = pairs[2 * (n_nodes - 1)] + slope_high * u - curvature * u * u;
        }
        term = term > floor_ ? term : floor_;
    }
    scores[r] = scores[r] + term;
}

/* Feature j's terms of one class for the block's m rows, added to scores. */
static inline void kde_add_feature_terms(
        const double* xs, double* scores, ptrdiff_t m, double inv_width,
        double origin, double start, double stop, const double* pairs,
        double slope_low, double slope_high, double curvature, ptrdiff_t n_nodes,
        double floor_) {
    ptrdiff_t m4 = KDE_SIMD_WIDTH ? m - m % 4 : 0;
    unsigned long long outside = kde_inside_terms(
        xs, scores, inv_width, origin, (double)(n_nodes - 1), (int)(n_nodes - 2),
        pairs, m4);
    while (outside) {
        /* (the SIMD rows left to the scalar code, lowest first) */
        ptrdiff_t r = kde_lowest_bit(outside);
        outside &= outside - 1;
        kde_add_term(xs, scores, r, inv_width, origin, start, stop, pairs, slope_low,
                     slope_high, curvature, n_nodes, floor_);
    }
    for (ptrdiff_t r = m4; r < m; r++)
        kde_add_term(xs, scores, r, inv_width, origin, start, stop, pairs, slope_low,
                     slope_high, curvature, n_nodes, floor_);
}

#endif
