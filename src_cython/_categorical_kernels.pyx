"""Categorical Naive Bayes kernels: hashed category counts and a gather predictor.

Design
------
Keys. Every category value is reduced to a (tag, 64-bit key) pair that is the
same in every process, platform and Python version (Python's salted ``hash()``
is never used):

* integers in the int64 range: tag INT, key = the value itself (bijective, so
  integer keys are exact); integers in [2**63, 2**64): tag UINT, key = value;
  bools and integral floats are the equal integer (True == 1 == 1.0, as in Python);
* other floats: tag FLOAT, key = the IEEE-754 bits; NaN is a missing value;
* str: tag STR, key = a fixed-seed FNV-1a hash of the code points, finalised by
  murmur3's fmix64 (the same for any internal width of the string);
* bytes: tag BYTES, the same hash over the bytes; ints beyond 64 bits: tag BIGINT,
  the hash of their decimal text; any other hashable: tag OTHER, the hash of
  ``module.qualname:repr(value)``.

The open-addressing tables compare (tag, key) in full; their slot is
``fmix64(key ^ tag * golden)``. For str/bytes/other values the Python layer also
compares the values themselves once per distinct value, so counts are exact.

Fit. Code features (non-negative integers below a fixed limit) are counted
straight into dense (n_codes, k) arrays by row chunks whose number depends only
on the data's shape; chunks are summed in chunk order, so the result is the same
bits for any thread count. Integer columns of small codes (below 64) are checked
and counted in that single pass; other integer columns get a range pass first.
Chunks (and predict rows) are split statically among the threads, as in every
fastnb kernel: each writes only its own output, so no result depends on which
thread ran it. Other numeric features are counted per
feature, in row order, into a growable hash table (features run in parallel; each
is sequential, so again thread-count independent). Object columns are keyed once
per distinct value with the GIL, then counted without it.

Feature hashing (``hash_buckets``). The key's slot hash modulo the bucket count
is the category: fixed memory, no per-value state, collisions accepted.

Predict. The log-probability table of feature j is laid out (n_cat_j + 1, kp),
kp = k padded to 4 or 8 (for k <= 8) so that the class accumulators stay in
registers: one lookup gives all k classes contiguously, and the extra last row holds the
smoothed probability of an unseen category. Each row sums its features' rows in
feature order (scikit-learn's order), adds the class log prior, then fuses the
arg-max or the log-sum-exp.
"""

from cython.parallel cimport prange, parallel
from libc.stdint cimport (
    int8_t, uint8_t, int16_t, uint16_t, int32_t, uint32_t, int64_t, uint64_t,
)
from cpython.mem cimport PyMem_RawMalloc, PyMem_RawCalloc, PyMem_RawRealloc, PyMem_RawFree
from libc.string cimport memcpy, memset
from libc.math cimport floor, log, INFINITY

from _common cimport (
    intp_t, finish_row, MODE_ARGMAX, MODE_JLL, MODE_LOG_PROBA, MODE_PROBA,
)

import numpy as np

# PyMem_Raw* are malloc-like, safe without the GIL, and seen by tracemalloc, so the
# benchmarks can report the hash tables' memory.
cdef inline void* malloc(size_t size) noexcept nogil:
    return PyMem_RawMalloc(size)


cdef inline void* calloc(size_t n, size_t size) noexcept nogil:
    return PyMem_RawCalloc(n, size)


cdef inline void* realloc(void* p, size_t size) noexcept nogil:
    return PyMem_RawRealloc(p, size)


cdef inline void free(void* p) noexcept nogil:
    PyMem_RawFree(p)


cdef extern from "Python.h":
    Py_ssize_t PyUnicode_GET_LENGTH(object)
    int PyUnicode_KIND(object)
    void* PyUnicode_DATA(object)
    char* PyBytes_AS_STRING(object)
    Py_ssize_t PyBytes_GET_SIZE(object)
    long long PyLong_AsLongLongAndOverflow(object, int*) except? -1
    unsigned long long PyLong_AsUnsignedLongLong(object) except? -1


ctypedef fused value_t:
    int8_t
    uint8_t
    int16_t
    uint16_t
    int32_t
    uint32_t
    int64_t
    uint64_t
    float
    double

# Tags of the key kinds (0 marks an empty table slot).
cdef enum:
    TAG_EMPTY = 0
    TAG_INT = 1
    TAG_UINT = 2
    TAG_FLOAT = 3
    TAG_STR = 4
    TAG_BYTES = 5
    TAG_BIGINT = 6
    TAG_OTHER = 7

# How a predict kernel reads a feature's column.
cdef enum:
    FEAT_CODE = 0       # the value is the category index (out of range: unseen)
    FEAT_HASH = 1       # the value's key is looked up in the feature's table
    FEAT_RESOLVED = 2   # already an index: -1 missing, n_cat unseen
    FEAT_BUCKET = 3     # the value's key hashed into n_cat buckets (feature hashing)

cdef extern from *:
    """
    #include <math.h>
    #include <stdint.h>
    #include <string.h>
    /* exp(acc[c] - top) for 8 lanes, each acc[c] <= top (so every x <= 0).
       Cody-Waite reduction by ln 2 and a degree-13 Taylor polynomial (error below
       1e-17 relative on |r| <= ln2/2), scaled by 2^n in two halves so that results
       down to the subnormals are right. Pure arithmetic in a fixed 8-lane loop, so
       the compiler vectorises it; no FMA contraction (C11 mode), so the portable and
       AVX2 builds give the same bits. */
    static inline void fastnb_exp_shifted8(const double* acc, double top, double* out) {
        const double log2e = 1.4426950408889634;
        const double ln2_hi = 6.93147180369123816490e-01;
        const double ln2_lo = 1.90821492927058770002e-10;
        const double shifter = 6755399441055744.0;  /* 1.5 * 2^52 */
        for (int c = 0; c < 8; c++) {
            double x = acc[c] - top;
            x = x < -745.5 ? -745.5 : x;
            double nd = x * log2e + shifter;
            int64_t bits;
            memcpy(&bits, &nd, 8);
            double n = nd - shifter;
            double r = (x - n * ln2_hi) - n * ln2_lo;
            double p = 1.0 / 6227020800.0;
            p = p * r + 1.0 / 479001600.0;
            p = p * r + 1.0 / 39916800.0;
            p = p * r + 1.0 / 3628800.0;
            p = p * r + 1.0 / 362880.0;
            p = p * r + 1.0 / 40320.0;
            p = p * r + 1.0 / 5040.0;
            p = p * r + 1.0 / 720.0;
            p = p * r + 1.0 / 120.0;
            p = p * r + 1.0 / 24.0;
            p = p * r + 1.0 / 6.0;
            p = p * r + 0.5;
            p = p * r + 1.0;
            p = p * r + 1.0;
            int64_t ni = bits - (int64_t)0x4338000000000000LL;
            /* half = floor(n / 2), through the same shifter (AVX2 has no 64-bit
               arithmetic shift) */
            double hd = floor(n * 0.5) + shifter;
            int64_t half;
            memcpy(&half, &hd, 8);
            half -= (int64_t)0x4338000000000000LL;
            int64_t e1 = (half + 1023) << 52;
            int64_t e2 = (ni - half + 1023) << 52;
            double s1, s2;
            memcpy(&s1, &e1, 8);
            memcpy(&s2, &e2, 8);
            out[c] = p * s1 * s2;
        }
    }
    """
    void fastnb_exp_shifted8(const double* acc, double top, double* out) noexcept nogil


def exp_nonpositive(const double[::1] x):
    """exp(x) for x <= 0 through the kernels' vectorised exp (for tests)."""
    cdef Py_ssize_t n = x.shape[0]
    cdef Py_ssize_t i, c
    cdef double lanes[8]
    cdef double e[8]
    out_arr = np.empty(n, dtype=np.float64)
    cdef double[::1] out = out_arr
    for i in range(0, n, 8):
        for c in range(8):
            lanes[c] = x[i + c] if i + c < n else 0.0
        fastnb_exp_shifted8(lanes, 0.0, e)
        for c in range(8):
            if i + c < n:
                out[i + c] = e[c]
    return out_arr


cdef inline bint finish_row8(const double* acc, Py_ssize_t k, int mode,
                             double* row_out) noexcept nogil:
    """finish_row for k <= 8 with the vectorised exp; False when the row is not
    finite (the caller then uses finish_row, which gives NaN as it documents)."""
    cdef double lanes[8]
    cdef double e[8]
    cdef double top = acc[0]
    cdef double total = 0.0
    cdef double scale
    cdef Py_ssize_t c
    for c in range(k):
        if acc[c] != acc[c]:
            return False
        if acc[c] > top:
            top = acc[c]
    if top == INFINITY or top == -INFINITY:
        return False
    for c in range(8):
        lanes[c] = acc[c] if c < k else top
    fastnb_exp_shifted8(lanes, top, e)
    for c in range(k):
        total = total + e[c]
    if mode == MODE_PROBA:
        scale = 1.0 / total
        for c in range(k):
            row_out[c] = e[c] * scale
    else:
        scale = top + log(total)
        for c in range(k):
            row_out[c] = acc[c] - scale
    return True


TAGS = {
    "empty": TAG_EMPTY, "int": TAG_INT, "uint": TAG_UINT, "float": TAG_FLOAT,
    "str": TAG_STR, "bytes": TAG_BYTES, "bigint": TAG_BIGINT, "other": TAG_OTHER,
}
FEATURE_MODES = {"code": FEAT_CODE, "hash": FEAT_HASH, "resolved": FEAT_RESOLVED,
                 "bucket": FEAT_BUCKET}

cdef uint64_t FNV_OFFSET = 0xcbf29ce484222325ULL
cdef uint64_t FNV_PRIME = 0x100000001b3ULL


# -- hashing ---------------------------------------------------------------------------
cdef inline uint64_t fmix64(uint64_t h) noexcept nogil:
    h ^= h >> 33
    h *= 0xff51afd7ed558ccdULL
    h ^= h >> 33
    h *= 0xc4ceb9fe1a85ec53ULL
    h ^= h >> 33
    return h


cdef inline uint64_t slot_hash(uint8_t tag, uint64_t key) noexcept nogil:
    return fmix64(key ^ (<uint64_t>tag * 0x9E3779B97F4A7C15ULL))


cdef inline intp_t bucket_of(uint8_t tag, uint64_t key, intp_t n_buckets) noexcept nogil:
    """Stable bucket of a key for feature hashing."""
    return <intp_t>(slot_hash(tag, key) % <uint64_t>n_buckets)


cdef uint64_t hash_units(const void* data, int width, Py_ssize_t n) noexcept nogil:
    """FNV-1a over n units of 1, 2 or 4 bytes (code points or bytes), then fmix64."""
    cdef uint64_t h = FNV_OFFSET
    cdef Py_ssize_t i
    if width == 1:
        for i in range(n):
            h = (h ^ (<const uint8_t*>data)[i]) * FNV_PRIME
    elif width == 2:
        for i in range(n):
            h = (h ^ (<const unsigned short*>data)[i]) * FNV_PRIME
    else:
        for i in range(n):
            h = (h ^ (<const unsigned int*>data)[i]) * FNV_PRIME
    return fmix64(h ^ <uint64_t>n)


cdef uint64_t str_key(object s):
    return hash_units(PyUnicode_DATA(s), PyUnicode_KIND(s), PyUnicode_GET_LENGTH(s))


cdef uint64_t bytes_key(object b):
    return hash_units(PyBytes_AS_STRING(b), 1, PyBytes_GET_SIZE(b))


cdef inline int double_key(double d, uint8_t* tag, uint64_t* key) noexcept nogil:
    """Key of a float; return 1 when it is NaN (missing), else 0."""
    cdef uint64_t bits
    if d != d:
        return 1
    if d == floor(d) and d >= -9223372036854775808.0 and d < 9223372036854775808.0:
        tag[0] = TAG_INT
        key[0] = <uint64_t>(<int64_t>d)
    elif d == floor(d) and d >= 9223372036854775808.0 and d < 18446744073709551616.0:
        tag[0] = TAG_UINT
        key[0] = <uint64_t>d
    else:
        if d == 0.0:
            d = 0.0
        memcpy(&bits, &d, 8)
        tag[0] = TAG_FLOAT
        key[0] = bits
    return 0


cdef inline int numeric_key(value_t v, uint8_t* tag, uint64_t* key) noexcept nogil:
    """Key of a numeric value; return 1 when it is missing (NaN), else 0."""
    if value_t is float or value_t is double:
        return double_key(<double>v, tag, key)
    elif value_t is uint64_t:
        if v < 9223372036854775808ULL:
            tag[0] = TAG_INT
        else:
            tag[0] = TAG_UINT
        key[0] = <uint64_t>v
        return 0
    else:
        tag[0] = TAG_INT
        key[0] = <uint64_t>(<int64_t>v)
        return 0


def _is_missing_object(value):
    name = type(value).__name__
    return name == "NAType" or name == "NaTType"


cdef int object_key(object value, uint8_t* tag, uint64_t* key) except -1:
    """Key of a Python value; return 1 when it is missing (None, NaN, pd.NA, NaT)."""
    cdef int overflow = 0
    cdef long long as_ll
    cdef type t = type(value)
    if t is str:
        tag[0] = TAG_STR
        key[0] = str_key(value)
        return 0
    if t is int or t is bool:
        return int_key(value, tag, key)
    if t is float:
        return double_key(<double>value, tag, key)
    if value is None:
        return 1
    if t is bytes:
        tag[0] = TAG_BYTES
        key[0] = bytes_key(value)
        return 0
    if isinstance(value, str):
        tag[0] = TAG_STR
        key[0] = str_key(str(value))
        return 0
    if isinstance(value, bytes):
        tag[0] = TAG_BYTES
        key[0] = bytes_key(bytes(value))
        return 0
    if isinstance(value, (np.integer, np.bool_, int)):
        return int_key(int(value), tag, key)
    if isinstance(value, (np.floating, float)):
        return double_key(<double>float(value), tag, key)
    if _is_missing_object(value):
        return 1
    hash(value)  # raises TypeError for unhashable values
    tag[0] = TAG_OTHER
    key[0] = str_key(f"{t.__module__}.{t.__qualname__}:{value!r}")
    return 0


cdef int int_key(object value, uint8_t* tag, uint64_t* key) except -1:
    cdef int overflow = 0
    cdef long long as_ll = PyLong_AsLongLongAndOverflow(value, &overflow)
    if overflow == 0:
        tag[0] = TAG_INT
        key[0] = <uint64_t>as_ll
    elif overflow > 0 and value < 18446744073709551616:
        tag[0] = TAG_UINT
        key[0] = PyLong_AsUnsignedLongLong(value)
    else:
        tag[0] = TAG_BIGINT
        key[0] = str_key(str(value))
    return 0


def value_key(value):
    """(tag, key) of one value, or None when it is a missing value."""
    cdef uint8_t tag = 0
    cdef uint64_t key = 0
    if object_key(value, &tag, &key):
        return None
    return int(tag), int(key)


# -- a growable open-addressing table (nogil) -------------------------------------------
cdef struct Table:
    uint64_t* keys
    uint8_t* tags
    int64_t* vals
    int64_t mask
    int64_t used


cdef int table_init(Table* t, int64_t size) noexcept nogil:
    t.keys = <uint64_t*>malloc(size * sizeof(uint64_t))
    t.tags = <uint8_t*>calloc(size, sizeof(uint8_t))
    t.vals = <int64_t*>malloc(size * sizeof(int64_t))
    t.mask = size - 1
    t.used = 0
    if t.keys == NULL or t.tags == NULL or t.vals == NULL:
        return -1
    return 0


cdef void table_free(Table* t) noexcept nogil:
    free(t.keys)
    free(t.tags)
    free(t.vals)
    t.keys = NULL
    t.tags = NULL
    t.vals = NULL


cdef inline int64_t table_find(
    const uint64_t* keys, const uint8_t* tags, const int64_t* vals, int64_t mask,
    uint8_t tag, uint64_t key,
) noexcept nogil:
    """Value stored for (tag, key), or -1."""
    cdef int64_t slot = <int64_t>(slot_hash(tag, key) & <uint64_t>mask)
    while tags[slot] != TAG_EMPTY:
        if keys[slot] == key and tags[slot] == tag:
            return vals[slot]
        slot = (slot + 1) & mask
    return -1


cdef inline int64_t table_slot(Table* t, uint8_t tag, uint64_t key) noexcept nogil:
    """Slot holding (tag, key), or the empty slot where it would go."""
    cdef int64_t slot = <int64_t>(slot_hash(tag, key) & <uint64_t>t.mask)
    while t.tags[slot] != TAG_EMPTY:
        if t.keys[slot] == key and t.tags[slot] == tag:
            return slot
        slot = (slot + 1) & t.mask
    return slot


cdef int table_grow(Table* t) noexcept nogil:
    cdef Table bigger
    cdef int64_t i, slot
    if table_init(&bigger, 2 * (t.mask + 1)) != 0:
        table_free(&bigger)
        return -1
    for i in range(t.mask + 1):
        if t.tags[i] != TAG_EMPTY:
            slot = table_slot(&bigger, t.tags[i], t.keys[i])
            bigger.tags[slot] = t.tags[i]
            bigger.keys[slot] = t.keys[i]
            bigger.vals[slot] = t.vals[i]
    bigger.used = t.used
    table_free(t)
    t[0] = bigger
    return 0


cdef inline int64_t table_insert(Table* t, uint8_t tag, uint64_t key, int64_t val) noexcept nogil:
    """Insert (tag, key) -> val if absent; return the stored value, or -2 on no memory."""
    cdef int64_t slot = table_slot(t, tag, key)
    if t.tags[slot] != TAG_EMPTY:
        return t.vals[slot]
    if 2 * (t.used + 1) > t.mask + 1:
        if table_grow(t) != 0:
            return -2
        slot = table_slot(t, tag, key)
    t.tags[slot] = tag
    t.keys[slot] = key
    t.vals[slot] = val
    t.used += 1
    return val


# -- growable per-feature category store -------------------------------------------------
cdef struct Locals:
    uint8_t* tags
    uint64_t* keys
    double* counts      # (capacity, k)
    int64_t n
    int64_t capacity


cdef int locals_reserve(Locals* loc, int64_t need, Py_ssize_t k) noexcept nogil:
    cdef int64_t cap = loc.capacity
    cdef void* p
    if need <= cap:
        return 0
    while cap < need:
        cap = 2 * cap if cap > 0 else 64
    p = realloc(loc.tags, cap * sizeof(uint8_t))
    if p == NULL:
        return -1
    loc.tags = <uint8_t*>p
    p = realloc(loc.keys, cap * sizeof(uint64_t))
    if p == NULL:
        return -1
    loc.keys = <uint64_t*>p
    p = realloc(loc.counts, cap * k * sizeof(double))
    if p == NULL:
        return -1
    loc.counts = <double*>p
    memset(&loc.counts[loc.capacity * k], 0, (cap - loc.capacity) * k * sizeof(double))
    loc.capacity = cap
    return 0


cdef int hash_count_column(
    const value_t[:, ::1] X,      # IN: (n, d)
    Py_ssize_t col,               # IN: which column
    const intp_t* y,              # IN: (n,) class codes
    const double* w,              # IN: (n,) weights or NULL
    Py_ssize_t k,
    Locals* loc,                  # OUT: distinct keys in first-seen order, counts
) noexcept nogil:
    cdef Table t
    cdef Py_ssize_t i
    cdef Py_ssize_t n = X.shape[0]
    cdef uint8_t tag = 0
    cdef uint64_t key = 0
    cdef int64_t idx
    if table_init(&t, 1024) != 0:
        table_free(&t)
        return -1
    for i in range(n):
        if numeric_key(X[i, col], &tag, &key):
            continue
        idx = table_insert(&t, tag, key, loc.n)
        if idx == -2:
            table_free(&t)
            return -1
        if idx == loc.n:
            if locals_reserve(loc, loc.n + 1, k) != 0:
                table_free(&t)
                return -1
            loc.tags[idx] = tag
            loc.keys[idx] = key
            loc.n += 1
        loc.counts[idx * k + y[i]] += 1.0 if w == NULL else w[i]
    table_free(&t)
    return 0


# -- fit kernels ------------------------------------------------------------------------
def column_ranges(const value_t[:, ::1] X):
    """Per column: (min, max) of the non-missing values as float64, and whether every
    non-missing value is integral. Columns with no value get (inf, -inf)."""
    cdef Py_ssize_t n = X.shape[0]
    cdef Py_ssize_t d = X.shape[1]
    cdef Py_ssize_t i, j
    cdef double v
    lo_arr = np.full(d, INFINITY)
    hi_arr = np.full(d, -INFINITY)
    integral_arr = np.ones(d, dtype=np.uint8)
    cdef double[::1] lo = lo_arr
    cdef double[::1] hi = hi_arr
    cdef uint8_t[::1] integral = integral_arr
    with nogil:
        for i in range(n):
            for j in range(d):
                v = <double>X[i, j]
                if value_t is float or value_t is double:
                    if v != v:
                        continue
                    if v != floor(v):
                        integral[j] = 0
                if v < lo[j]:
                    lo[j] = v
                if v > hi[j]:
                    hi[j] = v
    return lo_arr, hi_arr, integral_arr.astype(bool)


def int_umax(const value_t[:, ::1] X, Py_ssize_t n_chunks, int n_threads):
    """Per column, the largest value seen as uint64 (negatives count as huge), so
    ``umax < limit`` says every value is a code in [0, limit). Integer X only."""
    cdef Py_ssize_t n = X.shape[0]
    cdef Py_ssize_t d = X.shape[1]
    cdef Py_ssize_t chunk, j
    if n_chunks < 1:
        n_chunks = 1
    # Each chunk's row is padded to whole cache lines plus one: no false sharing.
    parts_arr = np.zeros((n_chunks, (d + 7) // 8 * 8 + 8), dtype=np.uint64)
    cdef uint64_t[:, ::1] parts = parts_arr
    if value_t is float or value_t is double:
        raise TypeError("int_umax takes integer X")
    with nogil:
        if n_threads <= 1 or n_chunks == 1:
            for chunk in range(n_chunks):
                umax_chunk(X, chunk * n // n_chunks, (chunk + 1) * n // n_chunks,
                           &parts[chunk, 0])
        else:
            for chunk in prange(n_chunks, schedule='static', num_threads=n_threads):
                umax_chunk(X, chunk * n // n_chunks, (chunk + 1) * n // n_chunks,
                           &parts[chunk, 0])
    return parts_arr[:, :d].max(axis=0)


cdef void umax_chunk(const value_t[:, ::1] X, Py_ssize_t start, Py_ssize_t stop,
                     uint64_t* top) noexcept nogil:
    cdef Py_ssize_t i, j
    cdef Py_ssize_t d = X.shape[1]
    cdef uint64_t u
    cdef const value_t* row
    for i in range(start, stop):
        row = &X[i, 0]
        for j in range(d):
            if value_t is float or value_t is double:
                u = 0
            else:
                u = <uint64_t>(<int64_t>row[j])
            top[j] = u if u > top[j] else top[j]


cdef void count_capped_chunk(
    const value_t[:, ::1] X,
    uint64_t cap,
    const intp_t* y,
    const double* w,
    Py_ssize_t k,
    Py_ssize_t start,
    Py_ssize_t stop,
    double* counts,       # OUT: (d, cap, k) this chunk's counts
    uint64_t* top,        # OUT: (d,) largest code below cap seen
    uint8_t* over,        # OUT: (d,) whether a value outside [0, cap) was seen
) noexcept nogil:
    cdef Py_ssize_t i, j
    cdef Py_ssize_t d = X.shape[1]
    cdef const value_t* row
    cdef uint64_t u
    cdef double wi
    cdef intp_t c
    for i in range(start, stop):
        c = y[i]
        wi = 1.0 if w == NULL else w[i]
        row = &X[i, 0]
        for j in range(d):
            if value_t is float or value_t is double:
                u = cap
            else:
                u = <uint64_t>(<int64_t>row[j])
            if u < cap:
                counts[(j * cap + u) * k + c] += wi
                if u > top[j]:
                    top[j] = u
            else:
                over[j] = 1


def count_codes_capped(
    const value_t[:, ::1] X,          # IN: (n, d) integers
    Py_ssize_t cap,                   # IN: codes below this are counted
    const intp_t[::1] y,              # IN: (n,) class codes
    const double[::1] sample_weight,  # IN: (n,) or None
    Py_ssize_t k,
    Py_ssize_t n_chunks,
    int n_threads,
):
    """One pass that both checks and counts small integer codes.

    Returns ``(counts, n_codes, over)``: counts (d, cap, k) of the values in
    [0, cap), n_codes (d,) = largest such value + 1 (0 if none), and over (d,)
    True for a column holding any value outside [0, cap) (its counts are then
    incomplete and the caller counts it another way). Chunks as in count_codes.
    """
    cdef Py_ssize_t n = X.shape[0]
    cdef Py_ssize_t d = X.shape[1]
    cdef Py_ssize_t chunk, t, j
    cdef Py_ssize_t total = d * cap * k
    cdef Py_ssize_t stride = (total + 7) // 8 * 8 + 8
    cdef Py_ssize_t side = (d + 7) // 8 * 8 + 8
    cdef const double* w = NULL
    if value_t is float or value_t is double:
        raise TypeError("count_codes_capped takes integer X")
    if sample_weight is not None:
        w = &sample_weight[0]
    if n_chunks < 1:
        n_chunks = 1
    chunk_counts_arr = np.zeros((n_chunks, stride), dtype=np.float64)
    chunk_top_arr = np.zeros((n_chunks, side), dtype=np.uint64)
    chunk_over_arr = np.zeros((n_chunks, side * 8), dtype=np.uint8)
    counts_arr = np.zeros((d, cap, k), dtype=np.float64)
    cdef double[:, ::1] chunk_counts = chunk_counts_arr
    cdef uint64_t[:, ::1] chunk_top = chunk_top_arr
    cdef uint8_t[:, ::1] chunk_over = chunk_over_arr
    cdef double* counts = NULL
    cdef double[:, :, ::1] counts_view = counts_arr
    if n == 0 or d == 0:
        return counts_arr, np.zeros(d, dtype=np.intp), np.zeros(d, dtype=bool)
    counts = &counts_view[0, 0, 0]
    with nogil:
        if n_threads <= 1 or n_chunks == 1:
            for chunk in range(n_chunks):
                count_capped_chunk(X, cap, &y[0], w, k,
                                   chunk * n // n_chunks, (chunk + 1) * n // n_chunks,
                                   &chunk_counts[chunk, 0], &chunk_top[chunk, 0],
                                   &chunk_over[chunk, 0])
        else:
            for chunk in prange(n_chunks, schedule='static', num_threads=n_threads):
                count_capped_chunk(X, cap, &y[0], w, k,
                                   chunk * n // n_chunks, (chunk + 1) * n // n_chunks,
                                   &chunk_counts[chunk, 0], &chunk_top[chunk, 0],
                                   &chunk_over[chunk, 0])
        for chunk in range(n_chunks):
            for t in range(total):
                counts[t] = counts[t] + chunk_counts[chunk, t]
    # Integers have no missing value: a column that is not `over` saw some code.
    n_codes = chunk_top_arr[:, :d].max(axis=0).astype(np.intp) + 1
    over = chunk_over_arr[:, :d].any(axis=0)
    return counts_arr, n_codes, over


cdef void count_codes_chunk(
    const value_t[:, ::1] X,
    const intp_t[::1] cols,
    const intp_t[::1] offs,         # offset of column jj's (n_codes, k) block
    const intp_t* y,
    const double* w,
    Py_ssize_t k,
    Py_ssize_t start,
    Py_ssize_t stop,
    double* counts,                 # OUT: this chunk's counts
) noexcept nogil:
    cdef Py_ssize_t i, jj, code
    cdef Py_ssize_t m = cols.shape[0]
    cdef double wi, v
    cdef intp_t c
    for i in range(start, stop):
        c = y[i]
        wi = 1.0 if w == NULL else w[i]
        for jj in range(m):
            if value_t is float or value_t is double:
                v = X[i, cols[jj]]
                if v != v:
                    continue
                code = <Py_ssize_t>v
            else:
                code = <Py_ssize_t>X[i, cols[jj]]
            counts[offs[jj] + code * k + c] += wi


def count_codes(
    const value_t[:, ::1] X,          # IN: (n, d)
    const intp_t[::1] cols,           # IN: the code columns to count
    const intp_t[::1] n_codes,        # IN: max code + 1 of each of them
    const intp_t[::1] y,              # IN: (n,) class codes
    const double[::1] sample_weight,  # IN: (n,) or None
    Py_ssize_t k,
    Py_ssize_t n_chunks,
    int n_threads,
):
    """Dense counts of code columns: returns (counts, offs), where column jj's counts
    are ``counts[offs[jj]:offs[jj] + n_codes[jj] * k]`` laid out (n_codes, k).

    Rows are cut into ``n_chunks`` chunks (a function of the shape only), each
    counted into its own buffer; buffers are summed in chunk order.
    """
    cdef Py_ssize_t n = X.shape[0]
    cdef Py_ssize_t m = cols.shape[0]
    cdef Py_ssize_t jj, chunk, t
    cdef Py_ssize_t total = 0
    cdef const double* w = NULL
    offs_arr = np.zeros(m, dtype=np.intp)
    cdef intp_t[::1] offs = offs_arr
    for jj in range(m):
        offs[jj] = total
        total += n_codes[jj] * k
    if sample_weight is not None:
        w = &sample_weight[0]
    if n_chunks < 1:
        n_chunks = 1
    counts_arr = np.zeros(total, dtype=np.float64)
    if m == 0 or n == 0 or total == 0:
        return counts_arr, offs_arr
    # Each chunk's buffer is padded to whole cache lines plus one.
    chunk_counts_arr = np.zeros((n_chunks, (total + 7) // 8 * 8 + 8), dtype=np.float64)
    cdef double[:, ::1] chunk_counts = chunk_counts_arr
    cdef double[::1] counts = counts_arr
    with nogil:
        if n_threads <= 1 or n_chunks == 1:
            for chunk in range(n_chunks):
                count_codes_chunk(X, cols, offs, &y[0], w, k,
                                  chunk * n // n_chunks, (chunk + 1) * n // n_chunks,
                                  &chunk_counts[chunk, 0])
        else:
            for chunk in prange(n_chunks, schedule='static', num_threads=n_threads):
                count_codes_chunk(X, cols, offs, &y[0], w, k,
                                  chunk * n // n_chunks, (chunk + 1) * n // n_chunks,
                                  &chunk_counts[chunk, 0])
        for chunk in range(n_chunks):
            for t in range(total):
                counts[t] = counts[t] + chunk_counts[chunk, t]
    return counts_arr, offs_arr


def hash_count(
    const value_t[:, ::1] X,          # IN: (n, d)
    const intp_t[::1] cols,           # IN: the columns to count through hash tables
    const intp_t[::1] y,              # IN: (n,) class codes
    const double[::1] sample_weight,  # IN: (n,) or None
    Py_ssize_t k,
    int n_threads,
):
    """Count each column's distinct values per class in a growable hash table.

    Returns one ``(tags, keys, counts)`` per column: the distinct keys in first-seen
    order and their (n_distinct, k) counts. Each column is counted in row order by
    one thread, so the result does not depend on the thread count.
    """
    cdef Py_ssize_t m = cols.shape[0]
    cdef Py_ssize_t jj
    cdef const double* w = NULL
    cdef int failed = 0
    cdef Locals* locs = <Locals*>calloc(m if m > 0 else 1, sizeof(Locals))
    if locs == NULL:
        raise MemoryError()
    if sample_weight is not None:
        w = &sample_weight[0]
    try:
        with nogil:
            if n_threads <= 1 or m <= 1:
                for jj in range(m):
                    failed += hash_count_column(X, cols[jj], &y[0], w, k, &locs[jj]) != 0
            else:
                for jj in prange(m, schedule='static', num_threads=n_threads):
                    failed += hash_count_column(X, cols[jj], &y[0], w, k, &locs[jj]) != 0
        if failed:
            raise MemoryError("out of memory in the categorical hash tables")
        result = []
        for jj in range(m):
            n_loc = locs[jj].n
            tags_arr = np.empty(n_loc, dtype=np.uint8)
            keys_arr = np.empty(n_loc, dtype=np.uint64)
            counts_arr = np.empty((n_loc, k), dtype=np.float64)
            if n_loc:
                copy_locals(&locs[jj], tags_arr, keys_arr, counts_arr, k)
            result.append((tags_arr, keys_arr, counts_arr))
        return result
    finally:
        for jj in range(m):
            free(locs[jj].tags)
            free(locs[jj].keys)
            free(locs[jj].counts)
        free(locs)


cdef void copy_locals(Locals* loc, uint8_t[::1] tags, uint64_t[::1] keys,
                      double[:, ::1] counts, Py_ssize_t k) noexcept:
    memcpy(&tags[0], loc.tags, loc.n * sizeof(uint8_t))
    memcpy(&keys[0], loc.keys, loc.n * sizeof(uint64_t))
    memcpy(&counts[0, 0], loc.counts, loc.n * k * sizeof(double))


def encode_objects(object[:] column, int32_t[::1] ids_out):
    """Key each distinct value of an object column once, with the GIL.

    Writes the local index of each row's value into ``ids_out`` (-1 for a missing
    value) and returns ``(values, tags, keys)`` of the distinct values in
    first-seen order. Distinct values are told apart by Python equality (a dict),
    so 1, 1.0 and True are one value, as in Python. Unhashable values raise
    TypeError from the dict.
    """
    cdef Py_ssize_t n = column.shape[0]
    cdef Py_ssize_t i
    cdef dict seen = {}
    cdef list values = []
    cdef list tags = []
    cdef list keys = []
    cdef uint8_t tag = 0
    cdef uint64_t key = 0
    cdef object value, found
    cdef int32_t idx
    for i in range(n):
        value = column[i]
        found = seen.get(value)
        if found is None:
            if object_key(value, &tag, &key):
                idx = -1
            else:
                idx = len(values)
                values.append(value)
                tags.append(tag)
                keys.append(key)
            seen[value] = idx
            ids_out[i] = idx
        else:
            ids_out[i] = <int32_t>found
    return (values, np.array(tags, dtype=np.uint8),
            np.array(keys, dtype=np.uint64))


def encode_object_rows(object[:, :] X, const intp_t[::1] cols, int32_t[:, ::1] ids_out):
    """``encode_objects`` for several columns of a 2-D object array, read row by row.

    Reading in row-major order visits the Python objects in the order they were
    usually created, which is much kinder to the caches than column by column.
    ``ids_out`` is (len(cols), n). Returns one (values, tags, keys) per column; on an
    unhashable value raises TypeError whose ``args[1]`` is the column position.
    """
    cdef Py_ssize_t n = X.shape[0]
    cdef Py_ssize_t m = cols.shape[0]
    cdef Py_ssize_t i, jj
    cdef list seens = [{} for _ in range(m)]
    cdef list values = [[] for _ in range(m)]
    cdef list tags = [[] for _ in range(m)]
    cdef list keys = [[] for _ in range(m)]
    cdef dict seen
    cdef list col_values
    cdef uint8_t tag = 0
    cdef uint64_t key = 0
    cdef object value, found
    cdef int32_t idx
    for i in range(n):
        for jj in range(m):
            value = X[i, cols[jj]]
            seen = <dict>seens[jj]
            try:
                found = seen.get(value)
            except TypeError as error:
                raise TypeError(str(error), jj) from None
            if found is None:
                if object_key(value, &tag, &key):
                    idx = -1
                else:
                    col_values = <list>values[jj]
                    idx = len(col_values)
                    col_values.append(value)
                    (<list>tags[jj]).append(tag)
                    (<list>keys[jj]).append(key)
                seen[value] = idx
                ids_out[jj, i] = idx
            else:
                ids_out[jj, i] = <int32_t>found
    return [(values[jj], np.array(tags[jj], dtype=np.uint8),
             np.array(keys[jj], dtype=np.uint64)) for jj in range(m)]


def resolve_object_rows(
    object[:, :] X,                    # IN: (n, d) values
    const int32_t[::1] modes, const intp_t[::1] n_cat,
    const uint64_t[::1] tkeys, const uint8_t[::1] ttags, const int64_t[::1] tvals,
    const intp_t[::1] toff, const intp_t[::1] tmask,
    list categories,                   # IN: each feature's category values
    int32_t[:, ::1] out,               # OUT: (n, d) resolved indices
):
    """``resolve_objects`` for every column of a 2-D object array, row by row."""
    cdef Py_ssize_t n = X.shape[0]
    cdef Py_ssize_t d = X.shape[1]
    cdef Py_ssize_t i, j
    cdef list caches = [{} for _ in range(d)]
    cdef dict cache
    cdef uint8_t tag = 0
    cdef uint64_t key = 0
    cdef int64_t found
    cdef object value, hit
    cdef int32_t idx
    for i in range(n):
        for j in range(d):
            value = X[i, j]
            cache = <dict>caches[j]
            try:
                hit = cache.get(value)
            except TypeError as error:
                raise TypeError(str(error), j) from None
            if hit is None:
                if object_key(value, &tag, &key):
                    idx = -1
                elif modes[j] == FEAT_CODE:
                    idx = <int32_t>key if (tag == TAG_INT and key < <uint64_t>n_cat[j]) else <int32_t>n_cat[j]
                elif modes[j] == FEAT_BUCKET:
                    idx = <int32_t>bucket_of(tag, key, n_cat[j])
                else:
                    found = table_find(&tkeys[toff[j]], &ttags[toff[j]], &tvals[toff[j]],
                                       tmask[j], tag, key)
                    if found < 0:
                        idx = <int32_t>n_cat[j]
                    elif tag >= TAG_STR and not bool(categories[j][found] == value):
                        idx = <int32_t>n_cat[j]
                    else:
                        idx = <int32_t>found
                cache[value] = idx
                out[i, j] = idx
            else:
                out[i, j] = <int32_t>hit


def bucket_count(
    const value_t[:, ::1] X,          # IN: (n, d)
    const intp_t[::1] cols,           # IN: the columns to count
    const intp_t[::1] y,              # IN: (n,) class codes
    const double[::1] sample_weight,  # IN: (n,) or None
    Py_ssize_t k,
    intp_t n_buckets,
    int n_threads,
):
    """Feature hashing: (len(cols), n_buckets, k) counts of each value's bucket.

    Memory is fixed by n_buckets, whatever the number of distinct values. Each
    column is counted in row order by one thread.
    """
    cdef Py_ssize_t n = X.shape[0]
    cdef Py_ssize_t m = cols.shape[0]
    cdef Py_ssize_t i, jj
    cdef const double* w = NULL
    cdef uint8_t tag = 0
    cdef uint64_t key = 0
    counts_arr = np.zeros((m, n_buckets, k), dtype=np.float64)
    cdef double[:, :, ::1] counts = counts_arr
    if sample_weight is not None:
        w = &sample_weight[0]
    with nogil:
        if n_threads <= 1 or m <= 1:
            for jj in range(m):
                bucket_count_column(X, cols[jj], &y[0], w, k, n_buckets, &counts[jj, 0, 0])
        else:
            for jj in prange(m, schedule='static', num_threads=n_threads):
                bucket_count_column(X, cols[jj], &y[0], w, k, n_buckets, &counts[jj, 0, 0])
    return counts_arr


cdef void bucket_count_column(const value_t[:, ::1] X, Py_ssize_t col, const intp_t* y,
                              const double* w, Py_ssize_t k, intp_t n_buckets,
                              double* counts) noexcept nogil:
    cdef Py_ssize_t i
    cdef uint8_t tag = 0
    cdef uint64_t key = 0
    for i in range(X.shape[0]):
        if numeric_key(X[i, col], &tag, &key):
            continue
        counts[bucket_of(tag, key, n_buckets) * k + y[i]] += 1.0 if w == NULL else w[i]


def bucket_object_rows(object[:, :] X, const intp_t[::1] cols, intp_t n_buckets,
                       int32_t[:, ::1] ids_out):
    """Feature hashing of object columns, row by row: ``ids_out[jj, i]`` is the
    bucket of ``X[i, cols[jj]]`` (-1 when missing). Keeps no per-value state."""
    cdef Py_ssize_t n = X.shape[0]
    cdef Py_ssize_t m = cols.shape[0]
    cdef Py_ssize_t i, jj
    cdef uint8_t tag = 0
    cdef uint64_t key = 0
    cdef object value
    for i in range(n):
        for jj in range(m):
            value = X[i, cols[jj]]
            try:
                missing = object_key(value, &tag, &key)
            except TypeError as error:
                raise TypeError(str(error), jj) from None
            ids_out[jj, i] = -1 if missing else <int32_t>bucket_of(tag, key, n_buckets)


def bucket_keys(const uint8_t[::1] tags, const uint64_t[::1] keys, intp_t n_buckets):
    """Bucket of each (tag, key)."""
    cdef Py_ssize_t i
    out_arr = np.empty(tags.shape[0], dtype=np.intp)
    cdef intp_t[::1] out = out_arr
    with nogil:
        for i in range(tags.shape[0]):
            out[i] = bucket_of(tags[i], keys[i], n_buckets)
    return out_arr


def count_ids(
    const int32_t[::1] ids,           # IN: (n,) local index per row, -1 missing
    Py_ssize_t n_ids,
    const intp_t[::1] y,              # IN: (n,) class codes
    const double[::1] sample_weight,  # IN: (n,) or None
    Py_ssize_t k,
):
    """(n_ids, k) counts of pre-keyed values, in row order."""
    cdef Py_ssize_t n = ids.shape[0]
    cdef Py_ssize_t i
    cdef int32_t v
    cdef const double* w = NULL
    counts_arr = np.zeros((n_ids, k), dtype=np.float64)
    cdef double[:, ::1] counts = counts_arr
    if sample_weight is not None:
        w = &sample_weight[0]
    with nogil:
        for i in range(n):
            v = ids[i]
            if v >= 0:
                counts[v, y[i]] += 1.0 if w == NULL else w[i]
    return counts_arr


def gather_ids(const int32_t[::1] lut, const int64_t[::1] codes, int32_t[::1] ids_out):
    """ids_out[i] = lut[codes[i]] (-1 where codes[i] < 0): pandas Categorical codes."""
    cdef Py_ssize_t i
    with nogil:
        for i in range(codes.shape[0]):
            ids_out[i] = lut[codes[i]] if codes[i] >= 0 else -1


# -- frozen tables for predict -----------------------------------------------------------
def build_table(const uint8_t[::1] tags, const uint64_t[::1] keys):
    """A frozen table mapping (tags[i], keys[i]) -> i.

    Returns ``(table_keys, table_tags, table_vals, duplicate)`` where duplicate is
    None, or the pair (i, j) of two entries with the same (tag, key).
    """
    cdef Py_ssize_t m = tags.shape[0]
    cdef int64_t size = 8
    cdef Py_ssize_t i
    cdef int64_t slot, mask
    cdef Py_ssize_t dup_i = -1, dup_j = -1
    while size < 2 * m:
        size *= 2
    mask = size - 1
    tkeys_arr = np.zeros(size, dtype=np.uint64)
    ttags_arr = np.zeros(size, dtype=np.uint8)
    tvals_arr = np.full(size, -1, dtype=np.int64)
    cdef uint64_t[::1] tkeys = tkeys_arr
    cdef uint8_t[::1] ttags = ttags_arr
    cdef int64_t[::1] tvals = tvals_arr
    with nogil:
        for i in range(m):
            slot = <int64_t>(slot_hash(tags[i], keys[i]) & <uint64_t>mask)
            while ttags[slot] != TAG_EMPTY:
                if tkeys[slot] == keys[i] and ttags[slot] == tags[i]:
                    break
                slot = (slot + 1) & mask
            if ttags[slot] != TAG_EMPTY:
                if dup_i < 0:
                    dup_i = tvals[slot]
                    dup_j = i
                continue
            ttags[slot] = tags[i]
            tkeys[slot] = keys[i]
            tvals[slot] = i
    duplicate = None if dup_i < 0 else (dup_i, dup_j)
    return tkeys_arr, ttags_arr, tvals_arr, duplicate


def lookup_table(
    const uint64_t[::1] tkeys, const uint8_t[::1] ttags, const int64_t[::1] tvals,
    const uint8_t[::1] tags, const uint64_t[::1] keys,
):
    """Index of each (tags[i], keys[i]) in a frozen table, or -1."""
    cdef Py_ssize_t m = tags.shape[0]
    cdef Py_ssize_t i
    cdef int64_t mask = tkeys.shape[0] - 1
    out_arr = np.empty(m, dtype=np.int64)
    cdef int64_t[::1] out = out_arr
    with nogil:
        for i in range(m):
            out[i] = table_find(&tkeys[0], &ttags[0], &tvals[0], mask, tags[i], keys[i])
    return out_arr


# -- predict ----------------------------------------------------------------------------
cdef inline intp_t category_row(
    value_t v, int fmode, intp_t n_cat,
    const uint64_t* tkeys, const uint8_t* ttags, const int64_t* tvals, int64_t mask,
) noexcept nogil:
    """Row of the feature's log-prob table: 0..n_cat-1, n_cat (unseen) or -1 (missing)."""
    cdef uint8_t tag = 0
    cdef uint64_t key = 0
    cdef int64_t found
    if fmode == FEAT_RESOLVED:
        return <intp_t>v
    if fmode == FEAT_CODE:
        if value_t is float or value_t is double:
            if v != v:
                return -1
            if v >= 0 and v < n_cat and v == floor(v):
                return <intp_t>v
            return n_cat
        elif value_t is uint8_t or value_t is uint16_t or value_t is uint32_t or value_t is uint64_t:
            if <uint64_t>v < <uint64_t>n_cat:
                return <intp_t>v
            return n_cat
        else:
            if v >= 0 and v < n_cat:
                return <intp_t>v
            return n_cat
    if numeric_key(v, &tag, &key):
        return -1
    if fmode == FEAT_BUCKET:
        return bucket_of(tag, key, n_cat)
    found = table_find(tkeys, ttags, tvals, mask, tag, key)
    return n_cat if found < 0 else <intp_t>found


cdef inline void gather4(const intp_t* rows, Py_ssize_t d, const double* lp,
                         const intp_t* lp_off, double* out) noexcept nogil:
    cdef double a0 = 0.0, a1 = 0.0, a2 = 0.0, a3 = 0.0
    cdef const double* p
    cdef Py_ssize_t j
    for j in range(d):
        if rows[j] < 0:
            continue
        p = lp + lp_off[j] + rows[j] * 4
        a0 = a0 + p[0]
        a1 = a1 + p[1]
        a2 = a2 + p[2]
        a3 = a3 + p[3]
    out[0] = a0
    out[1] = a1
    out[2] = a2
    out[3] = a3


cdef inline void gather8(const intp_t* rows, Py_ssize_t d, const double* lp,
                         const intp_t* lp_off, double* out) noexcept nogil:
    cdef double a0 = 0.0, a1 = 0.0, a2 = 0.0, a3 = 0.0
    cdef double a4 = 0.0, a5 = 0.0, a6 = 0.0, a7 = 0.0
    cdef const double* p
    cdef Py_ssize_t j
    for j in range(d):
        if rows[j] < 0:
            continue
        p = lp + lp_off[j] + rows[j] * 8
        a0 = a0 + p[0]
        a1 = a1 + p[1]
        a2 = a2 + p[2]
        a3 = a3 + p[3]
        a4 = a4 + p[4]
        a5 = a5 + p[5]
        a6 = a6 + p[6]
        a7 = a7 + p[7]
    out[0] = a0
    out[1] = a1
    out[2] = a2
    out[3] = a3
    out[4] = a4
    out[5] = a5
    out[6] = a6
    out[7] = a7


cdef inline void codes_gather8(const value_t* x, Py_ssize_t d, const intp_t* n_cat,
                               const double* lp, const intp_t* lp_off,
                               double* out) noexcept nogil:
    """gather8 for integer input whose features are all code features: the row
    of a value is the value itself, or n_cat (unseen) outside [0, n_cat)."""
    cdef double a0 = 0.0, a1 = 0.0, a2 = 0.0, a3 = 0.0
    cdef double a4 = 0.0, a5 = 0.0, a6 = 0.0, a7 = 0.0
    cdef const double* p
    cdef Py_ssize_t j
    cdef uint64_t u
    for j in range(d):
        u = <uint64_t>(<int64_t>x[j])
        if u >= <uint64_t>n_cat[j]:
            u = <uint64_t>n_cat[j]
        p = lp + lp_off[j] + u * 8
        a0 = a0 + p[0]
        a1 = a1 + p[1]
        a2 = a2 + p[2]
        a3 = a3 + p[3]
        a4 = a4 + p[4]
        a5 = a5 + p[5]
        a6 = a6 + p[6]
        a7 = a7 + p[7]
    out[0] = a0
    out[1] = a1
    out[2] = a2
    out[3] = a3
    out[4] = a4
    out[5] = a5
    out[6] = a6
    out[7] = a7


cdef inline void gather_any(const intp_t* rows, Py_ssize_t d, const double* lp,
                            const intp_t* lp_off, Py_ssize_t kp, double* out) noexcept nogil:
    cdef const double* p
    cdef Py_ssize_t j, c
    for c in range(kp):
        out[c] = 0.0
    for j in range(d):
        if rows[j] < 0:
            continue
        p = lp + lp_off[j] + rows[j] * kp
        for c in range(kp):
            out[c] = out[c] + p[c]


cdef inline void predict_row(
    const value_t* x,
    Py_ssize_t d,
    Py_ssize_t k,
    Py_ssize_t kp,          # row width of the log-prob tables (k padded to 4 or 8)
    const int32_t* modes,
    const intp_t* n_cat,
    const double* lp,
    const intp_t* lp_off,
    const uint64_t* tkeys, const uint8_t* ttags, const int64_t* tvals,
    const intp_t* toff, const intp_t* tmask,
    const double* log_prior,
    int mode,
    bint all_codes,        # every feature is a code feature
    intp_t* rows,          # scratch, d values
    double* acc,           # scratch, kp values
    double* row_out,       # OUT: k values (modes other than MODE_ARGMAX)
    intp_t* label_out,     # OUT: MODE_ARGMAX
) noexcept nogil:
    cdef Py_ssize_t j, c
    cdef intp_t t
    cdef double best
    cdef intp_t best_class
    # Resolve every feature's table row first, then sum the rows with the class
    # accumulators in registers (feature order, as scikit-learn sums).
    if value_t is float or value_t is double:
        pass
    else:
        if all_codes and kp == 8:
            codes_gather8(x, d, n_cat, lp, lp_off, acc)
            finish_prediction(acc, k, log_prior, mode, row_out, label_out)
            return
    for j in range(d):
        t = toff[j]
        rows[j] = category_row(x[j], modes[j], n_cat[j], &tkeys[t], &ttags[t],
                               &tvals[t], tmask[j])
    if kp == 4:
        gather4(rows, d, lp, lp_off, acc)
    elif kp == 8:
        gather8(rows, d, lp, lp_off, acc)
    else:
        gather_any(rows, d, lp, lp_off, kp, acc)
    finish_prediction(acc, k, log_prior, mode, row_out, label_out)


cdef inline void finish_prediction(double* acc, Py_ssize_t k, const double* log_prior,
                                   int mode, double* row_out,
                                   intp_t* label_out) noexcept nogil:
    cdef Py_ssize_t c
    cdef double best
    cdef intp_t best_class
    for c in range(k):
        acc[c] = acc[c] + log_prior[c]
    if mode == MODE_ARGMAX:
        best = acc[0]
        best_class = 0
        for c in range(1, k):
            if acc[c] > best:
                best = acc[c]
                best_class = c
        label_out[0] = best_class
    elif k <= 8 and (mode == MODE_PROBA or mode == MODE_LOG_PROBA) and finish_row8(
            acc, k, mode, row_out):
        pass
    else:
        for c in range(k):
            row_out[c] = acc[c]
        finish_row(row_out, k, mode)


def categorical_predict(
    const value_t[:, ::1] X,          # IN: (n, d) values or resolved indices
    const int32_t[::1] modes,         # IN: (d,) FEAT_CODE / FEAT_HASH / FEAT_RESOLVED
    const intp_t[::1] n_cat,          # IN: (d,) categories per feature
    const double[::1] lp,             # IN: per feature (n_cat + 1, kp) log probs, flat
    const intp_t[::1] lp_off,         # IN: (d,) offsets into lp
    Py_ssize_t kp,                    # IN: row width of lp (k padded to 4 or 8)
    const uint64_t[::1] tkeys,        # IN: hash features' frozen tables, flat
    const uint8_t[::1] ttags,
    const int64_t[::1] tvals,
    const intp_t[::1] toff,           # IN: (d,) offsets into the tables
    const intp_t[::1] tmask,          # IN: (d,) table size - 1
    const double[::1] log_prior,      # IN: (k,)
    int mode,                         # PredictMode
    intp_t[::1] labels_out,           # OUT: (n,) for MODE_ARGMAX, else None
    double[:, ::1] out,               # OUT: (n, k) for other modes, else None
    int n_threads,
):
    """Joint log likelihoods by table gathers, with the arg-max or normalisation fused."""
    cdef Py_ssize_t n = X.shape[0]
    cdef Py_ssize_t d = X.shape[1]
    cdef Py_ssize_t k = log_prior.shape[0]
    cdef Py_ssize_t i
    cdef double* acc = NULL
    cdef intp_t* rows = NULL
    cdef intp_t dummy = 0
    cdef double* row_out = NULL
    cdef intp_t* label_out = &dummy
    cdef bint all_codes = True
    if n == 0:
        return
    for i in range(d):
        if modes[i] != FEAT_CODE:
            all_codes = False
    if n_threads <= 1:
        acc = <double*>malloc(kp * sizeof(double))
        rows = <intp_t*>malloc(d * sizeof(intp_t))
        if acc == NULL or rows == NULL:
            free(acc)
            free(rows)
            raise MemoryError()
        with nogil:
            for i in range(n):
                if mode == MODE_ARGMAX:
                    label_out = &labels_out[i]
                else:
                    row_out = &out[i, 0]
                predict_row(&X[i, 0], d, k, kp, &modes[0], &n_cat[0], &lp[0], &lp_off[0],
                            &tkeys[0], &ttags[0], &tvals[0], &toff[0], &tmask[0],
                            &log_prior[0], mode, all_codes, rows, acc, row_out,
                            label_out)
        free(acc)
        free(rows)
        return
    with nogil, parallel(num_threads=n_threads):
        acc = <double*>malloc(kp * sizeof(double))
        rows = <intp_t*>malloc(d * sizeof(intp_t))
        for i in prange(n, schedule='static', chunksize=2048):
            if mode == MODE_ARGMAX:
                label_out = &labels_out[i]
            else:
                row_out = &out[i, 0]
            predict_row(&X[i, 0], d, k, kp, &modes[0], &n_cat[0], &lp[0], &lp_off[0],
                        &tkeys[0], &ttags[0], &tvals[0], &toff[0], &tmask[0],
                        &log_prior[0], mode, all_codes, rows, acc, row_out,
                        label_out)
        free(acc)
        free(rows)


def resolve_numeric(
    const value_t[:, ::1] X,          # IN: (n, >= 1) values
    Py_ssize_t col,                   # IN: which column of X
    int fmode, intp_t n_cat,
    const uint64_t[::1] tkeys, const uint8_t[::1] ttags, const int64_t[::1] tvals,
    intp_t toff, intp_t tmask,
    int32_t[:, ::1] out, Py_ssize_t out_col,   # OUT: resolved indices
):
    """Resolve one numeric column to table rows (for inputs of mixed column kinds)."""
    cdef Py_ssize_t i
    with nogil:
        for i in range(X.shape[0]):
            out[i, out_col] = <int32_t>category_row(
                X[i, col], fmode, n_cat, &tkeys[toff], &ttags[toff], &tvals[toff], tmask)


def resolve_objects(
    object[:] column,                  # IN: (n,) values
    int fmode, intp_t n_cat,
    const uint64_t[::1] tkeys, const uint8_t[::1] ttags, const int64_t[::1] tvals,
    intp_t toff, intp_t tmask,
    object categories,                 # IN: the feature's category values (exact check)
    int32_t[:, ::1] out, Py_ssize_t out_col,   # OUT: resolved indices
):
    """Resolve one object column to table rows, keying each distinct value once.

    Code features take non-negative integers below n_cat as their own index; hash
    features look the key up and, for str/bytes/other keys, compare the value with
    the stored category, so a 64-bit key collision cannot misplace a value.
    """
    cdef Py_ssize_t n = column.shape[0]
    cdef Py_ssize_t i
    cdef dict cache = {}
    cdef uint8_t tag = 0
    cdef uint64_t key = 0
    cdef int64_t found
    cdef object value, hit
    cdef int32_t idx
    for i in range(n):
        value = column[i]
        hit = cache.get(value)
        if hit is None:
            if object_key(value, &tag, &key):
                idx = -1
            elif fmode == FEAT_CODE:
                idx = <int32_t>key if (tag == TAG_INT and key < <uint64_t>n_cat) else <int32_t>n_cat
            elif fmode == FEAT_BUCKET:
                idx = <int32_t>bucket_of(tag, key, n_cat)
            else:
                found = table_find(&tkeys[toff], &ttags[toff], &tvals[toff], tmask, tag, key)
                if found < 0:
                    idx = <int32_t>n_cat
                elif tag >= TAG_STR and not bool(categories[found] == value):
                    idx = <int32_t>n_cat
                else:
                    idx = <int32_t>found
            cache[value] = idx
            out[i, out_col] = idx
        else:
            out[i, out_col] = <int32_t>hit
