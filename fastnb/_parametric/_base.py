"""The machinery the parametric models (PoissonNB, ExponentialNB, GammaNB,
LogNormalNB) share: one compiled kernel fits per-class, per-feature sufficient
statistics in one pass, and one fused kernel predicts.

A model keeps, per class and feature, the weight of the values seen
(``feature_count``: NaN is missing and adds nothing) and weighted means of x
and log x, or (log-normal) the exact moments of log x. Means merge by Chan's
formula and decay under ``half_life`` only through their counts, so ``fit``,
any split into ``partial_fit`` batches and ``fastnb.merge`` agree to rounding.
A subclass names its family and statistics, and turns them into parameters and
the predictor's coefficients in ``_derive``.
"""

import numpy as np

from .. import _invariants as rules
from .._base import _BaseNB
from .._dispatch import load_kernels
from .._forgetting import check_half_life_param, decay_factor
from .._jll_terms import ParametricTerms
from .._params import (
    check_bool_param,
    check_n_threads,
    check_non_negative_float_param,
    check_prior_param,
    resolve_priors,
)
from .._persist import union_classes
from .._threads import threads_for
from .._validation import check_dense_X

__all__ = ["_ParametricNB", "kernels"]

kernels = load_kernels("_parametric_kernels")
_STATUS = kernels.STATUS_BITS

# Fit chunks, as GaussianNB's: the chunking depends on the data's shape only,
# which makes the fit independent of the thread count.
_FIT_MIN_ROWS_PER_CHUNK = 4096
_FIT_MAX_CHUNKS = 64
_FIT_SCRATCH_BYTES = 32 << 20

# The largest mean (of x, or of log x) a saved model may hold: past it the
# predictor's terms (a rate times the number of features, a squared deviation)
# overflow float64.
MEAN_LIMIT = 1e150


def _fit_chunk_count(n_samples, n_classes, n_features):
    by_rows = n_samples // _FIT_MIN_ROWS_PER_CHUNK
    by_memory = _FIT_SCRATCH_BYTES // (8 * n_classes * (4 * n_features + 1))
    return int(max(1, min(_FIT_MAX_CHUNKS, by_rows, by_memory)))


def merge_means(count_a, means_a, count_b, means_b, ssd=None):
    """Chan's merge of weighted means per (class, feature), on new arrays:
    ``means_*`` lists of arrays of one shape with ``count_*``; ``ssd``, when
    given, the pair (ssd_a, ssd_b) of centred sums of squares of ``means_*[0]``.
    Returns (count, means, ssd)."""
    total = count_a + count_b
    with np.errstate(invalid="ignore", divide="ignore"):
        share_b = np.where(total > 0, count_b / np.where(total > 0, total, 1), 0.0)
    merged, delta0 = [], None
    for mean_a, mean_b in zip(means_a, means_b):
        delta = mean_b - mean_a
        delta0 = delta if delta0 is None else delta0
        merged.append(np.where(count_a == 0, mean_b,
                               np.where(count_b == 0, mean_a, mean_a + delta * share_b)))
    merged_ssd = None
    if ssd is not None:
        ssd_a, ssd_b = ssd
        merged_ssd = np.where(count_a == 0, ssd_b, np.where(
            count_b == 0, ssd_a, ssd_a + ssd_b + delta0 * delta0 * (count_a * share_b)))
    return total, merged, merged_ssd


# The docstring sections the four models share. A line of a model's docstring
# that is one of these keys (indented as the section) is replaced by its text,
# indented alike, when the class is made (_ParametricNB.__init_subclass__).
SHARED_DOCS = {
    "{priors}": """\
priors : array-like of shape (n_classes,), default=None
    Prior probabilities of the classes. If given, they are not adjusted
    according to the data.""",
    "{n_threads, grow_classes, half_life}": """\
n_threads : int, default=None
    Threads for the kernels: None or -1 means all usable cores, -2 all but
    one, and so on. Results are the same bits whatever the number of threads.
grow_classes : bool, default=False
    Whether ``partial_fit`` may meet classes it was not told of (see
    :class:`~fastnb.GaussianNB`).
half_life : float, default=None
    Exponential forgetting, in rows (see :class:`~fastnb.GaussianNB`): the
    statistics are exact under the decayed weights. None (or ``inf``)
    forgets nothing.""",
    "{class attributes}": """\
class_count_ : ndarray of shape (n_classes,)
    Weighted number of training samples observed in each class.
class_prior_ : ndarray of shape (n_classes,)
    Probability of each class.
classes_ : ndarray of shape (n_classes,)
    Class labels known to the classifier.""",
    "{Notes on positive values}": """\
Notes
-----
Fit refuses (``ValueError``) zero, negative values and infinity; NaN is a
missing value, left out of its feature's statistics and of a row's score.
At predict time a value that is not positive counts as missing too: every
answer is finite.""",
    "{feature attributes}": """\
n_features_in_ : int
    Number of features seen during fit.
feature_names_in_ : ndarray of shape (n_features_in_,)
    Names of features seen during fit, when X has string column names.""",
}


def with_shared_docs(doc):
    """``doc`` with each line that is a key of SHARED_DOCS replaced by its
    text, at the line's indentation."""
    lines = []
    for line in doc.split("\n"):
        shared = SHARED_DOCS.get(line.strip())
        if shared is None:
            lines.append(line)
            continue
        indent = line[:len(line) - len(line.lstrip())]
        lines.extend(indent + part for part in shared.split("\n"))
    return "\n".join(lines)


# The parameters of the parametric models read only when their statistics are
# turned into parameters (each adds its smoothing).
PARAMETRIC_FINALISING = frozenset({"priors", "n_threads", "grow_classes"})


class _ParametricNB(_BaseNB):
    """Base class of the parametric models (not public)."""

    # the kernel's family number
    _FAMILY = None
    # the statistics besides class_count_ and feature_count, in kernel order
    # (the kernel's ``first`` and ``second``)
    _MEANS = ()
    # whether the second statistic is the centred sum of squares of the first
    _HAS_SSD = False
    # the centred sum of squares of the first mean, when _HAS_SSD
    _SSD = None
    # the name of the smoothing parameter
    _SMOOTHING = "var_smoothing"
    # log_norm = log prior + _CONST_SIGN * the sum of the const coefficients
    _CONST_SIGN = 1.0
    # what the support is, for messages
    _SUPPORT = ""

    _SAVE_CHECKS_DERIVED_STATE = True

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if cls.__doc__:
            cls.__doc__ = with_shared_docs(cls.__doc__)

    def __init__(self, *, priors=None, var_smoothing=1e-9, n_threads=None,
                 grow_classes=False, half_life=None):
        self.var_smoothing = var_smoothing
        self._set_shared_params(priors, n_threads, grow_classes, half_life)

    def _set_shared_params(self, priors, n_threads, grow_classes, half_life):
        """The constructor parameters every parametric model takes (the
        smoothing's name differs: PoissonNB's is ``alpha``)."""
        self.priors = priors
        self.n_threads = n_threads
        self.grow_classes = grow_classes
        self.half_life = half_life

    # -- fitting ---------------------------------------------------------------------
    def _included_log_prior(self):
        return self._log_prior

    def fit(self, X, y, sample_weight=None):
        """Fit the model according to X, y.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training vectors, in the family's support; NaN marks a missing value.
        y : array-like of shape (n_samples,)
            Target values: any labels (ints, strings, bools, ...).
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

        Any split of the data into batches gives the same model as one ``fit`` on
        all of it, to rounding. A call that raises leaves the model exactly as it
        was.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training vectors.
        y : array-like of shape (n_samples,)
            Target values.
        classes : array-like of shape (n_classes,), default=None
            All the classes that can appear in y. Required on the first call
            (unless ``grow_classes``), ignored on later calls.
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

    def _update_tags(self, tags):
        tags.input_tags.allow_nan = True
        tags.input_tags.positive_only = True

    def _validate_params(self):
        name = type(self).__name__
        check_non_negative_float_param(getattr(self, self._SMOOTHING),
                                       self._SMOOTHING, name)
        check_prior_param(self.priors, "priors", name)
        check_n_threads(self.n_threads, name)
        check_bool_param(self.grow_classes, "grow_classes", name)
        check_half_life_param(self.half_life, name)

    def _raise_on_status(self, status):
        name = type(self).__name__
        if status & _STATUS["infinite"]:
            raise ValueError("Input X contains infinity or a value too large for "
                             "its dtype.")
        if status & _STATUS["out_of_support"]:
            raise ValueError(f"Negative values in data passed to {name}, or values "
                             f"out of its support: it models {self._SUPPORT} "
                             "(NaN marks a missing value).")
        if status & _STATUS["not_integer"]:
            raise ValueError(f"{name} models counts: X holds values that are not "
                             "integers (NaN marks a missing value).")

    def _fit(self, X, y, classes, sample_weight, refit):
        """Validate, run the kernel, and only then update the model (atomically)."""
        first_call, feature_names, X, weights, fitted_classes, codes, priors = \
            self._begin_dense_fit(X, y, classes, sample_weight, refit)
        n_samples, n_features = X.shape
        n_classes = fitted_classes.shape[0]
        # (a family that takes the log of each value does ~4x the work a value)
        n_threads = threads_for(self.n_threads, n_samples * n_features,
                                "log_fit" if "mean_log_x" in self._MEANS else "gaussian_fit")
        n_chunks = _fit_chunk_count(n_samples, n_classes, n_features)
        row_count, count, first, second, status = kernels.parametric_fit(
            X, codes, weights, n_classes, self._FAMILY, n_chunks, n_threads)
        self._raise_on_status(status)
        if first_call and row_count.sum() <= 0:
            raise ValueError("The sum of sample_weight is zero: nothing to fit.")
        stats = self._stats_from_kernel(count, first, second)
        if not first_call:
            # merged with what was learned before, scaled by the batch's decay
            # under forgetting (counts and ssd scale, means keep their values)
            decay = decay_factor(self.half_life, n_samples)
            stats = self._merged_stats(self._decayed(self._stats, decay), stats)
            row_count = self.class_count_ * decay + row_count
            self._check_feature_names_match(feature_names)
        self._set_fitted_state(fitted_classes, priors, row_count, stats)
        if first_call:
            self._set_feature_names(feature_names)
            self.n_features_in_ = n_features
        return self

    def _stats_from_kernel(self, count, first, second):
        stats = {"feature_count": count, self._MEANS[0]: first}
        if len(self._MEANS) > 1:
            stats[self._MEANS[1]] = second
        if self._HAS_SSD:
            stats[self._SSD] = second
        return stats

    def _decayed(self, stats, decay):
        out = dict(stats)
        out["feature_count"] = stats["feature_count"] * decay
        if self._HAS_SSD:
            out[self._SSD] = stats[self._SSD] * decay
        return out

    def _merged_stats(self, a, b):
        ssd = (a[self._SSD], b[self._SSD]) if self._HAS_SSD else None
        count, means, merged_ssd = merge_means(
            a["feature_count"], [a[m] for m in self._MEANS],
            b["feature_count"], [b[m] for m in self._MEANS], ssd)
        out = {"feature_count": count}
        out.update(zip(self._MEANS, means))
        if self._HAS_SSD:
            out[self._SSD] = merged_ssd
        return out

    def _pooled(self, stats):
        """The statistics of all classes together, per feature ((1, d) arrays):
        the classes merged in class order."""
        pooled = {name: value[:1] for name, value in stats.items()}
        for c in range(1, stats["feature_count"].shape[0]):
            pooled = self._merged_stats(
                pooled, {name: value[c:c + 1] for name, value in stats.items()})
        return pooled

    def _filled_means(self, stats, pooled, defaults):
        """The means of ``stats``, where a class saw no value of a feature those
        of all classes together (``pooled``), and where no class saw one
        ``defaults`` ({name: value})."""
        empty = stats["feature_count"] == 0
        pooled_empty = pooled["feature_count"] == 0
        out = {}
        for name in self._MEANS:
            fallback = np.where(pooled_empty, defaults[name], pooled[name])
            out[name] = np.where(empty, fallback, stats[name])
        return out

    def _check_feature_names_match(self, feature_names):
        fitted = getattr(self, "feature_names_in_", None)
        if fitted is None or feature_names is None:
            return
        if len(fitted) != len(feature_names) or np.any(fitted != feature_names):
            raise ValueError(
                "The feature names should match those that were passed during fit.")

    def _set_fitted_state(self, classes, priors, row_count, stats):
        prior = row_count / row_count.sum() if priors is None else priors
        with np.errstate(divide="ignore"):
            log_prior = np.ascontiguousarray(np.log(prior), dtype=np.float64)
        with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
            public, coefficients = self._derive(stats)
        a, b, const = (np.ascontiguousarray(v, dtype=np.float64) for v in coefficients)
        with np.errstate(over="ignore", invalid="ignore"):
            log_norm = log_prior + np.sum(const, axis=1) * self._CONST_SIGN
        if not (all(np.all(np.isfinite(v)) for v in (a, b, const))
                and np.all(np.isfinite(log_norm[np.isfinite(log_prior)]))):
            raise ValueError(
                f"{type(self).__name__}'s parameters are not finite on this data "
                "(values too large or too small for float64, or, without "
                f"smoothing ({self._SMOOTHING}=0), a feature constant within a "
                "class); the model is left as it was.")
        # All validation is done: commit the new state.
        self.classes_ = classes
        self.class_count_ = row_count
        self.class_prior_ = prior
        for name, value in public.items():
            setattr(self, name, value)
        # (plain array attributes, each its own: a model's state compares and
        # copies member by member)
        for name, value in stats.items():
            setattr(self, f"_stat_{name}", np.ascontiguousarray(value))
        self._coef_a, self._coef_b, self._coef_const = a, b, const
        self._log_prior = log_prior
        self._log_norm = np.ascontiguousarray(log_norm)

    @property
    def _stats(self):
        """The sufficient statistics but class_count_, by name."""
        return {name: getattr(self, f"_stat_{name}")
                for name in self._STATE_SPEC if name != "class_count_"}

    @property
    def _coef(self):
        return self._coef_a, self._coef_b, self._coef_const

    # -- persistence and merging ---------------------------------------------------
    def _sufficient_state(self):
        return {"class_count_": self.class_count_, **self._stats}

    @classmethod
    def _check_state_invariants(cls, classes, arrays, n_features):
        """Raise a ValueError naming the member and the rule where the saved state
        breaks what the kernels rely on: class_count_ sums to a positive finite
        total, feature_count within class_count_ of its class, the means within
        +-MEAN_LIMIT, and the family's own rules (``_check_family_state``)."""
        row_count = arrays["class_count_"]
        rules.positive_total("class_count_", row_count)
        rules.counts_within("feature_count", arrays["feature_count"],
                            row_count[:, None], "class_count_ of its class")
        for name in cls._MEANS:
            rules.check(np.all(np.abs(arrays[name]) <= MEAN_LIMIT), name,
                        f"|{name}| must be at most {MEAN_LIMIT:g}")
        cls._check_family_state(arrays)

    @classmethod
    def _check_family_state(cls, arrays):
        """The family's own rules (a subclass adds them)."""

    def _restore(self, classes, arrays, n_features, feature_names):
        self._validate_params()
        self._check_state_invariants(classes, arrays, n_features)
        priors = resolve_priors(self.priors, classes.shape[0], name="priors",
                                sum_to_one=True)
        stats = {name: np.array(arrays[name], dtype=np.float64)
                 for name in self._STATE_SPEC if name != "class_count_"}
        self._set_fitted_state(classes, priors, np.array(arrays["class_count_"],
                                                         dtype=np.float64), stats)
        self._finish_restore(n_features, feature_names)
        self._check_derived_state()

    def _check_derived_state(self):
        """The predictor's coefficients finite, and each class's log norm finite
        (or -inf: the log prior of a class with no rows)."""
        for name, value in zip(("a", "b", "const"), self._coef):
            rules.derived_finite("feature_count", value)
        rules.derived_finite("class_count_", self._log_prior, allow=("-inf",))
        rules.derived_finite("class_count_", self._log_norm, allow=("-inf",))

    def _merged_with(self, other):
        classes, where_a, where_b = union_classes(self.classes_, other.classes_)
        shape = (classes.shape[0], self.n_features_in_)

        def expand(model, where):
            stats = {}
            for name, value in model._stats.items():
                stats[name] = np.zeros(shape)
                stats[name][where] = value
            rows = np.zeros(shape[0])
            rows[where] = model.class_count_
            return rows, stats

        rows_a, stats_a = expand(self, where_a)
        rows_b, stats_b = expand(other, where_b)
        merged = type(self)(**self.get_params())
        priors = resolve_priors(merged.priors, shape[0], name="priors", sum_to_one=True)
        merged._set_fitted_state(classes, priors, rows_a + rows_b,
                                 merged._merged_stats(stats_a, stats_b))
        merged._finish_restore(self.n_features_in_,
                               getattr(self, "feature_names_in_", None))
        return merged

    # -- prediction ------------------------------------------------------------------
    def _jll_terms(self):
        """The model's ``ParametricTerms`` (fastnb/_jll_terms.py): the
        predictor's own coefficients."""
        self._check_fitted()
        a, b, const = self._coef
        return ParametricTerms(family=self._capabilities.terms,
                               log_prior=self._log_prior, a=a, b=b, const=const)

    def _check_predict_X(self, X):
        self._check_fitted()
        if hasattr(self, "feature_names_in_") or not isinstance(X, np.ndarray):
            self._check_feature_names(X, reset=False)
        X = check_dense_X(X, type(self).__name__)
        if X.shape[1] != self.n_features_in_:
            self._check_n_features(X, reset=False)
        return X

    def _run_predict_kernel(self, X, mode, labels_out, out):
        n_threads = self._predict_threads(X.shape[0], self._log_norm.size * X.shape[1])
        a, b, const = self._coef
        n_infinite = kernels.parametric_predict(
            X, self._FAMILY, a, b, const, self._log_norm, self._log_prior, mode,
            labels_out, out, n_threads)
        if n_infinite:
            raise ValueError(f"Input X contains infinity or a value too large for "
                             f"{X.dtype!r}.")
