"""fastnb.cython_kernels: the public, versioned nogil API of the fastnb kernels.

Design: thin, pointer-based wrappers over the same point functions the estimators'
loop kernels use (``_gaussian.pxd``, ``_counts.pxd``), with concrete names per
dtype (as SciPy's ``cython_blas``): one source of truth for the arithmetic.
Declarations and the promise about them live in ``cython_kernels.pxd``;
``tests/test_cython_api.py`` pins the signatures. These functions are C API: they
cannot raise, so bad sizes, out-of-range codes or indices and failed allocations
return -1.
"""

from libc.math cimport log, M_PI
from libc.stdlib cimport calloc, free, malloc

from _common cimport floating, MODE_JLL
from _gaussian cimport (
    welford_update_row, unshift_mean, chan_merge_moments, gaussian_predict_row,
)
from _counts cimport (
    integer_threshold, add_count_row, dense_linear_predict_row, csr_linear_predict_row,
)
from _categorical_point cimport (
    code_row, count_code_row, gather_strided, finish_prediction, fastnb_malloc, fastnb_free,
)

API_VERSION = FASTNB_CYTHON_API_VERSION


cdef int api_version() noexcept nogil:
    return FASTNB_CYTHON_API_VERSION


# -- GaussianNB -------------------------------------------------------------------------
cdef int _gaussian_accumulate(
    const floating* X, Py_ssize_t n, Py_ssize_t d, const Py_ssize_t* codes,
    const double* weights, Py_ssize_t k,
    double* class_count, double* mean, double* ssd,
) noexcept nogil:
    cdef Py_ssize_t i, c
    cdef double w
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
        if w > 0.0:
            welford_update_row(X + i * d, w, &b_count[c], b_shift + c * d,
                               b_mean + c * d, b_ssd + c * d, d)
    for c in range(k):
        unshift_mean(b_shift + c * d, b_mean + c * d, d)
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
    const floating* X, Py_ssize_t n, Py_ssize_t d,
    const double* theta, const double* var, const double* log_prior, Py_ssize_t k,
    double* out,
) noexcept nogil:
    cdef Py_ssize_t i, j, c
    cdef double total
    if n < 0 or d < 1 or k < 1:
        return -1
    # The per-fit constants that GaussianNB keeps beside theta_ and var_.
    cdef double* half_inv_var = <double*> malloc(k * (2 * d + 1) * sizeof(double))
    if half_inv_var == NULL:
        return -1
    cdef double* half_log_2pi_var = half_inv_var + k * d
    cdef double* log_norm = half_log_2pi_var + k * d
    for c in range(k):
        total = 0.0
        for j in range(d):
            half_inv_var[c * d + j] = 0.5 / var[c * d + j]
            half_log_2pi_var[c * d + j] = 0.5 * log(2.0 * M_PI * var[c * d + j])
            total = total + half_log_2pi_var[c * d + j]
        log_norm[c] = log_prior[c] - total
    for i in range(n):
        gaussian_predict_row(X + i * d, theta, half_inv_var, half_log_2pi_var, log_norm,
                             log_prior, k, d, MODE_JLL, NULL, out + i * k)
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


# -- BernoulliNB, MultinomialNB, ComplementNB -----------------------------------------
cdef int _count_accumulate(
    const floating* X, Py_ssize_t n, Py_ssize_t d, const Py_ssize_t* codes,
    const double* weights, Py_ssize_t k, int use_binarize, double binarize,
    double* class_count, double* feature_count,
) noexcept nogil:
    cdef Py_ssize_t i, c
    cdef double w
    cdef long long ithr = integer_threshold(binarize)
    if n < 0 or d < 1 or k < 1:
        return -1
    for i in range(n):
        c = codes[i]
        if c < 0 or c >= k:
            return -1
        w = 1.0 if weights == NULL else weights[i]
        class_count[c] += w
        add_count_row(X + i * d, w, feature_count + c * d, 0, d, use_binarize != 0,
                      binarize, ithr)
    return 0


cdef int count_accumulate_f64(
    const double* X, Py_ssize_t n, Py_ssize_t d, const Py_ssize_t* codes,
    const double* weights, Py_ssize_t k, int use_binarize, double binarize,
    double* class_count, double* feature_count) noexcept nogil:
    return _count_accumulate(X, n, d, codes, weights, k, use_binarize, binarize,
                             class_count, feature_count)


cdef int count_accumulate_f32(
    const float* X, Py_ssize_t n, Py_ssize_t d, const Py_ssize_t* codes,
    const double* weights, Py_ssize_t k, int use_binarize, double binarize,
    double* class_count, double* feature_count) noexcept nogil:
    return _count_accumulate(X, n, d, codes, weights, k, use_binarize, binarize,
                             class_count, feature_count)


cdef int _linear_jll(
    const floating* X, Py_ssize_t n, Py_ssize_t d, int use_binarize, double binarize,
    const double* W, const double* bias, Py_ssize_t k, double* out,
) noexcept nogil:
    cdef Py_ssize_t i
    cdef long long ithr = integer_threshold(binarize)
    if n < 0 or d < 1 or k < 1:
        return -1
    for i in range(n):
        dense_linear_predict_row(X + i * d, W, bias, k, d, use_binarize != 0, binarize,
                                 ithr, MODE_JLL, NULL, out + i * k)
    return 0


cdef int linear_jll_f64(
    const double* X, Py_ssize_t n, Py_ssize_t d, int use_binarize, double binarize,
    const double* W, const double* bias, Py_ssize_t k, double* out) noexcept nogil:
    return _linear_jll(X, n, d, use_binarize, binarize, W, bias, k, out)


cdef int linear_jll_f32(
    const float* X, Py_ssize_t n, Py_ssize_t d, int use_binarize, double binarize,
    const double* W, const double* bias, Py_ssize_t k, double* out) noexcept nogil:
    return _linear_jll(X, n, d, use_binarize, binarize, W, bias, k, out)


cdef int linear_jll_csr_f64(
    const double* data, const Py_ssize_t* indices, const Py_ssize_t* indptr,
    Py_ssize_t n, int use_binarize, double binarize,
    const double* W, const double* bias, Py_ssize_t k, Py_ssize_t d,
    double* out) noexcept nogil:
    cdef Py_ssize_t i, j, c, start, stop
    cdef Py_ssize_t nnz
    cdef int status = 0
    if n < 0 or d < 1 or k < 1:
        return -1
    nnz = indptr[n]
    # The estimators read W feature-major, (d, k): each nonzero then reads one
    # contiguous row of k weights.
    cdef double* WT = <double*> malloc(d * k * sizeof(double))
    if WT == NULL:
        return -1
    for c in range(k):
        for j in range(d):
            WT[j * k + c] = W[c * d + j]
    for i in range(n):
        start = indptr[i]
        stop = indptr[i + 1]
        if start < 0 or stop > nnz or stop < start:
            status = -1
            break
        if csr_linear_predict_row(data, indices, start, stop, nnz, WT, k, bias, k, d,
                                  use_binarize != 0, binarize, MODE_JLL, NULL,
                                  out + i * k, out + i * k) == 2:
            status = -1
            break
    free(WT)
    return status


# -- CategoricalNB ---------------------------------------------------------------------
# The estimator's own row functions (_categorical_point.pxd), on the public layout:
# class c's entries of feature j at table[c * total + offsets[j] + code].
cdef int categorical_accumulate(
    const long long* codes_X, Py_ssize_t n, Py_ssize_t d, const Py_ssize_t* codes,
    const double* weights, Py_ssize_t k, const Py_ssize_t* n_categories,
    const Py_ssize_t* offsets, Py_ssize_t total,
    double* class_count, double* category_count) noexcept nogil:
    cdef Py_ssize_t i, c
    cdef double w
    if n < 0 or d < 1 or k < 1:
        return -1
    for i in range(n):
        c = codes[i]
        if c < 0 or c >= k:
            return -1
        w = 1.0 if weights == NULL else weights[i]
        class_count[c] += w
        count_code_row(codes_X + i * d, d, n_categories, offsets, w,
                       category_count + c * total)
    return 0


cdef int categorical_jll(
    const long long* codes_X, Py_ssize_t n, Py_ssize_t d,
    const Py_ssize_t* n_categories, const Py_ssize_t* offsets, Py_ssize_t total,
    const double* log_prob, const double* class_log_prior, Py_ssize_t k,
    double* out) noexcept nogil:
    cdef Py_ssize_t i, j
    cdef Py_ssize_t* rows
    if n < 0 or d < 1 or k < 1:
        return -1
    rows = <Py_ssize_t*>fastnb_malloc(d, sizeof(Py_ssize_t))
    if rows == NULL:
        return -1
    for i in range(n):
        for j in range(d):
            rows[j] = code_row(codes_X[i * d + j], n_categories[j], -1)
        gather_strided(rows, d, log_prob, offsets, 1, total, k, out + i * k)
        finish_prediction(out + i * k, k, class_log_prior, MODE_JLL, out + i * k, NULL)
    fastnb_free(rows)
    return 0
