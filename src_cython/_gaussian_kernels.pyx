"""Gaussian Naive Bayes loop kernels: a one-pass moment accumulator and a fused predictor.

Design
------
The point functions (one row's Welford update, Chan's merge, one row's joint log
likelihood) are in ``_gaussian.pxd``; this module loops over rows with them. Each
loop is written once, over a range of work items, and runs on one block or, from
a prange, on one block per thread (``_common.pxd``).

Fit. The rows are cut into ``n_chunks`` contiguous chunks whose number depends only
on the data's shape, never on the thread count. Each chunk runs weighted Welford
updates (West, 1979) of the rows shifted by the slot's first row into its own
per-class (count, mean, centred sum of squares) slots; chunks are then merged in
chunk order with Chan's formula. The result is therefore the same bits for any
number of threads, and never uses E[x^2] - E[x]^2. A non-finite value anywhere in
X propagates into the moments, so validation needs no separate pass over X: the
caller checks the (k x d) result instead.

Missing values. When X holds NaN the caller runs the fit again with
``missing=True``: every (class, feature) then keeps its own count and skips NaN
entries, so each feature's statistics use exactly the rows where it was observed.

Strides. X is read where it lives, C-ordered or not (a DataFrame's columns, each
a view into pandas' storage): a row whose values are not adjacent is copied into
a d-value scratch row first (``_gaussian_rows.pxd``), so the point functions read
the same values in the same order, and give the same bits, whatever the layout.

Predict. One row at a time, one class at a time, with no n x d temporary;
``MODE_ARGMAX`` keeps a running maximum and writes only a label index per row. A
search's candidates that differ in ``var_smoothing`` are scored together by
``_gaussian_candidates.pyx``, with the same bits.
"""

from cython.parallel cimport prange

from _common cimport intp_t, floating, block_start, MODE_ARGMAX
from _gaussian cimport (
    welford_update_row, welford_update_row_missing, unshift_mean,
    chan_merge_feature_moments, gaussian_predict_row,
)
from _gaussian_rows cimport row_of, row_scratch, scratch_row

import numpy as np


# -- fit ------------------------------------------------------------------------------

cdef void accumulate_chunk(
    const floating[:, :] X,
    const intp_t* rows,         # IN: the row of X of each logical row, or NULL: row i
    floating* gathered,         # SCRATCH: d values when X's rows are strided, else NULL
    const intp_t[::1] codes,
    const double* weights,      # NULL when unweighted
    Py_ssize_t global_slot,     # slot that takes every row with weight 1, or -1
    bint missing,               # per-feature counts, NaN skipped
    Py_ssize_t row_start,
    Py_ssize_t row_stop,
    double* row_count,          # OUT: (n_slots,) weight of the chunk's rows per slot
    double* count,              # OUT: (n_slots, d) per-feature weight
    double* shift,              # SCRATCH: (n_slots, d), zeroed
    double* mean,               # OUT: (n_slots, d), zeroed
    double* ssd,                # OUT: (n_slots, d), zeroed
    Py_ssize_t n_slots,
) noexcept nogil:
    cdef Py_ssize_t i, j, slot, base
    cdef Py_ssize_t d = X.shape[1]
    cdef double w
    cdef const floating* x
    for i in range(row_start, row_stop):
        x = row_of(X, i if rows == NULL else rows[i], gathered)
        slot = codes[i]
        w = 1.0 if weights == NULL else weights[i]
        if missing:
            if w > 0.0:
                row_count[slot] += w
                welford_update_row_missing(x, w, &count[slot * d], &shift[slot * d],
                                           &mean[slot * d], &ssd[slot * d], d)
            if global_slot >= 0:
                row_count[global_slot] += 1.0
                welford_update_row_missing(
                    x, 1.0, &count[global_slot * d], &shift[global_slot * d],
                    &mean[global_slot * d], &ssd[global_slot * d], d,
                )
        else:
            if w > 0.0:
                welford_update_row(x, w, &row_count[slot], &shift[slot * d],
                                   &mean[slot * d], &ssd[slot * d], d)
            if global_slot >= 0:
                welford_update_row(
                    x, 1.0, &row_count[global_slot], &shift[global_slot * d],
                    &mean[global_slot * d], &ssd[global_slot * d], d,
                )
    for slot in range(n_slots):
        base = slot * d
        unshift_mean(&shift[base], &mean[base], d)
        if not missing:
            for j in range(d):
                count[base + j] = row_count[slot]


cdef void accumulate_chunks(
    const floating[:, :] X,
    const intp_t* rows,
    Py_ssize_t n,               # logical rows: len(rows), or X's rows
    floating* gathered,
    const intp_t[::1] codes,
    const double* weights,
    Py_ssize_t global_slot,
    bint missing,
    Py_ssize_t n_chunks,
    Py_ssize_t first_chunk,     # the chunks [first_chunk, stop_chunk) of this block
    Py_ssize_t stop_chunk,
    double[:, ::1] chunk_rows,  # OUT: (n_chunks, n_slots)
    double[:, ::1] chunk_count,  # OUT: (n_chunks, n_slots * d), and the three below
    double[:, ::1] chunk_shift,
    double[:, ::1] chunk_mean,
    double[:, ::1] chunk_ssd,
) noexcept nogil:
    cdef Py_ssize_t chunk
    for chunk in range(first_chunk, stop_chunk):
        accumulate_chunk(
            X, rows, gathered, codes, weights, global_slot, missing,
            block_start(chunk, n_chunks, n), block_start(chunk + 1, n_chunks, n),
            &chunk_rows[chunk, 0], &chunk_count[chunk, 0], &chunk_shift[chunk, 0],
            &chunk_mean[chunk, 0], &chunk_ssd[chunk, 0], chunk_rows.shape[1],
        )


def gaussian_fit(
    const floating[:, :] X,            # IN: (n, d) samples, any strides
    const intp_t[::1] codes,           # IN: (n,) class index of each row, in [0, n_classes)
    const double[::1] sample_weight,   # IN: (n,) non-negative weights, or None
    Py_ssize_t n_classes,
    bint track_unweighted,
    bint missing,
    Py_ssize_t n_chunks,
    int n_threads,
    const intp_t[::1] rows=None,       # IN: (n,) the rows of X to fit, or None: all
):
    """Per-class weighted counts, means and centred sums of squares in one pass.

    Returns ``(row_count, count, mean, ssd)`` of shapes ``(n_slots,)`` and
    ``(n_slots, d)`` (three times) in float64, where
    ``n_slots = n_classes + track_unweighted``; the extra last slot, when asked
    for, holds the unweighted moments of all rows. ``count`` is the weight behind
    each feature's moments: ``row_count`` broadcast, or with ``missing=True`` the
    weight of the rows where that feature is not NaN. ``n_chunks`` fixes the block
    decomposition: the result does not depend on ``n_threads``.

    ``rows``, when given, makes logical row i the row ``X[rows[i]]`` (``codes``
    and ``sample_weight`` are then of the logical rows): the chunks are cut by
    position in ``rows``, so the result is the same bits as a fit of the copy
    ``X[rows]``, without making it (a search's training rows).
    """
    cdef Py_ssize_t d = X.shape[1]
    cdef Py_ssize_t n = X.shape[0] if rows is None else rows.shape[0]
    cdef const intp_t* row_index = NULL
    cdef Py_ssize_t i
    cdef Py_ssize_t n_slots = n_classes + (1 if track_unweighted else 0)
    cdef Py_ssize_t global_slot = n_classes if track_unweighted else -1
    cdef Py_ssize_t chunk, slot, block, n_blocks
    cdef const double* weights = NULL

    if rows is not None:
        for i in range(n):
            if rows[i] < 0 or rows[i] >= X.shape[0]:
                raise ValueError(f"rows[{i}] = {rows[i]} is not a row of X "
                                 f"({X.shape[0]} rows).")
        if n > 0:
            row_index = &rows[0]
    if codes.shape[0] != n or (sample_weight is not None
                               and sample_weight.shape[0] != n):
        raise ValueError("codes and sample_weight must have one value per row fitted.")
    if sample_weight is not None:
        weights = &sample_weight[0]
    if n_chunks < 1:
        n_chunks = 1
    n_blocks = min(max(n_threads, 1), n_chunks)

    chunk_rows_arr = np.zeros((n_chunks, n_slots), dtype=np.float64)
    chunk_count_arr = np.zeros((n_chunks, n_slots * d), dtype=np.float64)
    chunk_shift_arr = np.zeros((n_chunks, n_slots * d), dtype=np.float64)
    chunk_mean_arr = np.zeros((n_chunks, n_slots * d), dtype=np.float64)
    chunk_ssd_arr = np.zeros((n_chunks, n_slots * d), dtype=np.float64)
    row_count_arr = np.zeros(n_slots, dtype=np.float64)
    count_arr = np.zeros((n_slots, d), dtype=np.float64)
    mean_arr = np.zeros((n_slots, d), dtype=np.float64)
    ssd_arr = np.zeros((n_slots, d), dtype=np.float64)

    cdef double[:, ::1] chunk_rows = chunk_rows_arr
    cdef double[:, ::1] chunk_count = chunk_count_arr
    cdef double[:, ::1] chunk_shift = chunk_shift_arr
    cdef double[:, ::1] chunk_mean = chunk_mean_arr
    cdef double[:, ::1] chunk_ssd = chunk_ssd_arr
    cdef double[::1] row_count = row_count_arr
    cdef double[:, ::1] count = count_arr
    cdef double[:, ::1] mean = mean_arr
    cdef double[:, ::1] ssd = ssd_arr
    # Rows whose values are not adjacent (a DataFrame's columns) are copied one at
    # a time into a per-block row of scratch.
    cdef bint strided = d > 1 and X.strides[1] != sizeof(floating)
    cdef floating[:, ::1] gathered = row_scratch(n_blocks, d, strided, floating is float)

    with nogil:
        if n_blocks == 1:
            accumulate_chunks(X, row_index, n, scratch_row(gathered, 0), codes, weights,
                              global_slot, missing, n_chunks,
                              0, n_chunks, chunk_rows, chunk_count, chunk_shift,
                              chunk_mean, chunk_ssd)
        else:
            for block in prange(n_blocks, schedule='static', num_threads=n_blocks):
                accumulate_chunks(X, row_index, n, scratch_row(gathered, block), codes,
                                  weights, global_slot, missing, n_chunks,
                                  block_start(block, n_blocks, n_chunks),
                                  block_start(block + 1, n_blocks, n_chunks),
                                  chunk_rows, chunk_count, chunk_shift, chunk_mean,
                                  chunk_ssd)
        # Fixed merge order: chunk 0, 1, 2, ... for every slot.
        for slot in range(n_slots):
            for chunk in range(n_chunks):
                row_count[slot] += chunk_rows[chunk, slot]
                chan_merge_feature_moments(
                    &count[slot, 0], &mean[slot, 0], &ssd[slot, 0],
                    &chunk_count[chunk, slot * d], &chunk_mean[chunk, slot * d],
                    &chunk_ssd[chunk, slot * d], d,
                )
    return row_count_arr, count_arr, mean_arr, ssd_arr


def merge_moments(
    double[:, ::1] count_a, double[:, ::1] mean_a, double[:, ::1] ssd_a,    # IN/OUT
    const double[:, ::1] count_b, const double[:, ::1] mean_b,
    const double[:, ::1] ssd_b,                                              # IN
):
    """Merge per-slot, per-feature moments b into a, in place (Chan's formula)."""
    cdef Py_ssize_t slot
    cdef Py_ssize_t d = mean_a.shape[1]
    with nogil:
        for slot in range(count_a.shape[0]):
            chan_merge_feature_moments(
                &count_a[slot, 0], &mean_a[slot, 0], &ssd_a[slot, 0],
                &count_b[slot, 0], &mean_b[slot, 0], &ssd_b[slot, 0], d,
            )


def merge_all_slots(
    const double[:, ::1] count, const double[:, ::1] mean, const double[:, ::1] ssd,
):
    """Moments of the union of all slots, merged in slot order: three (1, d) arrays."""
    cdef Py_ssize_t slot
    cdef Py_ssize_t d = mean.shape[1]
    total_count_arr = np.zeros((1, d), dtype=np.float64)
    total_mean_arr = np.zeros((1, d), dtype=np.float64)
    total_ssd_arr = np.zeros((1, d), dtype=np.float64)
    cdef double[:, ::1] total_count = total_count_arr
    cdef double[:, ::1] total_mean = total_mean_arr
    cdef double[:, ::1] total_ssd = total_ssd_arr
    with nogil:
        for slot in range(count.shape[0]):
            chan_merge_feature_moments(
                &total_count[0, 0], &total_mean[0, 0], &total_ssd[0, 0],
                &count[slot, 0], &mean[slot, 0], &ssd[slot, 0], d,
            )
    return total_count_arr, total_mean_arr, total_ssd_arr


# -- predict ----------------------------------------------------------------------------

cdef Py_ssize_t predict_rows(
    const floating[:, :] X,
    floating* gathered,         # SCRATCH: d values when X's rows are strided, else NULL
    const double[:, ::1] theta,
    const double[:, ::1] half_inv_var,
    const double[:, ::1] half_log_2pi_var,
    const double[::1] log_norm,
    const double[::1] log_prior,
    int mode,
    intp_t[::1] labels_out,
    double[:, ::1] out,
    Py_ssize_t row_start,
    Py_ssize_t row_stop,
) noexcept nogil:
    """Predict the rows [row_start, row_stop); return how many are suspect."""
    cdef Py_ssize_t i
    cdef Py_ssize_t n_suspect = 0
    cdef Py_ssize_t k = theta.shape[0]
    cdef Py_ssize_t d = theta.shape[1]
    cdef intp_t* label_out = NULL
    cdef double* row_out = NULL
    for i in range(row_start, row_stop):
        if mode == MODE_ARGMAX:
            label_out = &labels_out[i]
        else:
            row_out = &out[i, 0]
        n_suspect += gaussian_predict_row(
            row_of(X, i, gathered), &theta[0, 0], &half_inv_var[0, 0],
            &half_log_2pi_var[0, 0],
            &log_norm[0], &log_prior[0], k, d, mode, label_out, row_out,
        )
    return n_suspect


def gaussian_predict(
    const floating[:, :] X,                  # IN: (n, d) samples, NaN = missing, any strides
    const double[:, ::1] theta,              # IN: (k, d) class means
    const double[:, ::1] half_inv_var,       # IN: (k, d) 0.5 / variances
    const double[:, ::1] half_log_2pi_var,   # IN: (k, d) 0.5 * log(2 pi var)
    const double[::1] log_norm,              # IN: (k,) log prior - sum of the above
    const double[::1] log_prior,             # IN: (k,) log class priors
    int mode,                                # PredictMode
    intp_t[::1] labels_out,                  # OUT: (n,) for MODE_ARGMAX, else None
    double[:, ::1] out,                      # OUT: (n, k) for the other modes, else None
    int n_threads,
):
    """Fused Gaussian joint-log-likelihood predictor over rows.

    Returns the number of rows whose best score was not finite (NaN or +-inf), so
    that the caller can tell infinite input from a valid answer without a
    separate pass over X.
    """
    cdef Py_ssize_t n = X.shape[0]
    cdef Py_ssize_t block
    cdef Py_ssize_t n_suspect = 0
    cdef Py_ssize_t n_blocks = max(n_threads, 1)
    cdef Py_ssize_t d = X.shape[1]
    cdef bint strided = d > 1 and X.strides[1] != sizeof(floating)
    cdef floating[:, ::1] gathered = row_scratch(n_blocks, d, strided, floating is float)
    with nogil:
        if n_blocks == 1:
            n_suspect = predict_rows(X, scratch_row(gathered, 0), theta,
                                     half_inv_var, half_log_2pi_var, log_norm,
                                     log_prior, mode, labels_out, out, 0, n)
        else:
            for block in prange(n_blocks, schedule='static', num_threads=n_blocks):
                n_suspect += predict_rows(
                    X, scratch_row(gathered, block), theta, half_inv_var, half_log_2pi_var, log_norm, log_prior,
                    mode, labels_out, out,
                    block_start(block, n_blocks, n), block_start(block + 1, n_blocks, n),
                )
    return n_suspect
