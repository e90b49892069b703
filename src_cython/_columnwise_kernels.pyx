"""ColumnwiseNB kernels: sum the sub-models' joint log-likelihoods, then finish rows.

Design
------
ColumnwiseNB predicts a block of rows at a time. Every sub-model writes its joint
log-likelihood (its own log prior included) for the block into a scratch
``(rows, k)`` buffer with its ordinary kernel; ``add_jll`` adds it into the total
without that prior::

    total[i, c] = (log_prior[c] if first else total[i, c]) + (jll[i, c] + shift[c])

where ``shift[c] = -(the sub-model's log prior of c)``, or ``-inf`` for a class the
sub-model has no data of (its log prior is ``-inf``: the class stays impossible).
The sub-models are added in a fixed order, so every row's sum is the same bits for
any thread count. ``finish_block`` then writes the arg-max label index of each
row, or turns the rows into (log) probabilities in place (``finish_row``): no
second ``(n, k)`` array is made.
"""

from cython.parallel cimport prange

from libc.math cimport INFINITY

from _common cimport intp_t, finish_row, MODE_ARGMAX, MODE_JLL


def add_jll(
    double[:, ::1] total,          # OUT (first) or IN/OUT: (rows, k) running sum
    const double[:, ::1] jll,      # IN: (rows, k) one sub-model's joint log-likelihood
    const double[::1] shift,       # IN: (k,) minus that sub-model's log prior
    const double[::1] log_prior,   # IN: (k,) ColumnwiseNB's log prior, or None
    int n_threads,
):
    """Add one sub-model's ``jll + shift`` into ``total`` (started from
    ``log_prior`` when it is given: the first sub-model of a block)."""
    cdef intp_t n = total.shape[0], k = total.shape[1], i, c
    cdef bint first = log_prior is not None
    with nogil:
        for i in prange(n, schedule="static", num_threads=n_threads,
                        use_threads_if=n_threads > 1):
            if first:
                for c in range(k):
                    total[i, c] = log_prior[c] + (jll[i, c] + shift[c])
            else:
                for c in range(k):
                    total[i, c] = total[i, c] + (jll[i, c] + shift[c])


def finish_block(
    double[:, ::1] total,          # IN/OUT: (rows, k) joint log-likelihoods
    int mode,                      # IN: a PredictMode
    intp_t[::1] labels_out,        # OUT (MODE_ARGMAX): (rows,) class indices, or None
    int n_threads,
):
    """Arg-max of each row into ``labels_out``, or the rows normalised in place."""
    cdef intp_t n = total.shape[0], k = total.shape[1], i, c, best
    cdef double top
    if mode == MODE_JLL:
        return
    with nogil:
        for i in prange(n, schedule="static", num_threads=n_threads,
                        use_threads_if=n_threads > 1):
            if mode == MODE_ARGMAX:
                # The first of equal maxima, as every fastnb kernel (and numpy).
                best = 0
                top = -INFINITY
                for c in range(k):
                    if total[i, c] > top:
                        top = total[i, c]
                        best = c
                labels_out[i] = best
            else:
                finish_row(&total[i, 0], k, mode)
