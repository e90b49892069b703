"""Discrete Naive Bayes predict kernels (Bernoulli, Multinomial, Complement).

The joint log likelihood is linear in X: ``jll = X @ W.T + b``. Dense rows take one
dot product per class; CSR rows add ``v * W_T[j, :]`` from a feature-major (d x k)
copy of the weights, so each nonzero reads one contiguous row of k weights; 0/1
rows (bool input, or BernoulliNB's threshold applied on the fly) go eight features
per lookup through the byte-pattern table (``_bool_table.pxd``). ``MODE_ARGMAX``
keeps a running maximum and writes one label index per row; the other modes write
the (n, k) output and finish it in place. The point functions are in
``_counts.pxd`` and ``_bool_table.pxd``; the fit kernels in
``_discrete_kernels.pyx``.
"""

from cython.parallel cimport prange
from libc.math cimport INFINITY

from _common cimport intp_t, floating, block_start, block_scratch_bytes, MODE_ARGMAX
from _counts cimport (
    uint8_t_, value_t, LOCAL_K, integer_threshold, dense_linear_predict_row,
    csr_linear_predict_row,
)
from _bool_table cimport bool_predict_row, threshold_row

import numpy as np

# CSR matrices come with int32 or int64 indices.
ctypedef fused index_t:
    int
    long long


# ----------------------------------------------------------------------------------
# Predict
# ----------------------------------------------------------------------------------

cdef Py_ssize_t dense_predict_rows(
    const value_t[:, ::1] X,
    const double[:, ::1] W,
    const double[::1] bias,
    bint binarize,
    double thr,
    long long ithr,
    int mode,
    intp_t[::1] labels_out,
    double[:, ::1] out,
    Py_ssize_t row_start,         # the rows [row_start, row_stop) of this block
    Py_ssize_t row_stop,
) noexcept nogil:
    cdef Py_ssize_t i
    cdef Py_ssize_t n_suspect = 0
    cdef intp_t* label_out = NULL
    cdef double* row_out = NULL
    for i in range(row_start, row_stop):
        if mode == MODE_ARGMAX:
            label_out = &labels_out[i]
        else:
            row_out = &out[i, 0]
        n_suspect += dense_linear_predict_row(
            &X[i, 0], &W[0, 0], &bias[0], W.shape[0], W.shape[1], binarize, thr, ithr,
            mode, label_out, row_out,
        )
    return n_suspect


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
    cdef Py_ssize_t block
    cdef Py_ssize_t n_blocks = max(n_threads, 1)
    cdef Py_ssize_t n_suspect = 0
    cdef long long ithr = integer_threshold(threshold)
    with nogil:
        if n_blocks == 1:
            n_suspect = dense_predict_rows(X, W, bias, binarize, threshold, ithr, mode,
                                           labels_out, out, 0, n)
        else:
            for block in prange(n_blocks, schedule='static', num_threads=n_blocks):
                n_suspect += dense_predict_rows(
                    X, W, bias, binarize, threshold, ithr, mode, labels_out, out,
                    block_start(block, n_blocks, n), block_start(block + 1, n_blocks, n),
                )
    return n_suspect


cdef Py_ssize_t csr_predict_rows(
    const floating[::1] data,
    const index_t[::1] indices,
    const index_t[::1] indptr,
    const double[:, ::1] WT,
    const double[::1] bias,
    bint binarize,
    floating thr,
    int mode,
    intp_t[::1] labels_out,
    double[:, ::1] out,
    double* spill,                # SCRATCH: (k,) for argmax of k > LOCAL_K, else NULL
    Py_ssize_t row_start,         # the rows [row_start, row_stop) of this block
    Py_ssize_t row_stop,
    Py_ssize_t* n_malformed,      # OUT: rows with pointers or indices out of range
) noexcept nogil:
    cdef Py_ssize_t i, start, stop
    cdef Py_ssize_t nnz = data.shape[0]
    cdef Py_ssize_t n_suspect = 0
    cdef Py_ssize_t bad_rows = 0
    cdef int status
    cdef intp_t* label_out = NULL
    cdef double* row_out = NULL
    cdef double* row_spill = spill
    for i in range(row_start, row_stop):
        if mode == MODE_ARGMAX:
            label_out = &labels_out[i]
        else:
            row_out = &out[i, 0]
            row_spill = row_out
        start = indptr[i]
        stop = indptr[i + 1]
        if start < 0 or stop > nnz or stop < start:
            bad_rows += 1
            continue
        status = csr_linear_predict_row(
            &data[0], &indices[0], start, stop, nnz, &WT[0, 0], WT.shape[1], &bias[0],
            bias.shape[0], WT.shape[0], binarize, thr, mode, label_out, row_out,
            row_spill,
        )
        if status == 2:
            bad_rows += 1
        else:
            n_suspect += status
    n_malformed[0] = bad_rows
    return n_suspect


def csr_predict(
    const floating[::1] data,      # IN: CSR values
    const index_t[::1] indices,    # IN: CSR column indices
    const index_t[::1] indptr,     # IN: (n + 1,) row pointers
    const double[:, ::1] WT,       # IN: (d, kp) weights, feature-major, kp >= k
    const double[::1] bias,        # IN: (k,)
    bint binarize,
    double threshold,
    int mode,
    intp_t[::1] labels_out,
    double[:, ::1] out,
    int n_threads,
):
    """CSR twin of ``dense_predict``. Returns ``(n_suspect, n_malformed)``.

    ``WT`` is zero-padded to kp >= k classes: kp a multiple of 8 up to 48 takes the
    register-accumulator path.
    """
    cdef Py_ssize_t n = indptr.shape[0] - 1
    cdef Py_ssize_t k = bias.shape[0]
    cdef Py_ssize_t block
    cdef Py_ssize_t n_blocks = max(n_threads, 1)
    cdef Py_ssize_t n_suspect = 0
    cdef double* spill = NULL
    cdef double[:, ::1] spill_view
    cdef Py_ssize_t spill_stride = block_scratch_bytes(k * sizeof(double)) // sizeof(double)
    if mode == MODE_ARGMAX and k > LOCAL_K:
        # Rows of more than LOCAL_K classes need k doubles of their own for argmax.
        spill_view = np.empty((n_blocks, spill_stride))
        spill = &spill_view[0, 0]
    blocks_malformed_arr = np.zeros(n_blocks, dtype=np.intp)
    cdef intp_t[::1] blocks_malformed = blocks_malformed_arr
    with nogil:
        if n_blocks == 1:
            n_suspect = csr_predict_rows(data, indices, indptr, WT, bias, binarize,
                                         <floating>threshold, mode, labels_out, out,
                                         spill, 0, n, &blocks_malformed[0])
        else:
            for block in prange(n_blocks, schedule='static', num_threads=n_blocks):
                n_suspect += csr_predict_rows(
                    data, indices, indptr, WT, bias, binarize, <floating>threshold,
                    mode, labels_out, out, spill + block * spill_stride if spill != NULL else NULL,
                    block_start(block, n_blocks, n), block_start(block + 1, n_blocks, n),
                    &blocks_malformed[block],
                )
    return n_suspect, int(blocks_malformed_arr.sum())


# ----------------------------------------------------------------------------------
# Predict on 0/1 bytes: eight features per table lookup (_bool_table.pxd)
# ----------------------------------------------------------------------------------

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


def build_bool_table(const double[:, ::1] W, double[:, :, ::1] table):
    """table[g, p, c] = sum of W[c, 8g + b] over the set bits b of p, in bit order.

    ``table`` is (ceil(d / 8), 256, padded_k), zeroed by the caller: its class axis
    may be padded with zeros past k (8 or 16 lets the predict loop keep its
    accumulators in registers). The caller starts it on a 64-byte line
    (``_shared.aligned_array``), so a lookup of 8 padded classes reads one cache
    line, not two: NumPy aligns to 16 bytes, and a table of 16 mod 64 made B1's
    bool predict ~3% slower.
    """
    cdef Py_ssize_t k = W.shape[0]
    cdef Py_ssize_t d = W.shape[1]
    cdef Py_ssize_t n_groups = (d + 7) // 8
    cdef Py_ssize_t g, p, b, c, j
    cdef double total
    if table.shape[0] != n_groups or table.shape[1] != 256 or table.shape[2] < k:
        raise ValueError("the byte-pattern table must be (ceil(d / 8), 256, >= k)")
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


cdef Py_ssize_t table_predict_rows(
    const value_t[:, ::1] X,
    const double[:, :, ::1] table,
    const double[::1] bias,
    bint threshold_rows,          # X is thresholded into bits first, else X is 0/1
    double thr,
    long long ithr,
    int mode,
    intp_t[::1] labels_out,
    double[:, ::1] out,
    unsigned char* bits,          # SCRATCH: d + 8 bytes for threshold_rows, else NULL
    Py_ssize_t row_start,         # the rows [row_start, row_stop) of this block
    Py_ssize_t row_stop,
) noexcept nogil:
    cdef Py_ssize_t i
    cdef Py_ssize_t n_suspect = 0
    cdef Py_ssize_t d = X.shape[1]
    cdef Py_ssize_t k = bias.shape[0]
    cdef Py_ssize_t kp = table.shape[2]
    cdef const double* table_start = &table[0, 0, 0]
    cdef intp_t* label_out = NULL
    cdef double* row_out = NULL
    cdef const unsigned char* row_bits
    for i in range(row_start, row_stop):
        if mode == MODE_ARGMAX:
            label_out = &labels_out[i]
        else:
            row_out = &out[i, 0]
        if threshold_rows:
            if threshold_row[value_t](&X[i, 0], bits, d, thr, ithr):
                n_suspect += 1
            row_bits = bits
        else:
            row_bits = <const unsigned char*>&X[i, 0]
        n_suspect += bool_predict_row(row_bits, table_start, &bias[0], k, d, kp, mode,
                                      label_out, row_out)
    return n_suspect


cdef Py_ssize_t table_predict(
    const value_t[:, ::1] X,
    const double[:, :, ::1] table,
    const double[::1] bias,
    bint threshold_rows,
    double threshold,
    int mode,
    intp_t[::1] labels_out,
    double[:, ::1] out,
    int n_threads,
) except -1:
    cdef Py_ssize_t n = X.shape[0]
    cdef Py_ssize_t block
    cdef Py_ssize_t n_blocks = max(n_threads, 1)
    cdef Py_ssize_t n_suspect = 0
    cdef long long ithr = integer_threshold(threshold)
    cdef unsigned char* bits = NULL
    cdef unsigned char[:, ::1] bits_view
    # One row buffer per block for the thresholded rows, each in pages of its own.
    cdef Py_ssize_t bits_stride = block_scratch_bytes(X.shape[1] + 8)
    if table.shape[2] > LOCAL_K or table.shape[2] < bias.shape[0]:
        raise ValueError(f"the byte-pattern table supports at most {LOCAL_K} classes")
    if threshold_rows:
        bits_view = np.empty((n_blocks, bits_stride), dtype=np.uint8)
        bits = &bits_view[0, 0]
    with nogil:
        if n_blocks == 1:
            n_suspect = table_predict_rows(X, table, bias, threshold_rows, threshold,
                                           ithr, mode, labels_out, out, bits, 0, n)
        else:
            for block in prange(n_blocks, schedule='static', num_threads=n_blocks):
                n_suspect += table_predict_rows(
                    X, table, bias, threshold_rows, threshold, ithr, mode, labels_out,
                    out, bits + block * bits_stride if bits != NULL else NULL,
                    block_start(block, n_blocks, n), block_start(block + 1, n_blocks, n),
                )
    return n_suspect


def bool_predict(
    const uint8_t_[:, ::1] X,          # IN: (n, d) a bool matrix viewed as uint8 (0/1)
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
    return table_predict[uint8_t_](X, table, bias, False, 0.0, mode, labels_out, out,
                                   n_threads)


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
    """Thresholded predict: each row becomes 0/1 bytes in a per-block buffer (one
    vectorised compare pass, which also looks for NaN and inf), then goes through
    the byte-pattern table like a bool row. Needs k <= 64.

    Returns the number of suspect rows.
    """
    return table_predict(X, table, bias, True, threshold, mode, labels_out, out,
                         n_threads)


# ----------------------------------------------------------------------------------
# A search's fold scores (fastnb/model_selection/_fold_scores.py)
# ----------------------------------------------------------------------------------

cdef inline bint summarise_row(const double* jll_row, const double* offset,
                               Py_ssize_t k, intp_t* predicted, double* top_out,
                               double* shifted) noexcept nogil:
    """Of the row ``jll_row + offset``: NumPy's ``argmax`` (its first largest
    score) and that score, and the row less it into ``shifted``; False when
    the row has a NaN or its largest score is not finite."""
    cdef Py_ssize_t c, best = 0
    cdef double top = jll_row[0] + offset[0], score
    for c in range(k):
        score = jll_row[c] + offset[c]
        if score != score:
            return False
        if score > top:
            top = score
            best = c
    if top == INFINITY or top == -INFINITY:
        return False
    for c in range(k):
        shifted[c] = (jll_row[c] + offset[c]) - top
    predicted[0] = best
    top_out[0] = top
    return True


def fold_row_scores(
    const double[:, ::1] jll,        # IN: (n, k) joint log likelihoods
    const double[::1] offset,        # IN: (k,) added to every row (a log prior)
    intp_t[::1] predicted,           # OUT: (n,) the first class of the largest score
    double[::1] top,                 # OUT: (n,) that score
    double[:, ::1] shifted,          # OUT: (n, k) the scores less the row's top
    int n_threads,
):
    """What a fold's accuracy and log loss need of a candidate's joint log
    likelihoods ``jll + offset`` (a search adds each candidate's log prior
    here, not in a copy), in one pass over them: each row's arg-max (NumPy's:
    the first largest score), its top score, and the row shifted by it, whose
    exp (NumPy's vectorised exp, several times libm's speed) and sum give
    the log-sum-exp. Rows in parallel blocks, each row alone: the same bits
    for any thread count. Returns the number of rows with a NaN or a largest
    score that is not finite (their outputs are not all written)."""
    cdef Py_ssize_t n = jll.shape[0], k = jll.shape[1], block, i
    cdef Py_ssize_t n_blocks = max(1, min(n_threads, n))
    if (predicted.shape[0] != n or top.shape[0] != n or shifted.shape[0] != n
            or shifted.shape[1] != k or offset.shape[0] != k):
        raise ValueError("fold_row_scores: jll, offset and the outputs do not agree "
                         "in shape")
    if n == 0:
        return 0
    if k == 0:
        return n
    bad_np = np.zeros(n_blocks, dtype=np.intp)
    cdef intp_t[::1] bad = bad_np
    with nogil:
        for block in prange(n_blocks, schedule='static', num_threads=n_blocks,
                            use_threads_if=n_blocks > 1):
            for i in range(block_start(block, n_blocks, n),
                           block_start(block + 1, n_blocks, n)):
                if not summarise_row(&jll[i, 0], &offset[0], k, &predicted[i], &top[i],
                                     &shifted[i, 0]):
                    bad[block] += 1
    return int(bad_np.sum())
