# Reading a document: lowercasing through the per-code-point table (with
# CPython's context-dependent capital sigma and multi-character lowercases), or
# dropping combining marks (strip_accents="unicode", after Python's NFKD).

from libc.stdint cimport int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t

from _text_common cimport (
    ucs4_t, char_t, vec_reserve, F_SPECIAL, S_IGNORABLE, S_CASED, ERR_NOMEM,
    ERR_NEED_SIGMA, CAPITAL_SIGMA,
)
from _text_worker cimport Worker, Params

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


cdef inline int lower_special(const Params *p, const char_t *src, Py_ssize_t n, Py_ssize_t i,
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


cdef inline int read_document(Worker *w, const Params *p, const char_t *src,
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

