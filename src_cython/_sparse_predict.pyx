# Over the ~600-line guideline on purpose: TablePredictor's fused predict (the
# table walk and the slot path over one row-block driver and its scratch) is one
# class; split, the two paths would each need a copy of the driver.
"""Predict over the sparse per-class count table (text-scale discrete models).

The table and its entry weights are built and refreshed by ``_sparse_counts.pyx``
(layout in ``_sparse_rows.pxd``). Here a CSR row is scored in O(nnz x classes with
counts): ``TablePredictor`` scores rows in parallel over row blocks, each row
computed alone, so results do not depend on the thread count; given the table's
feature slots (``fill_slots``), it scores a large batch over one cache line a
feature instead.

The joint log likelihood of row x is, for every model here,

    jll[c] = bias[c] + mult[c] * (sum_j x_j base_j + s(x) scale[c] + sum_{e of j} x_j w_e)

with s(x) = sum_j x_j, ``base`` a per-feature term shared by the classes without
a count, and ``w_e`` the difference a class's count makes.
"""

from cython.parallel cimport prange
from libc.stdint cimport int32_t, int64_t
from libc.stdlib cimport calloc, free, malloc
from libc.math cimport INFINITY, log
from libc.string cimport strchr
import numpy as np
from cpython.buffer cimport (PyBUF_C_CONTIGUOUS, PyBUF_FORMAT, PyBuffer_Release,
                             PyObject_GetBuffer)

from _common cimport (intp_t, floating, finish_row, block_start, block_scratch_bytes,
                     row_argmax, MODE_ARGMAX)
from _sparse_rows cimport add_block_weights
# (the slots and their row scoring: fastnb.inspection's kernels read them too)
from _sparse_slots cimport FeatureSlot, SLOT_ENTRIES, index_t, slot_predict_row


# classes whose scores ``TablePredictor.predict_row`` keeps on the stack
cdef enum:
    ROW_STACK_CLASSES = 256


cdef inline int table_predict_row(
    const floating* data, const index_t* indices,
    Py_ssize_t start, Py_ssize_t stop, Py_ssize_t d,
    const int64_t* feat_start, const int32_t* feat_len,
    const int32_t* ent_class, const double* ent_weight, const double* feat_base,
    bint scalar_base, const double* bias, const double* scale, const double* mult,
    Py_ssize_t k, bint binarize, double threshold, int mode,
    intp_t* label_out, double* acc,
) noexcept nogil:
    """One row's output; 0 fine, 1 suspect (non-finite), 2 malformed."""
    cdef Py_ssize_t p, j, c
    cdef double x, s = 0.0, base = 0.0
    cdef double best
    cdef intp_t best_class
    cdef bint saw_nan = False
    for c in range(k):
        acc[c] = 0.0
    for p in range(start, stop):
        j = indices[p]
        if j < 0 or j >= d:
            return 2
        x = data[p]
        if binarize:
            # thresholding would hide NaN (missing) and inf (an error): flag the row
            if x != x or x == INFINITY or x == -INFINITY:
                saw_nan = True
            x = 1.0 if x > threshold else 0.0
        s = s + x
        base = base + x * (feat_base[0] if scalar_base else feat_base[j])
        if feat_len[j] > 0:
            add_block_weights(acc, ent_class, ent_weight, feat_start[j], feat_len[j], x)
    for c in range(k):
        acc[c] = bias[c] + mult[c] * ((base + s * scale[c]) + acc[c])
    best_class = row_argmax(acc, k, &best, &saw_nan)
    if mode == MODE_ARGMAX:
        label_out[0] = best_class
    else:
        finish_row(acc, k, mode)
    return 1 if (saw_nan or best == -INFINITY or best == INFINITY) else 0


# -- large batches: the table as one cache line a feature ------------------------
#
# A large batch reaches most of the table's features, and walking a feature's
# block costs a miss in each of four arrays (index start and length, classes,
# weights) where a rare feature has one or two entries. ``FeatureSlot`` puts
# what a non-zero needs into one 64-byte line: its base term and up to
# SLOT_ENTRIES entries inline, or (a feature with more classes: the frequent
# ones, few and hot in cache) the index of a dense row of its k weights, zero
# where a class has no count, summed in registers (models of up to 48 classes).
# A row's scores are those of ``table_predict_row`` to rounding: the same terms,
# with a frequent feature's classes summed apart from the inline entries. The
# model picks the path from the batch alone.

# (The row over the slots, ``slot_predict_row``, is in _sparse_slots.pxd.)

# the widths of a dense row (classes padded to 8) that ``slot_row_lanes`` sums in
# registers: feature slots are for models of up to 48 classes
SLOT_ROW_WIDTHS = (8, 16, 24, 32, 40, 48)


def slot_dense_rows(const int32_t[::1] feat_len):
    """How many features have more entries than a slot holds (a dense row each)."""
    cdef Py_ssize_t j, count = 0
    with nogil:
        for j in range(feat_len.shape[0]):
            count += feat_len[j] > SLOT_ENTRIES
    return count


def slot_bytes():
    """Bytes of one feature's slot."""
    return sizeof(FeatureSlot)


cdef inline bint write_slot(
    Py_ssize_t j, const int64_t* feat_start, const int32_t* feat_len,
    const int32_t* ent_class, const double* ent_weight, double base,
    FeatureSlot* slot, double[:, ::1] rows, Py_ssize_t* n_rows,
) noexcept nogil:
    """Write feature j's slot: its entries inline, or into its dense row (the
    row it has, else the next free one, ``n_rows[0]``, taken). Returns False
    when it needs a row and none is free (the slot is then left as it was)."""
    cdef int32_t n = feat_len[j]
    cdef Py_ssize_t s = feat_start[j], e, c, row
    if n > SLOT_ENTRIES:
        if slot[j].n < 0:
            row = -(slot[j].n + 1)   # a feature's entries only grow: its row stays
        elif n_rows[0] < rows.shape[0]:
            row = n_rows[0]
            n_rows[0] += 1
        else:
            return False
        for c in range(rows.shape[1]):
            rows[row, c] = 0.0
        for e in range(s, s + n):
            rows[row, ent_class[e]] = ent_weight[e]
    slot[j].base = base
    slot[j].unused = 0
    for e in range(SLOT_ENTRIES):
        slot[j].entry_class[e] = 0
        slot[j].entry_weight[e] = 0.0
    if n <= SLOT_ENTRIES:
        slot[j].n = n
        for e in range(n):
            slot[j].entry_class[e] = ent_class[s + e]
            slot[j].entry_weight[e] = ent_weight[s + e]
    else:
        slot[j].n = <int32_t>(-(row + 1))
    return True


def fill_slots(
    const int64_t[::1] feat_start,    # IN: the table (see _sparse_rows.pxd)
    const int32_t[::1] feat_len,
    const int32_t[::1] ent_class,
    const double[::1] ent_weight,
    const double[::1] feat_base,      # IN: (d,) or (1,) per-feature base term
    unsigned char[::1] slots,         # OUT: (d * slot_bytes(),) 8-byte aligned at least
    double[:, ::1] rows,              # OUT: (>= slot_dense_rows, kp), kp >= k
):
    """Write each feature's slot, and the dense rows of the features with more
    entries than a slot holds (in feature order). Returns the rows used.
    Bounds of a loaded table: ent_class < k and at most k entries a feature
    (``_invariants.table_entries`` at load)."""
    cdef Py_ssize_t d = feat_len.shape[0], j, n_rows = 0
    cdef FeatureSlot* slot = <FeatureSlot*>&slots[0]
    cdef bint scalar_base = feat_base.shape[0] == 1, room = True
    with nogil:
        for j in range(d):
            slot[j].n = 0   # no row yet
            if not write_slot(j, &feat_start[0], &feat_len[0], &ent_class[0],
                              &ent_weight[0], feat_base[0] if scalar_base else feat_base[j],
                              slot, rows, &n_rows):
                room = False
                break
    if not room:
        raise ValueError("fill_slots: fewer dense rows than features that need one")
    return n_rows


def patch_slots(
    const int64_t[::1] features,      # IN: the features whose entries changed
    const int64_t[::1] feat_start,    # IN: the table, as now
    const int32_t[::1] feat_len,
    const int32_t[::1] ent_class,
    const double[::1] ent_weight,
    const double[::1] feat_base,      # IN: (d,) or (1,) per-feature base term, as now
    unsigned char[::1] slots,         # IN/OUT: the slots of the table as it was
    double[:, ::1] rows,              # IN/OUT: and their dense rows
    Py_ssize_t n_rows,                # rows in use
):
    """Rewrite the slots (and dense rows) of ``features`` (repeats allowed) to
    the table as it is now, in O(their entries): every other slot must already
    be current. Returns the rows then in use, or -1 when ``rows`` has no room
    for the features that newly need one (the slots are then partly written:
    fill them again)."""
    cdef Py_ssize_t d = feat_len.shape[0], t, j
    cdef FeatureSlot* slot = <FeatureSlot*>&slots[0]
    cdef bint scalar_base = feat_base.shape[0] == 1
    cdef bint in_range = True
    if slots.shape[0] < d * <Py_ssize_t>sizeof(FeatureSlot):
        raise ValueError("patch_slots: fewer slots than features")
    with nogil:
        for t in range(features.shape[0]):
            in_range = in_range & (0 <= features[t] < d)
    if not in_range:
        raise ValueError("patch_slots: a feature out of range")
    # a feature is listed once per entry that changed: written once
    cdef unsigned char* seen = <unsigned char*>calloc(d // 8 + 1, 1)
    if seen == NULL:
        raise MemoryError()
    with nogil:
        for t in range(features.shape[0]):
            j = features[t]
            if seen[j >> 3] & (1 << (j & 7)):
                continue
            seen[j >> 3] |= <unsigned char>(1 << (j & 7))
            if not write_slot(j, &feat_start[0], &feat_len[0], &ent_class[0],
                              &ent_weight[0], feat_base[0] if scalar_base else feat_base[j],
                              slot, rows, &n_rows):
                n_rows = -1
                break
    free(seen)
    return n_rows


cdef Py_ssize_t table_predict_rows(
    const floating[::1] data, const index_t[::1] indices, const index_t[::1] indptr,
    Py_ssize_t d, const int64_t* feat_start, const int32_t* feat_len,
    const int32_t* ent_class, const double* ent_weight, const double* feat_base,
    bint scalar_base, const FeatureSlot* slot, const double* rows,
    Py_ssize_t row_stride, const double* bias, const double* scale, const double* mult,
    Py_ssize_t k, bint binarize, double threshold, int mode, intp_t[::1] labels_out,
    double[:, ::1] out, double* scratch, Py_ssize_t row_start, Py_ssize_t row_stop,
    intp_t* n_malformed,
) noexcept nogil:
    """Rows [row_start, row_stop) of a CSR batch, over the feature slots when
    ``slot`` is not NULL, else by walking the table; returns how many came out
    suspect (non-finite) and counts malformed rows into ``n_malformed``."""
    cdef Py_ssize_t i, start, stop, nnz = data.shape[0], n_suspect = 0
    cdef int status
    cdef intp_t dummy_label
    cdef intp_t* label_out = &dummy_label
    cdef double* acc
    # the block's non-zeros, for the slots' look-ahead (within the data, whatever
    # the row pointers say: a malformed row is reported, not read)
    cdef Py_ssize_t ahead_stop = min(max(<Py_ssize_t>indptr[row_stop], 0), nnz)
    for i in range(row_start, row_stop):
        start = indptr[i]
        stop = indptr[i + 1]
        if mode == MODE_ARGMAX:
            label_out = &labels_out[i]
            acc = scratch
        else:
            acc = &out[i, 0]
        if start < 0 or stop > nnz or stop < start:
            n_malformed[0] += 1
            continue
        if slot != NULL:
            status = slot_predict_row(
                data, indices, start, stop, d, slot, rows, row_stride, bias, scale,
                mult, k, binarize, threshold, mode, label_out, acc,
                max(stop, ahead_stop))
        else:
            status = table_predict_row(
                &data[0], &indices[0], start, stop, d, feat_start, feat_len, ent_class,
                ent_weight, feat_base, scalar_base, bias, scale, mult, k, binarize,
                threshold, mode, label_out, acc)
        if status == 2:
            n_malformed[0] += 1
        else:
            n_suspect += status
    return n_suspect


cdef inline bint strictly_increasing(const index_t* indices, Py_ssize_t start,
                                     Py_ssize_t stop) noexcept nogil:
    """Whether indices[start:stop] increase strictly: one row of a CSR matrix in
    canonical format (sorted, no duplicates)."""
    cdef Py_ssize_t p
    cdef bint ok = True
    for p in range(start + 1, stop):
        ok = ok & (indices[p] > indices[p - 1])
    return ok


cdef inline int buffer_kind(const Py_buffer* view, const char* codes) noexcept:
    """The item size of a 1-D buffer whose format is one of ``codes`` (struct
    characters, native order), else 0."""
    cdef const char* fmt = view.format
    if view.ndim != 1 or fmt == NULL:
        return 0
    if fmt[0] == b'@':
        fmt += 1
    if fmt[0] == 0 or fmt[1] != 0 or strchr(codes, fmt[0]) == NULL:
        return 0
    if view.itemsize != 4 and view.itemsize != 8:
        return 0
    return <int>view.itemsize


cdef inline void release_views(int held, Py_buffer* first, Py_buffer* second,
                               Py_buffer* third) noexcept:
    """Release the first ``held`` of the three buffers."""
    if held > 0:
        PyBuffer_Release(first)
    if held > 1:
        PyBuffer_Release(second)
    if held > 2:
        PyBuffer_Release(third)


cdef class TablePredictor:
    """The table's arrays and predict terms of one model state, typed once.

    A 1-document predict is a few hundred nanoseconds of arithmetic; converting
    a dozen arrays to memoryviews on every call cost more than that, so the
    model keeps one of these per state (in its predict cache) and a call
    converts only the batch. Bounds of a loaded table: ent_class < k, blocks
    within the pool (``_invariants.table_entries`` at load, then
    ``SparseCountTable.from_entries``).
    """
    cdef const int64_t[::1] feat_start
    cdef const int32_t[::1] feat_len
    cdef const int32_t[::1] ent_class
    cdef const double[::1] ent_weight
    cdef const double[::1] feat_base   # (d,) or (1,) per-feature base term
    cdef const double[::1] bias        # (k,)
    cdef const double[::1] scale       # (k,) times s(x)
    cdef const double[::1] mult        # (k,) outer factor
    cdef const unsigned char[::1] slots   # the feature slots (``fill_slots``), if any
    cdef const double[:, ::1] rows        # and their dense rows
    cdef bint has_slots
    cdef Py_ssize_t n_features

    def __init__(self, feat_start, feat_len, ent_class, ent_weight, feat_base, bias,
                 scale, mult, slots=None, rows=None):
        self.feat_start = feat_start
        self.feat_len = feat_len
        self.ent_class = ent_class
        self.ent_weight = ent_weight
        self.feat_base = feat_base
        self.bias = bias
        self.scale = scale
        self.mult = mult
        self.has_slots = slots is not None
        if self.has_slots:
            if rows.shape[1] not in SLOT_ROW_WIDTHS:
                raise ValueError(f"slot rows of {rows.shape[1]} classes: 8, 16, ..., 48 "
                                 "are summed in registers, a larger k walks the table")
            self.slots = slots
            self.rows = rows
        self.n_features = feat_start.shape[0]

    def slot_arrays(self):
        """(slots, rows): the feature slots and their dense rows, or None for a
        predictor without slots (fastnb.inspection reads them)."""
        if not self.has_slots:
            return None
        return np.asarray(self.slots), np.asarray(self.rows)

    def predict(
        self,
        const floating[::1] data,     # IN: CSR values
        const index_t[::1] indices,   # IN: CSR column indices
        const index_t[::1] indptr,    # IN: (n + 1,) row pointers
        bint binarize,
        double threshold,
        int mode,
        intp_t[::1] labels_out,
        double[:, ::1] out,
        int n_threads,
    ):
        """Score CSR rows against the table (over its feature slots, if it was
        given them). Returns ``(n_suspect, n_malformed)``."""
        cdef Py_ssize_t n = indptr.shape[0] - 1
        cdef Py_ssize_t k = self.bias.shape[0]
        cdef Py_ssize_t block, n_blocks = max(1, min(n_threads, n))
        cdef Py_ssize_t n_suspect = 0, n_malformed = 0
        # Per-block class scratch for arg-max rows and malformed-row counts, from
        # malloc (a 1-document call is a few hundred nanoseconds of arithmetic:
        # two NumPy allocations cost more than that); failure raises MemoryError.
        # (block_scratch_bytes: each thread's row in pages of its own)
        cdef Py_ssize_t stride = (
            k if n_blocks == 1 else block_scratch_bytes(k * sizeof(double)) // sizeof(double))
        cdef const FeatureSlot* slot = NULL
        cdef const double* rows = NULL
        cdef Py_ssize_t row_stride = 0
        cdef double* scratch
        cdef intp_t* malformed
        if self.has_slots:
            slot = <const FeatureSlot*>&self.slots[0]
            rows = &self.rows[0, 0]
            row_stride = self.rows.shape[1]
        scratch = <double*>malloc(n_blocks * stride * sizeof(double))
        malformed = <intp_t*>calloc(n_blocks, sizeof(intp_t))
        if scratch == NULL or malformed == NULL:
            free(scratch)
            free(malformed)
            raise MemoryError()
        try:
            with nogil:
                # One block never enters an OpenMP region (a 1-document call).
                for block in prange(n_blocks, schedule='static', num_threads=n_blocks,
                                    use_threads_if=n_blocks > 1):
                    n_suspect += table_predict_rows(
                        data, indices, indptr, self.n_features, &self.feat_start[0],
                        &self.feat_len[0], &self.ent_class[0], &self.ent_weight[0],
                        &self.feat_base[0], self.feat_base.shape[0] == 1, slot, rows,
                        row_stride, &self.bias[0], &self.scale[0], &self.mult[0], k,
                        binarize, threshold, mode, labels_out, out,
                        &scratch[block * stride], block_start(block, n_blocks, n),
                        block_start(block + 1, n_blocks, n), &malformed[block])
            for block in range(n_blocks):
                n_malformed += malformed[block]
        finally:
            free(scratch)
            free(malformed)
        return n_suspect, n_malformed

    def predict_row(self, data, indices, indptr, bint binarize, double threshold):
        """The class index of a one-row CSR batch, scored as ``predict`` scores it
        (the same label), or -1 when the row needs ``predict`` itself: a value
        not finite (missing, or an error), an index out of range, with
        ``binarize`` indices that do not increase strictly (a row not in
        canonical format), or arrays this path does not read. The 1-document
        path: no output arrays, and no scratch beyond the stack for up to
        ROW_STACK_CLASSES classes.

        ``data``, ``indices`` and ``indptr`` are the batch's arrays: 1-D and
        contiguous, float64 or float32 values, int32 or int64 indices and row
        pointers, in native byte order. They are read through the buffer
        protocol, not typed memoryviews: making the three memoryviews took
        ~0.9 us a call (T1, a 34-word document: the call took 1.7-1.9 us in all,
        its scoring ~0.9 us)."""
        cdef Py_buffer data_view, index_view, ptr_view
        cdef int held = 0
        cdef int data_kind, index_kind, ptr_kind
        cdef Py_ssize_t start = -1, stop = -1
        cdef intp_t label = -1
        try:
            try:
                PyObject_GetBuffer(data, &data_view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT)
                held = 1
                PyObject_GetBuffer(indices, &index_view,
                                   PyBUF_C_CONTIGUOUS | PyBUF_FORMAT)
                held = 2
                PyObject_GetBuffer(indptr, &ptr_view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT)
                held = 3
            except (BufferError, ValueError, TypeError):
                # not a buffer, or not a contiguous one: predict's general path
                return -1
            data_kind = buffer_kind(&data_view, b"fd")
            index_kind = buffer_kind(&index_view, b"ilq")
            ptr_kind = buffer_kind(&ptr_view, b"ilq")
            if ptr_kind != 0 and ptr_view.shape[0] == 2:
                if ptr_kind == 4:
                    start = (<const int32_t*>ptr_view.buf)[0]
                    stop = (<const int32_t*>ptr_view.buf)[1]
                else:
                    start = (<const int64_t*>ptr_view.buf)[0]
                    stop = (<const int64_t*>ptr_view.buf)[1]
            if (data_kind == 0 or index_kind == 0 or start < 0 or stop < start
                    or stop > data_view.shape[0] or stop > index_view.shape[0]):
                pass
            elif binarize and not (
                    strictly_increasing(<const int*>index_view.buf, start, stop)
                    if index_kind == 4 else
                    strictly_increasing(<const long long*>index_view.buf, start, stop)):
                # a repeated index: thresholded once its values are summed, by
                # predict's general path (which sums duplicates first)
                pass
            elif data_kind == 8 and index_kind == 4:
                label = self._row_label(<const double*>data_view.buf,
                                        <const int*>index_view.buf, start, stop,
                                        binarize, threshold)
            elif data_kind == 8:
                label = self._row_label(<const double*>data_view.buf,
                                        <const long long*>index_view.buf, start, stop,
                                        binarize, threshold)
            elif index_kind == 4:
                label = self._row_label(<const float*>data_view.buf,
                                        <const int*>index_view.buf, start, stop,
                                        binarize, threshold)
            else:
                label = self._row_label(<const float*>data_view.buf,
                                        <const long long*>index_view.buf, start, stop,
                                        binarize, threshold)
        finally:
            # every buffer taken is given back, on every way out (scoring a model
            # of more than ROW_STACK_CLASSES classes may raise MemoryError)
            release_views(held, &data_view, &index_view, &ptr_view)
        return label

    cdef intp_t _row_label(self, const floating* data, const index_t* indices,
                           Py_ssize_t start, Py_ssize_t stop, bint binarize,
                           double threshold) except -2:
        """``predict_row``'s scoring of non-zeros [start, stop): the class index,
        or -1 for a row that needs ``predict``."""
        cdef Py_ssize_t k = self.bias.shape[0]
        cdef intp_t label = -1
        cdef int status
        cdef double stack_acc[ROW_STACK_CLASSES]
        cdef double* acc = stack_acc
        if k > ROW_STACK_CLASSES:
            acc = <double*>malloc(k * sizeof(double))
            if acc == NULL:
                raise MemoryError()
        status = table_predict_row(
            data, indices, start, stop, self.n_features, &self.feat_start[0],
            &self.feat_len[0], &self.ent_class[0], &self.ent_weight[0],
            &self.feat_base[0], self.feat_base.shape[0] == 1, &self.bias[0],
            &self.scale[0], &self.mult[0], k, binarize, threshold, MODE_ARGMAX,
            &label, acc)
        if acc != stack_acc:
            free(acc)
        return label if status == 0 else -1
