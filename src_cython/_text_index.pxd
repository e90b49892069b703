# The short-term index of a fitting worker: every term of up to SHORT_TERM code
# points that the block counted as a unigram, keyed by its code points packed
# into the slot itself (pack_padded()). Finding a term (or learning it is new) reads one slot,
# which count_unigrams() prefetched a few tokens ahead; the TermTable's lookup
# would also read the term's length, arena offset and text elsewhere in memory,
# each a likely cache miss for all but the commonest words. The slot also holds
# the term's place in the current row, so counting touches no per-term array.

from libc.stdint cimport int32_t, int64_t, uint32_t, uint64_t
from cpython.mem cimport PyMem_RawFree, PyMem_RawMalloc

from _text_common cimport ucs4_t

cdef enum:
    NO_POS = 0xFFFFFFFF    # a slot's pos before its term is first counted


cdef struct ShortSlot:
    uint64_t k0           # the term's packed key (pack_padded())
    uint64_t k1
    uint64_t k2
    uint64_t k3
    uint64_t hash         # the term's table hash, which places it
    int32_t term          # the block's term id; -1: empty
    uint32_t pos          # the term's place in the row that last counted it (it is
                          # in the current row if row_ids[pos] == term there)


cdef struct ShortIndex:
    ShortSlot *slots      # mask + 1 slots of 48 bytes, linear probing
    Py_ssize_t mask
    Py_ssize_t n          # terms held


cdef inline void index_zero(ShortIndex *ix) noexcept nogil:
    ix.slots = NULL
    ix.mask = 0
    ix.n = 0


cdef inline int index_alloc(ShortIndex *ix, Py_ssize_t size) noexcept nogil:
    """Empty slots, size (a power of two) of them; 0, or -1 when out of memory."""
    cdef Py_ssize_t i
    ix.slots = <ShortSlot *> PyMem_RawMalloc(size * sizeof(ShortSlot))
    if ix.slots == NULL:
        return -1
    ix.mask = size - 1
    for i in range(size):
        ix.slots[i].term = -1
    return 0


cdef inline void index_free(ShortIndex *ix) noexcept nogil:
    PyMem_RawFree(ix.slots)
    index_zero(ix)


cdef inline ShortSlot *index_probe(ShortIndex *ix, const uint64_t *k,
                                   uint64_t h) noexcept nogil:
    """The slot of the key k (of table hash h), or the empty slot where it goes."""
    cdef Py_ssize_t slot = <Py_ssize_t> (h & <uint64_t> ix.mask)
    cdef ShortSlot *s
    while True:
        s = ix.slots + slot
        if s.term < 0 or ((s.k0 ^ k[0]) | (s.k1 ^ k[1]) | (s.k2 ^ k[2])
                          | (s.k3 ^ k[3])) == 0:
            return s
        slot = (slot + 1) & ix.mask


cdef inline int index_grow(ShortIndex *ix) noexcept nogil:
    """Double the slots; 0, or -1 when out of memory (the index is unchanged)."""
    cdef ShortIndex old = ix[0]
    cdef Py_ssize_t i, slot
    if index_alloc(ix, 2 * (old.mask + 1)) < 0:
        ix[0] = old
        return -1
    ix.n = old.n
    for i in range(old.mask + 1):
        if old.slots[i].term >= 0:
            slot = <Py_ssize_t> (old.slots[i].hash & <uint64_t> ix.mask)
            while ix.slots[slot].term >= 0:
                slot = (slot + 1) & ix.mask
            ix.slots[slot] = old.slots[i]
    PyMem_RawFree(old.slots)
    return 0
