# Sorting for the text kernels: a row's hashed keys (bucket sort), packed
# (id, count) pairs (LSD radix sort), the vocabulary in Python's str order
# (an MSD string sort over three code points at a time), and a fit's rows by
# term number (a bitmap over the terms: BitSorter).

from libc.stdint cimport int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t
from libc.string cimport memcpy
from cpython.mem cimport PyMem_RawCalloc, PyMem_RawFree, PyMem_RawMalloc

from _text_common cimport ucs4_t, Vec, vec_init, vec_free, vec_reserve
from _text_table cimport TermTable, table_term

cdef inline void sort_u64(uint64_t *a, Py_ssize_t n) noexcept nogil:
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


cdef inline void insertion_sort_u64(uint64_t *a, Py_ssize_t n) noexcept nogil:
    cdef Py_ssize_t i, j
    cdef uint64_t x
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


cdef inline int bucket_sort_u64(uint64_t *a, Py_ssize_t n, int key_bits, Vec *tmp,
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
    if shift and n <= 4096:
        # about one key a bucket: the scattered keys are nearly sorted, and one
        # insertion pass costs less than a (mispredicted) branch per bucket
        insertion_sort_u64(out, n)
    elif shift:
        start = 0
        for b in range(n_buckets):
            stop = ends[b]
            if stop - start > 1:
                sort_u64(out + start, stop - start)
            start = stop
    memcpy(a, out, n * sizeof(uint64_t))
    return 0


cdef inline int radix_sort_u64(uint64_t *a, Py_ssize_t n, int shift, int n_bits,
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


cdef inline void sort_keyed(KeyedTerm *a, Py_ssize_t n, KeyedTerm *tmp,
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


cdef inline int sort_terms(const TermTable *t, int64_t *order) noexcept nogil:
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


# -- a fit's rows, sorted by term number through a bitmap ------------------------------

cdef extern from * nogil:
    """
    #if defined(_MSC_VER)
    #include <intrin.h>
    static __inline int fastnb_ctz64(uint64_t x) {
        unsigned long i;
        _BitScanForward64(&i, x);
        return (int) i;
    }
    #else
    #define fastnb_ctz64(x) __builtin_ctzll(x)
    #endif
    """
    # the index of the lowest set bit of x != 0
    int ctz64 "fastnb_ctz64"(uint64_t x)


cdef struct BitSorter:
    uint64_t *bits        # a bit per term: the row's terms
    uint64_t *words       # a bit per word of bits that is not 0
    uint64_t *groups      # a bit per word of words that is not 0
    int32_t *pairs        # per term: its rank and its count in the row, side by
                          # side (one cache line for both)
    Py_ssize_t n_groups


cdef inline int bitsorter_init(BitSorter *s, int64_t n_terms,
                               const int64_t *rank) noexcept nogil:
    """Room for term numbers below n_terms (< 2**31), all bits clear, and each
    term's rank; 0, or -1 when out of memory (bitsorter_free() is still to be
    called)."""
    cdef Py_ssize_t n_bits = (n_terms + 63) >> 6
    cdef Py_ssize_t n_words = (n_bits + 63) >> 6
    cdef int64_t term
    s.n_groups = (n_words + 63) >> 6
    s.bits = <uint64_t *> PyMem_RawCalloc(n_bits + 1, sizeof(uint64_t))
    s.words = <uint64_t *> PyMem_RawCalloc(n_words + 1, sizeof(uint64_t))
    s.groups = <uint64_t *> PyMem_RawCalloc(s.n_groups + 1, sizeof(uint64_t))
    s.pairs = <int32_t *> PyMem_RawMalloc((2 * n_terms + 1) * sizeof(int32_t))
    if s.bits == NULL or s.words == NULL or s.groups == NULL or s.pairs == NULL:
        return -1
    for term in range(n_terms):
        s.pairs[2 * term] = <int32_t> rank[term]
    return 0


cdef inline void bitsorter_free(BitSorter *s) noexcept nogil:
    PyMem_RawFree(s.bits)
    PyMem_RawFree(s.words)
    PyMem_RawFree(s.groups)
    PyMem_RawFree(s.pairs)
    s.bits = s.words = s.groups = NULL
    s.pairs = NULL


cdef inline void bitsorter_add(BitSorter *s, int64_t term, int32_t value) noexcept nogil:
    """Put a term (not in the row yet) and its value in the row."""
    s.pairs[2 * term + 1] = value
    s.bits[term >> 6] |= (<uint64_t> 1) << (term & 63)
    s.words[term >> 12] |= (<uint64_t> 1) << ((term >> 6) & 63)
    s.groups[term >> 18] |= (<uint64_t> 1) << ((term >> 12) & 63)


ctypedef fused count_t:
    int32_t
    int64_t


cdef inline Py_ssize_t bitsorter_take(BitSorter *s, int32_t *ids,
                                      count_t *counts) noexcept nogil:
    """Write the row's terms in increasing order (as rank[term]) with their
    values, and clear the bits; returns how many. A row of n terms costs O(n)
    plus a word per 2**18 possible terms, where a radix sort of ~100 keys
    spends most of its time on its 256 counters, pass after pass."""
    cdef Py_ssize_t g, k = 0
    cdef int64_t w, b, term
    cdef uint64_t group, word, bit
    for g in range(s.n_groups):
        group = s.groups[g]
        s.groups[g] = 0
        while group:
            w = (<int64_t> g << 6) | ctz64(group)
            group &= group - 1
            word = s.words[w]
            s.words[w] = 0
            while word:
                b = (w << 6) | ctz64(word)
                word &= word - 1
                bit = s.bits[b]
                s.bits[b] = 0
                while bit:
                    term = (b << 6) | ctz64(bit)
                    bit &= bit - 1
                    ids[k] = s.pairs[2 * term]
                    counts[k] = s.pairs[2 * term + 1]
                    k += 1
    return k
