# fastnb.cython_kernels: the fastnb kernels, callable from Cython without the GIL.
#
# Usable from Cython via:
#
#     from fastnb.cython_kernels cimport gaussian_accumulate_f64, gaussian_jll_f64
#
# Every function is `noexcept nogil` and works on C-contiguous buffers passed as
# pointers with explicit sizes; names end in _f64 (double input) or _f32 (float
# input). Statistics and outputs are always double. Functions return 0 on success
# and -1 when they cannot allocate their scratch memory (or are given bad sizes).
# They are single-threaded: call them from your own prange to parallelise.
#
# API_VERSION (below) is 1. Signatures of version 1 never change; later versions
# only add functions. The test suite pins the exported signatures.

cdef enum:
    FASTNB_CYTHON_API_VERSION = 1

cdef int api_version() noexcept nogil

# -- GaussianNB ---------------------------------------------------------------------
# Fit accumulator. Adds the rows of X (n x d) to running per-class moments, in
# place: class_count[k] (weights), mean[k x d] and ssd[k x d] (centred sums of
# squares). codes[i] in [0, k) is row i's class; weights may be NULL (all ones).
# Start from zeros; var = ssd / class_count, as GaussianNB.var_ before smoothing.
# Batches merge exactly (Chan's formula): any split of the rows gives one result.
cdef int gaussian_accumulate_f64(
    const double* X, Py_ssize_t n, Py_ssize_t d, const Py_ssize_t* codes,
    const double* weights, Py_ssize_t k,
    double* class_count, double* mean, double* ssd) noexcept nogil
cdef int gaussian_accumulate_f32(
    const float* X, Py_ssize_t n, Py_ssize_t d, const Py_ssize_t* codes,
    const double* weights, Py_ssize_t k,
    double* class_count, double* mean, double* ssd) noexcept nogil

# Joint log likelihood. out[n x k] = log_prior[c] + log N(x | theta[c], var[c]),
# with theta and var (k x d) as GaussianNB.theta_ and GaussianNB.var_.
cdef int gaussian_jll_f64(
    const double* X, Py_ssize_t n, Py_ssize_t d,
    const double* theta, const double* var, const double* log_prior, Py_ssize_t k,
    double* out) noexcept nogil
cdef int gaussian_jll_f32(
    const float* X, Py_ssize_t n, Py_ssize_t d,
    const double* theta, const double* var, const double* log_prior, Py_ssize_t k,
    double* out) noexcept nogil
