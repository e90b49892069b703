"""BernoulliNB, MultinomialNB and ComplementNB on compiled one-pass kernels."""

import warnings
import weakref
from numbers import Real

import numpy as np

from ._base import MODE_ARGMAX, MODE_JLL, MODE_LOG_PROBA, _BaseNB
from ._count_table import SparseCountTable, wants_table
from ._dispatch import load_kernels
from ._params import (
    check_alpha_param,
    check_bool_param,
    check_n_threads,
    check_prior_param,
    param_error,
    resolve_alpha,
    resolve_priors,
)
from ._threads import PARALLEL_MIN_WORK, threads_for
from ._validation import (
    CSRInput,
    check_counts_X,
    check_sample_weight,
    check_y,
    feature_names_of,
)

__all__ = ["BernoulliNB", "ComplementNB", "MultinomialNB"]

_kernels = load_kernels("_discrete_kernels")
_table_kernels = load_kernels("_sparse_counts")

# Bool input is predicted through a table of 256 partial sums per 8 features when
# it fits: at most this many classes (the kernel's local accumulator) and bytes.
_BOOL_TABLE_OK = _kernels.bool_table_supported()
_BOOL_TABLE_MAX_CLASSES = 64
_BOOL_TABLE_MAX_BYTES = 16 << 20


# Arrays derived from a fitted model that only some inputs need (the (d, k)
# weights for CSR input, the byte-pattern table), made on first use. They live
# here, keyed weakly by the model, not in its __dict__: they are not state, so
# predict changes no attribute, and pickles, copies and saved files never hold them.
_PREDICT_CACHE = weakref.WeakKeyDictionary()

# A table-backed model predicts a CSR batch through dense feature-major weights
# (built once from the table, O(k d)) when the batch has at least d / this many
# non-zeros: past that, reading one contiguous row per non-zero repays the build.
TABLE_DENSE_PREDICT_NNZ_RATIO = 8


class _MissingValues(Exception):
    """Signal from the fit kernels' pass: X holds NaN (and no infinity)."""


def _only_nan_among_nonfinite(values):
    """True when every non-finite value of a float array is NaN (missing)."""
    if values.dtype.kind != "f":
        return False
    return bool(np.isnan(values).any() and not np.isinf(values).any())


def _split_missing(X):
    """(X with NaN read as 0, the indicator of the NaN entries), dense or CSR.

    Used only when X has missing values: a zero contributes nothing to the counts
    or to a linear score, so the observed part is scored by the ordinary kernels.
    """
    if isinstance(X, CSRInput):
        nan = np.isnan(X.data)
        observed = CSRInput(np.where(nan, 0, X.data).astype(X.data.dtype), X.indices,
                            X.indptr, X.shape, X.source)
        # Row pointers of the NaN entries: the running count of NaN at each row start.
        indptr = np.concatenate([[0], np.cumsum(nan, dtype=np.int64)])[X.indptr]
        indptr = indptr.astype(X.indptr.dtype)
        missing = CSRInput(np.ones(int(nan.sum()), dtype=np.float64),
                           np.ascontiguousarray(X.indices[nan]), indptr, X.shape, None)
        return observed, missing
    nan = np.isnan(X)
    return np.where(nan, 0, X).astype(X.dtype), nan.astype(np.float64)


def _kernel_view(X):
    """The array a dense kernel reads: bool as uint8 (a view, no copy)."""
    return X.view(np.uint8) if X.dtype == np.bool_ else X


def _nonnegative_threshold(value):
    return (
        isinstance(value, Real)
        and not isinstance(value, bool)
        and value >= 0
        and np.isfinite(value)
    )


def _dense_to_csr(X):
    """A dense batch as CSR arrays (float64 values, int64 indices), for a model
    whose counts are in a sparse table."""
    rows, cols = np.nonzero(X)
    data = np.ascontiguousarray(X[rows, cols], dtype=np.float64)
    indptr = np.zeros(X.shape[0] + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=X.shape[0]), out=indptr[1:])
    return CSRInput(data, cols.astype(np.int64), indptr, X.shape, None)


def _aligned_feature_major(n_features, n_classes):
    """A zeroed (d, kp) array for the dense CSR predict kernel: one feature's
    weights contiguous, rows padded to 8/16/24/32 classes (a fixed-length,
    register-resident loop) and 64-byte aligned (a row of 24 doubles is exactly
    three cache lines)."""
    k, d = n_classes, n_features
    padded_k = -(-k // 8) * 8 if k <= 32 else k
    raw = np.zeros(d * padded_k + 8, dtype=np.float64)
    offset = (-raw.ctypes.data % 64) // 8
    return raw[offset:offset + d * padded_k].reshape(d, padded_k)


def _raise_malformed_csr(name, count, counted):
    """The error of a CSR matrix whose row pointers or column indices the kernel
    found out of range (``count`` of them, counted in ``counted``)."""
    raise ValueError(
        f"{name} got a malformed CSR matrix: row pointers or column indices out of "
        f"range ({count} {counted})."
    )


def _table_backed(name, doc):
    """A fitted attribute that a dense model stores and a table-backed model
    computes when asked for (never stored: no second copy of the model)."""

    def get(self):
        try:
            return self.__dict__[name]
        except KeyError:
            pass
        if self.__dict__.get("_table") is None:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        return self._dense_from_table(name)

    def set(self, value):
        self.__dict__[name] = value

    def delete(self):
        del self.__dict__[name]

    return property(get, set, delete, doc)


# State that only one of the two representations has.
_DENSE_ONLY = ("feature_count_", "feature_log_prob_", "_missing_count", "_weights", "_bias")
_TABLE_ONLY = ("_table", "_missing_table", "_table_alpha", "_feat_base", "_table_norm")


class _BaseDiscreteNB(_BaseNB):
    """Shared fit/predict machinery of the discrete models (not public)."""

    # Set by subclasses.
    _check_negative = False
    # Which refresh kernel keeps the entry weights of a sparse count table (None:
    # the model always uses the dense table).
    _table_model = None
    # Whether an entry's weight depends on its own count only (MultinomialNB), so
    # that the add kernel can update exactly the entries a batch changes.
    _table_weights_in_add = False

    feature_count_ = _table_backed("feature_count_", "Weighted (class, feature) counts.")
    feature_log_prob_ = _table_backed("feature_log_prob_", "Log feature probabilities.")
    _missing_count = _table_backed("_missing_count", "Weight of the missing values.")

    def __init__(self, *, alpha=1.0, force_alpha=True, fit_prior=True,
                 class_prior=None, n_threads=None):
        self.alpha = alpha
        self.force_alpha = force_alpha
        self.fit_prior = fit_prior
        self.class_prior = class_prior
        self.n_threads = n_threads

    # -- model-specific hooks ----------------------------------------------------------
    def _threshold(self):
        """The binarize threshold, or None for no thresholding."""
        return None

    def _update_feature_log_prob(self, feature_count, class_count, alpha, missing_count):
        raise NotImplementedError

    def _predict_weights(self, feature_log_prob, class_log_prior):
        """(W, bias) such that jll = X @ W.T + bias."""
        raise NotImplementedError


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
        return self._fit(X, y, classes, sample_weight, refit=False)

    def _fit(self, X, y, classes, sample_weight, refit):
        """Validate, run the kernel on copies, and only then commit the new state."""
        first_call = self._begin_fit(classes, refit)
        name = type(self).__name__
        threshold = self._threshold()
        Xv = check_counts_X(X, name, canonical=threshold is not None)
        n_samples, n_features = Xv.shape
        y = check_y(y, n_samples, name)
        weights = check_sample_weight(sample_weight, n_samples)
        fitted_classes, codes = self._encode_targets(
            y, classes, refit=refit, first_call=first_call, n_features=n_features)
        n_classes = fitted_classes.shape[0]
        alpha = resolve_alpha(self.alpha, self.force_alpha, n_features)
        resolve_priors(self.class_prior, n_classes, name="class_prior", sum_to_one=False)
        if self._use_table(Xv, n_classes, alpha, first_call):
            return self._fit_table(X, Xv, codes, weights, fitted_classes, alpha, first_call)

        def running_counts():
            if first_call:
                return (np.zeros((n_classes, n_features), dtype=np.float64),
                        np.zeros(n_classes, dtype=np.float64),
                        np.zeros((n_classes, n_features), dtype=np.float64))
            return (self.feature_count_.copy(), self.class_count_.copy(),
                    self._missing_count.copy())

        feature_count, class_count, missing_count = running_counts()
        try:
            self._count(Xv, codes, weights, feature_count, class_count, threshold)
        except _MissingValues:
            # NaN means missing: count the observed values (a missing entry adds
            # nothing), and the weight of the missing entries per class and
            # feature, which BernoulliNB takes out of its denominators.
            feature_count, class_count, missing_count = running_counts()
            observed, missing = _split_missing(Xv)
            self._count(observed, codes, weights, feature_count, class_count, threshold)
            self._count(missing, codes, weights, missing_count,
                        np.zeros(n_classes), None)
        if first_call and class_count.sum() <= 0:
            raise ValueError("The sum of sample_weight is zero: nothing to fit.")
        self._commit(X, fitted_classes, feature_count, class_count, alpha,
                     reset=first_call, missing_count=missing_count)
        return self

    def _count(self, Xv, codes, weights, feature_count, class_count, threshold):
        """Run the fit kernel into feature_count/class_count; raise on bad input."""
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
                n_threads,
            )
            if n_malformed:
                _raise_malformed_csr(name, n_malformed, "entries")
            values = Xv.data
        else:
            # The dense fit is bound by one read of X, which one core nearly
            # saturates; threads split the columns, which pays only when each
            # thread's share of a row spans whole pages (narrower strided reads
            # defeat the prefetchers: 2 threads were 2x slower on B1's 1.6 kB rows).
            row_bytes = n_features * Xv.dtype.itemsize
            min_block = max(1, PARALLEL_MIN_WORK["count_fit_block_bytes"])
            if row_bytes < min_block * n_threads:
                n_threads = max(1, min(n_threads, row_bytes // min_block))
            align = max(1, 64 // Xv.dtype.itemsize)
            n_bad, n_neg = _kernels.dense_fit(
                _kernel_view(Xv), codes, weights, feature_count, class_count, binarize, thr,
                self._check_negative, align, n_threads,
            )
            values = Xv
        if n_bad or _kernels.count_nonfinite(feature_count):
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

    # -- the sparse count table (text scale; see fastnb/_count_table.py) ------------------
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

    def _fit_table(self, X, Xv, codes, weights, classes, alpha, first_call):
        """fit/partial_fit into the sparse table: the batch is validated in full
        first (a call that raises changes nothing), then added in O(nnz) and only
        the features it touched are refreshed."""
        name = type(self).__name__
        n_classes, n_features = classes.shape[0], Xv.shape[1]
        if not isinstance(Xv, CSRInput):
            Xv = _dense_to_csr(_kernel_view(Xv) if Xv.dtype == np.bool_ else Xv)
        threshold = self._threshold()
        binarize = threshold is not None
        thr = float(threshold) if binarize else 0.0
        batch_total = np.zeros(n_classes)
        n_nan, n_inf, n_neg, n_malformed = _table_kernels.csr_check(
            Xv.data, Xv.indices, Xv.indptr, n_features, codes, weights, batch_total,
            binarize, thr)
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
        class_count = np.zeros(n_classes) if first_call else self.class_count_.copy()
        _table_kernels.add_class_counts(codes, weights, class_count)
        if first_call and class_count.sum() <= 0:
            raise ValueError("The sum of sample_weight is zero: nothing to fit.")
        self._check_feature_names(X, reset=first_call)
        # Everything is checked: from here on the model changes.
        if first_call:
            for key in _DENSE_ONLY:
                self.__dict__.pop(key, None)
            table = SparseCountTable(n_classes, n_features,
                                     capacity=max(1024, Xv.data.shape[0]))
            self._missing_table = None
            self._table_alpha = None
        alpha_changed = (self._table_alpha is None
                         or not np.array_equal(self._table_alpha, alpha))
        # weights kept current by the add kernel itself (only the entries that
        # change), unless alpha changed and every weight is recomputed anyway
        weights_in_add = self._table_weights_in_add and not alpha_changed
        observed, missing = _split_missing(Xv) if n_nan else (Xv, None)
        touched = table.add(observed, codes, weights, binarize, thr,
                            weight_alpha=(np.atleast_1d(self._table_alpha)
                                          if weights_in_add else None))
        if missing is not None:
            if self._missing_table is None:
                self._missing_table = SparseCountTable(n_classes, n_features)
            self._missing_table.add(missing, codes, weights, False, 0.0)
        if first_call:
            table.compact()
        if alpha_changed:
            self._table_alpha = np.array(alpha, dtype=np.float64)
            self._reset_table_terms(table, alpha)
            touched = table.all_features()
        if not weights_in_add:
            self._refresh_table(table, touched, np.atleast_1d(self._table_alpha))
        self.n_features_in_ = n_features
        self.classes_ = classes
        self.class_count_ = class_count
        self.class_log_prior_ = self._class_log_prior(class_count)
        self._table = table
        return self

    def _reset_table_terms(self, table, alpha):
        """Per-feature terms of a fresh table, or after alpha changed."""
        with np.errstate(divide="ignore"):
            self._feat_base = np.atleast_1d(np.log(np.asarray(alpha, dtype=np.float64)))

    def _refresh_table(self, table, features, alpha):
        """Recompute the entry weights (and per-feature terms) of ``features``."""
        raise NotImplementedError

    def _table_terms(self):
        """(feat_base, bias, scale, mult) of the table predict kernel."""
        raise NotImplementedError

    def _dense_from_table(self, name):
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

    def _table_predict_state(self):
        """The predict terms of the table (and, once made, its dense feature-major
        weights), cached outside ``__dict__`` and tied to the objects they were
        computed from: a fit or partial_fit changes the table's version or
        replaces those objects, so a stale entry is never read (the cache holds
        them, so their ids cannot be reused while it lives)."""
        table = self._table
        cache = _PREDICT_CACHE.get(self)
        if cache is not None:
            sources = cache.get("table_sources")
            if (sources is not None and cache["table_version"] == table.version
                    and sources[0] is table and sources[1] is self.class_log_prior_
                    and sources[2] is self._feat_base
                    and sources[3] is self._table_alpha):
                return cache
        cache = {"table_sources": (table, self.class_log_prior_, self._feat_base,
                                   self._table_alpha),
                 "table_version": table.version, "table_terms": self._table_terms()}
        _PREDICT_CACHE[self] = cache
        return cache

    def _table_dense_weights(self, cache):
        """(d, kp) feature-major weights and (k,) bias built from the table, for the
        dense CSR predict kernel (kp as in ``_make_feature_major_weights``)."""
        weights = cache.get("table_weights_fm")
        if weights is None:
            table = self._table
            feat_base, bias, scale, mult = cache["table_terms"]
            weights = _aligned_feature_major(table.n_features, table.n_classes)
            _table_kernels.table_feature_major(
                table.feat_start, table.feat_len, table.ent_class, table.ent_weight,
                feat_base, scale, mult, weights)
            cache["table_weights_fm"] = weights
        return weights

    def _run_table_predict(self, X, mode, labels_out, out):
        """CSR predict of a table-backed model: walking each feature's class list
        costs O(nnz x classes with a count) and nothing up front, the dense
        feature-major weights cost one O(k d) build (then cached) and read one
        contiguous row per non-zero. Small batches (single documents, streams
        interleaved with partial_fit) take the table; a batch with at least
        d / TABLE_DENSE_PREDICT_NNZ_RATIO non-zeros takes the dense kernel. The
        choice depends on the batch alone, not on what is cached, so a batch
        gets the same bits from a model and from its saved-and-loaded copy."""
        table = self._table
        if not isinstance(X, CSRInput):
            X = _dense_to_csr(_kernel_view(X) if X.dtype == np.bool_ else X)
        threshold = self._threshold()
        binarize = threshold is not None
        thr = float(threshold) if binarize else 0.0
        cache = self._table_predict_state()
        feat_base, bias, scale, mult = cache["table_terms"]
        n_samples = X.shape[0]
        nnz = X.data.shape[0]
        per_row = table.n_classes * max(1, nnz // max(1, n_samples))
        n_threads = self._predict_threads(n_samples, per_row)
        if nnz * TABLE_DENSE_PREDICT_NNZ_RATIO >= table.n_features:
            n_suspect, n_malformed = _kernels.csr_predict(
                X.data, X.indices, X.indptr, self._table_dense_weights(cache), bias,
                binarize, thr, mode, labels_out, out, n_threads)
        else:
            predictor = cache.get("table_predictor")
            if predictor is None:
                predictor = _table_kernels.TablePredictor(
                    table.feat_start, table.feat_len, table.ent_class, table.ent_weight,
                    feat_base, bias, scale, mult)
                cache["table_predictor"] = predictor
            n_suspect, n_malformed = predictor.predict(
                X.data, X.indices, X.indptr, binarize, thr, mode, labels_out, out,
                n_threads)
        if n_malformed:
            _raise_malformed_csr(type(self).__name__, n_malformed, "rows")
        return n_suspect, X.data

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
    _STATE_SPEC = {
        "class_count_": (("k",), ("finite", "nonneg")),
        "feature_count_": (("k", "d"), ("finite", "nonneg")),
        "missing_count": (("k", "d"), ("finite", "nonneg")),
    }

    # A table-backed model saves its table's entries instead (format version 2):
    # feature and class of each non-zero count, grouped by feature in the table's
    # block order, and the per-class totals as summed at fit time, so that the
    # loaded table is the saved one and predicts the same bits.
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

    def _restore(self, classes, arrays, n_features, feature_names):
        self._validate_params()
        if "table_count" in arrays:
            self._restore_table(classes, arrays, n_features)
            self._finish_restore(n_features, feature_names)
            return
        class_count = np.array(arrays["class_count_"], dtype=np.float64)
        feature_count = np.array(arrays["feature_count_"], dtype=np.float64)
        missing_count = np.array(arrays["missing_count"], dtype=np.float64)
        if class_count.sum() <= 0:
            raise ValueError("class_count_ sums to zero")
        if np.any(missing_count > class_count[:, None] * (1 + 1e-9)):
            raise ValueError("missing_count exceeds class_count_")
        alpha = resolve_alpha(self.alpha, self.force_alpha, n_features)
        resolve_priors(self.class_prior, classes.shape[0], name="class_prior", sum_to_one=False)
        derived = self._derived_state(feature_count, class_count, alpha, missing_count)
        self._set_state(classes, feature_count, class_count, *derived)
        self._missing_count = missing_count
        self._finish_restore(n_features, feature_names)

    def _restore_table(self, classes, arrays, n_features):
        k = classes.shape[0]
        class_count = np.array(arrays["class_count_"], dtype=np.float64)
        if class_count.sum() <= 0:
            raise ValueError("class_count_ sums to zero")
        parts = []
        for prefix, counts in (("table", "table_count"), ("missing", "missing_count")):
            features, entry_classes = arrays[f"{prefix}_feature"], arrays[f"{prefix}_class"]
            if features.dtype != np.int64 or entry_classes.dtype != np.int64:
                raise ValueError(f"{prefix} entries must be int64")
            if features.size and (features.min() < 0 or features.max() >= n_features
                                  or entry_classes.min() < 0 or entry_classes.max() >= k
                                  or np.any(np.diff(features) < 0)):
                raise ValueError(f"{prefix} entries out of range or not grouped by feature")
            if np.unique(features * k + entry_classes).size != features.size:
                raise ValueError(f"{prefix} entries repeat a (feature, class) pair")
            values = np.array(arrays[counts], dtype=np.float64)
            parts.append((features, entry_classes, values))
        alpha = resolve_alpha(self.alpha, self.force_alpha, n_features)
        resolve_priors(self.class_prior, k, name="class_prior", sum_to_one=False)
        if not np.all(alpha > 0):
            raise ValueError("a table-backed model needs alpha > 0")
        table = SparseCountTable.from_entries(k, n_features, *parts[0],
                                              arrays["table_class_total"])
        missing = None
        if parts[1][0].size:
            features, entry_classes, values = parts[1]
            missing = SparseCountTable.from_entries(
                k, n_features, features, entry_classes, values,
                np.bincount(entry_classes, values, minlength=k))
        for key in _DENSE_ONLY:
            self.__dict__.pop(key, None)
        self._missing_table = missing
        self._table_alpha = np.array(alpha, dtype=np.float64)
        self._reset_table_terms(table, alpha)
        self._refresh_table(table, table.all_features(), np.atleast_1d(self._table_alpha))
        self.classes_ = classes
        self.class_count_ = class_count
        self.class_log_prior_ = self._class_log_prior(class_count)
        self._table = table

    def _merged_with(self, other):
        """A new model with the counts of both: equal to one fit on both datasets
        (to rounding; exactly for integer counts), whatever classes each saw."""
        from ._persist import union_classes

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

    # -- prediction ----------------------------------------------------------------------
    def _check_predict_X(self, X):
        self._check_fitted()
        if not (
            type(X) is np.ndarray
            and X.ndim == 2
            and X.dtype == np.float64
            and X.flags.c_contiguous
            and X.shape[0] > 0
        ):
            threshold = self._threshold()
            if feature_names_of(X) is not None or hasattr(self, "feature_names_in_"):
                self._check_feature_names(X, reset=False)
            X = check_counts_X(X, type(self).__name__, canonical=threshold is not None)
        elif hasattr(self, "feature_names_in_"):
            self._check_feature_names(X, reset=False)
        if X.shape[1] != self.n_features_in_:
            self._check_n_features(X, reset=False)
        return X

    def _use_bool_table(self):
        k, d = self._weights.shape
        padded_k = 8 if k <= 8 else (16 if k <= 16 else k)
        return (
            _BOOL_TABLE_OK
            and k <= _BOOL_TABLE_MAX_CLASSES
            and ((d + 7) // 8) * 256 * padded_k * 8 <= _BOOL_TABLE_MAX_BYTES
        )

    def _cached(self, key, make):
        cache = _PREDICT_CACHE.get(self)
        if cache is None or cache.get("weights") is not self._weights:
            cache = {"weights": self._weights}  # tied to this fit's weights
            _PREDICT_CACHE[self] = cache
        value = cache.get(key)
        if value is None:
            value = make()
            cache[key] = value
        return value

    def _bool_table(self):
        k = self._weights.shape[0]
        padded_k = 8 if k <= 8 else (16 if k <= 16 else k)
        return self._cached(
            "bool_table", lambda: _kernels.build_bool_table(self._weights, padded_k)
        )

    def _feature_major_weights(self):
        return self._cached("weights_fm", self._make_feature_major_weights)

    def _make_feature_major_weights(self):
        k, d = self._weights.shape
        table = _aligned_feature_major(d, k)
        table[:, :k] = self._weights.T
        return table

    def _run_predict_kernel(self, X, mode, labels_out, out):
        # scikit-learn reads binarize at predict time too
        threshold = self._threshold()
        binarize = threshold is not None
        thr = float(threshold) if binarize else 0.0
        if self.__dict__.get("_table") is not None:
            n_suspect, values = self._run_table_predict(X, mode, labels_out, out)
        elif isinstance(X, CSRInput):
            n_samples = X.shape[0]
            per_row = self._weights.shape[0] * max(1, X.data.shape[0] // max(1, n_samples))
            n_threads = self._predict_threads(n_samples, per_row)
            n_suspect, n_malformed = _kernels.csr_predict(
                X.data, X.indices, X.indptr, self._feature_major_weights(),
                self._bias, binarize, thr, mode, labels_out, out, n_threads,
            )
            if n_malformed:
                _raise_malformed_csr(type(self).__name__, n_malformed, "rows")
            values = X.data
        elif X.dtype == np.bool_ and (not binarize or thr < 1.0) and self._use_bool_table():
            # 0/1 bytes: x > thr is x itself, and x * w is w or 0 - eight features
            # per lookup in the byte-pattern table.
            n_threads = self._predict_threads(X.shape[0], self._weights.size // 8)
            n_suspect = _kernels.bool_predict(
                X.view(np.uint8), self._bool_table(), self._bias, mode, labels_out, out,
                n_threads,
            )
            values = X
        elif binarize and self._use_bool_table():
            # threshold each row into 0/1 bytes, then the byte-pattern table
            n_threads = self._predict_threads(X.shape[0], self._weights.size // 4)
            n_suspect = _kernels.dense_threshold_predict(
                _kernel_view(X), self._bool_table(), self._bias, thr, mode, labels_out,
                out, n_threads,
            )
            values = X
        else:
            n_threads = self._predict_threads(X.shape[0], self._weights.size)
            n_suspect = _kernels.dense_predict(
                _kernel_view(X), self._weights, self._bias, binarize, thr, mode, labels_out, out,
                n_threads,
            )
            values = X
        if n_suspect and values.dtype.kind == "f" and not np.isfinite(values).all():
            if not _only_nan_among_nonfinite(values):
                raise ValueError("Input X contains infinity.")
            self._predict_with_missing(X, mode, labels_out, out)

    def _missing_log_terms(self):
        """(k, d) log-likelihood terms that a missing value leaves out, beyond the
        terms of a zero: none for the linear models (a missing count adds nothing,
        like a zero); BernoulliNB overrides it."""
        return None

    def _predict_with_missing(self, X, mode, labels_out, out):
        """NaN means missing: its feature's term is left out of the joint log
        likelihood. The rows are scored as if the missing values were zero, then
        the terms that a zero adds are taken away again (a second kernel pass, over
        the missing-value indicator)."""
        observed, missing = _split_missing(X)
        k = self.classes_.shape[0]
        jll = np.empty((X.shape[0], k))
        self._run_predict_kernel(observed, MODE_JLL, None, jll)
        terms = self._missing_log_terms()
        if terms is not None:
            correction = np.empty_like(jll)
            n_threads = self._predict_threads(X.shape[0], terms.size)
            if isinstance(missing, CSRInput):
                # Only the NaN entries of a sparse matrix: add their terms up.
                correction[:] = 0.0
                rows = np.repeat(np.arange(X.shape[0]), np.diff(missing.indptr))
                np.add.at(correction, rows, terms.T[missing.indices])
            else:
                _kernels.dense_predict(
                    _kernel_view(missing), np.ascontiguousarray(terms), np.zeros(k),
                    False, 0.0, MODE_JLL, None, correction, n_threads,
                )
            jll -= correction
        if mode == MODE_ARGMAX:
            labels_out[:] = np.argmax(jll, axis=1)
            return
        top = jll.max(axis=1, keepdims=True)
        with np.errstate(invalid="ignore"):
            log_norm = top + np.log(np.exp(jll - top).sum(axis=1, keepdims=True))
        if mode == MODE_JLL:
            out[:] = jll
        elif mode == MODE_LOG_PROBA:
            out[:] = jll - log_norm
        else:
            out[:] = np.exp(jll - log_norm)



class MultinomialNB(_BaseDiscreteNB):
    """Naive Bayes classifier for multinomial models (a drop-in for scikit-learn's).

    Suitable for classification with discrete features such as word counts;
    fractional counts such as tf-idf also work. Fitting is one pass over X in a
    compiled, OpenMP-parallel kernel; sparse CSR input is read in place and never
    densified, and prediction fuses the arg-max or the normalisation into the
    kernel so that no (n_samples, n_classes) temporary is made.

    Parameters
    ----------
    alpha : float or array-like of shape (n_features,), default=1.0
        Additive (Laplace/Lidstone) smoothing parameter (set alpha=0 and
        force_alpha=True, for no smoothing).
    force_alpha : bool, default=True
        If False and alpha is less than 1e-10, it will set alpha to 1e-10. If
        True, alpha will remain unchanged. This may cause numerical errors if
        alpha is too close to 0.
    fit_prior : bool, default=True
        Whether to learn class prior probabilities or not. If false, a uniform
        prior will be used.
    class_prior : array-like of shape (n_classes,), default=None
        Prior probabilities of the classes. If specified, the priors are not
        adjusted according to the data.
    n_threads : int, default=None
        Threads for the kernels: None or -1 means all usable cores (honouring
        ``OMP_NUM_THREADS`` and threadpoolctl limits), -2 all but one, and so on.
        Results are the same bits whatever the number of threads.

    Attributes
    ----------
    class_count_ : ndarray of shape (n_classes,)
        Number of samples encountered for each class during fitting, weighted by
        the sample weight when provided.
    class_log_prior_ : ndarray of shape (n_classes,)
        Smoothed empirical log probability for each class.
    classes_ : ndarray of shape (n_classes,)
        Class labels known to the classifier.
    feature_count_ : ndarray of shape (n_classes, n_features)
        Number of samples encountered for each (class, feature) during fitting,
        weighted by the sample weight when provided.
    feature_log_prob_ : ndarray of shape (n_classes, n_features)
        Empirical log probability of features given a class, ``P(x_i|y)``.
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Names of features seen during fit, when X has string column names.

    Notes
    -----
    Negative sample weights are rejected (scikit-learn accepts them). A
    ``partial_fit`` label that is not in ``classes`` raises (scikit-learn ignores
    the row).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.RandomState(1)
    >>> X = rng.randint(5, size=(6, 100))
    >>> y = np.array([1, 2, 3, 4, 5, 6])
    >>> from fastnb import MultinomialNB
    >>> clf = MultinomialNB()
    >>> clf.fit(X, y)
    MultinomialNB()
    >>> print(clf.predict(X[2:3]))
    [3]
    """

    _check_negative = True
    _table_model = "multinomial"
    _table_weights_in_add = True

    def __init__(self, *, alpha=1.0, force_alpha=True, fit_prior=True,
                 class_prior=None, n_threads=None):
        super().__init__(alpha=alpha, force_alpha=force_alpha, fit_prior=fit_prior,
                         class_prior=class_prior, n_threads=n_threads)

    def _refresh_table(self, table, features, alpha):
        _table_kernels.refresh_multinomial(features, table.feat_start, table.feat_len,
                                           table.ent_count, table.ent_weight, alpha)

    def _table_terms(self):
        # jll_c = log prior_c + sum_j x_j log a_j + sum_{N_cj > 0} x_j [log(N_cj + a_j)
        #         - log a_j] - s(x) log(N_c + sum_j a_j)
        table = self._table
        alpha = self._table_alpha
        total_alpha = alpha.sum() if alpha.ndim else alpha * table.n_features
        scale = -np.log(table.class_total + total_alpha)
        return (self._feat_base, self.class_log_prior_, scale,
                np.ones(table.n_classes))

    def _update_feature_log_prob(self, feature_count, class_count, alpha, missing_count):
        # scikit-learn's operations in its order, in place: one k x d allocation
        # (numpy's SIMD log; no temporaries on 20 x 2**18 tables).
        flp = np.add(feature_count, alpha)
        smoothed_cc = flp.sum(axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            np.log(flp, out=flp)
            flp -= np.log(smoothed_cc).reshape(-1, 1)
        return flp, {}

    def _predict_weights(self, feature_log_prob, class_log_prior):
        return feature_log_prob, class_log_prior


class ComplementNB(_BaseDiscreteNB):
    """The Complement Naive Bayes classifier of Rennie et al. (2003).

    A drop-in for ``sklearn.naive_bayes.ComplementNB``, suited to imbalanced text
    data; same one-pass kernels as :class:`MultinomialNB`.

    Parameters
    ----------
    alpha : float or array-like of shape (n_features,), default=1.0
        Additive (Laplace/Lidstone) smoothing parameter (set alpha=0 and
        force_alpha=True, for no smoothing).
    force_alpha : bool, default=True
        If False and alpha is less than 1e-10, it will set alpha to 1e-10. If
        True, alpha will remain unchanged.
    fit_prior : bool, default=True
        Only used in the edge case of a single class in the training set.
    class_prior : array-like of shape (n_classes,), default=None
        Prior probabilities of the classes. Not used (except with one class).
    norm : bool, default=False
        Whether or not a second normalization of the weights is performed.
    n_threads : int, default=None
        Threads for the kernels (see :class:`MultinomialNB`).

    Attributes
    ----------
    class_count_ : ndarray of shape (n_classes,)
        Weighted number of samples encountered for each class.
    class_log_prior_ : ndarray of shape (n_classes,)
        Smoothed empirical log probability for each class. Only used in the edge
        case of a single class in the training set.
    classes_ : ndarray of shape (n_classes,)
        Class labels known to the classifier.
    feature_all_ : ndarray of shape (n_features,)
        Weighted number of samples encountered for each feature.
    feature_count_ : ndarray of shape (n_classes, n_features)
        Weighted number of samples encountered for each (class, feature).
    feature_log_prob_ : ndarray of shape (n_classes, n_features)
        Empirical weights for class complements.
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Names of features seen during fit, when X has string column names.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.RandomState(1)
    >>> X = rng.randint(5, size=(6, 100))
    >>> y = np.array([1, 2, 3, 4, 5, 6])
    >>> from fastnb import ComplementNB
    >>> clf = ComplementNB()
    >>> clf.fit(X, y)
    ComplementNB()
    >>> print(clf.predict(X[2:3]))
    [3]
    """

    _check_negative = True
    _table_model = "complement"

    def __init__(self, *, alpha=1.0, force_alpha=True, fit_prior=True,
                 class_prior=None, norm=False, n_threads=None):
        super().__init__(alpha=alpha, force_alpha=force_alpha, fit_prior=fit_prior,
                         class_prior=class_prior, n_threads=n_threads)
        self.norm = norm

    def _reset_table_terms(self, table, alpha):
        # per feature: F_j (the count over all classes) and log(F_j + a_j), the log
        # complement count of every class without a count of j
        d = table.n_features
        with np.errstate(divide="ignore"):
            self._feat_base = np.log(np.broadcast_to(alpha, (d,)).astype(np.float64))
        self.feature_all_ = np.zeros(d)

    def _refresh_table(self, table, features, alpha):
        # scikit-learn applies the norm of the latest fit/partial_fit (in
        # feature_log_prob_); a later set_params(norm=...) changes nothing until then
        self._table_norm = bool(self.norm)
        _table_kernels.refresh_complement(
            features, table.feat_start, table.feat_len, table.ent_count,
            table.ent_weight, self.feature_all_, self._feat_base, alpha)

    def _table_terms(self):
        # log complement count: log(F_j + a_j) + w_cj; normaliser
        # S_c = sum_j (F_j + a_j - N_cj) = sum_c' N_c' + sum_j a_j - N_c, and
        # jll_c = -sum_j x_j log comp_cj + s(x) log S_c (norm: divided by
        # Z_c = sum_j log(comp_cj / S_c) instead of negated).
        table = self._table
        k = table.n_classes
        alpha = self._table_alpha
        total_alpha = alpha.sum() if alpha.ndim else alpha * table.n_features
        log_norm = np.log((table.class_total.sum() + total_alpha) - table.class_total)
        bias = self.class_log_prior_ if k == 1 else np.zeros(k)
        if not self._table_norm:
            return self._feat_base, bias, -log_norm, np.full(k, -1.0)
        _, classes, positions = table.entries()
        corrections = np.bincount(classes, table.ent_weight[positions], minlength=k)
        log_comp_sum = self._feat_base.sum() + corrections
        return self._feat_base, bias, -log_norm, 1.0 / (log_comp_sum
                                                        - table.n_features * log_norm)

    def _dense_from_table(self, name):
        if name != "feature_log_prob_":
            return super()._dense_from_table(name)
        table = self._table
        return self._update_feature_log_prob(table.to_dense(), self.class_count_,
                                             self._table_alpha, None,
                                             norm=self._table_norm)[0]

    def _validate_params(self):
        super()._validate_params()
        check_bool_param(self.norm, "norm", type(self).__name__)

    def _update_feature_log_prob(self, feature_count, class_count, alpha, missing_count,
                                 norm=None):
        norm = self.norm if norm is None else norm
        feature_all = feature_count.sum(axis=0)
        # scikit-learn's operations in its order, in place: one k x d allocation.
        flp = np.subtract(feature_all + alpha, feature_count)
        with np.errstate(divide="ignore", invalid="ignore"):
            flp /= flp.sum(axis=1, keepdims=True)
            np.log(flp, out=flp)
            if norm:
                flp /= flp.sum(axis=1, keepdims=True)
            else:
                np.negative(flp, out=flp)
        return flp, {"feature_all_": feature_all}

    def _predict_weights(self, feature_log_prob, class_log_prior):
        if feature_log_prob.shape[0] == 1:
            return feature_log_prob, class_log_prior
        return feature_log_prob, np.zeros(feature_log_prob.shape[0])


class BernoulliNB(_BaseDiscreteNB):
    """Naive Bayes classifier for multivariate Bernoulli models.

    A drop-in for ``sklearn.naive_bayes.BernoulliNB``. The ``binarize``
    threshold is applied inside the kernels as X is read: no binarized copy of X
    is made, and bool/uint8/integer arrays are read as they are (a bool matrix is
    8x less memory traffic than float64). The absent-feature term
    ``sum_j log(1 - p_cj)`` is folded into a per-class constant once per fit.

    Parameters
    ----------
    alpha : float or array-like of shape (n_features,), default=1.0
        Additive (Laplace/Lidstone) smoothing parameter (set alpha=0 and
        force_alpha=True, for no smoothing).
    force_alpha : bool, default=True
        If False and alpha is less than 1e-10, it will set alpha to 1e-10. If
        True, alpha will remain unchanged.
    binarize : float or None, default=0.0
        Threshold for binarizing (mapping to booleans) of sample features. If
        None, input is presumed to already consist of binary vectors.
    fit_prior : bool, default=True
        Whether to learn class prior probabilities or not. If false, a uniform
        prior will be used.
    class_prior : array-like of shape (n_classes,), default=None
        Prior probabilities of the classes. If specified, the priors are not
        adjusted according to the data.
    n_threads : int, default=None
        Threads for the kernels (see :class:`MultinomialNB`).

    Attributes
    ----------
    class_count_ : ndarray of shape (n_classes,)
        Weighted number of samples encountered for each class.
    class_log_prior_ : ndarray of shape (n_classes,)
        Log probability of each class (smoothed).
    classes_ : ndarray of shape (n_classes,)
        Class labels known to the classifier.
    feature_count_ : ndarray of shape (n_classes, n_features)
        Weighted number of samples encountered for each (class, feature).
    feature_log_prob_ : ndarray of shape (n_classes, n_features)
        Empirical log probability of features given a class, P(x_i|y).
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Names of features seen during fit, when X has string column names.

    Notes
    -----
    With an array ``alpha``, the denominator of ``feature_log_prob_`` is
    ``class_count_[c] + 2 * alpha[j]`` for each feature (scikit-learn 1.9 fails
    to broadcast this case).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.RandomState(1)
    >>> X = rng.randint(5, size=(6, 100))
    >>> Y = np.array([1, 2, 3, 4, 4, 5])
    >>> from fastnb import BernoulliNB
    >>> clf = BernoulliNB()
    >>> clf.fit(X, Y)
    BernoulliNB()
    >>> print(clf.predict(X[2:3]))
    [3]
    """

    # With binarize=None the counts are sums of the raw values, which may be negative.
    _STATE_SPEC = {
        "class_count_": (("k",), ("finite", "nonneg")),
        "feature_count_": (("k", "d"), ("finite",)),
        "missing_count": (("k", "d"), ("finite", "nonneg")),
    }

    def __init__(self, *, alpha=1.0, force_alpha=True, binarize=0.0, fit_prior=True,
                 class_prior=None, n_threads=None):
        super().__init__(alpha=alpha, force_alpha=force_alpha, fit_prior=fit_prior,
                         class_prior=class_prior, n_threads=n_threads)
        self.binarize = binarize

    def _validate_params(self):
        super()._validate_params()
        if self.binarize is not None and not _nonnegative_threshold(self.binarize):
            kind = TypeError if not isinstance(self.binarize, Real) else ValueError
            raise param_error(type(self).__name__, "binarize",
                              "None or a float in the range [0.0, inf)", self.binarize, kind)

    def _threshold(self):
        return self.binarize

    def _update_feature_log_prob(self, feature_count, class_count, alpha, missing_count):
        smoothed_fc = feature_count + alpha
        if np.ndim(alpha) == 0:
            smoothed_cc = (class_count + alpha * 2).reshape(-1, 1)
        else:
            smoothed_cc = class_count.reshape(-1, 1) + alpha * 2
        if np.any(missing_count):
            # Each feature's probability is estimated from the rows that observed it.
            observed = class_count.reshape(-1, 1) - missing_count
            smoothed_cc = observed + alpha * 2
        with np.errstate(divide="ignore", invalid="ignore"):
            flp = np.log(smoothed_fc) - np.log(smoothed_cc)
        return flp, {}

    def _missing_log_terms(self):
        # A zero adds log(1 - p) through the bias; a missing value adds nothing.
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.log(1 - np.exp(self.feature_log_prob_))

    def _predict_weights(self, feature_log_prob, class_log_prior):
        # jll = X @ (log p - log(1 - p)).T + log prior + sum_j log(1 - p), with
        # scikit-learn's formula for log(1 - p) so that the outputs agree.
        with np.errstate(divide="ignore", invalid="ignore"):
            neg_prob = np.log(1 - np.exp(feature_log_prob))
            return feature_log_prob - neg_prob, class_log_prior + neg_prob.sum(axis=1)
