"""CategoricalNB's tables: frozen hash tables of category keys, the
log-probability tables predict reads, the class log prior, and the small-batch
path of partial_fit that keeps them up to date.

Design
------
The log-probability table of feature j (``PredictTables.log_prob`` in
fastnb/_categorical/_tables.py) is a block of (n_categories[j] + 1) rows of
``row_width`` values: row r holds log P(category r | class c) in column c, the last
row the smoothed probability of an unseen category, and row_width is k padded to 4
or 8 (for k <= 8) so that the class accumulators stay in registers: one lookup
gives all k classes contiguously. ``refresh_log_probs`` writes these blocks and
``feature_log_prob_`` (k, C) from the counts, for the (feature, class) pairs a fit
touched, by the same point function (``smooth_counts``) every time.

``build_table`` freezes a value feature's keys into an open-addressing table (at
most half full) that maps a key to its category index; ``lookup_table`` looks keys
up in it. The gather predictor that reads these tables is _categorical_predict.pyx.

Threads: a parallel loop runs from a prange when n_threads > 1 and from a plain
loop otherwise, so a small call (and a forked child, which resolves to one
thread) never enters an OpenMP region (see _categorical_count.pyx).
"""

from cython.parallel cimport prange
from libc.math cimport exp2, floor, log, pow
from cpython.buffer cimport (
    PyBUF_C_CONTIGUOUS, PyBUF_FORMAT, PyBuffer_Release, PyObject_GetBuffer,
)
from libc.stdint cimport int32_t, int64_t, uint8_t, uint64_t
from libc.string cimport memcmp

from _common cimport intp_t
cimport _categorical_point as point
from _categorical_point cimport (
    value_t, TAG_EMPTY, SMALL_COUNTS, slot_hash, table_find, table_row, code_row,
    fill_small_logs, smooth_counts, fastnb_malloc, fastnb_free,
)

import numpy as np


def _refuse_allocations_after(Py_ssize_t allowed):
    """Tests: let ``allowed`` more C allocations succeed, then fail every one
    (-1: back to normal)."""
    point.fastnb_allocations_left = allowed


def build_table(const uint8_t[::1] tags, const uint64_t[::1] keys):
    """A frozen table mapping (tags[i], keys[i]) -> i, at most half full.

    Returns ``(table_keys, table_tags, table_rows, duplicate)`` where duplicate is
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
    table_keys_arr = np.zeros(size, dtype=np.uint64)
    table_tags_arr = np.zeros(size, dtype=np.uint8)
    table_rows_arr = np.full(size, -1, dtype=np.int64)
    cdef uint64_t[::1] table_keys = table_keys_arr
    cdef uint8_t[::1] table_tags = table_tags_arr
    cdef int64_t[::1] table_rows = table_rows_arr
    with nogil:
        for i in range(m):
            slot = <int64_t>(slot_hash(tags[i], keys[i]) & <uint64_t>mask)
            while table_tags[slot] != TAG_EMPTY:
                if table_keys[slot] == keys[i] and table_tags[slot] == tags[i]:
                    break
                slot = (slot + 1) & mask
            if table_tags[slot] != TAG_EMPTY:
                if dup_i < 0:
                    dup_i = table_rows[slot]
                    dup_j = i
                continue
            table_tags[slot] = tags[i]
            table_keys[slot] = keys[i]
            table_rows[slot] = i
    duplicate = None if dup_i < 0 else (dup_i, dup_j)
    return table_keys_arr, table_tags_arr, table_rows_arr, duplicate


def lookup_table(
    const uint64_t[::1] table_keys, const uint8_t[::1] table_tags,
    const int64_t[::1] table_rows,
    const uint8_t[::1] tags, const uint64_t[::1] keys,
):
    """The row of each (tags[i], keys[i]) in a frozen table, or -1."""
    cdef Py_ssize_t i
    cdef int64_t mask = table_keys.shape[0] - 1
    out_arr = np.empty(tags.shape[0], dtype=np.intp)
    cdef intp_t[::1] out = out_arr
    with nogil:
        for i in range(tags.shape[0]):
            out[i] = table_find(&table_keys[0], &table_tags[0], &table_rows[0], mask,
                                tags[i], keys[i])
    return out_arr


# -- log-probability tables ---------------------------------------------------------------------------
cdef inline void refresh_pair(
    const double[:, ::1] category_count, const intp_t* starts, double alpha,
    const double* small_logs, Py_ssize_t j, Py_ssize_t c,
    double[:, ::1] feature_log_prob, double* table, const intp_t* block_start,
    Py_ssize_t row_width,
) noexcept nogil:
    """Feature j's log probabilities for class c, into both layouts."""
    cdef Py_ssize_t r
    cdef Py_ssize_t n = starts[j + 1] - starts[j]
    cdef double* block = table + block_start[j] + c
    smooth_counts(&category_count[c, starts[j]], n, alpha, small_logs, block, row_width,
                  block + n * row_width)
    for r in range(n):
        feature_log_prob[c, starts[j] + r] = block[r * row_width]


def refresh_log_probs(
    const double[:, ::1] category_count,   # IN: (k, C) counts of every feature
    const intp_t[::1] starts,              # IN: (d + 1,) feature j: columns starts[j]:starts[j+1]
    double alpha,
    const uint8_t[::1] features,           # IN: (d,) the features to refresh (non-zero)
    const uint8_t[::1] classes,            # IN: (k,) the classes to refresh
    double[:, ::1] feature_log_prob,       # OUT: (k, C)
    double[::1] table,                     # OUT: the predict blocks
    const intp_t[::1] block_start,         # IN: (d,) where feature j's block starts
    Py_ssize_t row_width,
    int n_threads,
):
    """Smoothed log probabilities of the chosen (feature, class) pairs; the others
    are left as they are. Pairs are independent: any thread count, the same bits.
    Bounds of a loaded model: starts exact, starts[d] == C (n_categories_
    checked in [0, C] and summing to C at load: ``check_state_invariants``)."""
    cdef Py_ssize_t d = features.shape[0]
    cdef Py_ssize_t k = classes.shape[0]
    cdef Py_ssize_t pair
    cdef double* blocks = &table[0]
    cdef double small_logs[SMALL_COUNTS]
    with nogil:
        fill_small_logs(alpha, small_logs)
        if n_threads > 1:
            for pair in prange(d * k, schedule='static', num_threads=n_threads):
                if features[pair // k] and classes[pair % k]:
                    refresh_pair(category_count, &starts[0], alpha, small_logs, pair // k,
                                 pair % k, feature_log_prob, blocks, &block_start[0],
                                 row_width)
        else:
            for pair in range(d * k):
                if features[pair // k] and classes[pair % k]:
                    refresh_pair(category_count, &starts[0], alpha, small_logs, pair // k,
                                 pair % k, feature_log_prob, blocks, &block_start[0],
                                 row_width)


# -- partial_fit's small calls ----------------------------------------------------------
# A stream of small batches of integer codes (C3: 100 rows x 20 features, 5 classes)
# must not pay for the size of the model nor for a dozen NumPy calls a batch.
# ``SmallBatches`` keeps, between calls, the terms of the log probabilities that a
# batch does not move (each cell's log(count + alpha), each (class, feature)'s smoothed
# total), and ``SmallBatches.add`` counts a whole batch in one call: labels, codes,
# counts, the log probabilities it moved, class counts and log prior.
cdef enum:
    KIND_NONE = -1
    KIND_INT32 = 0
    KIND_INT64 = 1
    KIND_FLOAT32 = 2
    KIND_FLOAT64 = 3

# Counts that are whole numbers below 2**52 stay exact: adding a batch's ones one at
# a time is then the same bits as adding its separately summed counts.
cdef double WHOLE_LIMIT = 4503599627370496.0
# A smoothed total is kept by adding one per counted value (no sum over the feature's
# categories) while it is exact: the terms count + alpha and every partial sum
# multiples of 2**-10 below 2**40 (at most 50 significant bits), so that any order
# of summation, smooth_counts' included, gives the same bits.
cdef double TOTAL_GRID = 1024.0
cdef double TOTAL_LIMIT = 1099511627776.0


cdef inline double log_whole(double count, double alpha, const double* whole_logs,
                            Py_ssize_t n_whole) noexcept nogil:
    """log(count + alpha), from ``whole_logs`` (log(c + alpha) of c < n_whole) when
    count is a whole number below n_whole: the same bits as the log itself."""
    if count < n_whole and count == floor(count):
        return whole_logs[<Py_ssize_t>count]
    return log(count + alpha)


cdef inline void log_prior_of_counts(const double* class_count, Py_ssize_t k,
                                     double* out) noexcept nogil:
    """log(class_count / class_count.sum()), as log(N_c) - log(N) (scikit-learn's)."""
    cdef Py_ssize_t c
    cdef double total = 0.0
    cdef double log_total
    for c in range(k):
        total = total + class_count[c]
    log_total = log(total)
    for c in range(k):
        out[c] = log(class_count[c]) - log_total


def class_log_prior(
    const double[::1] class_count,   # IN: (k,)
    double[::1] out,                 # OUT: (k,) log(class_count[c] / sum)
):
    """The empirical class log prior, as CategoricalNB's partial_fit updates it in
    ``SmallBatches.add``: every path the same bits. A class without samples gets
    -inf."""
    with nogil:
        log_prior_of_counts(&class_count[0], class_count.shape[0], &out[0])


# Raw pointers into a SmallBatches' arrays (its memoryviews keep them alive).
cdef struct Cells:
    double* counts              # (k, C) the model's category counts
    double* log_count           # (k, C) log(count + alpha)
    double* feature_log_prob    # (k, C)
    double* table               # the predict blocks
    double* totals              # (k, d) sum over a feature's categories of count + alpha
    const double* whole_logs    # (n_whole,) log(c + alpha) of whole c
    const intp_t* starts        # (d + 1,)
    const intp_t* block_start   # (d,)
    const int64_t* labels       # (k,) the sorted int64 class labels, or NULL
    Py_ssize_t k, d, n_cells, n_whole, row_width
    double alpha


cdef void refresh_pairs(Cells* s, const double* batch_class_count,
                        bint exact_totals, bint all_classes=False) noexcept nogil:
    """``refresh_log_probs`` of every feature of the classes with batch weight
    (``all_classes``: of every class), from the kept cell logs: one log a
    (feature, class) total, where refresh_log_probs takes one a cell. The same
    bits: each value is the same difference of the same logs. Totals are summed
    again in smooth_counts' order unless exact_totals."""
    cdef Py_ssize_t j, c, r, n_j
    cdef double total, log_total, value
    cdef const double* counts
    cdef const double* logs
    cdef double* block
    cdef double* out
    for j in range(s.d):
        n_j = s.starts[j + 1] - s.starts[j]
        for c in range(s.k):
            if not (all_classes or batch_class_count[c] > 0):
                continue
            if exact_totals:
                total = s.totals[c * s.d + j]
            else:
                counts = s.counts + c * s.n_cells + s.starts[j]
                total = 0.0
                for r in range(n_j):
                    total = total + (counts[r] + s.alpha)
                s.totals[c * s.d + j] = total
            log_total = log(total)
            logs = s.log_count + c * s.n_cells + s.starts[j]
            out = s.feature_log_prob + c * s.n_cells + s.starts[j]
            block = s.table + s.block_start[j] + c
            for r in range(n_j):
                value = logs[r] - log_total
                block[r * s.row_width] = value
                out[r] = value
            block[n_j * s.row_width] = (0.0 if total == 0.0
                                        else s.whole_logs[0] - log_total)


cdef inline Py_ssize_t find_label(const int64_t* labels, Py_ssize_t k,
                                  int64_t label) noexcept nogil:
    """The index of label in the sorted labels, or -1."""
    cdef Py_ssize_t lo = 0, hi = k, mid
    while lo < hi:
        mid = (lo + hi) >> 1
        if labels[mid] < label:
            lo = mid + 1
        else:
            hi = mid
    return lo if lo < k and labels[lo] == label else -1


cdef inline double decayed_weight(Py_ssize_t i, Py_ssize_t n,
                                  double half_life) noexcept nogil:
    """Row i's weight at the end of a batch of n under forgetting (as
    fastnb._forgetting.row_weights computes it), 1 without (half_life 0)."""
    if half_life > 0:
        return exp2(-(<double>(n - 1 - i) / half_life))
    return 1.0


cdef bint add_rows(Cells* s, const value_t* X, Py_ssize_t n, const int64_t* y,
                   intp_t* class_index, double* batch_class_count, double* class_count,
                   double* class_log_prior, bint update_prior,
                   bint* exact_totals, double half_life) noexcept nogil:
    """Count a batch of codes into the model, or return False having written
    nothing when it does not apply: a label that is not a class, a value that is
    not a code below its feature's fitted n_categories (nor missing). Unweighted,
    or, under forgetting (``half_life`` > 0), weighted by age: ``add_decayed``."""
    cdef Py_ssize_t i, j, c, cell
    cdef intp_t code
    cdef const value_t* row
    for c in range(s.k):
        batch_class_count[c] = 0.0
    for i in range(n):
        c = find_label(s.labels, s.k, y[i])
        if c < 0:
            return False
        class_index[i] = c
        batch_class_count[c] += decayed_weight(i, n, half_life)
    if half_life <= 0:
        for c in range(s.k):
            if not class_count[c] + batch_class_count[c] < WHOLE_LIMIT:
                return False
    for i in range(n):
        row = X + i * s.d
        for j in range(s.d):
            if code_row(row[j], s.starts[j + 1] - s.starts[j], -2) == -2:
                return False
    # Valid: from here on the batch is counted.
    if half_life > 0:
        add_decayed(s, X, n, class_index, batch_class_count, class_count,
                    class_log_prior, update_prior, half_life)
        exact_totals[0] = False
        return True
    if exact_totals[0]:
        for c in range(s.k):
            if batch_class_count[c] > 0:
                for j in range(s.d):
                    if not s.totals[c * s.d + j] + batch_class_count[c] < TOTAL_LIMIT:
                        exact_totals[0] = False
    for i in range(n):
        row = X + i * s.d
        c = class_index[i]
        for j in range(s.d):
            code = code_row(row[j], s.starts[j + 1] - s.starts[j], -2)
            if code < 0:
                continue   # missing
            cell = c * s.n_cells + s.starts[j] + code
            s.counts[cell] = s.counts[cell] + 1.0
            s.log_count[cell] = log_whole(s.counts[cell], s.alpha, s.whole_logs,
                                          s.n_whole)
            if exact_totals[0]:
                s.totals[c * s.d + j] += 1.0
    refresh_pairs(s, batch_class_count, exact_totals[0])
    for c in range(s.k):
        class_count[c] = class_count[c] + batch_class_count[c]
    if update_prior:
        log_prior_of_counts(class_count, s.k, class_log_prior)
    return True


cdef void add_decayed(Cells* s, const value_t* X, Py_ssize_t n,
                      const intp_t* class_index, const double* batch_class_count,
                      double* class_count, double* class_log_prior, bint update_prior,
                      double half_life) noexcept nogil:
    """A validated batch under forgetting: every count learned before scaled by
    the batch's decay 2**(-n / half_life), the rows added with their weights,
    and, since log(count + alpha) moves with every decayed count, every cell's
    log and every (class, feature)'s log probabilities taken again: one pass
    over the model's k x C cells, where the estimator's general path rebuilt
    them through NumPy."""
    cdef Py_ssize_t i, j, c, t, n_total = s.k * s.n_cells
    cdef intp_t code
    cdef const value_t* row
    cdef double decay = pow(2.0, -(<double>n) / half_life), weight
    for t in range(n_total):
        s.counts[t] = s.counts[t] * decay
    for i in range(n):
        row = X + i * s.d
        c = class_index[i]
        weight = decayed_weight(i, n, half_life)
        for j in range(s.d):
            code = code_row(row[j], s.starts[j + 1] - s.starts[j], -2)
            if code >= 0:
                s.counts[c * s.n_cells + s.starts[j] + code] += weight
    for t in range(n_total):
        s.log_count[t] = log_whole(s.counts[t], s.alpha, s.whole_logs, s.n_whole)
    refresh_pairs(s, batch_class_count, False, True)
    for c in range(s.k):
        class_count[c] = class_count[c] * decay + batch_class_count[c]
    if update_prior:
        log_prior_of_counts(class_count, s.k, class_log_prior)


cdef int kind_of(const Py_buffer* view) noexcept:
    """Which of the batch dtypes ``SmallBatches.add`` reads a buffer holds (native
    byte order only), or KIND_NONE."""
    cdef const char* f = view.format
    if f == NULL:
        return KIND_NONE
    if f[0] == b'@' or f[0] == b'=':
        f += 1
    if f[0] == 0 or f[1] != 0:
        return KIND_NONE
    if f[0] == b'i' or f[0] == b'l' or f[0] == b'q':
        return (KIND_INT32 if view.itemsize == 4 else KIND_INT64 if view.itemsize == 8
                else KIND_NONE)
    if f[0] == b'd' and view.itemsize == 8:
        return KIND_FLOAT64
    if f[0] == b'f' and view.itemsize == 4:
        return KIND_FLOAT32
    return KIND_NONE


cdef class SmallBatches:
    """What CategoricalNB keeps between small partial_fit batches of integer codes.

    Made from a fitted model whose features are all integer-code features, it holds
    views of the model's count table and predict blocks, and keeps beside them:

    log_count       (k, C) log(count + alpha) of every cell
    whole_logs      (W,) log(c + alpha) of the whole counts c < W
    totals          (k, d) each (class, feature)'s smoothed total, sum over the
                    feature's categories of (count + alpha), as smooth_counts sums it
    whole_counts    every count is a whole number below 2**52 (weights never made
                    one fractional): ``add`` may count
    exact_totals    the totals are kept by increments (see TOTAL_GRID)

    ``add`` counts a whole unweighted batch in one call; ``refresh_batch_cells``
    refreshes after a batch that the estimator counted itself. Both leave the model
    the same bits as ``refresh_log_probs`` of everything. ``bind`` names the
    model's class count and log prior arrays, which ``add`` updates in place.
    """

    cdef readonly object log_count, whole_logs, totals, labels
    cdef readonly object class_count, class_log_prior
    cdef readonly double alpha
    cdef readonly bint whole_counts, exact_totals
    cdef public object params_key
    cdef readonly Py_ssize_t max_rows
    cdef double[:, ::1] count_view, log_count_view, log_prob_view, totals_view
    cdef double[::1] whole_view, table_view, class_count_view, class_prior_view
    cdef const intp_t[::1] starts_view, block_start_view
    cdef const int64_t[::1] labels_view
    cdef Cells cells

    def __init__(
        self,
        double[:, ::1] category_count,     # IN: (k, C) the model's counts
        const intp_t[::1] starts,          # IN: (d + 1,)
        double alpha,
        double[:, ::1] feature_log_prob,   # IN/OUT: (k, C)
        double[::1] table,                 # IN/OUT: the predict blocks
        const intp_t[::1] block_start,     # IN: (d,)
        Py_ssize_t row_width,
        labels,                            # IN: (k,) the classes, int64 or other
        Py_ssize_t n_whole,                # W
        Py_ssize_t max_rows,               # the largest batch ``add`` takes
    ):
        cdef Py_ssize_t k = category_count.shape[0], d = starts.shape[0] - 1
        cdef Py_ssize_t n_cells = category_count.shape[1], c, i, j, r
        cdef double count, total
        cdef bint whole = True, exact
        self.alpha = alpha
        self.max_rows = max_rows
        self.params_key = None
        self.log_count = np.empty((k, n_cells))
        self.whole_logs = np.empty(max(n_whole, 1))
        self.totals = np.empty((k, d))
        self.count_view = category_count
        self.log_count_view = self.log_count
        self.log_prob_view = feature_log_prob
        self.totals_view = self.totals
        self.whole_view = self.whole_logs
        self.table_view = table
        self.starts_view = starts
        self.block_start_view = block_start
        labels = np.asarray(labels)
        self.labels = labels if labels.dtype == np.int64 and labels.ndim == 1 else None
        self.cells.labels = NULL
        if self.labels is not None and k > 0:
            self.labels_view = self.labels
            self.cells.labels = &self.labels_view[0]
        self.cells.counts = &category_count[0, 0] if k * n_cells else NULL
        self.cells.log_count = &self.log_count_view[0, 0] if k * n_cells else NULL
        self.cells.feature_log_prob = &feature_log_prob[0, 0] if k * n_cells else NULL
        self.cells.table = &table[0]
        self.cells.totals = &self.totals_view[0, 0] if k * d else NULL
        self.cells.whole_logs = &self.whole_view[0]
        self.cells.starts = &starts[0]
        self.cells.block_start = &block_start[0] if d else NULL
        self.cells.k, self.cells.d, self.cells.n_cells = k, d, n_cells
        self.cells.n_whole, self.cells.row_width = n_whole, row_width
        self.cells.alpha = alpha
        exact = alpha >= 0 and alpha * TOTAL_GRID == floor(alpha * TOTAL_GRID)
        with nogil:
            for c in range(n_whole):
                self.whole_view[c] = log(<double>c + alpha)
            for c in range(k):
                for i in range(n_cells):
                    count = self.cells.counts[c * n_cells + i]
                    whole = whole and count == floor(count) and count < WHOLE_LIMIT
                    self.cells.log_count[c * n_cells + i] = log_whole(
                        count, alpha, self.cells.whole_logs, n_whole)
                for j in range(d):
                    total = 0.0
                    for r in range(starts[j], starts[j + 1]):
                        total = total + (self.cells.counts[c * n_cells + r] + alpha)
                    self.cells.totals[c * d + j] = total
                    exact = exact and total < TOTAL_LIMIT
        self.whole_counts = whole
        self.exact_totals = exact and whole

    def bind(self, class_count, class_log_prior):
        """Name the model's class count and class log prior (float64 (k,) arrays,
        written in place by ``add``)."""
        self.class_count_view = class_count
        self.class_prior_view = class_log_prior
        self.class_count = class_count
        self.class_log_prior = class_log_prior

    def add(self, X, y, classes, bint update_prior, double half_life=0.0):
        """Count the batch (X, y) into the model, or return False having changed
        nothing when this path does not apply and the estimator's general one must
        judge the batch. ``half_life`` > 0: the model forgets (``add_decayed``).

        It applies to a C-contiguous (n, d) array X of int32, int64, float32 or
        float64 codes below the fitted n_categories (NaN missing), 0 < n <=
        max_rows, y an (n,) int64 array of labels among the classes (int64
        labels), ``classes`` None or the classes themselves, and a model whose
        counts are whole numbers. ``update_prior``: take the class log prior again
        from the class counts (fit_prior without class_prior).
        """
        cdef Py_buffer x_view, y_view, classes_view
        cdef bint have_x = False, have_y = False, have_classes = False, done = False
        cdef bint exact = self.exact_totals
        cdef int kind
        cdef Py_ssize_t n, k = self.cells.k
        cdef char* scratch
        cdef intp_t* class_index
        cdef double* batch_class_count
        cdef const int64_t* labels
        cdef double* class_count
        cdef double* prior
        if ((half_life <= 0 and not self.whole_counts) or self.cells.labels == NULL
                or self.class_count is None):
            return False
        try:
            try:
                PyObject_GetBuffer(X, &x_view, PyBUF_FORMAT | PyBUF_C_CONTIGUOUS)
                have_x = True
                PyObject_GetBuffer(y, &y_view, PyBUF_FORMAT | PyBUF_C_CONTIGUOUS)
                have_y = True
                if classes is not None:
                    PyObject_GetBuffer(classes, &classes_view,
                                       PyBUF_FORMAT | PyBUF_C_CONTIGUOUS)
                    have_classes = True
            except (TypeError, ValueError, BufferError):
                return False
            kind = kind_of(&x_view)
            n = x_view.shape[0] if x_view.ndim == 2 else 0
            if (kind == KIND_NONE or n < 1 or n > self.max_rows
                    or x_view.shape[1] != self.cells.d
                    or y_view.ndim != 1 or y_view.shape[0] != n
                    or kind_of(&y_view) != KIND_INT64):
                return False
            if have_classes and (
                    classes_view.ndim != 1 or classes_view.shape[0] != k
                    or kind_of(&classes_view) != KIND_INT64
                    or memcmp(classes_view.buf, self.cells.labels, k * sizeof(int64_t))):
                return False
            scratch = <char*>fastnb_malloc(n * sizeof(intp_t) + k * sizeof(double), 1)
            if scratch == NULL:
                raise MemoryError("out of memory for a partial_fit batch")
            class_index = <intp_t*>scratch
            batch_class_count = <double*>(scratch + n * sizeof(intp_t))
            labels = <const int64_t*>y_view.buf
            class_count = &self.class_count_view[0]
            prior = &self.class_prior_view[0]
            with nogil:
                if kind == KIND_INT64:
                    done = add_rows(&self.cells, <const long long*>x_view.buf, n, labels,
                                    class_index, batch_class_count, class_count, prior,
                                    update_prior, &exact, half_life)
                elif kind == KIND_INT32:
                    done = add_rows(&self.cells, <const int32_t*>x_view.buf, n, labels,
                                    class_index, batch_class_count, class_count, prior,
                                    update_prior, &exact, half_life)
                elif kind == KIND_FLOAT64:
                    done = add_rows(&self.cells, <const double*>x_view.buf, n, labels,
                                    class_index, batch_class_count, class_count, prior,
                                    update_prior, &exact, half_life)
                else:
                    done = add_rows(&self.cells, <const float*>x_view.buf, n, labels,
                                    class_index, batch_class_count, class_count, prior,
                                    update_prior, &exact, half_life)
            fastnb_free(scratch)
            self.exact_totals = exact
            if done and half_life > 0:
                self.whole_counts = False  # (decayed counts)
            return done
        finally:
            if have_x:
                PyBuffer_Release(&x_view)
            if have_y:
                PyBuffer_Release(&y_view)
            if have_classes:
                PyBuffer_Release(&classes_view)


def refresh_batch_cells(
    SmallBatches state,
    const value_t[:, ::1] X,               # IN: (n, d) what ``accumulate_codes`` added
    const intp_t[::1] y,                   # IN: (n,) its class indices
    const double[::1] batch_class_count,   # IN: (k,) its weight per class
):
    """After the estimator added a batch of codes to the counts itself (weighted, or
    not in a form ``SmallBatches.add`` reads): the logs of the cells it counted into
    taken again, the totals of its classes summed again, and their log
    probabilities refreshed (``refresh_pairs``). A count that is no longer a whole
    number (a fractional weight) turns the state's whole_counts off."""
    cdef Cells* s = &state.cells
    cdef Py_ssize_t n = X.shape[0], d = X.shape[1], i, j, c, cell
    cdef intp_t code
    cdef double count
    cdef bint whole = state.whole_counts
    with nogil:
        for i in range(n):
            c = y[i]
            for j in range(d):
                code = code_row(X[i, j], s.starts[j + 1] - s.starts[j], -2)
                if code >= 0:
                    cell = c * s.n_cells + s.starts[j] + code
                    count = s.counts[cell]
                    whole = whole and count == floor(count) and count < WHOLE_LIMIT
                    s.log_count[cell] = log_whole(count, s.alpha, s.whole_logs,
                                                  s.n_whole)
        refresh_pairs(s, &batch_class_count[0], False)
    state.whole_counts = whole
    # the summed totals are the same bits as kept ones while counts are whole; past
    # TOTAL_LIMIT they are not kept again
    state.exact_totals = state.exact_totals and whole and bool(
        np.all(state.totals < TOTAL_LIMIT))
