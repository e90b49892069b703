"""The shared fit machinery of the discrete models: parameters, counting with
the dense and CSR kernels, derived state, persistence and merging."""

import copy
import weakref

import numpy as np

from .. import _invariants as rules
from .._base import _BaseNB
from .._forgetting import check_half_life_param, decay_factor, forgets, row_weights
from .._params import (
    check_alpha_param,
    check_bool_param,
    check_n_threads,
    check_prior_param,
    resolve_alpha,
    resolve_priors,
)
from .._threads import PARALLEL_MIN_WORK, threads_for
from .._validation import CSRInput, check_counts_X, check_sample_weight, check_y
from ._predict import _PredictMixin
from ._jll_terms import linear_terms
from ._shared import (
    _TABLE_ONLY,
    _MissingValues,
    _kernel_view,
    _kernels,
    _only_nan_among_nonfinite,
    _raise_malformed_csr,
    _split_missing,
    _table_backed,
)
from ._table import _TableMixin


# The parameters of the count models read only when their counts are finalised.
DISCRETE_FINALISING = frozenset({"alpha", "force_alpha", "fit_prior", "class_prior",
                                 "n_threads", "grow_classes"})


class _BaseDiscreteNB(_TableMixin, _PredictMixin, _BaseNB):
    """Shared fit/predict machinery of the discrete models (not public)."""

    # Set by subclasses.
    _check_negative = False
    # Whether a count is a number of rows (BernoulliNB's ones): within its class
    # count less its missing count (``_check_row_counts``)
    _counts_rows = False
    # Which refresh kernel keeps the entry weights of a sparse count table (None:
    # the model always uses the dense table).
    _table_model = None
    # Whether the entry weights are kept in the table (refreshed, for what each
    # batch changed, at the next predict: ``_flush_pending``); False: the model
    # derives them at predict time from the counts (BernoulliNB).
    _table_keeps_weights = True
    # whether the table takes a model that forgets (its counts in a frame, see
    # ``_TableMixin._advance_frame``: each entry weight depends on its own
    # feature's block alone, refreshed where a predict reads it)
    _table_forgets = False
    # Whether the (class, feature) pairs with missing values need count entries
    # of their own (BernoulliNB: a missing value changes the pair's denominator).
    _table_missing_entries = False
    feature_count_ = _table_backed("feature_count_", "Weighted (class, feature) counts.")
    feature_log_prob_ = _table_backed("feature_log_prob_", "Log feature probabilities.")
    _missing_count = _table_backed("_missing_count", "Weight of the missing values.")

    def __init__(self, *, alpha=1.0, force_alpha=True, fit_prior=True,
                 class_prior=None, n_threads=None, grow_classes=False,
                 half_life=None):
        self.alpha = alpha
        self.force_alpha = force_alpha
        self.fit_prior = fit_prior
        self.class_prior = class_prior
        self.n_threads = n_threads
        self.grow_classes = grow_classes
        self.half_life = half_life

    # -- model-specific hooks ----------------------------------------------------------
    def _threshold(self):
        """The binarize threshold, or None for no thresholding."""
        return None

    def _update_feature_log_prob(self, feature_count, class_count, alpha, missing_count):
        raise NotImplementedError

    def _predict_weights(self, feature_log_prob, class_log_prior):
        """(W, bias) such that jll = X @ W.T + bias."""
        raise NotImplementedError

    def _jll_terms(self):
        """The model's ``LinearTerms`` (fastnb/_jll_terms.py)."""
        self._check_fitted()
        return linear_terms(self)


    def _update_tags(self, tags):
        tags.input_tags.sparse = True
        tags.input_tags.allow_nan = True  # NaN means missing
        tags.classifier_tags.poor_score = True
        if self._check_negative:
            tags.input_tags.positive_only = True

    # -- parameters ----------------------------------------------------------------------
    def _validate_params(self):
        owner = type(self).__name__
        check_alpha_param(self.alpha, owner, allow_array=True)
        check_bool_param(self.fit_prior, "fit_prior", owner)
        check_bool_param(self.force_alpha, "force_alpha", owner)
        check_prior_param(self.class_prior, "class_prior", owner)
        check_n_threads(self.n_threads, owner)
        check_bool_param(self.grow_classes, "grow_classes", owner)
        check_half_life_param(self.half_life, owner)

    def _class_log_prior(self, class_count):
        n_classes = class_count.shape[0]
        prior = resolve_priors(self.class_prior, n_classes, name="class_prior", sum_to_one=False)
        if prior is not None:
            with np.errstate(divide="ignore"):
                return np.log(prior)
        if self.fit_prior:
            with np.errstate(divide="ignore"):
                return np.log(class_count) - np.log(class_count.sum())
        return np.full(n_classes, -np.log(n_classes))

    # -- fitting -------------------------------------------------------------------------
    def fit(self, X, y, sample_weight=None):
        """Fit Naive Bayes classifier according to X, y.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training vectors. Dense arrays are read in their own dtype; sparse
            matrices are read as CSR without densifying.
        y : array-like of shape (n_samples,)
            Target values.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights applied to individual samples (1. for unweighted).

        Returns
        -------
        self : object
            Returns the instance itself.
        """
        return self._fit(X, y, None, sample_weight, refit=True)

    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """Incremental fit on a batch of samples.

        Any split of the data into batches gives the same model as one ``fit``
        (the counts are summed in the same row order). A call that raises leaves
        the model exactly as it was.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training vectors.
        y : array-like of shape (n_samples,)
            Target values.
        classes : array-like of shape (n_classes,), default=None
            All the classes that can appear in y. Required on the first call; on
            later calls it must be the same classes, or None.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights applied to individual samples.

        Returns
        -------
        self : object
            Returns the instance itself.
        """
        if self.grow_classes:
            return self._partial_fit_growing(X, y, classes, sample_weight)
        return self._partial_fit(X, y, classes, sample_weight)

    def _fit(self, X, y, classes, sample_weight, refit):
        """Validate, run the kernel on copies, and only then commit the new state."""
        first_call = self._begin_fit(classes, refit)
        name = type(self).__name__
        threshold = self._threshold()
        Xv = check_counts_X(X, name, canonical=threshold is not None)
        n_samples, n_features = Xv.shape
        y = check_y(y, n_samples, name)
        weights = row_weights(self.half_life, check_sample_weight(sample_weight, n_samples),
                              n_samples)
        fitted_classes, codes = self._encode_targets(
            y, classes, refit=refit, first_call=first_call, n_features=n_features)
        n_classes = fitted_classes.shape[0]
        alpha = resolve_alpha(self.alpha, self.force_alpha, n_features)
        resolve_priors(self.class_prior, n_classes, name="class_prior", sum_to_one=False)
        # Under forgetting every count decays with each batch: the sparse table
        # decays all of them by one scale (O(1)) and a predict refreshes the
        # weights it reads, or derives them from the scaled counts
        # (``_table_forgets``: the models whose table does that).
        table_ok = not forgets(self.half_life) or self._table_forgets
        if table_ok and self._use_table(Xv, n_classes, alpha, first_call):
            return self._fit_table(X, Xv, codes, weights, fitted_classes, alpha, first_call)
        if (not first_call and table_ok
                and self._moves_to_table(Xv, n_classes, alpha)):
            # the same counts in a table, then the batch into it; bad input (or
            # any failure) leaves the dense model exactly as it was
            before = dict(self.__dict__)
            try:
                self._move_to_table()
                return self._fit_table(X, Xv, codes, weights, fitted_classes, alpha,
                                       first_call)
            except BaseException:
                self.__dict__.clear()
                self.__dict__.update(before)
                raise

        def running_counts():
            if first_call:
                return (np.zeros((n_classes, n_features), dtype=np.float64),
                        np.zeros(n_classes, dtype=np.float64),
                        np.zeros((n_classes, n_features), dtype=np.float64))
            if forgets(self.half_life):
                # what was learned before, scaled by the batch's decay
                decay = decay_factor(self.half_life, n_samples)
                return (self.feature_count_ * decay, self.class_count_ * decay,
                        self._missing_count * decay)
            return (self.feature_count_.copy(), self.class_count_.copy(),
                    self._missing_count.copy())

        feature_count, class_count, missing_count = running_counts()
        try:
            self._count(Xv, codes, weights, feature_count, class_count, threshold,
                        fresh=first_call)
        except _MissingValues:
            # NaN means missing: count the observed values (a missing entry adds
            # nothing), and the weight of the missing entries per class and
            # feature, which BernoulliNB takes out of its denominators.
            feature_count, class_count, missing_count = running_counts()
            observed, missing = _split_missing(Xv)
            self._count(observed, codes, weights, feature_count, class_count, threshold,
                        fresh=first_call)
            self._count(missing, codes, weights, missing_count,
                        np.zeros(n_classes), None, fresh=first_call)
        if first_call and class_count.sum() <= 0:
            raise ValueError("The sum of sample_weight is zero: nothing to fit.")
        self._commit(X, fitted_classes, feature_count, class_count, alpha,
                     reset=first_call, missing_count=missing_count)
        return self

    def _count(self, Xv, codes, weights, feature_count, class_count, threshold,
               fresh=False):
        """Run the fit kernel into feature_count/class_count; raise on bad input.
        ``fresh``: feature_count is a new array of zeros, whose pages the CSR
        kernel faults in class by class (zeroing each row before counting it)."""
        name = type(self).__name__
        n_samples, n_features = Xv.shape
        binarize = threshold is not None
        thr = float(threshold) if binarize else 0.0
        sparse = isinstance(Xv, CSRInput)
        work = Xv.data.shape[0] if sparse else n_samples * n_features
        n_threads = threads_for(self.n_threads, work, "count_fit")
        if sparse:
            n_bad, n_neg, n_malformed = _kernels.csr_fit(
                Xv.data, Xv.indices, Xv.indptr, n_features, codes, weights,
                feature_count, class_count, binarize, thr, self._check_negative,
                n_threads, fresh,
            )
            if n_malformed:
                _raise_malformed_csr(name, n_malformed, "entries")
            values = Xv.data
        else:
            # The dense fit is bound by reading X. Threads split the columns, which
            # pays only when each thread's share of a row spans whole pages
            # (narrower strided reads defeat the prefetchers: 2 threads were 2x
            # slower on B1's 1.6 kB rows). Unweighted thresholding counts integers,
            # exact in any order: there the threads split the rows instead, each
            # reading whole rows (B1 float64 fit: 166 -> 95 ms on 2 threads).
            row_bytes = n_features * Xv.dtype.itemsize
            min_block = max(1, PARALLEL_MIN_WORK["count_fit_block_bytes"])
            split_rows = binarize and weights is None and row_bytes < min_block * n_threads
            if row_bytes < min_block * n_threads and not split_rows:
                n_threads = max(1, min(n_threads, row_bytes // min_block))
            align = max(1, 64 // Xv.dtype.itemsize)
            n_bad, n_neg = _kernels.dense_fit(
                _kernel_view(Xv), codes, weights, feature_count, class_count, binarize, thr,
                self._check_negative, align, split_rows, n_threads,
            )
            values = Xv
        if n_bad or _kernels.count_nonfinite(feature_count, n_threads):
            if _only_nan_among_nonfinite(values):
                raise _MissingValues
            self._raise_non_finite(values)
        if n_neg:
            raise ValueError(f"Negative values in data passed to {name} (input X).")

    @staticmethod
    def _raise_non_finite(values):
        if values.dtype.kind == "f":
            # NaN alone means missing and never reaches here; infinity is an error.
            if np.isinf(values).any():
                raise ValueError(
                    f"Input X contains infinity or a value too large for "
                    f"{values.dtype!r}."
                )
            if np.isnan(values).any():
                raise ValueError("Input X contains NaN.")
        raise ValueError(
            "Input X has values too large in magnitude: the feature counts overflow "
            "float64. Rescale the features."
        )

    def _commit(self, X, classes, feature_count, class_count, alpha, reset,
                missing_count):
        derived = self._derived_state(feature_count, class_count, alpha, missing_count)
        # All validation is done: commit the new state.
        self._check_feature_names(X, reset=reset)
        self._set_state(classes, feature_count, class_count, *derived)
        self._missing_count = missing_count

    def _derived_state(self, feature_count, class_count, alpha, missing_count):
        feature_log_prob, extra = self._update_feature_log_prob(
            feature_count, class_count, alpha, missing_count
        )
        class_log_prior = self._class_log_prior(class_count)
        weights, bias = self._predict_weights(feature_log_prob, class_log_prior)
        return feature_log_prob, extra, class_log_prior, weights, bias

    def _set_state(self, classes, feature_count, class_count, feature_log_prob,
                   extra, class_log_prior, weights, bias):
        for key in _TABLE_ONLY:
            self.__dict__.pop(key, None)
        self.n_features_in_ = feature_count.shape[1]
        self.classes_ = classes
        self.class_count_ = class_count
        self.feature_count_ = feature_count
        self.feature_log_prob_ = feature_log_prob
        self.class_log_prior_ = class_log_prior
        for key, value in extra.items():
            setattr(self, key, value)
        self._weights = np.ascontiguousarray(weights)
        self._bias = np.ascontiguousarray(bias, dtype=np.float64)

    # -- persistence and merging (fastnb.load, fastnb.merge) -----------------------------
    # The sufficient statistics are the weighted counts; everything else is derived
    # by the same code as fit, so a loaded model is the saved one bit for bit.
    # Load checks (``_check_state_invariants``): class_count_ sums to a positive
    # finite total; missing_count <= class_count_ of its class; the counts' total
    # finite; BernoulliNB: 0 <= feature_count_ <= class_count_ - missing_count.
    _STATE_SPEC = {
        "class_count_": (("k",), ("finite", "nonneg")),
        "feature_count_": (("k", "d"), ("finite", "nonneg")),
        "missing_count": (("k", "d"), ("finite", "nonneg")),
    }

    # A table-backed model saves its table's entries instead (format version 2):
    # feature and class of each non-zero count, grouped by feature in the table's
    # block order, and the per-class totals as summed at fit time, so that the
    # loaded table is the saved one and predicts the same bits. Load checks
    # (``_table_invariants``): entries int64, features in [0, d) non-decreasing,
    # classes in [0, k), no pair twice, d * k <= 2**62; the counts within the
    # rules above entry by entry (BernoulliNB: each missing pair has a count
    # entry); table_class_total equal to the entries' sums, recomputed (to a
    # relative 1e-6).
    _TABLE_STATE_SPEC = {
        "class_count_": (("k",), ("finite", "nonneg")),
        "table_class_total": (("k",), ("finite", "nonneg")),
        "table_feature": (("n",), ()),
        "table_class": (("n",), ()),
        "table_count": (("n",), ("finite", "nonneg")),
        "missing_feature": (("m",), ()),
        "missing_class": (("m",), ()),
        "missing_count": (("m",), ("finite", "nonneg")),
    }

    @classmethod
    def _state_spec_for(cls, names, format_version):
        if (cls._table_model is not None and format_version >= 2
                and names == ["classes"] + sorted(cls._TABLE_STATE_SPEC)):
            return cls._TABLE_STATE_SPEC
        return cls._STATE_SPEC

    def _sufficient_state(self):
        table = self.__dict__.get("_table")
        if table is None:
            return {"class_count_": self.class_count_,
                    "feature_count_": self.feature_count_,
                    "missing_count": self._missing_count}
        self._settle_table()  # (under forgetting: every count as of now)
        state = {"class_count_": self.class_count_,
                 "table_class_total": table.class_total}
        missing = self._missing_table
        for prefix, counts, part in (("table", "table_count", table),
                                     ("missing", "missing_count", missing)):
            if part is None:
                features = classes = np.zeros(0, dtype=np.int64)
                values = np.zeros(0)
            else:
                features, classes, positions = part.entries()
                values = part.ent_count[positions]
            state[f"{prefix}_feature"] = features.astype(np.int64)
            state[f"{prefix}_class"] = classes.astype(np.int64)
            state[counts] = values
        return state

    def with_params(self, **params):
        return self._with_params_reusing(None, **params)

    def _with_params_reusing(self, spare, **params):
        """``with_params(**params)``; a table-backed model's new model takes over
        the table of ``spare`` (a model that this one's ``with_params`` made and
        that the caller drops: it is left without a table) instead of a copy of
        this one's, its weights and predict caches recomputed: a search derives
        its candidates one after another from one copy of the table (the copy
        of 2**20 features' index and entries cost twice the weights' refresh).
        ``spare`` None, or one whose table is not such a copy, copies."""
        self._check_with_params(params)
        table = self.__dict__.get("_table")
        if table is None:
            return super().with_params(**params)
        new = type(self)(**copy.deepcopy({**self.get_params(deep=False), **params}))
        new._validate_params()
        alpha = resolve_alpha(new.alpha, new.force_alpha, self.n_features_in_)
        if np.ndim(alpha) != 0 or not alpha > 0:
            return super().with_params(**params)  # (a fit keeps dense counts)
        # A table-backed model: a copy of the table, its weights recomputed for
        # the new alpha, as ``_restore_table`` does with the table it rebuilds
        # from the entries (the same bits; the rebuild and its checks cost
        # O(d + entries) more, ~10x this at 2**20 features)
        k = self.classes_.shape[0]
        resolve_priors(new.class_prior, k, name="class_prior", sum_to_one=False)
        self._settle_table()
        missing = self._missing_table
        spare_table = None if spare is None else spare.__dict__.get("_table")
        if (type(spare) is type(self) and spare_table is not None
                and spare_table.copied_from is not None
                and spare_table.copied_from() is table
                and table.weight_epoch is None and spare_table.n_pending == 0
                and spare_table.version == table.version
                and (missing is None) == (spare._missing_table is None)):
            # (counts never change in a model that is only predicted without
            # forgetting; its weights and caches are derived, recomputed here)
            table_copy, missing_copy = spare_table, spare._missing_table
            del spare.__dict__["_table"]
            table_copy.predict_state = None
            table_copy.forget_slots()
        else:
            table_copy = copy.deepcopy(table)
            table_copy.copied_from = weakref.ref(table)
            table_copy.copied_features = table_copy.all_features()
            missing_copy = None if missing is None else copy.deepcopy(missing)
        new._install_table(table_copy, missing_copy, alpha, table_copy.copied_features)
        new.classes_ = self.classes_
        new.class_count_ = np.array(self.class_count_, dtype=np.float64)
        new.class_log_prior_ = new._class_log_prior(new.class_count_)
        new._finish_restore(self.n_features_in_, getattr(self, "feature_names_in_", None))
        return new

    with_params.__doc__ = _BaseNB.with_params.__doc__

    def _state_for(self, model):
        """The table's entries, or the dense counts where ``model``'s alpha is
        not positive: a fit with it keeps dense counts (``_use_table``)."""
        if self.__dict__.get("_table") is not None:
            alpha = resolve_alpha(model.alpha, model.force_alpha, self.n_features_in_)
            if not np.all(alpha > 0):
                self._settle_table()
                return {"class_count_": self.class_count_,
                        "feature_count_": self.feature_count_,
                        "missing_count": self._missing_count}
        return self._sufficient_state()

    @classmethod
    def _check_state_invariants(cls, classes, arrays, n_features):
        """Raise a ValueError naming the member and the rule where the saved state
        (either layout) breaks what the kernels rely on: class_count_ sums to a
        positive finite total; dense: missing_count within class_count_ of its
        class, the counts' total finite (so are every row and column sum the
        derived log probabilities add up); table: see ``_table_invariants``."""
        rules.positive_total("class_count_", arrays["class_count_"])
        if "table_count" in arrays:
            cls._table_invariants(classes.shape[0], arrays, n_features)
            return
        class_count = arrays["class_count_"][:, None]
        missing = arrays["missing_count"]
        rules.counts_within("missing_count", missing, class_count,
                            "class_count_ of its class")
        rules.finite_sum("feature_count_", arrays["feature_count_"])
        if cls._counts_rows:
            cls._check_row_counts(arrays["feature_count_"], missing, class_count)

    @classmethod
    def _check_row_counts(cls, feature_count, missing_count, class_count):
        """The rules of counts of rows (``_counts_rows``), broadcast: dense (k, d)
        arrays, or a table's entries with their classes' counts. p = (N + a) /
        (C - M + 2a) is a probability, and log(1 - p) finite, only for
        0 <= N <= C - M (a fit on values outside [0, 1] with binarize=None breaks
        it, and predicts NaN: such a model is not saved)."""
        rules.check(not np.any(feature_count < 0), "feature_count_",
                    "must be non-negative (a count of ones)")
        rules.counts_within("feature_count_", feature_count + missing_count, class_count,
                            "class_count_ of its class less its missing_count")

    def _restore(self, classes, arrays, n_features, feature_names):
        self._validate_params()
        if "table_count" in arrays:
            self._restore_table(classes, arrays, n_features)
            self._finish_restore(n_features, feature_names)
            self._check_derived_state()
            return
        self._check_state_invariants(classes, arrays, n_features)
        class_count = np.array(arrays["class_count_"], dtype=np.float64)
        feature_count = np.array(arrays["feature_count_"], dtype=np.float64)
        missing_count = np.array(arrays["missing_count"], dtype=np.float64)
        alpha = resolve_alpha(self.alpha, self.force_alpha, n_features)
        resolve_priors(self.class_prior, classes.shape[0], name="class_prior", sum_to_one=False)
        derived = self._derived_state(feature_count, class_count, alpha, missing_count)
        self._set_state(classes, feature_count, class_count, *derived)
        self._missing_count = missing_count
        self._finish_restore(n_features, feature_names)
        self._check_derived_state()

    def _check_derived_state(self):
        """After a restore: the log probabilities and predict terms the kernels
        read are finite (a class's log prior may be -inf: a class never seen).
        O(size of the state); a table-backed model computes its predict terms
        here, which its first predict then reuses."""
        table = self.__dict__.get("_table")
        rules.derived_finite("class_count_", self.class_log_prior_, allow=("-inf",))
        if table is None:
            rules.derived_finite("feature_count_", self.feature_log_prob_)
            rules.derived_finite("feature_count_", self._weights)
            rules.derived_finite("feature_count_", self._bias, allow=("-inf",))
            return
        terms = self._table_predict_state()
        feat_base, bias, scale, mult = terms["table_terms"]
        rules.derived_finite("table_count", feat_base)
        rules.derived_finite("table_count", bias, allow=("-inf",))
        rules.derived_finite("table_class_total", scale)
        rules.derived_finite("table_count", mult)
        # (the pool of a restored table: its free room holds zeros, see
        # ``SparseCountTable.from_entries``)
        rules.derived_finite("table_count", terms["table_entry_weights"][:table.used])

    def _merged_with(self, other):
        """A new model with the counts of both: equal to one fit on both datasets
        (to rounding; exactly for integer counts), whatever classes each saw."""
        from .._persist import union_classes

        classes, where_a, where_b = union_classes(self.classes_, other.classes_)
        shape = (classes.shape[0], self.n_features_in_)
        feature_count = np.zeros(shape)
        class_count = np.zeros(shape[0])
        feature_count[where_a] += self.feature_count_
        feature_count[where_b] += other.feature_count_
        class_count[where_a] += self.class_count_
        class_count[where_b] += other.class_count_
        missing_count = np.zeros(shape)
        missing_count[where_a] += self._missing_count
        missing_count[where_b] += other._missing_count
        merged = type(self)(**self.get_params())
        merged._validate_params()
        alpha = resolve_alpha(merged.alpha, merged.force_alpha, shape[1])
        resolve_priors(merged.class_prior, shape[0], name="class_prior", sum_to_one=False)
        derived = merged._derived_state(feature_count, class_count, alpha, missing_count)
        merged._set_state(classes, feature_count, class_count, *derived)
        merged._missing_count = missing_count
        merged._finish_restore(self.n_features_in_,
                               getattr(self, "feature_names_in_", None))
        return merged
