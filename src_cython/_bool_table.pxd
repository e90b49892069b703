# Point functions of the count models' predict on 0/1 bytes: eight features per
# table lookup.
#
# A row of a numpy bool matrix is bytes that are 0 or 1. Eight of them, read as one
# little-endian uint64 and multiplied by 0x0102040810204080, give in the top byte
# the 8-bit pattern whose bit b is byte b. A table of the 256 partial sums of each
# group of eight features (built once per fit) then turns 8 x k multiply-adds into
# k additions: jll[c] = bias[c] + sum_g table[g, pattern_g, c]. Each entry is
# summed in feature order and the groups are added in order, so results are the
# same bits for any number of threads.

from libc.string cimport memcpy
from libc.stdint cimport uint64_t
from libc.math cimport INFINITY

from _common cimport (
    intp_t, consider_class, finish_scores, MODE_ARGMAX,
)
from _counts cimport value_t, native_threshold, LOCAL_K, Lanes8, Lanes16


cdef inline Py_ssize_t byte_pattern(const unsigned char* x) noexcept nogil:
    """The 8-bit pattern of eight 0/1 bytes (bit b = byte b), little-endian only."""
    cdef uint64_t word
    memcpy(&word, x, 8)
    return <Py_ssize_t>((word * <uint64_t>0x0102040810204080ULL) >> 56)


cdef inline Py_ssize_t tail_pattern(const unsigned char* x, Py_ssize_t count) noexcept nogil:
    """byte_pattern of the last count < 8 bytes of a row."""
    cdef Py_ssize_t b
    cdef Py_ssize_t pattern = 0
    for b in range(count):
        if x[b]:
            pattern = pattern | (1 << b)
    return pattern


ctypedef fused table_lanes_t:
    Lanes8
    Lanes16


cdef inline void table_scores_lanes(
    table_lanes_t* sums_out,    # OUT: the kp = sizeof(table_lanes_t) / 8 sums
    const unsigned char* x, const double* table, Py_ssize_t d,
) noexcept nogil:
    """The table sums for kp = 8 or 16 padded classes: a compile-time width in
    each specialization (see Lanes8 in _counts.pxd), so the accumulators live in
    registers.

    Two accumulator sets (even and odd groups), added at the end: the two
    dependency chains overlap. Fixed order: the same bits for any thread count.
    """
    cdef double even[16]
    cdef double odd[16]
    cdef Py_ssize_t kp = sizeof(table_lanes_t) // sizeof(double)
    cdef Py_ssize_t g, c
    cdef Py_ssize_t full = d // 8
    cdef const double* t0
    cdef const double* t1
    for c in range(kp):
        even[c] = 0.0
        odd[c] = 0.0
    for g in range(0, full - 1, 2):
        t0 = table + (g * 256 + byte_pattern(x + 8 * g)) * kp
        t1 = table + ((g + 1) * 256 + byte_pattern(x + 8 * g + 8)) * kp
        for c in range(kp):
            even[c] = even[c] + t0[c]
        for c in range(kp):
            odd[c] = odd[c] + t1[c]
    if full % 2 == 1:
        t0 = table + ((full - 1) * 256 + byte_pattern(x + 8 * (full - 1))) * kp
        for c in range(kp):
            even[c] = even[c] + t0[c]
    if full * 8 < d:
        t1 = table + (full * 256 + tail_pattern(x + 8 * full, d - full * 8)) * kp
        for c in range(kp):
            odd[c] = odd[c] + t1[c]
    for c in range(kp):
        sums_out.acc[c] = even[c] + odd[c]


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
    const unsigned char* x,      # IN: one row of 0/1 bytes, d values
    const double* table,         # IN: (ceil(d / 8), 256, kp) partial sums
    const double* bias,          # IN: (k,) per-class constant term
    Py_ssize_t k,
    Py_ssize_t d,
    Py_ssize_t kp,               # the table's padded class count, k <= kp <= LOCAL_K
    int mode,                    # PredictMode
    intp_t* label_out,           # OUT for MODE_ARGMAX
    double* row_out,             # OUT (k,) for the other modes
) noexcept nogil:
    """Write one row's output; return 1 if its best score is not finite."""
    cdef Py_ssize_t c
    cdef double acc[LOCAL_K]
    cdef double best = -INFINITY
    cdef intp_t best_class = 0
    cdef bint saw_nan = False
    if kp == 8:
        table_scores_lanes(<Lanes8*>acc, x, table, d)
    elif kp == 16:
        table_scores_lanes(<Lanes16*>acc, x, table, d)
    else:
        table_scores_any(x, table, d, kp, acc)
    for c in range(k):
        acc[c] = acc[c] + bias[c]
        consider_class(acc[c], c, &best, &best_class, &saw_nan)
    if mode != MODE_ARGMAX:
        for c in range(k):
            row_out[c] = acc[c]
    return finish_scores(row_out, k, mode, label_out, best, best_class, saw_nan)


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
