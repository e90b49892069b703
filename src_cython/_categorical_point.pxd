# The point functions of the CategoricalNB kernels: one value, one key, one row.
#
# Three layers, as in scikit-learn's _loss: the `noexcept nogil` inline functions
# here work on one value or one row; the loops over rows in _categorical_count.pyx,
# _categorical_predict.pyx, _categorical_keys.pyx and the public cython_kernels.pyx
# call them; fastnb/_categorical/ validates input and dispatches. Everything here is
# inline (or a type, or a constant), so cimporting it creates no dependency between
# extension modules.
#
# Vocabulary (as in fastnb/_categorical/__init__.py): a *value* is what X holds; its
# *key* is a stable (tag, 64-bit) pair; a *category index* is a category's column in
# category_count_[j]; a *class index* a label's position in classes_; a *code* is the
# value of an integer-code feature, which is its own category index; a *table row*
# is the row of a feature's log-probability block a value reads: its category
# index, n_categories (an unseen value) or -1 (a missing value, left out).

from libc.stdint cimport (
    int8_t, uint8_t, int16_t, uint16_t, int32_t, uint32_t, int64_t, uint64_t,
)
from libc.math cimport floor, log, INFINITY
from libc.string cimport memcpy

from _common cimport intp_t, finish_row, MODE_ARGMAX, MODE_JLL, MODE_LOG_PROBA, MODE_PROBA

# Every dtype the kernels read as it is. `long long` is NumPy's int64 on every
# platform (Cython matches it to 'l' and 'q' buffers alike) and the code type of
# the public cython_kernels API, so one set of specialisations serves both.
ctypedef fused value_t:
    int8_t
    uint8_t
    int16_t
    uint16_t
    int32_t
    uint32_t
    long long
    uint64_t
    float
    double

# The integer ones, for the kernels that only read integers.
ctypedef fused int_value_t:
    int8_t
    uint8_t
    int16_t
    uint16_t
    int32_t
    uint32_t
    long long
    uint64_t

# Tags of the key kinds (0 marks an empty slot of a hash table).
cdef enum:
    TAG_EMPTY = 0
    TAG_INT = 1       # an integer in the int64 range (bools, integral floats): key = value
    TAG_UINT = 2      # an integer in [2**63, 2**64): key = value
    TAG_FLOAT = 3     # any other float: key = its IEEE-754 bits
    TAG_STR = 4       # key = FNV-1a of the code points, then fmix64
    TAG_BYTES = 5     # the same hash of the bytes
    TAG_BIGINT = 6    # an integer beyond 64 bits: the hash of its decimal text
    TAG_OTHER = 7     # any other hashable: the hash of "module.qualname:repr"

# How a feature's value finds its table row (PredictTables.lookup).
cdef enum:
    LOOKUP_CODE = 0       # an integer-code feature: the value is the row (out of range: unseen)
    LOOKUP_HASH = 1       # a value feature: the key is looked up in the feature's frozen table
    LOOKUP_RESOLVED = 2   # the value already is the table row (resolved by the caller)
    LOOKUP_BUCKET = 3     # feature hashing: the row is the key's bucket


cdef extern from *:
    """
    #include <math.h>
    #include <stdint.h>
    #include <string.h>

    /* Every allocation of the categorical kernels. PyMem_RawMalloc is malloc-like,
       safe without the GIL, and seen by tracemalloc, so the benchmarks can report
       the hash tables' memory. A kernel that gets NULL returns a failure status and
       its Python wrapper raises MemoryError. Tests force that path: with
       fastnb_allocations_left >= 0, that many more allocations succeed, then every
       one fails, until it is set back to -1 (a per-module counter; not atomic, so
       meant for single-threaded tests). */
    static Py_ssize_t fastnb_allocations_left = -1;

    static inline int fastnb_allocation_refused(void) {
        if (fastnb_allocations_left < 0) return 0;
        if (fastnb_allocations_left == 0) return 1;
        fastnb_allocations_left--;
        return 0;
    }

    static inline void* fastnb_malloc(size_t n, size_t size) {
        if (fastnb_allocation_refused() || (size && n > SIZE_MAX / size)) return NULL;
        return PyMem_RawMalloc(n * size != 0 ? n * size : 1);
    }

    static inline void* fastnb_calloc(size_t n, size_t size) {
        if (fastnb_allocation_refused()) return NULL;
        return PyMem_RawCalloc(n ? n : 1, size ? size : 1);
    }

    static inline void* fastnb_realloc(void* p, size_t n, size_t size) {
        if (fastnb_allocation_refused() || (size && n > SIZE_MAX / size)) return NULL;
        return PyMem_RawRealloc(p, n * size != 0 ? n * size : 1);
    }

    static inline void fastnb_free(void* p) { PyMem_RawFree(p); }

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
    Py_ssize_t fastnb_allocations_left
    void* fastnb_malloc(size_t n, size_t size) noexcept nogil
    void* fastnb_calloc(size_t n, size_t size) noexcept nogil
    void* fastnb_realloc(void* p, size_t n, size_t size) noexcept nogil
    void fastnb_free(void* p) noexcept nogil
    void fastnb_exp_shifted8(const double* acc, double top, double* out) noexcept nogil


# -- keys ------------------------------------------------------------------------------
cdef inline uint64_t fmix64(uint64_t h) noexcept nogil:
    """murmur3's 64-bit finaliser: every input bit affects every output bit."""
    h ^= h >> 33
    h *= 0xff51afd7ed558ccdULL
    h ^= h >> 33
    h *= 0xc4ceb9fe1a85ec53ULL
    h ^= h >> 33
    return h


cdef inline uint64_t slot_hash(uint8_t tag, uint64_t key) noexcept nogil:
    """Where (tag, key) starts probing in an open-addressing table."""
    return fmix64(key ^ (<uint64_t>tag * 0x9E3779B97F4A7C15ULL))


cdef inline intp_t bucket_of(uint8_t tag, uint64_t key, intp_t n_buckets) noexcept nogil:
    """The stable bucket of a key, for feature hashing."""
    return <intp_t>(slot_hash(tag, key) % <uint64_t>n_buckets)


cdef inline uint64_t hash_units(const void* data, int width, Py_ssize_t n) noexcept nogil:
    """FNV-1a over n units of 1, 2 or 4 bytes (code points or bytes), then fmix64:
    a string's key does not depend on the width CPython stores it in."""
    cdef uint64_t h = 0xcbf29ce484222325ULL
    cdef uint64_t prime = 0x100000001b3ULL
    cdef Py_ssize_t i
    if width == 1:
        for i in range(n):
            h = (h ^ (<const uint8_t*>data)[i]) * prime
    elif width == 2:
        for i in range(n):
            h = (h ^ (<const uint16_t*>data)[i]) * prime
    else:
        for i in range(n):
            h = (h ^ (<const uint32_t*>data)[i]) * prime
    return fmix64(h ^ <uint64_t>n)


cdef inline bint double_key(double d, uint8_t* tag, uint64_t* key) noexcept nogil:
    """The key of a float; True when it is NaN (a missing value)."""
    cdef uint64_t bits
    if d != d:
        return True
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
    return False


cdef inline bint numeric_key(value_t v, uint8_t* tag, uint64_t* key) noexcept nogil:
    """The key of a numeric value; True when it is missing (NaN)."""
    if value_t is float or value_t is double:
        return double_key(<double>v, tag, key)
    elif value_t is uint64_t:
        tag[0] = TAG_INT if v < 9223372036854775808ULL else TAG_UINT
        key[0] = <uint64_t>v
        return False
    else:
        tag[0] = TAG_INT
        key[0] = <uint64_t>(<int64_t>v)
        return False


cdef inline int64_t table_find(
    const uint64_t* keys, const uint8_t* tags, const int64_t* rows, int64_t mask,
    uint8_t tag, uint64_t key,
) noexcept nogil:
    """The row stored for (tag, key) in a frozen table of mask + 1 slots, or -1."""
    cdef int64_t slot = <int64_t>(slot_hash(tag, key) & <uint64_t>mask)
    while tags[slot] != TAG_EMPTY:
        if keys[slot] == key and tags[slot] == tag:
            return rows[slot]
        slot = (slot + 1) & mask
    return -1


# -- one value to its table row ------------------------------------------------------------
cdef inline intp_t code_row(value_t v, intp_t n_categories, intp_t out_of_range) noexcept nogil:
    """The category index of a code: v when it is an integer in [0, n_categories),
    -1 when missing (NaN), else ``out_of_range`` (the estimator's unseen row
    n_categories; -1, left out, for the public API)."""
    if value_t is float or value_t is double:
        if v != v:
            return -1
        if v >= 0 and v < n_categories and v == floor(v):
            return <intp_t>v
        return out_of_range
    elif value_t is uint8_t or value_t is uint16_t or value_t is uint32_t or value_t is uint64_t:
        if <uint64_t>v < <uint64_t>n_categories:
            return <intp_t>v
        return out_of_range
    else:
        if v >= 0 and v < n_categories:
            return <intp_t>v
        return out_of_range


cdef inline intp_t table_row(
    value_t v, int lookup, intp_t n_categories,
    const uint64_t* hash_keys, const uint8_t* hash_tags, const int64_t* hash_rows,
    int64_t hash_mask,
) noexcept nogil:
    """The table row of one value of a feature: 0..n_categories - 1, n_categories
    (unseen) or -1 (missing)."""
    cdef uint8_t tag = 0
    cdef uint64_t key = 0
    cdef int64_t found
    if lookup == LOOKUP_RESOLVED:
        return <intp_t>v
    if lookup == LOOKUP_CODE:
        return code_row(v, n_categories, n_categories)
    if numeric_key(v, &tag, &key):
        return -1
    if lookup == LOOKUP_BUCKET:
        return bucket_of(tag, key, n_categories)
    found = table_find(hash_keys, hash_tags, hash_rows, hash_mask, tag, key)
    return n_categories if found < 0 else <intp_t>found


# -- one row of counts -------------------------------------------------------------------
cdef inline bint count_code_row(
    const value_t* row,              # IN: (d,) one row of X
    Py_ssize_t d,
    const intp_t* n_categories,      # IN: (d,) codes outside [0, this) are skipped
    const intp_t* starts,            # IN: (d,) where feature j's categories start
    double w,                        # IN: the row's weight
    double* class_counts,            # IN/OUT: the counts of the row's class
) noexcept nogil:
    """Add w to the count of each feature's code, class_counts[starts[j] + code]. A
    missing value is skipped, and so is a value that is not a code in range, but
    then the row returns False."""
    cdef Py_ssize_t j
    cdef intp_t code
    cdef bint all_codes = True
    for j in range(d):
        code = code_row(row[j], n_categories[j], -2)
        if code >= 0:
            class_counts[starts[j] + code] += w
        elif code == -2:
            all_codes = False
    return all_codes


# -- one feature's log probabilities -----------------------------------------------------------
cdef enum:
    SMALL_COUNTS = 64   # log(c + alpha) of the integer counts c below this is tabulated


cdef inline void fill_small_logs(double alpha, double* small_logs) noexcept nogil:
    """small_logs[c] = log(c + alpha) for c < SMALL_COUNTS: most counts of a
    high-cardinality feature are 0 or 1, and a table hit is the same bits as log."""
    cdef int c
    for c in range(SMALL_COUNTS):
        small_logs[c] = log(<double>c + alpha)


cdef inline double log_smoothed(double count, double alpha,
                                const double* small_logs) noexcept nogil:
    """log(count + alpha), from the table when count is a small integer."""
    if count < SMALL_COUNTS and count == floor(count):
        return small_logs[<int>count]
    return log(count + alpha)


cdef inline void smooth_counts(
    const double* counts,            # IN: (n_categories,) one class's counts of a feature
    Py_ssize_t n_categories,
    double alpha,
    const double* small_logs,        # IN: fill_small_logs(alpha)
    double* log_prob,                # OUT: (n_categories,) log P(category | class)
    Py_ssize_t log_prob_stride,
    double* unseen,                  # OUT: log P(an unseen category | class)
) noexcept nogil:
    """Lidstone smoothing, as scikit-learn: log((N_ci + alpha) / (N_c + alpha * n)).
    A feature without any value (n_categories == 0) carries no information: its
    unseen term is log 1 = 0."""
    cdef Py_ssize_t r
    cdef double total = 0.0
    cdef double log_total
    for r in range(n_categories):
        total = total + (counts[r] + alpha)
    log_total = log(total)
    for r in range(n_categories):
        log_prob[r * log_prob_stride] = log_smoothed(counts[r], alpha, small_logs) - log_total
    unseen[0] = 0.0 if total == 0.0 else small_logs[0] - log_total


# -- one row of joint log likelihoods ----------------------------------------------------------
cdef inline void gather_strided(
    const intp_t* rows, Py_ssize_t d,     # IN: each feature's table row (-1: left out)
    const double* table,                  # IN: log probabilities
    const intp_t* starts,                 # IN: (d,) where feature j's entries start
    Py_ssize_t row_stride,                # IN: distance between two rows of a feature
    Py_ssize_t class_stride,              # IN: distance between two classes of a row
    Py_ssize_t k,
    double* acc,                          # OUT: (k,) the sum over features, in order
) noexcept nogil:
    """Sum each feature's log probabilities, in feature order (scikit-learn's)."""
    cdef const double* p
    cdef Py_ssize_t j, c
    for c in range(k):
        acc[c] = 0.0
    for j in range(d):
        if rows[j] < 0:
            continue
        p = table + starts[j] + rows[j] * row_stride
        for c in range(k):
            acc[c] = acc[c] + p[c * class_stride]


cdef inline void gather_fixed(const intp_t* rows, Py_ssize_t d, const double* table,
                              const intp_t* starts, double* acc,
                              const Py_ssize_t width) noexcept nogil:
    """gather_strided for rows of ``width`` contiguous classes (at most 8), in
    registers: the same sums. Call it with a literal width (4 or 8): once inlined,
    the class loops have constant bounds and gcc keeps the accumulators in
    registers."""
    cdef double a[8]
    cdef const double* p
    cdef Py_ssize_t j, c
    for c in range(width):
        a[c] = 0.0
    for j in range(d):
        if rows[j] >= 0:
            p = table + starts[j] + rows[j] * width
            for c in range(width):
                a[c] = a[c] + p[c]
    for c in range(width):
        acc[c] = a[c]


cdef inline void gather8_codes(const value_t* x, Py_ssize_t d, const intp_t* n_categories,
                               const double* table, const intp_t* starts,
                               double* acc) noexcept nogil:
    """gather_fixed (width 8) straight from a row of integers when every feature is an
    integer-code feature: the row of a value is itself, or n_categories (unseen)
    outside [0, n_categories). The same sums as resolving first."""
    cdef double a[8]
    cdef const double* p
    cdef Py_ssize_t j, c
    cdef uint64_t u
    for c in range(8):
        a[c] = 0.0
    for j in range(d):
        u = <uint64_t>(<int64_t>x[j])
        if u >= <uint64_t>n_categories[j]:
            u = <uint64_t>n_categories[j]
        p = table + starts[j] + u * 8
        for c in range(8):
            a[c] = a[c] + p[c]
    for c in range(8):
        acc[c] = a[c]


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


cdef inline void finish_prediction(double* acc, Py_ssize_t k, const double* log_prior,
                                   int mode, double* row_out,
                                   intp_t* label_out) noexcept nogil:
    """Add the class log prior to a row's sums (after the features, as
    scikit-learn), then write the requested output: the arg-max into label_out, or
    the joint log likelihoods, log posteriors or posteriors into row_out."""
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
