"""The sparse count table side of the discrete models (text scale; see
fastnb/_count_table.py): fit/partial_fit into the table and restoring a table
from a saved file. Its predict paths (the predict caches, the feature slots) are
_table_predict.py's, whose mixin this one extends: one state, two files."""

import threading
import warnings
import weakref

import numpy as np

from .. import _count_table
from .. import _invariants as rules
from .._count_table import (BatchPartition, SparseCountTable, builds_table, rows_nnz,
                            wants_table)
from .._forgetting import decay_factor, forgets
from .._params import resolve_alpha, resolve_priors
from .._threads import threads_for
from .._validation import CSRInput, check_counts_X, check_y, is_sparse
from ._shared import (
    _DENSE_ONLY,
    _dense_to_csr,
    _kernel_view,
    _raise_malformed_csr,
    _split_missing,
    _table_kernels,
)
from ._table_predict import SLOT_MAX_CLASSES, _TablePredictMixin


# A partial_fit of a model with dense counts moves them into a table first when
# the model has at least MOVE_MIN_CELLS cells and MOVE_CELLS_PER_NONZERO of them
# per non-zero of the batch (``_moves_to_table``).
MOVE_MIN_CELLS = 1 << 15
MOVE_CELLS_PER_NONZERO = 8

# The last table check (``_TableMixin._table_invariants``), for the restore that
# follows it: (key, member names, weak references to the arrays, result), or None
_LAST_TABLE_CHECK = None

# Under forgetting the counts are kept in a frame whose scale shrinks with every
# batch (``_advance_frame``); below this scale the true counts are stored again
# (O(entries), every 64 half-lives of rows), so that a row's weight in the frame
# stays below 2**64 times its true weight.
FRAME_MIN_SCALE = 2.0 ** -64

# Serialises the refreshes of stale weights that predict runs (``_flush_table``,
# ``_settle_table``).
_FLUSH_LOCK = threading.Lock()


class _RowsNeedCopy(Exception):
    """A fit of X's rows in place found what only a fit of their copy handles
    (NaN, infinity, a malformed row; ``_TableMixin._fit_rows``)."""


class _CountRows:
    """A SciPy CSR X as ``_TableMixin._fit_rows`` reads it: the matrix and its
    validated arrays (``CSRInput``), read in place for every split."""

    __slots__ = ("matrix", "csr")

    def __init__(self, matrix, csr):
        self.matrix, self.csr = matrix, csr

    @property
    def shape(self):
        return self.matrix.shape


def _weights_restorer(table):
    """The call that puts the table's entry weights and stale marks back as they
    are now."""
    weights = table.ent_weight.copy()
    marks = table.ent_stale.copy()

    def restore():
        table.ent_weight[:weights.shape[0]] = weights
        table.ent_stale[:marks.shape[0]] = marks
    return restore


def _missing_table(n_classes, n_features, features, classes, values, runs=None):
    """The table of the missing values' weights, from its entries grouped by
    feature (its class totals are theirs; ``runs``: see ``from_entries``)."""
    return SparseCountTable.from_entries(n_classes, n_features, features, classes,
                                         values, np.bincount(classes, values,
                                                             minlength=n_classes),
                                         runs)


def _logged_add(undo, table, X, *args, **kwargs):
    """``table.add``, with the call that undoes it appended to ``undo``."""
    record = table.add(X, *args, **kwargs)
    undo.append(lambda: table.rollback(record))


class _TableMixin(_TablePredictMixin):
    """fit, partial_fit, predict and restore of a model whose counts are in a
    ``SparseCountTable`` (mixed into ``_BaseDiscreteNB``; not public; predict is
    ``_TablePredictMixin``'s)."""

    def _use_table(self, Xv, n_classes, alpha, first_call):
        """Whether this call fits into a sparse count table: a later partial_fit
        keeps the representation the model has; a fit picks it from the data."""
        if self._table_model is None:
            return False
        if not first_call:
            return self.__dict__.get("_table") is not None
        return (isinstance(Xv, CSRInput)
                and wants_table(n_classes, Xv.shape[1], Xv.data.shape[0])
                and bool(np.all(alpha > 0)))

    def _moves_to_table(self, Xv, n_classes, alpha):
        """Whether a partial_fit of a model with dense counts moves them into a
        table first: when the batch is small beside the model. A dense
        partial_fit recomputes every log probability and predict weight, O(k d)
        a call whatever the batch (a 1-document call on 35 classes x 16,384
        features: 4-9 ms); in the table a call costs what its batch touches."""
        if self._table_model is None or self.__dict__.get("_table") is not None:
            return False
        cells = n_classes * Xv.shape[1]
        batch = (Xv.data.shape[0] if isinstance(Xv, CSRInput)
                 else Xv.shape[0] * Xv.shape[1])
        # (a model of more classes than the slots hold keeps dense rows: its
        # large predicts would walk the table, ~3x slower than the dense kernel)
        return (n_classes <= SLOT_MAX_CLASSES and cells >= MOVE_MIN_CELLS
                and batch * MOVE_CELLS_PER_NONZERO <= cells and bool(np.all(alpha > 0)))

    def _move_to_table(self):
        """Replace the dense counts by a table of their non-zeros (the state a
        saved table model restores to; ``_table_to_dense_state`` goes back)."""
        feature_count, missing_count = self.feature_count_, self._missing_count
        k, n_features = feature_count.shape
        present = feature_count != 0
        if self._table_missing_entries:
            # the pairs with missing values have count entries (of zero where
            # nothing was observed), as a fit into the table makes them
            present |= missing_count != 0
        features, classes = np.nonzero(present.T)
        table = SparseCountTable.from_entries(
            k, n_features, features, classes, feature_count[classes, features],
            feature_count.sum(axis=1))
        missing = None
        if missing_count.any():
            features, classes = np.nonzero(missing_count.T)
            missing = _missing_table(k, n_features, features, classes,
                                     missing_count[classes, features])
        self._install_table(table, missing,
                            resolve_alpha(self.alpha, self.force_alpha, n_features))

    def _install_table(self, table, missing, alpha, features=None):
        """Make ``table`` the model's counts (and ``missing``, or None, its
        missing-value weights), with every entry weight computed for ``alpha``.
        ``features``: the features with entries, ascending, if the caller knows
        them (else found by a pass over the (d,) index)."""
        for key in _DENSE_ONLY:
            self.__dict__.pop(key, None)
        self._missing_table = missing
        self._table_alpha = np.array(alpha, dtype=np.float64)
        self._reset_table_terms(table.n_features, alpha)
        if features is None:
            features = table.all_features()
        self._refresh_table(table, features, np.atleast_1d(self._table_alpha))
        self._table = table

    def _rows_fit_X(self, X):
        """X as ``_fit_rows`` reads it, validated once for all the fits on its
        rows (a search's splits): for a SciPy CSR X whose arrays the kernels
        read as they are, of a model that may build a table (not forgetting),
        a ``_CountRows``; else None (each split fits a copy of its rows)."""
        if self._table_model is None or forgets(self.half_life) or not is_sparse(X):
            return None
        if getattr(X, "format", None) != "csr" or X.ndim != 2:
            return None
        try:
            Xv = check_counts_X(X, type(self).__name__,
                                canonical=self._threshold() is not None)
        except (TypeError, ValueError):
            return None
        if not (Xv.data is X.data and Xv.indices is X.indices and Xv.indptr is X.indptr):
            return None  # (converted: a split's copy is converted the same way)
        return _CountRows(X, Xv)

    def _fit_rows(self, X, rows, y):
        """``fit(X.matrix[rows], y)`` without the copy ``X.matrix[rows]``: the
        same model, bit for bit (the partition kernel reads the rows in place,
        in the order of ``rows``, into the same records; the rest of the fit is
        ``_fit_table``'s). ``X`` is what ``_rows_fit_X`` returned; ``rows`` an
        intp array of row indices in ``[0, X.shape[0])``, ``y`` their labels. A
        fit that would not build a table from the rows in one pass (a small or
        dense-table split, NaN, bad values) is the fit of the copy."""
        matrix, Xv = X.matrix, X.csr
        rows = np.ascontiguousarray(rows, dtype=np.intp)
        n_rows, n_features = rows.shape[0], Xv.shape[1]
        # (the search asks the estimator it was given for X: a candidate's own
        # parameters may forget, or threshold values that must be canonical)
        if (n_rows == 0 or rows.min() < 0 or rows.max() >= Xv.shape[0]
                or forgets(self.half_life) or (self._threshold() is not None
                                               and not matrix.has_canonical_format)):
            return self.fit(matrix[rows], y)
        self._begin_fit(None, True)
        y = check_y(y, n_rows, type(self).__name__)
        classes, codes = self._encode_targets(y, None, refit=True, first_call=True,
                                              n_features=n_features)
        n_classes = classes.shape[0]
        nnz = rows_nnz(Xv.indptr, rows)
        if not (wants_table(n_classes, n_features, nnz)
                and builds_table(n_classes, n_features, nnz)):
            return self.fit(matrix[rows], y)
        # (a warning of alpha's is given once: by this fit, or by the copy's)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            alpha = resolve_alpha(self.alpha, self.force_alpha, n_features)
        resolve_priors(self.class_prior, n_classes, name="class_prior", sum_to_one=False)
        if not np.all(alpha > 0):
            return self.fit(matrix[rows], y)
        try:
            self._fit_table(matrix, Xv, codes, None, classes, alpha, True, rows=rows,
                            rows_nnz=nnz)
        except _RowsNeedCopy:
            return self.fit(matrix[rows], y)
        for warning in caught:
            warnings.warn_explicit(warning.message, warning.category, warning.filename,
                                   warning.lineno)
        return self

    def _fit_table(self, X, Xv, codes, weights, classes, alpha, first_call, rows=None,
                   rows_nnz=None):
        """fit/partial_fit into the sparse table: the batch is validated in full
        first (bad input changes nothing), then added in O(nnz); the weights it
        makes stale are refreshed at the next predict. A call that fails after
        validation (MemoryError, an interrupt) is undone: a fit replaces the
        model's arrays, a later partial_fit adds in place and rolls back its log.

        ``rows`` (a fit only, whose table is built): the batch is those rows of
        ``Xv``, read in place, with ``rows_nnz`` non-zeros; one that is not clean
        raises ``_RowsNeedCopy`` before anything changes."""
        name = type(self).__name__
        n_classes, n_features = classes.shape[0], Xv.shape[1]
        if not isinstance(Xv, CSRInput):
            Xv = _dense_to_csr(_kernel_view(Xv) if Xv.dtype == np.bool_ else Xv)
        threshold = self._threshold()
        binarize = threshold is not None
        thr = float(threshold) if binarize else 0.0
        nnz = Xv.data.shape[0] if rows is None else rows_nnz
        n_threads = threads_for(self.n_threads, nnz, "count_fit")
        partition = None
        if rows is not None:
            partition = BatchPartition(Xv, codes, weights, n_classes, binarize, thr,
                                       n_threads, self._check_negative, rows, nnz)
            if partition.largest < 0:
                raise _RowsNeedCopy
            n_nan, n_inf, n_neg, n_malformed = partition.flags
            row_total, batch_total = partition.row_total, partition.batch_total
        elif first_call and builds_table(n_classes, n_features, nnz):
            # a table to be built: the validation pass also counts the non-zeros
            # of each partition, and a clean batch is copied into them (scratch:
            # the model is not touched until everything is checked)
            partition = BatchPartition(Xv, codes, weights, n_classes, binarize, thr,
                                       n_threads, self._check_negative)
            n_nan, n_inf, n_neg, n_malformed = partition.flags
            row_total, batch_total = partition.row_total, partition.batch_total
            if partition.largest < 0:
                partition = None  # nothing written (NaN: built from the observed part)
        else:
            batch_total = np.zeros(n_classes)
            row_total = np.empty(codes.shape[0])
            n_nan, n_inf, n_neg, n_malformed = _table_kernels.csr_check(
                Xv.data, Xv.indices, Xv.indptr, n_features, codes, weights, row_total,
                batch_total, binarize, thr, n_threads)
        if n_malformed:
            _raise_malformed_csr(name, n_malformed, "entries")
        if n_inf:
            self._raise_non_finite(Xv.data)
        if n_neg and self._check_negative:
            raise ValueError(f"Negative values in data passed to {name} (input X).")
        table = None if first_call else self._table
        running = np.zeros(n_classes) if table is None else table.class_total
        if not np.all(np.isfinite(running + batch_total)):
            self._raise_non_finite(np.zeros(1))
        # (under forgetting, what was learned before decays by the batch's factor)
        class_count = (np.zeros(n_classes) if first_call
                       else self.class_count_ * decay_factor(self.half_life, codes.shape[0]))
        _table_kernels.add_class_counts(codes, weights, class_count)
        if first_call and class_count.sum() <= 0:
            raise ValueError("The sum of sample_weight is zero: nothing to fit.")
        # Everything is checked: from here on the model changes. A failure on the
        # way (MemoryError, an interrupt) puts the model back as it was: a fit
        # (first call) builds a new table and new arrays, replacing attributes
        # without writing into the old ones; a later partial_fit adds into the
        # table in place, logging what it changes (``SparseCountTable.add``), and
        # the logs are rolled back, last first.
        saved = dict(self.__dict__)
        undo = []
        try:
            self._check_feature_names(X, reset=first_call)
            self._add_to_table(table, Xv, codes, weights, classes, alpha, first_call,
                               n_nan, class_count, binarize, thr, row_total, partition,
                               undo, rows_nnz if rows is not None else None)
        except BaseException:
            for rollback in reversed(undo):
                rollback()
            self.__dict__.clear()
            self.__dict__.update(saved)
            raise
        return self

    def _add_to_table(self, table, Xv, codes, weights, classes, alpha, first_call,
                      n_nan, class_count, binarize, thr, row_total, partition, undo,
                      rows_nnz=None):
        """The state-changing half of ``_fit_table``, on a validated batch: into
        ``table`` (None on a first call, which makes a new one; ``partition``:
        the batch's ``BatchPartition``, if it was made). Each change made in place
        appends to ``undo`` the call that puts it back. ``rows_nnz``: the
        non-zeros of the rows of ``Xv`` that ``partition`` holds (a fit of rows
        in place: the table is built from the partition), else None."""
        n_classes, n_features = classes.shape[0], Xv.shape[1]
        if first_call:
            for key in _DENSE_ONLY:
                self.__dict__.pop(key, None)
            self._missing_table = None
            self._table_alpha = None
        alpha_changed = (self._table_alpha is None
                         or not np.array_equal(self._table_alpha, alpha))
        observed, missing = _split_missing(Xv) if n_nan else (Xv, None)
        nnz = observed.data.shape[0] if rows_nnz is None else rows_nnz
        builds = first_call and builds_table(n_classes, n_features, nnz)
        if alpha_changed:
            # the per-feature terms depend on alpha and d only: reset before the
            # counts change, so that a table's build can fill them in
            self._table_alpha = np.array(alpha, dtype=np.float64)
            self._reset_table_terms(n_features, alpha, built=builds and missing is None)
        if builds:
            # a fresh table for a large batch is built by features (the same
            # entries and bits as adding the batch row by row). Its weights are
            # computed as its entries are placed (the refresh's bits, without a
            # second pass over the table), or below where missing values add
            # entries after it
            fill_weights = None
            if missing is None:
                fill_weights = self._table_fill_weights(np.atleast_1d(self._table_alpha))
            table = SparseCountTable.build(
                observed, codes, weights, n_classes, binarize, thr,
                threads_for(self.n_threads, nnz, "count_fit"), partition, fill_weights)
            if forgets(self.half_life):
                table.start_frame()
            refresh_all = fill_weights is None
        else:
            if first_call:
                # a small first batch (a stream's first call): added row by row,
                # into a pool with room for the next batch to come (``add`` grows
                # it, doubling, when a batch finds less: each doubling copies it)
                table = SparseCountTable(
                    n_classes, n_features,
                    capacity=max(1024, 2 * _count_table.ROOM_PER_NONZERO * nnz))
            # a new alpha changes every weight (refreshed below); otherwise the
            # entries the batch changes are listed, and their weights computed at
            # the next predict (``_flush_table``): a stream of batches costs
            # O(non-zeros) per batch, and a refresh what changed since the last
            refresh_all = alpha_changed and not first_call
            if first_call and forgets(self.half_life):
                table.start_frame()
            elif not first_call:
                # (under forgetting, the rows' weights in the table's frame)
                frame = self._advance_frame(table, codes.shape[0], undo)
                if frame is not None:
                    weights, row_total = weights * frame, row_total * frame
            _logged_add(undo, table, observed, codes, weights, binarize, thr,
                        pending=self._table_keeps_weights and not refresh_all,
                        row_total=row_total)
        if missing is not None:
            if self._missing_table is None:
                self._missing_table = SparseCountTable(n_classes, n_features)
                # (in the frame of the counts: ``_advance_frame`` scales both)
                self._missing_table.count_scale = table.count_scale
            _logged_add(undo, self._missing_table, missing, codes, weights, False, 0.0)
            if self._table_missing_entries:
                # the pairs with missing values get count entries (of zero where
                # nothing was observed): their entry weights differ from the rest
                _logged_add(undo, table, missing, codes, weights, False, 0.0,
                            zero_entries=True,
                            pending=self._table_keeps_weights and not refresh_all)
        if refresh_all and self._table_keeps_weights:
            if not first_call:
                # a new alpha rewrites every weight in place
                undo.append(_weights_restorer(table))
            if table.weight_epoch is not None:
                table.weight_epoch[:] = table.epoch  # (every weight, refreshed below)
            table.clear_stale()
            self._refresh_table(table, table.all_features(), np.atleast_1d(alpha))
        self.n_features_in_ = n_features
        self.classes_ = classes
        self.class_count_ = class_count
        self.class_log_prior_ = self._class_log_prior(class_count)
        self._table = table

    def _advance_frame(self, table, n_rows, undo):
        """Under forgetting, a later batch of ``n_rows`` rows decays everything
        learned before by 2**(-n_rows / half_life): the table's count scale takes
        the factor (O(1); a new epoch, so every weight is stale, and refreshed
        where a predict reads it, ``_settle_table``). Returns what the batch's
        row weights are multiplied by to be added in the frame (1 / the new
        scale), or None for a model that does not forget (a table that did is
        put back to true counts first, O(entries) once). Each change appends
        its undo."""
        missing = self._missing_table
        parts = [part for part in (table, missing) if part is not None]
        if not forgets(self.half_life):
            if table.weight_epoch is not None:
                # (none of this changes the model: not undone)
                self._settle_table()  # every weight, for the true counts
                for part in parts:
                    part.stop_frame()
            return None
        if table.weight_epoch is None:
            table.start_frame()  # (a table fitted without forgetting)
        decay = decay_factor(self.half_life, n_rows)
        if table.count_scale * decay < FRAME_MIN_SCALE:
            # before 1 / scale nears float64's range: the true counts again
            for part in parts:
                part.normalize()
        before = [(part, part.count_scale, part.epoch, part.class_total) for part in parts]
        if decay < FRAME_MIN_SCALE:
            # a batch of more than 64 half-lives (a half-life of 1e-300 rows: the
            # decay is 0): the stored counts themselves are decayed, O(entries),
            # their values kept for the undo
            counts = [(part, part.ent_count, part.ent_count[:part.used].copy())
                      for part in parts]

            def put_back():
                for part, pool, values in counts:
                    pool[:values.shape[0]] = values
            undo.append(put_back)

        def restore():
            for part, scale, epoch, total in before:
                part.count_scale, part.epoch, part.class_total = scale, epoch, total
        undo.append(restore)
        if decay < FRAME_MIN_SCALE:
            for part in parts:
                with np.errstate(all="ignore"):
                    part.ent_count[:part.used] *= decay
                part.class_total = part.class_total * decay
        else:
            table.count_scale *= decay
        table.epoch += 1
        if missing is not None:
            missing.count_scale = table.count_scale
        return 1.0 / table.count_scale

    def _settle_table(self, indices=None):
        """Under forgetting: refresh the weights a predict reads (``indices``, the
        batch's column indices) where they are of an older epoch than the count
        scale: O(their entries), so that a predict of a small batch does not pay
        for the size of the model. ``indices=None``: for what reads the whole
        model, every stale weight, and the true counts stored (``normalize``)."""
        table = self._table
        if table.weight_epoch is None:
            return
        with _FLUSH_LOCK:
            if indices is None:
                for part in (table, self._missing_table):
                    if part is not None:
                        part.normalize()
            if not self._table_keeps_weights:
                # (BernoulliNB derives its terms at predict, once per model
                # state, from the counts times the scale: nothing is stale)
                return
            listed = table.stale_features(indices)
            if listed.shape[0]:
                self._refresh_stale(table, listed, np.atleast_1d(self._table_alpha))
                table.version += 1
                table.log_slot_changes(listed)

    def _flush_table(self):
        """Compute the weights that the batches since the last refresh made stale
        (listed by the table, see ``SparseCountTable.add``): O(what changed), at
        most once per change. Predict calls it first; the counts are the model's
        state, the weights derived from them, so only derived values change. A
        lock keeps concurrent predicts from reading half-refreshed weights."""
        table = self._table
        if table.n_pending:
            with _FLUSH_LOCK:
                if table.n_pending:
                    # (copied first: a flush may compact the list in place)
                    changed = (table.pending_entries()[0].copy()
                               if table.slot_state is not None else None)
                    self._flush_pending(table, np.atleast_1d(self._table_alpha))
                    table.clear_pending()
                    if changed is not None:
                        table.log_slot_changes(changed)

    def _flush_pending(self, table, alpha):
        """Refresh the weights of the table's listed entries."""
        raise NotImplementedError

    def _refresh_stale(self, table, features, alpha):
        """Recompute the weights of ``features`` whose epoch is stale (a model
        that forgets), the model's parameters as its last fit left them."""
        self._refresh_table(table, features, alpha)

    def _reset_table_terms(self, n_features, alpha, built=False):
        """Per-feature terms of a fresh table, or after alpha changed. ``built``:
        a table's build follows, whose ``_table_fill_weights`` may leave them to
        its fill."""
        with np.errstate(divide="ignore"):
            self._feat_base = np.atleast_1d(np.log(np.asarray(alpha, dtype=np.float64)))

    def _refresh_table(self, table, features, alpha):
        """Recompute the entry weights (and per-feature terms) of ``features``."""
        raise NotImplementedError

    def _table_fill_weights(self, alpha):
        """The weights ``SparseCountTable.build`` computes as it places the
        entries of a fresh table (``fill_weights``, after ``_reset_table_terms``),
        or None: those of ``_refresh_table``, bit for bit."""
        return None

    def _table_terms(self):
        """(feat_base, bias, scale, mult[, entry weights]) of the table predict
        kernel."""
        raise NotImplementedError

    def _dense_from_table(self, name):
        self._settle_table()
        table = self._table
        if name == "feature_count_":
            return table.to_dense()
        if name == "_missing_count":
            missing = self._missing_table
            if missing is None:
                return np.zeros((table.n_classes, table.n_features))
            return missing.to_dense()
        if name == "feature_log_prob_":
            return self._update_feature_log_prob(
                table.to_dense(), self.class_count_, self._table_alpha, None)[0]
        raise AttributeError(name)

    @classmethod
    def _table_invariants(cls, n_classes, arrays, n_features):
        """``_checked_table`` once for these arrays: load runs the estimator's
        ``_check_state_invariants`` and then ``_restore``, which needs the
        check's runs; the second call finds the first's result (kept for the
        very array objects, alive, and these sizes: one slot, taken once)."""
        global _LAST_TABLE_CHECK
        key = (cls, n_classes, n_features)
        names = sorted(arrays)
        last, _LAST_TABLE_CHECK = _LAST_TABLE_CHECK, None
        if last is not None and last[0] == key and last[1] == names and all(
                ref() is arrays[name] for ref, name in zip(last[2], names)):
            return last[3]
        parts = cls._checked_table(n_classes, arrays, n_features)
        _LAST_TABLE_CHECK = (key, names, [weakref.ref(arrays[name]) for name in names],
                             parts)
        return parts

    @classmethod
    def _checked_table(cls, n_classes, arrays, n_features):
        """The rules on a saved table (see ``_TABLE_STATE_SPEC``): its entries
        and its missing values' entries each valid (``_invariants.table_entries``:
        features in [0, d) grouped in order, classes in [0, k), no pair twice),
        counts within the model's rules (``_check_row_counts``, with each entry's
        class count and missing count), the missing-value pairs of a model that
        gives them count entries all among the count entries, and the stated
        per-class totals equal to the sums of the entries (recomputed, to
        rounding). Returns each part's (features, classes, counts, runs), and the
        totals to use."""
        k = n_classes
        parts = []
        for prefix, counts in (("table", "table_count"), ("missing", "missing_count")):
            features, entry_classes = arrays[f"{prefix}_feature"], arrays[f"{prefix}_class"]
            live, lengths, values, sums = rules.table_entries(
                prefix, features, entry_classes, arrays[counts], k, n_features)
            parts.append((features, entry_classes, values, (live, lengths), sums))
        class_count = arrays["class_count_"]
        (table_features, table_classes, table_counts, _, sums), missing = parts
        missing_counts = missing[2]
        rules.counts_within("missing_count", missing_counts, class_count[missing[1]],
                            "class_count_ of its class")
        # each count entry's missing count (0 where its pair has none)
        missing_of_entry = 0.0
        if missing_counts.shape[0]:
            missing_of_entry = np.zeros(table_counts.shape[0])
            table_keys = rules.pair_keys(table_features, table_classes, k)
            missing_keys = rules.pair_keys(missing[0], missing[1], k)
            order = np.argsort(missing_keys, kind="stable")
            sorted_keys = missing_keys[order]
            at = np.minimum(np.searchsorted(sorted_keys, table_keys), sorted_keys.shape[0] - 1)
            found = sorted_keys[at] == table_keys
            missing_of_entry[found] = missing_counts[order[at[found]]]
            if cls._table_missing_entries:
                rules.check(int(np.count_nonzero(found)) == missing_keys.shape[0],
                            "missing_feature", "every pair with missing values must "
                            "have a table entry (of zero where nothing was observed)")
        if cls._counts_rows:
            if missing_counts.shape[0]:
                cls._check_row_counts(table_counts, missing_of_entry,
                                      class_count[table_classes])
            else:
                # without missing values, each class's largest count decides
                rules.check(not sums.negative, "feature_count_",
                            "must be non-negative (a count of ones)")
                cls._check_row_counts(np.maximum(sums.largest, 0.0), 0.0, class_count)
        rules.table_totals("table_class_total", arrays["table_class_total"],
                           table_classes, table_counts, sums)
        rules.finite_sum("table_count", sums.sums)
        return [part[:4] for part in parts]

    def _restore_table(self, classes, arrays, n_features):
        k = classes.shape[0]
        rules.positive_total("class_count_", arrays["class_count_"])
        parts = self._table_invariants(k, arrays, n_features)
        class_count = np.array(arrays["class_count_"], dtype=np.float64)
        alpha = resolve_alpha(self.alpha, self.force_alpha, n_features)
        resolve_priors(self.class_prior, k, name="class_prior", sum_to_one=False)
        if not np.all(alpha > 0):
            raise ValueError("a table-backed model needs alpha > 0")
        (features, entry_classes, values, runs), missing = parts
        # the totals as the fit summed them (checked equal, to rounding, to the
        # entries' sums): the loaded model predicts the saved one's bits
        table = SparseCountTable.from_entries(
            k, n_features, features, entry_classes, values,
            arrays["table_class_total"], runs)
        missing_table = None
        if missing[0].size:
            missing_table = _missing_table(k, n_features, *missing)
        self._install_table(table, missing_table, alpha, runs[0])
        self.classes_ = classes
        self.class_count_ = class_count
        self.class_log_prior_ = self._class_log_prior(class_count)

    def _table_to_dense_state(self):
        """Replace the table by the dense representation of the same counts."""
        feature_count = self.feature_count_
        missing_count = self._missing_count
        alpha = self._table_alpha
        alpha = float(alpha) if np.ndim(alpha) == 0 else alpha
        derived = self._derived_state(feature_count, self.class_count_, alpha,
                                      missing_count)
        self._set_state(self.classes_, feature_count, self.class_count_, *derived)
        self._missing_count = missing_count
