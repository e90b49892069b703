# Word tokenisation: maximal runs of word characters (Python's \\w), lowercased
# on the way, each token kept for n-grams, hashed or counted; stop words dropped.

from libc.stdint cimport int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t

from _text_common cimport (
    ucs4_t, char_t, vec_reserve, unlikely, prefetch, C_MODE_HASH, C_MODE_FIT,
    F_WORD, F_SPECIAL, ERR_NOMEM, PREFETCH_AHEAD, SHORT_TERM, BUF_SLACK,
)
from _text_table cimport TermTable, table_find, hash_ucs4, pack_padded, hash_packed
from _text_murmur cimport murmur_ascii, murmur_short, murmur_term, hashed_key
from _text_worker cimport Worker, Params, sink_hash, sink_term, sink_short
from _text_index cimport ShortSlot
from _text_lower cimport lower_special

# -- analyzers --------------------------------------------------------------------

cdef inline uint64_t span_hash(Worker *w, Py_ssize_t j, const ucs4_t *term,
                               Py_ssize_t n) noexcept nogil:
    """The table hash of the document's j-th kept token term[:n]; one of up to
    SHORT_TERM code points (term[:SHORT_TERM] readable) also leaves its packed
    key in w.span_keys, which a fit's short-term index compares."""
    cdef uint64_t *k
    if n > SHORT_TERM:
        return hash_ucs4(term, n)
    k = (<uint64_t *> w.span_keys.data) + 4 * j
    pack_padded(term, n, k)
    return hash_packed(k, n)


cdef inline int token_done(Worker *w, const Params *p, Py_ssize_t start, Py_ssize_t n,
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
    if p.max_n > 1 or counting:
        if w.spans.n == w.spans.cap and (
                vec_reserve(&w.spans, w.spans.n + 1) < 0
                or vec_reserve(&w.span_hashes, w.spans.n + 1) < 0
                or vec_reserve(&w.span_keys, w.spans.n + 1) < 0):
            return ERR_NOMEM
    if counting or p.stop != NULL:
        # (w.buf has BUF_SLACK readable code points past the document)
        h = span_hash(w, w.spans.n, term, n) if counting else hash_ucs4(term, n)
        if p.stop != NULL and table_find(p.stop, term, n, h) >= 0:
            return 0
    if p.max_n > 1 or counting:
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


cdef inline int count_unigrams(Worker *w, const Params *p) noexcept nogil:
    """Count the document's tokens, in order. The slot of the token a few places
    ahead is prefetched: most lookups of rare terms would otherwise wait for
    memory. A fit counts the short tokens through its short-term index."""
    cdef const ucs4_t *buf = <const ucs4_t *> w.buf.data
    cdef const int64_t *spans = <const int64_t *> w.spans.data
    cdef const uint64_t *hashes = <const uint64_t *> w.span_hashes.data
    cdef const uint64_t *keys = <const uint64_t *> w.span_keys.data
    cdef const TermTable *t = &w.table if p.mode == C_MODE_FIT else p.fixed
    cdef const ShortSlot *short_slots = w.index.slots
    cdef uint64_t short_mask = <uint64_t> w.index.mask
    cdef bint fit = p.mode == C_MODE_FIT
    cdef const char *slot_bytes
    cdef Py_ssize_t j, ahead, n_tokens = w.spans.n
    cdef int err
    for j in range(n_tokens):
        ahead = j + PREFETCH_AHEAD
        if ahead < n_tokens:
            if fit and spans[2 * ahead + 1] <= SHORT_TERM:
                # both cache lines a 48-byte slot may straddle (the index may
                # grow before then: a wasted prefetch, no harm)
                slot_bytes = <const char *> (short_slots + (hashes[ahead] & short_mask))
                prefetch(slot_bytes)
                prefetch(slot_bytes + sizeof(ShortSlot) - 1)
            else:
                prefetch(t.slots + (hashes[ahead] & <uint64_t> t.mask))
        if fit and spans[2 * j + 1] <= SHORT_TERM:
            err = sink_short(w, buf + spans[2 * j], spans[2 * j + 1], hashes[j],
                             keys + 4 * j)
            if unlikely(err != 0):
                return err
            if unlikely(w.index.slots != short_slots):  # it grew
                short_slots = w.index.slots
                short_mask = <uint64_t> w.index.mask
            continue
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


cdef inline int hash_unigrams(Worker *w, const Params *p, const int32_t *bounds,
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
        if length <= SHORT_TERM:
            h = murmur_short(buf + start, length, &seen)
        else:
            h = murmur_ascii(buf + start, length, &seen)
        if seen >= 0x80:
            err = murmur_term(&w.utf8, buf + start, length, False, &h)
            if err:
                return err
        keys[w.keys.n] = hashed_key(h, p.n_features, p.alternate_sign)
        w.keys.n += 1
    return 0


cdef inline int count_tokens(Worker *w, const Params *p, const int32_t *bounds,
                      Py_ssize_t nb) noexcept nogil:
    """Counting with unigrams only and no stop words (the default): the tokens
    [bounds[2j], bounds[2j + 1]) of w.buf long enough are hashed, then counted
    in order by count_unigrams()."""
    cdef const ucs4_t *buf = <const ucs4_t *> w.buf.data
    cdef Py_ssize_t j, m = 0, start, length, min_token_len = p.min_token_len
    cdef int64_t *spans
    cdef uint64_t *hashes
    if (vec_reserve(&w.spans, nb // 2 + 1) < 0 or vec_reserve(&w.span_hashes, nb // 2 + 1) < 0
            or vec_reserve(&w.span_keys, nb // 2 + 1) < 0):
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
        # w.buf has BUF_SLACK readable code points past the document
        hashes[m] = span_hash(w, m, buf + start, length)
        m += 1
    w.spans.n = m
    return 0


cdef inline int scan_words_branchless(Worker *w, const Params *p, const char_t *src,
                               Py_ssize_t n) noexcept nogil:
    """scan_words() for the common case (no combining marks to drop), without a
    branch per character: every code point is stored at its place, and each
    word/non-word transition records the position, so that the tokens are
    [bounds[2j], bounds[2j + 1]). Token boundaries are unpredictable, and a
    mispredicted branch at each would cost more than this loop's work. Returns
    -1 (its work wasted) for a document with a FLAG_SPECIAL code point to
    lowercase, which is rare: scan_words() does those."""
    cdef const uint32_t *info = p.info
    cdef Py_ssize_t i, j, nb = 0, start, length
    cdef uint32_t entry, word, prev = 0, seen, flags = 0
    cdef int err
    cdef bint kept
    cdef ucs4_t *buf
    cdef int32_t *bounds
    if n >= 2147483647:
        return -1  # positions must fit int32: scan_words() does it
    if vec_reserve(&w.buf, n + BUF_SLACK) < 0 or vec_reserve(&w.bounds, n + 2) < 0:
        return ERR_NOMEM
    buf = <ucs4_t *> w.buf.data
    bounds = <int32_t *> w.bounds.data
    if p.lower:
        for i in range(n):
            entry = info[src[i]]
            flags |= entry  # (F_SPECIAL is looked at once, after the loop)
            word = (entry >> 3) & 1  # F_LOWER_WORD
            buf[i] = entry >> 8
            bounds[nb] = <int32_t> i
            nb += word ^ prev
            prev = word
        if flags & F_SPECIAL:
            return -1
    else:
        for i in range(n):
            entry = src[i]
            word = info[entry] & F_WORD
            buf[i] = entry
            bounds[nb] = <int32_t> i
            nb += word ^ prev
            prev = word
    bounds[nb] = <int32_t> n
    nb += prev
    w.spans.n = 0
    w.buf.n = n
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


cdef inline int scan_words(Worker *w, const Params *p, const char_t *src,
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
    if vec_reserve(&w.buf, n + BUF_SLACK) < 0:
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
                if vec_reserve(&w.buf, s.k + (n - i) + BUF_SLACK) < 0:
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

