"""A consumer of fastnb.cython_kernels: fits and scores without the GIL."""

from fastnb.cython_kernels cimport (
    api_version,
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
