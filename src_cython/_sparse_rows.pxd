# One-row building blocks of the sparse count table (src_cython/_sparse_counts.pyx).
#
# The table keeps, for each feature j, the classes with a non-zero count as one
# contiguous block of entries: ent_class[s:s + n], ent_count[s:s + n] and
# ent_weight[s:s + n] with s = feat_start[j], n = feat_len[j] (s = -1: no entry).
# A block has room for the next power of two of entries; a full block moves to the
# end of the pool with twice the room, so the pool stays within 2x of the live entries.

from libc.stdint cimport int32_t, int64_t


cdef inline bint block_is_full(int32_t n) noexcept nogil:
    """A block of n entries has room for next_pow2(n): full when n is a power of 2."""
    return n == 0 or (n & (n - 1)) == 0


cdef inline Py_ssize_t find_entry(
    const int32_t* ent_class, int64_t start, int32_t n, int32_t c,
) noexcept nogil:
    """Position of class c in the block, or -1."""
    cdef int32_t e
    for e in range(n):
        if ent_class[start + e] == c:
            return start + e
    return -1


cdef inline void add_block_weights(
    double* acc,                 # IN/OUT: (k,) per-class sums of the row
    const int32_t* ent_class,
    const double* ent_weight,
    int64_t start, int32_t n,
    double x,
) noexcept nogil:
    """acc[c] += x * w_cj for the classes with an entry for this feature."""
    cdef int32_t e
    for e in range(n):
        acc[ent_class[start + e]] += x * ent_weight[start + e]
