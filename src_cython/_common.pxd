# Shared, header-only building blocks of the fastnb kernels: types, predict modes,
# the end of a predict row, and how a loop is split into blocks for threads.
#
# Everything here is `cdef inline ... noexcept nogil` or a type, so cimporting it
# creates no runtime dependency between extension modules.
#
# Layers (as scikit-learn's sklearn/_loss): point functions on one row or one
# (row, class) pair live in .pxd files (this one, _gaussian.pxd, _counts.pxd,
# _bool_table.pxd); the *_kernels.pyx modules loop over rows with them; the Python
# estimators in fastnb/ validate and dispatch. fastnb.cython_kernels (the public
# cimport API) calls the same point functions.
#
# Threads. Every kernel writes its loop once, as a function over a range of work
# items [start, stop) (rows, fixed chunks, column blocks or classes). The kernel
# calls it once when it runs on one block, or from a prange over blocks, each block
# a contiguous range cut by block_start(). One block never enters an OpenMP
# region: a one-thread region still costs a team set-up (Cython's
# prange(use_threads_if=False) compiles to `#pragma omp parallel if(0)`, which
# still calls GOMP_parallel: +0.4 us on a 3.4 us one-row predict), and a forked
# child must not touch the OpenMP runtime (fastnb/_threads.py).
#
# Memory. Loop kernels allocate their scratch with NumPy, holding the GIL, before
# they release it: a failed allocation raises MemoryError, the same way in every
# kernel and for any thread count. Nothing is allocated inside a nogil loop.

from libc.math cimport exp, log, INFINITY, NAN

ctypedef Py_ssize_t intp_t

cdef extern from *:
    """
    #if defined(_MSC_VER) && !defined(__clang__)
    #define FASTNB_RESTRICT __restrict
    #else
    #define FASTNB_RESTRICT __restrict__
    #endif
    """
    # Pointers to memory that nothing else a point function reads or writes can
    # reach: saying so lets the compiler vectorise without run-time overlap checks.
    ctypedef double* double_noalias "double * FASTNB_RESTRICT"
    ctypedef int* int_noalias "int * FASTNB_RESTRICT"

# Input features are read in the dtype the user gave us (float32 stays float32:
# half the memory traffic); every accumulation happens in double.
ctypedef fused floating:
    float
    double

# What a predict kernel writes for each row.
cdef enum PredictMode:
    MODE_ARGMAX = 0     # the index of the most likely class into an (n,) intp array
    MODE_JLL = 1        # the joint log likelihood into an (n, k) array
    MODE_LOG_PROBA = 2  # log posterior: the JLL minus its log-sum-exp
    MODE_PROBA = 3      # posterior probabilities


cdef inline Py_ssize_t block_start(
    Py_ssize_t block, Py_ssize_t n_blocks, Py_ssize_t n_items,
) noexcept nogil:
    """First item of `block` when n_items are cut into n_blocks contiguous blocks
    of near-equal size (block_start(n_blocks, ...) == n_items)."""
    return block * n_items // n_blocks


cdef inline Py_ssize_t block_scratch_bytes(Py_ssize_t nbytes) noexcept nogil:
    """The distance between two blocks' scratch rows when each thread rewrites its
    row for every row of X: whole 4 KiB pages. Rows of different threads must not
    share a page: the prefetchers read ahead within a page, so one core pulls the
    next block's lines into its cache and they bounce between the cores as if
    falsely shared (a thresholded BernoulliNB predict on 2 threads was ~15%
    slower with its two 256-byte rows side by side)."""
    return ((nbytes + 4095) // 4096) * 4096


cdef inline double sum_of_8(const double* acc) noexcept nogil:
    """The eight fixed accumulators of a blocked sum, added in a fixed tree order."""
    return ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]))


cdef inline double row_max(const double* row, Py_ssize_t k) noexcept nogil:
    cdef Py_ssize_t c
    cdef double top = row[0]
    for c in range(1, k):
        if row[c] > top:
            top = row[c]
    return top


cdef inline void finish_row(double* row, Py_ssize_t k, int mode) noexcept nogil:
    """Turn a row of joint log likelihoods into the requested output, in place.

    Normalisation is shifted by the row maximum, so no exp overflows, and takes
    one exp per class: MODE_PROBA stores exp(jll - max) and scales by the inverse
    sum; MODE_LOG_PROBA subtracts max + log(sum).
    """
    cdef Py_ssize_t c
    cdef double top, total, scale
    if mode != MODE_LOG_PROBA and mode != MODE_PROBA:
        return
    top = row_max(row, k)
    if top == INFINITY or top == -INFINITY or top != top:
        # Every class impossible (all -inf), or +inf/NaN: there is no finite
        # normaliser; give NaN, as scipy.special.logsumexp-based code does.
        for c in range(k):
            row[c] = NAN
        return
    total = 0.0
    if mode == MODE_PROBA:
        for c in range(k):
            row[c] = exp(row[c] - top)
            total = total + row[c]
        scale = 1.0 / total
        for c in range(k):
            row[c] = row[c] * scale
    else:
        for c in range(k):
            total = total + exp(row[c] - top)
        scale = top + log(total)
        for c in range(k):
            row[c] = row[c] - scale


cdef inline void consider_class(
    double score,          # IN: class c's score
    intp_t c,
    double* best,          # IN/OUT: the largest score so far (start at -INFINITY)
    intp_t* best_class,    # IN/OUT: its class, the first one on ties (start at 0)
    bint* saw_nan,         # IN/OUT: set when a score is NaN
) noexcept nogil:
    """Keep the running argmax of a row's class scores, and note NaN scores.

    Three scalars, not a struct: gcc keeps them in registers (a struct of them
    made the byte-table predict 8% slower). No branch on the score: which class
    leads changes from row to row in no pattern, and a mispredicted update also
    threw away the next row's work, already issued (B1 bool predict, one
    thread: 86-95 -> 61-63 ms)."""
    cdef bint better = score > best[0]
    best[0] = score if better else best[0]
    best_class[0] = c if better else best_class[0]
    saw_nan[0] = saw_nan[0] | (score != score)


cdef inline intp_t row_argmax(
    const double* row,     # IN (k,): a row's class scores
    Py_ssize_t k,
    double* best,          # OUT: the largest score, -INFINITY if none is above it
    bint* saw_nan,         # IN/OUT: set when a score is NaN
) noexcept nogil:
    """What ``consider_class`` keeps over a whole row, in fewer steps: the first
    class of the largest score (0 when no score is above -inf), that score, and
    whether a score is NaN.

    A running argmax is a chain of k dependent compares (T1, 35 classes: a third
    of the time of a row of one non-zero). Here four running maxima take the
    classes in turn (chains of k / 4), and the first class whose score equals
    their largest is the answer: every compare is ``>`` and NaN compares false,
    so it is the class the running argmax keeps (+0.0 and -0.0 compare equal
    there and here alike).

    The first equal class is found without a branch: an early exit at a class
    that varies from row to row was mispredicted on most rows (T1 scored over
    one-word rows, 1 thread: 104 -> 80-87 ms for 1,000,000 rows). The byte-table
    predict keeps ``consider_class`` (branch-free too): B1's bool predict, one
    thread, took ~100 ms with this function and 61-63 ms with that one."""
    cdef Py_ssize_t c, k4 = k - k % 4
    cdef double m0 = -INFINITY, m1 = -INFINITY, m2 = -INFINITY, m3 = -INFINITY
    cdef double top
    cdef int n_nan = 0
    cdef int first, hit
    for c in range(0, k4, 4):
        m0 = row[c] if row[c] > m0 else m0
        m1 = row[c + 1] if row[c + 1] > m1 else m1
        m2 = row[c + 2] if row[c + 2] > m2 else m2
        m3 = row[c + 3] if row[c + 3] > m3 else m3
    for c in range(k4, k):
        m0 = row[c] if row[c] > m0 else m0
    for c in range(k):
        n_nan += row[c] != row[c]
    if n_nan:
        saw_nan[0] = True
    top = m0
    top = m1 if m1 > top else top
    top = m2 if m2 > top else top
    top = m3 if m3 > top else top
    best[0] = top
    if top == -INFINITY:
        return 0
    # a min-reduction of the equal classes' indices (int: vpminsd in the AVX2 build)
    first = <int>k
    for c in range(k):
        hit = <int>c if row[c] == top else <int>k
        first = hit if hit < first else first
    return first


cdef inline int finish_scores(
    double* row_out,      # IN/OUT (k,): the row's class scores (unused for MODE_ARGMAX)
    Py_ssize_t k,
    int mode,
    intp_t* label_out,    # OUT for MODE_ARGMAX: the best class
    double best,          # what consider_class kept of the row's scores
    intp_t best_class,
    bint saw_nan,
) noexcept nogil:
    """Write a scored row's output; return 1 if the row is suspect (no finite best
    score), so that the caller can tell infinite input from a valid answer."""
    if mode == MODE_ARGMAX:
        label_out[0] = best_class
    else:
        finish_row(row_out, k, mode)
    return 1 if (saw_nan or best == -INFINITY or best == INFINITY) else 0
