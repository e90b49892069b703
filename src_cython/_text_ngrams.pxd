# n-grams: word n-grams of the kept tokens, character n-grams ("char") and
# character n-grams of the space-padded words ("char_wb"), in scikit-learn's
# order; and one document's whole analysis into its row (analyze_document).

from libc.stdint cimport int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t
from libc.string cimport memcpy

from _text_common cimport (
    ucs4_t, vec_reserve, C_MODE_HASH, C_WORD, C_CHAR, F_SPACE, ERR_NOMEM,
)
from _text_worker cimport Worker, Params, emit, finish_row
from _text_lower cimport read_document
from _text_tokens cimport scan_words_branchless, scan_words, count_unigrams

cdef inline int word_ngrams(Worker *w, const Params *p) noexcept nogil:
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


cdef inline int analyze_chars(Worker *w, const Params *p) noexcept nogil:
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


cdef inline int analyze_chars_wb(Worker *w, const Params *p) noexcept nogil:
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


cdef inline int analyze_document(Worker *w, const Params *p, Py_ssize_t doc) noexcept nogil:
    cdef int err
    cdef int kind = p.doc_kind[doc]
    cdef Py_ssize_t n = p.doc_length[doc]
    w.doc = doc
    w.doc_in_block = <int32_t> (doc - w.first_doc)
    w.chars_done += n + 1
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


cdef inline void analyze_block(Worker *w, const Params *p, Py_ssize_t start,
                        Py_ssize_t stop) noexcept nogil:
    cdef Py_ssize_t doc
    cdef int err
    w.first_doc = start
    w.chars_total = 0
    w.chars_done = 0
    for doc in range(start, stop):
        w.chars_total += p.doc_length[doc] + 1
    for doc in range(start, stop):
        err = analyze_document(w, p, doc)
        if err:
            w.error = err
            w.error_doc = doc
            return

