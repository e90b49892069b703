# Term tables: code-point strings interned by content (open addressing, linear
# probing), with the 64-bit table hash of a term. The counting workers, the merged
# vocabulary and TermSet (stop words, a fixed vocabulary) are all TermTables.

from libc.stdint cimport int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t
from libc.string cimport memcpy
from cpython.mem cimport PyMem_RawFree, PyMem_RawMalloc

from _text_common cimport (
    ucs4_t, Vec, vec_init, vec_free, vec_reserve, LONG_TERM, SHORT_TERM,
    FASTNB_HASH_SEED, FASTNB_HASH_MULTIPLIER, FASTNB_FMIX_1, FASTNB_FMIX_2,
)

cdef struct Slot:
    uint32_t hash         # the term's hash, high half (a filter before comparing)
    int32_t term          # -1: empty
    uint64_t where        # (start in the arena << 24) | min(length, 2**24 - 1)


cdef struct TermTable:
    Slot *slots           # mask + 1 slots, open addressing with linear probing
    Py_ssize_t mask
    Py_ssize_t n          # number of terms
    Vec hashes            # uint64 per term
    Vec offsets           # int64 per term: start in the arena
    Vec lengths           # int64 per term
    Vec values            # int64 per term (vocabulary index of a fixed vocabulary)
    Vec arena             # ucs4_t: the terms' code points, back to back


cdef inline void table_zero(TermTable *t) noexcept nogil:
    """An empty table that owns nothing (table_free may be called on it)."""
    t.slots = NULL
    t.mask = 0
    t.n = 0
    vec_init(&t.hashes, sizeof(uint64_t))
    vec_init(&t.offsets, sizeof(int64_t))
    vec_init(&t.lengths, sizeof(int64_t))
    vec_init(&t.values, sizeof(int64_t))
    vec_init(&t.arena, sizeof(ucs4_t))


cdef inline int table_init(TermTable *t, Py_ssize_t expected) noexcept nogil:
    cdef Py_ssize_t size = 64
    cdef Py_ssize_t i
    while size < 2 * expected:
        size *= 2
    table_zero(t)
    t.slots = <Slot *> PyMem_RawMalloc(size * sizeof(Slot))
    t.mask = size - 1
    if t.slots == NULL:
        return -1
    for i in range(size):
        t.slots[i].term = -1
    return 0


cdef inline void table_free(TermTable *t) noexcept nogil:
    PyMem_RawFree(t.slots)
    t.slots = NULL
    t.n = 0
    vec_free(&t.hashes)
    vec_free(&t.offsets)
    vec_free(&t.lengths)
    vec_free(&t.values)
    vec_free(&t.arena)


cdef inline uint64_t hash_finish(uint64_t h, Py_ssize_t n) noexcept nogil:
    """MurmurHash3's 64-bit finaliser over a hash state and the length."""
    h ^= <uint64_t> n
    h ^= h >> 33
    h *= FASTNB_FMIX_1
    h ^= h >> 33
    h *= FASTNB_FMIX_2
    h ^= h >> 33
    return h


cdef inline uint64_t rotl64(uint64_t x, int r) noexcept nogil:
    return (x << r) | (x >> (64 - r))


cdef extern from * nogil:
    """
    /* The packed key of a term of n <= 12 code points: k[i] holds code points
       i, i + 4 and i + 8, each plus one in 21 bits (0 past the end, so that
       the key is the term, its length included). p[0:12] is read (readable;
       the values past n are masked off), without a branch on n: with SSE2
       (every x86-64 CPU), three vector loads, where scalar code takes about
       70 instructions a term. */
    #if defined(__SSE2__) || defined(_M_X64)
    #include <emmintrin.h>
    static inline void fastnb_pack_padded(const uint32_t *p, Py_ssize_t n,
                                                 uint64_t *k) {
        const __m128i one = _mm_set1_epi32(1), zero = _mm_setzero_si128();
        const __m128i len = _mm_set1_epi32((int) n);
        __m128i a = _mm_and_si128(_mm_add_epi32(_mm_loadu_si128((const __m128i *) p), one),
                                  _mm_cmpgt_epi32(len, _mm_setr_epi32(0, 1, 2, 3)));
        __m128i b = _mm_and_si128(_mm_add_epi32(_mm_loadu_si128((const __m128i *) (p + 4)), one),
                                  _mm_cmpgt_epi32(len, _mm_setr_epi32(4, 5, 6, 7)));
        __m128i c = _mm_and_si128(_mm_add_epi32(_mm_loadu_si128((const __m128i *) (p + 8)), one),
                                  _mm_cmpgt_epi32(len, _mm_setr_epi32(8, 9, 10, 11)));
        __m128i lo = _mm_or_si128(
            _mm_or_si128(_mm_unpacklo_epi32(a, zero),
                         _mm_slli_epi64(_mm_unpacklo_epi32(b, zero), 21)),
            _mm_slli_epi64(_mm_unpacklo_epi32(c, zero), 42));
        __m128i hi = _mm_or_si128(
            _mm_or_si128(_mm_unpackhi_epi32(a, zero),
                         _mm_slli_epi64(_mm_unpackhi_epi32(b, zero), 21)),
            _mm_slli_epi64(_mm_unpackhi_epi32(c, zero), 42));
        _mm_storeu_si128((__m128i *) k, lo);
        _mm_storeu_si128((__m128i *) (k + 2), hi);
    }
    #else
    static inline void fastnb_pack_padded(const uint32_t *p, Py_ssize_t n,
                                                 uint64_t *k) {
        uint64_t c[12];
        int i;
        for (i = 0; i < 12; i++)
            c[i] = ((uint64_t) p[i] + 1) & ((uint64_t) 0 - (uint64_t) (i < n));
        for (i = 0; i < 4; i++)
            k[i] = c[i] | (c[i + 4] << 21) | (c[i + 8] << 42);
    }
    #endif
    """
    # k[0:4] = the packed key of p[:n], n <= SHORT_TERM (see the C above)
    void pack_padded "fastnb_pack_padded"(const ucs4_t *p, Py_ssize_t n, uint64_t *k)


cdef inline uint64_t hash_packed(const uint64_t *k, Py_ssize_t n) noexcept nogil:
    """hash_ucs4() of a term of n <= SHORT_TERM code points from its packed key:
    the four words multiplied independently (no chain of dependent
    multiplies), then finalised."""
    cdef uint64_t h = (k[0] ^ FASTNB_HASH_SEED) * FASTNB_HASH_MULTIPLIER
    h ^= rotl64((k[1] + 1) * FASTNB_FMIX_1, 17)
    h ^= rotl64((k[2] + 2) * FASTNB_FMIX_2, 31)
    h ^= rotl64((k[3] + 3) * FASTNB_HASH_MULTIPLIER, 47)
    return hash_finish(h, n)


cdef inline uint64_t hash_padded(const ucs4_t *p, Py_ssize_t n) noexcept nogil:
    """hash_ucs4() of p[:n] for n <= SHORT_TERM, reading p[:SHORT_TERM]."""
    cdef uint64_t k[4]
    pack_padded(p, n, k)
    return hash_packed(k, n)


cdef inline uint64_t hash_ucs4(const ucs4_t *p, Py_ssize_t n) noexcept nogil:
    """The table hash of a term. Up to SHORT_TERM code points, hash_padded() of a
    padded copy; longer, two code points at a time are xored into the
    state, which is multiplied and rotated; then MurmurHash3's finaliser."""
    cdef uint64_t h = FASTNB_HASH_SEED
    cdef Py_ssize_t i = 0
    cdef ucs4_t padded[SHORT_TERM]
    if n <= SHORT_TERM:
        for i in range(SHORT_TERM):
            padded[i] = p[i] if i < n else 0
        return hash_padded(padded, n)
    while i + 1 < n:
        h = (h ^ (p[i] | (<uint64_t> p[i + 1] << 32))) * FASTNB_HASH_MULTIPLIER
        h = (h << 29) | (h >> 35)
        i += 2
    if i < n:
        h = (h ^ p[i]) * FASTNB_HASH_MULTIPLIER
    return hash_finish(h, n)


cdef inline const ucs4_t *table_term(const TermTable *t, int64_t term) noexcept nogil:
    return (<const ucs4_t *> t.arena.data) + (<const int64_t *> t.offsets.data)[term]


cdef inline bint same_code_points(const ucs4_t *a, const ucs4_t *b,
                                  Py_ssize_t n) noexcept nogil:
    cdef Py_ssize_t i
    for i in range(n):
        if a[i] != b[i]:
            return False
    return True


cdef inline int64_t table_find(const TermTable *t, const ucs4_t *p, Py_ssize_t n,
                               uint64_t h) noexcept nogil:
    """The id of the term p[:n] (of hash h), or -1 when absent."""
    cdef Py_ssize_t slot = <Py_ssize_t> (h & <uint64_t> t.mask)
    cdef const Slot *s
    cdef uint64_t short_length = <uint64_t> n if n < LONG_TERM else LONG_TERM
    cdef const ucs4_t *arena = <const ucs4_t *> t.arena.data
    while True:
        s = t.slots + slot
        if s.term < 0:
            return -1
        # one memory access for the slot, one for the text: no other array
        if (s.hash == <uint32_t> (h >> 32) and (s.where & LONG_TERM) == short_length
                and (short_length < LONG_TERM
                     or (<const int64_t *> t.lengths.data)[s.term] == n)
                and same_code_points(arena + (s.where >> 24), p, n)):
            return s.term
        slot = (slot + 1) & t.mask


cdef inline int table_grow_slots(TermTable *t) noexcept nogil:
    cdef Py_ssize_t size = 2 * (t.mask + 1)
    cdef Slot *slots = <Slot *> PyMem_RawMalloc(size * sizeof(Slot))
    cdef Py_ssize_t i, slot
    if slots == NULL:
        return -1
    for i in range(size):
        slots[i].term = -1
    for i in range(t.mask + 1):
        if t.slots[i].term < 0:
            continue
        slot = <Py_ssize_t> ((<const uint64_t *> t.hashes.data)[t.slots[i].term]
                             & <uint64_t> (size - 1))
        while slots[slot].term >= 0:
            slot = (slot + 1) & (size - 1)
        slots[slot] = t.slots[i]
    PyMem_RawFree(t.slots)
    t.slots = slots
    t.mask = size - 1
    return 0


cdef inline int64_t table_insert(TermTable *t, const ucs4_t *p, Py_ssize_t n, uint64_t h,
                          int64_t value) noexcept nogil:
    """Add the term p[:n] (known absent); return its id, or -1 when out of memory."""
    cdef int64_t term = t.n
    cdef Py_ssize_t slot
    if t.n >= 2147483647 or t.arena.n + n >= (<int64_t> 1 << 40):
        return -1  # term ids are int32; arena offsets have 40 bits
    if 2 * (t.n + 1) > t.mask + 1:
        if table_grow_slots(t) < 0:
            return -1
    if (vec_reserve(&t.hashes, term + 1) < 0 or vec_reserve(&t.offsets, term + 1) < 0
            or vec_reserve(&t.lengths, term + 1) < 0
            or vec_reserve(&t.values, term + 1) < 0
            or vec_reserve(&t.arena, t.arena.n + n) < 0):
        return -1
    memcpy((<ucs4_t *> t.arena.data) + t.arena.n, p, n * sizeof(ucs4_t))
    (<uint64_t *> t.hashes.data)[term] = h
    (<int64_t *> t.offsets.data)[term] = t.arena.n
    (<int64_t *> t.lengths.data)[term] = n
    (<int64_t *> t.values.data)[term] = value
    t.arena.n += n
    t.n += 1
    slot = <Py_ssize_t> (h & <uint64_t> t.mask)
    while t.slots[slot].term >= 0:
        slot = (slot + 1) & t.mask
    t.slots[slot].hash = <uint32_t> (h >> 32)
    t.slots[slot].term = <int32_t> term
    t.slots[slot].where = ((<uint64_t> (<int64_t *> t.offsets.data)[term]) << 24) | (
        <uint64_t> n if n < LONG_TERM else LONG_TERM)
    return term
