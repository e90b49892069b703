# A parameter search: every alpha of MultinomialNB in one pass over a fold
# (``alpha_sweep_scores`` and ``alpha_sweep_rows`` in _alpha_sweep_kernels.pyx;
# the row walk is here).
#
# A search's candidates that differ from a split's fitted model in alpha only
# read the same counts: one walk over a fold's rows scores them all. A row's
# score for alpha a is ``table_predict_row``'s without the bias (the caller adds
# each candidate's log prior), term for term in the same order, so each alpha's
# scores are the bits of the table walk of the model ``with_params(alpha=a)``.
# A row's (k, m) sums stay in cache while its non-zeros are added. Each entry's
# m weights are a row of one table: the whole counts below WHOLE_COUNTS (most
# of them) by value, made once a split; a feature with entries for at least
# half the classes (the frequent ones, most of the work) has a dense block of
# k row numbers (k int32: 140 bytes for T1, where k m weights took 2.8 kB, and
# the blocks' traffic bounded the walk), its other counts rows of their own; a
# rare feature walks its entries, an untabulated count costing m logs. The
# sums and weight rows have ``lanes`` alphas, m padded to a multiple of 4 (the
# padding's weights 0.0): _sweep_simd.h adds a weight row 4 alphas at a time,
# a run of dense features' rows to a class's sums in registers.

from libc.stdint cimport int32_t, int64_t
from libc.math cimport log

from _common cimport floating
from _counts cimport FASTNB_PREFETCH
from _sparse_slots cimport index_t


cdef extern from "_sweep_simd.h":
    void fastnb_sweep_add(double* cell, const double* weight, double x,
                          Py_ssize_t lanes) noexcept nogil
    void fastnb_sweep_run(double* row, const double* weights,
                          const int32_t* const* blocks, const double* xs,
                          Py_ssize_t n_run, Py_ssize_t k, Py_ssize_t lanes) noexcept nogil
    # consecutive dense features added at most in one run
    enum: FASTNB_SWEEP_RUN


cdef inline Py_ssize_t sweep_lanes(Py_ssize_t m) noexcept nogil:
    """m alphas padded to a multiple of 4: a row of sums' and weights' length."""
    return (m + 3) // 4 * 4


# dense blocks made at most: this many row numbers (16 MiB); later features walk
cdef enum:
    DENSE_BLOCK_CELLS = 1 << 22
    # whole counts below this have their m weights tabulated once a split (most
    # of a frequent feature's counts are in the hundreds or thousands: their
    # logs once a count value, not once an entry)
    WHOLE_COUNTS = 4096
    # dense blocks' cells from which their fill takes the threads
    PARALLEL_FILL_CELLS = 1 << 18
    # non-zeros ahead whose features' lines are prefetched
    SWEEP_AHEAD = 16
    # int32 a feature's record (``sweep_tables``): its dense block or -1, its
    # entries' count, their int64 start
    FEATURE_RECORD = 4


cdef inline bint is_tabulated(double count) noexcept nogil:
    """True when ``count`` is a whole number in [0, WHOLE_COUNTS)."""
    return 0.0 <= count < WHOLE_COUNTS and <double>(<int>count) == count


cdef inline void fill_block(
    Py_ssize_t start, Py_ssize_t length, const int32_t* ent_class,
    const double* ent_count, const double* alpha, const double* log_alpha,
    Py_ssize_t m, Py_ssize_t lanes, int32_t* block, Py_ssize_t k, double* weights,
    Py_ssize_t extra,
) noexcept nogil:
    """A feature's dense block: each class's row of ``weights`` (the zero row
    WHOLE_COUNTS for a class without a count; a whole count's own row; for
    another count a row from ``extra`` on, computed here)."""
    cdef Py_ssize_t e, a, c
    cdef double count
    for c in range(k):
        block[c] = WHOLE_COUNTS
    for e in range(start, start + length):
        count = ent_count[e]
        c = ent_class[e]
        if is_tabulated(count):
            block[c] = <int32_t>count
        else:
            # (``multinomial_weight``'s expression: the table's bits)
            for a in range(lanes):
                weights[extra * lanes + a] = (log(count + alpha[a]) - log_alpha[a]
                                              if a < m else 0.0)
            block[c] = <int32_t>extra
            extra += 1


cdef inline bint sweep_row(
    const floating* data, const index_t* indices, Py_ssize_t start, Py_ssize_t stop,
    Py_ssize_t d, const int64_t* feat_start, const int32_t* feat_len,
    const int32_t* ent_class, const double* ent_count, const int32_t* records,
    const int32_t* blocks, const double* alpha, const double* log_alpha,
    const double* base, const double* small, Py_ssize_t k, Py_ssize_t m,
    Py_ssize_t lanes, double* row, double* base_sum, Py_ssize_t limit,
) noexcept nogil:
    """One row's (k, lanes) sums into ``row`` and its base terms into ``base_sum``;
    False if an index is out of range. ``records``: each feature's
    FEATURE_RECORD int32 (``feat_start`` and ``feat_len`` in one line; those two
    are not read). ``limit``: the end of the block's non-zeros, up to which the
    next rows' features are prefetched."""
    cdef Py_ssize_t p, j, a, e, t, kl = k * lanes, ahead, n_run = 0, first
    cdef const int32_t* record
    cdef double x, count
    cdef double* cell
    # the pending run of dense features: added before the next sparse feature's
    # entries (so each cell's terms keep the row's order), when full, at the end
    cdef const int32_t* run_block[FASTNB_SWEEP_RUN]
    cdef double run_x[FASTNB_SWEEP_RUN]
    for t in range(kl):
        row[t] = 0.0
    for a in range(m):
        base_sum[a] = 0.0
    for p in range(start, stop):
        # a feature's record SWEEP_AHEAD non-zeros ahead, its entries' lines
        # half as far ahead
        if p + SWEEP_AHEAD < limit:
            ahead = indices[p + SWEEP_AHEAD]
            if 0 <= ahead < d:
                FASTNB_PREFETCH(&records[ahead * FEATURE_RECORD])
            ahead = indices[p + SWEEP_AHEAD // 2]
            if 0 <= ahead < d:
                record = &records[ahead * FEATURE_RECORD]
                if record[0] < 0 and record[1] > 0:
                    e = (<const int64_t*>&record[2])[0]
                    FASTNB_PREFETCH(&ent_class[e])
                    FASTNB_PREFETCH(&ent_count[e])
        j = indices[p]
        if j < 0 or j >= d:
            return False
        record = &records[j * FEATURE_RECORD]
        x = data[p]
        for a in range(m):
            base_sum[a] = base_sum[a] + x * base[a]
        if record[0] >= 0:
            # (a class without a count adds x * 0.0 = +0.0 from the zero row,
            # which leaves its sums' bits: they are >= +0.0, never -0.0, as
            # every weight is >= 0. No branch: ~10% faster a walk)
            # (the run's terms go into each class's cell in the row's order,
            # in registers: a cell's load and store a run, not a feature)
            run_block[n_run] = &blocks[record[0] * k]
            run_x[n_run] = x
            n_run += 1
            if n_run == FASTNB_SWEEP_RUN:
                fastnb_sweep_run(row, small, run_block, run_x, n_run, k, lanes)
                n_run = 0
            continue
        if n_run > 0:
            fastnb_sweep_run(row, small, run_block, run_x, n_run, k, lanes)
            n_run = 0
        first = (<const int64_t*>&record[2])[0]
        for e in range(first, first + record[1]):
            count = ent_count[e]
            cell = &row[ent_class[e] * lanes]
            if is_tabulated(count):
                fastnb_sweep_add(cell, &small[<int>count * lanes], x, lanes)
            else:
                for a in range(m):
                    cell[a] += x * (log(count + alpha[a]) - log_alpha[a])
    if n_run > 0:
        fastnb_sweep_run(row, small, run_block, run_x, n_run, k, lanes)
    return True


