"""Parametric Naive Bayes loop kernels (PoissonNB, ExponentialNB, GammaNB,
LogNormalNB): a one-pass fit of per-class sufficient statistics, the gamma
shape solver, and one fused predictor for the four families. The point
functions (the support of each family, the vectorised log, the gamma shape)
are in ``_parametric.pxd``.

Fit. As ``_gaussian_kernels``: the rows are cut into ``n_chunks`` chunks whose
number depends only on the data's shape; each chunk accumulates its own
per-class, per-feature statistics, and the chunks are merged in chunk order, so
the result is the same bits for any number of threads. Every feature keeps its
own weight (NaN is skipped: missing). Poisson and exponential keep the weighted
mean of x; gamma also the weighted mean of log x (chunk sums, then Chan's merge
of means); log-normal keeps the exact moments of log x (West's weighted Welford
per chunk, Chan's merge, the point functions of ``_gaussian.pxd``). The fit also
reports, as bits of its status, values it cannot take: infinite, out of the
family's support, or (Poisson) not an integer.

Predict. One row at a time (the gamma's and log-normal's logs taken a block
of rows at a time first): a first pass over the row's d values writes them
(and their logs) into a per-block scratch row, with NaN where a value is
missing or out of the support, and sums the class-independent term (Poisson's
-log x!, log-normal's -log x); then each class's score is a sum over features.
No n x d temporary. A value out of the support counts as missing: it adds
nothing to any class's score (documented in the estimators).
"""

from cython.parallel cimport prange
from libc.math cimport lgamma, INFINITY, NAN

from _common cimport (
    intp_t, floating, double_noalias, block_start, block_scratch_bytes, sum_of_8,
    consider_class, finish_scores, MODE_ARGMAX, MODE_JLL,
)
from _parametric cimport (
    fastnb_log, fastnb_logs_f64, fastnb_logs_f32, POISSON, EXPONENTIAL, GAMMA,
    LOGNORMAL, STATUS_INFINITE, STATUS_OUT_OF_SUPPORT, STATUS_NOT_INTEGER, value_status, in_support,
    log_minus_digamma, gamma_shape,
)
from _gaussian cimport (
    welford_update_row, welford_update_row_missing, unshift_mean,
    chan_merge_feature_moments, gaussian_class_jll, gaussian_class_jll_missing,
)

import numpy as np

FAMILIES = {"poisson": POISSON, "exponential": EXPONENTIAL, "gamma": GAMMA,
            "lognormal": LOGNORMAL}
STATUS_BITS = {"infinite": STATUS_INFINITE, "out_of_support": STATUS_OUT_OF_SUPPORT,
               "not_integer": STATUS_NOT_INTEGER}


# log(x!) for the small counts, from lgamma (once, at import): a table lookup
# costs far less than lgamma, which costs as much as the rest of a row's term.
cdef enum:
    N_LOG_FACTORIALS = 1024
cdef double LOG_FACTORIAL[1024]
cdef int _i
for _i in range(N_LOG_FACTORIALS):
    LOG_FACTORIAL[_i] = lgamma(_i + 1.0)


cdef inline double log_factorial(double v) noexcept nogil:
    """log(v!) = lgamma(v + 1) for v >= 0 (a non-integer v: the continuous one)."""
    cdef int small
    if v < N_LOG_FACTORIALS:
        small = <int>v
        if <double>small == v:
            return LOG_FACTORIAL[small]
    return lgamma(v + 1.0)


# -- fit ------------------------------------------------------------------------------

# The gamma's fit, and the gamma's and log-normal's predict, take the logs of a
# block of rows at a time, about this many values (a 4 KiB scratch page a
# thread), then go through the rows.
cdef enum:
    LOG_BLOCK_VALUES = 512


cdef inline Py_ssize_t log_block_rows(Py_ssize_t d) noexcept nogil:
    return max(1, LOG_BLOCK_VALUES // max(d, 1))


cdef inline int add_row_sums(
    const floating* x,         # IN: one row, d values
    double w,                  # IN: its weight
    int family,                # POISSON, EXPONENTIAL or GAMMA (a constant at each call)
    double_noalias count,      # IN/OUT: d weights of the values taken
    double_noalias total,      # IN/OUT: d weighted sums of x
    double_noalias log_total,  # IN/OUT: d weighted sums of log x (GAMMA only)
    const double* logs,        # IN: (GAMMA only) the d values' logs (fill_logs)
    Py_ssize_t d,
) noexcept nogil:
    """Add a row's weighted values (and, for the gamma, their logs) to the
    sums; return how many it refused. Branch-free, so that it vectorises: a
    value out of the support, or NaN, adds zeros."""
    cdef Py_ssize_t j
    cdef double v, wv
    cdef bint ok
    cdef int n_refused = 0
    for j in range(d):
        v = x[j]
        ok = in_support(v, family)
        n_refused += (v == v) & (not ok)
        wv = w if ok else 0.0
        count[j] += wv
        total[j] += wv * (v if ok else 0.0)
        if family == GAMMA:
            log_total[j] += wv * logs[j]
    return n_refused


cdef inline void fill_logs(
    const floating* x,     # IN: n contiguous values (whole rows of X)
    Py_ssize_t n,
    double* logs,          # OUT: n logs; ``outside`` for a value out of the
                           # support (or NaN)
    double outside,
) noexcept nogil:
    """The logs of a block of rows in one long loop (_log_simd.h: 4 at a time
    in the AVX2 build), with few remainder iterations. The caller counts the
    refused values (prepare_row reads the support)."""
    if floating is double:
        fastnb_logs_f64(x, n, logs, 1, outside)
    else:
        fastnb_logs_f32(x, n, logs, 1, outside)


cdef inline bint chunk_in_support(
    const floating* x,     # IN: n contiguous values (whole rows of X)
    Py_ssize_t n,
    int family,            # a constant at each call
) noexcept nogil:
    """Whether every value is in the family's support (no NaN either)."""
    cdef Py_ssize_t t, n_out = 0
    for t in range(n):
        n_out += not in_support(x[t], family)
    return n_out == 0


cdef inline void add_complete_row_sums(
    const floating* x,         # IN: one row, d values, all in the support
    double w,                  # IN: its weight
    int family,                # POISSON, EXPONENTIAL or GAMMA (a constant at each call)
    double_noalias total, double_noalias log_total,  # IN/OUT: as add_row_sums
    const double* logs, Py_ssize_t d,
) noexcept nogil:
    """add_row_sums, less the counts, of a row whose block is all in the support
    (Poisson's support test was 2 ms of an 11 ms fit)."""
    cdef Py_ssize_t j
    for j in range(d):
        total[j] += w * x[j]
        if family == GAMMA:
            log_total[j] += w * logs[j]


cdef int chunk_status(
    const floating[:, ::1] X, int family, Py_ssize_t row_start, Py_ssize_t row_stop,
) noexcept nogil:
    """The status bits of the rows [row_start, row_stop) (a chunk that holds a
    refused value: the fit will raise, so this second look costs nothing)."""
    cdef Py_ssize_t i, j
    cdef double v
    cdef int status = 0
    for i in range(row_start, row_stop):
        for j in range(X.shape[1]):
            v = X[i, j]
            if v == v:
                status = status | value_status(v, family)
    return status


cdef int accumulate_chunk(
    const floating[:, ::1] X,
    const intp_t[::1] codes,
    const double* weights,      # NULL when unweighted
    int family,
    Py_ssize_t row_start,
    Py_ssize_t row_stop,
    double* log_rows,           # SCRATCH: the logs of log_block_rows(d) rows
    double* row_count,          # OUT: (k,) weight of the chunk's rows per class
    double* count,              # OUT: (k, d) weight of each feature's values
    double* first,              # OUT: (k, d) mean of x (mean of log x: log-normal)
    double* second,             # OUT: (k, d) mean of log x (gamma), ssd of log x
    double* shift,              # SCRATCH: (k, d) (log-normal), zeroed
    Py_ssize_t k,
) noexcept nogil:
    """One chunk's per-class statistics; returns its status bits."""
    cdef Py_ssize_t i, j, base, slot, block_first, block_stop
    cdef Py_ssize_t d = X.shape[1]
    cdef Py_ssize_t block_rows = log_block_rows(d)
    cdef double w, v
    # Whether the chunk is all in the support (no NaN): each feature's count is
    # then its row_count (same sums, same bits) and a log-normal's row update
    # divides once a row (as GaussianNB's). Else each block is checked.
    cdef bint complete = d > 0 and chunk_in_support(
        &X[row_start, 0], (row_stop - row_start) * d, family)
    cdef bint block_complete = complete
    cdef Py_ssize_t n_refused = 0
    cdef const floating* x
    cdef double* logs
    block_first = row_start
    while block_first < row_stop:
        block_stop = min(block_first + block_rows, row_stop)
        # (0 adds nothing to the gamma's sums; NaN is missing to the Welford
        # update)
        if d > 0 and family == GAMMA:
            fill_logs(&X[block_first, 0], (block_stop - block_first) * d, log_rows, 0.0)
        elif d > 0 and family == LOGNORMAL:
            fill_logs(&X[block_first, 0], (block_stop - block_first) * d, log_rows, NAN)
        if family != LOGNORMAL and not complete:
            block_complete = d > 0 and chunk_in_support(
                &X[block_first, 0], (block_stop - block_first) * d, family)
        for i in range(block_first, block_stop):
            x = &X[i, 0]
            logs = &log_rows[(i - block_first) * d]
            slot = codes[i]
            base = slot * d
            w = 1.0 if weights == NULL else weights[i]
            row_count[slot] += w
            if family == LOGNORMAL:
                if not complete:
                    for j in range(d):
                        v = x[j]
                        n_refused += (v == v) & (not in_support(v, family))
                if w > 0.0 and complete:
                    # (the slot's count in its first feature's, until the end)
                    welford_update_row(logs, w, &count[base], &shift[base],
                                       &first[base], &second[base], d)
                elif w > 0.0:
                    welford_update_row_missing(logs, w, &count[base], &shift[base],
                                               &first[base], &second[base], d)
            elif block_complete:
                if not complete:
                    for j in range(d):
                        count[base + j] += w
                if family == GAMMA:
                    add_complete_row_sums(x, w, GAMMA, &first[base], &second[base],
                                          logs, d)
                elif family == POISSON:
                    add_complete_row_sums(x, w, POISSON, &first[base], &second[base],
                                          logs, d)
                else:
                    add_complete_row_sums(x, w, EXPONENTIAL, &first[base],
                                          &second[base], logs, d)
            elif family == GAMMA:
                n_refused += add_row_sums(x, w, GAMMA, &count[base], &first[base],
                                          &second[base], logs, d)
            elif family == POISSON:
                n_refused += add_row_sums(x, w, POISSON, &count[base], &first[base],
                                          &second[base], logs, d)
            else:
                n_refused += add_row_sums(x, w, EXPONENTIAL, &count[base],
                                          &first[base], &second[base], logs, d)
        block_first = block_stop
    # sums to means (log-normal: unshift its means)
    for slot in range(k):
        base = slot * d
        if family == LOGNORMAL:
            if complete:
                for j in range(1, d):
                    count[base + j] = count[base]
            unshift_mean(&shift[base], &first[base], d)
            continue
        for j in range(d):
            if complete:
                count[base + j] = row_count[slot]
            if count[base + j] > 0.0:
                first[base + j] = first[base + j] / count[base + j]
                second[base + j] = second[base + j] / count[base + j]
    if n_refused:
        return chunk_status(X, family, row_start, row_stop)
    return 0


cdef inline void merge_means(
    double* count_a, double* mean_a, double* mean2_a,        # IN/OUT
    const double* count_b, const double* mean_b, const double* mean2_b,  # IN
    Py_ssize_t d,
) noexcept nogil:
    """Merge two weighted means per feature (Chan's formula without the ssd)."""
    cdef Py_ssize_t j
    cdef double total, share_b
    for j in range(d):
        if count_b[j] == 0.0:
            continue
        if count_a[j] == 0.0:
            count_a[j] = count_b[j]
            mean_a[j] = mean_b[j]
            mean2_a[j] = mean2_b[j]
            continue
        total = count_a[j] + count_b[j]
        share_b = count_b[j] / total
        mean_a[j] = mean_a[j] + (mean_b[j] - mean_a[j]) * share_b
        mean2_a[j] = mean2_a[j] + (mean2_b[j] - mean2_a[j]) * share_b
        count_a[j] = total


cdef int accumulate_chunks(
    const floating[:, ::1] X,
    const intp_t[::1] codes,
    const double* weights,
    int family,
    Py_ssize_t n_chunks,
    Py_ssize_t first_chunk,       # the chunks [first_chunk, stop_chunk) of a block
    Py_ssize_t stop_chunk,
    double* log_rows,
    double[:, ::1] chunk_rows,    # OUT: (n_chunks, k)
    double[:, ::1] chunk_count,   # OUT: (n_chunks, k * d), and the three below
    double[:, ::1] chunk_first,
    double[:, ::1] chunk_second,
    double[:, ::1] chunk_shift,
) noexcept nogil:
    cdef Py_ssize_t chunk
    cdef Py_ssize_t n = X.shape[0]
    cdef int status = 0
    for chunk in range(first_chunk, stop_chunk):
        status = status | accumulate_chunk(
            X, codes, weights, family,
            block_start(chunk, n_chunks, n), block_start(chunk + 1, n_chunks, n),
            log_rows, &chunk_rows[chunk, 0], &chunk_count[chunk, 0],
            &chunk_first[chunk, 0], &chunk_second[chunk, 0], &chunk_shift[chunk, 0],
            chunk_rows.shape[1])
    return status


def parametric_fit(
    const floating[:, ::1] X,          # IN: (n, d) samples, NaN = missing
    const intp_t[::1] codes,           # IN: (n,) class index of each row, in [0, k)
    const double[::1] sample_weight,   # IN: (n,) non-negative weights, or None
    Py_ssize_t n_classes,
    int family,                        # FAMILIES
    Py_ssize_t n_chunks,
    int n_threads,
):
    """Per-class statistics of one family in one pass.

    Returns ``(row_count, count, first, second, status)``: ``row_count`` (k,) the
    weight of each class's rows, ``count`` (k, d) the weight of each feature's
    values (NaN and refused values skipped), ``first`` (k, d) the weighted mean
    of x (log-normal: of log x), ``second`` (k, d) the weighted mean of log x
    (gamma), the centred sum of squares of log x (log-normal), or zeros, and
    ``status`` the OR of ``STATUS_BITS`` met. ``n_chunks`` fixes the blocks: the
    result does not depend on ``n_threads``.
    """
    cdef Py_ssize_t d = X.shape[1]
    cdef Py_ssize_t k = n_classes
    cdef Py_ssize_t chunk, slot, block, n_blocks
    cdef const double* weights = NULL
    cdef int status = 0
    if sample_weight is not None:
        weights = &sample_weight[0]
    if n_chunks < 1:
        n_chunks = 1
    n_blocks = min(max(n_threads, 1), n_chunks)
    cdef Py_ssize_t scratch = block_scratch_bytes(
        max(d, 1) * log_block_rows(d) * 8) // 8

    chunk_rows_arr = np.zeros((n_chunks, k), dtype=np.float64)
    chunk_count_arr = np.zeros((n_chunks, k * d), dtype=np.float64)
    chunk_first_arr = np.zeros((n_chunks, k * d), dtype=np.float64)
    chunk_second_arr = np.zeros((n_chunks, k * d), dtype=np.float64)
    # (only log-normal shifts its values: the others get a 1-value row each)
    chunk_shift_arr = np.zeros((n_chunks, k * d if family == LOGNORMAL else 1),
                               dtype=np.float64)
    log_rows_arr = np.zeros((n_blocks, scratch), dtype=np.float64)
    statuses_arr = np.zeros(n_blocks, dtype=np.intc)
    row_count_arr = np.zeros(k, dtype=np.float64)
    count_arr = np.zeros((k, d), dtype=np.float64)
    first_arr = np.zeros((k, d), dtype=np.float64)
    second_arr = np.zeros((k, d), dtype=np.float64)

    cdef double[:, ::1] chunk_rows = chunk_rows_arr
    cdef double[:, ::1] chunk_count = chunk_count_arr
    cdef double[:, ::1] chunk_first = chunk_first_arr
    cdef double[:, ::1] chunk_second = chunk_second_arr
    cdef double[:, ::1] chunk_shift = chunk_shift_arr
    cdef double[:, ::1] log_rows = log_rows_arr
    cdef int[::1] statuses = statuses_arr
    cdef double[::1] row_count = row_count_arr
    cdef double[:, ::1] count = count_arr
    cdef double[:, ::1] first = first_arr
    cdef double[:, ::1] second = second_arr

    with nogil:
        if n_blocks == 1:
            statuses[0] = accumulate_chunks(
                X, codes, weights, family, n_chunks, 0, n_chunks, &log_rows[0, 0],
                chunk_rows, chunk_count, chunk_first, chunk_second, chunk_shift)
        else:
            for block in prange(n_blocks, schedule='static', num_threads=n_blocks):
                statuses[block] = accumulate_chunks(
                    X, codes, weights, family, n_chunks,
                    block_start(block, n_blocks, n_chunks),
                    block_start(block + 1, n_blocks, n_chunks), &log_rows[block, 0],
                    chunk_rows, chunk_count, chunk_first, chunk_second, chunk_shift)
        # Fixed merge order: chunk 0, 1, 2, ... for every class.
        for slot in range(k):
            for chunk in range(n_chunks):
                row_count[slot] += chunk_rows[chunk, slot]
                if family == LOGNORMAL:
                    chan_merge_feature_moments(
                        &count[slot, 0], &first[slot, 0], &second[slot, 0],
                        &chunk_count[chunk, slot * d], &chunk_first[chunk, slot * d],
                        &chunk_second[chunk, slot * d], d)
                else:
                    merge_means(
                        &count[slot, 0], &first[slot, 0], &second[slot, 0],
                        &chunk_count[chunk, slot * d], &chunk_first[chunk, slot * d],
                        &chunk_second[chunk, slot * d], d)
        for block in range(n_blocks):
            status = status | statuses[block]
    return row_count_arr, count_arr, first_arr, second_arr, status


# The point functions the estimators apply to (k, d) arrays of parameters, one
# loop for all (a few values a fit: no need for a loop of each's own).
cdef enum PointFunction:
    GAMMA_SHAPE = 0
    LOG_MINUS_DIGAMMA = 1
    LOG = 2
    LOG_GAMMA = 3


cdef double point_value(double v, int function) noexcept nogil:
    if function == GAMMA_SHAPE:
        return gamma_shape(v)
    if function == LOG_MINUS_DIGAMMA:
        return log_minus_digamma(v)
    if function == LOG:
        return fastnb_log(v)
    return lgamma(v)


cdef point_values(const double[::1] x, int function):
    """The point function of each value of a flat array, as a new array."""
    cdef Py_ssize_t i
    out_arr = np.empty(x.shape[0], dtype=np.float64)
    cdef double[::1] out = out_arr
    with nogil:
        for i in range(x.shape[0]):
            out[i] = point_value(x[i], function)
    return out_arr


def gamma_shapes(const double[::1] s):
    """The maximum-likelihood gamma shape for each s (> 0) of a flat array."""
    return point_values(s, GAMMA_SHAPE)


def log_minus_digamma_values(const double[::1] a):
    """log(a) - digamma(a) for each a > 0 (the function gamma_shapes inverts)."""
    return point_values(a, LOG_MINUS_DIGAMMA)


def log_values(const double[::1] x):
    """log(x) for each value of a flat array, as the kernels compute it (the
    block loop: 4 values at a time in the AVX2 build)."""
    out_arr = np.empty(x.shape[0], dtype=np.float64)
    cdef double[::1] out = out_arr
    if x.shape[0] > 0:
        with nogil:
            fastnb_logs_f64(&x[0], x.shape[0], &out[0], 0, 0.0)
    return out_arr


def log_values_scalar(const double[::1] x):
    """log(x) for each value of a flat array, one value at a time (the same
    bits as ``log_values``)."""
    return point_values(x, LOG)


def log_gamma_values(const double[::1] a):
    """lgamma(a) for each a of a flat array (NumPy has none)."""
    return point_values(a, LOG_GAMMA)


# -- predict ----------------------------------------------------------------------------
#
# Each class c scores a row as
#   Poisson, exponential, gamma:
#     jll[c] = log_norm[c] + sum_j (a[c, j] * x_j + b[c, j] * log x_j) + row_term
#     with log_norm[c] = log prior[c] + sum_j const[c, j];
#     Poisson: a = log lambda, const = -lambda, row_term = -sum_j log(x_j!);
#     exponential: a = -1 / scale, const = -log(scale);
#     gamma: a = -1 / scale, b = shape - 1, const = -shape log(scale) - lgamma(shape).
#   log-normal: the Gaussian score of log x (a = mu, b = 0.5 / var,
#     const = 0.5 log(2 pi var)), row_term = -sum_j log x_j (the Jacobian).
# A row with a missing (or out-of-support) value sums over its other features.

cdef inline double prepare_row(
    const floating* x,     # IN: one row, d values
    int family,
    double* xs,            # OUT: the values, NaN where missing or refused
    double* ls,            # OUT: their logs (gamma, log-normal), NaN likewise
    const double* logs,    # IN: (gamma, log-normal) the row's logs (fill_logs)
    Py_ssize_t d,
    Py_ssize_t* n_skipped,   # OUT: how many values are NaN or refused
    bint* infinite,          # OUT: set when a value is infinite
    bint with_term,          # IN: whether the class-independent term is wanted
) noexcept nogil:
    """Fill the scratch rows; return the row's class-independent term (0 when
    not ``with_term``: it changes neither the best class nor the posterior,
    only the joint log likelihood, and Poisson's log(x!) costs as much as
    the rest of the row). The
    loops have no branch (they vectorise); Poisson's log(x!) is a second loop,
    a table lookup per value (lgamma past the table, or for a non-integer)."""
    cdef Py_ssize_t j
    cdef double v, lv, term = 0.0
    cdef bint ok
    cdef int n_bad = 0, n_infinite = 0
    if family == GAMMA or family == LOGNORMAL:
        for j in range(d):
            v = x[j]
            ok = in_support(v, GAMMA)
            n_bad += not ok
            n_infinite += (v == INFINITY) | (v == -INFINITY)
            xs[j] = v if ok else NAN
            lv = logs[j]
            ls[j] = lv if ok else NAN
        if family == LOGNORMAL and with_term:
            # (a loop of its own: a sum in one order does not vectorise)
            for j in range(d):
                if ls[j] == ls[j]:
                    term = term - ls[j]
    else:
        # (a non-integer count is scored, by lgamma: in_support(EXPONENTIAL))
        for j in range(d):
            v = x[j]
            ok = in_support(v, EXPONENTIAL)
            n_bad += not ok
            n_infinite += (v == INFINITY) | (v == -INFINITY)
            xs[j] = v if ok else NAN
        if family == POISSON and with_term:
            for j in range(d):
                if xs[j] == xs[j]:
                    term = term - log_factorial(xs[j])
    n_skipped[0] = n_bad
    if n_infinite:
        infinite[0] = True
    return term


cdef inline double linear_class_jll(
    const double* xs, const double* ls,
    const double* a, const double* b,
    double log_norm, bint with_logs, Py_ssize_t d,
) noexcept nogil:
    """sum_j a_j x_j (+ b_j log x_j) + log_norm, in eight fixed accumulators
    (vectorised, the same bits on any thread count)."""
    cdef double acc[8]
    cdef Py_ssize_t j, t
    cdef Py_ssize_t d_blocked = d - d % 8
    for t in range(8):
        acc[t] = 0.0
    if with_logs:
        for j in range(0, d_blocked, 8):
            for t in range(8):
                acc[t] = acc[t] + (a[j + t] * xs[j + t] + b[j + t] * ls[j + t])
        for j in range(d_blocked, d):
            acc[j - d_blocked] = acc[j - d_blocked] + (a[j] * xs[j] + b[j] * ls[j])
    else:
        for j in range(0, d_blocked, 8):
            for t in range(8):
                acc[t] = acc[t] + a[j + t] * xs[j + t]
        for j in range(d_blocked, d):
            acc[j - d_blocked] = acc[j - d_blocked] + a[j] * xs[j]
    return log_norm + sum_of_8(acc)


cdef inline double linear_class_jll_missing(
    const double* xs, const double* ls,
    const double* a, const double* b, const double* const_,
    double log_prior, bint with_logs, Py_ssize_t d,
) noexcept nogil:
    """The class score over the features that are not NaN in xs."""
    cdef Py_ssize_t j
    cdef double total = 0.0
    for j in range(d):
        if xs[j] == xs[j]:
            total = total + (a[j] * xs[j] + const_[j])
            if with_logs:
                total = total + b[j] * ls[j]
    return log_prior + total


cdef Py_ssize_t predict_rows(
    const floating[:, ::1] X,
    int family,
    const double[:, ::1] a,
    const double[:, ::1] b,
    const double[:, ::1] const_,
    const double[::1] log_norm,
    const double[::1] log_prior,
    int mode,
    intp_t[::1] labels_out,
    double[:, ::1] out,
    double* xs,                # SCRATCH: d values
    double* ls,                # SCRATCH: d values
    double* log_rows,          # SCRATCH: the logs of log_block_rows(d) rows
    Py_ssize_t row_start,
    Py_ssize_t row_stop,
) noexcept nogil:
    """Predict the rows [row_start, row_stop); return how many hold infinity."""
    cdef Py_ssize_t i, c, n_skipped, block_first, block_stop
    cdef Py_ssize_t n_infinite = 0
    cdef Py_ssize_t k = a.shape[0]
    cdef Py_ssize_t d = a.shape[1]
    cdef intp_t* label_out = NULL
    cdef double* row_out = NULL
    cdef double term, value, best
    cdef intp_t best_class
    cdef bint saw_nan, infinite
    cdef bint with_logs = family == GAMMA
    cdef Py_ssize_t block_rows = log_block_rows(d)
    # (the logs of a block of rows in one loop, as the gamma's fit takes them)
    block_first = row_start
    while block_first < row_stop:
        block_stop = min(block_first + block_rows, row_stop)
        if d > 0 and (family == GAMMA or family == LOGNORMAL):
            fill_logs(&X[block_first, 0], (block_stop - block_first) * d, log_rows, 0.0)
        for i in range(block_first, block_stop):
            if mode == MODE_ARGMAX:
                label_out = &labels_out[i]
            else:
                row_out = &out[i, 0]
            infinite = False
            term = prepare_row(&X[i, 0], family, xs, ls,
                               &log_rows[(i - block_first) * d], d, &n_skipped,
                               &infinite, mode == MODE_JLL)
            n_infinite += infinite
            best = -INFINITY
            best_class = 0
            saw_nan = False
            for c in range(k):
                if family == LOGNORMAL:
                    if n_skipped == 0:
                        value = gaussian_class_jll(ls, &a[c, 0], &b[c, 0], log_norm[c],
                                                   d)
                    else:
                        value = gaussian_class_jll_missing(
                            ls, &a[c, 0], &b[c, 0], &const_[c, 0], log_prior[c], d)
                elif n_skipped == 0:
                    value = linear_class_jll(xs, ls, &a[c, 0], &b[c, 0], log_norm[c],
                                             with_logs, d)
                else:
                    value = linear_class_jll_missing(xs, ls, &a[c, 0], &b[c, 0],
                                                     &const_[c, 0], log_prior[c],
                                                     with_logs, d)
                value = value + term
                consider_class(value, c, &best, &best_class, &saw_nan)
                if mode != MODE_ARGMAX:
                    row_out[c] = value
            finish_scores(row_out, k, mode, label_out, best, best_class, saw_nan)
        block_first = block_stop
    return n_infinite


def parametric_predict(
    const floating[:, ::1] X,          # IN: (n, d) samples, NaN = missing
    int family,                        # FAMILIES
    const double[:, ::1] a,            # IN: (k, d) see the table above
    const double[:, ::1] b,            # IN: (k, d)
    const double[:, ::1] const_,       # IN: (k, d)
    const double[::1] log_norm,        # IN: (k,) log prior + sum of const (or -)
    const double[::1] log_prior,       # IN: (k,) log class priors
    int mode,                          # PredictMode
    intp_t[::1] labels_out,            # OUT: (n,) for MODE_ARGMAX, else None
    double[:, ::1] out,                # OUT: (n, k) for the other modes, else None
    int n_threads,
):
    """Fused parametric joint-log-likelihood predictor over rows.

    Returns the number of rows holding an infinite value (scored without it),
    so that the caller can refuse infinite input without a pass over X.
    """
    cdef Py_ssize_t n = X.shape[0]
    cdef Py_ssize_t d = X.shape[1]
    cdef Py_ssize_t block
    cdef Py_ssize_t n_infinite = 0
    cdef Py_ssize_t n_blocks = max(n_threads, 1)
    cdef Py_ssize_t width = block_scratch_bytes(max(d, 1) * 8) // 8
    cdef Py_ssize_t log_width = block_scratch_bytes(
        max(d, 1) * log_block_rows(d) * 8) // 8
    scratch_arr = np.empty((n_blocks, 2 * width + log_width), dtype=np.float64)
    cdef double[:, ::1] scratch = scratch_arr
    with nogil:
        if n_blocks == 1:
            n_infinite = predict_rows(X, family, a, b, const_, log_norm, log_prior,
                                      mode, labels_out, out, &scratch[0, 0],
                                      &scratch[0, width], &scratch[0, 2 * width], 0, n)
        else:
            for block in prange(n_blocks, schedule='static', num_threads=n_blocks):
                n_infinite += predict_rows(
                    X, family, a, b, const_, log_norm, log_prior, mode, labels_out,
                    out, &scratch[block, 0], &scratch[block, width],
                    &scratch[block, 2 * width], block_start(block, n_blocks, n),
                    block_start(block + 1, n_blocks, n))
    return n_infinite
