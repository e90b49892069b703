"""The predict paths of the sparse count table (see _table.py, whose
``_TableMixin`` extends this mixin): the predict state cached on the table, the
table predictor and its feature slots for large batches, and the 1-document
path."""

import threading

import numpy as np

from .._validation import _CSR_TYPES, CSRInput
from ._shared import (
    TABLE_DENSE_PREDICT_NNZ_RATIO,
    _aligned_feature_major,
    aligned_array,
    _dense_to_csr,
    _kernel_view,
    _raise_malformed_csr,
    _table_predict_kernels,
)


# A large predict batch reads the feature slots of a model of up to this many
# classes (their dense rows summed in registers); with more, it walks the table.
SLOT_MAX_CLASSES = max(_table_predict_kernels.SLOT_ROW_WIDTHS)

# Dense rows a build of the slots leaves free for features that later batches
# take past SLOT_ENTRIES classes: a quarter more, and 64
SLOT_ROOM_SHARE = 4
SLOT_ROOM = 64

# Serialises the builds and patches of a table's feature slots (``_slot_predictor``)
_SLOT_LOCK = threading.Lock()

# TablePredictor.predict by (value, index) itemsize of a CSR batch (float32/64
# data, int32/64 indices, as ``CSRInput`` guarantees): the fused method's own
# dispatch costs 0.4 us (``predict_row``, the 1-document path, reads its arrays
# through the buffer protocol and dispatches in C)
_TABLE_PREDICT = {
    (values, index): _table_predict_kernels.TablePredictor.predict[value_type, index_type]
    for values, value_type in ((4, "float"), (8, "double"))
    for index, index_type in ((4, "int"), (8, "long long"))}


class _TablePredictMixin:
    """predict of a model whose counts are in a ``SparseCountTable`` (the base of
    ``_TableMixin``; not public)."""

    def _table_predict_state(self, settled=False):
        """The predict terms of the table (and, once made, its predictors and
        dense feature-major weights), tied to the objects they were computed
        from: a fit or partial_fit changes the table's version or replaces those
        objects, so a stale entry is never read.

        The state lives on the table (``SparseCountTable.predict_state``, left
        out when the table is pickled or copied), not in ``__dict__`` (predict
        leaves the estimator's attributes as they were) nor in the weak-keyed
        ``_PREDICT_CACHE`` the dense models use: looking an estimator up there
        makes a weak reference each time, a third of a microsecond of a
        1-document predict. ``_one_document_labels`` checks the same objects in
        place (its ``one_row`` entry): a source added here goes there too.

        ``settled``: the caller (a predict) refreshed the stale weights of the
        features it reads (``_settle_table`` with its indices); otherwise, under
        forgetting, every stale weight is refreshed first, for a caller that
        reads the whole model."""
        table = self._table
        if not settled:
            # (what reads the whole model; a predict settles its batch's blocks)
            self._settle_table()
        if table.n_pending:
            self._flush_table()
        cache = table.predict_state
        if cache is not None:
            sources = cache["table_sources"]
            if (cache["table_version"] == table.version and sources[0] == id(self)
                    and sources[1] is self.class_log_prior_
                    and sources[2] is self._feat_base
                    and sources[3] is self._table_alpha):
                return cache
        terms = self._table_terms()
        # a model may derive its entry weights here (a fifth term, pool-aligned)
        # instead of keeping them in the table's ent_weight. The cache holds the
        # objects it was computed from (compared by identity), and keeps to one
        # estimator: two that share a table (shallow copies) compute their own in
        # turn. It does not hold the estimator: a later one at the same id that
        # finds this state on its table and these objects is a copy of the same
        # model state.
        cache = {"table_sources": (id(self), self.class_log_prior_, self._feat_base,
                                   self._table_alpha),
                 "table_version": table.version, "table_terms": terms[:4],
                 "table_entry_weights": terms[4] if len(terms) > 4 else table.ent_weight}
        table.predict_state = cache
        return cache

    def _slot_predictor(self, cache):
        """The table predictor of the model state ``cache`` belongs to, given the
        table as one slot a feature (``fill_slots``), for large batches, cached.
        The first costs one O(d + entries) build. A model that keeps its weights
        in the table then keeps the slots on it, and the next state's predictor
        patches them (``patch_slots``) for the features whose weights the flushes
        since refreshed: O(what the batches changed), where a build after each
        partial_fit cost ~20 ms at 2**20 features. The slots hold the same
        values either way, so a batch gets the same bits."""
        predictor = cache.get("table_slots")
        if predictor is not None:
            return predictor
        with _SLOT_LOCK:   # (patching writes slots that another predict may read)
            predictor = cache.get("table_slots")
            if predictor is None:
                predictor = self._patched_or_built_slots(cache)
                cache["table_slots"] = predictor
        return predictor

    def _patched_or_built_slots(self, cache):
        table = self._table
        feat_base, bias, scale, mult = cache["table_terms"]
        weights = cache["table_entry_weights"]
        kept = table.slot_state
        n_rows = -1
        if (kept is not None and weights is table.ent_weight
                and kept["owner"] == id(self) and kept["feat_base"] is feat_base
                and kept["alpha"] is self._table_alpha):
            slots, rows = kept["slots"], kept["rows"]
            changed = (np.concatenate(table.slot_dirty) if table.slot_dirty
                       else np.zeros(0, dtype=np.int64))
            n_rows = _table_predict_kernels.patch_slots(
                changed, table.feat_start, table.feat_len, table.ent_class, weights,
                feat_base, slots, rows, kept["n_rows"])
        if n_rows < 0:
            # built: a first time, after a change the flushes did not list, or
            # when the features newly past SLOT_ENTRIES classes outgrew the rows
            slot_bytes = _table_predict_kernels.slot_bytes()
            # each slot one whole cache line
            slots = aligned_array((table.n_features * slot_bytes,), np.uint8, zeroed=False)
            needed = _table_predict_kernels.slot_dense_rows(table.feat_len)
            # room for the features that later batches give more classes
            rows = _aligned_feature_major(
                max(1, needed + needed // SLOT_ROOM_SHARE + SLOT_ROOM), table.n_classes)
            n_rows = _table_predict_kernels.fill_slots(
                table.feat_start, table.feat_len, table.ent_class, weights, feat_base,
                slots, rows)
        table.forget_slots()
        if weights is table.ent_weight:
            table.slot_state = {"owner": id(self), "feat_base": feat_base,
                                "alpha": self._table_alpha, "slots": slots,
                                "rows": rows, "n_rows": n_rows}
        return _table_predict_kernels.TablePredictor(
            table.feat_start, table.feat_len, table.ent_class, weights, feat_base,
            bias, scale, mult, slots, rows)

    def _table_predictor(self, cache):
        """The table predictor of the model state ``cache`` belongs to."""
        predictor = cache.get("table_predictor")
        if predictor is None:
            table = self._table
            feat_base, bias, scale, mult = cache["table_terms"]
            predictor = _table_predict_kernels.TablePredictor(
                table.feat_start, table.feat_len, table.ent_class,
                cache["table_entry_weights"], feat_base, bias, scale, mult)
            cache["table_predictor"] = predictor
        return predictor

    def _one_document_labels(self, X):
        """``predict`` of a one-row SciPy CSR matrix on the table, by the kernel
        that scores it in ``predict`` (the same label) without the general path's
        layers: about a fifth of a 1-document call. None sends X down the general
        path: another model or input, a batch the dense kernel would take, or
        what the kernel will not score (dtypes, layout, NaN, a bad index), which
        that path takes care of or reports."""
        # (each check here costs a tenth of a microsecond: scipy's ``shape`` is a
        # property, read once, and a 1-D array's len is its shape[0])
        state = self.__dict__
        table = state.get("_table")
        if table is None or type(X) not in _CSR_TYPES or table.weight_epoch is not None:
            # (a model that forgets settles the blocks the row reads first: the
            # general path)
            return None
        n_rows, n_features = X.shape
        data, indices = X.data, X.indices
        nnz = len(data)
        if (n_rows != 1 or n_features != table.n_features or nnz != len(indices)
                or nnz * TABLE_DENSE_PREDICT_NNZ_RATIO >= n_features
                or "feature_names_in_" in state):
            return None
        # What a 1-document call needs, in one tuple of the table's predict state,
        # checked in place: the objects ``_table_predict_state`` checks (kept in
        # step with it) and the classes, the predictor, and each class's
        # one-element view of classes_, made when first returned (copying it
        # costs half as much as slicing classes_ and copying the slice; made
        # lazily, a state rebuilt after each partial_fit costs O(1) Python work,
        # not a slice a class). Two method calls and a dict lookup a call fewer:
        # 0.45-0.52 us of ~4.5 (T1, one process, 15 rounds alternated with the
        # calls before).
        cache = table.predict_state
        one_row = None if cache is None else cache.get("one_row")
        if one_row is not None:
            version, owner, prior, base, alpha, classes, predictor, labels = one_row
        if (one_row is None or version != table.version or owner != id(self)
                or table.n_pending or prior is not state.get("class_log_prior_")
                or base is not state.get("_feat_base")
                or alpha is not state.get("_table_alpha")
                or classes is not state.get("classes_")):
            cache = self._table_predict_state()  # flushes pending weights first
            predictor = self._table_predictor(cache)
            classes = self.classes_
            labels = [None] * classes.shape[0]
            cache["one_row"] = (table.version, id(self), state.get("class_log_prior_"),
                                state.get("_feat_base"), state.get("_table_alpha"),
                                classes, predictor, labels)
        threshold = self._threshold()
        # -1 also for arrays the kernel does not read (dtypes, layout), and with a
        # threshold for a row not in canonical format (the kernel checks that its
        # indices increase: scipy's ``has_canonical_format`` costs 0.25 us)
        index = predictor.predict_row(
            data, indices, X.indptr, threshold is not None,
            0.0 if threshold is None else float(threshold))
        if index < 0:
            return None
        label = labels[index]
        if label is None:
            label = labels[index] = classes[index:index + 1]
        return label.copy()

    def _run_table_predict(self, X, mode, labels_out, out, binarize, thr):
        """CSR predict of a table-backed model: walking each feature's class list
        costs O(nnz x classes with a count) and nothing up front; the feature
        slots (``_slot_predictor``) cost one O(d + entries) build, then cached,
        and read one cache line a non-zero (plus a dense row, in cache, for the
        frequent features). Small batches (single documents, streams interleaved
        with partial_fit) take the table; a batch with at least
        d / TABLE_DENSE_PREDICT_NNZ_RATIO non-zeros takes the slots, for a model
        of up to SLOT_MAX_CLASSES classes. The two agree to rounding (the slots
        sum a frequent feature's classes apart from the rest); the choice depends
        on the batch alone, not on what is cached, so a batch gets the same bits
        from a model and from its saved-and-loaded copy."""
        table = self._table
        if not isinstance(X, CSRInput):
            X = _dense_to_csr(_kernel_view(X) if X.dtype == np.bool_ else X)
        if table.weight_epoch is not None:
            # (ComplementNB's norm sums every weight of a class: all of them)
            self._settle_table(None if self.__dict__.get("_table_norm") else X.indices)
        cache = self._table_predict_state(settled=True)
        feat_base, bias, scale, mult = cache["table_terms"]
        n_samples = X.shape[0]
        nnz = X.data.shape[0]
        if n_samples == 1:
            n_threads = 1  # one row is one block whatever the thread count
        else:
            per_row = table.n_classes * max(1, nnz // n_samples)
            n_threads = self._predict_threads(n_samples, per_row)
        if (nnz * TABLE_DENSE_PREDICT_NNZ_RATIO >= table.n_features
                and table.n_classes <= SLOT_MAX_CLASSES):
            predictor = self._slot_predictor(cache)
        else:
            predictor = self._table_predictor(cache)
        # the specialisation for the batch's dtypes, called directly
        n_suspect, n_malformed = _TABLE_PREDICT[X.data.itemsize, X.indices.itemsize](
            predictor, X.data, X.indices, X.indptr, binarize, thr, mode, labels_out, out,
            n_threads)
        if n_malformed:
            _raise_malformed_csr(type(self).__name__, n_malformed, "rows")
        return n_suspect, X.data
