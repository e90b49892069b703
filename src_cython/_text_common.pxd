# Shared declarations of the text kernels (_text_kernels.pyx and its .pxd files):
# the C constants, the code-point type, growable arrays over PyMem_Raw* (callable
# without the GIL), and widening a PEP 393 buffer to UCS4.

from cpython.mem cimport PyMem_RawFree, PyMem_RawMalloc, PyMem_RawRealloc
from libc.stdint cimport int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t
from libc.string cimport memcpy

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
    BLOCKS_PER_THREAD = 8  # hashing: blocks a thread claims, one at a time
    SHORT_TERM = 12       # murmur_short() hashes terms up to this long
    BUF_SLACK = 16        # readable code points past a document's end in w.buf

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

cdef extern from * nogil:
    """
    #if defined(_MSC_VER)
    #include <intrin.h>
    static __inline Py_ssize_t fastnb_claim(Py_ssize_t *counter) {
    #if defined(_WIN64)
        return (Py_ssize_t) _InterlockedExchangeAdd64((volatile __int64 *) counter, 1);
    #else
        return (Py_ssize_t) _InterlockedExchangeAdd((volatile long *) counter, 1);
    #endif
    }
    #else
    static inline Py_ssize_t fastnb_claim(Py_ssize_t *counter) {
        return __atomic_fetch_add(counter, 1, __ATOMIC_RELAXED);
    }
    #endif
    """
    # The next unclaimed block (atomically: each value is returned once)
    Py_ssize_t claim "fastnb_claim"(Py_ssize_t *counter)
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


cdef inline int vec_reserve(Vec *v, Py_ssize_t need) noexcept nogil:
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


cdef inline int vec_resize(Vec *v, Py_ssize_t n) noexcept nogil:
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
