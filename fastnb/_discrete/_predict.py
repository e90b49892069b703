"""Prediction of the discrete models: input checks, the choice of kernel (dense,
CSR, byte-pattern table, sparse count table) and missing values."""

import numpy as np

from .._base import MODE_ARGMAX, MODE_JLL, MODE_LOG_PROBA
from .._validation import CSRInput, check_counts_X, feature_names_of, ready_csr
from ._shared import (
    _BOOL_TABLE_MAX_BYTES,
    _BOOL_TABLE_MAX_CLASSES,
    _BOOL_TABLE_OK,
    _PREDICT_CACHE,
    _aligned_feature_major,
    _build_bool_table,
    _kernel_view,
    _predict_kernels,
    _only_nan_among_nonfinite,
    _raise_malformed_csr,
    _split_missing,
)


class _PredictMixin:
    """Predict dispatch and the predict cache of the discrete models (mixed into
    ``_BaseDiscreteNB``; not public)."""

    def _check_predict_X(self, X):
        self._check_fitted()
        csr = ready_csr(X, canonical=self._threshold() is not None)
        if csr is not None:
            # (a sparse matrix has no column names: only the warning is checked)
            if hasattr(self, "feature_names_in_"):
                self._check_feature_names(X, reset=False)
            if csr.shape[1] != self.n_features_in_:
                self._check_n_features(X, reset=False)
            return csr
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
            "bool_table", lambda: _build_bool_table(self._weights, padded_k)
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
            n_suspect, values = self._run_table_predict(X, mode, labels_out, out,
                                                        binarize, thr)
        elif isinstance(X, CSRInput):
            n_samples = X.shape[0]
            per_row = self._weights.shape[0] * max(1, X.data.shape[0] // max(1, n_samples))
            n_threads = self._predict_threads(n_samples, per_row)
            n_suspect, n_malformed = _predict_kernels.csr_predict(
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
            n_suspect = _predict_kernels.bool_predict(
                X.view(np.uint8), self._bool_table(), self._bias, mode, labels_out, out,
                n_threads,
            )
            values = X
        elif binarize and self._use_bool_table():
            # threshold each row into 0/1 bytes, then the byte-pattern table
            n_threads = self._predict_threads(X.shape[0], self._weights.size // 4)
            n_suspect = _predict_kernels.dense_threshold_predict(
                _kernel_view(X), self._bool_table(), self._bias, thr, mode, labels_out,
                out, n_threads,
            )
            values = X
        else:
            n_threads = self._predict_threads(X.shape[0], self._weights.size)
            n_suspect = _predict_kernels.dense_predict(
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

    def _missing_log_terms_at(self, features):
        """(len(features), k): the ``_missing_log_terms`` of these features
        (indices the predict kernel checked), or None. For a sparse batch, whose
        cost must not grow with the model's width."""
        terms = self._missing_log_terms()
        return None if terms is None else terms.T[features]

    def _predict_with_missing(self, X, mode, labels_out, out):
        """NaN means missing: its feature's term is left out of the joint log
        likelihood. The rows are scored as if the missing values were zero, then
        the terms that a zero adds are taken away again (a second kernel pass, over
        the missing-value indicator)."""
        observed, missing = _split_missing(X)
        k = self.classes_.shape[0]
        jll = np.empty((X.shape[0], k))
        self._run_predict_kernel(observed, MODE_JLL, None, jll)
        if isinstance(missing, CSRInput):
            # Only the NaN entries of a sparse matrix: add their terms up (the
            # kernel checked their indices, which ``observed`` keeps).
            terms = self._missing_log_terms_at(missing.indices)
            if terms is not None:
                correction = np.zeros_like(jll)
                rows = np.repeat(np.arange(X.shape[0]), np.diff(missing.indptr))
                np.add.at(correction, rows, terms)
                jll -= correction
        else:
            terms = self._missing_log_terms()
            if terms is not None:
                correction = np.empty_like(jll)
                n_threads = self._predict_threads(X.shape[0], terms.size)
                _predict_kernels.dense_predict(
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
