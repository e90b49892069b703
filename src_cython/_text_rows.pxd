# Assembling the CSR output from the workers' blocks: the vocabulary merge of a
# fit, each block's rows copied (and, for a fit, renumbered and sorted) into
# place, and the values of a hashed matrix (binary, l1/l2 row norms).

from libc.stdint cimport int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t
from libc.string cimport memcpy
from libc.math cimport fabs, sqrt
from cpython.mem cimport PyMem_RawFree, PyMem_RawMalloc

from _text_common cimport vec_reserve, C_MODE_FIT, ERR_NOMEM
from _text_table cimport TermTable, table_zero, table_free, table_find, table_insert, table_term
from _text_sort cimport (
    BitSorter, bitsorter_init, bitsorter_free, bitsorter_add, bitsorter_take, count_t,
)
from _text_worker cimport Worker, Params


cdef inline void copy_block(Worker *w, const Params *p, Py_ssize_t start, Py_ssize_t stop,
                     const int64_t *indptr, int32_t *ids, count_t *counts) noexcept nogil:
    """Write a block's rows at their place in the output (the first block's rows
    are there already: its buffers are the output). Its counts are count_t
    already (Params.wide_counts). In MODE_FIT, each row is sorted by the terms'
    numbers of first appearance in the corpus (as scikit-learn's rows are), and
    holds their places in sorted order; a row is read whole before it is
    written, so this works in place too."""
    cdef Py_ssize_t doc, i, n, src = 0, dst
    cdef const int32_t *block_ids = <const int32_t *> w.out_ids.data
    cdef const count_t *block_counts = <const count_t *> w.out_counts.data
    cdef BitSorter sorter
    if p.mode != C_MODE_FIT:
        n = w.out_ids.n
        if n and ids + indptr[start] != block_ids:  # the first block is in place
            memcpy(ids + indptr[start], block_ids, n * sizeof(int32_t))
            memcpy(counts + indptr[start], block_counts, n * sizeof(count_t))
        return
    if bitsorter_init(&sorter, p.n_terms, p.rank) < 0:
        bitsorter_free(&sorter)
        w.error = ERR_NOMEM
        return
    for doc in range(start, stop):
        dst = indptr[doc]
        n = indptr[doc + 1] - dst
        if w.to_global == NULL:  # the first block: its term ids are the corpus's
            for i in range(n):
                bitsorter_add(&sorter, block_ids[src + i], <int32_t> block_counts[src + i])
        else:
            for i in range(n):
                bitsorter_add(&sorter, w.to_global[block_ids[src + i]],
                              <int32_t> block_counts[src + i])
        bitsorter_take(&sorter, ids + dst, counts + dst)
        src += n
    bitsorter_free(&sorter)


cdef inline int merge_tables(Worker *workers, Py_ssize_t n_blocks,
                             TermTable *merged) noexcept nogil:
    """MODE_FIT: number the terms by first appearance in the corpus. The first
    block's table, as it is, numbers the terms it saw (it becomes *merged); each
    later block's new terms are appended in its order, and its to_global maps
    its term ids to the merged ones. 0 on success, ERR_NOMEM."""
    cdef Py_ssize_t b
    cdef int64_t term, g
    cdef TermTable *bt
    merged[0] = workers[0].table
    table_zero(&workers[0].table)
    for b in range(1, n_blocks):  # the first block's to_global stays NULL: identity
        bt = &workers[b].table
        workers[b].to_global = <int64_t *> PyMem_RawMalloc((bt.n + 1) * sizeof(int64_t))
        if workers[b].to_global == NULL:
            return ERR_NOMEM
        for term in range(bt.n):
            g = table_find(merged, table_term(bt, term),
                           (<int64_t *> bt.lengths.data)[term],
                           (<uint64_t *> bt.hashes.data)[term])
            if g < 0:
                g = table_insert(merged, table_term(bt, term),
                                 (<int64_t *> bt.lengths.data)[term],
                                 (<uint64_t *> bt.hashes.data)[term], 0)
                if g < 0:
                    return ERR_NOMEM
            workers[b].to_global[term] = g
        table_free(bt)
    return 0


ctypedef fused floating:
    float
    double


cdef inline void finish_rows(const int32_t *counts, const int64_t *indptr, floating *out,
                      Py_ssize_t start, Py_ssize_t stop, bint binary,
                      int norm) noexcept nogil:
    """Values of rows [start, stop): the counts (or 1 where binary; with counts NULL,
    out already holds the values), then divided by the row's l1 (norm 1) or l2
    (norm 2) norm exactly as scikit-learn's inplace_csr_row_normalize_l1/l2 do: a
    double sum in index order of |x|, or of the product x * x taken in the data's
    precision; a row whose sum is zero is left as it is."""
    cdef Py_ssize_t row, j
    cdef double total
    cdef floating x
    for row in range(start, stop):
        if counts != NULL:
            for j in range(indptr[row], indptr[row + 1]):
                out[j] = 1 if binary else <floating> counts[j]
        if norm == 0:
            continue
        total = 0.0
        for j in range(indptr[row], indptr[row + 1]):
            x = out[j]
            if norm == 1:
                total += fabs(x)
            else:
                total += x * x
        if total == 0.0:
            continue
        if norm == 2:
            total = sqrt(total)
        for j in range(indptr[row], indptr[row + 1]):
            out[j] = <floating> (out[j] / total)
