# GaussianNB point functions: one row's Welford update, Chan's merge of two sets
# of moments, and one row's joint log likelihood. The loop kernels
# (_gaussian_kernels.pyx) and the public cimport API (cython_kernels.pyx) both call
# these, so both compute the same bits.
#
# Moments are (count, mean, ssd), ssd being the centred second moment (the sum of
# squared deviations from the mean): variances never come from E[x^2] - E[x]^2.

from libc.math cimport INFINITY

from _common cimport (
    intp_t, floating, double_noalias, sum_of_8, consider_class, finish_scores,
    MODE_ARGMAX,
)

# The per-slot state arrays never overlap each other or X.
ctypedef double_noalias state_ptr


# -- fit ------------------------------------------------------------------------------

cdef inline void welford_update_row(
    const floating* x,   # IN: one row of X, d values
    double weight,       # IN: the row's sample weight (> 0)
    double* count,       # IN/OUT: running weight of the slot
    state_ptr shift,     # IN/OUT: the slot's first row, subtracted from every row
    state_ptr mean,      # IN/OUT: running mean of (x - shift), d values
    state_ptr ssd,       # IN/OUT: running centred sum of squares, d values
    Py_ssize_t d,
) noexcept nogil:
    """Add one weighted row to a slot's shifted moments (West's weighted Welford).

    The mean is kept about ``shift``, the slot's first row: undo it with
    ``unshift_mean`` once the slot's rows are all in.
    """
    cdef Py_ssize_t j
    cdef double total, share, ssd_factor, delta
    if count[0] == 0.0:
        # Shifting by a sample of the slot keeps the running mean near zero, so
        # its rounding errors are relative to the spread of the data, not to its
        # offset (1e8 + N(0, 1) keeps full precision).
        count[0] = weight
        for j in range(d):
            shift[j] = x[j]
            mean[j] = 0.0
            ssd[j] = 0.0
        return
    total = count[0] + weight
    share = weight / total
    # West's weighted update: ssd += w * delta * (x - new_mean)
    #                              = w * (1 - share) * delta**2.
    ssd_factor = weight * (count[0] / total)
    count[0] = total
    for j in range(d):
        delta = (x[j] - shift[j]) - mean[j]
        mean[j] = mean[j] + delta * share
        ssd[j] = ssd[j] + ssd_factor * delta * delta


cdef inline void welford_update_row_missing(
    const floating* x,   # IN: one row of X, d values, NaN where missing
    double weight,       # IN: the row's sample weight (> 0)
    state_ptr count,     # IN/OUT: running weight of each feature of the slot
    state_ptr shift,     # IN/OUT: first observed value of each feature
    state_ptr mean,      # IN/OUT: running mean of (x - shift)
    state_ptr ssd,       # IN/OUT: running centred sum of squares
    Py_ssize_t d,
) noexcept nogil:
    """welford_update_row where every feature keeps its own count and NaN is skipped."""
    cdef Py_ssize_t j
    cdef double value, total, share, delta
    for j in range(d):
        value = x[j]
        if value != value:
            continue
        if count[j] == 0.0:
            count[j] = weight
            shift[j] = value
            mean[j] = 0.0
            ssd[j] = 0.0
            continue
        total = count[j] + weight
        share = weight / total
        delta = (value - shift[j]) - mean[j]
        mean[j] = mean[j] + delta * share
        ssd[j] = ssd[j] + (weight * (count[j] / total)) * delta * delta
        count[j] = total


cdef inline void unshift_mean(
    const double* shift,   # IN: the shift of welford_update_row, d values
    double* mean,          # IN/OUT: the shifted mean, made absolute
    Py_ssize_t d,
) noexcept nogil:
    """Undo the shift once a slot's rows are all in. A feature that saw no value
    has shift 0 and mean 0 (its scratch starts zeroed), and keeps mean 0."""
    cdef Py_ssize_t j
    for j in range(d):
        mean[j] = mean[j] + shift[j]


cdef inline void chan_merge_feature_moments(
    double* count_a, double* mean_a, double* ssd_a,  # IN/OUT: per-feature moments
    const double* count_b, const double* mean_b, const double* ssd_b,  # IN
    Py_ssize_t d,
) noexcept nogil:
    """Chan's merge where every feature has its own count (missing values)."""
    cdef Py_ssize_t j
    cdef double total, share_b, delta
    for j in range(d):
        if count_b[j] == 0.0:
            continue
        if count_a[j] == 0.0:
            count_a[j] = count_b[j]
            mean_a[j] = mean_b[j]
            ssd_a[j] = ssd_b[j]
            continue
        total = count_a[j] + count_b[j]
        share_b = count_b[j] / total
        delta = mean_b[j] - mean_a[j]
        mean_a[j] = mean_a[j] + delta * share_b
        ssd_a[j] = ssd_a[j] + ssd_b[j] + delta * delta * (count_a[j] * share_b)
        count_a[j] = total


cdef inline void chan_merge_moments(
    double count_a, double* mean_a, double* ssd_a,  # IN/OUT: running moments
    double count_b, const double* mean_b, const double* ssd_b,  # IN: moments to add
    Py_ssize_t d,
) noexcept nogil:
    """Merge (count_b, mean_b, ssd_b) into (count_a, mean_a, ssd_a) by Chan's formula.

    One count for all d features (no missing values); the caller adds count_b to
    count_a. Exact to rounding for any offset of the data.
    """
    cdef Py_ssize_t j
    cdef double total = count_a + count_b
    cdef double share_b, cross, delta
    if count_b == 0.0:
        return
    if count_a == 0.0:
        for j in range(d):
            mean_a[j] = mean_b[j]
            ssd_a[j] = ssd_b[j]
        return
    share_b = count_b / total
    cross = count_a * share_b
    for j in range(d):
        delta = mean_b[j] - mean_a[j]
        mean_a[j] = mean_a[j] + delta * share_b
        ssd_a[j] = ssd_a[j] + ssd_b[j] + delta * delta * cross


# -- predict ----------------------------------------------------------------------------
#
#     jll[c] = log_norm[c] - sum_j (x_j - theta[c, j])**2 * half_inv_var[c, j]
#
# with log_norm[c] = log prior[c] - sum_j half_log_2pi_var[c, j] and
# half_inv_var = 0.5 / var, computed once per fit.

cdef inline double gaussian_class_jll(
    const floating* x,            # IN: one row, d values
    const double* theta,          # IN: class means, d values
    const double* half_inv_var,   # IN: 0.5 / class variances, d values
    double log_norm,              # IN: log prior - 0.5 * sum(log(2 pi var))
    Py_ssize_t d,
) noexcept nogil:
    """One class's score of one row. The sum over features uses eight fixed
    accumulators: gcc vectorises them without reordering additions, so the result
    is the same bits on any thread count."""
    cdef double acc[8]
    cdef double diff
    cdef Py_ssize_t j, t
    cdef Py_ssize_t d_blocked = d - d % 8
    for t in range(8):
        acc[t] = 0.0
    for j in range(0, d_blocked, 8):
        for t in range(8):
            diff = x[j + t] - theta[j + t]
            acc[t] = acc[t] + diff * diff * half_inv_var[j + t]
    for j in range(d_blocked, d):
        diff = x[j] - theta[j]
        acc[j - d_blocked] = acc[j - d_blocked] + diff * diff * half_inv_var[j]
    return log_norm - sum_of_8(acc)


cdef inline double gaussian_class_jll_missing(
    const floating* x,               # IN: one row, NaN where missing
    const double* theta,
    const double* half_inv_var,
    const double* half_log_2pi_var,  # IN: 0.5 * log(2 pi var), d values
    double log_prior,
    Py_ssize_t d,
) noexcept nogil:
    """The class score with the missing features' terms left out (marginalised)."""
    cdef Py_ssize_t j
    cdef double diff
    cdef double total = 0.0
    for j in range(d):
        if x[j] == x[j]:
            diff = x[j] - theta[j]
            total = total + (diff * diff * half_inv_var[j] + half_log_2pi_var[j])
    return log_prior - total


cdef inline int gaussian_predict_row(
    const floating* x,               # IN: one row, d values, NaN = missing
    const double* theta,             # IN: (k, d) class means
    const double* half_inv_var,      # IN: (k, d) 0.5 / variances
    const double* half_log_2pi_var,  # IN: (k, d) 0.5 * log(2 pi var)
    const double* log_norm,          # IN: (k,) log prior - sum of half_log_2pi_var
    const double* log_prior,         # IN: (k,) log class priors
    Py_ssize_t k,
    Py_ssize_t d,
    int mode,                        # PredictMode
    intp_t* label_out,               # OUT for MODE_ARGMAX
    double* row_out,                 # OUT (k values) for the other modes
) noexcept nogil:
    """Write one row's output; return 1 if its best score is not finite.

    A class score that comes out NaN (the row has a missing value) is recomputed
    leaving the missing features' terms out: their density is marginalised.
    MODE_ARGMAX keeps a running maximum and stores no scores.
    """
    cdef Py_ssize_t c
    cdef double value
    cdef double best = -INFINITY
    cdef intp_t best_class = 0
    cdef bint saw_nan = False
    for c in range(k):
        value = gaussian_class_jll(x, theta + c * d, half_inv_var + c * d, log_norm[c], d)
        if value != value:
            value = gaussian_class_jll_missing(x, theta + c * d, half_inv_var + c * d,
                                               half_log_2pi_var + c * d, log_prior[c], d)
        consider_class(value, c, &best, &best_class, &saw_nan)
        if mode != MODE_ARGMAX:
            row_out[c] = value
    return finish_scores(row_out, k, mode, label_out, best, best_class, saw_nan)
