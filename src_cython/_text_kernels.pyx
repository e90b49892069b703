"""Compiled text analysis for ``fastnb.text``: tokenise, hash and count documents.

Design
------
Documents are read in place from their PEP 393 buffers (1, 2 or 4 bytes per code
point); no Python object is made per token. Each document is copied into a
per-thread UCS4 scratch buffer, lowercased on the way through a per-code-point
table that ``fastnb/_text_chars.py`` derives from ``str.lower()`` itself (the
context-dependent capital sigma is resolved as CPython does). The analyzer then
emits every term as a span of code points:

- ``word``: maximal runs of word characters (``str.isalnum()`` or ``_``, Python's
  ``\\w``) of at least ``min_token_len`` code points, which is what
  ``(?u)\\b\\w\\w+\\b`` finds; stop words dropped; then word n-grams, joined by
  one space, in scikit-learn's order (all n-grams of one n, then the next n);
- ``char``: runs of two or more whitespace characters become one space, then
  every character n-gram;
- ``char_wb``: every whitespace-separated word, padded with a space on each side,
  gives its n-grams (a word shorter than n gives itself once).

A term goes to one of three sinks:

- ``MODE_HASH``: its UTF-8 bytes are hashed with MurmurHash3_x86_32 (seed 0); the
  column is ``abs(h) % n_features`` and the sign ``h >= 0``, as in scikit-learn's
  ``_hashing_fast.pyx``. A document's (column, sign) pairs are sorted and summed
  into one CSR row (a zero sum stays an explicit zero, as scipy's
  ``sum_duplicates`` leaves it).
- ``MODE_FIT``: the term is interned in a per-thread open-addressing table that
  numbers terms by first appearance; a row lists each term once with its count,
  in first-appearance order. After the documents, the tables are merged in
  block order, which numbers every term by its first appearance in the corpus
  (scikit-learn's vocabulary order before sorting), rows are renumbered and
  sorted by that number, and the terms are ranked by code points.
- ``MODE_FIXED``: the term is looked up in a given vocabulary table; unknown
  terms are skipped; rows are sorted by vocabulary index.

Documents are split into contiguous blocks, one per thread (``prange`` with a
static schedule). Every output is a function of the documents alone (rows are
concatenated in document order, terms are numbered by corpus first appearance),
so 1 or 16 threads give the same bits. Buffers come from ``PyMem_RawMalloc``
(thread-safe without the GIL, and seen by ``tracemalloc``); a failed allocation
raises MemoryError.
"""

from cpython.mem cimport PyMem_RawFree, PyMem_RawMalloc, PyMem_RawRealloc
from cpython.unicode cimport (
    Py_UNICODE_ISALNUM,
    Py_UNICODE_ISSPACE,
    PyUnicode_4BYTE_KIND,
    PyUnicode_DATA,
    PyUnicode_FromKindAndData,
    PyUnicode_GET_LENGTH,
    PyUnicode_KIND,
)
from cython.parallel cimport prange
from libc.stdint cimport int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t
from libc.math cimport fabs, sqrt
from libc.string cimport memcmp, memcpy

import numpy as np

MODE_HASH = 0
MODE_FIT = 1
MODE_FIXED = 2
ANALYZER_WORD = 0
ANALYZER_CHAR = 1
ANALYZER_CHAR_WB = 2

# Bits of the per-code-point table ``info``: (lowercase code point << 8) | flags.
FLAG_WORD = 1       # str.isalnum() or "_" (re's \w for str patterns)
FLAG_SPACE = 2      # str.isspace() (re's \s, and str.split()'s separators)
FLAG_SPECIAL = 4    # str.lower() needs context (capital sigma) or gives several chars
FLAG_LOWER_WORD = 8  # FLAG_WORD of the lowercase (of a code point not FLAG_SPECIAL)
# Bits of the optional ``sigma`` table (built the first time a capital sigma is met).
SIGMA_IGNORABLE = 1  # Unicode Case_Ignorable
SIGMA_CASED = 2      # Cased, and not Case_Ignorable

# Statuses of analyze(): 0 is success.
STATUS_NEED_SIGMA = 1   # a capital sigma was lowercased: build the sigma table, retry
STATUS_SURROGATE = 2    # a hashed term holds a lone surrogate: UTF-8 cannot encode it

cdef enum:
    C_MODE_HASH = 0
    C_MODE_FIT = 1
    C_MODE_FIXED = 2
    C_WORD = 0
    C_CHAR = 1
    C_CHAR_WB = 2
    F_WORD = 1
    F_SPACE = 2
    F_SPECIAL = 4
    F_LOWER_WORD = 8
    S_IGNORABLE = 1
    S_CASED = 2
    ERR_NOMEM = 1
    ERR_NEED_SIGMA = 2
    ERR_SURROGATE = 3
    CAPITAL_SIGMA = 0x3A3
    LONG_TERM = 0xFFFFFF  # a term this long or longer keeps its length apart
    N_HOT = 4096          # entries of a worker's cache of recent terms
    PREFETCH_AHEAD = 6    # tokens between a slot's prefetch and its use
    N_CODE_POINTS = 0x110000

cdef extern from *:
    """
    #define FASTNB_HASH_SEED 0xcbf29ce484222325ULL
    #define FASTNB_HASH_MULTIPLIER 0x9e3779b97f4a7c15ULL
    #define FASTNB_FMIX_1 0xff51afd7ed558ccdULL
    #define FASTNB_FMIX_2 0xc4ceb9fe1a85ec53ULL
    #define FASTNB_MURMUR_C1 0xcc9e2d51U
    #define FASTNB_MURMUR_C2 0x1b873593U
    #define FASTNB_MURMUR_N 0xe6546b64U
    #define FASTNB_MURMUR_F1 0x85ebca6bU
    #define FASTNB_MURMUR_F2 0xc2b2ae35U
    """
    const uint64_t FASTNB_HASH_SEED
    const uint64_t FASTNB_HASH_MULTIPLIER
    const uint64_t FASTNB_FMIX_1
    const uint64_t FASTNB_FMIX_2
    const uint32_t FASTNB_MURMUR_C1
    const uint32_t FASTNB_MURMUR_C2
    const uint32_t FASTNB_MURMUR_N
    const uint32_t FASTNB_MURMUR_F1
    const uint32_t FASTNB_MURMUR_F2

# Code points are plain 32-bit integers here (Cython's Py_UCS4 is a character type).
ctypedef uint32_t ucs4_t

cdef extern from * nogil:
    """
    #if defined(__GNUC__) || defined(__clang__)
    #define FASTNB_PREFETCH(p) __builtin_prefetch(p)
    #else
    #define FASTNB_PREFETCH(p) ((void)0)
    #endif
    """
    bint unlikely(bint)  # Cython's own __builtin_expect macro
    void prefetch "FASTNB_PREFETCH"(const void *p)

ctypedef fused char_t:
    uint8_t
    uint16_t
    uint32_t


# -- growable arrays ---------------------------------------------------------------

cdef struct Vec:
    void *data
    Py_ssize_t n          # elements used
    Py_ssize_t cap        # elements allocated
    Py_ssize_t itemsize


cdef inline void vec_init(Vec *v, Py_ssize_t itemsize) noexcept nogil:
    v.data = NULL
    v.n = 0
    v.cap = 0
    v.itemsize = itemsize


cdef inline void vec_free(Vec *v) noexcept nogil:
    PyMem_RawFree(v.data)
    v.data = NULL
    v.n = 0
    v.cap = 0


cdef int vec_reserve(Vec *v, Py_ssize_t need) noexcept nogil:
    """Make room for ``need`` elements in all; 0 on success, -1 when out of memory."""
    cdef Py_ssize_t cap
    cdef void *grown
    if need <= v.cap:
        return 0
    cap = v.cap + v.cap // 2
    if cap < need:
        cap = need
    if cap < 16:
        cap = 16
    grown = PyMem_RawRealloc(v.data, <size_t> cap * <size_t> v.itemsize)
    if grown == NULL:
        return -1
    v.data = grown
    v.cap = cap
    return 0


cdef int vec_resize(Vec *v, Py_ssize_t n) noexcept nogil:
    """Make the allocation exactly n elements (at least one); v.n is kept when it
    fits. 0 on success, -1 when out of memory."""
    cdef void *moved = PyMem_RawRealloc(v.data, <size_t> (n if n > 0 else 1) * v.itemsize)
    if moved == NULL:
        return -1
    v.data = moved
    v.cap = n
    if v.n > n:
        v.n = n
    return 0


cdef class _RawBuffer:
    """Owns a PyMem_RawMalloc block and lends it, writable, through the buffer
    protocol: np.frombuffer() makes an array of it without a copy, and the
    block is freed with the last array that uses it."""

    cdef void *data
    cdef Py_ssize_t shape[1]
    cdef Py_ssize_t strides[1]

    def __getbuffer__(self, Py_buffer *buffer, int flags):
        buffer.buf = self.data
        buffer.obj = self
        buffer.len = self.shape[0]
        buffer.readonly = 0
        buffer.itemsize = 1
        buffer.format = "B"
        buffer.ndim = 1
        buffer.shape = self.shape
        buffer.strides = self.strides
        buffer.suboffsets = NULL
        buffer.internal = NULL

    def __releasebuffer__(self, Py_buffer *buffer):
        pass

    def __dealloc__(self):
        PyMem_RawFree(self.data)


cdef object _take_array(void *data, Py_ssize_t n, Py_ssize_t itemsize, dtype):
    """A NumPy array of the n items at data, which it takes over (and frees)."""
    cdef _RawBuffer owner
    if n == 0:
        PyMem_RawFree(data)
        return np.empty(0, dtype=dtype)
    owner = _RawBuffer()
    owner.data = data
    owner.shape[0] = n * itemsize
    owner.strides[0] = 1
    return np.frombuffer(owner, dtype=dtype)


# -- term tables: code-point strings interned by content --------------------------

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


cdef void table_zero(TermTable *t) noexcept nogil:
    """An empty table that owns nothing (table_free may be called on it)."""
    t.slots = NULL
    t.mask = 0
    t.n = 0
    vec_init(&t.hashes, sizeof(uint64_t))
    vec_init(&t.offsets, sizeof(int64_t))
    vec_init(&t.lengths, sizeof(int64_t))
    vec_init(&t.values, sizeof(int64_t))
    vec_init(&t.arena, sizeof(ucs4_t))


cdef int table_init(TermTable *t, Py_ssize_t expected) noexcept nogil:
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


cdef void table_free(TermTable *t) noexcept nogil:
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


cdef inline uint64_t hash_ucs4(const ucs4_t *p, Py_ssize_t n) noexcept nogil:
    """The table hash of a term: two code points at a time are xored into the
    state, which is multiplied and rotated; then MurmurHash3's finaliser."""
    cdef uint64_t h = FASTNB_HASH_SEED
    cdef Py_ssize_t i = 0
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


cdef int table_grow_slots(TermTable *t) noexcept nogil:
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


cdef int64_t table_insert(TermTable *t, const ucs4_t *p, Py_ssize_t n, uint64_t h,
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


cdef int table_add_str(TermTable *t, str term, int64_t value, Vec *scratch) except -1:
    """Add a Python str (if not present yet) with ``value``; GIL held."""
    cdef Py_ssize_t n = PyUnicode_GET_LENGTH(term)
    cdef int kind = PyUnicode_KIND(term)
    cdef const void *data = PyUnicode_DATA(term)
    cdef ucs4_t *p
    cdef uint64_t h
    if vec_reserve(scratch, n) < 0:
        raise MemoryError()
    p = <ucs4_t *> scratch.data
    widen(data, kind, n, p)
    h = hash_ucs4(p, n)
    if table_find(t, p, n, h) >= 0:
        return 0
    if table_insert(t, p, n, h, value) < 0:
        raise MemoryError()
    return 0


cdef class TermSet:
    """A read-only set of str terms, each with an integer value, for the kernels.

    ``TermSet(terms, values=None)``: the str items of ``terms`` (other items are
    skipped: a str token can never equal them); ``values`` gives each term's value
    (its vocabulary index), by default its position. A repeated term keeps its
    first value.
    """

    cdef TermTable table
    cdef readonly int64_t max_value

    def __cinit__(self, terms, values=None):
        cdef Vec scratch
        cdef int64_t value
        vec_init(&scratch, sizeof(ucs4_t))
        terms = list(terms)
        values = range(len(terms)) if values is None else [int(v) for v in values]
        if table_init(&self.table, len(terms)) < 0:
            table_free(&self.table)
            raise MemoryError()
        self.max_value = -1
        try:
            for term, raw in zip(terms, values):
                if isinstance(term, str):
                    value = raw
                    if value < 0:
                        raise ValueError(f"negative vocabulary index {value}")
                    table_add_str(&self.table, term, value, &scratch)
                    if value > self.max_value:
                        self.max_value = value
        finally:
            vec_free(&scratch)

    def __dealloc__(self):
        table_free(&self.table)

    def __len__(self):
        return self.table.n


# -- per-code-point character classes from CPython's own functions ------------------

def char_classes():
    """uint8[0x110000]: FLAG_WORD where ``str.isalnum()`` or ``_``, FLAG_SPACE where
    ``str.isspace()``: the functions CPython's ``re`` calls for ``\\w`` and ``\\s``."""
    out = np.zeros(N_CODE_POINTS, dtype=np.uint8)
    cdef uint8_t[::1] view = out
    cdef uint32_t c
    for c in range(N_CODE_POINTS):
        if c == 0x5F or Py_UNICODE_ISALNUM(c):
            view[c] |= F_WORD
        if Py_UNICODE_ISSPACE(c):
            view[c] |= F_SPACE
    return out


# -- MurmurHash3_x86_32 -------------------------------------------------------------

cdef inline uint32_t rotl32(uint32_t x, int r) noexcept nogil:
    return (x << r) | (x >> (32 - r))


cdef inline uint32_t murmur_block(uint32_t h1, uint32_t k1) noexcept nogil:
    """MurmurHash3_x86_32: the state after one 4-byte block k1."""
    k1 = rotl32(k1 * FASTNB_MURMUR_C1, 15) * FASTNB_MURMUR_C2
    return rotl32(h1 ^ k1, 13) * 5 + FASTNB_MURMUR_N


cdef inline int32_t murmur_finish(uint32_t h1, uint32_t tail, Py_ssize_t length) noexcept nogil:
    """MurmurHash3_x86_32: the hash, from the state after the whole blocks, the
    last (length % 4) bytes read little-endian, and the length in bytes."""
    if length & 3:
        h1 ^= rotl32(tail * FASTNB_MURMUR_C1, 15) * FASTNB_MURMUR_C2
    h1 ^= <uint32_t> length
    h1 ^= h1 >> 16
    h1 *= FASTNB_MURMUR_F1
    h1 ^= h1 >> 13
    h1 *= FASTNB_MURMUR_F2
    h1 ^= h1 >> 16
    return <int32_t> h1


cdef inline int32_t murmurhash3_32(const uint8_t *key, Py_ssize_t length) noexcept nogil:
    """MurmurHash3_x86_32 with seed 0, as a signed int (scikit-learn's
    ``murmurhash3_32(key, positive=False)``); blocks are read little-endian."""
    cdef Py_ssize_t i, nblocks = length // 4
    cdef uint32_t h1 = 0, tail = 0
    for i in range(nblocks):
        h1 = murmur_block(h1, <uint32_t> key[4 * i] | (<uint32_t> key[4 * i + 1] << 8)
                          | (<uint32_t> key[4 * i + 2] << 16)
                          | (<uint32_t> key[4 * i + 3] << 24))
    for i in range(length - 1, 4 * nblocks - 1, -1):
        tail = (tail << 8) | key[i]
    return murmur_finish(h1, tail, length)


cdef inline Py_ssize_t utf8_encode(const ucs4_t *p, Py_ssize_t n,
                                   uint8_t *out) noexcept nogil:
    """Write the UTF-8 of p[:n] to out (room for 4 * n bytes); return the byte
    count, or -1 when p holds a lone surrogate (which UTF-8 cannot encode)."""
    cdef Py_ssize_t i, k = 0
    cdef ucs4_t c
    for i in range(n):
        c = p[i]
        if c < 0x80:
            out[k] = <uint8_t> c
            k += 1
        elif c < 0x800:
            out[k] = <uint8_t> (0xC0 | (c >> 6))
            out[k + 1] = <uint8_t> (0x80 | (c & 0x3F))
            k += 2
        elif c < 0x10000:
            if 0xD800 <= c <= 0xDFFF:
                return -1
            out[k] = <uint8_t> (0xE0 | (c >> 12))
            out[k + 1] = <uint8_t> (0x80 | ((c >> 6) & 0x3F))
            out[k + 2] = <uint8_t> (0x80 | (c & 0x3F))
            k += 3
        else:
            out[k] = <uint8_t> (0xF0 | (c >> 18))
            out[k + 1] = <uint8_t> (0x80 | ((c >> 12) & 0x3F))
            out[k + 2] = <uint8_t> (0x80 | ((c >> 6) & 0x3F))
            out[k + 3] = <uint8_t> (0x80 | (c & 0x3F))
            k += 4
    return k


cdef inline int32_t murmur_ascii(const ucs4_t *term, Py_ssize_t n,
                                 uint32_t *seen) noexcept nogil:
    """MurmurHash3_x86_32 of the UTF-8 of term[:n] if all its code points are
    ASCII (so that its UTF-8 is one byte per code point), without encoding it.
    *seen is the OR of the code points: the result is meaningless unless it is
    below 0x80."""
    cdef Py_ssize_t i, blocks = n // 4
    cdef uint32_t h1 = 0, tail = 0, c0, c1, c2, c3, any_bits = 0
    for i in range(blocks):
        c0 = term[4 * i]
        c1 = term[4 * i + 1]
        c2 = term[4 * i + 2]
        c3 = term[4 * i + 3]
        any_bits |= c0 | c1 | c2 | c3
        h1 = murmur_block(h1, c0 | (c1 << 8) | (c2 << 16) | (c3 << 24))
    for i in range(n - 1, 4 * blocks - 1, -1):
        any_bits |= term[i]
        tail = (tail << 8) | term[i]
    seen[0] = any_bits
    return murmur_finish(h1, tail, n)


cdef inline int murmur_term(Vec *utf8, const ucs4_t *term, Py_ssize_t n, bint ascii,
                            int32_t *out) noexcept nogil:
    """*out = MurmurHash3 of the UTF-8 of term[:n] (``ascii``: every code point
    is below 0x80). Returns 0, ERR_SURROGATE or ERR_NOMEM."""
    cdef Py_ssize_t nbytes
    cdef uint32_t seen
    if ascii:
        out[0] = murmur_ascii(term, n, &seen)
        return 0
    if 4 * n + 4 > utf8.cap and vec_reserve(utf8, 4 * n + 4) < 0:
        return ERR_NOMEM
    nbytes = utf8_encode(term, n, <uint8_t *> utf8.data)
    if nbytes < 0:
        return ERR_SURROGATE
    out[0] = murmurhash3_32(<const uint8_t *> utf8.data, nbytes)
    return 0


cdef inline uint64_t hashed_key(int32_t h, int64_t n_features,
                                bint alternate_sign) noexcept nogil:
    """(column << 1) | negative, for a term's MurmurHash3 value h."""
    cdef uint32_t column, modulus = <uint32_t> n_features
    if h == -2147483648:
        # abs(INT32_MIN) overflows: scikit-learn defines the column this way.
        column = <uint32_t> ((2147483647 - (n_features - 1)) % n_features)
    elif modulus & (modulus - 1) == 0:  # a power of two, as the default 2**20
        column = <uint32_t> (-h if h < 0 else h) & (modulus - 1)
    else:
        column = <uint32_t> (-h if h < 0 else h) % modulus
    return (<uint64_t> column << 1) | <uint64_t> (alternate_sign and h < 0)


# -- sorting ----------------------------------------------------------------------

cdef void sort_u64(uint64_t *a, Py_ssize_t n) noexcept nogil:
    """In-place ascending sort: insertion sort on short runs, quicksort above."""
    cdef Py_ssize_t i, j, lo, hi, mid
    cdef uint64_t x, pivot
    while n > 24:
        mid = n // 2
        # median of three into a[mid]
        if a[mid] < a[0]:
            a[mid], a[0] = a[0], a[mid]
        if a[n - 1] < a[mid]:
            a[n - 1], a[mid] = a[mid], a[n - 1]
            if a[mid] < a[0]:
                a[mid], a[0] = a[0], a[mid]
        pivot = a[mid]
        lo = 0
        hi = n - 1
        while lo <= hi:
            while a[lo] < pivot:
                lo += 1
            while pivot < a[hi]:
                hi -= 1
            if lo <= hi:
                a[lo], a[hi] = a[hi], a[lo]
                lo += 1
                hi -= 1
        # recurse into the smaller part, loop on the larger
        if hi + 1 < n - lo:
            sort_u64(a, hi + 1)
            a = a + lo
            n = n - lo
        else:
            sort_u64(a + lo, n - lo)
            n = hi + 1
    for i in range(1, n):
        x = a[i]
        j = i - 1
        while j >= 0 and a[j] > x:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = x


cdef inline int bit_length(uint64_t x) noexcept nogil:
    cdef int bits = 0
    while x:
        bits += 1
        x >>= 1
    return bits


cdef int bucket_sort_u64(uint64_t *a, Py_ssize_t n, int key_bits, Vec *tmp,
                         Vec *buckets) noexcept nogil:
    """Sort a[:n] (keys below 2**key_bits) ascending: a counting pass on the top
    bits into about n buckets, then each bucket sorted on its own. O(n) for the
    uniform keys hashing gives; 0 on success, -1 when out of memory."""
    cdef int bits = 1, shift
    cdef Py_ssize_t i, b, n_buckets, start, stop
    cdef uint64_t *out
    cdef int64_t *ends
    if n <= 32:
        sort_u64(a, n)
        return 0
    while (<Py_ssize_t> 1 << bits) < n and bits < 16:
        bits += 1
    if bits > key_bits:
        bits = key_bits
    shift = key_bits - bits
    n_buckets = <Py_ssize_t> 1 << bits
    if vec_reserve(tmp, n) < 0 or vec_reserve(buckets, n_buckets + 1) < 0:
        return -1
    out = <uint64_t *> tmp.data
    ends = <int64_t *> buckets.data
    for b in range(n_buckets + 1):
        ends[b] = 0
    for i in range(n):
        ends[(a[i] >> shift) + 1] += 1
    for b in range(n_buckets):
        ends[b + 1] += ends[b]
    for i in range(n):
        b = <Py_ssize_t> (a[i] >> shift)
        out[ends[b]] = a[i]
        ends[b] += 1
    if shift:
        start = 0
        for b in range(n_buckets):
            stop = ends[b]
            if stop - start > 1:
                sort_u64(out + start, stop - start)
            start = stop
    memcpy(a, out, n * sizeof(uint64_t))
    return 0


cdef int radix_sort_u64(uint64_t *a, Py_ssize_t n, int shift, int n_bits,
                        Vec *tmp, Vec *buckets) noexcept nogil:
    """Sort a[:n] by the key bits [shift, shift + n_bits) (the others are equal or
    do not matter): least-significant-digit radix sort, 8 bits a pass. Unlike
    bucket_sort_u64, its cost does not depend on how the keys are spread (term
    numbers are Zipfian: most are small). 0 on success, -1 when out of memory."""
    cdef Py_ssize_t i, d
    cdef int64_t *count
    cdef uint64_t *src = a
    cdef uint64_t *dst
    cdef uint64_t *swap
    cdef int passes = (n_bits + 7) // 8, pass_
    if n <= 32:
        sort_u64(a, n)
        return 0
    if vec_reserve(tmp, n) < 0 or vec_reserve(buckets, 257) < 0:
        return -1
    dst = <uint64_t *> tmp.data
    count = <int64_t *> buckets.data
    for pass_ in range(passes):
        for d in range(257):
            count[d] = 0
        for i in range(n):
            count[((src[i] >> shift) & 0xFF) + 1] += 1
        if count[1] == n:  # every key has this digit: the pass would keep the order
            shift += 8
            continue
        for d in range(256):
            count[d + 1] += count[d]
        for i in range(n):
            d = <Py_ssize_t> ((src[i] >> shift) & 0xFF)
            dst[count[d]] = src[i]
            count[d] += 1
        swap = src
        src = dst
        dst = swap
        shift += 8
    if src != a:
        memcpy(a, src, n * sizeof(uint64_t))
    return 0


cdef struct KeyedTerm:
    uint64_t key          # three code points of the term, from some offset
    int64_t term


cdef inline uint64_t term_key(const TermTable *t, int64_t term,
                              Py_ssize_t offset) noexcept nogil:
    """Code points offset, offset + 1 and offset + 2 of a term, each plus one (0
    past its end) in 21 bits: comparing keys compares those code points, a
    shorter term first, as Python compares str."""
    cdef const ucs4_t *p = table_term(t, term)
    cdef Py_ssize_t n = (<const int64_t *> t.lengths.data)[term], j
    cdef uint64_t key = 0
    for j in range(offset, offset + 3):
        key = (key << 21) | (<uint64_t> (p[j] + 1) if j < n else 0)
    return key


cdef void sort_keyed(KeyedTerm *a, Py_ssize_t n, KeyedTerm *tmp,
                     int64_t *count) noexcept nogil:
    """Sort a[:n] by key: insertion sort when short, else a least-significant-
    digit radix sort, 8 bits a pass (a pass whose digit all keys share is
    skipped)."""
    cdef Py_ssize_t i, j, d
    cdef int shift
    cdef KeyedTerm x
    cdef KeyedTerm *src = a
    cdef KeyedTerm *dst = tmp
    cdef KeyedTerm *swap
    if n <= 32:
        for i in range(1, n):
            x = a[i]
            j = i - 1
            while j >= 0 and a[j].key > x.key:
                a[j + 1] = a[j]
                j -= 1
            a[j + 1] = x
        return
    for shift in range(0, 64, 8):
        for d in range(257):
            count[d] = 0
        for i in range(n):
            count[((src[i].key >> shift) & 0xFF) + 1] += 1
        if count[((src[0].key >> shift) & 0xFF) + 1] == n:
            continue
        for d in range(256):
            count[d + 1] += count[d]
        for i in range(n):
            d = <Py_ssize_t> ((src[i].key >> shift) & 0xFF)
            dst[count[d]] = src[i]
            count[d] += 1
        swap = src
        src = dst
        dst = swap
    if src != a:
        memcpy(a, src, n * sizeof(KeyedTerm))


cdef int sort_terms(const TermTable *t, int64_t *order) noexcept nogil:
    """order[:] = the term ids in code-point order (Python's str order).

    A most-significant-first string sort: sort by the first three code points;
    then each run of terms that share them is sorted by the next three, and so
    on (with an explicit stack of runs, so that long common prefixes cannot
    overflow the call stack). Distinct terms always differ before both end."""
    cdef Py_ssize_t n = t.n, i, j, k, lo, hi, offset, n_tasks = 0
    cdef KeyedTerm *items = <KeyedTerm *> PyMem_RawMalloc((n + 1) * sizeof(KeyedTerm))
    cdef KeyedTerm *tmp = <KeyedTerm *> PyMem_RawMalloc((n + 1) * sizeof(KeyedTerm))
    cdef int64_t count[257]
    cdef Vec tasks        # int64 triples (lo, hi, offset)
    cdef int64_t *task
    vec_init(&tasks, 3 * sizeof(int64_t))
    if items == NULL or tmp == NULL or vec_reserve(&tasks, 16) < 0:
        PyMem_RawFree(items)
        PyMem_RawFree(tmp)
        return -1
    for i in range(n):
        items[i].key = term_key(t, i, 0)
        items[i].term = i
    task = <int64_t *> tasks.data
    task[0] = 0
    task[1] = n
    task[2] = 0
    n_tasks = 1
    while n_tasks:
        n_tasks -= 1
        task = (<int64_t *> tasks.data) + 3 * n_tasks
        lo = task[0]
        hi = task[1]
        offset = task[2]
        sort_keyed(items + lo, hi - lo, tmp, count)
        i = lo
        while i < hi:
            j = i + 1
            while j < hi and items[j].key == items[i].key:
                j += 1
            if j - i > 1 and (items[i].key & 0x1FFFFF) != 0:
                for k in range(i, j):
                    items[k].key = term_key(t, items[k].term, offset + 3)
                if vec_reserve(&tasks, n_tasks + 1) < 0:
                    n_tasks = -1
                    break
                task = (<int64_t *> tasks.data) + 3 * n_tasks
                task[0] = i
                task[1] = j
                task[2] = offset + 3
                n_tasks += 1
            i = j
    for i in range(n):
        order[i] = items[i].term
    PyMem_RawFree(items)
    PyMem_RawFree(tmp)
    vec_free(&tasks)
    return -1 if n_tasks < 0 else 0


# -- reading and preprocessing documents ------------------------------------------

cdef inline void widen(const void *data, int kind, Py_ssize_t n, ucs4_t *out) noexcept nogil:
    cdef Py_ssize_t i
    if kind == 1:
        for i in range(n):
            out[i] = (<const uint8_t *> data)[i]
    elif kind == 2:
        for i in range(n):
            out[i] = (<const uint16_t *> data)[i]
    else:
        memcpy(out, data, n * sizeof(ucs4_t))


cdef struct Params:
    int mode
    int analyzer
    Py_ssize_t min_n
    Py_ssize_t max_n
    Py_ssize_t min_token_len
    bint lower
    bint skip_combining
    const uint32_t *info        # (lowercase << 8) | flags, per code point
    const uint8_t *sigma        # NULL until built
    const uint8_t *combining    # NULL unless skip_combining
    const uint32_t *expand      # records [code point, count, c1, c2, c3]
    Py_ssize_t n_expand
    const TermTable *stop       # NULL: no stop words
    const TermTable *fixed      # MODE_FIXED: the vocabulary
    int64_t n_features
    bint alternate_sign
    const void **doc_data
    const int *doc_kind
    const Py_ssize_t *doc_length
    int64_t *row_nnz            # OUT: entries of each row
    const int64_t *rank         # MODE_FIT, phase 2: each term's place in sorted order


cdef struct HotEntry:
    uint64_t hash
    int64_t term          # -1: empty


cdef struct RowSlot:
    int32_t doc      # the last document (counted from the block's first) using the term
    int32_t pos      # the term's place in that document's row


cdef struct Worker:
    Vec buf          # ucs4_t: the preprocessed document
    Vec spans        # int64 pairs (start, length): the document's word tokens
    Vec span_hashes  # uint64: their table hashes (counting)
    Vec bounds       # int32: token starts and ends (scan_words_branchless)
    Vec gram         # ucs4_t: an n-gram, or a padded word
    Vec utf8         # uint8: a term's UTF-8 bytes
    Vec keys         # uint64: hashing keys, or packed (id, count) pairs
    Vec sort_tmp     # uint64: bucket_sort_u64's output
    Vec sort_buckets # int64: bucket_sort_u64's bucket ends
    int key_bits     # the keys of a row are below 2**key_bits
    Vec out_ids      # int32: columns (hash), term ids (fit) or indices (fixed)
    Vec out_counts   # int32: the values
    Vec seen_in      # RowSlot per term: the last document that used it, and where
    Vec row_ids      # int32: the current row's terms, in first-appearance order
    Vec row_counts   # int32
    TermTable table  # MODE_FIT: this block's terms
    HotEntry *hot    # counting: N_HOT recently found terms
    int64_t *to_global   # MODE_FIT: block term id -> corpus term id
    Py_ssize_t doc   # the document being analysed
    int32_t doc_in_block   # ... counted from the block's first document
    Py_ssize_t first_doc   # the block's first document
    int error
    Py_ssize_t error_doc
    int64_t n_negative   # hashed terms with a negative sign
    char padding[128]    # workers sit side by side: keep two threads' hot fields
                         # off one cache line


cdef int worker_init(Worker *w, int mode) noexcept nogil:
    vec_init(&w.buf, sizeof(ucs4_t))
    vec_init(&w.spans, 2 * sizeof(int64_t))
    vec_init(&w.span_hashes, sizeof(uint64_t))
    vec_init(&w.bounds, sizeof(int32_t))
    vec_init(&w.gram, sizeof(ucs4_t))
    vec_init(&w.utf8, sizeof(uint8_t))
    vec_init(&w.keys, sizeof(uint64_t))
    vec_init(&w.sort_tmp, sizeof(uint64_t))
    vec_init(&w.sort_buckets, sizeof(int64_t))
    w.key_bits = 64
    vec_init(&w.out_ids, sizeof(int32_t))
    vec_init(&w.out_counts, sizeof(int32_t))
    vec_init(&w.seen_in, sizeof(RowSlot))
    vec_init(&w.row_ids, sizeof(int32_t))
    vec_init(&w.row_counts, sizeof(int32_t))
    w.to_global = NULL
    w.hot = NULL
    w.error = 0
    w.error_doc = -1
    w.n_negative = 0
    cdef Py_ssize_t i
    if mode != C_MODE_HASH:
        w.hot = <HotEntry *> PyMem_RawMalloc(N_HOT * sizeof(HotEntry))
        if w.hot == NULL:
            return -1
        for i in range(N_HOT):
            w.hot[i].term = -1
    if mode == C_MODE_FIT:
        return table_init(&w.table, 1024)
    table_zero(&w.table)
    return 0


cdef void worker_free_scratch(Worker *w) noexcept nogil:
    vec_free(&w.buf)
    vec_free(&w.spans)
    vec_free(&w.span_hashes)
    vec_free(&w.bounds)
    vec_free(&w.gram)
    vec_free(&w.utf8)
    vec_free(&w.keys)
    vec_free(&w.sort_tmp)
    vec_free(&w.sort_buckets)
    vec_free(&w.seen_in)
    PyMem_RawFree(w.hot)
    w.hot = NULL
    vec_free(&w.row_ids)
    vec_free(&w.row_counts)


cdef void worker_free(Worker *w) noexcept nogil:
    worker_free_scratch(w)
    vec_free(&w.out_ids)
    vec_free(&w.out_counts)
    table_free(&w.table)
    PyMem_RawFree(w.to_global)
    w.to_global = NULL


cdef inline ucs4_t lower_sigma(const char_t *src, Py_ssize_t n, Py_ssize_t i,
                                const uint8_t *sigma) noexcept nogil:
    """CPython's handle_capital_sigma: final sigma after a cased letter (skipping
    case-ignorables) when no cased letter follows."""
    cdef Py_ssize_t j = i - 1
    cdef ucs4_t c = 0
    cdef bint final
    while j >= 0:
        c = src[j]
        if not (sigma[c] & S_IGNORABLE):
            break
        j -= 1
    final = j >= 0 and (sigma[c] & S_CASED) != 0
    if final and i + 1 < n:
        j = i + 1
        while j < n:
            c = src[j]
            if not (sigma[c] & S_IGNORABLE):
                break
            j += 1
        final = j == n or not (sigma[c] & S_CASED)
    return 0x3C2 if final else 0x3C3


cdef int lower_special(const Params *p, const char_t *src, Py_ssize_t n, Py_ssize_t i,
                       ucs4_t *out) noexcept nogil:
    """str.lower() of the FLAG_SPECIAL code point src[i] into out (room for 3):
    the number of code points, or minus an error code."""
    cdef ucs4_t c = src[i]
    cdef Py_ssize_t e, j
    if c == CAPITAL_SIGMA:
        if p.sigma == NULL:
            return -ERR_NEED_SIGMA
        out[0] = lower_sigma(src, n, i, p.sigma)
        return 1
    for e in range(p.n_expand):
        if p.expand[5 * e] == c:
            for j in range(<Py_ssize_t> p.expand[5 * e + 1]):
                out[j] = p.expand[5 * e + 2 + j]
            return <int> p.expand[5 * e + 1]
    out[0] = p.info[c] >> 8  # not listed: cannot happen with fastnb's tables
    return 1


cdef int read_document(Worker *w, const Params *p, const char_t *src,
                       Py_ssize_t n) noexcept nogil:
    """Fill w.buf with the document, lowercased or with combining marks dropped."""
    cdef Py_ssize_t i, k = 0
    cdef int j, n_out
    cdef ucs4_t c
    cdef uint32_t entry
    cdef ucs4_t *out
    cdef ucs4_t lowered[3]
    # locals, not p's fields: the compiler cannot tell that the stores to out do
    # not change them, and would reload them for every character
    cdef const uint32_t *info = p.info
    cdef const uint8_t *combining = p.combining
    if vec_reserve(&w.buf, n + 1) < 0:
        return ERR_NOMEM
    out = <ucs4_t *> w.buf.data
    if p.lower:
        for i in range(n):
            entry = info[src[i]]
            if not (entry & F_SPECIAL):
                out[k] = entry >> 8
                k += 1
                continue
            n_out = lower_special(p, src, n, i, lowered)
            if n_out < 0:
                return -n_out
            if vec_reserve(&w.buf, k + (n - i) + 3) < 0:
                return ERR_NOMEM
            out = <ucs4_t *> w.buf.data
            for j in range(n_out):
                out[k] = lowered[j]
                k += 1
    elif p.skip_combining:
        for i in range(n):
            c = src[i]
            if not combining[c]:
                out[k] = c
                k += 1
    else:
        for i in range(n):
            out[i] = src[i]
        k = n
    w.buf.n = k
    return 0


# -- sinks: what happens to each term ------------------------------------------------

cdef inline int sink_hash(Worker *w, const Params *p, int32_t h) noexcept nogil:
    """MODE_HASH: a term whose UTF-8 MurmurHash3 is h."""
    if w.keys.n == w.keys.cap and vec_reserve(&w.keys, w.keys.n + 1) < 0:
        return ERR_NOMEM
    (<uint64_t *> w.keys.data)[w.keys.n] = hashed_key(h, p.n_features, p.alternate_sign)
    w.keys.n += 1
    return 0


cdef inline int64_t cached_find(HotEntry *hot, const TermTable *t, const ucs4_t *p,
                                Py_ssize_t n, uint64_t h) noexcept nogil:
    """table_find through a small direct-mapped cache of recent terms. Word
    frequencies are Zipfian: the few thousand commonest terms make most tokens,
    and their entries (64 KiB) stay in the CPU cache, where the table's slots,
    spread over megabytes, would not."""
    cdef HotEntry *e = hot + (h & (N_HOT - 1))
    cdef int64_t term = e.term
    if (term >= 0 and e.hash == h and (<const int64_t *> t.lengths.data)[term] == n
            and same_code_points(table_term(t, term), p, n)):
        return term
    term = table_find(t, p, n, h)
    if term >= 0:
        e.hash = h
        e.term = term
    return term


cdef int sink_term(Worker *w, const Params *p, const ucs4_t *term, Py_ssize_t n,
                   uint64_t h) noexcept nogil:
    """MODE_FIT / MODE_FIXED: the term term[:n], of table hash h, is counted."""
    cdef Py_ssize_t pos
    cdef int64_t term_id
    cdef RowSlot *slot
    if p.mode == C_MODE_FIT:
        term_id = cached_find(w.hot, &w.table, term, n, h)
        if term_id < 0:
            term_id = table_insert(&w.table, term, n, h, 0)
            if term_id < 0 or vec_reserve(&w.seen_in, w.table.n) < 0:
                return ERR_NOMEM
            (<RowSlot *> w.seen_in.data)[term_id].doc = -1
    else:
        term_id = cached_find(w.hot, p.fixed, term, n, h)
        if term_id < 0:
            return 0
        term_id = (<const int64_t *> p.fixed.values.data)[term_id]
    slot = (<RowSlot *> w.seen_in.data) + term_id
    if slot.doc != w.doc_in_block:
        slot.doc = w.doc_in_block
        pos = w.row_ids.n
        if pos == w.row_ids.cap and (vec_reserve(&w.row_ids, pos + 1) < 0
                                     or vec_reserve(&w.row_counts, pos + 1) < 0):
            return ERR_NOMEM
        slot.pos = <int32_t> pos
        (<int32_t *> w.row_ids.data)[pos] = <int32_t> term_id
        (<int32_t *> w.row_counts.data)[pos] = 1
        w.row_ids.n += 1
        w.row_counts.n += 1
    else:
        (<int32_t *> w.row_counts.data)[slot.pos] += 1
    return 0


cdef int emit(Worker *w, const Params *p, const ucs4_t *term, Py_ssize_t n) noexcept nogil:
    """A term given by its code points goes to the sink of the mode."""
    cdef Py_ssize_t i
    cdef uint32_t seen = 0
    cdef int32_t h
    cdef int err
    if p.mode == C_MODE_HASH:
        for i in range(n):
            seen |= term[i]
        err = murmur_term(&w.utf8, term, n, seen < 0x80, &h)
        if err:
            return err
        return sink_hash(w, p, h)
    return sink_term(w, p, term, n, hash_ucs4(term, n))


cdef int finish_row(Worker *w, const Params *p) noexcept nogil:
    """Append the current document's row to the block's output."""
    cdef Py_ssize_t i, start = w.out_ids.n, n_out = 0, n
    cdef uint64_t *keys
    cdef uint64_t column
    cdef int32_t value
    cdef int32_t *ids
    cdef int32_t *counts
    if p.mode == C_MODE_HASH:
        n = w.keys.n
        keys = <uint64_t *> w.keys.data
        if bucket_sort_u64(keys, n, w.key_bits, &w.sort_tmp, &w.sort_buckets) < 0:
            return ERR_NOMEM
        if (vec_reserve(&w.out_ids, start + n) < 0
                or vec_reserve(&w.out_counts, start + n) < 0):
            return ERR_NOMEM
        ids = (<int32_t *> w.out_ids.data) + start
        counts = (<int32_t *> w.out_counts.data) + start
        i = 0
        while i < n:
            column = keys[i] >> 1
            value = 0
            while i < n and (keys[i] >> 1) == column:
                if keys[i] & 1:
                    value -= 1
                    w.n_negative += 1
                else:
                    value += 1
                i += 1
            ids[n_out] = <int32_t> column
            counts[n_out] = value
            n_out += 1
        w.keys.n = 0
    else:
        n_out = w.row_ids.n
        if (vec_reserve(&w.out_ids, start + n_out) < 0
                or vec_reserve(&w.out_counts, start + n_out) < 0):
            return ERR_NOMEM
        ids = (<int32_t *> w.out_ids.data) + start
        counts = (<int32_t *> w.out_counts.data) + start
        if p.mode == C_MODE_FIXED:
            # rows sorted by vocabulary index (scikit-learn's sort_indices)
            if vec_reserve(&w.keys, n_out) < 0:
                return ERR_NOMEM
            keys = <uint64_t *> w.keys.data
            for i in range(n_out):
                keys[i] = ((<uint64_t> (<int32_t *> w.row_ids.data)[i]) << 32) | (
                    <uint32_t> (<int32_t *> w.row_counts.data)[i])
            if radix_sort_u64(keys, n_out, 32, w.key_bits - 32, &w.sort_tmp,
                              &w.sort_buckets) < 0:
                return ERR_NOMEM
            for i in range(n_out):
                ids[i] = <int32_t> (keys[i] >> 32)
                counts[i] = <int32_t> <uint32_t> keys[i]
        else:
            memcpy(ids, w.row_ids.data, n_out * sizeof(int32_t))
            memcpy(counts, w.row_counts.data, n_out * sizeof(int32_t))
        w.row_ids.n = 0
        w.row_counts.n = 0
    w.out_ids.n = start + n_out
    w.out_counts.n = start + n_out
    p.row_nnz[w.doc] = n_out
    return 0


# -- analyzers --------------------------------------------------------------------

cdef int token_done(Worker *w, const Params *p, Py_ssize_t start, Py_ssize_t n,
                    bint ascii, bint *kept) noexcept nogil:
    """The token w.buf[start:start + n] is complete: drop it (too short, a stop
    word), or keep it (*kept) for the n-grams and, when counting, for
    count_unigrams(); when hashing, emit it as a unigram now."""
    cdef const ucs4_t *term = (<const ucs4_t *> w.buf.data) + start
    cdef uint64_t h = 0
    cdef int64_t *spans
    cdef int32_t murmur
    cdef int err
    cdef bint counting = p.mode != C_MODE_HASH
    kept[0] = False
    if n < p.min_token_len:
        return 0
    if counting or p.stop != NULL:
        h = hash_ucs4(term, n)
        if p.stop != NULL and table_find(p.stop, term, n, h) >= 0:
            return 0
    if p.max_n > 1 or counting:
        if w.spans.n == w.spans.cap and (
                vec_reserve(&w.spans, w.spans.n + 1) < 0
                or vec_reserve(&w.span_hashes, w.spans.n + 1) < 0):
            return ERR_NOMEM
        spans = <int64_t *> w.spans.data
        spans[2 * w.spans.n] = start
        spans[2 * w.spans.n + 1] = n
        (<uint64_t *> w.span_hashes.data)[w.spans.n] = h
        w.spans.n += 1
        kept[0] = True
    if p.min_n != 1 or counting:
        return 0
    err = murmur_term(&w.utf8, term, n, ascii, &murmur)
    if err:
        return err
    return sink_hash(w, p, murmur)


cdef int count_unigrams(Worker *w, const Params *p) noexcept nogil:
    """Count the document's tokens, in order. The table slot of the token a few
    places ahead is prefetched: most lookups of rare terms would otherwise wait
    for memory."""
    cdef const ucs4_t *buf = <const ucs4_t *> w.buf.data
    cdef const int64_t *spans = <const int64_t *> w.spans.data
    cdef const uint64_t *hashes = <const uint64_t *> w.span_hashes.data
    cdef const TermTable *t = &w.table if p.mode == C_MODE_FIT else p.fixed
    cdef Py_ssize_t j, n_tokens = w.spans.n
    cdef int err
    for j in range(n_tokens):
        if j + PREFETCH_AHEAD < n_tokens:
            prefetch(t.slots + (hashes[j + PREFETCH_AHEAD] & <uint64_t> t.mask))
        err = sink_term(w, p, buf + spans[2 * j], spans[2 * j + 1], hashes[j])
        if err:
            return err
    return 0


cdef struct ScanState:
    Py_ssize_t k          # code points kept in w.buf
    Py_ssize_t start      # where the current token starts in w.buf; -1: none
    uint32_t seen         # the OR of the current token's code points


cdef inline int scan_push(Worker *w, const Params *p, ScanState *s, ucs4_t c) noexcept nogil:
    """One code point of the (lowercased) document: a word character extends
    the current token, another character ends it."""
    cdef bint kept
    cdef int err
    if p.info[c] & F_WORD:
        if s.start < 0:
            s.start = s.k
            s.seen = 0
        (<ucs4_t *> w.buf.data)[s.k] = c
        s.k += 1
        s.seen |= c
    elif s.start >= 0:
        err = token_done(w, p, s.start, s.k - s.start, s.seen < 0x80, &kept)
        if err:
            return err
        if not kept:
            s.k = s.start
        s.start = -1
    return 0


cdef int hash_unigrams(Worker *w, const Params *p, const int32_t *bounds,
                       Py_ssize_t nb) noexcept nogil:
    """MODE_HASH with unigrams only and no stop words (the default): each token
    [bounds[2j], bounds[2j + 1]) of w.buf long enough goes straight to its key."""
    cdef const ucs4_t *buf = <const ucs4_t *> w.buf.data
    cdef Py_ssize_t j, start, length, min_token_len = p.min_token_len
    cdef uint64_t *keys
    cdef uint32_t seen
    cdef int32_t h
    cdef int err
    if vec_reserve(&w.keys, w.keys.n + nb // 2 + 1) < 0:
        return ERR_NOMEM
    keys = <uint64_t *> w.keys.data
    for j in range(0, nb, 2):
        start = bounds[j]
        length = bounds[j + 1] - start
        if length < min_token_len:
            continue
        h = murmur_ascii(buf + start, length, &seen)
        if seen >= 0x80:
            err = murmur_term(&w.utf8, buf + start, length, False, &h)
            if err:
                return err
        keys[w.keys.n] = hashed_key(h, p.n_features, p.alternate_sign)
        w.keys.n += 1
    return 0


cdef int count_tokens(Worker *w, const Params *p, const int32_t *bounds,
                      Py_ssize_t nb) noexcept nogil:
    """Counting with unigrams only and no stop words (the default): the tokens
    [bounds[2j], bounds[2j + 1]) of w.buf long enough are hashed, then counted
    in order by count_unigrams()."""
    cdef const ucs4_t *buf = <const ucs4_t *> w.buf.data
    cdef Py_ssize_t j, m = 0, start, length, min_token_len = p.min_token_len
    cdef int64_t *spans
    cdef uint64_t *hashes
    if vec_reserve(&w.spans, nb // 2 + 1) < 0 or vec_reserve(&w.span_hashes, nb // 2 + 1) < 0:
        return ERR_NOMEM
    spans = <int64_t *> w.spans.data
    hashes = <uint64_t *> w.span_hashes.data
    for j in range(0, nb, 2):
        start = bounds[j]
        length = bounds[j + 1] - start
        if length < min_token_len:
            continue
        spans[2 * m] = start
        spans[2 * m + 1] = length
        hashes[m] = hash_ucs4(buf + start, length)
        m += 1
    w.spans.n = m
    return 0


cdef int scan_words_branchless(Worker *w, const Params *p, const char_t *src,
                               Py_ssize_t n) noexcept nogil:
    """scan_words() for the common case (no combining marks to drop), without a
    branch per character: every code point is stored, but the store position only
    advances over word characters, and each word/non-word transition records
    the position, so that the tokens are [bounds[2j], bounds[2j + 1]). Token
    boundaries are unpredictable, and a mispredicted branch at each would cost
    more than this loop's work. Returns -1 (having done nothing) for a document
    with a FLAG_SPECIAL code point to lowercase: scan_words() does those."""
    cdef const uint32_t *info = p.info
    cdef Py_ssize_t i, j, k = 0, nb = 0, start, length
    cdef uint32_t entry, word, prev = 0, seen
    cdef int err
    cdef bint kept
    cdef ucs4_t *buf
    cdef int32_t *bounds
    if n >= 2147483647:
        return -1  # positions must fit int32: scan_words() does it
    if vec_reserve(&w.buf, n + 4) < 0 or vec_reserve(&w.bounds, n + 2) < 0:
        return ERR_NOMEM
    buf = <ucs4_t *> w.buf.data
    bounds = <int32_t *> w.bounds.data
    if p.lower:
        for i in range(n):
            entry = info[src[i]]
            if unlikely(entry & F_SPECIAL):
                return -1
            word = (entry >> 3) & 1  # F_LOWER_WORD
            buf[k] = entry >> 8
            bounds[nb] = <int32_t> k
            nb += word ^ prev
            k += word
            prev = word
    else:
        for i in range(n):
            entry = src[i]
            word = info[entry] & F_WORD
            buf[k] = entry
            bounds[nb] = <int32_t> k
            nb += word ^ prev
            k += word
            prev = word
    bounds[nb] = <int32_t> k
    nb += prev
    w.spans.n = 0
    w.buf.n = k
    if p.stop == NULL and p.max_n == 1:  # unigrams only: no n-grams to keep
        if p.mode == C_MODE_HASH:
            return hash_unigrams(w, p, bounds, nb)
        return count_tokens(w, p, bounds, nb)
    for j in range(0, nb, 2):
        start = bounds[j]
        length = bounds[j + 1] - start
        seen = 0
        for i in range(start, start + length):
            seen |= buf[i]
        err = token_done(w, p, start, length, seen < 0x80, &kept)
        if err:
            return err
    return 0


cdef int scan_words(Worker *w, const Params *p, const char_t *src,
                    Py_ssize_t n) noexcept nogil:
    """Lowercase (or drop combining marks) and tokenise the document, one code
    point at a time: the general form of scan_words_branchless, for documents
    with a code point whose lowercase needs context or is several characters,
    and for strip_accents="unicode". The tokens' code points go to w.buf (the
    other characters are not kept), each token to token_done() when it ends."""
    cdef ScanState s
    cdef ucs4_t out[3]
    cdef int j, n_out, err
    cdef Py_ssize_t i
    cdef uint32_t entry
    if vec_reserve(&w.buf, n + 4) < 0:
        return ERR_NOMEM
    s.k = 0
    s.start = -1
    s.seen = 0
    w.spans.n = 0
    for i in range(n + 1):
        n_out = 1
        if i == n:
            out[0] = 0x20  # a non-word character ends the last token
        elif p.lower:
            entry = p.info[src[i]]
            out[0] = entry >> 8
            if entry & F_SPECIAL:
                n_out = lower_special(p, src, n, i, out)
                if n_out < 0:
                    return -n_out
                if vec_reserve(&w.buf, s.k + (n - i) + 4) < 0:
                    return ERR_NOMEM
        elif p.combining != NULL and p.combining[src[i]]:
            continue  # strip_accents="unicode": as if it were not there
        else:
            out[0] = src[i]
        for j in range(n_out):
            err = scan_push(w, p, &s, out[j])
            if err:
                return err
    w.buf.n = s.k
    return 0


cdef int word_ngrams(Worker *w, const Params *p) noexcept nogil:
    """The word n-grams (n >= 2) of the kept tokens, each n in turn, joined by a
    space, as scikit-learn makes them."""
    cdef const ucs4_t *buf = <const ucs4_t *> w.buf.data
    cdef const int64_t *spans = <const int64_t *> w.spans.data
    cdef Py_ssize_t n_tokens = w.spans.n, t, k, j, size, gram_len
    cdef ucs4_t *gram
    cdef int err
    for size in range(2 if p.min_n < 2 else p.min_n,
                      (p.max_n if p.max_n < n_tokens else n_tokens) + 1):
        for t in range(n_tokens - size + 1):
            gram_len = size - 1
            for k in range(size):
                gram_len += spans[2 * (t + k) + 1]
            if vec_reserve(&w.gram, gram_len) < 0:
                return ERR_NOMEM
            gram = <ucs4_t *> w.gram.data
            j = 0
            for k in range(size):
                if k:
                    gram[j] = 0x20
                    j += 1
                memcpy(gram + j, buf + spans[2 * (t + k)],
                       spans[2 * (t + k) + 1] * sizeof(ucs4_t))
                j += spans[2 * (t + k) + 1]
            err = emit(w, p, gram, gram_len)
            if err:
                return err
    return 0


cdef int analyze_chars(Worker *w, const Params *p) noexcept nogil:
    cdef ucs4_t *buf = <ucs4_t *> w.buf.data
    cdef Py_ssize_t n = w.buf.n, i = 0, j, k = 0, size, top
    cdef int err
    cdef const uint32_t *info = p.info
    # runs of two or more whitespace characters become one space (r"\s\s+" -> " ")
    while i < n:
        if info[buf[i]] & F_SPACE:
            j = i + 1
            while j < n and (info[buf[j]] & F_SPACE):
                j += 1
            buf[k] = 0x20 if j - i >= 2 else buf[i]
            k += 1
            i = j
        else:
            buf[k] = buf[i]
            k += 1
            i += 1
    n = k
    top = p.max_n if p.max_n < n else n
    for size in range(p.min_n, top + 1):
        for i in range(n - size + 1):
            err = emit(w, p, buf + i, size)
            if err:
                return err
    return 0


cdef int analyze_chars_wb(Worker *w, const Params *p) noexcept nogil:
    cdef const ucs4_t *buf = <const ucs4_t *> w.buf.data
    cdef Py_ssize_t n = w.buf.n, i = 0, j, size, offset, padded
    cdef ucs4_t *word
    cdef int err
    cdef const uint32_t *info = p.info
    while i < n:
        if info[buf[i]] & F_SPACE:
            i += 1
            continue
        j = i + 1
        while j < n and not (info[buf[j]] & F_SPACE):
            j += 1
        padded = j - i + 2
        if vec_reserve(&w.gram, padded) < 0:
            return ERR_NOMEM
        word = <ucs4_t *> w.gram.data
        word[0] = 0x20
        memcpy(word + 1, buf + i, (j - i) * sizeof(ucs4_t))
        word[padded - 1] = 0x20
        for size in range(p.min_n, p.max_n + 1):
            # the first n-gram (the whole padded word when it is shorter than n)
            err = emit(w, p, word, size if size < padded else padded)
            if err:
                return err
            offset = 0
            while offset + size < padded:
                offset += 1
                err = emit(w, p, word + offset, size)
                if err:
                    return err
            if offset == 0:  # a word no longer than n is counted once
                break
        i = j
    return 0


cdef int analyze_document(Worker *w, const Params *p, Py_ssize_t doc) noexcept nogil:
    cdef int err
    cdef int kind = p.doc_kind[doc]
    cdef Py_ssize_t n = p.doc_length[doc]
    w.doc = doc
    w.doc_in_block = <int32_t> (doc - w.first_doc)
    if p.analyzer == C_WORD:
        err = -1
        if kind == 1:
            if not p.skip_combining:
                err = scan_words_branchless(w, p, <const uint8_t *> p.doc_data[doc], n)
            if err < 0:
                err = scan_words(w, p, <const uint8_t *> p.doc_data[doc], n)
        elif kind == 2:
            if not p.skip_combining:
                err = scan_words_branchless(w, p, <const uint16_t *> p.doc_data[doc], n)
            if err < 0:
                err = scan_words(w, p, <const uint16_t *> p.doc_data[doc], n)
        else:
            if not p.skip_combining:
                err = scan_words_branchless(w, p, <const uint32_t *> p.doc_data[doc], n)
            if err < 0:
                err = scan_words(w, p, <const uint32_t *> p.doc_data[doc], n)
        if not err and p.mode != C_MODE_HASH and p.min_n == 1:
            err = count_unigrams(w, p)
        if not err and p.max_n > 1:
            err = word_ngrams(w, p)
        if err:
            return err
        return finish_row(w, p)
    if kind == 1:
        err = read_document(w, p, <const uint8_t *> p.doc_data[doc], n)
    elif kind == 2:
        err = read_document(w, p, <const uint16_t *> p.doc_data[doc], n)
    else:
        err = read_document(w, p, <const uint32_t *> p.doc_data[doc], n)
    if err:
        return err
    if p.analyzer == C_CHAR:
        err = analyze_chars(w, p)
    else:
        err = analyze_chars_wb(w, p)
    if err:
        return err
    return finish_row(w, p)


cdef void analyze_block(Worker *w, const Params *p, Py_ssize_t start,
                        Py_ssize_t stop) noexcept nogil:
    cdef Py_ssize_t doc
    cdef int err
    w.first_doc = start
    for doc in range(start, stop):
        err = analyze_document(w, p, doc)
        if err:
            w.error = err
            w.error_doc = doc
            return


ctypedef fused count_t:
    int32_t
    int64_t


cdef void copy_block(Worker *w, const Params *p, Py_ssize_t start, Py_ssize_t stop,
                     const int64_t *indptr, int32_t *ids, count_t *counts) noexcept nogil:
    """Write a block's rows at their place in the output (the first block's rows
    are there already: its buffers are the output). In MODE_FIT, each row is
    sorted by the terms' numbers of first appearance in the corpus (as
    scikit-learn's rows are), and holds their places in sorted order; a row is
    read whole before it is written, so this works in place too."""
    cdef Py_ssize_t doc, i, n, src = 0, dst
    cdef const int32_t *block_ids = <const int32_t *> w.out_ids.data
    cdef const int32_t *block_counts = <const int32_t *> w.out_counts.data
    cdef uint64_t *keys
    if p.mode != C_MODE_FIT:
        n = w.out_ids.n
        if n and ids + indptr[start] != block_ids:  # the first block is in place
            memcpy(ids + indptr[start], block_ids, n * sizeof(int32_t))
        if count_t is int32_t:
            if n and counts + indptr[start] != block_counts:
                memcpy(counts + indptr[start], block_counts, n * sizeof(int32_t))
        else:
            for i in range(n):
                counts[indptr[start] + i] = block_counts[i]
        return
    for doc in range(start, stop):
        dst = indptr[doc]
        n = indptr[doc + 1] - dst
        if vec_reserve(&w.keys, n) < 0:
            w.error = ERR_NOMEM
            return
        keys = <uint64_t *> w.keys.data
        for i in range(n):
            keys[i] = ((<uint64_t> w.to_global[block_ids[src + i]]) << 32) | (
                <uint32_t> block_counts[src + i])
        if radix_sort_u64(keys, n, 32, w.key_bits - 32, &w.sort_tmp,
                          &w.sort_buckets) < 0:
            w.error = ERR_NOMEM
            return
        for i in range(n):
            ids[dst + i] = <int32_t> p.rank[keys[i] >> 32]
            counts[dst + i] = <int32_t> <uint32_t> keys[i]
        src += n


cdef object _blocks(const Py_ssize_t[::1] lengths, Py_ssize_t n_blocks):
    """Split the documents into n_blocks contiguous runs of about equal length."""
    cdef Py_ssize_t n = lengths.shape[0], doc = 0, b
    cdef double total = 0, seen = 0
    bounds = np.zeros(n_blocks + 1, dtype=np.intp)
    cdef Py_ssize_t[::1] out = bounds
    for b in range(n):
        total += lengths[b] + 1
    for b in range(1, n_blocks):
        while doc < n and seen < total * b / n_blocks:
            seen += lengths[doc] + 1
            doc += 1
        out[b] = doc
    out[n_blocks] = n
    return bounds


def analyze(
    list docs,                         # IN: exact str objects
    int mode,                          # MODE_HASH, MODE_FIT or MODE_FIXED
    int analyzer,                      # ANALYZER_WORD, _CHAR or _CHAR_WB
    Py_ssize_t min_n,                  # 1 <= min_n <= max_n
    Py_ssize_t max_n,
    Py_ssize_t min_token_len,          # word analyzer: shortest token kept
    bint lower,                        # lowercase through ``info``
    bint skip_combining,               # drop code points marked in ``combining``
    const uint32_t[::1] info,          # (lowercase << 8) | flags per code point
    const uint8_t[::1] sigma,          # empty until built (then 0x110000 entries)
    const uint8_t[::1] combining,      # empty unless skip_combining
    const uint32_t[::1] expand,        # multi-char lowercase records (5 per record)
    TermSet stop,                      # None: no stop words
    TermSet fixed,                     # MODE_FIXED: term -> vocabulary index
    int64_t n_features,                # MODE_HASH
    bint alternate_sign,               # MODE_HASH
    int n_threads,
    bint wide_counts=False,            # int64 counts (for an int64 matrix), not int32
):
    """Analyze documents into CSR rows; see the module docstring.

    Returns ``(status, result)``. ``status`` 0: ``result`` is ``(indptr, ids,
    counts, extra)``, with int64 ``indptr``, int32 ``ids`` and int32 ``counts``
    (int64 with ``wide_counts``);
    ``extra`` is the number of negative hashed terms (MODE_HASH), ``(terms,
    rank)`` (MODE_FIT: the terms in corpus first-appearance order, and each one's
    place in code-point order, which ``ids`` hold; each row lists its terms in
    first-appearance order) or None. Another
    status (STATUS_NEED_SIGMA, STATUS_SURROGATE) means nothing was produced;
    ``result`` is then the first document concerned.
    """
    cdef Py_ssize_t n_docs = len(docs), i, b, n_blocks, doc
    cdef Params p
    cdef Worker *workers = NULL
    cdef const void **doc_data = NULL
    cdef int *doc_kind = NULL
    cdef Py_ssize_t *doc_length = NULL
    cdef Py_ssize_t[::1] bounds
    cdef int64_t[::1] row_nnz_view
    cdef int64_t[::1] indptr_view
    cdef int32_t *ids_ptr
    cdef int32_t *counts_ptr
    cdef int64_t *counts64_ptr = NULL
    cdef int64_t[::1] rank_view
    cdef TermTable merged
    cdef int64_t *order = NULL
    cdef int64_t *gid
    cdef Py_ssize_t longest_row = 0
    cdef int error = 0
    cdef Py_ssize_t error_doc = -1
    cdef int64_t nnz = 0, n_negative = 0, term, g
    cdef TermTable *bt
    cdef str text

    table_zero(&merged)
    p.rank = NULL
    docs = list(docs)  # our own references: the strings outlive the nogil sections
    if n_threads < 1:
        n_threads = 1
    n_blocks = n_threads if n_threads < n_docs else (n_docs if n_docs > 0 else 1)
    lengths = np.empty(n_docs, dtype=np.intp)
    cdef Py_ssize_t[::1] lengths_view = lengths
    row_nnz = np.zeros(n_docs, dtype=np.int64)
    row_nnz_view = row_nnz

    doc_data = <const void **> PyMem_RawMalloc((n_docs + 1) * sizeof(void *))
    doc_kind = <int *> PyMem_RawMalloc((n_docs + 1) * sizeof(int))
    doc_length = <Py_ssize_t *> PyMem_RawMalloc((n_docs + 1) * sizeof(Py_ssize_t))
    workers = <Worker *> PyMem_RawMalloc(n_blocks * sizeof(Worker))
    if doc_data == NULL or doc_kind == NULL or doc_length == NULL or workers == NULL:
        PyMem_RawFree(doc_data)
        PyMem_RawFree(doc_kind)
        PyMem_RawFree(doc_length)
        PyMem_RawFree(workers)
        raise MemoryError()
    for b in range(n_blocks):
        worker_init(&workers[b], C_MODE_HASH)  # nothing allocated yet
    try:
        for i in range(n_docs):
            text = docs[i]
            if type(text) is not str:
                raise TypeError(f"document {i} is not a str")
            if PyUnicode_KIND(text) not in (1, 2, 4):
                # a legacy (not "ready") string of Python <= 3.11: a compact copy
                text = text.encode("utf-32-le", "surrogatepass").decode(
                    "utf-32-le", "surrogatepass")
                docs[i] = text
            doc_data[i] = PyUnicode_DATA(text)
            doc_kind[i] = PyUnicode_KIND(text)
            doc_length[i] = PyUnicode_GET_LENGTH(text)
            lengths_view[i] = doc_length[i]
        bounds = _blocks(lengths, n_blocks)
        for b in range(n_blocks):
            if bounds[b + 1] - bounds[b] > 2147483647:
                raise ValueError("too many documents for one block")

        p.mode = mode
        p.analyzer = analyzer
        p.min_n = min_n
        p.max_n = max_n
        p.min_token_len = min_token_len
        p.lower = lower
        p.skip_combining = skip_combining
        p.info = &info[0]
        p.sigma = &sigma[0] if sigma.shape[0] else NULL
        p.combining = &combining[0] if combining.shape[0] else NULL
        p.expand = &expand[0] if expand.shape[0] else NULL
        p.n_expand = expand.shape[0] // 5
        p.stop = &stop.table if stop is not None else NULL
        p.fixed = &fixed.table if fixed is not None else NULL
        p.n_features = n_features
        p.alternate_sign = alternate_sign
        p.doc_data = doc_data
        p.doc_kind = doc_kind
        p.doc_length = doc_length
        p.row_nnz = &row_nnz_view[0] if n_docs else NULL
        if info.shape[0] < N_CODE_POINTS:
            raise ValueError("info must have 0x110000 entries")
        if p.sigma != NULL and sigma.shape[0] < N_CODE_POINTS:
            raise ValueError("sigma must have 0x110000 entries")
        if skip_combining and combining.shape[0] < N_CODE_POINTS:
            raise ValueError("combining must have 0x110000 entries")
        if mode == C_MODE_FIXED and fixed is None:
            raise ValueError("MODE_FIXED needs a vocabulary")
        if mode == C_MODE_HASH and not (0 < n_features <= 2147483647):
            raise ValueError("n_features must be in [1, 2**31 - 1]")

        for b in range(n_blocks):
            if worker_init(&workers[b], mode) < 0:
                raise MemoryError()
            if mode == C_MODE_HASH:
                workers[b].key_bits = bit_length(<uint64_t> (2 * n_features - 1))
            elif mode == C_MODE_FIXED:
                workers[b].key_bits = 32 + bit_length(<uint64_t> (fixed.max_value + 1))
            if mode == C_MODE_FIXED:
                if vec_reserve(&workers[b].seen_in, fixed.max_value + 1) < 0:
                    raise MemoryError()
                for i in range(fixed.max_value + 1):
                    (<RowSlot *> workers[b].seen_in.data)[i].doc = -1

        # Phase 1: every block analyses its documents.
        with nogil:
            if n_blocks > 1:
                for b in prange(n_blocks, schedule="static", num_threads=n_threads):
                    analyze_block(&workers[b], &p, bounds[b], bounds[b + 1])
            else:
                analyze_block(&workers[0], &p, bounds[0], bounds[1])
        for b in range(n_blocks):
            worker_free_scratch(&workers[b])
            if workers[b].error and (error_doc < 0 or workers[b].error_doc < error_doc):
                error = workers[b].error
                error_doc = workers[b].error_doc
        if error == ERR_NOMEM:
            raise MemoryError()
        if error == ERR_NEED_SIGMA:
            return STATUS_NEED_SIGMA, error_doc
        if error == ERR_SURROGATE:
            return STATUS_SURROGATE, error_doc

        indptr = np.empty(n_docs + 1, dtype=np.int64)
        indptr_view = indptr
        indptr_view[0] = 0
        for doc in range(n_docs):
            indptr_view[doc + 1] = indptr_view[doc] + row_nnz_view[doc]
            if row_nnz_view[doc] > longest_row:
                longest_row = row_nnz_view[doc]
        nnz = indptr_view[n_docs]
        for b in range(n_blocks):
            n_negative += workers[b].n_negative

        # MODE_FIT: number the terms by first appearance in the corpus.
        if mode == C_MODE_FIT:
            # the first block's table, as it is, numbers the terms it saw
            merged = workers[0].table
            table_zero(&workers[0].table)
            with nogil:
                for b in range(n_blocks):
                    bt = &workers[b].table
                    workers[b].to_global = <int64_t *> PyMem_RawMalloc(
                        ((merged.n if b == 0 else bt.n) + 1) * sizeof(int64_t))
                    if workers[b].to_global == NULL:
                        error = ERR_NOMEM
                        break
                    if b == 0:
                        for term in range(merged.n):
                            workers[b].to_global[term] = term
                        continue
                    for term in range(bt.n):
                        g = table_find(&merged, table_term(bt, term),
                                       (<int64_t *> bt.lengths.data)[term],
                                       (<uint64_t *> bt.hashes.data)[term])
                        if g < 0:
                            g = table_insert(&merged, table_term(bt, term),
                                             (<int64_t *> bt.lengths.data)[term],
                                             (<uint64_t *> bt.hashes.data)[term], 0)
                            if g < 0:
                                error = ERR_NOMEM
                                break
                        workers[b].to_global[term] = g
                    table_free(bt)
                    if error:
                        break
            if error:
                raise MemoryError()
            for b in range(n_blocks):
                workers[b].key_bits = 32 + bit_length(<uint64_t> merged.n)
            # each term's place in code-point order
            rank = np.empty(merged.n, dtype=np.int64)
            rank_view = rank
            order = <int64_t *> PyMem_RawMalloc((merged.n + 1) * sizeof(int64_t))
            if order == NULL:
                raise MemoryError()
            with nogil:
                error = sort_terms(&merged, order)
                if not error:
                    for term in range(merged.n):
                        rank_view[order[term]] = term
            if error:
                raise MemoryError()
            p.rank = &rank_view[0] if merged.n else NULL

        # Phase 2: the blocks' rows go to their place in the output. The output
        # is the first block's buffers, grown to the total (its rows come first,
        # already in place): one block makes no copy, several copy the others.
        for b in range(1, n_blocks):  # no growth slack while the output grows
            if (vec_resize(&workers[b].out_ids, workers[b].out_ids.n) < 0
                    or vec_resize(&workers[b].out_counts, workers[b].out_counts.n) < 0):
                raise MemoryError()
        if (vec_resize(&workers[0].out_ids, nnz) < 0
                or vec_resize(&workers[0].out_counts, nnz) < 0):
            raise MemoryError()
        ids_ptr = <int32_t *> workers[0].out_ids.data
        counts_ptr = <int32_t *> workers[0].out_counts.data
        if wide_counts:
            counts64_ptr = <int64_t *> PyMem_RawMalloc((nnz + 1) * sizeof(int64_t))
            if counts64_ptr == NULL:
                raise MemoryError()
        if nnz:
            with nogil:
                # only MODE_FIT sorts rows here; the others copy, which one thread
                # does as fast, without waking (and waiting for) another
                if n_blocks > 1 and mode == C_MODE_FIT:
                    for b in prange(n_blocks, schedule="static", num_threads=n_threads):
                        if wide_counts:
                            copy_block(&workers[b], &p, bounds[b], bounds[b + 1],
                                       &indptr_view[0], ids_ptr, counts64_ptr)
                        else:
                            copy_block(&workers[b], &p, bounds[b], bounds[b + 1],
                                       &indptr_view[0], ids_ptr, counts_ptr)
                else:
                    for b in range(n_blocks):
                        if wide_counts:
                            copy_block(&workers[b], &p, bounds[b], bounds[b + 1],
                                       &indptr_view[0], ids_ptr, counts64_ptr)
                        else:
                            copy_block(&workers[b], &p, bounds[b], bounds[b + 1],
                                       &indptr_view[0], ids_ptr, counts_ptr)
        for b in range(n_blocks):
            if workers[b].error:
                raise MemoryError()
        # the output's buffers now belong to the arrays returned
        workers[0].out_ids.data = NULL
        ids = _take_array(ids_ptr, nnz, sizeof(int32_t), np.int32)
        if wide_counts:
            counts = _take_array(counts64_ptr, nnz, sizeof(int64_t), np.int64)
            counts64_ptr = NULL
        else:
            workers[0].out_counts.data = NULL
            counts = _take_array(counts_ptr, nnz, sizeof(int32_t), np.int32)
        for b in range(n_blocks):
            worker_free(&workers[b])

        if mode == C_MODE_HASH:
            return 0, (indptr, ids, counts, n_negative)
        if mode == C_MODE_FIXED:
            return 0, (indptr, ids, counts, None)

        # MODE_FIT: the terms as str, in corpus first-appearance order.
        terms = [
            PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, table_term(&merged, term),
                                      (<int64_t *> merged.lengths.data)[term])
            for term in range(merged.n)
        ]
        return 0, (indptr, ids, counts, (terms, rank))
    finally:
        for b in range(n_blocks):
            worker_free(&workers[b])
        PyMem_RawFree(workers)
        PyMem_RawFree(doc_data)
        PyMem_RawFree(doc_kind)
        PyMem_RawFree(doc_length)
        PyMem_RawFree(order)
        PyMem_RawFree(counts64_ptr)
        table_free(&merged)


# -- hashing terms that Python produced (the slow path) ---------------------------

def hash_features(rows, int64_t n_features, bint alternate_sign):
    """Hash the features of each row as scikit-learn's FeatureHasher does for
    strings: str features by their UTF-8 bytes, bytes as they are, anything else a
    TypeError. Returns ``(indptr, columns, counts, n_negative)`` like analyze()."""
    cdef Worker w
    cdef Params p
    cdef Py_ssize_t n
    cdef int32_t h
    cdef int64_t row_nnz = 0
    cdef int32_t[::1] ids_view
    cdef int32_t[::1] counts_view
    cdef list nnz = []
    cdef int err
    if not (0 < n_features <= 2147483647):
        raise ValueError("n_features must be in [1, 2**31 - 1]")
    worker_init(&w, C_MODE_HASH)
    p.mode = C_MODE_HASH
    p.n_features = n_features
    p.alternate_sign = alternate_sign
    p.row_nnz = &row_nnz
    w.doc = 0
    w.key_bits = bit_length(<uint64_t> (2 * n_features - 1))
    try:
        for row in rows:
            for feature in row:
                if isinstance(feature, str):
                    n = PyUnicode_GET_LENGTH(feature)
                    if vec_reserve(&w.buf, n) < 0:
                        raise MemoryError()
                    widen(PyUnicode_DATA(feature), PyUnicode_KIND(feature), n,
                          <ucs4_t *> w.buf.data)
                    err = murmur_term(&w.utf8, <ucs4_t *> w.buf.data, n, False, &h)
                    if err == ERR_SURROGATE:
                        feature.encode("utf-8")  # raises scikit-learn's error
                    elif err:
                        raise MemoryError()
                elif isinstance(feature, bytes):
                    h = murmurhash3_32(<const uint8_t *> (<const char *> feature),
                                       len(<bytes> feature))
                else:
                    raise TypeError("feature names must be strings")
                if sink_hash(&w, &p, h):
                    raise MemoryError()
            if finish_row(&w, &p):
                raise MemoryError()
            nnz.append(row_nnz)
        indptr = np.zeros(len(nnz) + 1, dtype=np.int64)
        np.cumsum(np.asarray(nnz, dtype=np.int64), out=indptr[1:])
        n = w.out_ids.n
        ids = np.empty(n, dtype=np.int32)
        counts = np.empty(n, dtype=np.int32)
        ids_view = ids
        counts_view = counts
        if n:
            memcpy(&ids_view[0], w.out_ids.data, n * sizeof(int32_t))
            memcpy(&counts_view[0], w.out_counts.data, n * sizeof(int32_t))
        return indptr, ids, counts, w.n_negative
    finally:
        worker_free(&w)


# -- values and row normalisation -------------------------------------------------

ctypedef fused floating:
    float
    double


cdef void finish_rows(const int32_t *counts, const int64_t *indptr, floating *out,
                      Py_ssize_t start, Py_ssize_t stop, bint binary,
                      int norm) noexcept nogil:
    """Values of rows [start, stop): the counts (or 1 where binary; with counts NULL,
    out already holds the values), then divided by the row's l1 (norm 1) or l2
    (norm 2) norm exactly as scikit-learn's inplace_csr_row_normalize_l1/l2 do: a
    double sum in index order of |x|, or of the product x * x taken in the data's
    precision; a row whose sum is zero is left as it is."""
    cdef Py_ssize_t row, j
    cdef double total
    cdef floating x
    for row in range(start, stop):
        if counts != NULL:
            for j in range(indptr[row], indptr[row + 1]):
                out[j] = 1 if binary else <floating> counts[j]
        if norm == 0:
            continue
        total = 0.0
        for j in range(indptr[row], indptr[row + 1]):
            x = out[j]
            if norm == 1:
                total += fabs(x)
            else:
                total += x * x
        if total == 0.0:
            continue
        if norm == 2:
            total = sqrt(total)
        for j in range(indptr[row], indptr[row + 1]):
            out[j] = <floating> (out[j] / total)


def finish_values(const int32_t[::1] counts, const int64_t[::1] indptr not None,
                  floating[::1] out not None, bint binary, int norm, int n_threads):
    """Fill CSR values: ``out[:] = counts`` (1 where ``binary``; with ``counts`` None,
    ``out`` already holds the values), then normalise each row by its l1 (norm=1)
    or l2 (norm=2) norm, or not (norm=0). Rows are split into one contiguous block
    per thread; each row is done by one thread, so any thread count gives the same
    bits."""
    cdef Py_ssize_t n_rows = indptr.shape[0] - 1, b, n_blocks, chunk
    cdef const int32_t *counts_ptr = NULL
    cdef floating *out_ptr = NULL
    if n_rows < 0 or indptr[n_rows] != out.shape[0] or (
            counts is not None and counts.shape[0] != out.shape[0]):
        raise ValueError("inconsistent CSR arrays")
    if n_rows == 0 or out.shape[0] == 0:
        return
    if counts is not None:
        counts_ptr = &counts[0]
    out_ptr = &out[0]
    n_blocks = n_threads if 1 < n_threads < n_rows else 1
    chunk = (n_rows + n_blocks - 1) // n_blocks
    with nogil:
        if n_blocks > 1:
            for b in prange(n_blocks, schedule="static", num_threads=n_threads):
                finish_rows(counts_ptr, &indptr[0], out_ptr, b * chunk,
                            (b + 1) * chunk if (b + 1) * chunk < n_rows else n_rows,
                            binary, norm)
        else:
            finish_rows(counts_ptr, &indptr[0], out_ptr, 0, n_rows, binary, norm)
