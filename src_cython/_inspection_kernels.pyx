"""Per-feature terms of the joint log likelihood (fastnb.inspection).

Naive Bayes's joint log likelihood is a sum over features,

    jll[i, c] = base[c] + sum_j term(c, j, x[i, j]),

so each term is an exact explanation of a prediction. These kernels write the
terms of every model's predict kernel, term by term as that kernel adds them:

- linear (the count models' dense weights): term = x' W[c, j], x' the value or
  its 0/1 threshold; a zero, and a missing value (NaN), add nothing here;
- Gaussian: term = -(0.5 log(2 pi var) + (x - theta)^2 / (2 var)); NaN adds nothing;
- the sparse count table: term = mult[c] x' (base_j + scale[c] + w_cj), w_cj the
  entry of (c, j) if it has one, else 0 (see _sparse_predict.pyx);
- CategoricalNB: the log probability of the value's table row; NaN adds nothing.

and, for ``top_contributions``, the top-n terms of the difference of two classes
per row, kept in a small list or heap a row, or ranked a chunk of a row's terms
at a time (never all terms): by |difference|, largest first, the smaller
feature index first among equals, and a term of exactly 0.0 left out (the list
and heap: _inspection_heap.pxd). Every row is computed alone: the same bits for
any thread count. The most informative features of a whole model are
_inspection_informative.pyx's.
"""

from cython.parallel cimport prange
from libc.math cimport INFINITY
from libc.string cimport memcpy
from libc.stdint cimport int32_t, int64_t, uint8_t, uint64_t, INT32_MAX, INT64_MAX

from _common cimport intp_t, floating, block_start, row_argmax, MODE_ARGMAX
from _categorical_point cimport value_t, table_row
from _sparse_slots cimport FeatureSlot, SLOT_ENTRIES, index_t, slot_predict_row
from _counts cimport FASTNB_PREFETCH_W
from _inspection_heap cimport heap_push, sorted_push, offer, heap_finish, SORTED_MAX


cdef inline double thresholded(double x, bint binarize, double threshold) noexcept nogil:
    """The value a count model multiplies its weight by (NaN stays NaN: missing)."""
    if binarize and x == x:
        return 1.0 if x > threshold else 0.0
    return x


# -- every term ------------------------------------------------------------------------
def linear_dense_values(
    const floating[:, :] X,         # IN: (n, d), NaN = missing
    const double[:, ::1] weights,   # IN: (k, d)
    bint binarize, double threshold,
    double[:, :, ::1] out,          # OUT: (n, k, d)
    int n_threads,
):
    cdef Py_ssize_t n = X.shape[0], d = X.shape[1], k = weights.shape[0]
    cdef Py_ssize_t i, c, j
    cdef double x
    with nogil:
        for i in prange(n, schedule='static', num_threads=max(n_threads, 1)):
            for c in range(k):
                for j in range(d):
                    x = thresholded(X[i, j], binarize, threshold)
                    out[i, c, j] = x * weights[c, j] if x != 0.0 and x == x else 0.0


def gaussian_dense_values(
    const floating[:, :] X,                 # IN: (n, d), NaN = missing
    const double[:, ::1] theta,             # IN: (k, d)
    const double[:, ::1] half_inv_var,      # IN: (k, d) 0.5 / var
    const double[:, ::1] half_log_2pi_var,  # IN: (k, d)
    double[:, :, ::1] out,                  # OUT: (n, k, d)
    int n_threads,
):
    cdef Py_ssize_t n = X.shape[0], d = X.shape[1], k = theta.shape[0]
    cdef Py_ssize_t i, c, j
    cdef double x, dx
    with nogil:
        for i in prange(n, schedule='static', num_threads=max(n_threads, 1)):
            for c in range(k):
                for j in range(d):
                    x = X[i, j]
                    if x != x:
                        out[i, c, j] = 0.0
                    else:
                        dx = x - theta[c, j]
                        out[i, c, j] = -(half_log_2pi_var[c, j]
                                         + half_inv_var[c, j] * dx * dx)


def categorical_dense_values(
    const value_t[:, ::1] X,          # IN: (n, d) values or table rows
    const int32_t[::1] lookup,        # IN: (d,) how each column finds its row
    const intp_t[::1] n_categories,   # IN: (d,)
    const double[::1] log_prob,       # IN: the blocks of _categorical_tables
    const intp_t[::1] block_start_,   # IN: (d,)
    Py_ssize_t row_width,
    const uint64_t[::1] hash_keys,
    const uint8_t[::1] hash_tags,
    const int64_t[::1] hash_rows,
    const intp_t[::1] hash_start,
    const intp_t[::1] hash_mask,
    double[:, :, ::1] out,            # OUT: (n, k, d)
    int n_threads,
):
    """The categorical_predict gather, term by term (bounds: its docstring)."""
    cdef Py_ssize_t n = X.shape[0], d = X.shape[1], k = out.shape[1]
    cdef Py_ssize_t i, c, j, h
    cdef intp_t row
    with nogil:
        for i in prange(n, schedule='static', num_threads=max(n_threads, 1)):
            for j in range(d):
                h = hash_start[j]
                row = table_row(X[i, j], lookup[j], n_categories[j], &hash_keys[h],
                                &hash_tags[h], &hash_rows[h], hash_mask[j])
                for c in range(k):
                    out[i, c, j] = 0.0 if row < 0 else \
                        log_prob[block_start_[j] + row * row_width + c]


def linear_csr_values(
    const floating[::1] data, const index_t[::1] indices, const index_t[::1] indptr,
    const double[:, ::1] weights_fm,   # IN: (d, >= k) feature-major weights
    bint binarize, double threshold,
    double[:, ::1] out,                # OUT: (k, nnz)
    int n_threads,
):
    """Terms at X's stored entries (indices checked by the caller's predict)."""
    cdef Py_ssize_t n = indptr.shape[0] - 1, k = out.shape[0]
    cdef Py_ssize_t i, p, c, j
    cdef double x
    with nogil:
        for i in prange(n, schedule='static', num_threads=max(n_threads, 1)):
            for p in range(indptr[i], indptr[i + 1]):
                j = indices[p]
                x = thresholded(data[p], binarize, threshold)
                for c in range(k):
                    out[c, p] = x * weights_fm[j, c] if x != 0.0 and x == x else 0.0


cdef inline double table_term(
    Py_ssize_t c, Py_ssize_t j, double x,
    const int64_t* feat_start, const int32_t* feat_len, const int32_t* ent_class,
    const double* ent_weight, const double* feat_base, bint scalar_base,
    const double* scale, const double* mult,
) noexcept nogil:
    """mult[c] x (base_j + scale[c] + w_cj): the sparse table's term of (c, j)."""
    cdef Py_ssize_t e
    cdef double w = 0.0
    cdef int64_t start = feat_start[j]
    for e in range(feat_len[j]):
        if ent_class[start + e] == c:
            w = ent_weight[start + e]
            break
    return mult[c] * (x * ((feat_base[0] if scalar_base else feat_base[j]) + scale[c] + w))


def table_csr_values(
    const floating[::1] data, const index_t[::1] indices, const index_t[::1] indptr,
    const int64_t[::1] feat_start, const int32_t[::1] feat_len,
    const int32_t[::1] ent_class, const double[::1] ent_weight,
    const double[::1] feat_base, const double[::1] scale, const double[::1] mult,
    bint binarize, double threshold,
    double[:, ::1] out,                # OUT: (k, nnz)
    int n_threads,
):
    cdef Py_ssize_t n = indptr.shape[0] - 1, k = out.shape[0]
    cdef Py_ssize_t i, p, c, j, e
    cdef int64_t start
    cdef double x, b
    cdef bint scalar_base = feat_base.shape[0] == 1
    with nogil:
        for i in prange(n, schedule='static', num_threads=max(n_threads, 1)):
            for p in range(indptr[i], indptr[i + 1]):
                j = indices[p]
                x = thresholded(data[p], binarize, threshold)
                if x == 0.0 or x != x:
                    for c in range(k):
                        out[c, p] = 0.0
                    continue
                b = feat_base[0] if scalar_base else feat_base[j]
                for c in range(k):
                    out[c, p] = b + scale[c]
                start = feat_start[j]
                for e in range(feat_len[j]):
                    out[ent_class[start + e], p] += ent_weight[start + e]
                for c in range(k):
                    out[c, p] = mult[c] * (x * out[c, p])


# -- the top-n terms of two classes' difference -------------------------------------------
def top_of_rows(
    const double[:, ::1] diff,   # IN: (m, d) one difference of terms a row
    int64_t[:, ::1] features,    # OUT: (m, n_top)
    double[:, ::1] values,       # OUT: (m, n_top)
    int n_threads,
):
    cdef Py_ssize_t m = diff.shape[0], d = diff.shape[1], n_top = values.shape[1]
    cdef Py_ssize_t i, j, size
    if n_top == 0:
        return
    with nogil:
        for i in prange(m, schedule='static', num_threads=max(n_threads, 1)):
            size = 0
            for j in range(d):
                size = offer(&values[i, 0], &features[i, 0], size, n_top,
                                 diff[i, j], j)
            heap_finish(&values[i, 0], &features[i, 0], size, n_top)


def top_of_csr_rows(
    const double[::1] diff,      # IN: (nnz,) one difference of terms a stored entry
    const index_t[::1] indices, const index_t[::1] indptr,
    int64_t[:, ::1] features, double[:, ::1] values,   # OUT: (n, n_top)
    int n_threads,
):
    cdef Py_ssize_t n = indptr.shape[0] - 1, n_top = values.shape[1]
    cdef Py_ssize_t i, p, size
    if n_top == 0:
        return
    with nogil:
        for i in prange(n, schedule='static', num_threads=max(n_threads, 1)):
            size = 0
            for p in range(indptr[i], indptr[i + 1]):
                size = offer(&values[i, 0], &features[i, 0], size, n_top, diff[p],
                                 indices[p])
            heap_finish(&values[i, 0], &features[i, 0], size, n_top)


def top_linear_csr(
    const floating[::1] data, const index_t[::1] indices, const index_t[::1] indptr,
    const double[:, ::1] weights_fm,   # IN: (d, >= k) feature-major weights
    bint binarize, double threshold,
    const intp_t[::1] first, const intp_t[::1] second,   # IN: (n,) the two classes
    int64_t[:, ::1] features, double[:, ::1] values,     # OUT: (n, n_top)
    int n_threads,
):
    cdef Py_ssize_t n = indptr.shape[0] - 1, n_top = values.shape[1]
    cdef Py_ssize_t i, p, j, size, a, b
    cdef double x
    if n_top == 0:
        return
    with nogil:
        for i in prange(n, schedule='static', num_threads=max(n_threads, 1)):
            size = 0
            a = first[i]
            b = second[i]
            for p in range(indptr[i], indptr[i + 1]):
                j = indices[p]
                x = thresholded(data[p], binarize, threshold)
                if x != 0.0 and x == x:
                    size = offer(&values[i, 0], &features[i, 0], size, n_top,
                                     x * weights_fm[j, a] - x * weights_fm[j, b], j)
            heap_finish(&values[i, 0], &features[i, 0], size, n_top)


def top_table_csr(
    const floating[::1] data, const index_t[::1] indices, const index_t[::1] indptr,
    const int64_t[::1] feat_start, const int32_t[::1] feat_len,
    const int32_t[::1] ent_class, const double[::1] ent_weight,
    const double[::1] feat_base, const double[::1] scale, const double[::1] mult,
    bint binarize, double threshold,
    const intp_t[::1] first, const intp_t[::1] second,
    int64_t[:, ::1] features, double[:, ::1] values,
    int n_threads,
):
    cdef Py_ssize_t n = indptr.shape[0] - 1, n_top = values.shape[1]
    cdef Py_ssize_t i, p, j, size, a, b
    cdef bint scalar_base = feat_base.shape[0] == 1
    cdef double x, ta, tb
    if n_top == 0:
        return
    with nogil:
        for i in prange(n, schedule='static', num_threads=max(n_threads, 1)):
            size = 0
            a = first[i]
            b = second[i]
            for p in range(indptr[i], indptr[i + 1]):
                j = indices[p]
                x = thresholded(data[p], binarize, threshold)
                if x == 0.0 or x != x:
                    continue
                ta = table_term(a, j, x, &feat_start[0], &feat_len[0], &ent_class[0],
                                &ent_weight[0], &feat_base[0], scalar_base, &scale[0],
                                &mult[0])
                tb = table_term(b, j, x, &feat_start[0], &feat_len[0], &ent_class[0],
                                &ent_weight[0], &feat_base[0], scalar_base, &scale[0],
                                &mult[0])
                size = offer(&values[i, 0], &features[i, 0], size, n_top, ta - tb, j)
            heap_finish(&values[i, 0], &features[i, 0], size, n_top)


cdef inline double slot_pair_term(const FeatureSlot* slot, const double* rows,
                                  Py_ssize_t kp, Py_ssize_t a, Py_ssize_t b, double x,
                                  double scale_a, double scale_b, double mult_a,
                                  double mult_b) noexcept nogil:
    """table_term(a) - table_term(b) of the slot's feature (a != b): the same
    bits as table_csr_values' terms. Without a branch on the slot (a Zipf row
    mixes inline entries and dense rows unpredictably): both are read, row 0
    standing in for the dense row of a slot that has none, and selected; an
    inline entry is found by its place (1 + e, 0: none) summed over the entries
    (a slot holds a class once), integers without a chain of selects."""
    cdef Py_ssize_t e, at_a = 0, at_b = 0
    cdef int32_t n = slot.n
    cdef const double* row = rows + (-(n + 1) if n < 0 else 0) * kp
    cdef double wa, wb, da = row[a], db = row[b]
    for e in range(SLOT_ENTRIES):
        # (the unused entries are zero, class 0: masked by e < n)
        at_a = at_a + (e + 1) * ((e < n) & (slot.entry_class[e] == a))
        at_b = at_b + (e + 1) * ((e < n) & (slot.entry_class[e] == b))
    wa = slot.entry_weight[at_a - 1] if at_a else 0.0
    wb = slot.entry_weight[at_b - 1] if at_b else 0.0
    wa = da if n < 0 else wa
    wb = db if n < 0 else wb
    return (mult_a * (x * ((slot.base + scale_a) + wa))
            - mult_b * (x * ((slot.base + scale_b) + wb)))


cdef inline void best_two(const double* jll, Py_ssize_t k, intp_t* first,
                          intp_t* second) noexcept nogil:
    """A row's best class and runner-up (the first among equals; a NaN score
    never wins); k >= 2."""
    cdef Py_ssize_t c, a = 0, b
    for c in range(1, k):
        if jll[c] > jll[a] or jll[a] != jll[a]:
            a = c
    b = 1 if a == 0 else 0
    for c in range(k):
        if c != a and (jll[c] > jll[b] or jll[b] != jll[b]):
            b = c
    first[0] = a
    second[0] = b


cdef inline intp_t runner_up(double* jll, Py_ssize_t k, intp_t a) noexcept nogil:
    """best_two's runner-up of a row without NaN whose best class is a (k >= 2),
    by predict's branch-free ``row_argmax`` over the row with a's score masked."""
    cdef double kept = jll[a], top
    cdef bint saw_nan = False
    cdef intp_t b
    jll[a] = -INFINITY
    b = row_argmax(jll, k, &top, &saw_nan)
    jll[a] = kept
    # every other class at -inf: best_two keeps the first of them
    return b if b != a else (1 if a == 0 else 0)


cdef enum:
    # rows ahead whose output lines top_slots_scored fetches for writing
    OUT_AHEAD = 8
    # a row's terms computed before any is ranked: ranked as each was computed,
    # the mispredicted compares waited on the term's slot reads (T1, top 10, 1
    # thread: 173 -> 125 ms, a fixed pair)
    CHUNK = 64


cdef enum:
    # rank_chunk's bands of |term|: a quarter octave each below the chunk's
    # largest (the exponent and top 2 mantissa bits)
    RANK_SHIFT = 50
    # the bands rank_chunk looks down before taking every term as a candidate
    # (a power of two: its binary search)
    RANK_BANDS = 32
    # (a power of two above CHUNK: a candidate's feature and place in one key)
    CHUNK_BITS = 7


cdef inline int64_t high_bits(double v) noexcept nogil:
    """A double's bits: for v >= +0.0, non-decreasing in v (the high ones: its band)."""
    cdef int64_t bits
    memcpy(&bits, &v, sizeof(double))
    return bits


cdef inline Py_ssize_t rank_chunk(const double* val, const int64_t* mag_bits,
                                  const int64_t* feat, Py_ssize_t m, int64_t largest,
                                  Py_ssize_t n_top, double* cand_val, int64_t* cand_mag,
                                  int64_t* cand_key, double* top_val,
                                  int64_t* top_feat) noexcept nogil:
    """The best min(m, n_top) of m terms (m <= CHUNK, n_top <= SORTED_MAX) in
    sorted_push's order (|value|, then the smaller feature, then the earlier
    term; a term of 0.0 or NaN left out), best first, into top_val/top_feat
    (n_top + 1 long: the last takes the others); how many. ``mag_bits``: the
    bits of each |value| (0 for 0.0 and NaN), ``largest`` the largest of them.

    A term is placed by how many rank above it, counted without a branch;
    counted among the candidates only: the terms of the fewest quarter octaves
    of |value| below the chunk's largest that hold n_top terms (every other term
    ranks below all of them). sorted_push's insertions mispredicted about twice
    a term (T1's top 10: ~45% of its time); counting over all of a chunk's terms
    cost as much, and a histogram of the bands half as much (a chain of
    increments through memory)."""
    cdef Py_ssize_t q, r, step, above, place, n_cand = 0, n_valid = 0, total
    cdef int32_t top_band = <int32_t>(largest >> RANK_SHIFT), threshold = INT32_MAX - 1, t
    cdef int64_t mk, kq
    cdef int32_t band[CHUNK]
    for q in range(m):
        # how many bands below the largest (< 2**13); 0.0 and NaN never candidates
        band[q] = ((top_band - <int32_t>(mag_bits[q] >> RANK_SHIFT)) if mag_bits[q] != 0
                   else INT32_MAX)
        n_valid = n_valid + (mag_bits[q] != 0)
    if n_valid > n_top:
        # the fewest bands that hold n_top terms, if RANK_BANDS do: a binary
        # search without a branch (T1's top 10 looks ~12 bands down, a linear
        # search's 13 passes)
        t = 0
        step = RANK_BANDS // 2
        while step > 0:
            total = 0
            for q in range(m):
                total = total + (band[q] <= t + step - 1)
            t = t + step if total < n_top else t
            step = step // 2
        total = 0
        for q in range(m):
            total = total + (band[q] <= t)
        threshold = t if total >= n_top else threshold
    for q in range(m):
        cand_val[n_cand] = val[q]
        cand_mag[n_cand] = mag_bits[q]
        cand_key[n_cand] = (feat[q] << CHUNK_BITS) | q
        n_cand = n_cand + (band[q] <= threshold)
    for q in range(n_cand):
        # |value| larger (its bits), or equal and (feature, place) smaller
        mk = cand_mag[q]
        kq = cand_key[q]
        above = 0
        for r in range(n_cand):
            above = above + ((cand_mag[r] > mk) | ((cand_mag[r] == mk) & (cand_key[r] < kq)))
        place = above if above < n_top else n_top
        top_val[place] = cand_val[q]
        top_feat[place] = cand_key[q] >> CHUNK_BITS
    return n_valid if n_valid < n_top else n_top


def top_slots_scratch_widths(Py_ssize_t k):
    """The widths (doubles, int64s) a thread's rows of ``top_slots_scored``'s two
    scratch arrays need for k classes, rounded up to whole 64-byte lines and one
    more, so that no two threads write to a line."""
    return (-(-(k + 2 * CHUNK + SORTED_MAX + 1) // 8) * 8 + 8,
            -(-(4 * CHUNK + SORTED_MAX + 1) // 8) * 8 + 8)


def top_slots_scored(
    const floating[::1] data, const index_t[::1] indices, const index_t[::1] indptr,
    const unsigned char[::1] slots,   # IN: the table's feature slots (fill_slots)
    const double[:, ::1] rows,        # IN: their dense rows (kp padded classes)
    const double[::1] bias, const double[::1] scale, const double[::1] mult,
    bint binarize, double threshold,
    Py_ssize_t pair_first, Py_ssize_t pair_second,   # IN: the pair, or -1: each
                                      # row's best class and runner-up
    intp_t[::1] first, intp_t[::1] second,   # OUT: (n,) the pair of each row
    double[::1] log_odds,             # OUT: (n,) jll[first] - jll[second]
    int64_t[:, ::1] features, double[:, ::1] values,   # OUT: (n, n_top)
    double[:, ::1] scratch,           # SCRATCH: (n_blocks, >= k + 2 CHUNK + SORTED_MAX + 1)
    int64_t[:, ::1] chunk_features,   # SCRATCH: (n_blocks, >= 4 CHUNK + SORTED_MAX + 1)
):
    """Each row of a large batch of a finite CSR X over the table's feature slots,
    in one pass: its joint log likelihoods by predict's own ``slot_predict_row``
    (the bits of ``predict_joint_log_proba``: the batch takes the slots there
    too), their best two classes, and the top-n differences of the pair's terms
    over the row's slots, still in L1 (one parallel region in all: a region a
    block of rows cost ~10 ms a region on a busy 2-core machine). Returns how
    many rows are malformed (row pointers or a column index out of range) and
    how many are suspect (a non-finite value or score: the caller checks X for
    infinity and NaN then, instead of a pass over every value first)."""
    cdef Py_ssize_t n = indptr.shape[0] - 1, n_top = values.shape[1]
    cdef Py_ssize_t k = bias.shape[0], kp = rows.shape[1]
    cdef Py_ssize_t d = slots.shape[0] // sizeof(FeatureSlot)
    cdef Py_ssize_t n_blocks = scratch.shape[0], nnz = data.shape[0]
    cdef Py_ssize_t block, i, p, q, m, size, kept, a, b, lo, hi, start, stop, ahead_stop
    cdef Py_ssize_t n_malformed = 0, n_suspect = 0
    cdef int status
    cdef intp_t label
    cdef const FeatureSlot* slot = <const FeatureSlot*>&slots[0]
    cdef const double* row0 = &rows[0, 0]
    cdef double* acc
    cdef double* chunk_val
    cdef double* cand_val
    cdef double* top_val
    cdef int64_t* chunk_feat
    cdef int64_t* cand_mag
    cdef int64_t* cand_key
    cdef int64_t* top_feat
    cdef int64_t* chunk_bits
    cdef int64_t bits, largest
    cdef bint keep
    cdef double x, v, scale_a, scale_b, mult_a, mult_b
    if n == 0 or n_top == 0:
        return 0, 0
    if d >= (<Py_ssize_t>1 << (63 - CHUNK_BITS)):
        raise ValueError("top_slots_scored: too many features for rank_chunk's keys")
    if (scratch.shape[1] < k + 2 * CHUNK + SORTED_MAX + 1
            or chunk_features.shape[1] < 4 * CHUNK + SORTED_MAX + 1
            or chunk_features.shape[0] < n_blocks):
        raise ValueError("top_slots_scored: scratch too small")
    with nogil:
        for block in prange(n_blocks, schedule='static', num_threads=n_blocks,
                            use_threads_if=n_blocks > 1):
            acc = &scratch[block, 0]
            chunk_val = &scratch[block, k]   # a chunk of the row's terms
            cand_val = &scratch[block, k + CHUNK]   # rank_chunk's candidates
            top_val = &scratch[block, k + 2 * CHUNK]   # its best (SORTED_MAX + 1)
            chunk_feat = &chunk_features[block, 0]
            cand_mag = &chunk_features[block, CHUNK]
            cand_key = &chunk_features[block, 2 * CHUNK]
            top_feat = &chunk_features[block, 3 * CHUNK]
            chunk_bits = &chunk_features[block, 3 * CHUNK + SORTED_MAX + 1]
            lo = block_start(block, n_blocks, n)
            hi = block_start(block + 1, n_blocks, n)
            ahead_stop = min(max(<Py_ssize_t>indptr[hi], 0), nnz)
            for i in range(lo, hi):
                if i + OUT_AHEAD < hi:
                    # the output lines, owned before the row's writes: left to the
                    # writes, their misses stalled the row (T1, top 10: ~+25 ms)
                    FASTNB_PREFETCH_W(&values[i + OUT_AHEAD, 0])
                    FASTNB_PREFETCH_W(&values[i + OUT_AHEAD, n_top - 1])
                    FASTNB_PREFETCH_W(&features[i + OUT_AHEAD, 0])
                    FASTNB_PREFETCH_W(&features[i + OUT_AHEAD, n_top - 1])
                start = indptr[i]
                stop = indptr[i + 1]
                status = 2
                label = 0   # (assigned here: private to the thread, as its address is passed)
                if 0 <= start <= stop <= nnz:
                    status = slot_predict_row(
                        data, indices, start, stop, d, slot, row0, kp, &bias[0],
                        &scale[0], &mult[0], k, binarize, threshold, MODE_ARGMAX,
                        &label, acc, max(stop, ahead_stop))
                if status == 1:
                    n_suspect += 1
                if status == 2:
                    n_malformed += 1
                    first[i] = 0
                    second[i] = 0
                    log_odds[i] = 0.0
                    heap_finish(&values[i, 0], &features[i, 0], 0, n_top)
                    continue
                if pair_first < 0:
                    if status == 0:
                        # no NaN: predict's own arg-max is best_two's best class
                        first[i] = label
                        second[i] = runner_up(acc, k, label)
                    else:
                        best_two(acc, k, &first[i], &second[i])
                else:
                    first[i] = pair_first
                    second[i] = pair_second
                a = first[i]
                b = second[i]
                log_odds[i] = acc[a] - acc[b]
                size = 0
                if a != b:
                    # the row's terms first (no branch waits on a term's slot
                    # reads), then ranked, CHUNK at a time; the pair's numbers
                    # in registers (the chunk's stores may alias the arrays)
                    scale_a = scale[a]
                    scale_b = scale[b]
                    mult_a = mult[a]
                    mult_b = mult[b]
                    p = start
                    while p < stop:
                        m = 0
                        largest = 0
                        for q in range(p, min(stop, p + CHUNK)):
                            x = thresholded(data[q], binarize, threshold)
                            v = slot_pair_term(&slot[indices[q]], row0, kp, a, b, x,
                                               scale_a, scale_b, mult_a, mult_b)
                            chunk_val[m] = v
                            chunk_feat[m] = indices[q]
                            # |v|'s bits (the sign's cleared), ordered as |v|; 0
                            # for 0.0, -0.0 and NaN: no rank
                            bits = (high_bits(v) & INT64_MAX) if v == v else 0
                            chunk_bits[m] = bits
                            keep = (x != 0.0) & (x == x)
                            largest = bits if keep and bits > largest else largest
                            m = m + keep
                        if n_top > SORTED_MAX:
                            for q in range(m):
                                size = heap_push(&values[i, 0], &features[i, 0], size,
                                                 n_top, chunk_val[q], chunk_feat[q])
                        else:
                            kept = rank_chunk(chunk_val, chunk_bits, chunk_feat, m,
                                              largest, n_top, cand_val, cand_mag,
                                              cand_key, top_val, top_feat)
                            if size == 0:
                                for q in range(kept):
                                    values[i, q] = top_val[q]
                                    features[i, q] = top_feat[q]
                                size = kept
                            else:
                                # a row past CHUNK terms: the chunk's best, merged
                                for q in range(kept):
                                    size = sorted_push(&values[i, 0], &features[i, 0],
                                                       size, n_top, top_val[q], top_feat[q])
                        p = p + CHUNK
                heap_finish(&values[i, 0], &features[i, 0], size, n_top)
    return n_malformed, n_suspect


def top_two(
    const double[:, ::1] jll,        # IN: (n, k), k >= 2
    intp_t[::1] first, intp_t[::1] second,   # OUT: (n,) the best class, the runner-up
    int n_threads,
):
    """Each row's best class and runner-up (``best_two``)."""
    cdef Py_ssize_t n = jll.shape[0], k = jll.shape[1]
    cdef Py_ssize_t i
    with nogil:
        for i in prange(n, schedule='static', num_threads=max(n_threads, 1)):
            best_two(&jll[i, 0], k, &first[i], &second[i])
