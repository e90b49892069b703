# The log-likelihood weights of the sparse count table's entries (MultinomialNB's
# and ComplementNB's), one entry or one feature's block at a time: shared by the
# table's build (``table_fill``, ``table_reduce`` in _sparse_build.pyx) and the
# stream's refreshes (_sparse_update.pyx), so both give the same bits.

from libc.math cimport log

from _counts cimport is_small_whole, log_shifted


cdef inline double multinomial_weight(double count, double a, double log_a,
                                      const double* small) noexcept nogil:
    """log(count + a) - log(a); from ``small`` (``fill_small_weights`` of the
    same a, or NULL) for whole counts below SMALL_COUNTS: the same bits."""
    if small != NULL and is_small_whole(count):
        return small[<int>count]
    return log(count + a) - log_a


cdef inline void multinomial_block(const double* count, double* weight,
                                   Py_ssize_t length, double a, double log_a,
                                   const double* small) noexcept nogil:
    """MultinomialNB's weights of one feature's entries: what a count adds over
    the smoothing alone, log(N_cj + a_j) - log(a_j)."""
    cdef Py_ssize_t e
    for e in range(length):
        weight[e] = multinomial_weight(count[e], a, log_a, small)


cdef inline double complement_log_all(double total, double a,
                                      const double* small_logs) noexcept nogil:
    """ComplementNB's per-feature term log(F_j + a_j), in scikit-learn's order of
    operations, from the table where F_j is small and whole (a rare feature's;
    T1's refresh, 2 threads: 8.3 -> 6.5 ms)."""
    return log_shifted(total, total + a, a, small_logs)


cdef inline double complement_weight(double total, double count, double a,
                                     const double* small_logs,
                                     double log_all) noexcept nogil:
    """ComplementNB's weight of one entry: log(F_j + a_j - N_cj) - log(F_j + a_j),
    in scikit-learn's order of operations (``log_all``: ``complement_log_all``)."""
    return log_shifted(total - count, (total + a) - count, a, small_logs) - log_all


cdef inline void complement_block(const double* count, double* weight,
                                  Py_ssize_t length, double a,
                                  const double* small_logs, double* feature_all,
                                  double* feat_base, double scale) noexcept nogil:
    """ComplementNB's terms of one feature: F_j (its entries' counts added in
    block order) into ``feature_all``, log(F_j + a_j) into ``feat_base``, and each
    entry's log(F_j + a_j - N_cj) - log(F_j + a_j). ``scale``: the true counts are
    ``scale`` times ``count`` (a model that forgets; 1.0: x * 1.0 is x)."""
    cdef Py_ssize_t e
    cdef double total = 0.0, log_all
    for e in range(length):
        total = total + count[e] * scale
    feature_all[0] = total
    log_all = complement_log_all(total, a, small_logs)
    feat_base[0] = log_all
    for e in range(length):
        weight[e] = complement_weight(total, count[e] * scale, a, small_logs, log_all)
