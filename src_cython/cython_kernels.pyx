"""fastnb.cython_kernels: the public, versioned nogil API of the fastnb kernels.

Design: thin, pointer-based wrappers over the same inline row kernels the
estimators use (``_common.pxd``), with concrete names per dtype (as SciPy's
``cython_blas``). Declarations and the promise about them live in
``cython_kernels.pxd``; ``tests/test_cython_api.py`` pins the signatures.
"""

from libc.math cimport log, M_PI
from libc.stdlib cimport calloc, free, malloc

from _common cimport chan_merge_moments

API_VERSION = FASTNB_CYTHON_API_VERSION


cdef int api_version() noexcept nogil:
    return FASTNB_CYTHON_API_VERSION


ctypedef fused real:
    float
    double


# -- GaussianNB -------------------------------------------------------------------------
cdef int _gaussian_accumulate(
    const real* X, Py_ssize_t n, Py_ssize_t d, const Py_ssize_t* codes,
    const double* weights, Py_ssize_t k,
    double* class_count, double* mean, double* ssd,
) noexcept nogil:
    cdef Py_ssize_t i, j, c
    cdef double w, total, share, factor, delta
    cdef const real* x
    if n < 0 or d < 1 or k < 1:
        return -1
    # The batch's own moments, about each class's first row (shifted Welford),
    # then merged into the running state: exact for any offset of the data.
    cdef double* batch = <double*> calloc(k * (3 * d + 1), sizeof(double))
    if batch == NULL:
        return -1
    cdef double* b_count = batch
    cdef double* b_shift = batch + k
    cdef double* b_mean = b_shift + k * d
    cdef double* b_ssd = b_mean + k * d
    for i in range(n):
        c = codes[i]
        if c < 0 or c >= k:
            free(batch)
            return -1
        w = 1.0 if weights == NULL else weights[i]
        if not w > 0.0:
            continue
        x = X + i * d
        if b_count[c] == 0.0:
            b_count[c] = w
            for j in range(d):
                b_shift[c * d + j] = x[j]
            continue
        total = b_count[c] + w
        share = w / total
        factor = w * (b_count[c] / total)
        b_count[c] = total
        for j in range(d):
            delta = (x[j] - b_shift[c * d + j]) - b_mean[c * d + j]
            b_mean[c * d + j] += delta * share
            b_ssd[c * d + j] += factor * delta * delta
    for c in range(k):
        if b_count[c] > 0.0:
            for j in range(d):
                b_mean[c * d + j] += b_shift[c * d + j]
            chan_merge_moments(class_count[c], mean + c * d, ssd + c * d,
                               b_count[c], b_mean + c * d, b_ssd + c * d, d)
            class_count[c] += b_count[c]
    free(batch)
    return 0


cdef int gaussian_accumulate_f64(
    const double* X, Py_ssize_t n, Py_ssize_t d, const Py_ssize_t* codes,
    const double* weights, Py_ssize_t k,
    double* class_count, double* mean, double* ssd) noexcept nogil:
    return _gaussian_accumulate(X, n, d, codes, weights, k, class_count, mean, ssd)


cdef int gaussian_accumulate_f32(
    const float* X, Py_ssize_t n, Py_ssize_t d, const Py_ssize_t* codes,
    const double* weights, Py_ssize_t k,
    double* class_count, double* mean, double* ssd) noexcept nogil:
    return _gaussian_accumulate(X, n, d, codes, weights, k, class_count, mean, ssd)


cdef int _gaussian_jll(
    const real* X, Py_ssize_t n, Py_ssize_t d,
    const double* theta, const double* var, const double* log_prior, Py_ssize_t k,
    double* out,
) noexcept nogil:
    cdef Py_ssize_t i, j, c
    cdef double total, diff
    if n < 0 or d < 1 or k < 1:
        return -1
    cdef double* half_inv_var = <double*> malloc(k * (d + 1) * sizeof(double))
    if half_inv_var == NULL:
        return -1
    cdef double* log_norm = half_inv_var + k * d
    for c in range(k):
        total = 0.0
        for j in range(d):
            half_inv_var[c * d + j] = 0.5 / var[c * d + j]
            total = total + 0.5 * log(2.0 * M_PI * var[c * d + j])
        log_norm[c] = log_prior[c] - total
    for i in range(n):
        for c in range(k):
            total = 0.0
            for j in range(d):
                diff = X[i * d + j] - theta[c * d + j]
                total = total + diff * diff * half_inv_var[c * d + j]
            out[i * k + c] = log_norm[c] - total
    free(half_inv_var)
    return 0


cdef int gaussian_jll_f64(
    const double* X, Py_ssize_t n, Py_ssize_t d,
    const double* theta, const double* var, const double* log_prior, Py_ssize_t k,
    double* out) noexcept nogil:
    return _gaussian_jll(X, n, d, theta, var, log_prior, k, out)


cdef int gaussian_jll_f32(
    const float* X, Py_ssize_t n, Py_ssize_t d,
    const double* theta, const double* var, const double* log_prior, Py_ssize_t k,
    double* out) noexcept nogil:
    return _gaussian_jll(X, n, d, theta, var, log_prior, k, out)
