# A worker: one thread's scratch buffers and output for a contiguous block of
# documents, the analysis parameters all workers share (Params), and the sinks
# that take each term: hashing to a (column, sign) key, or counting in a table.

from libc.stdint cimport int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t
from libc.string cimport memcpy
from cpython.mem cimport PyMem_RawFree, PyMem_RawMalloc

from _text_common cimport (
    ucs4_t, Vec, vec_init, vec_free, vec_reserve, unlikely,
    C_MODE_HASH, C_MODE_FIT, C_MODE_FIXED, ERR_NOMEM, N_HOT,
)
from _text_table cimport (
    TermTable, table_zero, table_init, table_free, table_find, table_insert,
    table_term, same_code_points, hash_ucs4,
)
from _text_murmur cimport murmur_term, hashed_key
from _text_sort cimport bucket_sort_u64, radix_sort_u64
from _text_index cimport (
    ShortIndex, ShortSlot, index_zero, index_alloc, index_free, index_grow,
    index_probe, NO_POS,
)

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
    bint wide_counts            # the workers' out_counts are int64 (else int32)
    const int64_t *rank         # MODE_FIT, phase 2: each term's place in sorted order
    int64_t n_terms             # MODE_FIT, phase 2: the corpus's terms


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
    Vec span_keys    # 4 uint64: the packed keys of those of up to SHORT_TERM code
                     # points (counting; pack_padded)
    Vec bounds       # int32: token starts and ends (scan_words_branchless)
    Vec gram         # ucs4_t: an n-gram, or a padded word
    Vec utf8         # uint8: a term's UTF-8 bytes
    Vec keys         # uint64: hashing keys, or packed (id, count) pairs
    Vec sort_tmp     # uint64: bucket_sort_u64's output
    Vec sort_buckets # int64: bucket_sort_u64's bucket ends
    int key_bits     # the keys of a row are below 2**key_bits
    Vec out_ids      # int32: columns (hash), term ids (fit) or indices (fixed)
    Vec out_counts   # int32 (int64 with Params.wide_counts): the values
    Vec seen_in      # RowSlot per term: the last document that used it, and where
    Vec row_ids      # int32: the current row's terms, in first-appearance order
    Vec row_counts   # int32
    TermTable table  # MODE_FIT: this block's terms
    ShortIndex index # MODE_FIT: its unigrams of up to SHORT_TERM code points
    HotEntry *hot    # counting: N_HOT recently found terms
    int64_t *to_global   # MODE_FIT: block term id -> corpus term id (NULL: the same)
    Py_ssize_t doc   # the document being analysed
    int32_t doc_in_block   # ... counted from the block's first document
    Py_ssize_t first_doc   # the block's first document
    Py_ssize_t chars_total # the block's code points (plus one a document)
    Py_ssize_t chars_done  # ... of its documents read so far
    int error
    Py_ssize_t error_doc
    int64_t n_negative   # hashed terms with a negative sign
    char padding[128]    # workers sit side by side: keep two threads' hot fields
                         # off one cache line


cdef inline int worker_init(Worker *w, int mode) noexcept nogil:
    vec_init(&w.buf, sizeof(ucs4_t))
    vec_init(&w.spans, 2 * sizeof(int64_t))
    vec_init(&w.span_hashes, sizeof(uint64_t))
    vec_init(&w.span_keys, 4 * sizeof(uint64_t))
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
    w.chars_total = 0
    w.chars_done = 0
    index_zero(&w.index)
    cdef Py_ssize_t i
    if mode != C_MODE_HASH:
        w.hot = <HotEntry *> PyMem_RawMalloc(N_HOT * sizeof(HotEntry))
        if w.hot == NULL:
            return -1
        for i in range(N_HOT):
            w.hot[i].term = -1
    if mode == C_MODE_FIT:
        if index_alloc(&w.index, 4096) < 0:
            return -1
        return table_init(&w.table, 1024)
    table_zero(&w.table)
    return 0


cdef inline void worker_free_scratch(Worker *w) noexcept nogil:
    vec_free(&w.buf)
    vec_free(&w.spans)
    vec_free(&w.span_hashes)
    vec_free(&w.span_keys)
    vec_free(&w.bounds)
    vec_free(&w.gram)
    vec_free(&w.utf8)
    vec_free(&w.keys)
    vec_free(&w.sort_tmp)
    vec_free(&w.sort_buckets)
    vec_free(&w.seen_in)
    PyMem_RawFree(w.hot)
    w.hot = NULL
    index_free(&w.index)
    vec_free(&w.row_ids)
    vec_free(&w.row_counts)


cdef inline void worker_free(Worker *w) noexcept nogil:
    worker_free_scratch(w)
    vec_free(&w.out_ids)
    vec_free(&w.out_counts)
    table_free(&w.table)
    PyMem_RawFree(w.to_global)
    w.to_global = NULL


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


cdef inline int row_grow(Worker *w) noexcept nogil:
    """Room for one more entry in the current row (row_ids and row_counts); the
    new room in row_ids is set to -1, so that count_in_row() may read
    row_ids[n] (no term) before it writes it. 0, or -1 when out of memory."""
    cdef Py_ssize_t i, n = w.row_ids.n
    if vec_reserve(&w.row_ids, n + 1) < 0 or vec_reserve(&w.row_counts, n + 1) < 0:
        return -1
    for i in range(n, w.row_ids.cap):
        (<int32_t *> w.row_ids.data)[i] = -1
    return 0


cdef inline int sink_term(Worker *w, const Params *p, const ucs4_t *term, Py_ssize_t n,
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
        if pos == w.row_ids.cap and row_grow(w) < 0:
            return ERR_NOMEM
        slot.pos = <int32_t> pos
        (<int32_t *> w.row_ids.data)[pos] = <int32_t> term_id
        (<int32_t *> w.row_counts.data)[pos] = 1
        w.row_ids.n += 1
        w.row_counts.n += 1
    else:
        (<int32_t *> w.row_counts.data)[slot.pos] += 1
    return 0


cdef inline int count_in_row(Worker *w, int32_t term_id, uint32_t *pos) noexcept nogil:
    """Count one more of term_id in the current row. *pos is the term's place in
    the row that last counted it: it is in this row when row_ids[*pos] is the
    term (a row lists a term once), else it is appended and *pos updated.
    Without a branch on which: about a quarter of a row's tokens repeat a term,
    at unpredictable places, and a mispredicted branch costs more than the
    stores both cases make here."""
    cdef Py_ssize_t n = w.row_ids.n, at
    cdef int32_t *ids
    cdef int32_t *counts
    cdef bint again
    if n == w.row_ids.cap and row_grow(w) < 0:
        return ERR_NOMEM
    ids = <int32_t *> w.row_ids.data
    counts = <int32_t *> w.row_counts.data
    at = <Py_ssize_t> pos[0]
    at = at if at < n else n  # row_ids[n] is allocated and set (row_grow)
    again = ids[at] == term_id and at < n
    at = at if again else n
    counts[at] = (counts[at] if again else 0) + 1
    ids[at] = term_id
    pos[0] = <uint32_t> at
    w.row_ids.n = n + (not again)
    w.row_counts.n = w.row_ids.n
    return 0


cdef inline int sink_short(Worker *w, const ucs4_t *term, Py_ssize_t n, uint64_t h,
                           const uint64_t *k) noexcept nogil:
    """MODE_FIT: the unigram term[:n] (n <= SHORT_TERM), of table hash h and
    packed key k[0:4], is counted through the short-term index."""
    cdef ShortSlot *s = index_probe(&w.index, k, h)
    cdef int64_t term_id
    if unlikely(s.term < 0):
        # new to the index: learn its id (the table has it if another path saw
        # it; word n-grams never equal a unigram, having a space), then hold it
        term_id = table_find(&w.table, term, n, h)
        if term_id < 0:
            term_id = table_insert(&w.table, term, n, h, 0)
            if term_id < 0:
                return ERR_NOMEM
        if 2 * (w.index.n + 1) > w.index.mask + 1:
            if index_grow(&w.index) < 0:
                return ERR_NOMEM
            s = index_probe(&w.index, k, h)
        s.k0 = k[0]
        s.k1 = k[1]
        s.k2 = k[2]
        s.k3 = k[3]
        s.hash = h
        s.term = <int32_t> term_id
        s.pos = NO_POS
        w.index.n += 1
    return count_in_row(w, s.term, &s.pos)


cdef inline int emit(Worker *w, const Params *p, const ucs4_t *term, Py_ssize_t n) noexcept nogil:
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


cdef inline int reserve_out(Worker *w, Py_ssize_t need) noexcept nogil:
    """Room for ``need`` entries in the block's output. Once a 64th of the block
    is read, it grows to what the whole block will need at the rate so far
    (entries per code point read), plus 1/16: one or two reallocations, where
    growing by half each time makes about twenty, each copying the output to
    new pages. (Earlier, the rate is too uncertain: it grows by half.) 0, or
    ERR_NOMEM."""
    cdef Py_ssize_t target = need
    if need <= w.out_ids.cap and need <= w.out_counts.cap:
        return 0
    if w.chars_total > w.chars_done >= (w.chars_total + 63) // 64:  # (so done > 0)
        target = <Py_ssize_t> (<double> need * w.chars_total / w.chars_done * 1.0625)
        if target < need:
            target = need
    if vec_reserve(&w.out_ids, target) < 0 or vec_reserve(&w.out_counts, target) < 0:
        return ERR_NOMEM
    return 0


cdef inline int finish_row(Worker *w, const Params *p) noexcept nogil:
    """Append the current document's row to the block's output."""
    cdef Py_ssize_t i, start = w.out_ids.n, n_out = 0, n
    cdef uint64_t *keys
    cdef uint64_t column
    cdef int32_t value
    cdef int64_t n_negative = 0
    cdef int32_t *ids
    cdef int32_t *counts
    cdef int64_t *counts64
    cdef const int32_t *row_counts
    if p.mode == C_MODE_HASH:
        n = w.keys.n
        keys = <uint64_t *> w.keys.data
        if bucket_sort_u64(keys, n, w.key_bits, &w.sort_tmp, &w.sort_buckets) < 0:
            return ERR_NOMEM
        if reserve_out(w, start + n):
            return ERR_NOMEM
        ids = (<int32_t *> w.out_ids.data) + start
        counts = (<int32_t *> w.out_counts.data) + start
        i = 0
        while i < n:
            column = keys[i] >> 1
            value = 0
            while i < n and (keys[i] >> 1) == column:
                # +1, or -1 for a negative sign, without a branch on the sign
                value += 1 - 2 * <int32_t> (keys[i] & 1)
                n_negative += <int64_t> (keys[i] & 1)
                i += 1
            ids[n_out] = <int32_t> column
            counts[n_out] = value
            n_out += 1
        w.n_negative += n_negative
        w.keys.n = 0
    else:
        n_out = w.row_ids.n
        if reserve_out(w, start + n_out):
            return ERR_NOMEM
        ids = (<int32_t *> w.out_ids.data) + start
        counts = (<int32_t *> w.out_counts.data) + start
        counts64 = (<int64_t *> w.out_counts.data) + start
        row_counts = <const int32_t *> w.row_counts.data
        if p.mode == C_MODE_FIXED:
            # rows sorted by vocabulary index (scikit-learn's sort_indices)
            if vec_reserve(&w.keys, n_out) < 0:
                return ERR_NOMEM
            keys = <uint64_t *> w.keys.data
            for i in range(n_out):
                keys[i] = ((<uint64_t> (<int32_t *> w.row_ids.data)[i]) << 32) | (
                    <uint32_t> row_counts[i])
            if radix_sort_u64(keys, n_out, 32, w.key_bits - 32, &w.sort_tmp,
                              &w.sort_buckets) < 0:
                return ERR_NOMEM
            for i in range(n_out):
                ids[i] = <int32_t> (keys[i] >> 32)
            if p.wide_counts:
                for i in range(n_out):
                    counts64[i] = <int32_t> <uint32_t> keys[i]
            else:
                for i in range(n_out):
                    counts[i] = <int32_t> <uint32_t> keys[i]
        else:
            memcpy(ids, w.row_ids.data, n_out * sizeof(int32_t))
            if p.wide_counts:
                for i in range(n_out):
                    counts64[i] = row_counts[i]
            else:
                memcpy(counts, row_counts, n_out * sizeof(int32_t))
        w.row_ids.n = 0
        w.row_counts.n = 0
    w.out_ids.n = start + n_out
    w.out_counts.n = start + n_out
    p.row_nnz[w.doc] = n_out
    return 0

