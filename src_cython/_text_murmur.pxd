# MurmurHash3_x86_32 (seed 0) of a term's UTF-8 bytes, as scikit-learn's
# murmurhash3_32, and a hashed term's (column, sign) key.

from libc.stdint cimport int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t

from _text_common cimport (
    ucs4_t, Vec, vec_reserve, ERR_NOMEM, ERR_SURROGATE,
    FASTNB_MURMUR_C1, FASTNB_MURMUR_C2, FASTNB_MURMUR_N, FASTNB_MURMUR_F1,
    FASTNB_MURMUR_F2,
)

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


cdef inline int32_t murmur_short(const ucs4_t *term, Py_ssize_t n,
                                 uint32_t *seen) noexcept nogil:
    """murmur_ascii() for 1 <= n <= SHORT_TERM code points, without a branch on
    n: term[n:SHORT_TERM] is read (it must be readable; its values are masked
    off), the three possible blocks are all mixed and the right state selected.
    Word lengths are unpredictable, and the loops of murmur_ascii mispredict at
    almost every token."""
    cdef uint32_t c[12]
    cdef uint32_t words[4]
    cdef uint32_t any_bits = 0, h, mixed
    cdef Py_ssize_t i, nblocks = n >> 2
    for i in range(12):
        c[i] = term[i] & (<uint32_t> 0 - <uint32_t> (i < n))
        any_bits |= c[i]
    seen[0] = any_bits
    for i in range(3):
        words[i] = c[4 * i] | (c[4 * i + 1] << 8) | (c[4 * i + 2] << 16) | (
            c[4 * i + 3] << 24)
    words[3] = 0
    h = murmur_block(0, words[0])
    h = h if nblocks >= 1 else 0
    mixed = murmur_block(h, words[1])
    h = mixed if nblocks >= 2 else h
    mixed = murmur_block(h, words[2])
    h = mixed if nblocks >= 3 else h
    # the tail is words[nblocks], zero past the end: its mix is 0 when n % 4 == 0
    h ^= rotl32(words[nblocks] * FASTNB_MURMUR_C1, 15) * FASTNB_MURMUR_C2
    h ^= <uint32_t> n
    h ^= h >> 16
    h *= FASTNB_MURMUR_F1
    h ^= h >> 13
    h *= FASTNB_MURMUR_F2
    h ^= h >> 16
    return <int32_t> h


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
