"""KernelDensityNB loop kernels: the value range of each feature, the one-pass
fit of linearly binned histograms and moments, the log-density grid, and the
fused predictor.

Grid. Each class c and feature j has its own grid: the integer multiples of
a width w_cj = 2**m_cj, ``n_bins`` nodes from ``origin_cj`` (an integer) on. A
value x is linearly binned: with t = x / w_cj - origin_cj (x / w_cj exact:
w_cj is a power of two), its weight goes to node floor(t) times 1 - frac(t)
and to the next node times frac(t). The Python layer picks the grid so that
every value fitted lies within it (see fastnb/_kde/_grid.py).

Fit. As ``_parametric_kernels``: the rows are cut into ``n_chunks`` chunks
whose number depends only on the data's shape; each chunk accumulates its own
per-class histograms and per-feature Welford moments, merged in chunk order
(sums, and Chan's formula), so the result is the same bits for any number of
threads. NaN is missing: it adds nothing.

Density. For each histogram (a class and feature), the log of
sum_b W_b N(x_i; node_b, h**2) / W at each node x_i, summed in log space
shifted by the largest term; and the slope of that log density at the first
and the last node (the posterior mean of the nodes, less x, over h**2), which
continues it past the grid as a Gaussian tail.

Predict. A block of 64 rows at a time: the block is transposed into
scratch (double, feature-major) noting infinite values; then per class and
feature one pass over the block adds the interpolated grid (a
(value, step) pair per node, one gather and one multiply-add) to the rows'
scores. No n x d temporary.
"""

from cython.parallel cimport prange
from libc.math cimport exp, log, floor, sqrt, INFINITY, NAN, M_PI

from _common cimport (
    intp_t, floating, block_start, block_scratch_bytes, consider_class,
    finish_scores, MODE_ARGMAX,
)
from _gaussian cimport (
    welford_update_row_missing, unshift_mean, chan_merge_feature_moments,
)

import numpy as np

# The lowest log density one feature's term may take: far past the grid the
# Gaussian tail falls below any float; clipped here, every score stays finite
# (a row sums d of them).
cdef double FLOOR = -1e250
LOG_DENSITY_FLOOR = FLOOR


# -- ranges ---------------------------------------------------------------------------

def feature_ranges(const floating[:, ::1] X, const intp_t[::1] codes,
                   const double[::1] sample_weight, Py_ssize_t n_classes):
    """(low, high, seen, n_infinite): the smallest and largest non-NaN value of
    each (class, feature) ((k, d) arrays) over the rows of positive weight
    (a row of weight 0 is left out, as if it were not there), 1.0 where the
    class has one (else 0, and low = high = 0), and how many values of X are
    infinite."""
    cdef Py_ssize_t n = X.shape[0]
    cdef Py_ssize_t d = X.shape[1]
    cdef Py_ssize_t i, j, base
    cdef double v
    cdef bint taken
    cdef Py_ssize_t n_infinite = 0
    cdef const double* weights = NULL
    if sample_weight is not None:
        weights = &sample_weight[0]
    low_arr = np.full((n_classes, d), np.inf)
    high_arr = np.full((n_classes, d), -np.inf)
    seen_arr = np.zeros((n_classes, d))
    cdef double[:, ::1] low = low_arr
    cdef double[:, ::1] high = high_arr
    cdef double[:, ::1] seen = seen_arr
    with nogil:
        for i in range(n):
            base = codes[i]
            taken = weights == NULL or weights[i] > 0.0
            for j in range(d):
                v = X[i, j]
                n_infinite += (v == INFINITY) | (v == -INFINITY)
                if taken:
                    low[base, j] = v if v < low[base, j] else low[base, j]
                    high[base, j] = v if v > high[base, j] else high[base, j]
        for i in range(n_classes):
            for j in range(d):
                if low[i, j] > high[i, j]:
                    low[i, j] = 0.0
                    high[i, j] = 0.0
                else:
                    seen[i, j] = 1.0
    return low_arr, high_arr, seen_arr, n_infinite


# -- fit ------------------------------------------------------------------------------

cdef void accumulate_chunk(
    const floating[:, ::1] X,
    const intp_t[::1] codes,
    const double* weights,        # NULL when unweighted
    const double* inv_width,      # (k, d) 1 / w_cj, a power of two
    const double* origin,         # (k, d) the grid's first node index
    Py_ssize_t n_bins,
    Py_ssize_t row_start,
    Py_ssize_t row_stop,
    double* row,                  # SCRATCH: d values
    double* row_count,            # OUT: (k,)
    double* count,                # OUT: (k, d)
    double* mean,                 # OUT: (k, d)
    double* ssd,                  # OUT: (k, d)
    double* shift,                # SCRATCH: (k, d), zeroed
    double* hist,                 # OUT: (k, d, n_bins)
    Py_ssize_t k,
    Py_ssize_t d,
) noexcept nogil:
    cdef Py_ssize_t i, j, slot, node, base
    cdef double w, v, t, frac
    cdef double* h
    for i in range(row_start, row_stop):
        slot = codes[i]
        base = slot * d
        w = 1.0 if weights == NULL else weights[i]
        row_count[slot] += w
        for j in range(d):
            row[j] = X[i, j]
        if w > 0.0:
            welford_update_row_missing(row, w, &count[base], &shift[base],
                                       &mean[base], &ssd[base], d)
        for j in range(d):
            v = row[j]
            if v != v or w <= 0.0:
                continue      # (a row of weight 0 is outside the grid's range)
            t = v * inv_width[base + j] - origin[base + j]
            frac = floor(t)
            node = <Py_ssize_t>frac
            # (the grid holds every fitted value; rounding at its top edge)
            if node > n_bins - 2:
                node = n_bins - 2
            if node < 0:
                node = 0
            frac = t - <double>node
            frac = 0.0 if frac < 0.0 else (1.0 if frac > 1.0 else frac)
            h = &hist[(base + j) * n_bins + node]
            h[0] += w * (1.0 - frac)
            h[1] += w * frac
    for slot in range(k):
        unshift_mean(&shift[slot * d], &mean[slot * d], d)


cdef void accumulate_chunks(
    const floating[:, ::1] X,
    const intp_t[::1] codes,
    const double* weights,
    const double* inv_width,
    const double* origin,
    Py_ssize_t n_bins,
    Py_ssize_t n_chunks,
    Py_ssize_t first_chunk,
    Py_ssize_t stop_chunk,
    double* row,
    double[:, ::1] chunk_rows,
    double[:, ::1] chunk_count,
    double[:, ::1] chunk_mean,
    double[:, ::1] chunk_ssd,
    double[:, ::1] chunk_shift,
    double[:, ::1] chunk_hist,
    Py_ssize_t k,
) noexcept nogil:
    cdef Py_ssize_t chunk
    cdef Py_ssize_t n = X.shape[0]
    for chunk in range(first_chunk, stop_chunk):
        accumulate_chunk(
            X, codes, weights, inv_width, origin, n_bins,
            block_start(chunk, n_chunks, n), block_start(chunk + 1, n_chunks, n),
            row, &chunk_rows[chunk, 0], &chunk_count[chunk, 0], &chunk_mean[chunk, 0],
            &chunk_ssd[chunk, 0], &chunk_shift[chunk, 0], &chunk_hist[chunk, 0],
            k, X.shape[1])


def kde_fit(
    const floating[:, ::1] X,          # IN: (n, d), NaN = missing, all within the grid
    const intp_t[::1] codes,           # IN: (n,) class index of each row
    const double[::1] sample_weight,   # IN: (n,) or None
    Py_ssize_t n_classes,
    const double[:, ::1] inv_width,    # IN: (k, d) 1 / w_cj
    const double[:, ::1] origin,       # IN: (k, d) first node index of each grid
    Py_ssize_t n_bins,
    Py_ssize_t n_chunks,
    int n_threads,
):
    """Per-class linearly binned histograms and moments in one pass.

    Returns ``(row_count, count, mean, ssd, hist)``: (k,), (k, d) x3 and
    (k, d, n_bins). The result does not depend on ``n_threads``.
    """
    cdef Py_ssize_t d = X.shape[1]
    cdef Py_ssize_t k = n_classes
    cdef Py_ssize_t chunk, slot, block, n_blocks, b, kd
    cdef const double* weights = NULL
    if sample_weight is not None:
        weights = &sample_weight[0]
    if n_chunks < 1:
        n_chunks = 1
    n_blocks = min(max(n_threads, 1), n_chunks)
    cdef Py_ssize_t scratch = block_scratch_bytes(max(d, 1) * 8) // 8
    chunk_rows_arr = np.zeros((n_chunks, k), dtype=np.float64)
    chunk_count_arr = np.zeros((n_chunks, k * d), dtype=np.float64)
    chunk_mean_arr = np.zeros((n_chunks, k * d), dtype=np.float64)
    chunk_ssd_arr = np.zeros((n_chunks, k * d), dtype=np.float64)
    chunk_shift_arr = np.zeros((n_chunks, k * d), dtype=np.float64)
    chunk_hist_arr = np.zeros((n_chunks, k * d * n_bins), dtype=np.float64)
    rows_arr = np.zeros((n_blocks, scratch), dtype=np.float64)
    row_count_arr = np.zeros(k, dtype=np.float64)
    count_arr = np.zeros((k, d), dtype=np.float64)
    mean_arr = np.zeros((k, d), dtype=np.float64)
    ssd_arr = np.zeros((k, d), dtype=np.float64)
    hist_arr = np.zeros((k, d, n_bins), dtype=np.float64)
    cdef double[:, ::1] chunk_rows = chunk_rows_arr
    cdef double[:, ::1] chunk_count = chunk_count_arr
    cdef double[:, ::1] chunk_mean = chunk_mean_arr
    cdef double[:, ::1] chunk_ssd = chunk_ssd_arr
    cdef double[:, ::1] chunk_shift = chunk_shift_arr
    cdef double[:, ::1] chunk_hist = chunk_hist_arr
    cdef double[:, ::1] rows = rows_arr
    cdef double[::1] row_count = row_count_arr
    cdef double[:, ::1] count = count_arr
    cdef double[:, ::1] mean = mean_arr
    cdef double[:, ::1] ssd = ssd_arr
    cdef double[:, :, ::1] hist = hist_arr
    cdef double* flat_hist = &hist[0, 0, 0] if k * d * n_bins > 0 else NULL
    kd = k * d * n_bins
    with nogil:
        if n_blocks == 1:
            accumulate_chunks(X, codes, weights, &inv_width[0, 0], &origin[0, 0], n_bins,
                              n_chunks, 0, n_chunks, &rows[0, 0], chunk_rows,
                              chunk_count, chunk_mean, chunk_ssd, chunk_shift,
                              chunk_hist, k)
        else:
            for block in prange(n_blocks, schedule='static', num_threads=n_blocks):
                accumulate_chunks(
                    X, codes, weights, &inv_width[0, 0], &origin[0, 0], n_bins, n_chunks,
                    block_start(block, n_blocks, n_chunks),
                    block_start(block + 1, n_blocks, n_chunks), &rows[block, 0],
                    chunk_rows, chunk_count, chunk_mean, chunk_ssd, chunk_shift,
                    chunk_hist, k)
        # Fixed merge order: chunk 0, 1, 2, ...
        for chunk in range(n_chunks):
            for slot in range(k):
                row_count[slot] += chunk_rows[chunk, slot]
                chan_merge_feature_moments(
                    &count[slot, 0], &mean[slot, 0], &ssd[slot, 0],
                    &chunk_count[chunk, slot * d], &chunk_mean[chunk, slot * d],
                    &chunk_ssd[chunk, slot * d], d)
            for b in range(kd):
                flat_hist[b] += chunk_hist[chunk, b]
    return row_count_arr, count_arr, mean_arr, ssd_arr, hist_arr


# -- the log-density grid ---------------------------------------------------------------

# The kernel sum at a node keeps only the nodes whose term is within
# TRUNCATION (natural-log units) of the node's largest term: each dropped
# term is below exp(-50) ~ 2e-22 of that largest term, so at most 4096 of
# them change the sum by under 1e-18 relatively (the log density by under
# 1e-18): no visible change, but the sum runs over a window of
# ~ 2 sqrt(2 * 50) h / w nodes instead of all n_bins (a Toeplitz product
# with a truncated kernel). The end nodes' sums (and so the slopes that
# continue the density past the grid) keep every node. The largest term
# itself is searched outwards from the node until no weight can beat it.
cdef double TRUNCATION = 50.0


cdef void density_of(
    const double* log_hist,  # IN: n_bins log node weights (-inf: none)
    double scale,            # IN: w**2 / (2 h**2): the exponent per squared node step
    double log_norm,         # IN: -log(W h sqrt(2 pi))
    double slope_unit,       # IN: w / h**2: a node step of the posterior mean, in slope
    Py_ssize_t n_bins,
    double* grid,            # OUT: n_bins log densities
    double* slope_low,       # OUT: the slope at the first node
    double* slope_high,      # OUT: the slope at the last node
) noexcept nogil:
    cdef Py_ssize_t i, b, first, stop
    cdef double top, total, moment, r, term, e, largest, reach
    largest = -INFINITY
    for b in range(n_bins):
        largest = log_hist[b] if log_hist[b] > largest else largest
    for i in range(n_bins):
        # the largest term, searched outwards from node i: past a distance
        # where even the largest weight's term is below it, none is larger
        # (a max: the same value whatever the order)
        top = log_hist[i]
        b = 1
        while b < n_bins:
            r = <double>b
            if largest - scale * r * r <= top:
                break
            if i - b >= 0:
                term = log_hist[i - b] - scale * r * r
                top = term if term > top else top
            if i + b < n_bins:
                term = log_hist[i + b] - scale * r * r
                top = term if term > top else top
            b += 1
        # a node further than reach has term <= largest - scale r**2 < top - TRUNCATION
        reach = sqrt((largest - top + TRUNCATION) / scale)
        first = 0
        stop = n_bins
        if i != 0 and i != n_bins - 1 and reach < <double>n_bins:
            first = i - <Py_ssize_t>reach - 1
            first = first if first > 0 else 0
            stop = i + <Py_ssize_t>reach + 2
            stop = stop if stop < n_bins else n_bins
        total = 0.0
        moment = 0.0
        for b in range(first, stop):
            if log_hist[b] > -INFINITY:
                r = <double>(b - i)
                e = exp(log_hist[b] - scale * r * r - top)
                total += e
                moment += e * r
        grid[i] = top + log(total) + log_norm
        if i == 0:
            slope_low[0] = slope_unit * moment / total
        if i == n_bins - 1:
            slope_high[0] = slope_unit * moment / total


def kde_log_density(
    const double[:, ::1] hist,         # IN: (m, n_bins) node weights, each with mass
    const double[::1] width,           # IN: (m,) node spacing
    const double[::1] bandwidth,       # IN: (m,) h > 0
    int n_threads,
):
    """The log density of each histogram at its nodes, and its slope at the
    first and last node: ``(grid (m, n_bins), slope_low (m,), slope_high (m,))``."""
    cdef Py_ssize_t m = hist.shape[0]
    cdef Py_ssize_t n_bins = hist.shape[1]
    cdef Py_ssize_t r, b
    cdef double mass
    with np.errstate(divide="ignore"):
        log_hist_arr = np.log(hist)
    cdef const double[:, ::1] log_hist = log_hist_arr
    grid_arr = np.zeros((m, n_bins), dtype=np.float64)
    low_arr = np.zeros(m, dtype=np.float64)
    high_arr = np.zeros(m, dtype=np.float64)
    cdef double[:, ::1] grid = grid_arr
    cdef double[::1] low = low_arr
    cdef double[::1] high = high_arr
    for r in prange(m, schedule='static', num_threads=max(n_threads, 1), nogil=True):
        mass = 0.0
        for b in range(n_bins):
            mass = mass + hist[r, b]
        density_of(&log_hist[r, 0], width[r] * width[r] / (2.0 * bandwidth[r] * bandwidth[r]),
                   -log(mass * bandwidth[r] * sqrt(2.0 * M_PI)),
                   width[r] / (bandwidth[r] * bandwidth[r]), n_bins,
                   &grid[r, 0], &low[r], &high[r])
    return grid_arr, low_arr, high_arr


# -- predict ----------------------------------------------------------------------------
#
# Feature j's term in class c, for a value x with t = x / w_cj - origin_cj:
#   0 <= t <= n_bins - 1: grid[c, j, i] + f (grid[c, j, i + 1] - grid[c, j, i]),
#     i = floor(t) (n_bins - 2 at the top node), f = t - i;
#   past an end node e (at distance u = x - e):
#     grid[c, j, end] + slope[c, j] u - u**2 / (2 h_cj**2),
#   clipped below at LOG_DENSITY_FLOOR. NaN (and infinity, counted) adds nothing.

cdef inline double feature_term(
    double v,                  # a finite value
    double inv_width, double origin, double start, double stop,
    const double* row,         # (n_bins,) the grid of the class and feature
    double slope_low, double slope_high, double curvature,
    Py_ssize_t n_bins,
) noexcept nogil:
    cdef Py_ssize_t i
    cdef double t, g, u, term, clamped
    cdef double top = <double>(n_bins - 1)
    t = v * inv_width - origin
    # (no branch on the usual path: t clamped into the grid)
    clamped = t if t > 0.0 else 0.0
    clamped = clamped if clamped < top else top
    i = <Py_ssize_t>clamped
    i = i if i < n_bins - 2 else n_bins - 2
    g = row[i]
    if clamped == t:
        return g + (t - <double>i) * (row[i + 1] - g)
    if t < 0.0:
        u = v - start
        term = row[0] + slope_low * u - curvature * u * u
    else:
        u = v - stop
        term = row[n_bins - 1] + slope_high * u - curvature * u * u
    return term if term > FLOOR else FLOOR


cdef inline double class_score(
    const double* x,           # (d,) the row
    const double* inv_width,   # (d,) of the class
    const double* origin,      # (d,)
    const double* start,       # (d,) the first node's value
    const double* stop,        # (d,) the last node's value
    const double* grid,        # (d, n_bins)
    const double* slope_low,   # (d,)
    const double* slope_high,  # (d,)
    const double* curvature,   # (d,) 1 / (2 h**2)
    Py_ssize_t n_bins, Py_ssize_t d,
) noexcept nogil:
    cdef Py_ssize_t j
    cdef double total = 0.0, v
    for j in range(d):
        v = x[j]
        if not (v - v == 0.0):       # NaN or infinite: missing
            continue
        total = total + feature_term(v, inv_width[j], origin[j], start[j], stop[j],
                                     &grid[j * n_bins], slope_low[j], slope_high[j],
                                     curvature[j], n_bins)
    return total


# Predict scores a block of BLOCK_ROWS rows at a time: the block's values are
# first transposed into scratch (feature-major, as double), then for each class
# and feature one pass over the block's rows adds that feature's term to the
# rows' scores. The per (class, feature) constants are loaded once per block;
# the in-grid term is one load of a (value, step) pair (step = the next
# node's value less this one's) and one multiply-add, the tail a rare branch.
# (Computing both and selecting, branch-free, was slower: scalar code, since
# gcc 12 does not vectorise the gather.) Each term is the bits of
# feature_term's, and a row's features are summed in the same order (j = 0,
# 1, ...) then added to the log prior: the scores are kde_dense_terms' sums.
cdef enum:
    BLOCK_ROWS = 64


# The in-grid terms of 4 rows at a time in the AVX2 build (_kde_simd.h).
cdef extern from "_kde_simd.h":
    int KDE_SIMD_WIDTH
    int kde_lowest_bit(unsigned long long) noexcept nogil
    unsigned long long kde_inside_terms(
        const double* xs, double* scores, double inv_width, double origin,
        double top, int last, const double* pairs, Py_ssize_t m4) noexcept nogil


cdef inline void add_feature_terms(
    const double* xs,          # (m,) the block's values of the feature
    double* scores,            # (m,) the class's scores, added to
    double inv_width, double origin, double start, double stop,
    const double* pairs,       # (n_bins, 2) (value, step) of the class and feature
    double slope_low, double slope_high, double curvature,
    Py_ssize_t n_bins, Py_ssize_t m,
) noexcept nogil:
    cdef Py_ssize_t r
    cdef Py_ssize_t m4 = 0
    cdef unsigned long long outside
    cdef double top = <double>(n_bins - 1)
    cdef int last = <int>(n_bins - 2)
    if KDE_SIMD_WIDTH:
        m4 = m - m % KDE_SIMD_WIDTH
    outside = kde_inside_terms(xs, scores, inv_width, origin, top, last, pairs, m4)
    while outside:
        # (the SIMD rows left to the scalar code, lowest first)
        r = kde_lowest_bit(outside)
        outside = outside & (outside - 1)
        add_term(xs, scores, r, inv_width, origin, start, stop, pairs, slope_low,
                 slope_high, curvature, n_bins)
    for r in range(m4, m):
        add_term(xs, scores, r, inv_width, origin, start, stop, pairs, slope_low,
                 slope_high, curvature, n_bins)


cdef inline void add_term(
    const double* xs, double* scores, Py_ssize_t r,
    double inv_width, double origin, double start, double stop,
    const double* pairs, double slope_low, double slope_high, double curvature,
    Py_ssize_t n_bins,
) noexcept nogil:
    cdef int i        # (int: AVX2 converts doubles to 32-bit indices)
    cdef double v, t, clamped, u, term
    cdef double top = <double>(n_bins - 1)
    cdef int last = <int>(n_bins - 2)
    v = xs[r]
    t = v * inv_width - origin
    clamped = t if t > 0.0 else 0.0
    clamped = clamped if clamped < top else top
    i = <int>clamped
    i = i if i < last else last
    term = pairs[2 * i] + (t - <double>i) * pairs[2 * i + 1]
    if clamped != t:
        # past the grid (rare), or NaN / infinite: missing, adds nothing
        if not (v - v == 0.0):
            return
        if t < 0.0:
            u = v - start
            term = pairs[0] + slope_low * u - curvature * u * u
        else:
            u = v - stop
            term = pairs[2 * (n_bins - 1)] + slope_high * u - curvature * u * u
        term = term if term > FLOOR else FLOOR
    scores[r] = scores[r] + term


cdef Py_ssize_t predict_rows(
    const floating[:, ::1] X,
    const double[:, ::1] inv_width,
    const double[:, ::1] origin,
    const double[:, ::1] start,
    const double[:, ::1] stop,
    const double[:, :, ::1] pairs,     # (k, d, 2 n_bins)
    const double[:, ::1] slope_low,
    const double[:, ::1] slope_high,
    const double[:, ::1] curvature,
    const double[::1] log_prior,
    int mode,
    intp_t[::1] labels_out,
    double[:, ::1] out,
    double* scratch,           # SCRATCH: BLOCK_ROWS * (d + k) values
    Py_ssize_t row_start, Py_ssize_t row_stop,
) noexcept nogil:
    cdef Py_ssize_t i, c, j, r, m, first
    cdef Py_ssize_t n_infinite = 0
    cdef Py_ssize_t k = pairs.shape[0]
    cdef Py_ssize_t d = pairs.shape[1]
    cdef Py_ssize_t n_bins = pairs.shape[2] // 2
    cdef double* xs = scratch                      # (d, BLOCK_ROWS)
    cdef double* scores = scratch + d * BLOCK_ROWS  # (k, BLOCK_ROWS)
    cdef intp_t* label_out = NULL
    cdef double* row_out = NULL
    cdef double value, best, v
    cdef intp_t best_class
    cdef bint saw_nan
    cdef int infinite
    first = row_start
    while first < row_stop:
        m = row_stop - first if row_stop - first < BLOCK_ROWS else BLOCK_ROWS
        for r in range(m):
            infinite = 0
            for j in range(d):
                v = X[first + r, j]
                xs[j * BLOCK_ROWS + r] = v
                infinite = infinite | ((v == INFINITY) | (v == -INFINITY))
            n_infinite += infinite
        for c in range(k):
            for r in range(m):
                scores[c * BLOCK_ROWS + r] = 0.0
            for j in range(d):
                add_feature_terms(
                    &xs[j * BLOCK_ROWS], &scores[c * BLOCK_ROWS], inv_width[c, j],
                    origin[c, j], start[c, j], stop[c, j], &pairs[c, j, 0],
                    slope_low[c, j], slope_high[c, j], curvature[c, j], n_bins, m)
        for r in range(m):
            i = first + r
            if mode == MODE_ARGMAX:
                label_out = &labels_out[i]
            else:
                row_out = &out[i, 0]
            best = -INFINITY
            best_class = 0
            saw_nan = False
            for c in range(k):
                value = log_prior[c] + scores[c * BLOCK_ROWS + r]
                consider_class(value, c, &best, &best_class, &saw_nan)
                if mode != MODE_ARGMAX:
                    row_out[c] = value
            finish_scores(row_out, k, mode, label_out, best, best_class, saw_nan)
        first += BLOCK_ROWS
    return n_infinite


def kde_predict(
    const floating[:, ::1] X,          # IN: (n, d), NaN = missing
    const double[:, ::1] inv_width,    # IN: (k, d) 1 / w_cj
    const double[:, ::1] origin,       # IN: (k, d) first node index
    const double[:, ::1] start,        # IN: (k, d) first node's value
    const double[:, ::1] stop,         # IN: (k, d) last node's value
    const double[:, :, ::1] pairs,     # IN: (k, d, 2 n_bins) (log density, step to
                                       #     the next node's) at each node
    const double[:, ::1] slope_low,    # IN: (k, d)
    const double[:, ::1] slope_high,   # IN: (k, d)
    const double[:, ::1] curvature,    # IN: (k, d) 1 / (2 h**2)
    const double[::1] log_prior,       # IN: (k,)
    int mode,
    intp_t[::1] labels_out,
    double[:, ::1] out,
    int n_threads,
):
    """Fused KernelDensityNB predictor over rows; returns the number of rows
    that hold an infinite value (scored without it)."""
    cdef Py_ssize_t n = X.shape[0]
    cdef Py_ssize_t d = X.shape[1]
    cdef Py_ssize_t k = pairs.shape[0]
    cdef Py_ssize_t block
    cdef Py_ssize_t n_infinite = 0
    cdef Py_ssize_t n_blocks = max(n_threads, 1)
    cdef Py_ssize_t width_s = block_scratch_bytes(BLOCK_ROWS * (d + k) * 8) // 8
    rows_arr = np.empty((n_blocks, width_s), dtype=np.float64)
    cdef double[:, ::1] rows = rows_arr
    with nogil:
        if n_blocks == 1:
            n_infinite = predict_rows(
                X, inv_width, origin, start, stop, pairs, slope_low, slope_high,
                curvature, log_prior, mode, labels_out, out, &rows[0, 0], 0, n)
        else:
            for block in prange(n_blocks, schedule='static', num_threads=n_blocks):
                n_infinite += predict_rows(
                    X, inv_width, origin, start, stop, pairs, slope_low, slope_high,
                    curvature, log_prior, mode, labels_out, out, &rows[block, 0],
                    block_start(block, n_blocks, n), block_start(block + 1, n_blocks, n))
    return n_infinite


def kde_dense_terms(
    const floating[:, ::1] X,          # IN: (n, d), NaN = missing, finite otherwise
    const double[:, ::1] inv_width,    # IN: (k, d), and the rest as kde_predict's
    const double[:, ::1] origin,
    const double[:, ::1] start,
    const double[:, ::1] stop,
    const double[:, :, ::1] grid,
    const double[:, ::1] slope_low,
    const double[:, ::1] slope_high,
    const double[:, ::1] curvature,
    double[:, :, ::1] out,             # OUT: (n, k, d) each feature's term
    int n_threads,
):
    """Each feature's term of each class (fastnb.inspection): the values
    predict sums; 0 for a missing value."""
    cdef Py_ssize_t n = X.shape[0]
    cdef Py_ssize_t k = grid.shape[0]
    cdef Py_ssize_t d = grid.shape[1]
    cdef Py_ssize_t n_bins = grid.shape[2]
    cdef Py_ssize_t i, c, j
    cdef double v
    for i in prange(n, schedule='static', num_threads=max(n_threads, 1), nogil=True):
        for c in range(k):
            for j in range(d):
                v = X[i, j]
                if not (v - v == 0.0):
                    out[i, c, j] = 0.0
                else:
                    out[i, c, j] = feature_term(
                        v, inv_width[c, j], origin[c, j], start[c, j], stop[c, j],
                        &grid[c, j, 0], slope_low[c, j], slope_high[c, j],
                        curvature[c, j], n_bins)
