"""Discrete Naive Bayes fit kernels (Bernoulli, Multinomial, Complement): the
per-class counts and the log probabilities derived from them.

Design
------
The point functions (one row's counts, one row's joint log likelihood, dense,
CSR and through the byte-pattern table) are in ``_counts.pxd`` and
``_bool_table.pxd``; this module loops over rows with them. Each loop is written
once, over a range of work items, and runs on one block or, from a prange, on one
block per thread (``_common.pxd``). Scratch memory comes from NumPy before the
GIL is released: a failed allocation raises MemoryError.

Fit. All three models need the same sufficient statistics: per-class weighted
feature sums ``fc[c, j] = sum_i w_i f(x_ij)`` and class weights ``cc[c]``, where
``f`` is the identity or, for BernoulliNB, the threshold ``x > binarize`` applied
on the fly (no binarized copy of X is ever made). Every ``fc[c, j]`` is summed in
row order, starting from the value the caller passes in (zeros for ``fit``, the
current counts for ``partial_fit``), so

* the result does not depend on how the work is split between threads, and
* ``partial_fit`` over any split of the rows gives the same bits as one ``fit``.

Dense X is split between threads by contiguous column blocks (each thread reads
every row, but only its columns); CSR X is split by class (each thread handles
all the rows of its classes, in row order). Neither needs per-thread copies of
the k x d table or a merge step.

Values are read in the caller's dtype: nothing is converted. The same pass counts
negative values and, when thresholding, non-finite values (``_counts.pxd``).

Log probabilities. MultinomialNB's ``log(N_cj + a) - log(N_c + sum a)`` is
computed a class row at a time (``multinomial_log_prob``), the logs of small
whole counts read from a table; a row of other values is left to NumPy's
vectorised log. ComplementNB's feature totals and log complement probabilities
(``complement_log_prob``) follow the same plan.

Predict: ``_discrete_predict.pyx``.
"""

from cython.parallel cimport prange
from libc.math cimport log
from libc.string cimport memset

from _common cimport intp_t, floating, block_start
from _counts cimport (
    uint8_t_, value_t, integer_threshold, native_threshold, add_count_row,
    add_threshold_count_row, count_negative, add_count_csr_row, FASTNB_PREFETCH,
    SMALL_COUNTS, fill_small_weights, is_small_whole, log_shifted, shifted_in_table,
)

import numpy as np

# CSR matrices come with int32 or int64 indices.
ctypedef fused index_t:
    int
    long long

cdef enum:
    FIT_AHEAD = 4  # rows between a CSR row's prefetch and its counting


# ----------------------------------------------------------------------------------
# Fit
# ----------------------------------------------------------------------------------

cdef void dense_fit_block(
    const value_t[:, ::1] X,    # IN: (n, d)
    const intp_t[::1] codes,    # IN: (n,) class of each row
    const double* weights,      # IN: (n,) or NULL
    double[:, ::1] fc,          # IN/OUT: (k, d) feature sums
    int* int_counts,            # OUT: (k, d) int32 counts, or NULL (see dense_fit)
    Py_ssize_t i0,              # the rows [i0, i1) of this block
    Py_ssize_t i1,
    Py_ssize_t j0,              # the columns [j0, j1) of this block
    Py_ssize_t j1,
    bint binarize,
    double thr,
    long long ithr,             # integer_threshold(thr)
    bint check_neg,
    intp_t* n_bad,              # OUT: non-finite values seen (thresholding only)
    intp_t* n_neg,              # OUT: negative values seen (check_neg only)
) noexcept nogil:
    cdef Py_ssize_t i
    cdef Py_ssize_t d = X.shape[1]
    cdef Py_ssize_t bad = 0
    cdef Py_ssize_t neg = 0
    cdef const value_t* x
    cdef value_t tthr
    if int_counts != NULL:
        # Unweighted thresholding: the counts are integers, counted in int32 and
        # added to fc once (add_int_counts).
        tthr = native_threshold[value_t](0, ithr)
        for i in range(i0, i1):
            bad += add_threshold_count_row(&X[i, 0], int_counts + codes[i] * d, j0, j1,
                                           thr, tthr)
        n_bad[0] = bad
        n_neg[0] = 0
        return
    for i in range(i0, i1):
        x = &X[i, 0]
        bad += add_count_row(x, 1.0 if weights == NULL else weights[i],
                             &fc[codes[i], 0], j0, j1, binarize, thr, ithr)
        if check_neg and not binarize:
            neg += count_negative(x, j0, j1)
    n_bad[0] = bad
    n_neg[0] = neg


cdef void add_int_counts(
    double[:, ::1] fc,          # IN/OUT: (k, d)
    const int* counts,          # IN: (n_tables, k, d) int32 counts
    Py_ssize_t n_tables,
    Py_ssize_t j0,              # the columns [j0, j1) to add
    Py_ssize_t j1,
) noexcept nogil:
    """fc[c, j] += the sum of the tables' counts[t, c, j] (exact: integers)."""
    cdef Py_ssize_t k = fc.shape[0], d = fc.shape[1]
    cdef Py_ssize_t t, c, j
    cdef long long total
    for c in range(k):
        for j in range(j0, j1):
            total = 0
            for t in range(n_tables):
                total = total + counts[(t * k + c) * d + j]
            fc[c, j] = fc[c, j] + <double>total


cdef void accumulate_class_counts(
    const intp_t[::1] codes, const double* weights, double[::1] cc,
) noexcept nogil:
    cdef Py_ssize_t i
    if weights == NULL:
        for i in range(codes.shape[0]):
            cc[codes[i]] += 1.0
    else:
        for i in range(codes.shape[0]):
            cc[codes[i]] += weights[i]


def dense_fit(
    const value_t[:, ::1] X,          # IN: (n, d) samples, any supported dtype
    const intp_t[::1] codes,          # IN: (n,) class index in [0, k)
    const double[::1] sample_weight,  # IN: (n,) or None
    double[:, ::1] fc,                # IN/OUT: (k, d) feature sums, accumulated into
    double[::1] cc,                   # IN/OUT: (k,) class weights, accumulated into
    bint binarize,
    double threshold,
    bint check_neg,
    Py_ssize_t block_align,           # columns per cache line of X's dtype
    bint split_rows,                  # threads take rows (integer counts only)
    int n_threads,
):
    """Accumulate per-class feature sums of dense X in one pass.

    Unweighted thresholding counts in int32 (an integer sum below 2**31 is exact
    in any order), then adds each count to fc once; the threads may then split
    the rows (``split_rows``), each into a table of its own, which pays when rows
    are too narrow to split into page-wide column blocks. Otherwise the threads
    split the columns and each fc[c, j] is summed by one thread in row order.
    Either way the bits do not depend on the thread count.

    Returns ``(n_bad, n_neg)``: non-finite values met while thresholding, and
    negative values met when ``check_neg``.
    """
    cdef Py_ssize_t n = X.shape[0]
    cdef Py_ssize_t d = X.shape[1]
    cdef Py_ssize_t k = fc.shape[0]
    cdef const double* weights = NULL
    cdef Py_ssize_t n_blocks, block, width
    cdef long long ithr = integer_threshold(threshold)
    cdef bint int_counting
    cdef int[:, :, ::1] int_counts
    cdef int* counts = NULL
    if sample_weight is not None:
        weights = &sample_weight[0]
    int_counting = binarize and weights == NULL and n < 2147483647
    split_rows = split_rows and int_counting
    if split_rows:
        n_blocks = max(1, min(n_threads, n))
        width = d
    else:
        # Column blocks: one per thread, cut at cache-line boundaries.
        n_blocks = max(n_threads, 1)
        width = (d + n_blocks - 1) // n_blocks
        width = ((width + block_align - 1) // block_align) * block_align
        n_blocks = max(1, (d + width - 1) // width)
    bad_arr = np.zeros(n_blocks, dtype=np.intp)
    neg_arr = np.zeros(n_blocks, dtype=np.intp)
    cdef intp_t[::1] bad = bad_arr
    cdef intp_t[::1] neg = neg_arr
    if int_counting:
        int_counts = np.zeros((n_blocks if split_rows else 1, k, max(d, 1)), dtype=np.intc)
        counts = &int_counts[0, 0, 0]
    with nogil:
        if n_blocks == 1:
            dense_fit_block(X, codes, weights, fc, counts, 0, n, 0, d, binarize,
                            threshold, ithr, check_neg, &bad[0], &neg[0])
            if counts != NULL:
                add_int_counts(fc, counts, 1, 0, d)
        elif split_rows:
            for block in prange(n_blocks, schedule='static', num_threads=n_blocks):
                dense_fit_block(X, codes, weights, fc, counts + block * k * d,
                                block_start(block, n_blocks, n),
                                block_start(block + 1, n_blocks, n), 0, d, binarize,
                                threshold, ithr, check_neg, &bad[block], &neg[block])
            # rows are split only when they are narrow: k x d is small
            add_int_counts(fc, counts, n_blocks, 0, d)
        else:
            for block in prange(n_blocks, schedule='static', num_threads=n_blocks):
                dense_fit_block(X, codes, weights, fc, counts, 0, n, block * width,
                                min((block + 1) * width, d), binarize, threshold, ithr,
                                check_neg, &bad[block], &neg[block])
                if counts != NULL:
                    add_int_counts(fc, counts, 1, block * width, min((block + 1) * width, d))
        accumulate_class_counts(codes, weights, cc)
    return int(bad_arr.sum()), int(neg_arr.sum())


cdef void csr_fit_classes(
    const floating[::1] data,
    const index_t[::1] indices,
    const index_t[::1] indptr,
    Py_ssize_t d,
    const intp_t[::1] order,     # IN: the rows grouped by class, ascending in each
    const intp_t[::1] start,     # IN: (k + 1,) class c's rows are order[start[c]:start[c + 1]]
    const double* weights,
    double[:, ::1] fc,           # IN/OUT: (k, d)
    bint binarize,
    double thr,
    intp_t[:, ::1] flags,        # OUT: (k, 3) [n_bad, n_neg, n_malformed] per class
    Py_ssize_t first_class,      # the classes [first_class, stop_class) of this block
    Py_ssize_t stop_class,
    bint zero_counts,            # fc holds no counts yet: zero each class's row first
) noexcept nogil:
    cdef Py_ssize_t c, r, i, row_start, row_stop, ahead, p
    cdef Py_ssize_t data_step = 64 // sizeof(floating)   # one cache line of each
    cdef Py_ssize_t index_step = 64 // sizeof(index_t)
    cdef Py_ssize_t nnz = data.shape[0]
    cdef Py_ssize_t n_bad, n_neg, n_malformed
    for c in range(first_class, stop_class):
        n_bad = 0
        n_neg = 0
        n_malformed = 0
        if zero_counts:
            # A new table's pages are faulted in by the thread that counts the
            # class, in order, and the row is left in cache for the scatter below
            # (M1, 20 x 2**18: faulted by the scattered adds, 2 threads, 15 ms;
            # in order, row by row, 4 ms).
            memset(&fc[c, 0], 0, fc.shape[1] * sizeof(double))
        for r in range(start[c], start[c + 1]):
            # A class's rows are scattered over X: each one starts with a miss
            # (and a new page, where the hardware prefetchers stop). Ask for the
            # row FIT_AHEAD places ahead while this one is counted.
            if r + FIT_AHEAD < start[c + 1]:
                ahead = order[r + FIT_AHEAD]
                row_start = indptr[ahead]
                row_stop = indptr[ahead + 1]
                if 0 <= row_start <= row_stop <= nnz:
                    # one prefetch a cache line (Cython needs a constant step)
                    for p in range(0, (row_stop - row_start + data_step - 1) // data_step):
                        FASTNB_PREFETCH(&data[row_start + p * data_step])
                    for p in range(0, (row_stop - row_start + index_step - 1) // index_step):
                        FASTNB_PREFETCH(&indices[row_start + p * index_step])
            i = order[r]
            row_start = indptr[i]
            row_stop = indptr[i + 1]
            if row_start < 0 or row_stop > nnz or row_stop < row_start:
                n_malformed += 1
                continue
            n_malformed += add_count_csr_row(
                &data[0], &indices[0], row_start, row_stop, d,
                1.0 if weights == NULL else weights[i], &fc[c, 0], binarize,
                <floating>thr, &n_bad, &n_neg,
            )
        flags[c, 0] = n_bad
        flags[c, 1] = n_neg
        flags[c, 2] = n_malformed


def csr_fit(
    const floating[::1] data,         # IN: CSR values
    const index_t[::1] indices,       # IN: CSR column indices
    const index_t[::1] indptr,        # IN: (n + 1,) CSR row pointers
    Py_ssize_t n_features,
    const intp_t[::1] codes,          # IN: (n,) class index in [0, k)
    const double[::1] sample_weight,  # IN: (n,) or None
    double[:, ::1] fc,                # IN/OUT: (k, d)
    double[::1] cc,                   # IN/OUT: (k,)
    bint binarize,
    double threshold,
    bint check_neg,
    int n_threads,
    bint zero_counts=False,
):
    """Accumulate per-class feature sums of a CSR matrix in one pass over its nonzeros.

    Rows are grouped by class (a stable counting sort, O(n)); each class is one
    task. With ``zero_counts``, ``fc``'s contents are ignored: each class's row is
    zeroed by its thread before its rows are added (``fc`` may then come from
    ``np.empty``). Returns ``(n_bad, n_neg, n_malformed)``; ``n_malformed`` counts row
    pointers or column indices out of range (such entries are skipped).
    """
    cdef Py_ssize_t n = codes.shape[0]
    cdef Py_ssize_t k = fc.shape[0]
    cdef Py_ssize_t i, c, block
    cdef Py_ssize_t n_blocks = min(max(n_threads, 1), k)
    cdef const double* weights = NULL
    if sample_weight is not None:
        weights = &sample_weight[0]
    start_arr = np.zeros(k + 1, dtype=np.intp)
    order_arr = np.empty(n, dtype=np.intp)
    flags_arr = np.zeros((k, 3), dtype=np.intp)
    fill_arr = np.empty(k, dtype=np.intp)
    cdef intp_t[::1] start = start_arr
    cdef intp_t[::1] order = order_arr
    cdef intp_t[:, ::1] flags = flags_arr
    cdef intp_t[::1] fill = fill_arr
    with nogil:
        for i in range(n):
            start[codes[i] + 1] += 1
        for c in range(k):
            start[c + 1] += start[c]
            fill[c] = start[c]
        for i in range(n):
            c = codes[i]
            order[fill[c]] = i
            fill[c] += 1
        if n_blocks == 1:
            csr_fit_classes(data, indices, indptr, n_features, order, start, weights,
                            fc, binarize, threshold, flags, 0, k, zero_counts)
        else:
            for block in prange(n_blocks, schedule='static', num_threads=n_blocks):
                csr_fit_classes(data, indices, indptr, n_features, order, start,
                                weights, fc, binarize, threshold, flags,
                                block_start(block, n_blocks, k),
                                block_start(block + 1, n_blocks, k), zero_counts)
        accumulate_class_counts(codes, weights, cc)
    totals = flags_arr.sum(axis=0)
    return int(totals[0]), int(totals[1]) if check_neg else 0, int(totals[2])


def count_nonfinite(const double[:, ::1] a, int n_threads=1):
    """Number of NaN or infinite entries of a 2d float64 array (rows split
    between ``n_threads`` threads)."""
    cdef Py_ssize_t i, j
    cdef Py_ssize_t bad = 0
    for i in prange(a.shape[0], schedule='static', num_threads=max(n_threads, 1),
                    nogil=True):
        for j in range(a.shape[1]):
            bad += (a[i, j] - a[i, j]) != 0.0
    return bad


# ----------------------------------------------------------------------------------
# MultinomialNB's log probabilities of a dense count table
# ----------------------------------------------------------------------------------
#
# One class row per work item, on the threads in a static split: a row's values do
# not depend on the split. A row's total is taken in four interleaved sums, in one
# fixed order. Most counts of text are small whole numbers, whose logs come from a
# table (``SMALL_COUNTS``). A row where more than 1 / LOG_ROW_SHARE of the values
# need a log of their own (tf-idf values, large counts) is left to the caller,
# whose vectorised log (NumPy's, ~2 ns a value here) beats one log call at a time
# (~10 ns). M1 (20 x 2**18 counts, 99.4% below 64), 2 threads:
# whole fits 103 -> 96 ms and 88 -> 69 ms (medians of 9 fits, two runs of eight
# process pairs; the unchanged ComplementNB fit moved 114 -> 112 and 96 -> 92).

# the fewest features for which ``multinomial_log_prob`` makes its table
LOG_TABLE_MIN_FEATURES = SMALL_COUNTS

cdef enum:
    LOG_ROW_SHARE = 8
    LOG_CHUNK = 1024      # a row's values between two looks at its share of logs
    LOG_SAMPLE_STEP = 64  # the values a row's first look at its share of logs reads


cdef inline double log_count(double count, double a, const double* small_logs,
                             Py_ssize_t* n_logs) noexcept nogil:
    """log(count + a): from the table for a small whole count, else a log (counted)."""
    if is_small_whole(count):
        return small_logs[<int>count]
    n_logs[0] += 1
    return log(count + a)


cdef void multinomial_log_prob_row(
    const double* count, double a, Py_ssize_t d, const double* small_logs,
    double* log_prob, double* log_total, uint8_t_* left,
) noexcept nogil:
    """One row: its total in four lanes (lane j % 4, each in order: the same sum
    whether or not the row is left), and log(N_cj + a) into ``log_prob`` in the
    same pass, until the values that needed a log of their own pass 1 /
    LOG_ROW_SHARE of the row; then the row is left. A row whose every
    LOG_SAMPLE_STEP-th value says it would pass that share is left at once."""
    cdef Py_ssize_t j = 0, stop, d4 = d - d % 4
    cdef Py_ssize_t n_logs = 0
    cdef double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0, lt, v0, v1, v2, v3
    cdef bint taking_logs
    while j < d:
        n_logs += not is_small_whole(count[j])
        j += LOG_SAMPLE_STEP
    taking_logs = n_logs * LOG_ROW_SHARE * LOG_SAMPLE_STEP <= d
    n_logs = 0
    j = 0
    while taking_logs and j < d4:
        stop = min(j + LOG_CHUNK, d4)
        while j < stop:
            v0 = count[j]
            v1 = count[j + 1]
            v2 = count[j + 2]
            v3 = count[j + 3]
            s0 += v0 + a
            s1 += v1 + a
            s2 += v2 + a
            s3 += v3 + a
            log_prob[j] = log_count(v0, a, small_logs, &n_logs)
            log_prob[j + 1] = log_count(v1, a, small_logs, &n_logs)
            log_prob[j + 2] = log_count(v2, a, small_logs, &n_logs)
            log_prob[j + 3] = log_count(v3, a, small_logs, &n_logs)
            j += 4
        taking_logs = n_logs * LOG_ROW_SHARE <= d
    while j < d4:
        s0 += count[j] + a
        s1 += count[j + 1] + a
        s2 += count[j + 2] + a
        s3 += count[j + 3] + a
        j += 4
    for j in range(d4, d):
        s0 += count[j] + a
        if taking_logs:
            log_prob[j] = log_count(count[j], a, small_logs, &n_logs)
    lt = log((s0 + s1) + (s2 + s3))
    log_total[0] = lt
    left[0] = not taking_logs
    if taking_logs:
        for j in range(d):
            log_prob[j] = log_prob[j] - lt


def multinomial_log_prob(
    const double[:, ::1] fc,      # IN: (k, d) counts N_cj, d >= SMALL_COUNTS
    double alpha,                 # IN: the one alpha of every feature
    double[:, ::1] log_prob,      # OUT: (k, d) log(N_cj + a) - log(N_c + d a)
    double[::1] log_total,        # OUT: (k,) log(sum_j (N_cj + a))
    uint8_t_[::1] left,           # OUT: (k,) 1 for a row left to the caller
    int n_threads,
):
    """MultinomialNB's ``feature_log_prob_`` for one alpha, scikit-learn's
    expression ``log(N_cj + a) - log(sum_j (N_cj + a))``, row by row.

    A row whose values are mostly not small whole counts gets only its
    ``log_total``, and ``left[c] = 1``: the caller computes its ``log_prob``
    with a vectorised log.
    """
    cdef Py_ssize_t k = fc.shape[0], d = fc.shape[1], c
    cdef double small_logs[SMALL_COUNTS]
    if d < SMALL_COUNTS:
        raise ValueError(f"multinomial_log_prob needs at least {SMALL_COUNTS} features")
    if log_prob.shape[0] != k or log_prob.shape[1] != d or log_total.shape[0] != k \
            or left.shape[0] != k:
        raise ValueError("multinomial_log_prob: the outputs' shapes do not match fc")
    fill_small_weights(small_logs, alpha, 0.0)
    with nogil:
        # (a one-thread call, a small table's, runs the loop without threads)
        for c in prange(k, schedule='static', num_threads=n_threads,
                        use_threads_if=n_threads > 1):
            multinomial_log_prob_row(&fc[c, 0], alpha, d, small_logs, &log_prob[c, 0],
                                     &log_total[c], &left[c])


# ----------------------------------------------------------------------------------
# ComplementNB's log complement probabilities of a dense count table
# ----------------------------------------------------------------------------------
#
# scikit-learn's comp_cj = (F_j + a) - N_cj, with F_j = sum_c N_cj, and
# log(comp_cj / sum_j comp_cj). The same plan as MultinomialNB's: the feature
# totals in class order by blocks of features, then one class row per work item,
# its total in four lanes, the log of a complement count whose F_j - N_cj is a
# small whole number from the table, the row left to NumPy when more than
# 1 / LOG_ROW_SHARE of it needs a log of its own. In place of NumPy's five passes
# over the (k, d) table (sum, subtract, sum, divide, log, negate: ~30 ms of M1's
# ~95 ms fit on 2 threads), two.

cdef enum:
    FEATURE_TOTAL_BLOCK = 4096   # features a task sums over the classes (32 kB)


cdef void complement_log_prob_row(
    const double* count, const double* feature_all, double a, Py_ssize_t d,
    const double* small_logs, double sign, double* log_prob, double* log_total,
    uint8_t_* left,
) noexcept nogil:
    """One row: sign * (log comp_cj - log sum_j comp_cj) into ``log_prob``, or,
    past its share of logs, only the total's log and ``left[0] = 1``."""
    cdef Py_ssize_t j = 0, stop
    cdef Py_ssize_t n_logs = 0
    cdef double lanes[4]
    cdef double comp, rest, lt
    cdef bint taking_logs
    while j < d:
        n_logs += not is_small_whole(feature_all[j] - count[j])
        j += LOG_SAMPLE_STEP
    taking_logs = n_logs * LOG_ROW_SHARE * LOG_SAMPLE_STEP <= d
    n_logs = 0
    lanes[0] = lanes[1] = lanes[2] = lanes[3] = 0.0
    j = 0
    while j < d:
        stop = min(j + LOG_CHUNK, d)
        if taking_logs:
            while j < stop:
                # comp as scikit-learn rounds it; from the table when
                # F_j - N_cj is a small whole n and n + a rounds to comp
                comp = (feature_all[j] + a) - count[j]
                rest = feature_all[j] - count[j]
                lanes[j & 3] += comp
                log_prob[j] = log_shifted(rest, comp, a, small_logs)
                n_logs += not shifted_in_table(rest, comp, a)
                j += 1
            taking_logs = n_logs * LOG_ROW_SHARE <= d
        else:
            while j < stop:
                lanes[j & 3] += (feature_all[j] + a) - count[j]
                j += 1
    lt = log((lanes[0] + lanes[1]) + (lanes[2] + lanes[3]))
    log_total[0] = lt
    left[0] = not taking_logs
    if taking_logs:
        for j in range(d):
            log_prob[j] = sign * (log_prob[j] - lt)


def complement_log_prob(
    const double[:, ::1] fc,      # IN: (k, d) counts N_cj, d >= SMALL_COUNTS
    double alpha,                 # IN: the one alpha of every feature
    double[:, ::1] log_prob,      # OUT: (k, d) sign * log(comp_cj / sum_j comp_cj)
    double[::1] feature_all,      # OUT: (d,) F_j = sum_c N_cj, summed in class order
    double[::1] log_total,        # OUT: (k,) log(sum_j comp_cj)
    uint8_t_[::1] left,           # OUT: (k,) 1 for a row left to the caller
    double sign,                  # IN: -1 (scikit-learn's weights) or 1 (to normalise)
    int n_threads,
):
    """ComplementNB's feature totals and log complement probabilities for one
    alpha, ``sign * log(comp_cj / sum_j comp_cj)`` with ``comp_cj = (F_j + a) -
    N_cj``, row by row (as ``log comp_cj - log sum_j comp_cj``).

    A row whose complement counts are mostly not small whole numbers gets only its
    ``log_total``, and ``left[c] = 1``: the caller computes its ``log_prob``.
    """
    cdef Py_ssize_t k = fc.shape[0], d = fc.shape[1], c, j, block, lo, hi
    cdef Py_ssize_t n_blocks = (d + FEATURE_TOTAL_BLOCK - 1) // FEATURE_TOTAL_BLOCK
    cdef double small_logs[SMALL_COUNTS]
    if d < SMALL_COUNTS or k < 1:
        raise ValueError(f"complement_log_prob needs a class and at least "
                         f"{SMALL_COUNTS} features")
    if (log_prob.shape[0] != k or log_prob.shape[1] != d or feature_all.shape[0] != d
            or log_total.shape[0] != k or left.shape[0] != k):
        raise ValueError("complement_log_prob: the outputs' shapes do not match fc")
    fill_small_weights(small_logs, alpha, 0.0)
    n_threads = max(n_threads, 1)
    with nogil:
        # F_j = N_0j + N_1j + ...: NumPy's sum over axis 0, the same bits
        for block in prange(n_blocks, schedule='static', num_threads=n_threads):
            lo = block * FEATURE_TOTAL_BLOCK
            hi = min(lo + FEATURE_TOTAL_BLOCK, d)
            for j in range(lo, hi):
                feature_all[j] = fc[0, j]
            for c in range(1, k):
                for j in range(lo, hi):
                    feature_all[j] = feature_all[j] + fc[c, j]
        for c in prange(k, schedule='static', num_threads=n_threads,
                        use_threads_if=n_threads > 1):
            complement_log_prob_row(&fc[c, 0], &feature_all[0], alpha, d, small_logs,
                                    sign, &log_prob[c, 0], &log_total[c], &left[c])
