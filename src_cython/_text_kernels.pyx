# Over the ~600-line guideline (about 625 lines) on purpose: ``analyze`` is one
# ~280-line function because it owns the one GIL-free parallel region and the
# per-thread state of all three sinks; its point functions are in _text_*.pxd.
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
  numbers terms by first appearance (a unigram of up to 12 code points is found
  through the thread's short-term index, _text_index.pxd, which holds its code
  points in the slot); a row lists each term once with its count,
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

The point functions are in ``_text_*.pxd`` (see each file's header); this file
holds the loops over documents and the Python entry points.
"""

from cpython.mem cimport PyMem_RawFree, PyMem_RawMalloc
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
from libc.stdint cimport int32_t, int64_t, uint8_t, uint32_t, uint64_t
from libc.string cimport memcpy

# The point functions, in the order they build on each other (see each file):
from _text_common cimport (
    ucs4_t, Vec, vec_init, vec_free, vec_reserve, vec_resize, widen,
    C_MODE_HASH, C_MODE_FIT, C_MODE_FIXED, F_WORD, F_SPACE, ERR_NOMEM,
    ERR_NEED_SIGMA, ERR_SURROGATE, N_CODE_POINTS, BLOCKS_PER_THREAD, claim,
)
from _text_table cimport (
    TermTable, table_zero, table_init, table_free, table_find, table_insert,
    table_term, hash_ucs4,
)
from _text_murmur cimport murmurhash3_32, murmur_term
from _text_sort cimport bit_length, sort_terms
from _text_worker cimport (
    Params, Worker, RowSlot, worker_init, worker_free, worker_free_scratch,
    sink_hash, finish_row,
)
from _text_ngrams cimport analyze_block
from _text_rows cimport copy_block, merge_tables, finish_rows, floating

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


def exact_str_chars(docs):
    """The code points of all the documents, or -1 when one of them is not
    exactly a str (the only documents the kernels read as they are)."""
    cdef Py_ssize_t total = 0
    for doc in docs:
        if type(doc) is not str:
            return -1
        total += PyUnicode_GET_LENGTH(doc)
    return total


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
    cdef Py_ssize_t n_docs = len(docs), i, b, t, n_blocks, doc, next_block = 0
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
    cdef int64_t *counts64_ptr
    cdef int64_t[::1] rank_view
    cdef TermTable merged
    cdef int64_t *order = NULL
    cdef Py_ssize_t longest_row = 0
    cdef int error = 0
    cdef Py_ssize_t error_doc = -1
    cdef int64_t nnz = 0, n_negative = 0, term
    cdef str text

    table_zero(&merged)
    p.rank = NULL
    p.n_terms = 0
    docs = list(docs)  # our own references: the strings outlive the nogil sections
    if n_threads < 1:
        n_threads = 1
    n_blocks = n_threads if n_threads < n_docs else (n_docs if n_docs > 0 else 1)
    if mode == C_MODE_HASH and n_blocks > 1:
        # Hashing: more blocks than threads, each thread claiming the next block
        # when done with one, so that a thread the system holds up (another
        # process on its core) leaves its share to the others instead of making
        # them wait. The rows are still placed by block order: the same output.
        n_blocks = min(n_docs, BLOCKS_PER_THREAD * n_threads)
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
        # counting into an int64 matrix: the workers write int64 counts, so that
        # the output is their buffers, with no int32 copy to widen
        p.wide_counts = wide_counts and mode != C_MODE_HASH
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
            if p.wide_counts:
                workers[b].out_counts.itemsize = sizeof(int64_t)  # nothing allocated yet
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
            if n_blocks > n_threads:
                for t in prange(n_threads, schedule="static", num_threads=n_threads):
                    b = claim(&next_block)
                    while b < n_blocks:
                        analyze_block(&workers[b], &p, bounds[b], bounds[b + 1])
                        b = claim(&next_block)
            elif n_blocks > 1:
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
            with nogil:
                error = merge_tables(workers, n_blocks, &merged)
            if error:
                raise MemoryError()
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
            p.n_terms = merged.n

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
        counts_ptr = <int32_t *> workers[0].out_counts.data  # int64 with wide_counts
        counts64_ptr = <int64_t *> workers[0].out_counts.data
        if nnz:
            with nogil:
                # only MODE_FIT sorts rows here; the others copy, which one thread
                # does as fast, without waking (and waiting for) another
                if n_blocks > 1 and mode == C_MODE_FIT:
                    for b in prange(n_blocks, schedule="static", num_threads=n_threads):
                        if p.wide_counts:
                            copy_block(&workers[b], &p, bounds[b], bounds[b + 1],
                                       &indptr_view[0], ids_ptr, counts64_ptr)
                        else:
                            copy_block(&workers[b], &p, bounds[b], bounds[b + 1],
                                       &indptr_view[0], ids_ptr, counts_ptr)
                else:
                    for b in range(n_blocks):
                        if p.wide_counts:
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
        workers[0].out_counts.data = NULL
        ids = _take_array(ids_ptr, nnz, sizeof(int32_t), np.int32)
        if p.wide_counts:
            counts = _take_array(counts64_ptr, nnz, sizeof(int64_t), np.int64)
        else:
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
    p.wide_counts = False
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
