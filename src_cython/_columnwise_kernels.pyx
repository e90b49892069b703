"""ColumnwiseNB kernels: add up the sub-models' joint log-likelihoods and finish
rows (``add_block``, ``add_table_rows``); put DataFrame columns side by side
(``stack_columns``); factorise Arrow string arrays in place (``string_codes``).

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

A sub-model whose columns are all factorised (Arrow strings) is *tabled*: for
each block the caller makes a small table of each distinct value's terms, and
``add_table_rows`` adds, for each row, the rows of that table its codes name.
"""

from cython.parallel cimport prange
from libc.math cimport INFINITY
from libc.stdint cimport int32_t, int64_t, uint8_t, uint64_t
from libc.string cimport memcmp, memcpy

from _common cimport intp_t, finish_row, MODE_ARGMAX

import numpy as np


cdef inline void finish_one(double* row, intp_t k, int mode, intp_t* label) noexcept nogil:
    """A summed row finished: its arg-max into ``label`` (MODE_ARGMAX: the first of
    equal maxima, as every fastnb kernel and numpy), or its (log) probabilities
    in place."""
    cdef intp_t c, best = 0
    cdef double top = -INFINITY
    if mode == MODE_ARGMAX:
        for c in range(k):
            if row[c] > top:
                top = row[c]
                best = c
        label[0] = best
    else:
        finish_row(row, k, mode)


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
    cdef intp_t n = total.shape[0], k = total.shape[1], i, c
    cdef bint has_jll = jll is not None
    with nogil:
        for i in prange(n, schedule="static", num_threads=n_threads,
                        use_threads_if=n_threads > 1):
            if has_jll:
                for c in range(k):
                    total[i, c] = total[i, c] + (jll[i, c] + bias[c])
            else:
                for c in range(k):
                    total[i, c] = total[i, c] + bias[c]
            if finish:
                finish_one(&total[i, 0], k, mode,
                           &labels_out[i] if mode == MODE_ARGMAX else NULL)


def add_table_rows(
    double[:, ::1] total,          # IN/OUT: (rows, k) running sum
    const double[:, ::1] table,    # IN: (m, k) per-value terms; row 0 is all zeros
    const int32_t[:, ::1] codes,   # IN: (d, >= rows) each column's value codes, -1 missing
    const intp_t[::1] first_row,   # IN: (d,) the table row of column j's code 0
    bint overwrite,                # IN: total = ... (its first writer) instead of +=
    const double[::1] bias,        # IN: (k,) constant added to every row
    bint finish,                   # IN: finish the rows after adding
    int mode,                      # IN: a PredictMode (used when finishing)
    intp_t[::1] labels_out,        # OUT (finish, MODE_ARGMAX): (rows,) class indices
    int n_threads,
):
    """``total += bias + table[first_row[0] + codes[0, i]] + ...`` for each row i
    (a missing value, code -1, reads row 0), then, if ``finish``, the rows
    finished as in ``add_block``: a sub-model whose columns are factorised
    (ColumnwiseNB's Arrow strings) adds its joint log-likelihood from a table of
    the values' terms instead of running its own kernel."""
    cdef intp_t n = total.shape[0], k = total.shape[1], d = codes.shape[0]
    cdef intp_t i, c, j, r
    if table.shape[1] != k or bias.shape[0] != k or first_row.shape[0] != d or (
            d and codes.shape[1] < n):
        raise ValueError("add_table_rows: inconsistent shapes")
    for j in range(d):
        if first_row[j] < 1:
            raise ValueError("add_table_rows: row 0 of the table is the missing row")
    with nogil:
        for i in prange(n, schedule="static", num_threads=n_threads,
                        use_threads_if=n_threads > 1):
            if overwrite:
                for c in range(k):
                    total[i, c] = bias[c]
            else:
                for c in range(k):
                    total[i, c] = total[i, c] + bias[c]
            for j in range(d):
                r = codes[j, i]
                r = 0 if r < 0 else first_row[j] + r
                for c in range(k):
                    total[i, c] = total[i, c] + table[r, c]
            if finish:
                finish_one(&total[i, 0], k, mode,
                           &labels_out[i] if mode == MODE_ARGMAX else NULL)



# -- columns side by side --------------------------------------------------------------

ctypedef fused column_t:
    float
    double
    uint8_t

cdef enum:
    # Rows per band of stack_columns: each band's output stays in cache while the
    # columns are read one after the other.
    STACK_BAND = 512


cdef void stack_band(
    const column_t** source, const intp_t* step, column_t[:, ::1] out,
    Py_ssize_t start, Py_ssize_t band_start, Py_ssize_t band_stop,
) noexcept nogil:
    cdef Py_ssize_t i, j, b, e
    cdef const column_t* p
    cdef intp_t s
    b = band_start
    while b < band_stop:
        e = min(b + STACK_BAND, band_stop)
        for j in range(out.shape[1]):
            p = source[j]
            s = step[j]
            for i in range(b, e):
                out[i, j] = p[(start + i) * s]
        b = e


def stack_columns(
    list columns,                  # IN: d 1d arrays of one dtype, any strides
    column_t[:, ::1] out,          # OUT: (rows, d) rows start:start+rows of them
    Py_ssize_t start,
):
    """``out[i, j] = columns[j][start + i]``: columns that live apart (a
    DataFrame's, each a view into pandas' storage) side by side, C-ordered, as a
    sub-model's kernel reads a block, in one compiled pass. One thread: the copy
    is bound by memory, and a second thread made it slower on a busy machine."""
    cdef Py_ssize_t rows = out.shape[0], d = out.shape[1], j
    cdef const column_t[:] column
    if len(columns) != d:
        raise ValueError("stack_columns: one column per output column")
    held = np.empty(2 * d, dtype=np.intp)
    cdef intp_t[::1] where = held
    cdef const column_t** source = <const column_t**>&where[0]
    cdef intp_t* step = &where[d]
    for j in range(d):
        column = columns[j]
        if column.shape[0] < start + rows or column.strides[0] % sizeof(column_t):
            raise ValueError("stack_columns: a column is too short or misaligned")
        source[j] = &column[0] if column.shape[0] else NULL
        step[j] = column.strides[0] // <Py_ssize_t>sizeof(column_t)
    with nogil:
        stack_band(source, step, out, start, 0, rows)


# -- Arrow strings to codes ------------------------------------------------------------

ctypedef fused offset_t:
    int32_t
    int64_t


cdef inline uint64_t hash_bytes(const uint8_t* p, Py_ssize_t n) noexcept nogil:
    """A 64-bit hash of n bytes, 8 at a time (only codes depend on it, never a
    result: any two equal strings hash alike, which is all that matters)."""
    cdef uint64_t h = 0x9E3779B97F4A7C15ULL ^ <uint64_t>n
    cdef uint64_t w
    while n >= 8:
        memcpy(&w, p, 8)
        h = (h ^ w) * 0xFF51AFD7ED558CCDULL
        h ^= h >> 29
        p += 8
        n -= 8
    if n > 0:
        w = 0
        memcpy(&w, p, n)
        h = (h ^ w) * 0xFF51AFD7ED558CCDULL
    h ^= h >> 32
    h *= 0xC4CEB9FE1A85EC53ULL
    h ^= h >> 29
    return h


def string_codes(
    const offset_t[::1] offsets,   # IN: (n + 1,) row i is data[offsets[i]:offsets[i + 1]]
    const uint8_t[::1] data,       # IN: the strings' UTF-8 bytes
    const uint8_t[::1] validity,   # IN: Arrow validity bitmap, or None (no nulls)
    Py_ssize_t bit_offset,         # IN: the bit of row 0 in validity
    int32_t[::1] codes,            # OUT: (n,) each row's code, -1 for a null
    int32_t[::1] slots,            # SCRATCH: zeroed, a power of two long
    int64_t[::1] first_rows,       # OUT: (len(slots) // 2,) the first row of each code
):
    """Factorise the strings of an Arrow string array: equal strings get equal
    codes, numbered in order of first appearance, with ``first_rows[c]`` the first
    row holding code c. Returns the number of codes, or -1 when there are more
    than ``len(slots) // 2`` distinct strings (call again with a larger table).

    One pass over the bytes, without a Python object: each row's bytes are hashed
    and looked up in ``slots`` (open addressing; a slot holds code + 1, 0 empty).
    """
    cdef Py_ssize_t n = codes.shape[0], i, s, r, start, length, other
    cdef Py_ssize_t mask = slots.shape[0] - 1
    cdef Py_ssize_t capacity = min(slots.shape[0] // 2, first_rows.shape[0])
    cdef int32_t n_codes = 0, c
    cdef bint has_validity = validity is not None
    cdef bint full = False
    cdef const uint8_t* base = NULL
    cdef const uint8_t* p
    cdef Py_ssize_t bit
    if offsets.shape[0] != n + 1 or slots.shape[0] < 2 or (slots.shape[0] & mask):
        raise ValueError("string_codes: inconsistent offsets or table sizes")
    if data.shape[0] > 0:
        base = &data[0]
    with nogil:
        for i in range(n):
            if has_validity:
                bit = bit_offset + i
                if not ((validity[bit >> 3] >> (bit & 7)) & 1):
                    codes[i] = -1
                    continue
            start = offsets[i]
            length = offsets[i + 1] - start
            p = base + start
            s = <Py_ssize_t>(hash_bytes(p, length) & <uint64_t>mask)
            while True:
                c = slots[s]
                if c == 0:
                    if n_codes >= capacity:
                        full = True
                        break
                    slots[s] = n_codes + 1
                    first_rows[n_codes] = i
                    codes[i] = n_codes
                    n_codes += 1
                    break
                r = first_rows[c - 1]
                other = offsets[r]
                if offsets[r + 1] - other == length and (
                        length == 0 or memcmp(base + other, p, length) == 0):
                    codes[i] = c - 1
                    break
                s = (s + 1) & mask
            if full:
                break
    return -1 if full else n_codes
