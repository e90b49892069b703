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
sum_b W_b N(x; node_b, h**2) / W at each node x of predict's grid (evenly
spaced points, in the histogram's node units a first point and a step: a
power of two, predict's grid at least as fine): at the histogram's own
nodes, summed in log space shifted by the largest term; between two of its
nodes, the line between their values; past its end nodes, the Gaussian tail
from the end's log density and slope (the posterior mean of the nodes, less
x, over h**2). So predict's grid holds the function the histogram's own grid
interpolates, and the slopes at its first and last point continue it past
the grid as the same Gaussian tail. Its cost is the histogram's n_bins sums
whatever predict's grid.

Predict. A row at a time (or class by class, a block of rows at a time,
where most features keep their classes' own grids); see "-- predict" below.
"""

from cython.parallel cimport prange
from libc.stdint cimport int64_t
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

# The kernel sum at a point keeps only the nodes whose term is within
# TRUNCATION (natural-log units) of the point's largest term: each dropped
# term is below exp(-50) ~ 2e-22 of that largest term, so at most 4096 of
# them change the sum by under 1e-18 relatively (the log density by under
# 1e-18): no visible change, but the sum runs over a window of
# ~ 2 sqrt(2 * 50) h / w nodes instead of all n_bins (a Toeplitz product
# with a truncated kernel). The end points' sums (and so the slopes that
# continue the density past the grid) keep every node. The largest term
# itself is searched outwards from the point until no weight can beat it.
cdef double TRUNCATION = 50.0


cdef void density_at(
    const double* log_hist,  # IN: n_bins log node weights (-inf: none)
    double largest,          # IN: their largest
    double scale,            # IN: w**2 / (2 h**2): the exponent per squared node step
    double log_norm,         # IN: -log(W h sqrt(2 pi))
    double slope_unit,       # IN: w / h**2: a node step of the posterior mean, in slope
    Py_ssize_t n_bins,
    double p,                # IN: the point, in node units (node b at b)
    bint every_node,         # IN: sum over every node (the end points)
    double* value,           # OUT: the log density at p
    double* slope,           # OUT: its slope
) noexcept nogil:
    cdef Py_ssize_t b, lo, hi, first, stop, nearest
    cdef double top, total, moment, r, term, e, reach, below, above, gap
    # the largest term, searched outwards from the nearest node, nodes in
    # order of distance: once the nearest unexplored node cannot beat it
    # even with the largest weight, none can (a max: the same value
    # whatever the order)
    nearest = <Py_ssize_t>floor(p + 0.5) if p > 0.0 else 0
    nearest = nearest if nearest < n_bins - 1 else n_bins - 1
    r = <double>nearest - p
    top = log_hist[nearest] - scale * r * r
    lo = nearest - 1
    hi = nearest + 1
    while True:
        below = p - <double>lo if lo >= 0 else INFINITY
        above = <double>hi - p if hi < n_bins else INFINITY
        gap = below if below <= above else above
        if gap == INFINITY or largest - scale * gap * gap <= top:
            break
        if below <= above:
            b = lo
            lo -= 1
        else:
            b = hi
            hi += 1
        r = <double>b - p
        term = log_hist[b] - scale * r * r
        top = term if term > top else top
    # a node further than reach has term <= largest - scale r**2 < top - TRUNCATION
    reach = sqrt((largest - top + TRUNCATION) / scale)
    first = 0
    stop = n_bins
    if not every_node and reach < <double>n_bins:
        if p - reach > 1.0:
            first = <Py_ssize_t>(p - reach) - 1
        if p + reach < <double>(n_bins - 2):
            stop = <Py_ssize_t>(p + reach) + 2
            stop = stop if stop > 0 else 0
    total = 0.0
    moment = 0.0
    for b in range(first, stop):
        if log_hist[b] > -INFINITY:
            r = <double>b - p
            e = exp(log_hist[b] - scale * r * r - top)
            total += e
            moment += e * r
    value[0] = top + log(total) + log_norm
    slope[0] = slope_unit * moment / total


cdef void density_of(
    const double* log_hist,  # IN: n_bins log node weights (-inf: none)
    double width,            # IN: w, the node spacing
    double scale, double log_norm, double slope_unit, Py_ssize_t n_bins,
    double first_point,      # IN: the first point, in node units: at most 0
    double point_step,       # IN: the points' spacing, in node units: 1 / a power
                             #     of two; the last point at least n_bins - 1
    Py_ssize_t n_points,
    double* grid,            # OUT: n_points log densities
    double* slope_low,       # OUT: the slope at the first point
    double* slope_high,      # OUT: the slope at the last point
) noexcept nogil:
    cdef Py_ssize_t b, s, below
    cdef Py_ssize_t per_node = <Py_ssize_t>(1.0 / point_step + 0.5)
    cdef Py_ssize_t at_first = <Py_ssize_t>(-first_point / point_step + 0.5)
    cdef Py_ssize_t at_last = at_first + (n_bins - 1) * per_node
    cdef double largest = -INFINITY
    cdef double slope, p, frac, u
    cdef double first_slope = 0.0, last_slope = 0.0
    for b in range(n_bins):
        largest = log_hist[b] if log_hist[b] > largest else largest
    # exact at the histogram's nodes (points at_first, at_first + per_node,
    # ..., at_last), every node summed at its end nodes (their slopes)
    for b in range(n_bins):
        density_at(log_hist, largest, scale, log_norm, slope_unit, n_bins, <double>b,
                   b == 0 or b == n_bins - 1, &grid[at_first + b * per_node], &slope)
        if b == 0:
            first_slope = slope
        if b == n_bins - 1:
            last_slope = slope
    # between two of its nodes, the line between them (the histogram's own
    # grid's interpolation)
    for s in range(at_first + 1, at_last):
        frac = <double>((s - at_first) % per_node) * point_step
        if frac != 0.0:
            below = s - (s - at_first) % per_node
            grid[s] = grid[below] + frac * (grid[below + per_node] - grid[below])
    # past them, the Gaussian tail from its end node (log density g, slope
    # g'), u node steps away: g + g' w u - (w u)**2 / (2 h**2); its slope
    # at the last point continues it past predict's grid
    for s in range(at_first):
        u = <double>(s - at_first) * point_step
        grid[s] = grid[at_first] + first_slope * (width * u) - scale * u * u
    for s in range(at_last + 1, n_points):
        u = <double>(s - at_last) * point_step
        grid[s] = grid[at_last] + last_slope * (width * u) - scale * u * u
    slope_low[0] = first_slope + slope_unit * <double>at_first * point_step
    slope_high[0] = last_slope - slope_unit * <double>(n_points - 1 - at_last) * point_step


def kde_log_density(
    const double[:, ::1] hist,         # IN: (m, n_bins) node weights, each with mass
    const double[::1] width,           # IN: (m,) node spacing
    const double[::1] bandwidth,       # IN: (m,) h > 0
    const double[::1] first_point,     # IN: (m,) the first point, in node units
    const double[::1] point_step,      # IN: (m,) the points' spacing, in node units:
                                       #     1 / a power of two; the points span
                                       #     the nodes
    Py_ssize_t n_points,
    int n_threads,
):
    """The log density of each histogram at ``n_points`` evenly spaced points
    (``first_point + s * point_step`` in units of its nodes: node b is at b):
    at its nodes, interpolated linearly between them, the Gaussian tail from
    its end node past them; and its slope at the first and last point:
    ``(grid (m, n_points), slope_low (m,), slope_high (m,))``."""
    cdef Py_ssize_t m = hist.shape[0]
    cdef Py_ssize_t n_bins = hist.shape[1]
    cdef Py_ssize_t r, b
    cdef double mass
    with np.errstate(divide="ignore"):
        log_hist_arr = np.log(hist)
    cdef const double[:, ::1] log_hist = log_hist_arr
    grid_arr = np.zeros((m, n_points), dtype=np.float64)
    low_arr = np.zeros(m, dtype=np.float64)
    high_arr = np.zeros(m, dtype=np.float64)
    cdef double[:, ::1] grid = grid_arr
    cdef double[::1] low = low_arr
    cdef double[::1] high = high_arr
    for r in prange(m, schedule='static', num_threads=max(n_threads, 1), nogil=True):
        mass = 0.0
        for b in range(n_bins):
            mass = mass + hist[r, b]
        density_of(&log_hist[r, 0], width[r],
                   width[r] * width[r] / (2.0 * bandwidth[r] * bandwidth[r]),
                   -log(mass * bandwidth[r] * sqrt(2.0 * M_PI)),
                   width[r] / (bandwidth[r] * bandwidth[r]), n_bins,
                   first_point[r], point_step[r], n_points,
                   &grid[r, 0], &low[r], &high[r])
    return grid_arr, low_arr, high_arr


# -- predict ----------------------------------------------------------------------------
#
# Feature j's term in class c is kde_feature_term's (_kde_simd.h): the grid
# of (c, j) interpolated, past its ends the Gaussian tail, at least
# LOG_DENSITY_FLOOR; NaN (and infinity, counted) adds nothing. Predict scores
# a row at a time (kde_row_terms): a feature whose classes share one grid
# finds its node once and reads every class's (value, step) from one line of
# a class-interleaved table; one whose classes keep their own grids takes
# their positions in vector lanes (AVX2); values past a grid, kde_feature_term
# per class. A model whose features mostly keep their classes' grids is
# scored class by class instead (predict_rows_by_class). Either way a row's
# terms are summed in feature order from 0, then added to the log prior:
# kde_dense_terms' sums, bit for bit.

cdef extern from "_kde_simd.h":
    ctypedef struct KdeModel:
        Py_ssize_t k, kp, d, n_nodes
        const double* fast
        const double* table
        const double* class_inv_width
        const double* class_origin
        const int64_t* class_base
        const double* inv_width
        const double* origin
        const double* start
        const double* stop
        const double* grid
        const double* slope_low
        const double* slope_high
        const double* curvature
        double floor_
    double kde_feature_term(
        double v, double inv_width, double origin, double start, double stop,
        const double* row, double slope_low, double slope_high, double curvature,
        Py_ssize_t n_nodes, double floor_) noexcept nogil
    int kde_row_terms(const KdeModel* m, const double* x, double* acc,
                      double* terms) noexcept nogil
    void kde_add_feature_terms(
        const double* xs, double* scores, Py_ssize_t m, double inv_width,
        double origin, double start, double stop, const double* pairs,
        double slope_low, double slope_high, double curvature, Py_ssize_t n_nodes,
        double floor_) noexcept nogil


cdef enum:
    BLOCK_ROWS = 64     # the class-by-class path's block


cdef Py_ssize_t predict_rows_by_class(
    const floating[:, ::1] X,
    const KdeModel* model,
    const double[:, :, ::1] pairs,     # (k, d, 2 n_nodes) (value, step) per node
    const double[::1] log_prior,
    int mode,
    intp_t[::1] labels_out,
    double[:, ::1] out,
    double* scratch,           # SCRATCH: BLOCK_ROWS * (d + k) + k values
    Py_ssize_t row_start, Py_ssize_t row_stop,
) noexcept nogil:
    # the block transposed into xs (feature-major), then per class and
    # feature one pass over its rows; a row's terms still summed in feature
    # order from 0 (the scores are kde_row_terms')
    cdef Py_ssize_t i, c, j, r, m, at
    cdef Py_ssize_t n_infinite = 0
    cdef Py_ssize_t k = model.k
    cdef Py_ssize_t d = model.d
    cdef double* xs = scratch                       # (d, BLOCK_ROWS)
    cdef double* scores = scratch + d * BLOCK_ROWS  # (k, BLOCK_ROWS)
    cdef double* acc = scores + k * BLOCK_ROWS      # (k,) a row's
    cdef double v
    cdef int infinite
    cdef Py_ssize_t first = row_start
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
                at = c * d + j
                kde_add_feature_terms(
                    &xs[j * BLOCK_ROWS], &scores[c * BLOCK_ROWS], m,
                    model.inv_width[at], model.origin[at], model.start[at],
                    model.stop[at], &pairs[c, j, 0], model.slope_low[at],
                    model.slope_high[at], model.curvature[at], model.n_nodes, FLOOR)
        for r in range(m):
            for c in range(k):
                acc[c] = scores[c * BLOCK_ROWS + r]
            finish_row(acc, k, log_prior, mode, labels_out, out, first + r)
        first += BLOCK_ROWS
    return n_infinite


cdef inline void finish_row(
    const double* acc,         # (k,) the row's summed terms
    Py_ssize_t k, const double[::1] log_prior, int mode,
    intp_t[::1] labels_out, double[:, ::1] out, Py_ssize_t i,
) noexcept nogil:
    cdef Py_ssize_t c
    cdef intp_t* label_out = NULL
    cdef double* row_out = NULL
    cdef double value
    cdef double best = -INFINITY
    cdef intp_t best_class = 0
    cdef bint saw_nan = False
    if mode == MODE_ARGMAX:
        label_out = &labels_out[i]
    else:
        row_out = &out[i, 0]
    for c in range(k):
        value = log_prior[c] + acc[c]
        consider_class(value, c, &best, &best_class, &saw_nan)
        if mode != MODE_ARGMAX:
            row_out[c] = value
    finish_scores(row_out, k, mode, label_out, best, best_class, saw_nan)


cdef Py_ssize_t predict_rows(
    const floating[:, ::1] X,
    const KdeModel* model,
    const double[::1] log_prior,
    int mode,
    intp_t[::1] labels_out,
    double[:, ::1] out,
    double* scratch,           # SCRATCH: 2 kp + d values
    Py_ssize_t row_start, Py_ssize_t row_stop,
) noexcept nogil:
    cdef Py_ssize_t i, c, j
    cdef Py_ssize_t n_infinite = 0
    cdef Py_ssize_t k = model.k
    cdef Py_ssize_t d = model.d
    cdef double* acc = scratch                     # (kp,) the row's scores
    cdef double* terms = scratch + model.kp        # (kp,)
    cdef double* row = scratch + 2 * model.kp      # (d,) a float32 row as double
    cdef const double* x
    for i in range(row_start, row_stop):
        if floating is double:
            x = &X[i, 0] if d > 0 else row
        else:
            for j in range(d):
                row[j] = X[i, j]
            x = row
        n_infinite += kde_row_terms(model, x, acc, terms)
        finish_row(acc, k, log_prior, mode, labels_out, out, i)
    return n_infinite


cdef const double* first_of(const double[::1] values) noexcept nogil:
    return &values[0] if values.shape[0] > 0 else NULL


def kde_predict(
    const floating[:, ::1] X,          # IN: (n, d), NaN = missing
    const double[:, ::1] fast,         # IN: (d, 2) a shared grid's (1 / w_j, origin_j);
                                       #     (0, 1) where the classes keep their own
    const double[:, :, ::1] table,     # IN: (d, n_nodes, 2 kp) a shared grid's
                                       #     classes' log densities, then their steps
    const double[:, ::1] class_inv_width,  # IN: (d, kp) where the classes keep their
    const double[:, ::1] class_origin,     #     own grids, each class's (0 on the
    const int64_t[:, ::1] class_base,      #     padding) and its grid's offset in grid
    const double[:, ::1] inv_width,    # IN: (k, d) 1 / w_cj of each predict grid
    const double[:, ::1] origin,       # IN: (k, d) first node index
    const double[:, ::1] start,        # IN: (k, d) first node's value
    const double[:, ::1] stop,         # IN: (k, d) last node's value
    const double[:, :, ::1] grid,      # IN: (k, d, n_nodes) log density at each node
    const double[:, ::1] slope_low,    # IN: (k, d)
    const double[:, ::1] slope_high,   # IN: (k, d)
    const double[:, ::1] curvature,    # IN: (k, d) 1 / (2 h**2)
    const double[:, :, ::1] pairs,     # IN: (k, d, 2 n_nodes) (log density, step to
                                       #     the next node's) of each class's grid
    bint by_class,                     # IN: the class-by-class path (most features
                                       #     on their classes' own grids)
    const double[::1] log_prior,       # IN: (k,)
    int mode,
    intp_t[::1] labels_out,
    double[:, ::1] out,
    int n_threads,
):
    """Fused KernelDensityNB predictor over rows; returns the number of rows
    that hold an infinite value (scored without it). Both paths give the
    same bits."""
    cdef Py_ssize_t n = X.shape[0]
    cdef Py_ssize_t d = X.shape[1]
    cdef Py_ssize_t k = grid.shape[0]
    cdef Py_ssize_t block
    cdef Py_ssize_t n_infinite = 0
    cdef Py_ssize_t n_blocks = max(n_threads, 1)
    cdef KdeModel model
    model.k = k
    model.kp = table.shape[2] // 2
    model.d = d
    model.n_nodes = grid.shape[2]
    model.fast = &fast[0, 0] if d > 0 else NULL
    model.table = &table[0, 0, 0] if table.size > 0 else NULL
    model.class_inv_width = &class_inv_width[0, 0] if class_inv_width.size > 0 else NULL
    model.class_origin = &class_origin[0, 0] if class_origin.size > 0 else NULL
    model.class_base = &class_base[0, 0] if class_base.size > 0 else NULL
    model.inv_width = &inv_width[0, 0] if inv_width.size > 0 else NULL
    model.origin = &origin[0, 0] if origin.size > 0 else NULL
    model.start = &start[0, 0] if start.size > 0 else NULL
    model.stop = &stop[0, 0] if stop.size > 0 else NULL
    model.grid = &grid[0, 0, 0] if grid.size > 0 else NULL
    model.slope_low = &slope_low[0, 0] if slope_low.size > 0 else NULL
    model.slope_high = &slope_high[0, 0] if slope_high.size > 0 else NULL
    model.curvature = &curvature[0, 0] if curvature.size > 0 else NULL
    model.floor_ = FLOOR
    cdef Py_ssize_t width_s = block_scratch_bytes(
        max(2 * model.kp + d + 1, BLOCK_ROWS * (d + k) + k) * 8) // 8
    rows_arr = np.zeros((n_blocks, width_s), dtype=np.float64)
    cdef double[:, ::1] rows = rows_arr
    with nogil:
        if n_blocks == 1:
            if by_class:
                n_infinite = predict_rows_by_class(X, &model, pairs, log_prior, mode,
                                                   labels_out, out, &rows[0, 0], 0, n)
            else:
                n_infinite = predict_rows(X, &model, log_prior, mode, labels_out, out,
                                          &rows[0, 0], 0, n)
        else:
            for block in prange(n_blocks, schedule='static', num_threads=n_blocks):
                if by_class:
                    n_infinite += predict_rows_by_class(
                        X, &model, pairs, log_prior, mode, labels_out, out,
                        &rows[block, 0], block_start(block, n_blocks, n),
                        block_start(block + 1, n_blocks, n))
                else:
                    n_infinite += predict_rows(
                        X, &model, log_prior, mode, labels_out, out, &rows[block, 0],
                        block_start(block, n_blocks, n),
                        block_start(block + 1, n_blocks, n))
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
    cdef Py_ssize_t n_nodes = grid.shape[2]
    cdef Py_ssize_t i, c, j
    cdef double v
    for i in prange(n, schedule='static', num_threads=max(n_threads, 1), nogil=True):
        for c in range(k):
            for j in range(d):
                v = X[i, j]
                if not (v - v == 0.0):
                    out[i, c, j] = 0.0
                else:
                    out[i, c, j] = kde_feature_term(
                        v, inv_width[c, j], origin[c, j], start[c, j], stop[c, j],
                        &grid[c, j, 0], slope_low[c, j], slope_high[c, j],
                        curvature[c, j], n_nodes, FLOOR)
