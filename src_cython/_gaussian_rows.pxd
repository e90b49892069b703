# Rows of a dense X for the Gaussian kernels (_gaussian_kernels.pyx, the fit and
# predict; _gaussian_candidates.pyx, a search's candidates): X is read where it
# lives, C-ordered or not, and a row whose values are not adjacent is copied into
# a scratch row first, so the point functions of _gaussian.pxd read the same values
# in the same order, and give the same bits, whatever the layout.

from _common cimport floating, block_scratch_bytes


cdef inline const floating* row_of(
    const floating[:, :] X, Py_ssize_t i, floating* gathered,
) noexcept nogil:
    """Row i of X: in place when its values are adjacent, else copied into
    ``gathered`` (d values), so the point functions always read d adjacent values."""
    cdef Py_ssize_t j
    if gathered == NULL:
        return &X[i, 0]
    for j in range(X.shape[1]):
        gathered[j] = X[i, j]
    return gathered


cdef inline object row_scratch(Py_ssize_t n_blocks, Py_ssize_t d, bint strided,
                               bint single):
    """One row of scratch per block for ``row_of`` when X's rows are strided, else
    None: a C-ordered predict of one row allocates nothing here."""
    if not strided:
        return None
    import numpy as np
    cdef Py_ssize_t size = 4 if single else 8
    return np.empty((n_blocks, block_scratch_bytes(max(d, 1) * size) // size),
                    dtype=np.float32 if single else np.float64)


cdef inline floating* scratch_row(floating[:, ::1] scratch, Py_ssize_t block) noexcept nogil:
    return NULL if scratch is None else &scratch[block, 0]
