# The records of a batch's non-zeros while the sparse count table is built from it
# (``table_partition`` in _sparse_counts.pyx writes them, ``table_reduce`` and
# ``table_fill`` in _sparse_build.pyx read them): the layout both sides share.

from libc.stdint cimport int32_t

# A batch of unweighted whole counts below COMPACT_VALUE_LIMIT (after
# thresholding: 0/1), whose (class, feature offset) keys fit in COMPACT_KEY_BITS,
# is partitioned in compact records (``table_partition``): one int32 each, the
# count above the key, where a record was a double and an int32. Such a count
# converts to the double it was exactly, so the reduction's sums are the same.
cdef enum:
    COMPACT_VALUE_LIMIT = 32768              # 2**15: the count << 16 is an int32
    COMPACT_KEY_BITS = 16                    # a constant: the shifts below fold
    # a compact partition's reduction keeps an entry's number above this bit of
    # its map cell, and its count below (``reduce_partition``)
    ENTRY_SHIFT = 47


cdef inline int32_t compact_record(int32_t count, int32_t key) noexcept nogil:
    """A compact record (or entry): the count above the key's COMPACT_KEY_BITS."""
    return (count << COMPACT_KEY_BITS) | key


cdef inline int32_t compact_key(int32_t record) noexcept nogil:
    return record & ((1 << COMPACT_KEY_BITS) - 1)


cdef inline int32_t compact_count(int32_t record) noexcept nogil:
    return record >> COMPACT_KEY_BITS


cdef packed struct BucketRecord:
    double value        # the count (the weighted value)
    int32_t key         # as ``rec_key``


cdef inline int32_t record_offset(int32_t key, int part_shift) noexcept nogil:
    return key & ((1 << part_shift) - 1)
