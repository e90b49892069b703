"""A consumer of fastnb.cython_kernels: fits and scores without the GIL."""

from fastnb.cython_kernels cimport (
    api_version,
    categorical_accumulate,
    categorical_jll,
    count_accumulate_f64,
    linear_jll_csr_f64,
    linear_jll_f32,
    linear_jll_f64,
    gaussian_accumulate_f32,
    gaussian_accumulate_f64,
    gaussian_jll_f32,
    gaussian_jll_f64,
)

import numpy as np


def version():
    return api_version()


def gaussian_fit(X, Py_ssize_t[::1] codes, Py_ssize_t k, batches=1):
    """Per-class (count, mean, ssd), streamed over `batches` slices of the rows."""
    cdef Py_ssize_t n = X.shape[0], d = X.shape[1], start, stop, b
    cdef int status = 0
    count = np.zeros(k)
    mean = np.zeros((k, d))
    ssd = np.zeros((k, d))
    cdef double[::1] count_v = count
    cdef double[:, ::1] mean_v = mean, ssd_v = ssd
    cdef double[:, ::1] X64
    cdef float[:, ::1] X32
    cdef bint single = X.dtype == np.float32
    if single:
        X32 = X
    else:
        X64 = X
    for b in range(batches):
        start, stop = b * n // batches, (b + 1) * n // batches
        with nogil:
            if not single:
                status = gaussian_accumulate_f64(
                    &X64[start, 0], stop - start, d, &codes[start], NULL, k,
                    &count_v[0], &mean_v[0, 0], &ssd_v[0, 0])
            else:
                status = gaussian_accumulate_f32(
                    &X32[start, 0], stop - start, d, &codes[start], NULL, k,
                    &count_v[0], &mean_v[0, 0], &ssd_v[0, 0])
        if status != 0:
            raise RuntimeError("gaussian_accumulate failed")
    return count, mean, ssd


def gaussian_jll(X, double[:, ::1] theta, double[:, ::1] var, double[::1] log_prior):
    cdef Py_ssize_t n = X.shape[0], d = X.shape[1], k = theta.shape[0]
    cdef int status
    out = np.empty((n, k))
    cdef double[:, ::1] out_v = out
    cdef double[:, ::1] X64
    cdef float[:, ::1] X32
    if X.dtype == np.float32:
        X32 = X
        with nogil:
            status = gaussian_jll_f32(&X32[0, 0], n, d, &theta[0, 0], &var[0, 0],
                                      &log_prior[0], k, &out_v[0, 0])
    else:
        X64 = X
        with nogil:
            status = gaussian_jll_f64(&X64[0, 0], n, d, &theta[0, 0], &var[0, 0],
                                      &log_prior[0], k, &out_v[0, 0])
    if status != 0:
        raise RuntimeError("gaussian_jll failed")
    return out


def count_fit(double[:, ::1] X, Py_ssize_t[::1] codes, Py_ssize_t k,
              bint use_binarize=False, double binarize=0.0):
    cdef Py_ssize_t n = X.shape[0], d = X.shape[1]
    cdef int status
    class_count = np.zeros(k)
    feature_count = np.zeros((k, d))
    cdef double[::1] cc = class_count
    cdef double[:, ::1] fc = feature_count
    with nogil:
        status = count_accumulate_f64(&X[0, 0], n, d, &codes[0], NULL, k, use_binarize,
                                      binarize, &cc[0], &fc[0, 0])
    if status != 0:
        raise RuntimeError("count_accumulate failed")
    return class_count, feature_count


def linear_jll(X, double[:, ::1] W, double[::1] bias, bint use_binarize=False,
               double binarize=0.0):
    cdef Py_ssize_t n = X.shape[0], d = X.shape[1], k = W.shape[0]
    cdef int status
    out = np.empty((n, k))
    cdef double[:, ::1] out_v = out
    cdef double[:, ::1] X64
    cdef float[:, ::1] X32
    if X.dtype == np.float32:
        X32 = X
        with nogil:
            status = linear_jll_f32(&X32[0, 0], n, d, use_binarize, binarize, &W[0, 0],
                                    &bias[0], k, &out_v[0, 0])
    else:
        X64 = X
        with nogil:
            status = linear_jll_f64(&X64[0, 0], n, d, use_binarize, binarize, &W[0, 0],
                                    &bias[0], k, &out_v[0, 0])
    if status != 0:
        raise RuntimeError("linear_jll failed")
    return out


def linear_jll_csr(double[::1] data, Py_ssize_t[::1] indices, Py_ssize_t[::1] indptr,
                   double[:, ::1] W, double[::1] bias, bint use_binarize=False,
                   double binarize=0.0):
    cdef Py_ssize_t n = indptr.shape[0] - 1, k = W.shape[0], d = W.shape[1]
    cdef int status
    out = np.empty((n, k))
    cdef double[:, ::1] out_v = out
    with nogil:
        status = linear_jll_csr_f64(&data[0], &indices[0], &indptr[0], n, use_binarize,
                                    binarize, &W[0, 0], &bias[0], k, d, &out_v[0, 0])
    if status != 0:
        raise RuntimeError("linear_jll_csr failed")
    return out


def categorical_fit(long long[:, ::1] codes_X, Py_ssize_t[::1] codes, Py_ssize_t k,
                    Py_ssize_t[::1] n_categories):
    cdef Py_ssize_t n = codes_X.shape[0], d = codes_X.shape[1]
    offsets_arr = np.concatenate([[0], np.cumsum(n_categories)[:-1]]).astype(np.intp)
    cdef Py_ssize_t[::1] offsets = offsets_arr
    cdef Py_ssize_t total = int(np.sum(n_categories))
    cdef int status
    class_count = np.zeros(k)
    category_count = np.zeros((k, total))
    cdef double[::1] cc = class_count
    cdef double[:, ::1] table = category_count
    with nogil:
        status = categorical_accumulate(&codes_X[0, 0], n, d, &codes[0], NULL, k,
                                        &n_categories[0], &offsets[0], total, &cc[0],
                                        &table[0, 0])
    if status != 0:
        raise RuntimeError("categorical_accumulate failed")
    return class_count, category_count


def categorical_scores(long long[:, ::1] codes_X, Py_ssize_t[::1] n_categories,
                       double[:, ::1] log_prob, double[::1] class_log_prior):
    cdef Py_ssize_t n = codes_X.shape[0], d = codes_X.shape[1], k = log_prob.shape[0]
    offsets_arr = np.concatenate([[0], np.cumsum(n_categories)[:-1]]).astype(np.intp)
    cdef Py_ssize_t[::1] offsets = offsets_arr
    cdef int status
    out = np.empty((n, k))
    cdef double[:, ::1] out_v = out
    with nogil:
        status = categorical_jll(&codes_X[0, 0], n, d, &n_categories[0], &offsets[0],
                                 log_prob.shape[1], &log_prob[0, 0], &class_log_prior[0],
                                 k, &out_v[0, 0])
    if status != 0:
        raise RuntimeError("categorical_jll failed")
    return out
