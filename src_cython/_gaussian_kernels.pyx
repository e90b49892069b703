"""Gaussian Naive Bayes kernels: a one-pass moment accumulator and a fused predictor.

Design
------
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

Predict. One row at a time, one class at a time::

    jll[c] = log_norm[c] - sum_j (x_j - theta[c, j])**2 * half_inv_var[c, j]

with ``log_norm[c] = log prior[c] - sum_j half_log_2pi_var[c, j]`` and
``half_inv_var = 0.5 / var`` precomputed once per fit. No n x d temporary is made;
``MODE_ARGMAX`` keeps a running maximum and writes only a label index per row.
The sum over features uses eight fixed accumulators: gcc vectorises them without
being allowed to reorder additions, so every row's result is bit-reproducible.
A class score that comes out NaN (the row has a missing value) is recomputed
leaving the missing features' terms out: their density is marginalised.
"""

from cython.parallel cimport prange
from libc.math cimport INFINITY

from _common cimport (
    intp_t, floating, finish_row, chan_merge_moments, chan_merge_feature_moments,
    MODE_ARGMAX,
)

import numpy as np

cdef extern from *:
    # The per-slot state arrays never overlap each other or X: saying so lets the
    # compiler vectorise the row update without run-time alias checks.
    ctypedef double* state_ptr "double * __restrict__"


# -- fit ------------------------------------------------------------------------------

cdef inline void welford_update_row(
    const floating* x,   # IN: one row of X, d values
    double weight,       # IN: the row's sample weight (> 0)
    double* count,       # IN/OUT: running weight of the slot
    state_ptr shift,     # IN/OUT: the slot's first row, subtracted from every row
    state_ptr mean,      # IN/OUT: running mean of (x - shift), d values
    state_ptr ssd,       # IN/OUT: running centred sum of squares, d values
    Py_ssize_t d,
) noexcept nogil:
    cdef Py_ssize_t j
    cdef double total, share, ssd_factor, delta
    if count[0] == 0.0:
        # Shifting by a sample of the slot keeps the running mean near zero, so
        # its rounding errors are relative to the spread of the data, not to its
        # offset (1e8 + N(0, 1) keeps full precision).
        count[0] = weight
        for j in range(d):
            shift[j] = x[j]
            mean[j] = 0.0
            ssd[j] = 0.0
        return
    total = count[0] + weight
    share = weight / total
    # West's weighted update: ssd += w * delta * (x - new_mean)
    #                              = w * (1 - share) * delta**2.
    ssd_factor = weight * (count[0] / total)
    count[0] = total
    for j in range(d):
        delta = (x[j] - shift[j]) - mean[j]
        mean[j] = mean[j] + delta * share
        ssd[j] = ssd[j] + ssd_factor * delta * delta


cdef inline void welford_update_row_missing(
    const floating* x,   # IN: one row of X, d values, NaN where missing
    double weight,       # IN: the row's sample weight (> 0)
    state_ptr count,     # IN/OUT: running weight of each feature of the slot
    state_ptr shift,     # IN/OUT: first observed value of each feature
    state_ptr mean,      # IN/OUT: running mean of (x - shift)
    state_ptr ssd,       # IN/OUT: running centred sum of squares
    Py_ssize_t d,
) noexcept nogil:
    cdef Py_ssize_t j
    cdef double value, total, share, delta
    for j in range(d):
        value = x[j]
        if value != value:
            continue
        if count[j] == 0.0:
            count[j] = weight
            shift[j] = value
            mean[j] = 0.0
            ssd[j] = 0.0
            continue
        total = count[j] + weight
        share = weight / total
        delta = (value - shift[j]) - mean[j]
        mean[j] = mean[j] + delta * share
        ssd[j] = ssd[j] + (weight * (count[j] / total)) * delta * delta
        count[j] = total


cdef void accumulate_chunk(
    const floating[:, ::1] X,
    const intp_t[::1] codes,
    const double* weights,      # NULL when unweighted
    Py_ssize_t global_slot,     # slot that takes every row with weight 1, or -1
    bint missing,               # per-feature counts, NaN skipped
    Py_ssize_t row_start,
    Py_ssize_t row_stop,
    double* row_count,          # OUT: (n_slots,) weight of the chunk's rows per slot
    double* count,              # OUT: (n_slots, d) per-feature weight (missing only)
    double* shift,              # SCRATCH: (n_slots, d)
    double* mean,               # OUT: (n_slots, d)
    double* ssd,                # OUT: (n_slots, d)
    Py_ssize_t n_slots,
) noexcept nogil:
    cdef Py_ssize_t i, j, slot, base
    cdef Py_ssize_t d = X.shape[1]
    cdef double w
    cdef const floating* x
    for i in range(row_start, row_stop):
        x = &X[i, 0]
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
    # Undo the shift, and give every feature its count.
    for slot in range(n_slots):
        base = slot * d
        for j in range(d):
            if not missing:
                count[base + j] = row_count[slot]
            if count[base + j] > 0.0:
                mean[base + j] = mean[base + j] + shift[base + j]


def gaussian_fit(
    const floating[:, ::1] X,          # IN: (n, d) samples
    const intp_t[::1] codes,           # IN: (n,) class index of each row, in [0, n_classes)
    const double[::1] sample_weight,   # IN: (n,) non-negative weights, or None
    Py_ssize_t n_classes,
    bint track_unweighted,
    bint missing,
    Py_ssize_t n_chunks,
    int n_threads,
):
    """Per-class weighted counts, means and centred sums of squares in one pass.

    Returns ``(row_count, count, mean, ssd)`` of shapes ``(n_slots,)`` and
    ``(n_slots, d)`` (three times) in float64, where
    ``n_slots = n_classes + track_unweighted``; the extra last slot, when asked
    for, holds the unweighted moments of all rows. ``count`` is the weight behind
    each feature's moments: ``row_count`` broadcast, or with ``missing=True`` the
    weight of the rows where that feature is not NaN. ``n_chunks`` fixes the block
    decomposition: the result does not depend on ``n_threads``.
    """
    cdef Py_ssize_t n = X.shape[0]
    cdef Py_ssize_t d = X.shape[1]
    cdef Py_ssize_t n_slots = n_classes + (1 if track_unweighted else 0)
    cdef Py_ssize_t global_slot = n_classes if track_unweighted else -1
    cdef Py_ssize_t chunk, slot
    cdef const double* weights = NULL

    if sample_weight is not None:
        weights = &sample_weight[0]
    if n_chunks < 1:
        n_chunks = 1

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

    with nogil:
        if n_threads <= 1 or n_chunks == 1:
            for chunk in range(n_chunks):
                accumulate_chunk(
                    X, codes, weights, global_slot, missing,
                    chunk * n // n_chunks, (chunk + 1) * n // n_chunks,
                    &chunk_rows[chunk, 0], &chunk_count[chunk, 0], &chunk_shift[chunk, 0],
                    &chunk_mean[chunk, 0], &chunk_ssd[chunk, 0], n_slots,
                )
        else:
            for chunk in prange(n_chunks, schedule='static', num_threads=n_threads):
                accumulate_chunk(
                    X, codes, weights, global_slot, missing,
                    chunk * n // n_chunks, (chunk + 1) * n // n_chunks,
                    &chunk_rows[chunk, 0], &chunk_count[chunk, 0], &chunk_shift[chunk, 0],
                    &chunk_mean[chunk, 0], &chunk_ssd[chunk, 0], n_slots,
                )
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

cdef inline double class_jll(
    const floating* x,            # IN: one row, d values
    const double* theta,          # IN: class means, d values
    const double* half_inv_var,   # IN: 0.5 / class variances, d values
    double log_norm,              # IN: log prior - 0.5 * sum(log(2 pi var))
    Py_ssize_t d,
) noexcept nogil:
    cdef double acc[8]
    cdef double diff
    cdef Py_ssize_t j, t
    cdef Py_ssize_t d_blocked = d - d % 8
    for t in range(8):
        acc[t] = 0.0
    for j in range(0, d_blocked, 8):
        for t in range(8):
            diff = x[j + t] - theta[j + t]
            acc[t] = acc[t] + diff * diff * half_inv_var[j + t]
    for j in range(d_blocked, d):
        diff = x[j] - theta[j]
        acc[j - d_blocked] = acc[j - d_blocked] + diff * diff * half_inv_var[j]
    return log_norm - (((acc[0] + acc[1]) + (acc[2] + acc[3]))
                       + ((acc[4] + acc[5]) + (acc[6] + acc[7])))


cdef inline double class_jll_missing(
    const floating* x,               # IN: one row, NaN where missing
    const double* theta,
    const double* half_inv_var,
    const double* half_log_2pi_var,  # IN: 0.5 * log(2 pi var), d values
    double log_prior,
    Py_ssize_t d,
) noexcept nogil:
    """The class score with the missing features' terms left out (marginalised)."""
    cdef Py_ssize_t j
    cdef double diff
    cdef double total = 0.0
    for j in range(d):
        if x[j] == x[j]:
            diff = x[j] - theta[j]
            total = total + (diff * diff * half_inv_var[j] + half_log_2pi_var[j])
    return log_prior - total


cdef inline int predict_row(
    const floating* x,
    const double[:, ::1] theta,
    const double[:, ::1] half_inv_var,
    const double[:, ::1] half_log_2pi_var,
    const double[::1] log_norm,
    const double[::1] log_prior,
    int mode,
    intp_t* label_out,   # OUT for MODE_ARGMAX
    double* row_out,     # OUT (k values) for the other modes
) noexcept nogil:
    """Write one row's output; return 1 if its best score is not finite."""
    cdef Py_ssize_t c
    cdef Py_ssize_t k = theta.shape[0]
    cdef Py_ssize_t d = theta.shape[1]
    cdef double value
    cdef double best = -INFINITY
    cdef intp_t best_class = 0
    cdef bint saw_nan = False
    for c in range(k):
        value = class_jll(x, &theta[c, 0], &half_inv_var[c, 0], log_norm[c], d)
        if value != value:
            value = class_jll_missing(x, &theta[c, 0], &half_inv_var[c, 0],
                                      &half_log_2pi_var[c, 0], log_prior[c], d)
        if value > best:
            best = value
            best_class = c
        elif value != value:
            saw_nan = True
        if mode != MODE_ARGMAX:
            row_out[c] = value
    if mode == MODE_ARGMAX:
        label_out[0] = best_class
    else:
        finish_row(row_out, k, mode)
    return 1 if (saw_nan or best == -INFINITY or best == INFINITY) else 0


def gaussian_predict(
    const floating[:, ::1] X,                # IN: (n, d) samples, NaN = missing
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
    cdef Py_ssize_t i
    cdef Py_ssize_t n_suspect = 0
    cdef intp_t dummy_label
    cdef double* row_out = NULL
    cdef intp_t* label_out = &dummy_label
    with nogil:
        if n_threads <= 1:
            for i in range(n):
                if mode == MODE_ARGMAX:
                    label_out = &labels_out[i]
                else:
                    row_out = &out[i, 0]
                n_suspect += predict_row(&X[i, 0], theta, half_inv_var,
                                         half_log_2pi_var, log_norm, log_prior,
                                         mode, label_out, row_out)
        else:
            for i in prange(n, schedule='static', num_threads=n_threads):
                if mode == MODE_ARGMAX:
                    label_out = &labels_out[i]
                else:
                    row_out = &out[i, 0]
                n_suspect += predict_row(&X[i, 0], theta, half_inv_var,
                                         half_log_2pi_var, log_norm, log_prior,
                                         mode, label_out, row_out)
    return n_suspect
