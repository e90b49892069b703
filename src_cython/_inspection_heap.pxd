# The top-n list of the inspection kernels: the n terms (or scores) of largest
# |value| kept a row or a class, in a sorted array up to SORTED_MAX of them and
# in a min-heap past that; ties go to the smaller feature index. Shared by
# _inspection_kernels.pyx (top_contributions) and _inspection_informative.pyx
# (informative_features). Everything here is inline (or a constant), so
# cimporting it creates no dependency between extension modules.

from libc.stdint cimport int64_t


# -- the top-n heap --------------------------------------------------------------------
cdef inline bint worse(double a, Py_ssize_t ja, double b, Py_ssize_t jb) noexcept nogil:
    """Whether the term (a, ja) ranks below (b, jb)."""
    a = a if a >= 0 else -a
    b = b if b >= 0 else -b
    return a < b or (a == b and ja > jb)


cdef inline void sift_down(double* val, int64_t* feat, Py_ssize_t size,
                           Py_ssize_t i) noexcept nogil:
    """Restore the min-heap (the worst term at the root) below position i."""
    cdef Py_ssize_t child
    cdef double v
    cdef int64_t f
    while True:
        child = 2 * i + 1
        if child >= size:
            return
        if child + 1 < size and worse(val[child + 1], feat[child + 1],
                                      val[child], feat[child]):
            child += 1
        if not worse(val[child], feat[child], val[i], feat[i]):
            return
        v = val[i]; val[i] = val[child]; val[child] = v
        f = feat[i]; feat[i] = feat[child]; feat[child] = f
        i = child


cdef inline Py_ssize_t heap_push(double* val, int64_t* feat, Py_ssize_t size,
                                 Py_ssize_t n_top, double v, int64_t j) noexcept nogil:
    """Offer the term (v, j) to a heap of ``size`` of at most ``n_top``; the new size."""
    cdef Py_ssize_t i, parent
    cdef double tv
    cdef int64_t tf
    if v == 0.0 or v != v:
        # a term of exactly 0.0 explains nothing; NaN has no rank (a class of
        # the pair without data: its whole row is -inf, kept in the base)
        return size
    if size < n_top:
        i = size
        val[i] = v
        feat[i] = j
        while i > 0:
            parent = (i - 1) // 2
            if not worse(val[i], feat[i], val[parent], feat[parent]):
                break
            tv = val[i]; val[i] = val[parent]; val[parent] = tv
            tf = feat[i]; feat[i] = feat[parent]; feat[parent] = tf
            i = parent
        return size + 1
    if worse(val[0], feat[0], v, j):
        val[0] = v
        feat[0] = j
        sift_down(val, feat, size, 0)
    return size


cdef enum:
    # up to this many terms a row are kept in a sorted array (one comparison
    # rejects a term, an insertion moves a few): T1's top-10 ~40% faster than
    # the heap, which keeps a larger n to O(log n) an offer
    SORTED_MAX = 32


cdef inline Py_ssize_t sorted_push(double* val, int64_t* feat, Py_ssize_t size,
                                   Py_ssize_t n_top, double v, int64_t j) noexcept nogil:
    """heap_push into an array kept best first."""
    cdef Py_ssize_t pos
    if v == 0.0 or v != v:
        return size
    if size == n_top:
        if not worse(val[size - 1], feat[size - 1], v, j):
            return size
        pos = size - 1
    else:
        pos = size
        size += 1
    while pos > 0 and worse(val[pos - 1], feat[pos - 1], v, j):
        val[pos] = val[pos - 1]
        feat[pos] = feat[pos - 1]
        pos -= 1
    val[pos] = v
    feat[pos] = j
    return size


cdef inline Py_ssize_t offer(double* val, int64_t* feat, Py_ssize_t size,
                             Py_ssize_t n_top, double v, int64_t j) noexcept nogil:
    """Offer the term (v, j) to the best n_top kept so far; the new count."""
    if n_top <= SORTED_MAX:
        return sorted_push(val, feat, size, n_top, v, j)
    return heap_push(val, feat, size, n_top, v, j)


cdef inline void heap_finish(double* val, int64_t* feat, Py_ssize_t size,
                             Py_ssize_t n_top) noexcept nogil:
    """Sort the kept terms best first (a heap; a sorted array already is), and
    pad them to n_top (-1, 0.0)."""
    cdef Py_ssize_t end
    cdef double v
    cdef int64_t f
    end = size if n_top > SORTED_MAX else 0
    while end > 1:
        end -= 1
        v = val[0]; val[0] = val[end]; val[end] = v
        f = feat[0]; feat[0] = feat[end]; feat[end] = f
        sift_down(val, feat, end, 0)
    for end in range(size, n_top):
        val[end] = 0.0
        feat[end] = -1


cdef inline double kept_worst(const double* val, Py_ssize_t size,
                              Py_ssize_t n_top) noexcept nogil:
    """The smallest |value| of a full list (its last, sorted; its root, a heap),
    or -1 while it is not full."""
    cdef double v
    if size < n_top:
        return -1.0
    v = val[n_top - 1] if n_top <= SORTED_MAX else val[0]
    return v if v >= 0 else -v
