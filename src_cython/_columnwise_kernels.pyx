"""ColumnwiseNB kernel: add up the sub-models' joint log-likelihoods, finish rows.

Design
------
ColumnwiseNB predicts a block of rows at a time. The first sub-model writes its
joint log-likelihood (its own log prior included) for the block straight into
the block's total, with its ordinary kernel; each further sub-model writes its
own into a scratch buffer, and ``add_block`` adds it::

    total[i, c] = total[i, c] + (jll[i, c] + bias[c])

The bias holds every constant of the sum at once: ColumnwiseNB's log prior minus
the log prior each sub-model included (``-inf`` for a class a sub-model has no
data of: the class stays impossible), so a row takes one pass per extra
sub-model. The last pass also finishes the row (``finish=True``): the arg-max
label index, or the (log) probabilities in place (``finish_row``). No second
``(n, k)`` array is made, and the sub-models are added in a fixed order, so every
row's result is the same bits for any thread count.
"""

from cython.parallel cimport prange
from libc.math cimport INFINITY

from _common cimport intp_t, finish_row, MODE_ARGMAX


def add_block(
    double[:, ::1] total,          # IN/OUT: (rows, k) running sum
    const double[:, ::1] jll,      # IN: (rows, k) one sub-model's jll, or None
    const double[::1] bias,        # IN: (k,) constant added to every row
    bint finish,                   # IN: finish the rows after adding
    int mode,                      # IN: a PredictMode (used when finishing)
    intp_t[::1] labels_out,        # OUT (finish, MODE_ARGMAX): (rows,) class indices
    int n_threads,
):
    """``total += jll + bias`` (``total += bias`` without jll), then, if
    ``finish``, the arg-max of each row into ``labels_out`` or the rows turned
    into the output of ``mode`` in place."""
    cdef intp_t n = total.shape[0], k = total.shape[1], i, c, best
    cdef bint has_jll = jll is not None
    cdef double top
    with nogil:
        for i in prange(n, schedule="static", num_threads=n_threads,
                        use_threads_if=n_threads > 1):
            if has_jll:
                for c in range(k):
                    total[i, c] = total[i, c] + (jll[i, c] + bias[c])
            else:
                for c in range(k):
                    total[i, c] = total[i, c] + bias[c]
            if not finish:
                continue
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
