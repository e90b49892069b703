# Shared, header-only building blocks of the fastnb kernels.
#
# Everything here is `cdef inline ... noexcept nogil` or a type, so cimporting it
# creates no runtime dependency between extension modules.

from libc.math cimport exp, log, INFINITY, NAN

ctypedef Py_ssize_t intp_t

# Input features are read in the dtype the user gave us (float32 stays float32:
# half the memory traffic); every accumulation happens in double.
ctypedef fused floating:
    float
    double

# What a predict kernel writes for each row.
cdef enum PredictMode:
    MODE_ARGMAX = 0     # the index of the most likely class into an (n,) intp array
    MODE_JLL = 1        # the joint log likelihood into an (n, k) array
    MODE_LOG_PROBA = 2  # log posterior: the JLL minus its log-sum-exp
    MODE_PROBA = 3      # posterior probabilities


cdef inline double row_max(const double* row, Py_ssize_t k) noexcept nogil:
    cdef Py_ssize_t c
    cdef double top = row[0]
    for c in range(1, k):
        if row[c] > top:
            top = row[c]
    return top


cdef inline void finish_row(double* row, Py_ssize_t k, int mode) noexcept nogil:
    """Turn a row of joint log likelihoods into the requested output, in place.

    Normalisation is shifted by the row maximum, so no exp overflows, and takes
    one exp per class: MODE_PROBA stores exp(jll - max) and scales by the inverse
    sum; MODE_LOG_PROBA subtracts max + log(sum).
    """
    cdef Py_ssize_t c
    cdef double top, total, scale
    if mode != MODE_LOG_PROBA and mode != MODE_PROBA:
        return
    top = row_max(row, k)
    if top == INFINITY or top == -INFINITY or top != top:
        # Every class impossible (all -inf), or +inf/NaN: there is no finite
        # normaliser; give NaN, as scipy.special.logsumexp-based code does.
        for c in range(k):
            row[c] = NAN
        return
    total = 0.0
    if mode == MODE_PROBA:
        for c in range(k):
            row[c] = exp(row[c] - top)
            total = total + row[c]
        scale = 1.0 / total
        for c in range(k):
            row[c] = row[c] * scale
    else:
        for c in range(k):
            total = total + exp(row[c] - top)
        scale = top + log(total)
        for c in range(k):
            row[c] = row[c] - scale


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

    ssd is the centred second moment, the sum of squared deviations from the mean.
    Never forms E[x^2] - E[x]^2, so it is exact to rounding for any offset of the data.
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
