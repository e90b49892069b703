# One-row building blocks of the sparse count table (src_cython/_sparse_counts.pyx).
#
# The table keeps, for each feature j, the classes with a non-zero count as one
# contiguous block of entries: ent_class[s:s + n], ent_count[s:s + n] and
# ent_weight[s:s + n] with s = feat_start[j], n = feat_len[j] (with n = 0, s is
# undefined: a fresh table does not initialise it, and only a prefetch reads it,
# clamped to the pool).
# A block has room for the next power of two of entries; a full block moves to the
# end of the pool with twice the room, so the pool stays within 2x of the live entries.

from libc.stdint cimport int32_t, int64_t, uint8_t, uint64_t

cdef extern from *:
    int __builtin_clzll(unsigned long long) noexcept nogil


cdef inline bint block_is_full(int32_t n) noexcept nogil:
    """A block of n entries has room for next_pow2(n): full when n is a power of 2."""
    return n == 0 or (n & (n - 1)) == 0


cdef inline int64_t block_room(int32_t n) noexcept nogil:
    """The room of a block of n entries: next_pow2(n), 0 for none; branch-free
    (the build sizes every feature's block, half of them empty, in no pattern)."""
    # a mask, not a select: gcc turned ``x if n > 0 else 0`` back into a branch,
    # which the build's sizing loop mispredicted on every other feature
    cdef uint64_t mask = 0 - <uint64_t>(n > 0)      # all ones for a block with entries
    cdef uint64_t below = <uint64_t>(<int64_t>n - 1) & mask
    # bit width of n - 1 (0 for n = 1): the room's exponent
    cdef int64_t width = 64 - __builtin_clzll(below | 1) - (below == 0)
    return <int64_t>((<uint64_t>1 << width) & mask)


# A stream's entries whose weights are stale (listed for the next refresh) are
# marked in a bitmap of the pool, bit e for entry e (``ent_stale``): 1.5 million
# entries take 190 kB, which stays in cache, where a mark in the entry's weight
# (a NaN) cost a miss on a third pool array for every entry a batch changed.
cdef inline bint is_stale(const uint8_t* marks, int64_t e) noexcept nogil:
    return (marks[e >> 3] >> (e & 7)) & 1


cdef inline void mark_stale(uint8_t* marks, int64_t e, bint stale) noexcept nogil:
    cdef uint8_t bit = <uint8_t>(1 << (e & 7))
    marks[e >> 3] = (marks[e >> 3] | bit) if stale else (marks[e >> 3] & ~bit)


cdef inline Py_ssize_t find_entry(
    const int32_t* ent_class, int64_t start, int32_t n, int32_t c,
) noexcept nogil:
    """Position of class c in the block, or -1."""
    cdef const int32_t* block = ent_class + start
    cdef int32_t e, hit = 0
    if n <= 4:
        # most blocks are short (rare features): stop at the match
        for e in range(n):
            if block[e] == c:
                return start + e
        return -1
    # a long block (a frequent feature, up to k classes): the classes of a block
    # are distinct, so the sum of (e + 1) over the matches is the match's e + 1 -
    # a branch-free loop that the compiler vectorises (8 classes per compare with
    # AVX2), where the early exit costs a scan of half the block and a mispredict
    for e in range(n):
        hit += (e + 1) if block[e] == c else 0
    return start + hit - 1 if hit > 0 else -1


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
