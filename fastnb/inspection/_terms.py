"""Each model's joint log likelihood as a base plus one term a feature.

An ``_Terms`` object holds a fitted model and a batch X checked by the model's own
predict validation (so X is read exactly as predict reads it), and gives

- ``base``: the (k,) constant of every row (see each class's docstring);
- ``dense()``: every term, (n, k, d);
- ``csr()``: the terms at X's stored entries, (k, nnz), for CSR input;
- ``top(first, second, n_top)``: per row, the n_top largest |term(first) -
  term(second)|, by a compiled kernel that never holds all terms (dense input: a
  block of rows at a time).

The terms come from the same arrays the predict kernels read, so
``base + sum(terms) == predict_joint_log_proba(X)`` up to the order of the sums.
"""

import numpy as np

from .._capabilities import capabilities_of
from .._discrete._shared import TABLE_DENSE_PREDICT_NNZ_RATIO, _dense_to_csr
from .._discrete._table_predict import SLOT_MAX_CLASSES
from .._dispatch import load_kernels
from .._threads import threads_for
from .._base import MODE_JLL
from .._validation import CSRInput

_kernels = load_kernels("_inspection_kernels")
_parametric_kernels = load_kernels("_parametric_kernels")

# rows of dense input whose (rows, k, d) terms top() holds at once
_TOP_BLOCK_CELLS = 1 << 22
# rows whose (rows, k) joint log likelihoods scored_top holds at once
_SCORE_BLOCK_CELLS = 1 << 18


def _row_block(X, start, stop):
    """Rows start:stop of a checked batch (dense, or CSR with its own indptr)."""
    if start == 0 and stop == X.shape[0]:
        return X
    if isinstance(X, CSRInput):
        lo, hi = X.indptr[start], X.indptr[stop]
        indptr = np.ascontiguousarray(X.indptr[start:stop + 1] - lo)
        return CSRInput(X.data[lo:hi], X.indices[lo:hi], indptr,
                        (stop - start, X.shape[1]), X.source)
    return X[start:stop]


def terms_of(model, X, deferred=False):
    """The ``_Terms`` of a fitted fastnb model and a batch X (validated here;
    ``deferred``: see ``DiscreteTerms``)."""
    terms = terms_class(model)
    if deferred and terms is DiscreteTerms:
        return terms(model, X, deferred=True)
    return terms(model, X)


def terms_class(model):
    """The ``_Terms`` class of a fastnb model's kind of terms
    (``Capabilities.terms``); a TypeError naming the model otherwise."""
    kind = capabilities_of(model, what="fastnb.inspection").terms
    terms = _TERMS.get(kind)
    if terms is None:
        raise TypeError(
            f"fastnb.inspection cannot explain {type(model).__name__}: it has no "
            f"terms of the {kind!r} kind (it explains {', '.join(sorted(_TERMS))}).")
    return terms


class _Terms:
    def __init__(self, model, X, checked=None):
        self.model = model
        self.X = model._check_predict_X(X) if checked is None else checked
        self.n_samples = self.X.shape[0]
        self.n_features = model.n_features_in_
        self.k = model.classes_.shape[0]
        self.n_threads = threads_for(model.n_threads, max(1, self.n_samples)
                                     * self.k * self.n_features, "predict")

    def dense(self):
        raise NotImplementedError

    def csr(self):
        raise TypeError(f"{type(self.model).__name__} takes dense input only.")

    def scored_top(self, pair, n_top):
        """(first, second, log_odds, features, values): each row's pair of
        classes (its best and runner-up, or ``pair``'s indices), the log-odds
        of the pair from ``predict_joint_log_proba``, and the top-n terms.

        A block of rows at a time: its joint log likelihoods (so the extra
        memory is O(n_samples * n_top), not O(n_samples * n_classes)), then its
        top-n, while what the block's predict read is still in cache."""
        n = self.n_samples
        first = np.empty(n, dtype=np.intp)
        second = np.empty(n, dtype=np.intp)
        log_odds = np.empty(n)
        features = np.empty((n, n_top), dtype=np.int64)
        values = np.empty((n, n_top))
        rows = max(1, _SCORE_BLOCK_CELLS // max(1, self.k))
        blocks = [(0, n)] if not isinstance(self.X, (np.ndarray, CSRInput)) else \
            [(start, min(n, start + rows)) for start in range(0, n, rows)]
        jll = np.empty((min(n, rows) if len(blocks) > 1 else n, self.k))
        for start, stop in blocks:
            block = jll[:stop - start]
            part = self if len(blocks) == 1 else type(self)(
                self.model, None, _row_block(self.X, start, stop))
            self.model._run_predict_kernel(part.X, MODE_JLL, None, block)
            if pair is None:
                _kernels.top_two(block, first[start:stop], second[start:stop],
                                 self.n_threads)
            else:
                first[start:stop] = pair[0]
                second[start:stop] = pair[1]
            at = np.arange(stop - start)
            with np.errstate(invalid="ignore"):
                log_odds[start:stop] = (block[at, first[start:stop]]
                                        - block[at, second[start:stop]])
            features[start:stop], values[start:stop] = part.top(
                first[start:stop], second[start:stop], n_top)
        return first, second, log_odds, features, values

    def top(self, first, second, n_top):
        """Dense input: the terms of a block of rows at a time, their pair
        differences, and the compiled top-n of each row."""
        n, d = self.n_samples, self.n_features
        features = np.empty((n, n_top), dtype=np.int64)
        values = np.empty((n, n_top))
        rows = max(1, _TOP_BLOCK_CELLS // max(1, self.k * d))
        for start in range(0, n, rows):
            stop = min(n, start + rows)
            block = self.block(start, stop).dense()
            index = np.arange(stop - start)
            with np.errstate(invalid="ignore"):
                diff = np.ascontiguousarray(block[index, first[start:stop]]
                                            - block[index, second[start:stop]])
            _kernels.top_of_rows(diff, features[start:stop], values[start:stop],
                                 self.n_threads)
        return features, values

    def block(self, start, stop):
        """The same terms for rows start:stop."""
        return type(self)(self.model, None, self.X[start:stop])


def _float_view(X):
    """A dense batch as the kernels read it: float32 or float64 (bool and integer
    counts as float64)."""
    if X.dtype in (np.float32, np.float64):
        return X
    return np.asarray(X, dtype=np.float64)


def _all_finite(values):
    """Whether a float array holds no NaN and no infinity, without a temporary
    of its size: its sum is finite (a sum that overflows is checked exactly)."""
    if values.dtype.kind != "f":
        return True
    with np.errstate(over="ignore", invalid="ignore"):
        if np.isfinite(np.add.reduce(values, axis=None)):
            return True
    return bool(np.isfinite(values).all())


def _check_csr_bounds(X, name, indices=True):
    """The CSR arrays the inspection kernels index with: row pointers from 0 to
    nnz, non-decreasing, and column indices in [0, n_features) (predict's kernels
    check each entry as they read it; these read weights and slots by them).
    ``indices=False``: the row pointers only (O(n_samples))."""
    indptr = X.indptr
    nnz = X.indices.shape[0]
    if (indptr[0] != 0 or indptr[-1] != nnz or np.any(np.diff(indptr) < 0)
            or (indices and nnz and (X.indices.min() < 0
                                     or X.indices.max() >= X.shape[1]))):
        raise ValueError(f"{name}: X is a malformed CSR matrix (row pointers or "
                         f"column indices out of range).")


def _raise_if_infinite(X, name):
    """Refuse an infinite value; returns whether X's values are all finite (no
    NaN either)."""
    values = X.data if isinstance(X, CSRInput) else X
    finite = _all_finite(values)
    if not finite and np.isinf(values).any():
        raise ValueError(f"Input X contains infinity or a value too large for "
                         f"{values.dtype!r} ({name}).")
    return finite


class GaussianTerms(_Terms):
    """GaussianNB: base = log prior; the term of feature j is the log density of
    x_j, -(log(2 pi var_cj) / 2 + (x_j - theta_cj)^2 / (2 var_cj)); a missing
    value (NaN) adds nothing (its density is marginalised)."""

    def __init__(self, model, X, checked=None):
        super().__init__(model, X, checked)
        _raise_if_infinite(self.X, "GaussianNB")
        self.terms = model._jll_terms()
        self.base = self.terms.log_prior

    def dense(self):
        t = self.terms
        out = np.empty((self.n_samples, self.k, self.n_features))
        _kernels.gaussian_dense_values(self.X, t.theta, t.half_inv_var,
                                       t.half_log_2pi_var, out, self.n_threads)
        return out


class KernelDensityTerms(_Terms):
    """KernelDensityNB: base = log prior; the term of feature j is the log
    density of x_j, interpolated on the class's grid (or its Gaussian tail
    past the grid); a missing value (NaN) adds nothing."""

    def __init__(self, model, X, checked=None):
        super().__init__(model, X, checked)
        _raise_if_infinite(self.X, "KernelDensityNB")
        self.base = model._log_prior

    def dense(self):
        out = np.empty((self.n_samples, self.k, self.n_features))
        self.model._dense_terms(self.X, out, self.n_threads)
        return out


class ParametricTerms(_Terms):
    """PoissonNB, ExponentialNB, GammaNB, LogNormalNB: base = log prior; the
    term of feature j is the log density (Poisson: mass) of x_j, scipy's
    ``logpdf``/``logpmf`` (Poisson's with ``-log(x!)``, log-normal's with
    ``-log x``); a missing value (NaN), or one outside the support predict
    takes (negative; zero too for the gamma and log-normal), adds nothing."""

    def __init__(self, model, X, checked=None):
        super().__init__(model, X, checked)
        _raise_if_infinite(self.X, type(model).__name__)
        self.terms = model._jll_terms()
        self.base = self.terms.log_prior

    def dense(self):
        t = self.terms
        X = np.asarray(self.X, dtype=np.float64)
        with np.errstate(invalid="ignore"):
            observed = (X > 0) if t.positive else (X >= 0)
        x = np.where(observed, X, 0.0)
        # (the logs and lgamma the predict kernel computes, value for value)
        log_x = _parametric_kernels.log_values(
            np.where(observed, X, 1.0).ravel()).reshape(X.shape)
        if t.of_log:
            diff = log_x[:, None, :] - t.a
            out = -(diff * diff * t.b + t.const)
        else:
            out = x[:, None, :] * t.a + t.const
            if np.any(t.b != 0):
                out += log_x[:, None, :] * t.b
        if t.free_term == "log":
            out -= log_x[:, None, :]
        elif t.free_term == "log_factorial":
            out -= _parametric_kernels.log_gamma_values(
                (x + 1.0).ravel()).reshape(X.shape)[:, None, :]
        out[np.broadcast_to(~observed[:, None, :], out.shape)] = 0.0
        return out


class DiscreteTerms(_Terms):
    """BernoulliNB, MultinomialNB, ComplementNB: the term of feature j is x_j
    times its weight (x_j thresholded by BernoulliNB's ``binarize``), so a zero adds
    nothing. base = the model's bias: the log prior (MultinomialNB; ComplementNB's
    bias), and for BernoulliNB also sum_j log(1 - p_cj), what every feature adds
    when absent; a present feature then adds log p_cj - log(1 - p_cj). A missing
    value (NaN) adds nothing to the likelihood: for BernoulliNB its term takes
    back the absent term its base holds, -log(1 - p_cj).

    ``deferred`` (top_contributions): for CSR input of a table model, the passes
    over X's values (finite?) and column indices (in range?) wait for
    ``scored_top``: the slots kernel reports the rows where it met either, and
    the checks run then (``_run_checks``); ~8 ms of T1's top-10 otherwise."""

    def __init__(self, model, X, checked=None, deferred=False):
        super().__init__(model, X, checked)
        name = type(model).__name__
        self.table = model.__dict__.get("_table")
        deferred = (deferred and checked is None and self.table is not None
                    and isinstance(self.X, CSRInput))
        if deferred:
            self.finite = None   # (not known yet)
            _check_csr_bounds(self.X, name, indices=False)
        else:
            self.finite = _raise_if_infinite(self.X, name)
        threshold = model._threshold()
        self.binarize = threshold is not None
        self.threshold = float(threshold) if self.binarize else 0.0
        if self.table is not None:
            cache = model._table_predict_state()
            self.table_terms = cache["table_terms"]           # base, bias, scale, mult
            self.entry_weights = cache["table_entry_weights"]
            self.base = self.table_terms[1]
        else:
            self.base = model._bias
        if not isinstance(self.X, CSRInput):
            self.X = _float_view(self.X)
        elif checked is None and not deferred:
            _check_csr_bounds(self.X, name)

    def _run_checks(self):
        """The checks ``deferred`` left for now: infinity refused, NaN noted,
        the column indices in range."""
        if self.finite is None:
            name = type(self.model).__name__
            self.finite = _raise_if_infinite(self.X, name)
            _check_csr_bounds(self.X, name)

    def _csr_input(self):
        return self.X if isinstance(self.X, CSRInput) else _dense_to_csr(self.X)

    def _table_arrays(self):
        t = self.table
        feat_base, _, scale, mult = self.table_terms
        return (t.feat_start, t.feat_len, t.ent_class, self.entry_weights,
                np.ascontiguousarray(feat_base, dtype=np.float64),
                np.ascontiguousarray(scale, dtype=np.float64),
                np.ascontiguousarray(mult, dtype=np.float64))

    def _missing_fix(self, rows, cols, out_at):
        """BernoulliNB: a NaN's term is -log(1 - p_cj) (see the class notes)."""
        if rows.shape[0] == 0:
            return
        # (the terms of the NaN's features only: on the table, from their blocks)
        terms = self.model._missing_log_terms_at(cols)
        if terms is not None:
            out_at(-terms.T)

    def dense(self):
        n, k, d = self.n_samples, self.k, self.n_features
        if self.table is None and not isinstance(self.X, CSRInput):
            out = np.empty((n, k, d))
            _kernels.linear_dense_values(self.X, self.model._weights, self.binarize,
                                         self.threshold, out, self.n_threads)
            rows, cols = (np.nonzero(np.isnan(self.X)) if not _all_finite(self.X)
                          else (np.zeros(0, np.intp),) * 2)

            def put(values):
                out[rows, :, cols] = values.T
            self._missing_fix(rows, cols, put)
            return out
        X = self._csr_input()
        values = self._csr_values(X)
        out = np.zeros((n, k, d))
        rows = np.repeat(np.arange(n), np.diff(X.indptr))
        out[rows, :, X.indices] = values.T
        return out

    def csr(self):
        if not isinstance(self.X, CSRInput):
            return super().csr()
        return self._csr_values(self.X)

    def _csr_values(self, X):
        out = np.empty((self.k, X.data.shape[0]))
        if self.table is not None:
            _kernels.table_csr_values(X.data, X.indices, X.indptr, *self._table_arrays(),
                                      self.binarize, self.threshold, out, self.n_threads)
        else:
            _kernels.linear_csr_values(X.data, X.indices, X.indptr,
                                       self.model._feature_major_weights(), self.binarize,
                                       self.threshold, out, self.n_threads)
        if X.data.dtype.kind == "f":
            at = (np.zeros(0, dtype=np.intp) if _all_finite(X.data)
                  else np.flatnonzero(np.isnan(X.data)))
            if at.shape[0]:
                cols = X.indices[at]

                def put(values):
                    out[:, at] = values
                self._missing_fix(at, cols, put)
        return out

    def top(self, first, second, n_top):
        if self.table is None and not isinstance(self.X, CSRInput):
            return super().top(first, second, n_top)   # a block of rows at a time
        X = self._csr_input()
        features = np.empty((self.n_samples, n_top), dtype=np.int64)
        values = np.empty((self.n_samples, n_top))
        if (self._has_missing(X)
                and self.model._missing_log_terms_at(np.zeros(0, np.intp)) is not None):
            # BernoulliNB's NaN terms are not zero: the pair's difference at every
            # stored entry (csr()'s terms), then the top-n of each row
            terms = self._csr_values(X)
            rows = np.repeat(np.arange(self.n_samples), np.diff(X.indptr))
            at = np.arange(rows.shape[0])
            with np.errstate(invalid="ignore"):
                diff = terms[first[rows], at] - terms[second[rows], at]
            _kernels.top_of_csr_rows(diff, X.indices, X.indptr, features, values,
                                     self.n_threads)
        elif self.table is not None:
            _kernels.top_table_csr(X.data, X.indices, X.indptr, *self._table_arrays(),
                                   self.binarize, self.threshold, first, second,
                                   features, values, self.n_threads)
        else:
            _kernels.top_linear_csr(X.data, X.indices, X.indptr,
                                    self.model._feature_major_weights(), self.binarize,
                                    self.threshold, first, second, features, values,
                                    self.n_threads)
        return features, values

    def scored_top(self, pair, n_top):
        """A large finite CSR batch of a table model: one compiled pass over the
        feature slots scores each row (predict's own row kernel: the bits of
        ``predict_joint_log_proba``), finds its pair and its top-n terms while
        the row's slots are in cache. Else the general path, a block at a time."""
        X = self.X
        slots = (self._slots(X) if self.table is not None and isinstance(X, CSRInput)
                 else None)
        if slots is None or (self.finite is not None and self._has_missing(X)):
            self._run_checks()
            return super().scored_top(pair, n_top)
        n, k = self.n_samples, self.k
        model = self.model
        n_threads = model._predict_threads(n, k * max(1, X.data.shape[0] // max(1, n)))
        first = np.empty(n, dtype=np.intp)
        second = np.empty(n, dtype=np.intp)
        log_odds = np.empty(n)
        features = np.empty((n, n_top), dtype=np.int64)
        values = np.empty((n, n_top))
        # a thread's row of class scores, chunk of terms, its candidates and
        # their best, in cache lines of its own (the kernel gives the widths)
        n_blocks = max(1, min(n_threads, n))
        doubles, ints = _kernels.top_slots_scratch_widths(k)
        scratch = np.empty((n_blocks, doubles))
        chunk_features = np.empty((n_blocks, ints), dtype=np.int64)
        _, bias, scale, mult = self.table_terms
        n_malformed, n_suspect = _kernels.top_slots_scored(
            X.data, X.indices, X.indptr, *slots,
            np.ascontiguousarray(bias, dtype=np.float64),
            np.ascontiguousarray(scale, dtype=np.float64),
            np.ascontiguousarray(mult, dtype=np.float64), self.binarize, self.threshold,
            -1 if pair is None else pair[0], -1 if pair is None else pair[1],
            first, second, log_odds, features, values, scratch, chunk_features)
        if n_malformed or n_suspect:
            # (the kernel read none of a malformed row's entries)
            self._run_checks()   # raises on infinity and malformed rows
            if n_malformed:
                raise ValueError(f"{type(model).__name__}: X is a malformed CSR "
                                 f"matrix ({n_malformed} rows).")
            if self._has_missing(X):
                return super().scored_top(pair, n_top)
        return first, second, log_odds, features, values

    def _slots(self, X):
        """The table's feature slots and dense rows, for a batch large enough
        that predict reads them too (the model's predict cache keeps them), or
        None."""
        table = self.table
        if not (X.data.shape[0] * TABLE_DENSE_PREDICT_NNZ_RATIO >= table.n_features
                and table.n_classes <= SLOT_MAX_CLASSES):
            return None
        return self.model._slot_predictor(self.model._table_predict_state()).slot_arrays()

    def _has_missing(self, X):
        """Whether X (self.X, or it as CSR) holds a NaN."""
        values = X.data if isinstance(X, CSRInput) else X
        return not self.finite and bool(np.isnan(values).any())

    def block(self, start, stop):
        if isinstance(self.X, CSRInput):
            return super().block(start, stop)
        return type(self)(self.model, None, self.X[start:stop])


class CategoricalTerms(_Terms):
    """CategoricalNB: base = log prior; the term of feature j is
    log P(x_j | c) of the value's category (of an unseen category, the smoothed
    probability the model gives it); a missing value adds nothing."""

    def __init__(self, model, X, checked=None):
        super().__init__(model, X, checked)
        self.base = model._predict_tables.class_log_prior

    def dense(self):
        t = self.model._predict_tables
        out = np.empty((self.n_samples, self.k, self.n_features))
        values = np.ascontiguousarray(self.X.values)
        _kernels.categorical_dense_values(
            values, self.X.lookup, t.n_categories, t.log_prob, t.block_start,
            t.row_width, t.hash_keys, t.hash_tags, t.hash_rows, t.hash_start,
            t.hash_mask, out, self.n_threads)
        return out

    def block(self, start, stop):
        X = self.X
        return type(self)(self.model, None, type(X)(X.values[start:stop], X.lookup))


class ColumnwiseTerms(_Terms):
    """ColumnwiseNB: base = the model's log prior plus each sub-model's base less
    the log prior that sub-model includes; the term of a column is its
    sub-model's term."""

    def __init__(self, model, X, checked=None):
        super().__init__(model, X, checked)
        self.parts = []
        base = model._bias.copy()
        table = self.X
        for (name, sub, _), positions in zip(model.estimators_, model._positions):
            categorical = capabilities_of(sub).reads == "categories"
            block = table.block(positions, 0, table.n_samples, categorical, {})
            terms = terms_of_checked(sub, sub._check_predict_X(block))
            base = base + terms.base
            self.parts.append((name, np.asarray(positions, dtype=np.intp), terms))
        self.base = base

    def dense(self):
        out = np.empty((self.n_samples, self.k, self.n_features))
        for _, positions, terms in self.parts:
            out[:, :, positions] = terms.dense()
        return out

    def by_estimator(self):
        return {name: (terms.base, positions, terms.dense())
                for name, positions, terms in self.parts}

    def block(self, start, stop):
        return _ColumnwiseBlock(self, start, stop)


class _ColumnwiseBlock:
    def __init__(self, whole, start, stop):
        self.whole, self.start, self.stop = whole, start, stop

    def dense(self):
        whole = self.whole
        out = np.empty((self.stop - self.start, whole.k, whole.n_features))
        for _, positions, terms in whole.parts:
            out[:, :, positions] = terms.block(self.start, self.stop).dense()
        return out


def terms_of_checked(model, checked):
    return terms_class(model)(model, None, checked)


# The ``_Terms`` class of each kind of joint-log-likelihood terms
# (Capabilities.terms): a model whose kind is not here is refused by name.
_TERMS = {
    "gaussian": GaussianTerms,
    "bernoulli": DiscreteTerms,
    "multinomial": DiscreteTerms,
    "complement": DiscreteTerms,
    "categorical": CategoricalTerms,
    "poisson": ParametricTerms,
    "exponential": ParametricTerms,
    "gamma": ParametricTerms,
    "lognormal": ParametricTerms,
    "composite": ColumnwiseTerms,
    "kde": KernelDensityTerms,
}
