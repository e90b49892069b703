# fastnb.cython_kernels: the fastnb kernels, callable from Cython without the GIL.
#
# Usable from Cython via:
#
#     from fastnb.cython_kernels cimport gaussian_accumulate_f64, gaussian_jll_f64
#
# Every function is `noexcept nogil` and works on C-contiguous buffers passed as
# pointers with explicit sizes; names end in _f64 (double input) or _f32 (float
# input). Statistics and outputs are always double. Functions return 0 on success
# and -1 when they cannot allocate their scratch memory, or are given bad sizes,
# class codes or CSR indices out of range. They are single-threaded: call them from
# your own prange to parallelise. They run the same per-row arithmetic as fastnb's
# estimators (one source, src_cython/_gaussian.pxd and _counts.pxd).
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
# with theta and var (k x d) as GaussianNB.theta_ and GaussianNB.var_. A NaN in X
# is a missing value: its feature's term is left out, as GaussianNB does.
cdef int gaussian_jll_f64(
    const double* X, Py_ssize_t n, Py_ssize_t d,
    const double* theta, const double* var, const double* log_prior, Py_ssize_t k,
    double* out) noexcept nogil
cdef int gaussian_jll_f32(
    const float* X, Py_ssize_t n, Py_ssize_t d,
    const double* theta, const double* var, const double* log_prior, Py_ssize_t k,
    double* out) noexcept nogil

# -- BernoulliNB, MultinomialNB, ComplementNB ----------------------------------------------
# Count accumulator. Adds the rows of X (n x d) to running counts, in place:
# class_count[k] += weight of each row; feature_count[k x d] += weight * x.
# binarize: with use_binarize != 0, x is replaced by (x > binarize) (BernoulliNB;
# float input is compared with a float threshold, as NumPy does); with
# use_binarize == 0, x is used as is (MultinomialNB, ComplementNB).
cdef int count_accumulate_f64(
    const double* X, Py_ssize_t n, Py_ssize_t d, const Py_ssize_t* codes,
    const double* weights, Py_ssize_t k, int use_binarize, double binarize,
    double* class_count, double* feature_count) noexcept nogil
cdef int count_accumulate_f32(
    const float* X, Py_ssize_t n, Py_ssize_t d, const Py_ssize_t* codes,
    const double* weights, Py_ssize_t k, int use_binarize, double binarize,
    double* class_count, double* feature_count) noexcept nogil

# Linear joint log likelihood: out[n x k] = X @ W.T + bias, with W (k x d), as
#   MultinomialNB: W = feature_log_prob_, bias = class_log_prior_;
#   ComplementNB:  W = feature_log_prob_, bias = 0 (class_log_prior_ if k == 1);
#   BernoulliNB:   W = feature_log_prob_ - log(1 - exp(feature_log_prob_)),
#                  bias = class_log_prior_ + sum_j log(1 - exp(feature_log_prob_)),
#                  with X binarized (use_binarize, binarize) on the fly.
cdef int linear_jll_f64(
    const double* X, Py_ssize_t n, Py_ssize_t d, int use_binarize, double binarize,
    const double* W, const double* bias, Py_ssize_t k, double* out) noexcept nogil
cdef int linear_jll_f32(
    const float* X, Py_ssize_t n, Py_ssize_t d, int use_binarize, double binarize,
    const double* W, const double* bias, Py_ssize_t k, double* out) noexcept nogil
# The same for a CSR matrix (data, indices, indptr with n + 1 entries); d is the
# number of columns. Row pointers or column indices out of range return -1.
cdef int linear_jll_csr_f64(
    const double* data, const Py_ssize_t* indices, const Py_ssize_t* indptr,
    Py_ssize_t n, int use_binarize, double binarize,
    const double* W, const double* bias, Py_ssize_t k, Py_ssize_t d,
    double* out) noexcept nogil

# -- CategoricalNB (on integer codes) ------------------------------------------------------
# Feature j's categories are codes 0 .. n_categories[j] - 1; its counts and log
# probabilities for class c live at table[c * total + offsets[j] + code], where
# offsets[j] = sum of n_categories before j and total = sum of all n_categories
# (CategoricalNB.category_count_ and feature_log_prob_, concatenated per class).
# A code < 0 or >= n_categories[j] is missing: skipped in fit, left out of the
# likelihood in predict (fastnb's marginalisation).
cdef int categorical_accumulate(
    const long long* codes_X, Py_ssize_t n, Py_ssize_t d, const Py_ssize_t* codes,
    const double* weights, Py_ssize_t k, const Py_ssize_t* n_categories,
    const Py_ssize_t* offsets, Py_ssize_t total,
    double* class_count, double* category_count) noexcept nogil
cdef int categorical_jll(
    const long long* codes_X, Py_ssize_t n, Py_ssize_t d,
    const Py_ssize_t* n_categories, const Py_ssize_t* offsets, Py_ssize_t total,
    const double* log_prob, const double* class_log_prior, Py_ssize_t k,
    double* out) noexcept nogil
