"""Discrete Naive Bayes kernels (Bernoulli, Multinomial, Complement).

Design
------
Fit. All three models need the same sufficient statistics: per-class weighted
feature sums ``fc[c, j] = sum_i w_i f(x_ij)`` and class weights ``cc[c]``, where
``f`` is the identity or, for BernoulliNB, the threshold ``x > binarize`` applied
on the fly (no binarized copy of X is ever made). Every ``fc[c, j]`` is summed in
row order, starting from the value the caller passes in (zeros for ``fit``, the
current counts for ``partial_fit``), so

* the result does not depend on how the work is split between threads, and
* ``partial_fit`` over any split of the rows gives the same bits as one ``fit``.

Dense X is split between threads by contiguous column blocks (each thread reads
every row, but only its columns); CSR X is split by class (each thread handles
all the rows of its classes, in row order). Neither needs per-thread scratch
copies of the k x d table or a merge step.

Values are read in the caller's dtype (float32/64, bool/uint8, int8/16/32/64):
nothing is converted. The same pass counts negative values (for the models that
forbid them) and, when thresholding, non-finite values (which thresholding would
otherwise hide); without thresholding NaN and inf propagate into the sums.

Predict. The joint log likelihood is linear in X: ``jll = X @ W.T + b``. Dense
rows take one dot product per class (eight fixed accumulators: vectorised, and
bit-reproducible whatever the thread count); CSR rows add ``v * W_T[j, :]`` from
a feature-major (d x k) copy of the weights, so each nonzero reads one contiguous
row of k weights. ``MODE_ARGMAX`` keeps a running maximum and writes one label
index per row; the other modes write the (n, k) output and finish it in place.
"""

from cython.parallel cimport prange, parallel
from libc.stdlib cimport malloc, calloc, free
from libc.math cimport INFINITY

from _common cimport (
    intp_t, floating, finish_row,
    MODE_ARGMAX, MODE_JLL, MODE_LOG_PROBA, MODE_PROBA,
)

import numpy as np


# Every dense dtype a kernel reads as it is (numpy bool is read as uint8).
ctypedef unsigned char uint8_t_
ctypedef signed char int8_t_

ctypedef fused value_t:
    float
    double
    uint8_t_
    int8_t_
    signed char
    short
    int
    long long

ctypedef fused index_t:
    int
    long long


# ----------------------------------------------------------------------------------
# Fit
# ----------------------------------------------------------------------------------

cdef inline value_t native_threshold(value_t dummy, long long ithr) noexcept nogil:
    """floor(threshold) clamped to value_t's range (threshold >= 0): for integer x,
    x > threshold exactly when x > native_threshold, compared in x's own width."""
    if value_t is uint8_t_:
        return <value_t>(ithr if ithr < 255 else 255)
    elif value_t is int8_t_:
        return <value_t>(ithr if ithr < 127 else 127)
    elif value_t is short:
        return <value_t>(ithr if ithr < 32767 else 32767)
    elif value_t is int:
        return <value_t>(ithr if ithr < 2147483647 else 2147483647)
    else:
        return <value_t>ithr


cdef void dense_fit_block(
    const value_t[:, ::1] X,    # IN: (n, d)
    const intp_t* codes,        # IN: (n,) class of each row
    const double* weights,      # IN: (n,) or NULL
    Py_ssize_t n_classes,
    double* fc,                 # IN/OUT: (k, d) feature sums
    Py_ssize_t j0,              # first column of this block
    Py_ssize_t j1,              # one past the last column
    bint binarize,
    double thr,                 # threshold, for float/double input
    long long ithr,             # floor(threshold), for integer input
    bint check_neg,
    Py_ssize_t* n_bad,          # OUT: non-finite values seen (thresholding only)
    Py_ssize_t* n_neg,          # OUT: negative values seen (check_neg only)
) noexcept nogil:
    cdef Py_ssize_t i, j
    cdef Py_ssize_t n = X.shape[0]
    cdef Py_ssize_t d = X.shape[1]
    cdef double w
    cdef double* row
    cdef const value_t* x
    cdef Py_ssize_t bad = 0
    cdef Py_ssize_t neg = 0
    cdef float fthr = <float>thr
    cdef value_t tthr = native_threshold[value_t](0, ithr)
    cdef Py_ssize_t width = j1 - j0
    cdef Py_ssize_t c
    cdef int* counts = NULL
    cdef int* crow
    if value_t is not float and value_t is not double:
        if binarize and weights == NULL and n < 2147483647:
            # Unweighted thresholding of integers: the counts are integers. Count
            # in int32 (8 lanes per AVX2 op, straight from the input's bytes), then
            # add once: integer sums below 2**53 are exact in float64, so the bits
            # are those of adding 1.0 row by row.
            counts = <int*>calloc(n_classes * width, sizeof(int))
            if counts != NULL:
                for i in range(n):
                    crow = counts + codes[i] * width
                    x = &X[i, 0] + j0
                    for j in range(width):
                        crow[j] = crow[j] + (x[j] > tthr)
                for c in range(n_classes):
                    for j in range(width):
                        fc[c * d + j0 + j] = fc[c * d + j0 + j] + <double>counts[c * width + j]
                free(counts)
                n_bad[0] = 0
                n_neg[0] = 0
                return
    for i in range(n):
        w = 1.0 if weights == NULL else weights[i]
        row = fc + codes[i] * d
        x = &X[i, 0]
        if binarize:
            if value_t is float:
                # numpy compares float32 data with a float32 threshold.
                for j in range(j0, j1):
                    row[j] = row[j] + w * <double>(x[j] > fthr)
                for j in range(j0, j1):
                    bad += (x[j] - x[j]) != 0.0
            elif value_t is double:
                for j in range(j0, j1):
                    row[j] = row[j] + w * <double>(x[j] > thr)
                for j in range(j0, j1):
                    bad += (x[j] - x[j]) != 0.0
            else:
                for j in range(j0, j1):
                    row[j] = row[j] + w * <double>(x[j] > tthr)
        else:
            for j in range(j0, j1):
                row[j] = row[j] + w * x[j]
            if check_neg:
                if value_t is not uint8_t_:
                    for j in range(j0, j1):
                        neg += x[j] < 0
    n_bad[0] = bad
    n_neg[0] = neg


cdef void accumulate_class_counts(
    const intp_t[::1] codes, const double* weights, double[::1] cc,
) noexcept nogil:
    cdef Py_ssize_t i
    if weights == NULL:
        for i in range(codes.shape[0]):
            cc[codes[i]] += 1.0
    else:
        for i in range(codes.shape[0]):
            cc[codes[i]] += weights[i]


def dense_fit(
    const value_t[:, ::1] X,          # IN: (n, d) samples, any supported dtype
    const intp_t[::1] codes,          # IN: (n,) class index in [0, k)
    const double[::1] sample_weight,  # IN: (n,) or None
    double[:, ::1] fc,                # IN/OUT: (k, d) feature sums, accumulated into
    double[::1] cc,                   # IN/OUT: (k,) class weights, accumulated into
    bint binarize,
    double threshold,
    bint check_neg,
    Py_ssize_t block_align,           # columns per cache line of X's dtype
    int n_threads,
):
    """Accumulate per-class feature sums of dense X in one pass.

    Returns ``(n_bad, n_neg)``: non-finite values met while thresholding, and
    negative values met when ``check_neg``.
    """
    cdef Py_ssize_t d = X.shape[1]
    cdef const double* weights = NULL
    cdef Py_ssize_t n_blocks, b, width, j0, j1
    cdef long long ithr
    if sample_weight is not None:
        weights = &sample_weight[0]
    if threshold >= 9.2e18:
        ithr = 9223372036854775807
    else:
        ithr = <long long>threshold  # threshold >= 0: truncation is floor
    # Column blocks: one per thread, cut at cache-line boundaries. Each fc[c, j] is
    # summed by one thread in row order, so the cut never changes the result.
    n_blocks = n_threads if n_threads > 1 else 1
    width = (d + n_blocks - 1) // n_blocks
    width = ((width + block_align - 1) // block_align) * block_align
    n_blocks = (d + width - 1) // width
    bad_arr = np.zeros(n_blocks, dtype=np.intp)
    neg_arr = np.zeros(n_blocks, dtype=np.intp)
    cdef intp_t[::1] bad = bad_arr
    cdef intp_t[::1] neg = neg_arr
    with nogil:
        if n_blocks == 1:
            dense_fit_block[value_t](X, &codes[0], weights, fc.shape[0], &fc[0, 0], 0, d,
                            binarize,
                            threshold, ithr, check_neg, &bad[0], &neg[0])
        else:
            for b in prange(n_blocks, schedule='static', num_threads=n_threads):
                j0 = b * width
                j1 = j0 + width
                if j1 > d:
                    j1 = d
                dense_fit_block[value_t](X, &codes[0], weights, fc.shape[0], &fc[0, 0], j0,
                                j1, binarize,
                                threshold, ithr, check_neg, &bad[b], &neg[b])
        accumulate_class_counts(codes, weights, cc)
    return int(bad_arr.sum()), int(neg_arr.sum())


cdef void csr_fit_class(
    const floating[::1] data,
    const index_t[::1] indices,
    const index_t[::1] indptr,
    const intp_t* rows,          # IN: this class's rows, ascending
    Py_ssize_t n_rows,
    const double* weights,
    double* row,                 # IN/OUT: fc[c, :]
    Py_ssize_t d,
    bint binarize,
    double thr,
    bint check_neg,
    intp_t* out_flags,           # OUT: [n_bad, n_neg, n_malformed]
) noexcept nogil:
    cdef Py_ssize_t r, i, p, start, stop, j
    cdef Py_ssize_t nnz = data.shape[0]
    cdef double w
    cdef floating v
    cdef floating fthr = <floating>thr
    cdef Py_ssize_t bad = 0, neg = 0, malformed = 0
    for r in range(n_rows):
        i = rows[r]
        w = 1.0 if weights == NULL else weights[i]
        start = indptr[i]
        stop = indptr[i + 1]
        if start < 0 or stop > nnz or stop < start:
            malformed += 1
            continue
        for p in range(start, stop):
            j = indices[p]
            if j < 0 or j >= d:
                malformed += 1
                continue
            v = data[p]
            if binarize:
                if v > fthr:
                    row[j] += w
                bad += (v - v) != 0
            else:
                row[j] += w * v
                neg += v < 0
    out_flags[0] = bad
    out_flags[1] = neg if check_neg else 0
    out_flags[2] = malformed


def csr_fit(
    const floating[::1] data,         # IN: CSR values
    const index_t[::1] indices,       # IN: CSR column indices
    const index_t[::1] indptr,        # IN: (n + 1,) CSR row pointers
    Py_ssize_t n_features,
    const intp_t[::1] codes,          # IN: (n,) class index in [0, k)
    const double[::1] sample_weight,  # IN: (n,) or None
    double[:, ::1] fc,                # IN/OUT: (k, d)
    double[::1] cc,                   # IN/OUT: (k,)
    bint binarize,
    double threshold,
    bint check_neg,
    int n_threads,
):
    """Accumulate per-class feature sums of a CSR matrix in one pass over its nonzeros.

    Rows are grouped by class (a stable counting sort, O(n)); each class is one
    task. Returns ``(n_bad, n_neg, n_malformed)``; ``n_malformed`` counts row
    pointers or column indices out of range (such entries are skipped).
    """
    cdef Py_ssize_t n = codes.shape[0]
    cdef Py_ssize_t k = fc.shape[0]
    cdef Py_ssize_t d = n_features
    cdef Py_ssize_t i, c
    cdef const double* weights = NULL
    if sample_weight is not None:
        weights = &sample_weight[0]
    start_arr = np.zeros(k + 1, dtype=np.intp)
    order_arr = np.empty(n, dtype=np.intp)
    flags_arr = np.zeros((k, 3), dtype=np.intp)
    cdef intp_t[::1] start = start_arr
    cdef intp_t[::1] order = order_arr
    cdef intp_t[:, ::1] flags = flags_arr
    fill_arr = np.empty(k, dtype=np.intp)
    cdef intp_t[::1] fill = fill_arr
    with nogil:
        for i in range(n):
            start[codes[i] + 1] += 1
        for c in range(k):
            start[c + 1] += start[c]
            fill[c] = start[c]
        for i in range(n):
            c = codes[i]
            order[fill[c]] = i
            fill[c] += 1
        if n_threads <= 1 or k == 1:
            for c in range(k):
                csr_fit_class(data, indices, indptr, &order[0] + start[c],
                              start[c + 1] - start[c], weights, &fc[c, 0], d,
                              binarize, threshold, check_neg, &flags[c, 0])
        else:
            for c in prange(k, schedule='static', num_threads=n_threads):
                csr_fit_class(data, indices, indptr, &order[0] + start[c],
                              start[c + 1] - start[c], weights, &fc[c, 0], d,
                              binarize, threshold, check_neg, &flags[c, 0])
        accumulate_class_counts(codes, weights, cc)
    totals = flags_arr.sum(axis=0)
    return int(totals[0]), int(totals[1]), int(totals[2])


def count_nonfinite(const double[:, ::1] a):
    """Number of NaN or infinite entries of a 2d float64 array."""
    cdef Py_ssize_t i, j
    cdef Py_ssize_t bad = 0
    with nogil:
        for i in range(a.shape[0]):
            for j in range(a.shape[1]):
                bad += (a[i, j] - a[i, j]) != 0.0
    return bad


# ----------------------------------------------------------------------------------
# Predict
# ----------------------------------------------------------------------------------

cdef inline double sum8(const double* acc) noexcept nogil:
    return ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]))


cdef inline double dense_dot(
    const value_t* x, const double* w, Py_ssize_t d,
) noexcept nogil:
    """sum_j x[j] * w[j] with eight fixed accumulators."""
    cdef double acc[8]
    cdef Py_ssize_t j, t
    cdef Py_ssize_t d_blocked = d - d % 8
    for t in range(8):
        acc[t] = 0.0
    for j in range(0, d_blocked, 8):
        for t in range(8):
            acc[t] = acc[t] + x[j + t] * w[j + t]
    for j in range(d_blocked, d):
        acc[j - d_blocked] = acc[j - d_blocked] + x[j] * w[j]
    return sum8(acc)


cdef inline double dense_masked_dot(
    const value_t* x, const double* w, Py_ssize_t d, double thr, long long ithr,
) noexcept nogil:
    """sum of w[j] over the j with x[j] > threshold, with eight fixed accumulators.

    Written as ``w * (x > thr)``, not as a conditional add: gcc 12 at -O3 with
    -mavx2 miscompiles the if-converted form ``acc += (w if x > thr else 0)``
    (masked loads give wrong sums; reproduced in plain C).
    """
    cdef double acc[8]
    cdef Py_ssize_t j, t
    cdef Py_ssize_t d_blocked = d - d % 8
    cdef float fthr = <float>thr
    cdef value_t tthr = native_threshold[value_t](0, ithr)
    for t in range(8):
        acc[t] = 0.0
    if value_t is float:
        for j in range(0, d_blocked, 8):
            for t in range(8):
                acc[t] = acc[t] + w[j + t] * <double>(x[j + t] > fthr)
        for j in range(d_blocked, d):
            acc[j - d_blocked] = acc[j - d_blocked] + w[j] * <double>(x[j] > fthr)
    elif value_t is double:
        for j in range(0, d_blocked, 8):
            for t in range(8):
                acc[t] = acc[t] + w[j + t] * <double>(x[j + t] > thr)
        for j in range(d_blocked, d):
            acc[j - d_blocked] = acc[j - d_blocked] + w[j] * <double>(x[j] > thr)
    else:
        for j in range(0, d_blocked, 8):
            for t in range(8):
                acc[t] = acc[t] + w[j + t] * <double>(x[j + t] > tthr)
        for j in range(d_blocked, d):
            acc[j - d_blocked] = acc[j - d_blocked] + w[j] * <double>(x[j] > tthr)
    return sum8(acc)


cdef inline bint row_has_nonfinite(const value_t* x, Py_ssize_t d) noexcept nogil:
    cdef Py_ssize_t j
    cdef Py_ssize_t bad = 0
    if value_t is float or value_t is double:
        for j in range(d):
            bad += (x[j] - x[j]) != 0
    return bad != 0


cdef inline int finish_scores(
    double* row_out, Py_ssize_t k, int mode, intp_t* label_out, double best,
    intp_t best_class, bint saw_nan,
) noexcept nogil:
    if mode == MODE_ARGMAX:
        label_out[0] = best_class
    else:
        finish_row(row_out, k, mode)
    return 1 if (saw_nan or best == -INFINITY or best == INFINITY) else 0


cdef inline int dense_predict_row(
    const value_t* x,
    const double[:, ::1] W,       # (k, d) weights, class-major
    const double[::1] bias,       # (k,)
    bint binarize, double thr, long long ithr,
    int mode,
    intp_t* label_out,
    double* row_out,
) noexcept nogil:
    """Write one row's output; return 1 if the row is suspect (non-finite)."""
    cdef Py_ssize_t c
    cdef Py_ssize_t k = W.shape[0]
    cdef Py_ssize_t d = W.shape[1]
    cdef double value
    cdef double best = -INFINITY
    cdef intp_t best_class = 0
    cdef bint saw_nan = False
    for c in range(k):
        if binarize:
            value = dense_masked_dot[value_t](x, &W[c, 0], d, thr, ithr) + bias[c]
        else:
            value = dense_dot[value_t](x, &W[c, 0], d) + bias[c]
        if value > best:
            best = value
            best_class = c
        elif value != value:
            saw_nan = True
        if mode != MODE_ARGMAX:
            row_out[c] = value
    if binarize and (value_t is float or value_t is double):
        # thresholding maps NaN and inf to 0/1: look for them explicitly
        if row_has_nonfinite[value_t](x, d):
            saw_nan = True
    return finish_scores(row_out, k, mode, label_out, best, best_class, saw_nan)


def dense_predict(
    const value_t[:, ::1] X,       # IN: (n, d) samples
    const double[:, ::1] W,        # IN: (k, d) weights
    const double[::1] bias,        # IN: (k,) per-class constant
    bint binarize,
    double threshold,
    int mode,                      # PredictMode
    intp_t[::1] labels_out,        # OUT: (n,) for MODE_ARGMAX, else None
    double[:, ::1] out,            # OUT: (n, k) for the other modes, else None
    int n_threads,
):
    """jll = X @ W.T + bias (X thresholded if asked), fused with argmax/normalisation.

    Returns the number of suspect rows (a non-finite best score, or a non-finite
    value met while thresholding).
    """
    cdef Py_ssize_t n = X.shape[0]
    cdef Py_ssize_t i
    cdef Py_ssize_t n_suspect = 0
    cdef intp_t dummy_label
    cdef double* row_out = NULL
    cdef intp_t* label_out = &dummy_label
    cdef long long ithr
    if threshold >= 9.2e18:
        ithr = 9223372036854775807
    else:
        ithr = <long long>threshold
    with nogil:
        if n_threads <= 1:
            for i in range(n):
                if mode == MODE_ARGMAX:
                    label_out = &labels_out[i]
                else:
                    row_out = &out[i, 0]
                n_suspect += dense_predict_row[value_t](&X[i, 0], W, bias, binarize, threshold,
                                               ithr, mode, label_out, row_out)
        else:
            for i in prange(n, schedule='static', num_threads=n_threads):
                if mode == MODE_ARGMAX:
                    label_out = &labels_out[i]
                else:
                    row_out = &out[i, 0]
                n_suspect += dense_predict_row[value_t](&X[i, 0], W, bias, binarize, threshold,
                                               ithr, mode, label_out, row_out)
    return n_suspect


cdef extern from *:
    """
    #if defined(__GNUC__) || defined(__clang__)
    #define FASTNB_PREFETCH(addr) __builtin_prefetch((const void*)(addr), 0, 1)
    #else
    #define FASTNB_PREFETCH(addr) ((void)0)
    #endif
    """
    void FASTNB_PREFETCH(const void* addr) noexcept nogil


# Sparse predict reads one random (k,) row of weights per nonzero: ask for the row
# of the nonzero this many places ahead, so that several misses overlap (measured
# on M1: 640 ms without, 380 ms at 8 ahead, 320 ms at 48, one thread).
DEF PREFETCH_AHEAD = 48


cdef inline void prefetch_weights(const double* row, Py_ssize_t k) noexcept nogil:
    cdef Py_ssize_t offset
    for offset in range(0, k, 8):  # one cache line is 8 doubles
        FASTNB_PREFETCH(row + offset)
    FASTNB_PREFETCH(row + k - 1)


# Rows of up to this many classes accumulate in a local array, which the compiler
# knows aliases nothing (so the k-loop vectorises); more classes use the output row.
DEF LOCAL_K = 64


cdef inline void add_scaled_row(
    double* acc, const double* wrow, double v, Py_ssize_t k,
) noexcept nogil:
    cdef Py_ssize_t c
    for c in range(k):
        acc[c] = acc[c] + v * wrow[c]


cdef inline void add_row(double* acc, const double* wrow, Py_ssize_t k) noexcept nogil:
    cdef Py_ssize_t c
    for c in range(k):
        acc[c] = acc[c] + wrow[c]


cdef inline int csr_row_scores(
    const floating[::1] data,
    const index_t[::1] indices,
    Py_ssize_t start, Py_ssize_t stop,
    const double* WT,              # (d, kp) weights, feature-major, zero-padded
    Py_ssize_t kp, Py_ssize_t d,   # kp: a compile-time constant after inlining
    bint binarize, floating thr,
    double* acc_out,               # OUT (kp,)
    bint* saw_nan,
) noexcept nogil:
    """Sum the weight rows of one CSR row; 2 if an index is out of range, else 0.

    Called with a literal kp (8, 16, 24, 32): the loops over classes are then
    fixed-length and the accumulators stay in registers.
    """
    cdef Py_ssize_t p, j, jj, c
    cdef Py_ssize_t nnz = indices.shape[0]
    cdef floating v
    cdef double dv
    cdef double acc[32]
    cdef const double* wrow
    for c in range(kp):
        acc[c] = 0.0
    for p in range(start, stop):
        j = indices[p]
        if j < 0 or j >= d:
            return 2
        if p + PREFETCH_AHEAD < nnz:
            jj = indices[p + PREFETCH_AHEAD]
            if jj >= 0 and jj < d:
                prefetch_weights(WT + jj * kp, kp)
        v = data[p]
        wrow = WT + j * kp
        if binarize:
            if v > thr:
                for c in range(kp):
                    acc[c] = acc[c] + wrow[c]
            if (v - v) != 0:
                saw_nan[0] = True
        else:
            dv = v
            for c in range(kp):
                acc[c] = acc[c] + dv * wrow[c]
    for c in range(kp):
        acc_out[c] = acc[c]
    return 0


cdef inline int csr_predict_row(
    const floating[::1] data,
    const index_t[::1] indices,
    Py_ssize_t start, Py_ssize_t stop,
    const double* WT,              # (d, kp) weights, feature-major, zero-padded
    const double* bias,            # (k,)
    Py_ssize_t k, Py_ssize_t d,
    bint binarize, floating thr,
    int mode,
    intp_t* label_out,
    double* row_out,               # OUT (k,): scratch for MODE_ARGMAX, else the output row
    Py_ssize_t kp,                 # WT's row length (>= k)
) noexcept nogil:
    """Return 1 if the row is suspect, 2 if it is malformed (index out of range)."""
    cdef Py_ssize_t p, j, jj, c
    cdef Py_ssize_t nnz = indices.shape[0]
    cdef floating v
    cdef double local_acc[LOCAL_K]
    cdef double* acc = row_out
    cdef double best = -INFINITY
    cdef intp_t best_class = 0
    cdef bint saw_nan = False
    cdef int status
    if k <= LOCAL_K:
        acc = &local_acc[0]
    if kp == 8 or kp == 16 or kp == 24 or kp == 32:
        if kp == 8:
            status = csr_row_scores(data, indices, start, stop, WT, 8, d, binarize,
                                    thr, acc, &saw_nan)
        elif kp == 16:
            status = csr_row_scores(data, indices, start, stop, WT, 16, d, binarize,
                                    thr, acc, &saw_nan)
        elif kp == 24:
            status = csr_row_scores(data, indices, start, stop, WT, 24, d, binarize,
                                    thr, acc, &saw_nan)
        else:
            status = csr_row_scores(data, indices, start, stop, WT, 32, d, binarize,
                                    thr, acc, &saw_nan)
        if status:
            return status
        start = stop  # the generic loop below has nothing left to do
    else:
        for c in range(k):
            acc[c] = 0.0
    for p in range(start, stop):
        j = indices[p]
        if j < 0 or j >= d:
            return 2
        if p + PREFETCH_AHEAD < nnz:  # may look into the next rows: fine
            jj = indices[p + PREFETCH_AHEAD]
            if jj >= 0 and jj < d:
                prefetch_weights(WT + jj * kp, k)
        v = data[p]
        if binarize:
            if v > thr:
                add_row(acc, WT + j * kp, k)
            if (v - v) != 0:
                saw_nan = True
        else:
            add_scaled_row(acc, WT + j * kp, v, k)
    for c in range(k):
        row_out[c] = acc[c] + bias[c]
        if row_out[c] > best:
            best = row_out[c]
            best_class = c
        elif row_out[c] != row_out[c]:
            saw_nan = True
    return finish_scores(row_out, k, mode, label_out, best, best_class, saw_nan)


def csr_predict(
    const floating[::1] data,      # IN: CSR values
    const index_t[::1] indices,    # IN: CSR column indices
    const index_t[::1] indptr,     # IN: (n + 1,) row pointers
    const double[:, ::1] WT,       # IN: (d, k) weights, feature-major
    const double[::1] bias,        # IN: (k,)
    bint binarize,
    double threshold,
    int mode,
    intp_t[::1] labels_out,
    double[:, ::1] out,
    int n_threads,
):
    """CSR twin of ``dense_predict``. Returns ``(n_suspect, n_malformed)``.

    ``WT`` is (d, kp) with kp >= k (zero-padded): kp of 8, 16, 24 or 32 takes the
    register-accumulator path.
    """
    cdef Py_ssize_t n = indptr.shape[0] - 1
    cdef Py_ssize_t k = bias.shape[0]
    cdef Py_ssize_t kp = WT.shape[1]
    cdef Py_ssize_t d = WT.shape[0]
    cdef Py_ssize_t nnz = data.shape[0]
    cdef Py_ssize_t i, start, stop
    cdef Py_ssize_t n_suspect = 0
    cdef Py_ssize_t n_malformed = 0
    cdef int status
    cdef intp_t dummy_label
    cdef intp_t* label_out = &dummy_label
    cdef double* scratch = NULL
    cdef double* acc = NULL
    cdef floating thr = <floating>threshold
    with nogil:
        if n_threads <= 1:
            scratch = <double*>malloc(k * sizeof(double))
            if scratch == NULL:
                with gil:
                    raise MemoryError()
            for i in range(n):
                start = indptr[i]
                stop = indptr[i + 1]
                if mode == MODE_ARGMAX:
                    label_out = &labels_out[i]
                    acc = scratch
                else:
                    acc = &out[i, 0]
                if start < 0 or stop > nnz or stop < start:
                    n_malformed += 1
                    continue
                status = csr_predict_row(data, indices, start, stop, &WT[0, 0],
                                         &bias[0], k, d, binarize, thr, mode,
                                         label_out, acc, kp)
                if status == 2:
                    n_malformed += 1
                else:
                    n_suspect += status
            free(scratch)
        else:
            with parallel(num_threads=n_threads):
                scratch = <double*>malloc(k * sizeof(double))
                for i in prange(n, schedule='static'):
                    start = indptr[i]
                    stop = indptr[i + 1]
                    if mode == MODE_ARGMAX:
                        label_out = &labels_out[i]
                        acc = scratch
                    else:
                        acc = &out[i, 0]
                    if acc == NULL or start < 0 or stop > nnz or stop < start:
                        n_malformed += 1
                    else:
                        status = csr_predict_row(data, indices, start, stop, &WT[0, 0],
                                                 &bias[0], k, d, binarize, thr, mode,
                                                 label_out, acc, kp)
                        if status == 2:
                            n_malformed += 1
                        else:
                            n_suspect += status
                free(scratch)
    return n_suspect, n_malformed


# ----------------------------------------------------------------------------------
# Predict on bool input: eight features per table lookup
# ----------------------------------------------------------------------------------
#
# A row of a numpy bool matrix is bytes that are 0 or 1. Eight of them, read as one
# little-endian uint64 and multiplied by 0x0102040810204080, give in the top byte
# the 8-bit pattern whose bit b is byte b. A table of the 256 partial sums of each
# group of eight features then turns 8 x k multiply-adds into k additions:
# jll[c] = bias[c] + sum_g table[g, pattern_g, c]. The table (ceil(d / 8) x 256 x k
# doubles) is built once per fit, on first use. Each entry is summed in feature
# order and the groups are added in order, so results are the same bits for any
# number of threads.

from libc.string cimport memcpy
from libc.stdint cimport uint64_t

cdef extern from *:
    """
    #if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    #define FASTNB_LITTLE_ENDIAN 0
    #else
    #define FASTNB_LITTLE_ENDIAN 1
    #endif
    """
    int FASTNB_LITTLE_ENDIAN


def bool_table_supported():
    """Whether the byte-pattern trick holds on this platform (little-endian)."""
    return FASTNB_LITTLE_ENDIAN == 1


def build_bool_table(const double[:, ::1] W, Py_ssize_t padded_k):
    """table[g, p, c] = sum of W[c, 8g + b] over the set bits b of p, in bit order.

    The class axis is padded with zeros to ``padded_k`` (8 or 16 lets the predict
    loop keep its accumulators in registers).
    """
    cdef Py_ssize_t k = W.shape[0]
    cdef Py_ssize_t d = W.shape[1]
    cdef Py_ssize_t n_groups = (d + 7) // 8
    cdef Py_ssize_t g, p, b, c, j
    cdef double total
    if padded_k < k:
        padded_k = k
    table_arr = np.zeros((n_groups, 256, padded_k), dtype=np.float64)
    cdef double[:, :, ::1] table = table_arr
    with nogil:
        for g in range(n_groups):
            for p in range(256):
                for c in range(k):
                    total = 0.0
                    for b in range(8):
                        j = 8 * g + b
                        if j < d and (p >> b) & 1:
                            total = total + W[c, j]
                    table[g, p, c] = total
    return table_arr


cdef inline Py_ssize_t byte_pattern(const unsigned char* x) noexcept nogil:
    cdef uint64_t word
    memcpy(&word, x, 8)
    return <Py_ssize_t>((word * <uint64_t>0x0102040810204080ULL) >> 56)


cdef inline Py_ssize_t tail_pattern(const unsigned char* x, Py_ssize_t count) noexcept nogil:
    cdef Py_ssize_t b
    cdef Py_ssize_t pattern = 0
    for b in range(count):
        if x[b]:
            pattern = pattern | (1 << b)
    return pattern


cdef inline void table_scores_8(
    const unsigned char* x, const double* table, Py_ssize_t d, double* acc,
) noexcept nogil:
    """acc[0:8] = sum over groups of table rows, for 8 padded classes.

    Two accumulator sets (even and odd groups), added at the end: the loop keeps
    them in registers and the two dependency chains overlap. Fixed order: the
    same bits for any thread count.
    """
    cdef double even[8]
    cdef double odd[8]
    cdef Py_ssize_t g, c
    cdef Py_ssize_t full = d // 8
    cdef const double* t0
    cdef const double* t1
    for c in range(8):
        even[c] = 0.0
        odd[c] = 0.0
    for g in range(0, full - 1, 2):
        t0 = table + (g * 256 + byte_pattern(x + 8 * g)) * 8
        t1 = table + ((g + 1) * 256 + byte_pattern(x + 8 * g + 8)) * 8
        for c in range(8):
            even[c] = even[c] + t0[c]
        for c in range(8):
            odd[c] = odd[c] + t1[c]
    if full % 2 == 1:
        t0 = table + ((full - 1) * 256 + byte_pattern(x + 8 * (full - 1))) * 8
        for c in range(8):
            even[c] = even[c] + t0[c]
    if full * 8 < d:
        t1 = table + (full * 256 + tail_pattern(x + 8 * full, d - full * 8)) * 8
        for c in range(8):
            odd[c] = odd[c] + t1[c]
    for c in range(8):
        acc[c] = even[c] + odd[c]


cdef inline void table_scores_16(
    const unsigned char* x, const double* table, Py_ssize_t d, double* acc,
) noexcept nogil:
    """table_scores_8 for 16 padded classes."""
    cdef double even[16]
    cdef double odd[16]
    cdef Py_ssize_t g, c
    cdef Py_ssize_t full = d // 8
    cdef const double* t0
    cdef const double* t1
    for c in range(16):
        even[c] = 0.0
        odd[c] = 0.0
    for g in range(0, full - 1, 2):
        t0 = table + (g * 256 + byte_pattern(x + 8 * g)) * 16
        t1 = table + ((g + 1) * 256 + byte_pattern(x + 8 * g + 8)) * 16
        for c in range(16):
            even[c] = even[c] + t0[c]
        for c in range(16):
            odd[c] = odd[c] + t1[c]
    if full % 2 == 1:
        t0 = table + ((full - 1) * 256 + byte_pattern(x + 8 * (full - 1))) * 16
        for c in range(16):
            even[c] = even[c] + t0[c]
    if full * 8 < d:
        t1 = table + (full * 256 + tail_pattern(x + 8 * full, d - full * 8)) * 16
        for c in range(16):
            odd[c] = odd[c] + t1[c]
    for c in range(16):
        acc[c] = even[c] + odd[c]


cdef inline void table_scores_any(
    const unsigned char* x, const double* table, Py_ssize_t d, Py_ssize_t kp,
    double* acc,
) noexcept nogil:
    """The same sums for any padded class count kp (accumulators in memory)."""
    cdef Py_ssize_t g, c
    cdef Py_ssize_t full = d // 8
    cdef const double* trow
    for c in range(kp):
        acc[c] = 0.0
    for g in range(full):
        trow = table + (g * 256 + byte_pattern(x + 8 * g)) * kp
        for c in range(kp):
            acc[c] = acc[c] + trow[c]
    if full * 8 < d:
        trow = table + (full * 256 + tail_pattern(x + 8 * full, d - full * 8)) * kp
        for c in range(kp):
            acc[c] = acc[c] + trow[c]


cdef inline int bool_predict_row(
    const unsigned char* x,
    const double* table,         # (n_groups, 256, kp)
    const double* bias,
    Py_ssize_t k, Py_ssize_t d,
    int mode,
    intp_t* label_out,
    double* row_out,             # OUT (k,): the output row (unused for MODE_ARGMAX)
    Py_ssize_t kp,               # the table's padded class count (>= k)
) noexcept nogil:
    cdef Py_ssize_t c
    cdef double acc[LOCAL_K]
    cdef double best = -INFINITY
    cdef intp_t best_class = 0
    cdef bint saw_nan = False
    if kp == 8:
        table_scores_8(x, table, d, acc)
    elif kp == 16:
        table_scores_16(x, table, d, acc)
    else:
        table_scores_any(x, table, d, kp, acc)
    for c in range(k):
        acc[c] = acc[c] + bias[c]
        if acc[c] > best:
            best = acc[c]
            best_class = c
        elif acc[c] != acc[c]:
            saw_nan = True
    if mode != MODE_ARGMAX:
        for c in range(k):
            row_out[c] = acc[c]
    return finish_scores(row_out, k, mode, label_out, best, best_class, saw_nan)


def bool_predict(
    const unsigned char[:, ::1] X,     # IN: (n, d) a bool matrix viewed as uint8 (0/1)
    const double[:, :, ::1] table,     # IN: build_bool_table(W)
    const double[::1] bias,            # IN: (k,)
    int mode,
    intp_t[::1] labels_out,
    double[:, ::1] out,
    int n_threads,
):
    """jll = X @ W.T + bias for 0/1 bytes X, through the byte-pattern table.

    Needs k <= 64. Returns the number of suspect rows (non-finite best score).
    """
    cdef Py_ssize_t n = X.shape[0]
    cdef Py_ssize_t d = X.shape[1]
    cdef Py_ssize_t k = bias.shape[0]
    cdef Py_ssize_t kp = table.shape[2]
    cdef Py_ssize_t i
    cdef Py_ssize_t n_suspect = 0
    cdef intp_t dummy_label
    cdef intp_t* label_out = &dummy_label
    cdef double* row_out = NULL
    if kp > LOCAL_K or kp < k:
        raise ValueError(f"bool_predict supports at most {LOCAL_K} classes")
    with nogil:
        if n_threads <= 1:
            for i in range(n):
                if mode == MODE_ARGMAX:
                    label_out = &labels_out[i]
                else:
                    row_out = &out[i, 0]
                n_suspect += bool_predict_row(&X[i, 0], &table[0, 0, 0], &bias[0], k,
                                              d, mode, label_out, row_out, kp)
        else:
            for i in prange(n, schedule='static', num_threads=n_threads):
                if mode == MODE_ARGMAX:
                    label_out = &labels_out[i]
                else:
                    row_out = &out[i, 0]
                n_suspect += bool_predict_row(&X[i, 0], &table[0, 0, 0], &bias[0], k,
                                              d, mode, label_out, row_out, kp)
    return n_suspect


cdef inline Py_ssize_t threshold_row(
    const value_t* x, unsigned char* bits, Py_ssize_t d, double thr, long long ithr,
) noexcept nogil:
    """bits[j] = x[j] > threshold (0/1 bytes); return the number of non-finite x[j]."""
    cdef Py_ssize_t j
    cdef Py_ssize_t bad = 0
    cdef float fthr = <float>thr
    cdef value_t tthr = native_threshold[value_t](0, ithr)
    if value_t is float:
        for j in range(d):
            bits[j] = x[j] > fthr
        for j in range(d):
            bad += (x[j] - x[j]) != 0
    elif value_t is double:
        for j in range(d):
            bits[j] = x[j] > thr
        for j in range(d):
            bad += (x[j] - x[j]) != 0
    else:
        for j in range(d):
            bits[j] = x[j] > tthr
    return bad


def dense_threshold_predict(
    const value_t[:, ::1] X,           # IN: (n, d) samples, any supported dtype
    const double[:, :, ::1] table,     # IN: build_bool_table(W)
    const double[::1] bias,            # IN: (k,)
    double threshold,
    int mode,
    intp_t[::1] labels_out,
    double[:, ::1] out,
    int n_threads,
):
    """Thresholded predict: each row becomes 0/1 bytes in a per-thread buffer (one
    vectorised compare pass, which also looks for NaN and inf), then goes through
    the byte-pattern table like a bool row. Needs k <= 64.

    Returns the number of suspect rows.
    """
    cdef Py_ssize_t n = X.shape[0]
    cdef Py_ssize_t d = X.shape[1]
    cdef Py_ssize_t k = bias.shape[0]
    cdef Py_ssize_t kp = table.shape[2]
    cdef Py_ssize_t i
    cdef Py_ssize_t n_suspect = 0
    cdef intp_t dummy_label
    cdef intp_t* label_out = &dummy_label
    cdef double* row_out = NULL
    cdef unsigned char* bits = NULL
    cdef long long ithr
    if kp > LOCAL_K or kp < k:
        raise ValueError(f"dense_threshold_predict supports at most {LOCAL_K} classes")
    if threshold >= 9.2e18:
        ithr = 9223372036854775807
    else:
        ithr = <long long>threshold
    with nogil:
        if n_threads <= 1:
            bits = <unsigned char*>malloc(d + 8)
            if bits == NULL:
                with gil:
                    raise MemoryError()
            for i in range(n):
                if mode == MODE_ARGMAX:
                    label_out = &labels_out[i]
                else:
                    row_out = &out[i, 0]
                if threshold_row[value_t](&X[i, 0], bits, d, threshold, ithr):
                    n_suspect += 1
                n_suspect += bool_predict_row(bits, &table[0, 0, 0], &bias[0], k, d,
                                              mode, label_out, row_out, kp)
            free(bits)
        else:
            with parallel(num_threads=n_threads):
                bits = <unsigned char*>malloc(d + 8)
                for i in prange(n, schedule='static'):
                    if mode == MODE_ARGMAX:
                        label_out = &labels_out[i]
                    else:
                        row_out = &out[i, 0]
                    if bits == NULL:
                        n_suspect += 1000000000  # no buffer: reported as an error
                    else:
                        if threshold_row[value_t](&X[i, 0], bits, d, threshold, ithr):
                            n_suspect += 1
                        n_suspect += bool_predict_row(bits, &table[0, 0, 0], &bias[0],
                                                      k, d, mode, label_out, row_out, kp)
                free(bits)
    return n_suspect
