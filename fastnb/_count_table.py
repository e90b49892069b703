"""The sparse per-class count table of the discrete models at text scale.

With hashed text features the dense (n_classes, n_features) count table is
mostly zeros, and rewriting it costs O(k d) per call whatever the size of the
batch. ``SparseCountTable`` keeps the non-zero counts only, grouped by feature
(layout in src_cython/_sparse_rows.pxd), so that fit and partial_fit cost
O(non-zeros of the batch + classes) and the model O(non-zero counts), plus a few
bytes per feature for the block index.

The estimators pick it from the data (``wants_table``); scikit-learn's dense
attributes (``feature_count_``, ``feature_log_prob_``) are computed from it when
asked for, never stored.
"""

import numpy as np

from ._dispatch import load_kernels

__all__ = ["BatchPartition", "SparseCountTable", "builds_table", "can_build", "wants_table"]

_kernels = load_kernels("_sparse_counts")  # a batch checked, partitioned
_build_kernels = load_kernels("_sparse_build")  # a fresh table reduced, filled
_update_kernels = load_kernels("_sparse_update")  # the stream: adds, refreshes

# The table is used for CSR input when the dense table would hold this many cells
# or more, and at least this many per non-zero of the data. Measured fits (2
# threads): at 2.6 cells a non-zero (20,000 x 2**18, k=20) the table and the dense
# kernels take the same time; at 1.2 the dense fit takes half the table's. Above
# two, most cells of the dense model's k x d arrays (counts, log probabilities,
# predict weights) stand for pairs never counted, and allocating them is most of
# its fit: raw text -> HashingVectorizer -> MultinomialNB (25,000 documents, 2.2
# cells a non-zero) took 41-47 ms to fit on the table and 53-642 ms dense, when
# fresh pages were slow.
# a large predict patches the slots of the last one for the features changed
# since, up to d / SLOT_LOG_SHARE of them (logs; repeats counted), else builds
# them again (O(d + entries))
SLOT_LOG_SHARE = 4

TABLE_MIN_CELLS = 1 << 20
TABLE_MIN_CELLS_PER_NONZERO = 2

# free pool entries a non-zero of a batch asks for before ``add`` starts: with
# fewer, the pool grows first (the T1 stream ran out of room, was undone and added
# again in ~1 batch of 10 with 2, in none with 3)
ROOM_PER_NONZERO = 3

# A fresh table is built by features (the batch copied into partitions of
# features, each reduced in cache; O(nnz) and a few O(d) passes) when its first
# batch has at least d / this many non-zeros; a smaller first batch (a stream's)
# is added row by row, in O(its non-zeros).
TABLE_BUILD_NNZ_RATIO = 4

# bytes of one entry of a partition's reduction (``BucketRecord`` in
# _sparse_counts.pyx)
_RECORD_BYTES = 12

# the weights ``SparseCountTable.build`` can compute as it places the entries
FILL_COUNTS, FILL_MULTINOMIAL, FILL_COMPLEMENT = (
    _build_kernels.FillWeights.FILL_COUNTS, _build_kernels.FillWeights.FILL_MULTINOMIAL,
    _build_kernels.FillWeights.FILL_COMPLEMENT)


def _partition_shift(n_features, n_classes):
    """log2 of the features in one partition of ``SparseCountTable.build``: its
    (feature, class) map of 4-byte entry numbers within 256 KiB where the
    partitions allow, so that it stays in cache (compact records keep 8-byte
    cells, twice that: 280 KiB for T1's 35 classes, in L2; 512 and 256 features a
    partition measured no faster), and 16384 partitions at most (their write
    positions, in cache too); 16 features at least."""
    by_classes = max(4, 16 - (max(1, n_classes) - 1).bit_length())
    by_count = (max(1, n_features) - 1).bit_length() - 14
    return max(by_classes, by_count, 0)


def can_build(n_classes, n_features):
    """Whether ``SparseCountTable.build`` takes a table of this shape: a record's
    key (class << part_shift | feature offset) must fit in 31 bits."""
    return (max(1, n_classes) << _partition_shift(n_features, n_classes)) < 2**31


def wants_table(n_classes, n_features, nnz):
    """Whether a model of this shape, first fitted on ``nnz`` non-zeros, should
    keep its counts in a sparse table."""
    cells = n_classes * n_features
    return cells >= TABLE_MIN_CELLS and cells >= TABLE_MIN_CELLS_PER_NONZERO * nnz


def _row_totals(X, codes, weights, binarize, threshold, n_classes):
    """Each row's total, from ``csr_check`` (its one definition), for a validated
    batch that did not come through it."""
    row_total = np.empty(X.shape[0])
    _kernels.csr_check(X.data, X.indices, X.indptr, X.shape[1], codes, weights,
                       row_total, np.zeros(n_classes), binarize, threshold, 1)
    return row_total


def builds_table(n_classes, n_features, nnz):
    """Whether a first batch of ``nnz`` non-zeros makes its table with
    ``SparseCountTable.build`` (by partitions of features) rather than ``add``."""
    return nnz * TABLE_BUILD_NNZ_RATIO >= n_features and can_build(n_classes, n_features)


class BatchPartition:
    """A CSR batch validated and copied into partitions of consecutive features
    by one call of ``table_partition``, for ``SparseCountTable.build``.

    ``flags`` are ``csr_check``'s ``(n_nan, n_inf, n_neg, n_malformed)``;
    ``row_total`` and ``batch_total`` its row and class totals. The records are
    written only for a batch found clean (``largest >= 0``): no NaN, infinity or
    malformed entry, and no negative value with ``stop_on_negative``; ``compact``
    says whether they are compact (one int32 each, the count in its high bits:
    unweighted whole counts below 2**15, or thresholded ones).

    ``rows``: None, or an intp array: the batch is those rows of X, read in
    place (a search's split, without the copy ``X[rows]``), and ``nnz`` their
    non-zeros (``rows_nnz``); ``codes`` and ``weights`` are the batch's."""

    def __init__(self, X, codes, weights, n_classes, binarize, threshold, n_threads,
                 stop_on_negative, rows=None, nnz=None):
        n_features = X.shape[1]
        n_threads = max(1, n_threads)
        self.part_shift = _partition_shift(n_features, n_classes)
        n_parts = max(1, -(-n_features // (1 << self.part_shift)))
        self.part_start = np.empty(n_parts + 1, dtype=np.int64)
        # the records' values and keys (two arrays: see _sparse_counts.pyx)
        n_records = max(1, X.data.shape[0] if nnz is None else nnz)
        self.records = (np.empty(n_records, dtype=np.float64),
                        np.empty(n_records, dtype=np.int32))
        self.row_total = np.empty(codes.shape[0])
        self.batch_total = np.zeros(n_classes)
        # compact records (one int32 each: see _sparse_counts.pyx) where the batch's
        # counts allow them and every (class, offset) key fits in 16 bits
        compact_keys = n_classes << self.part_shift <= 1 << 16
        *flags, self.largest, self.compact = _kernels.table_partition(
            X.data, X.indices, X.indptr, n_features, codes, weights, binarize, threshold,
            self.part_shift, self.part_start, *self.records,
            np.empty((n_threads, n_parts), dtype=np.int64), self.row_total,
            self.batch_total, stop_on_negative, compact_keys, rows)
        self.flags = tuple(flags)


def rows_nnz(indptr, rows):
    """The stored values of the CSR rows ``rows`` (an intp array of row indices)."""
    return int((indptr[rows + 1] - indptr[rows]).sum())


class _AddUndo:
    """The log of one ``SparseCountTable.add``: the table's attributes and class
    totals before it, and the kernel's log of the index, counts and weights it
    changed (``table_add``), with the pool arrays it wrote them into."""

    def __init__(self, before, class_total, nnz, pending):
        self.before = before
        self.class_total = class_total
        n = max(1, nnz)
        self.block = np.empty((n, 3), dtype=np.int64)
        self.entry = np.empty(2 * n if pending else n, dtype=np.int64)
        self.value = np.empty(self.entry.shape[0])
        self.sizes = np.zeros(2, dtype=np.int64)
        self.pool = None

    def undo_kernel(self, table):
        ent_count, ent_stale = self.pool
        _update_kernels.table_undo(table.feat_start, table.feat_len, ent_count, ent_stale,
                            self.block, self.entry, self.value, self.sizes)
        self.sizes[:] = 0


def _bitmap_bytes(entries):
    """Bytes of a bitmap of a pool of ``entries`` (at least one)."""
    return max(1, (int(entries) + 7) // 8)


class SparseCountTable:
    """Per-class weighted sums, stored where they are non-zero.

    Attributes (all NumPy arrays, so that the table pickles and copies as data):
    ``feat_start``/``feat_len`` (d,) index the blocks; ``ent_class``,
    ``ent_count`` and ``ent_weight`` are the entry pool (``used`` entries of it in
    use), ``ent_stale`` a bitmap of it (bit e of byte e // 8: entry e is listed
    as stale, below); ``class_total`` (k,) holds the sum of each class's counts:
    each row's total (``csr_check``) added in row order; ``version`` counts the changes, for
    caches;
    ``pend_feat``/``pend_off`` list the ``n_pending`` entries whose weights are
    stale (see ``add``), each once: at most as many as the table has entries.
    """

    # no stale weights: also what a table pickled before the list existed has
    # (these are only read; ``add`` lists into arrays of the instance's own)
    n_pending = 0
    pend_feat = np.zeros(0, dtype=np.int64)
    pend_off = np.zeros(0, dtype=np.int32)
    # the owning model's cached predict terms and predictors, derived data that
    # is not pickled or copied (``_table_predict_state``)
    predict_state = None
    # the feature slots of the last large predict, kept for the next one to patch
    # (``slot_state``), and the features whose weights changed since
    # (``slot_dirty``, arrays logged by the model's flush): derived data too
    slot_state = None
    slot_dirty = ()
    # a weak reference to the table this one is a copy of, and the features
    # with entries (``all_features``), for a model's with_params
    # (``_with_params_reusing``): not pickled or copied
    copied_from = None
    copied_features = None
    # the frame of a model that forgets (``start_frame``): the true counts are
    # ``count_scale`` times the stored ones (class totals too); ``weight_epoch``
    # (d,) stamps each block's weights with the ``epoch`` of the scale they were
    # computed for (None: the model does not forget)
    count_scale = 1.0
    weight_epoch = None
    epoch = 0

    def __init__(self, n_classes, n_features, capacity=1024, index=True):
        # index=False: the (d,) index is left unset, for a caller that writes all
        # of it (``build``: 12 bytes a feature not written twice)
        self.n_classes = int(n_classes)
        self.n_features = int(n_features)
        # A feature's block start is read only where it has entries, and a pool
        # entry only once made: neither is initialised (at 2**20 features, filling
        # the starts with -1 took a fifth of a 1,000-document stream's first
        # batch). ``build`` writes every length too.
        self.feat_start = np.empty(n_features, dtype=np.int64)
        if index:
            self.feat_len = np.zeros(n_features, dtype=np.int32)
        else:
            self.feat_len = np.empty(n_features, dtype=np.int32)
        self.ent_class = np.empty(max(1, capacity), dtype=np.int32)
        self.ent_count = np.empty(max(1, capacity), dtype=np.float64)
        self.ent_weight = np.empty(max(1, capacity), dtype=np.float64)
        self.ent_stale = np.zeros(_bitmap_bytes(capacity), dtype=np.uint8)
        self.class_total = np.zeros(n_classes, dtype=np.float64)
        self.used = 0
        self.version = 0
        self.clear_pending()

    def __getstate__(self):
        state = dict(self.__dict__)
        for name in ("predict_state", "slot_state", "slot_dirty", "copied_from",
                     "copied_features"):
            state.pop(name, None)
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        if "ent_stale" not in state:
            # pickled before the bitmap, when a listed entry's weight was NaN
            marked = np.packbits(np.isnan(self.ent_weight[:self.used]),
                                 bitorder="little")
            self.ent_stale = np.zeros(_bitmap_bytes(self.ent_class.shape[0]), np.uint8)
            self.ent_stale[:marked.shape[0]] = marked

    # -- updating ------------------------------------------------------------------
    def add(self, X, codes, weights, binarize, threshold, zero_entries=False,
            pending=False, row_total=None):
        """Add a validated CSR batch. With ``pending``, the entries whose weights
        it makes stale are listed (``pending_entries``; their weights are NaN
        until the model refreshes them). With ``zero_entries``, the batch's
        positions get entries (for their rows' classes) but no counts.
        ``row_total``: the rows' totals from ``csr_check``, if it ran.

        Returns an ``_AddUndo``: ``rollback`` with it puts the table back as it
        was before the call, bit for bit (a partial_fit that fails after adding).
        A call that raises changes nothing: when the pool runs out of room, what
        the kernel added so far is undone before the pool grows, and the batch is
        added again, so that a MemoryError while growing finds the table as it was.
        """
        nnz = X.data.shape[0]
        if not pending:
            # the weights it changes are not listed: the slots cannot follow
            self.forget_slots()
        # everything the call may need is allocated before the table changes
        before = dict(self.__dict__)
        class_total = self.class_total.copy()
        if not zero_entries and row_total is None:
            row_total = _row_totals(X, codes, weights, binarize, threshold,
                                    self.n_classes)
        undo = _AddUndo(before, class_total, nnz, pending and not zero_entries)
        try:
            if pending and self.pend_feat.shape[0] < self.n_pending + nnz:
                room = max(2 * (self.n_pending + nnz), 1024)
                for name in ("pend_feat", "pend_off"):
                    old = getattr(self, name)
                    new = np.empty(room, dtype=old.dtype)
                    new[:self.n_pending] = old[:self.n_pending]
                    setattr(self, name, new)
            # Room for the batch before it starts (a batch makes at most one entry
            # a non-zero, and moves full blocks into twice their room): a pass
            # that runs out of room is undone and made again
            if self.ent_class.shape[0] - self.used < ROOM_PER_NONZERO * nnz:
                self._grow(max(2 * self.ent_class.shape[0],
                               self.used + ROOM_PER_NONZERO * nnz))
            while True:
                sizes = np.array([self.used, self.n_pending], dtype=np.int64)
                undo.pool = (self.ent_count, self.ent_stale)
                stop_row = _update_kernels.table_add(
                    X.data, X.indices, X.indptr, codes, weights, binarize, threshold,
                    self.feat_start, self.feat_len, self.ent_class, self.ent_count,
                    self.ent_weight, self.ent_stale, self.pend_feat, self.pend_off,
                    sizes, undo.block,
                    undo.entry, undo.value, undo.sizes, pending, zero_entries)
                if stop_row < 0:
                    break
                # out of room: undo this pass (the pool is as before it), grow
                # the pool, and add the whole batch again into the larger pool
                undo.undo_kernel(self)
                self._grow(2 * self.ent_class.shape[0])
        except BaseException:
            self.__dict__.clear()
            self.__dict__.update(before)
            raise
        self.used = int(sizes[0])
        self.n_pending = int(sizes[1])
        if not zero_entries:
            _kernels.add_row_totals(codes, row_total, self.class_total)
        self.version += 1
        return undo

    def rollback(self, undo):
        """Put the table back as it was before the ``add`` that returned ``undo``
        (the adds after it rolled back first)."""
        undo.undo_kernel(self)
        self.__dict__.clear()
        self.__dict__.update(undo.before)
        self.class_total[:] = undo.class_total

    def pending_entries(self):
        """(feature, offset in its block) of the entries listed by ``add`` since
        the last ``clear_pending``."""
        return self.pend_feat[:self.n_pending], self.pend_off[:self.n_pending]

    def clear_pending(self):
        """Forget the listed entries: their weights were all computed, and their
        marks cleared, by the model's flush (``flush_multinomial``,
        ``pending_features``)."""
        self.pend_feat = np.zeros(0, dtype=np.int64)
        self.pend_off = np.zeros(0, dtype=np.int32)
        self.n_pending = 0

    def clear_stale(self):
        """Forget the listed entries and their marks, for a refresh of every
        weight (O(pool / 8))."""
        self.ent_stale[:] = 0
        self.clear_pending()
        self.forget_slots()

    def log_slot_changes(self, features):
        """Log the features whose weights a flush refreshed, for the next large
        predict to patch their slots (past a log of d / SLOT_LOG_SHARE features,
        it builds them again instead)."""
        if self.slot_state is None:
            return
        logged = sum(part.shape[0] for part in self.slot_dirty) + features.shape[0]
        if logged * SLOT_LOG_SHARE > self.n_features:
            self.forget_slots()
        else:
            self.slot_dirty = list(self.slot_dirty) + [features]

    def forget_slots(self):
        """Drop the kept slots: the next large predict builds them."""
        self.slot_state = None
        self.slot_dirty = ()

    @classmethod
    def build(cls, X, codes, weights, n_classes, binarize, threshold, n_threads,
              partition=None, fill_weights=None):
        """A table holding a validated CSR batch (no NaN): the entries and bits of
        ``add`` into an empty table, built by features (the non-zeros copied into
        partitions of consecutive features, then each partition reduced to its
        entries, in parallel: see ``table_partition``), with the pool sized to fit.
        ``partition``: the batch's ``BatchPartition``, if the caller made it (and
        validated the batch with it); its records are used up.

        ``fill_weights``: None (the weights are left for the model's refresh), or
        ``(kind, alpha, feature_all, feat_base)``, a ``FillWeights`` kind and its
        arrays: every entry weight (and ComplementNB's per-feature terms) is then
        computed as the entries are placed, the refresh's bits (``table_fill``)."""
        n_features = X.shape[1]
        n_threads = max(1, n_threads)
        if partition is None:
            partition = BatchPartition(X, codes, weights, n_classes, binarize,
                                       threshold, n_threads, stop_on_negative=False)
        if partition.largest < 0 or partition.records is None:
            raise ValueError("SparseCountTable.build needs a validated batch, "
                             "partitioned once")
        table = cls(n_classes, n_features, capacity=1, index=False)
        _kernels.add_row_totals(codes, partition.row_total, table.class_total)
        part_shift = partition.part_shift
        records = partition.records
        n_parts = partition.part_start.shape[0] - 1
        part_room = np.empty(n_parts, dtype=np.int64)
        part_compact = np.empty(n_parts, dtype=np.uint8)
        width = 1 << part_shift
        # a partition has at most one entry per record and per (feature, class)
        most_entries = max(1, min(partition.largest, width * n_classes))
        kind, alpha, feature_all, feat_base, dead_base = fill_weights or (
            FILL_COUNTS, None, None, None, None)
        # (ComplementNB's F_j are summed by the reduction, for the fill's weights)
        _build_kernels.table_reduce(
            *records, partition.part_start, part_shift, table.feat_len, part_room,
            part_compact,
            np.full((n_threads, width * n_classes), -1, dtype=np.int64),
            np.empty((n_threads, most_entries * _RECORD_BYTES), dtype=np.uint8),
            np.empty((n_threads, width + 1), dtype=np.int64), n_threads,
            partition.compact, feature_all if kind == FILL_COMPLEMENT else None)
        # each partition's first pool entry, and the pool's end
        part_pool = np.zeros(n_parts + 1, dtype=np.int64)
        np.cumsum(part_room, out=part_pool[1:])
        used = int(part_pool[-1])
        # every entry is written (its class and count by table_fill, its weight
        # there or by the model's refresh) before it is read, and a block's free
        # room when an entry is made there: nothing is zeroed
        table.ent_class = np.empty(max(1, used), dtype=np.int32)
        table.ent_count = np.empty(max(1, used), dtype=np.float64)
        table.ent_weight = np.empty(max(1, used), dtype=np.float64)
        table.ent_stale = np.zeros(_bitmap_bytes(used), dtype=np.uint8)
        _build_kernels.table_fill(*records, partition.part_start, part_compact, part_pool,
                            part_shift, table.feat_start, table.feat_len, table.ent_class,
                            table.ent_count, n_threads, kind, table.ent_weight, alpha,
                            feature_all, feat_base,
                            np.nan if dead_base is None else dead_base)
        # the records are spent (reduced in place, then copied): freed now, not
        # when the caller lets go of the partition (the model's refresh runs first)
        partition.records = records = None
        table.used = used
        table.version += 1
        return table

    def _grow(self, capacity):
        # the free tail is written before it is read (an entry's class, count and
        # weight are set when it is made): it need not be zeroed
        for name in ("ent_class", "ent_count", "ent_weight"):
            old = getattr(self, name)
            new = np.empty(capacity, dtype=old.dtype)
            new[:self.used] = old[:self.used]
            setattr(self, name, new)
        marks = np.zeros(_bitmap_bytes(capacity), dtype=np.uint8)
        used_bytes = _bitmap_bytes(self.used)
        marks[:used_bytes] = self.ent_stale[:used_bytes]
        self.ent_stale = marks

    # -- forgetting -----------------------------------------------------------------
    def start_frame(self):
        """Keep the counts in a frame for a model that forgets: a batch scales
        the whole table by changing ``count_scale`` (O(1)) and adds its rows
        with their weights divided by it. Every weight is valid now (epoch 0).
        O(d) once, 8 bytes a feature."""
        self.count_scale = 1.0
        self.weight_epoch = np.zeros(self.n_features, dtype=np.int64)
        self.epoch = 0

    def stop_frame(self):
        """Back to true counts, without a frame (``normalize`` first)."""
        self.normalize()
        self.weight_epoch = None
        self.epoch = 0

    def normalize(self):
        """Store the true counts (``count_scale`` 1): O(entries), for what reads
        the whole table, and before the scale would leave float64's range. The
        weights of the current epoch stay valid (the true counts are the same)."""
        if self.count_scale != 1.0:
            # (the free room of the blocks is scaled too: whatever it holds is
            # written before it is read)
            with np.errstate(all="ignore"):
                self.ent_count[:self.used] *= self.count_scale
            self.class_total = self.class_total * self.count_scale
            self.count_scale = 1.0

    def stale_features(self, indices=None):
        """The features of ``indices`` (None: every feature) whose weights are of
        an older epoch than the count scale, each once, now stamped with it: the
        caller refreshes them."""
        every = indices is None
        if every:
            indices = np.zeros(0, dtype=np.int64)
        listed = np.empty(self.n_features if every
                          else min(self.n_features, indices.shape[0]), dtype=np.int64)
        n = _update_kernels.stale_weights(indices, every, self.feat_len,
                                          self.weight_epoch, self.epoch, listed)
        return listed[:n]

    # -- reading -------------------------------------------------------------------
    def _positions(self, features):
        """(block lengths, pool positions of their entries) of ``features``."""
        lengths = self.feat_len[features].astype(np.int64)
        first = np.cumsum(lengths) - lengths
        offsets = np.arange(int(lengths.sum()), dtype=np.int64) - np.repeat(first, lengths)
        return lengths, np.repeat(self.feat_start[features], lengths) + offsets

    def entries(self):
        """(feature, class, position) of every entry, feature-major."""
        features = self.all_features()
        lengths, positions = self._positions(features)
        return (np.repeat(features, lengths), self.ent_class[positions].astype(np.intp),
                positions)

    def columns(self, features):
        """(k, len(features)) true counts of ``features`` (distinct, in [0, d)):
        O(their entries), in or out of a forgetting frame."""
        lengths, positions = self._positions(features)
        dense = np.zeros((self.n_classes, features.shape[0]))
        dense[self.ent_class[positions], np.repeat(np.arange(features.shape[0]), lengths)] = (
            self.ent_count[positions] * self.count_scale)
        return dense

    def to_dense(self):
        """The (k, d) table of counts."""
        dense = np.zeros((self.n_classes, self.n_features))
        features, classes, positions = self.entries()
        dense[classes, features] = self.ent_count[positions]
        return dense

    def dense_weights(self, fill):
        """(k, d): the entry weights where a count exists, ``fill`` (a (d,) or
        scalar value) elsewhere."""
        dense = np.empty((self.n_classes, self.n_features))
        dense[:] = fill
        features, classes, positions = self.entries()
        dense[classes, features] = self.ent_weight[positions]
        return dense

    @property
    def nbytes(self):
        frame = () if self.weight_epoch is None else (self.weight_epoch,)
        return sum(a.nbytes for a in (self.feat_start, self.feat_len, self.ent_class,
                                      self.ent_count, self.ent_weight, self.ent_stale,
                                      self.class_total, self.pend_feat, self.pend_off,
                                      *frame))

    @classmethod
    def from_dense(cls, counts):
        """A table holding the non-zeros of a dense (k, d) count array, with the
        entries of each feature in class order."""
        features, classes = np.nonzero(counts.T)
        return cls.from_entries(counts.shape[0], counts.shape[1], features, classes,
                                counts[classes, features], counts.sum(axis=1))

    @classmethod
    def from_entries(cls, n_classes, n_features, features, classes, counts, class_total,
                     runs=None):
        """A table from its entries as ``entries()`` lists them (grouped by
        feature, each feature's classes in block order) and its class totals:
        the same counts in the same order, so every sum over it is the same bits.
        ``runs``: the features with entries (ascending) and their numbers of
        entries, if the caller has them.

        Costs O(entries) plus the (d,) block index, 12 bytes a feature
        (``feat_start`` int64, ``feat_len`` int32), whose pages are written only
        for the features with entries: nothing else of size d is allocated."""
        table = cls(n_classes, n_features, capacity=1)
        n = features.shape[0]
        if runs is None:
            if n:
                first = np.flatnonzero(np.concatenate(([True], features[1:] != features[:-1])))
                runs = features[first], np.diff(np.append(first, n))
            else:
                runs = np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
        live, lengths = runs
        lengths = np.asarray(lengths, dtype=np.int64)
        # blocks sized to the next power of two, as table_add expects
        room = np.left_shift(1, np.ceil(np.log2(np.maximum(lengths, 1))).astype(np.int64))
        starts = np.cumsum(room) - room
        capacity = max(1, int(room.sum()))
        table._grow(capacity)
        # the free room of the blocks holds zero weights, not what the allocator
        # left (a check of the weights after a restore reads the whole pool)
        table.ent_weight[:] = 0
        # each entry's position: its block's start plus its rank in the block
        first = np.cumsum(lengths) - lengths
        positions = np.repeat(starts - first, lengths) + np.arange(n, dtype=np.int64)
        table.ent_class[positions] = classes
        table.ent_count[positions] = counts
        table.feat_start[live] = starts
        table.feat_len[live] = lengths
        table.used = capacity if n else 0
        table.class_total = np.array(class_total, dtype=np.float64)
        return table

    def all_features(self):
        """The features with entries, ascending (int64)."""
        return _update_kernels.live_features(self.feat_len)
