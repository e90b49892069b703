# Parametric point functions (PoissonNB, ExponentialNB, GammaNB, LogNormalNB):
# the families and status bits, the support of each family, the vectorised log
# (_log_simd.h), and the gamma shape solver. _parametric_kernels.pyx loops over
# rows with them.

from libc.math cimport log, sqrt, INFINITY, fabs

# log(x) of float64 (_log_simd.h): within about 0.5 ulp, no division, and the
# same bits from the scalar function and the AVX2 block loop (libm's log is a
# call per value: the whole cost of GammaNB's and LogNormalNB's fit and
# predict). fastnb_logs_f64/_f32 write the logs of n values, ``outside`` for a
# value not finite and > 0 when outside_given.
cdef extern from "_log_simd.h":
    double fastnb_log(double x) noexcept nogil
    void fastnb_logs_f64(const double* x, Py_ssize_t n, double* out,
                         int outside_given, double outside) noexcept nogil
    void fastnb_logs_f32(const float* x, Py_ssize_t n, double* out,
                         int outside_given, double outside) noexcept nogil


# The families (fastnb/_parametric/_base.py has the same numbers).
cdef extern from *:
    """
    /* 2**53: every float64 at or above it is an integer. 2**52: adding it to
       a float64 in [0, 2**52) rounds that to an integer. */
    #define FASTNB_EXACT_INTEGERS 9007199254740992.0
    #define FASTNB_INTEGER_ROUNDING 4503599627370496.0
    #define FASTNB_GAMMA_SERIES_FROM 10.0
    """
    const double EXACT_INTEGERS "FASTNB_EXACT_INTEGERS"
    const double INTEGER_ROUNDING "FASTNB_INTEGER_ROUNDING"
    const double SERIES_FROM "FASTNB_GAMMA_SERIES_FROM"


cdef enum Family:
    POISSON = 0
    EXPONENTIAL = 1
    GAMMA = 2
    LOGNORMAL = 3

# Bits of the fit's status.
cdef enum Status:
    STATUS_INFINITE = 1
    STATUS_OUT_OF_SUPPORT = 2
    STATUS_NOT_INTEGER = 4


cdef inline int value_status(double v, int family) noexcept nogil:
    """0 when v (not NaN) is in the family's support, else its status bits."""
    if v == INFINITY or v == -INFINITY:
        return STATUS_INFINITE
    if family == GAMMA or family == LOGNORMAL:
        return 0 if v > 0.0 else STATUS_OUT_OF_SUPPORT
    if v < 0.0:
        return STATUS_OUT_OF_SUPPORT
    if family == POISSON and v < EXACT_INTEGERS and <double>(<long long>v) != v:
        return STATUS_NOT_INTEGER
    return 0


cdef inline bint in_support(double v, int family) noexcept nogil:
    """Whether v is a value the family takes (NaN: no), without a branch: the
    fit's loop over a row then vectorises. A float64 below 2**52 is an integer
    when adding and taking away 2**52 (which rounds it to an integer) gives it
    back."""
    if family == GAMMA or family == LOGNORMAL:
        return (v > 0.0) & (v < INFINITY)
    if family == POISSON:
        return (v >= 0.0) & (v < INFINITY) & (
            (v >= INTEGER_ROUNDING) | (((v + INTEGER_ROUNDING) - INTEGER_ROUNDING) == v))
    return (v >= 0.0) & (v < INFINITY)


# -- the gamma shape ------------------------------------------------------------------
#
# The maximum-likelihood shape a of a gamma solves g(a) = log(a) - digamma(a) = s,
# s = log(mean x) - mean(log x) > 0 (Jensen). g falls from +inf to 0 as a grows,
# as 1/(2a) for large a: log(a) - digamma(a) is never formed as a difference of
# two values near log(a) (which would lose the digits of the answer), but from its
# asymptotic series, after the recurrence digamma(a) = digamma(a + 1) - 1/a has
# moved a to 10 or more.

cdef inline double log_minus_digamma(double a) noexcept nogil:
    """g(a) = log(a) - digamma(a), a > 0, to a few ulps."""
    cdef double shifted = a, extra = 0.0, inv, inv2, series
    while shifted < SERIES_FROM:
        extra = extra + 1.0 / shifted
        shifted = shifted + 1.0
    # log(z) - digamma(z) = 1/(2z) + sum_k B_2k / (2k z^2k), k = 1..7 (the next
    # term is below 5e-17 of g at z >= 10)
    inv = 1.0 / shifted
    inv2 = inv * inv
    series = inv2 * (1.0 / 12 - inv2 * (1.0 / 120 - inv2 * (1.0 / 252 - inv2 * (
        1.0 / 240 - inv2 * (1.0 / 132 - inv2 * (691.0 / 32760 - inv2 / 12.0))))))
    series = 0.5 * inv + series
    if shifted == a:
        return series
    # g(a) = log(a) - log(a + n) + g(a + n) + sum 1/(a + i)
    return (log(a / shifted) + extra) + series


cdef inline double log_minus_digamma_slope(double a) noexcept nogil:
    """g'(a) = 1/a - trigamma(a) (< 0), to about 1e-12: Newton's step only."""
    cdef double shifted = a, extra = 0.0, inv, inv2, trigamma
    while shifted < SERIES_FROM:
        extra = extra + 1.0 / (shifted * shifted)
        shifted = shifted + 1.0
    inv = 1.0 / shifted
    inv2 = inv * inv
    trigamma = inv + inv2 * (0.5 + inv * (1.0 / 6 - inv2 * (1.0 / 30 - inv2 * (
        1.0 / 42 - inv2 / 30.0))))
    return 1.0 / a - (trigamma + extra)


cdef inline double gamma_shape(double s) noexcept nogil:
    """The a > 0 with log(a) - digamma(a) = s (s > 0): Minka's start, then
    Newton steps on 1/a (Minka, "Estimating a Gamma distribution", 2002) until
    a step changes a by at most 2 ulps, or (rounding) no less than the step
    before it: Newton's steps shrink quadratically until they reach the
    rounding of g, so a step that does not shrink is at machine precision
    (3-6 steps in all)."""
    cdef double a, inv_a, change
    cdef double last_change = INFINITY
    cdef int it
    a = (3.0 - s + sqrt((s - 3.0) * (s - 3.0) + 24.0 * s)) / (12.0 * s)
    for it in range(100):
        inv_a = 1.0 / a + (log_minus_digamma(a) - s) / (
            a * a * log_minus_digamma_slope(a))
        if not inv_a > 0.0:
            # a step past the pole at zero: halve instead (never seen from
            # Minka's start, which is within 1.5% of the root)
            a = 0.5 * a
            continue
        change = fabs(1.0 / inv_a - a)
        if change >= last_change:
            break       # at the rounding floor: keep the a before this step
        a = 1.0 / inv_a
        if change <= 4.5e-16 * a:
            break
        last_change = change
    return a


