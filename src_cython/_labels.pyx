"""O(n) label encoding for integer targets.

Design: ``np.unique(y, return_inverse=True)`` sorts, which on a million labels costs
more than fitting GaussianNB. When the labels are integers in a span that is small
next to n, three linear passes suffice: find the span, mark which values occur,
and map every label through a lookup table. Other labels fall back to np.unique.
"""

from _common cimport intp_t

ctypedef fused label_int:
    int
    long long


def int_label_span(const label_int[::1] y):
    """Return (min, max) of a non-empty integer label array."""
    cdef Py_ssize_t i
    cdef long long lo = y[0]
    cdef long long hi = y[0]
    cdef long long value
    with nogil:
        for i in range(y.shape[0]):
            value = y[i]
            if value < lo:
                lo = value
            if value > hi:
                hi = value
    return lo, hi


def scan_small_labels(const label_int[::1] y, unsigned char[::1] present):
    """One pass: mark present[v] for labels v in [0, len(present)); count the rest.

    Most targets are small non-negative integers: then this single pass finds the
    classes, and the span and marking passes are not needed.
    """
    cdef Py_ssize_t i
    cdef Py_ssize_t n_outside = 0
    cdef unsigned long long size = present.shape[0]
    cdef unsigned long long value
    with nogil:
        for i in range(y.shape[0]):
            value = <unsigned long long> y[i]  # negative labels wrap to huge values
            if value < size:
                present[value] = 1
            else:
                n_outside += 1
    return n_outside


def mark_present_labels(const label_int[::1] y, long long lo, unsigned char[::1] present):
    """Set present[y[i] - lo] = 1 for every i (every label must lie in the span)."""
    cdef Py_ssize_t i
    with nogil:
        for i in range(y.shape[0]):
            present[y[i] - lo] = 1


def map_labels(
    const label_int[::1] y,      # IN: (n,) integer labels
    long long lo,                # IN: the value that lut[0] stands for
    const intp_t[::1] lut,       # IN: class index of each value in the span, -1 if none
    intp_t[::1] codes,           # OUT: (n,) class index of each label
):
    """Map labels to class indices through a lookup table; return the unknown count.

    A label outside the table's span, or whose entry is -1, is unknown: its code is
    set to -1 and it is counted, so that the caller can name it.
    """
    cdef Py_ssize_t i
    cdef Py_ssize_t n = y.shape[0]
    cdef Py_ssize_t span = lut.shape[0]
    cdef Py_ssize_t n_unknown = 0
    cdef long long offset
    with nogil:
        for i in range(n):
            offset = y[i] - lo
            if offset < 0 or offset >= span:
                codes[i] = -1
                n_unknown += 1
            else:
                codes[i] = lut[offset]
                if lut[offset] < 0:
                    n_unknown += 1
    return n_unknown


ctypedef fused class_int:
    int
    long long


def search_labels(
    const label_int[::1] y,          # IN: (n,) integer labels
    const class_int[::1] classes,    # IN: (k,) the classes, sorted ascending
    intp_t[::1] codes,               # OUT: (n,) class index of each label
):
    """Map labels to class indices by binary search in the sorted classes; return
    the unknown count (their codes set to -1). For small batches: no lookup table
    to allocate and fill (``map_labels``), O(n log k)."""
    cdef Py_ssize_t i, lo, hi, mid
    cdef Py_ssize_t n = y.shape[0], k = classes.shape[0]
    cdef Py_ssize_t n_unknown = 0
    cdef long long value
    with nogil:
        for i in range(n):
            value = y[i]
            lo = 0
            hi = k
            while lo < hi:   # the first class >= value
                mid = (lo + hi) >> 1
                if classes[mid] < value:
                    lo = mid + 1
                else:
                    hi = mid
            if lo < k and classes[lo] == value:
                codes[i] = lo
            else:
                codes[i] = -1
                n_unknown += 1
    return n_unknown
