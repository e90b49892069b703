# Count-model point functions (BernoulliNB, MultinomialNB, ComplementNB): one row's
# contribution to the per-class feature sums, and one row's joint log likelihood,
# dense and CSR. The loop kernels (_discrete_kernels.pyx, _discrete_predict.pyx)
# and the public cimport API (cython_kernels.pyx) both call these, so both compute
# the same bits.
#
# All three models share one shape:
#
#     fit      fc[c, j] += w_i * f(x_ij)            f = identity, or x > threshold
#     predict  jll[c] = sum_j f(x_j) * W[c, j] + bias[c]
#
# The sum over a row's features is csr_row_dot / dense_dot; bias is the per-class
# constant term, added once per row by *_linear_predict_row.
#
# Values are read in the caller's dtype (float32/64, bool/uint8, int8/16/32/64):
# nothing is converted. Fitting counts negative values (for the models that forbid
# them) and, when thresholding, non-finite values (which thresholding would
# otherwise hide); without thresholding NaN and inf propagate into the sums.

from libc.limits cimport LLONG_MAX, LLONG_MIN
from libc.math cimport floor, log, INFINITY

from _common cimport (
    intp_t, int_noalias, floating, sum_of_8, consider_class, finish_scores,
    MODE_ARGMAX,
)

# Every dense dtype a kernel reads as it is (numpy bool is read as uint8).
ctypedef unsigned char uint8_t_
ctypedef signed char int8_t_

ctypedef fused value_t:
    float
    double
    uint8_t_
    int8_t_
    short
    int
    long long

# Column indices and row pointers of a CSR matrix: scipy's int32 and int64, and
# Py_ssize_t for the public API's pointers.
ctypedef fused csr_index_t:
    int
    long long
    Py_ssize_t

cdef enum:
    # Rows of up to this many classes accumulate in a local array, which the
    # compiler knows aliases nothing (so the k-loop vectorises); more classes use
    # a spill buffer of k doubles.
    LOCAL_K = 64
    # CSR predict reads one random (k,) row of weights per nonzero: ask for the
    # row of the nonzero this many places ahead, so that several misses overlap
    # (measured on M1: 640 ms without, 380 ms at 8 ahead, 320 ms at 48, one thread).
    PREFETCH_AHEAD = 48


# -- logs of small whole counts --------------------------------------------------------

# The log of a count plus alpha, log(n + a), is read from a table of SMALL_COUNTS
# values when the count is a whole n below it (and so is ComplementNB's log of a
# complement count F_j + a - N_cj whose F_j - N_cj is whole and below it): text
# counts are small (most of T1's 1.25 million entries are 1 to 3; 99.4% of M1's
# 5.2 million counts are below 64), and a log costs ~10-20 ns here. The table holds the same expression's values, so
# its bits are the log's. It costs SMALL_COUNTS logs: the table-backed models'
# refreshes make it only for at least that many features or entries, so that a
# small one (a stream's batch, a 1-document predict after it) does not pay for it,
# and MultinomialNB's dense log probabilities only for that many features.
cdef enum:
    SMALL_COUNTS = 64


cdef inline void fill_small_weights(double* small, double a, double log_a) noexcept nogil:
    """small[n] = log(n + a) - log_a for n below SMALL_COUNTS."""
    cdef int n
    for n in range(SMALL_COUNTS):
        small[n] = log(<double>n + a) - log_a


cdef inline bint is_small_whole(double value) noexcept nogil:
    """True when ``value`` is a whole number in [0, SMALL_COUNTS): a table's."""
    return 0.0 <= value < SMALL_COUNTS and <double>(<int>value) == value


cdef inline bint shifted_in_table(double value, double shifted, double a) noexcept nogil:
    """True when log(shifted), shifted being ``value + a`` as the caller rounded
    it, is a table's log(n + a): value is a whole n below SMALL_COUNTS and n + a
    rounds to ``shifted``."""
    return is_small_whole(value) and <double>(<int>value) + a == shifted


cdef inline double log_shifted(double value, double shifted, double a,
                               const double* small_logs) noexcept nogil:
    """log(shifted), where shifted is ``value + a`` as the caller rounded it; from
    ``small_logs`` (log(n + a) for n below SMALL_COUNTS, or NULL) when it holds
    it (``shifted_in_table``): the same bits."""
    if small_logs != NULL and shifted_in_table(value, shifted, a):
        return small_logs[<int>value]
    return log(shifted)


# -- thresholds ------------------------------------------------------------------------

cdef inline long long integer_threshold(double threshold) noexcept nogil:
    """floor(threshold), saturated to the long long range (0 for NaN): for integer
    x, x > threshold exactly when x > floor(threshold)."""
    if threshold >= 9.2e18:
        return LLONG_MAX
    if threshold <= -9.2e18:
        return LLONG_MIN
    if threshold != threshold:
        return 0
    return <long long>floor(threshold)


cdef inline value_t native_threshold(value_t dummy, long long ithr) noexcept nogil:
    """integer_threshold(threshold) clamped to value_t's range, for threshold >= 0
    (what the estimators pass for integer X): x > threshold exactly when
    x > native_threshold, compared in x's own width."""
    if value_t is uint8_t_:
        return <value_t>(ithr if ithr < 255 else 255)
    elif value_t is int8_t_:
        return <value_t>(ithr if ithr < 127 else 127)
    elif value_t is short:
        return <value_t>(ithr if ithr < 32767 else 32767)
    elif value_t is int:
        return <value_t>(ithr if ithr < 2147483647 else 2147483647)
    else:
        return <value_t>ithr


# -- fit ------------------------------------------------------------------------------

cdef inline Py_ssize_t add_count_row(
    const value_t* x,      # IN: one row of X
    double w,              # IN: the row's weight
    double* fc_row,        # IN/OUT: fc[c, :] of the row's class
    Py_ssize_t j0,         # the columns [j0, j1) to add
    Py_ssize_t j1,
    bint binarize,         # f(x) = x > threshold, else f(x) = x
    double thr,            # the threshold, for float input
    long long ithr,        # integer_threshold(thr), for integer input
) noexcept nogil:
    """fc_row[j] += w * f(x[j]) for j in [j0, j1).

    Returns the number of NaN or infinite x[j] met while thresholding floats
    (thresholding would hide them); 0 otherwise, where they propagate into fc.
    """
    cdef Py_ssize_t j
    cdef Py_ssize_t bad = 0
    cdef value_t tthr = native_threshold[value_t](0, ithr)
    if binarize:
        if value_t is float:
            # numpy compares float32 data with a float32 threshold.
            for j in range(j0, j1):
                fc_row[j] = fc_row[j] + w * <double>(x[j] > <float>thr)
            for j in range(j0, j1):
                bad += (x[j] - x[j]) != 0.0
        elif value_t is double:
            for j in range(j0, j1):
                fc_row[j] = fc_row[j] + w * <double>(x[j] > thr)
            for j in range(j0, j1):
                bad += (x[j] - x[j]) != 0.0
        else:
            for j in range(j0, j1):
                fc_row[j] = fc_row[j] + w * <double>(x[j] > tthr)
    else:
        for j in range(j0, j1):
            fc_row[j] = fc_row[j] + w * x[j]
    return bad


cdef inline void add_int_count_row(
    const value_t* x,          # IN: one row of integer X
    int_noalias counts_row,    # IN/OUT: int32 counts of the row's class
    Py_ssize_t j0,             # the columns [j0, j1) to add
    Py_ssize_t j1,
    value_t tthr,              # native_threshold(threshold)
) noexcept nogil:
    """counts_row[j] += (x[j] > threshold): unweighted thresholding of integers
    counts in int32, 8 lanes per AVX2 operation, straight from the input's bytes."""
    cdef Py_ssize_t j
    for j in range(j0, j1):
        counts_row[j] = counts_row[j] + (x[j] > tthr)


cdef inline Py_ssize_t add_threshold_count_row(
    const value_t* x,          # IN: one row of X
    int_noalias counts_row,    # IN/OUT: int32 counts of the row's class
    Py_ssize_t j0,             # the columns [j0, j1) to add
    Py_ssize_t j1,
    double thr,                # the threshold, for float input
    value_t tthr,              # native_threshold(threshold), for integer input
) noexcept nogil:
    """counts_row[j] += (x[j] > threshold), for unweighted thresholding of any
    dtype. Returns the number of NaN or infinite x[j] met (floats only: the
    comparison would hide them)."""
    cdef Py_ssize_t j
    cdef Py_ssize_t bad = 0
    if value_t is float:
        # numpy compares float32 data with a float32 threshold
        for j in range(j0, j1):
            counts_row[j] = counts_row[j] + (x[j] > <float>thr)
        for j in range(j0, j1):
            bad += (x[j] - x[j]) != 0.0
    elif value_t is double:
        for j in range(j0, j1):
            counts_row[j] = counts_row[j] + (x[j] > thr)
        for j in range(j0, j1):
            bad += (x[j] - x[j]) != 0.0
    else:
        add_int_count_row(x, counts_row, j0, j1, tthr)
    return bad


cdef inline Py_ssize_t count_negative(
    const value_t* x, Py_ssize_t j0, Py_ssize_t j1,
) noexcept nogil:
    """The number of x[j] < 0 for j in [j0, j1) (for the models that forbid them)."""
    cdef Py_ssize_t j
    cdef Py_ssize_t neg = 0
    if value_t is not uint8_t_:
        for j in range(j0, j1):
            neg += x[j] < 0
    return neg


cdef inline Py_ssize_t add_count_csr_row(
    const floating* data,          # IN: CSR values
    const csr_index_t* indices,    # IN: CSR column indices
    Py_ssize_t start,              # the row's nonzeros are [start, stop)
    Py_ssize_t stop,
    Py_ssize_t d,
    double w,
    double* fc_row,                # IN/OUT: fc[c, :] of the row's class
    bint binarize,
    floating thr,
    Py_ssize_t* n_bad,             # IN/OUT: non-finite values met while thresholding
    Py_ssize_t* n_neg,             # IN/OUT: negative values met without thresholding
) noexcept nogil:
    """fc_row[j] += w * f(v) over one CSR row's nonzeros (j, v), in order.

    Returns the number of column indices out of [0, d) (those entries are skipped).
    """
    cdef Py_ssize_t p, j
    cdef Py_ssize_t malformed = 0
    cdef floating v
    for p in range(start, stop):
        j = indices[p]
        if j < 0 or j >= d:
            malformed += 1
            continue
        v = data[p]
        if binarize:
            if v > thr:
                fc_row[j] += w
            n_bad[0] += (v - v) != 0
        else:
            fc_row[j] += w * v
            n_neg[0] += v < 0
    return malformed


# -- predict, dense ---------------------------------------------------------------------

cdef inline double dense_dot(
    const value_t* x, const double* w, Py_ssize_t d,
) noexcept nogil:
    """sum_j x[j] * w[j] with eight fixed accumulators: vectorised, and the same
    bits for any thread count."""
    cdef double acc[8]
    cdef Py_ssize_t j, t
    cdef Py_ssize_t d_blocked = d - d % 8
    for t in range(8):
        acc[t] = 0.0
    for j in range(0, d_blocked, 8):
        for t in range(8):
            acc[t] = acc[t] + x[j + t] * w[j + t]
    for j in range(d_blocked, d):
        acc[j - d_blocked] = acc[j - d_blocked] + x[j] * w[j]
    return sum_of_8(acc)


cdef inline double dense_masked_dot(
    const value_t* x, const double* w, Py_ssize_t d, double thr, long long ithr,
) noexcept nogil:
    """sum of w[j] over the j with x[j] > threshold, with eight fixed accumulators.

    Written as ``w * (x > thr)``, not as a conditional add: gcc 12 at -O3 with
    -mavx2 miscompiles the if-converted form ``acc += (w if x > thr else 0)``
    (masked loads give wrong sums; reproduced in plain C).
    """
    cdef double acc[8]
    cdef Py_ssize_t j, t
    cdef Py_ssize_t d_blocked = d - d % 8
    cdef float fthr = <float>thr
    cdef value_t tthr = native_threshold[value_t](0, ithr)
    for t in range(8):
        acc[t] = 0.0
    if value_t is float:
        for j in range(0, d_blocked, 8):
            for t in range(8):
                acc[t] = acc[t] + w[j + t] * <double>(x[j + t] > fthr)
        for j in range(d_blocked, d):
            acc[j - d_blocked] = acc[j - d_blocked] + w[j] * <double>(x[j] > fthr)
    elif value_t is double:
        for j in range(0, d_blocked, 8):
            for t in range(8):
                acc[t] = acc[t] + w[j + t] * <double>(x[j + t] > thr)
        for j in range(d_blocked, d):
            acc[j - d_blocked] = acc[j - d_blocked] + w[j] * <double>(x[j] > thr)
    else:
        for j in range(0, d_blocked, 8):
            for t in range(8):
                acc[t] = acc[t] + w[j + t] * <double>(x[j + t] > tthr)
        for j in range(d_blocked, d):
            acc[j - d_blocked] = acc[j - d_blocked] + w[j] * <double>(x[j] > tthr)
    return sum_of_8(acc)


cdef inline bint row_has_nonfinite(const value_t* x, Py_ssize_t d) noexcept nogil:
    cdef Py_ssize_t j
    cdef Py_ssize_t bad = 0
    if value_t is float or value_t is double:
        for j in range(d):
            bad += (x[j] - x[j]) != 0
    return bad != 0


cdef inline int dense_linear_predict_row(
    const value_t* x,        # IN: one row, d values
    const double* W,         # IN: (k, d) weights, class-major
    const double* bias,      # IN: (k,) per-class constant term
    Py_ssize_t k,
    Py_ssize_t d,
    bint binarize,           # score f(x) = x > threshold instead of x
    double thr,
    long long ithr,          # integer_threshold(thr)
    int mode,                # PredictMode
    intp_t* label_out,       # OUT for MODE_ARGMAX
    double* row_out,         # OUT (k,) for the other modes
) noexcept nogil:
    """Write one row's output; return 1 if the row is suspect (a non-finite best
    score, or a non-finite value hidden by thresholding)."""
    cdef Py_ssize_t c
    cdef double value
    cdef double best = -INFINITY
    cdef intp_t best_class = 0
    cdef bint saw_nan = False
    for c in range(k):
        if binarize:
            value = dense_masked_dot[value_t](x, W + c * d, d, thr, ithr) + bias[c]
        else:
            value = dense_dot[value_t](x, W + c * d, d) + bias[c]
        consider_class(value, c, &best, &best_class, &saw_nan)
        if mode != MODE_ARGMAX:
            row_out[c] = value
    if binarize and (value_t is float or value_t is double):
        # thresholding maps NaN and inf to 0/1: look for them explicitly
        if row_has_nonfinite[value_t](x, d):
            saw_nan = True
    return finish_scores(row_out, k, mode, label_out, best, best_class, saw_nan)


# -- predict, CSR -----------------------------------------------------------------------

cdef extern from *:
    """
    #if defined(__GNUC__) || defined(__clang__)
    #define FASTNB_PREFETCH(addr) __builtin_prefetch((const void*)(addr), 0, 1)
    #define FASTNB_PREFETCH_W(addr) __builtin_prefetch((const void*)(addr), 1, 3)
    #define FASTNB_PREFETCH_L1(addr) __builtin_prefetch((const void*)(addr), 0, 3)
    #else
    #define FASTNB_PREFETCH(addr) ((void)0)
    #define FASTNB_PREFETCH_W(addr) ((void)0)
    #define FASTNB_PREFETCH_L1(addr) ((void)0)
    #endif
    """
    # a line about to be read; FASTNB_PREFETCH_W: a line about to be written;
    # FASTNB_PREFETCH_L1: a line about to be read soon, into every cache level
    void FASTNB_PREFETCH(const void* addr) noexcept nogil
    void FASTNB_PREFETCH_W(const void* addr) noexcept nogil
    void FASTNB_PREFETCH_L1(const void* addr) noexcept nogil


cdef inline void prefetch_weights(const double* row, Py_ssize_t k) noexcept nogil:
    cdef Py_ssize_t offset
    for offset in range(0, k, 8):  # one cache line is 8 doubles
        FASTNB_PREFETCH(row + offset)
    FASTNB_PREFETCH(row + k - 1)


# The register path of CSR predict, for class counts padded to 8, 16, ..., 48.
# Each width is a struct type, so that in each specialization of csr_row_dot_lanes
# the width is a compile-time constant, whatever gcc chooses to inline: the loops
# over classes unroll and the accumulators stay in registers.
cdef struct Lanes8:
    double acc[8]

cdef struct Lanes16:
    double acc[16]

cdef struct Lanes24:
    double acc[24]

cdef struct Lanes32:
    double acc[32]

# (48 doubles are 12 of AVX2's 16 vector registers: the widest that stays in them)
cdef struct Lanes40:
    double acc[40]

cdef struct Lanes48:
    double acc[48]

ctypedef fused lanes_t:
    Lanes8
    Lanes16
    Lanes24
    Lanes32
    Lanes40
    Lanes48


cdef inline int csr_row_dot_lanes(
    lanes_t* sums_out,             # OUT: the kp = sizeof(lanes_t) / 8 sums
    const floating* data, const csr_index_t* indices,
    Py_ssize_t start, Py_ssize_t stop, Py_ssize_t nnz,
    const double* WT,              # (d, kp) weights, feature-major, zero-padded
    Py_ssize_t d,
    bint binarize, floating thr,
    bint* saw_nan,                 # OUT: set when thresholding met NaN or inf
) noexcept nogil:
    """csr_row_dot for kp = 8, 16, 24, 32, 40 or 48 classes. One loop per value
    map, so that the loop carries no test of ``binarize`` (fewer live registers)."""
    cdef Py_ssize_t p, j, jj, c
    cdef Py_ssize_t kp = sizeof(lanes_t) // sizeof(double)
    cdef double dv
    cdef lanes_t sums
    cdef const double* wrow
    for c in range(kp):
        sums.acc[c] = 0.0
    # The prefetch guards stay written out in each loop: gcc 12 dropped the
    # prefetches when they were behind a helper's early returns.
    if binarize:
        for p in range(start, stop):
            j = indices[p]
            if j < 0 or j >= d:
                return 2
            if p + PREFETCH_AHEAD < nnz:  # may look into the next rows: fine
                jj = indices[p + PREFETCH_AHEAD]
                if jj >= 0 and jj < d:
                    prefetch_weights(WT + jj * kp, kp)
            wrow = WT + j * kp
            if data[p] > thr:
                for c in range(kp):
                    sums.acc[c] = sums.acc[c] + wrow[c]
            if (data[p] - data[p]) != 0:
                saw_nan[0] = True
    else:
        for p in range(start, stop):
            j = indices[p]
            if j < 0 or j >= d:
                return 2
            if p + PREFETCH_AHEAD < nnz:
                jj = indices[p + PREFETCH_AHEAD]
                if jj >= 0 and jj < d:
                    prefetch_weights(WT + jj * kp, kp)
            wrow = WT + j * kp
            dv = data[p]
            for c in range(kp):
                sums.acc[c] = sums.acc[c] + dv * wrow[c]
    sums_out[0] = sums
    return 0


cdef inline int csr_row_dot(
    const floating* data,          # IN: CSR values
    const csr_index_t* indices,    # IN: CSR column indices
    Py_ssize_t start,              # the row's nonzeros are [start, stop)
    Py_ssize_t stop,
    Py_ssize_t nnz,                # len(indices): how far prefetching may look
    const double* WT,              # IN: (d, kp) weights, feature-major, zero-padded
    Py_ssize_t kp,                 # WT's row length (>= k)
    Py_ssize_t k,
    Py_ssize_t d,
    bint binarize,
    floating thr,
    double* acc,                   # OUT: acc[c] = sum of f(v) * WT[j, c], c < k
    bint* saw_nan,                 # OUT: set when thresholding met NaN or inf
) noexcept nogil:
    """One CSR row's dot products with every class's weights, O(nnz(row) x k).

    ``acc`` must hold kp doubles when kp is a multiple of 8 up to 48 (the register
    path), k doubles otherwise. Every acc[c] is summed in nonzero order, so the
    result does not depend on kp. Returns 2 if a column index is out of range.
    """
    cdef Py_ssize_t p, j, jj, c
    cdef double dv
    cdef const double* wrow
    if kp == 8:
        return csr_row_dot_lanes(<Lanes8*>acc, data, indices, start, stop, nnz, WT, d,
                                 binarize, thr, saw_nan)
    if kp == 16:
        return csr_row_dot_lanes(<Lanes16*>acc, data, indices, start, stop, nnz, WT, d,
                                 binarize, thr, saw_nan)
    if kp == 24:
        return csr_row_dot_lanes(<Lanes24*>acc, data, indices, start, stop, nnz, WT, d,
                                 binarize, thr, saw_nan)
    if kp == 32:
        return csr_row_dot_lanes(<Lanes32*>acc, data, indices, start, stop, nnz, WT, d,
                                 binarize, thr, saw_nan)
    if kp == 40:
        return csr_row_dot_lanes(<Lanes40*>acc, data, indices, start, stop, nnz, WT, d,
                                 binarize, thr, saw_nan)
    if kp == 48:
        return csr_row_dot_lanes(<Lanes48*>acc, data, indices, start, stop, nnz, WT, d,
                                 binarize, thr, saw_nan)
    for c in range(k):
        acc[c] = 0.0
    for p in range(start, stop):
        j = indices[p]
        if j < 0 or j >= d:
            return 2
        if p + PREFETCH_AHEAD < nnz:  # may look into the next rows: fine
            jj = indices[p + PREFETCH_AHEAD]
            if jj >= 0 and jj < d:
                prefetch_weights(WT + jj * kp, kp)
        wrow = WT + j * kp
        if binarize:
            if data[p] > thr:
                for c in range(k):
                    acc[c] = acc[c] + wrow[c]
            if (data[p] - data[p]) != 0:
                saw_nan[0] = True
        else:
            dv = data[p]
            for c in range(k):
                acc[c] = acc[c] + dv * wrow[c]
    return 0


cdef inline int csr_linear_predict_row(
    const floating* data,          # IN: CSR values
    const csr_index_t* indices,    # IN: CSR column indices
    Py_ssize_t start,              # the row's nonzeros are [start, stop)
    Py_ssize_t stop,
    Py_ssize_t nnz,
    const double* WT,              # IN: (d, kp) weights, feature-major, zero-padded
    Py_ssize_t kp,
    const double* bias,            # IN: (k,) per-class constant term
    Py_ssize_t k,
    Py_ssize_t d,
    bint binarize,
    floating thr,
    int mode,                      # PredictMode
    intp_t* label_out,             # OUT for MODE_ARGMAX
    double* row_out,               # OUT (k,) for the other modes
    double* spill,                 # SCRATCH (k,) when k > LOCAL_K (may be row_out)
) noexcept nogil:
    """Write one CSR row's output; 1 if it is suspect, 2 if malformed (an index out
    of range), else 0."""
    cdef Py_ssize_t c
    cdef double local_acc[LOCAL_K]
    cdef double* acc = spill
    cdef double value
    cdef double best = -INFINITY
    cdef intp_t best_class = 0
    cdef bint saw_nan = False
    if k <= LOCAL_K:
        acc = &local_acc[0]
    if csr_row_dot(data, indices, start, stop, nnz, WT, kp, k, d, binarize, thr, acc,
                   &saw_nan):
        return 2
    for c in range(k):
        value = acc[c] + bias[c]
        consider_class(value, c, &best, &best_class, &saw_nan)
        if mode != MODE_ARGMAX:
            row_out[c] = value
    return finish_scores(row_out, k, mode, label_out, best, best_class, saw_nan)
