# The sparse count table's feature slots (see _sparse_predict.pyx, "large
# batches"): what a non-zero of feature j needs in one 64-byte line. Written by
# _sparse_predict.fill_slots / patch_slots; read by its slot predictor and by
# _inspection_kernels (top contributions over a large batch), which score a row
# by the same ``slot_predict_row``: the same bits as predict.

from libc.stdint cimport int32_t
from libc.math cimport INFINITY

from _common cimport intp_t, floating, finish_row, row_argmax, MODE_ARGMAX
from _counts cimport (FASTNB_PREFETCH_L1, Lanes8, Lanes16, Lanes24, Lanes32, Lanes40,
                     Lanes48, lanes_t)

ctypedef fused index_t:
    int
    long long

cdef enum:
    SLOT_ENTRIES = 4

ctypedef struct FeatureSlot:
    int32_t n                        # entries inline, or -(row + 1): a dense row
    int32_t entry_class[SLOT_ENTRIES]
    int32_t unused
    double base                      # the feature's base term
    double entry_weight[SLOT_ENTRIES]

# slots, and the dense rows they point to, prefetched ahead, in non-zeros
cdef enum:
    SLOT_PREFETCH = 32
    ROW_PREFETCH = 12


cdef inline int slot_row_lanes(
    lanes_t* dense_out,              # OUT: the dense rows' sums, kp of them
    double* acc,                     # IN/OUT: (k,) zeroed: the inline entries' sums
    double* totals,                  # OUT: [s(x), sum_j x_j base_j]
    const floating[::1] data, const index_t[::1] indices,
    Py_ssize_t start, Py_ssize_t stop, Py_ssize_t ahead_stop, Py_ssize_t d,
    const FeatureSlot* slot, const double* rows, bint binarize, double threshold,
    bint* saw_nan,
) noexcept nogil:
    """One row over the slots, for kp = 8, ..., 48 padded classes: the dense rows
    are summed in registers (as the dense CSR kernel does, ``csr_row_dot_lanes``),
    the inline entries into ``acc``. Returns 2 on an index out of range."""
    cdef Py_ssize_t kp = sizeof(lanes_t) // sizeof(double)
    cdef Py_ssize_t p, j, c, e, ahead
    cdef int32_t n
    cdef double x, s = 0.0, base = 0.0
    cdef lanes_t sums
    cdef const double* row
    for c in range(kp):
        sums.acc[c] = 0.0
    for p in range(start, stop):
        if p + SLOT_PREFETCH < ahead_stop:
            ahead = indices[p + SLOT_PREFETCH]
            if 0 <= ahead < d:
                FASTNB_PREFETCH_L1(&slot[ahead])
        if p + ROW_PREFETCH < ahead_stop:
            # the slot fetched above tells where the dense row is (if any)
            ahead = indices[p + ROW_PREFETCH]
            if 0 <= ahead < d and slot[ahead].n < 0:
                row = rows + (-(slot[ahead].n + 1)) * kp
                for c in range(0, kp, 8):
                    FASTNB_PREFETCH_L1(row + c)
        j = indices[p]
        if j < 0 or j >= d:
            return 2
        x = data[p]
        if binarize:
            # thresholding would hide NaN (missing) and inf (an error): flag the row
            if x != x or x == INFINITY or x == -INFINITY:
                saw_nan[0] = True
            x = 1.0 if x > threshold else 0.0
        s = s + x
        base = base + x * slot[j].base
        n = slot[j].n
        if n >= 0:
            for e in range(n):
                acc[slot[j].entry_class[e]] += x * slot[j].entry_weight[e]
        else:
            row = rows + (-(n + 1)) * kp
            for c in range(kp):
                sums.acc[c] = sums.acc[c] + x * row[c]
    # lane by lane: a struct copy is a rep movsq, ~30 cycles to start (a row)
    for c in range(kp):
        dense_out.acc[c] = sums.acc[c]
    totals[0] = s
    totals[1] = base
    return 0


cdef inline int slot_predict_row(
    const floating[::1] data, const index_t[::1] indices,
    Py_ssize_t start, Py_ssize_t stop, Py_ssize_t d,
    const FeatureSlot* slot, const double* rows, Py_ssize_t row_stride,
    const double* bias, const double* scale, const double* mult,
    Py_ssize_t k, bint binarize, double threshold, int mode,
    intp_t* label_out, double* acc, Py_ssize_t ahead_stop,
) noexcept nogil:
    """One row's output over the slots (the terms of ``table_predict_row``); 0
    fine, 1 suspect (non-finite), 2 malformed. The slots are prefetched
    SLOT_PREFETCH non-zeros ahead, across rows up to ``ahead_stop`` (a T1 row has
    30 non-zeros: stopping at the row's end would leave half of them to wait)."""
    cdef Py_ssize_t c
    cdef int status
    cdef double totals[2]
    cdef double dense[48]
    cdef double best
    cdef intp_t best_class
    cdef bint saw_nan = False
    for c in range(k):
        acc[c] = 0.0
    if row_stride == 8:
        status = slot_row_lanes(<Lanes8*>dense, acc, totals, data, indices, start, stop,
                                ahead_stop, d, slot, rows, binarize, threshold, &saw_nan)
    elif row_stride == 16:
        status = slot_row_lanes(<Lanes16*>dense, acc, totals, data, indices, start, stop,
                                ahead_stop, d, slot, rows, binarize, threshold, &saw_nan)
    elif row_stride == 24:
        status = slot_row_lanes(<Lanes24*>dense, acc, totals, data, indices, start, stop,
                                ahead_stop, d, slot, rows, binarize, threshold, &saw_nan)
    elif row_stride == 32:
        status = slot_row_lanes(<Lanes32*>dense, acc, totals, data, indices, start, stop,
                                ahead_stop, d, slot, rows, binarize, threshold, &saw_nan)
    elif row_stride == 40:
        status = slot_row_lanes(<Lanes40*>dense, acc, totals, data, indices, start, stop,
                                ahead_stop, d, slot, rows, binarize, threshold, &saw_nan)
    elif row_stride == 48:
        status = slot_row_lanes(<Lanes48*>dense, acc, totals, data, indices, start, stop,
                                ahead_stop, d, slot, rows, binarize, threshold, &saw_nan)
    else:  # (TablePredictor takes slots only with rows of 8, 16, ..., 48)
        return 2
    if status == 2:
        return 2
    # the scores in a loop without branches (vectorised), then the arg-max
    for c in range(k):
        acc[c] = bias[c] + mult[c] * ((totals[1] + totals[0] * scale[c])
                                      + (acc[c] + dense[c]))
    best_class = row_argmax(acc, k, &best, &saw_nan)
    if mode == MODE_ARGMAX:
        label_out[0] = best_class
    else:
        finish_row(acc, k, mode)
    return 1 if (saw_nan or best == -INFINITY or best == INFINITY) else 0
