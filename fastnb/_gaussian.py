"""GaussianNB: scikit-learn's Gaussian Naive Bayes on compiled one-pass kernels."""


import numpy as np

from . import _invariants as rules
from ._dispatch import load_kernels
from ._params import (
    check_bool_param,
    check_n_threads,
    check_non_negative_float_param,
    check_prior_param,
    resolve_priors,
)
from ._base import MODE_ARGMAX, MODE_JLL, _BaseNB
from ._capabilities import Capabilities
from ._jll_terms import GaussianTerms
from ._forgetting import check_half_life_param, decay_factor, forgets, row_weights
from ._persist import union_classes
from ._threads import threads_for
from ._validation import check_dense_X, check_y

__all__ = ["GaussianNB"]

_kernels = load_kernels("_gaussian_kernels")
_candidate_kernels = load_kernels("_gaussian_candidates")

# Fit chunks: at least this many rows each, at most this many chunks, and at most
# this much scratch memory for the per-chunk moments. The chunking depends on the
# data's shape only, which is what makes the fit independent of the thread count.
_FIT_MIN_ROWS_PER_CHUNK = 4096
_FIT_MAX_CHUNKS = 64
_FIT_SCRATCH_BYTES = 32 << 20

# A candidate's labels are derived from an anchor's scores (no sums of its
# own, except on close calls) when its weights are within this relative
# half-width of a fixed multiple of the anchor's, class by class
# (labels-only search scoring: _label_anchors)
_DERIVE_MAX_SPREAD = 1e-3
# how far the bounds of a float64 ratio are widened: 4 units of roundoff
_RATIO_WIDENING = 2.0 ** -51
# and only for a pass of at least this many multiply-adds (rows x classes x
# features x candidates, about half a millisecond): the choice of anchors costs
# up to g**2 / 2 ratios of (k, d) arrays, whatever the number of rows
_DERIVE_MIN_WORK = 1 << 22


def _in_place(X):
    """X is a non-empty 2d float array the kernels read as it is: C-ordered, or
    with any other strides (a DataFrame's columns, Fortran order), which the
    kernels read a row at a time through a scratch row. That beats copying X
    C-ordered first: 1.0-2.5x faster fits and 1.2-3x faster predictions on
    300,000 Fortran-ordered rows of 8 to 128 columns."""
    return (
        type(X) is np.ndarray
        and X.ndim == 2
        and (X.dtype == np.float64 or X.dtype == np.float32)
        and X.shape[0] > 0
        and X.shape[1] > 0
        and (X.flags.c_contiguous or (
            X.flags.aligned and X.strides[0] % X.itemsize == 0
            and X.strides[1] % X.itemsize == 0))
    )


def _any_of_rows(test, X, rows, block=1 << 16):
    """Whether ``test`` (np.isnan, np.isinf) holds anywhere in X's rows ``rows``
    (None: all of X), looked at a block of rows at a time: no copy of the rows."""
    if rows is None:
        return bool(test(X).any())
    return any(bool(test(X[rows[start:start + block]]).any())
               for start in range(0, rows.shape[0], block))


def _fit_chunk_count(n_samples, n_slots, n_features):
    by_rows = n_samples // _FIT_MIN_ROWS_PER_CHUNK
    by_memory = _FIT_SCRATCH_BYTES // (8 * n_slots * (3 * n_features + 1))
    return int(max(1, min(_FIT_MAX_CHUNKS, by_rows, by_memory)))


# The largest mean a saved GaussianNB may hold: sqrt(float64's largest value) is
# ~1.34e154, past which a deviation from the mean squares to infinity.
MEAN_LIMIT = 1e154


def _label_anchors(weights):
    """(anchor_of, ratio_lo, ratio_hi) for ``gaussian_predict_candidates``'s
    labels, from the candidates' (g, k, d) ``_half_inv_var``: which candidates'
    labels may come from another's scores (its anchor, summed in the pass),
    and bounds on their weights' ratios to that anchor's, class by class;
    (None, None, None) when no candidate is close enough to another.

    Candidates whose variances differ by a var_smoothing small against them
    have weights that are nearly a fixed multiple of each other's, and their
    labels nearly always agree: a logspace grid's low end is mostly such
    candidates. The kernel still proves each derived label (or sums the row),
    so this choice sets the speed only, never the labels."""
    g, k = weights.shape[:2]
    if g < 2 or not (np.all(np.isfinite(weights)) and np.all(weights > 0)):
        return None, None, None
    anchor_of = np.full(g, -1, dtype=np.intp)
    ratio_lo, ratio_hi, spread = np.zeros((g, k)), np.zeros((g, k)), np.zeros(g)
    anchors = []
    for v in range(g):
        closest = None
        for anchor in anchors:
            ratio = weights[v] / weights[anchor]
            low, high = ratio.min(axis=1), ratio.max(axis=1)
            width = float(np.max((high - low) / (high + low)))
            if width <= _DERIVE_MAX_SPREAD and (closest is None or width < closest[0]):
                closest = (width, anchor, low, high)
        if closest is None:
            anchors.append(v)
        else:
            spread[v], anchor_of[v], ratio_lo[v], ratio_hi[v] = closest
    # the anchors' last group has free places: the widest derived take them,
    # summed at no extra cost
    derived = np.flatnonzero(anchor_of >= 0)
    free = min(-len(anchors) % _candidate_kernels.CANDIDATES_AT_ONCE, derived.size)
    anchor_of[derived[np.argsort(-spread[derived], kind="stable")[:free]]] = -1
    if not np.any(anchor_of >= 0):
        return None, None, None
    return (anchor_of, ratio_lo * (1.0 - _RATIO_WIDENING),
            ratio_hi * (1.0 + _RATIO_WIDENING))


class GaussianNB(_BaseNB):
    """Gaussian Naive Bayes, a drop-in for ``sklearn.naive_bayes.GaussianNB``.

    Fitting makes one pass over X in a compiled, OpenMP-parallel kernel that
    accumulates per-class weighted counts, means and centred second moments
    (Welford updates per fixed block of rows, merged with Chan's formula), so the
    variances are exact even for data far from zero, and ``partial_fit`` on any
    split of the data gives the same model as one ``fit``. Prediction runs one
    fused kernel over rows: no (n_samples, n_features) temporary is made.

    Parameters
    ----------
    priors : array-like of shape (n_classes,), default=None
        Prior probabilities of the classes. If given, they are not adjusted
        according to the data.
    var_smoothing : float, default=1e-9
        Portion of the largest variance of all features that is added to the
        variances for calculation stability.
    n_threads : int, default=None
        Threads for the kernels: None or -1 means all usable cores (honouring
        ``OMP_NUM_THREADS`` and threadpoolctl limits), -2 all but one, and so on.
        Results are the same bits whatever the number of threads.
    grow_classes : bool, default=False
        Whether ``partial_fit`` may meet classes it was not told of: the first
        call may then omit ``classes``, and a later batch may bring new labels
        (see :class:`~fastnb.MultinomialNB`).
    half_life : float, default=None
        Exponential forgetting, in rows: each row counts with weight
        ``sample_weight * 2**(-age / half_life)``, ``age`` being the number of
        rows seen after it, so that the model follows a drifting stream. The
        counts, means and variances are exact under these weights, for any
        split of the stream into ``partial_fit`` batches; ``epsilon_`` is
        ``var_smoothing`` times the largest variance of all rows seen under
        these weights (sample weights included).
        None (or ``inf``) forgets nothing.

    Attributes
    ----------
    class_count_ : ndarray of shape (n_classes,)
        Weighted number of training samples observed in each class (decayed
        under ``half_life``).
    class_prior_ : ndarray of shape (n_classes,)
        Probability of each class.
    classes_ : ndarray of shape (n_classes,)
        Class labels known to the classifier.
    epsilon_ : float
        Absolute additive value to the variances. Unlike scikit-learn, which
        recomputes it from the last ``partial_fit`` batch only (its issue #14054),
        fastnb computes it from all data seen so far, so that ``partial_fit`` over
        any split of the data equals one ``fit``.
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Names of features seen during fit, when X has string column names.
    var_ : ndarray of shape (n_classes, n_features)
        Variance of each feature per class (plus ``epsilon_``).
    theta_ : ndarray of shape (n_classes, n_features)
        Mean of each feature per class.

    Notes
    -----
    Statistics are accumulated in float64 whatever the input dtype, so the fitted
    attributes are float64 (scikit-learn keeps float32 for float32 input). float32
    input is read as float32, without an upcast copy.

    Examples
    --------
    >>> import numpy as np
    >>> from fastnb import GaussianNB
    >>> X = np.array([[-1, -1], [-2, -1], [-3, -2], [1, 1], [2, 1], [3, 2]])
    >>> y = np.array([1, 1, 1, 2, 2, 2])
    >>> clf = GaussianNB().fit(X, y)
    >>> clf.predict([[-0.8, -1]])
    array([1])
    >>> clf_pf = GaussianNB()
    >>> clf_pf = clf_pf.partial_fit(X, y, np.unique(y))
    >>> clf_pf.predict([[-0.8, -1]])
    array([1])
    """

    # save checks the derived variances as load does (``_persist.save``)
    _SAVE_CHECKS_DERIVED_STATE = True
    _capabilities = Capabilities(
        reads="continuous", terms="gaussian", prior_param="priors",
        finalising_params={"priors", "var_smoothing", "n_threads", "grow_classes"},
        column_kind="gaussian", sub_model=True)

    # The sufficient statistics: everything else is derived from them. Load
    # checks (``_check_state_invariants``): class_count_ sums to a positive finite
    # total; feature_count <= class_count_ of its class; seen_count <= the total;
    # class_ssd / feature_count and seen_ssd / seen_count finite; after the
    # restore, epsilon_ finite, var_ finite and positive (``_check_derived_state``).
    # (``with_params``: epsilon_ is var_smoothing times the largest variance of
    # every row seen, which the seen_* moments keep; the priors only weigh)
    _STATE_SPEC = {
        "class_count_": (("k",), ("finite", "nonneg")),
        "feature_count": (("k", "d"), ("finite", "nonneg")),
        "theta_": (("k", "d"), ("finite",)),
        "class_ssd": (("k", "d"), ("finite", "nonneg")),
        "seen_count": ((1, "d"), ("finite", "nonneg")),
        "seen_mean": ((1, "d"), ("finite",)),
        "seen_ssd": ((1, "d"), ("finite", "nonneg")),
    }

    def __init__(self, *, priors=None, var_smoothing=1e-9, n_threads=None,
                 grow_classes=False, half_life=None):
        self.priors = priors
        self.var_smoothing = var_smoothing
        self.n_threads = n_threads
        self.grow_classes = grow_classes
        self.half_life = half_life

    # -- fitting ---------------------------------------------------------------------
    def fit(self, X, y, sample_weight=None):
        """Fit Gaussian Naive Bayes according to X, y.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training vectors.
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
        all of it. A call that raises leaves the model exactly as it was.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training vectors.
        y : array-like of shape (n_samples,)
            Target values.
        classes : array-like of shape (n_classes,), default=None
            All the classes that can appear in y. Required on the first call,
            ignored on later calls.
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

    def _validate_params(self):
        check_non_negative_float_param(self.var_smoothing, "var_smoothing", "GaussianNB")
        check_prior_param(self.priors, "priors", "GaussianNB")
        check_n_threads(self.n_threads, "GaussianNB")
        check_bool_param(self.grow_classes, "grow_classes", "GaussianNB")
        check_half_life_param(self.half_life, "GaussianNB")

    def _fit(self, X, y, classes, sample_weight, refit):
        """Validate, run the kernel, and only then update the model (atomically)."""
        first_call, feature_names, X, weights, fitted_classes, codes, priors = \
            self._begin_dense_fit(X, y, classes, sample_weight, refit,
                                  check_X=lambda X, name: X if _in_place(X)
                                  else check_dense_X(X, name))
        return self._fit_checked(first_call, feature_names, X, None, weights,
                                 fitted_classes, codes, priors)

    @staticmethod
    def _rows_fit_X(X):
        """X as ``_fit_rows`` reads it, validated once for all the fits on its
        rows (a search's splits): X itself when the kernels read it in place
        (a float32/float64 ndarray), else None (fit a copy of the rows)."""
        return X if isinstance(X, np.ndarray) and _in_place(X) else None

    def _fit_rows(self, X, rows, y):
        """``fit(X[rows], y)`` without the copy ``X[rows]``: the same model, bit
        for bit (the kernel reads the rows where they are, cut into the same
        chunks). ``X`` is what ``_rows_fit_X`` returned; ``rows`` an intp array
        of row indices in ``[0, len(X))``, ``y`` the labels of those rows."""
        self._begin_fit(None, True)
        n_rows = rows.shape[0]
        y = check_y(y, n_rows, type(self).__name__)
        weights = row_weights(self.half_life, None, n_rows)
        fitted_classes, codes = self._encode_targets(
            y, None, refit=True, first_call=True, n_features=X.shape[1])
        priors = resolve_priors(self.priors, fitted_classes.shape[0], name="priors",
                                sum_to_one=True)
        return self._fit_checked(True, None, X, np.ascontiguousarray(rows, np.intp),
                                 weights, fitted_classes, codes, priors)

    def _fit_checked(self, first_call, feature_names, X, rows, weights,
                     fitted_classes, codes, priors):
        """The fit once its inputs are checked: of X's rows ``rows`` (None: all
        of X), read in place."""
        n_samples = X.shape[0] if rows is None else rows.shape[0]
        n_features = X.shape[1]
        n_classes = fitted_classes.shape[0]

        # With weights, epsilon still comes from the unweighted variance of X (as in
        # scikit-learn), so the kernel keeps one extra all-rows slot for it. Under
        # forgetting it comes from the variance of all rows under their decayed
        # weights: the moments of the classes merged, which decay with them.
        track_unweighted = weights is not None and not forgets(self.half_life)
        n_slots = n_classes + int(track_unweighted)
        n_threads = threads_for(self.n_threads, n_samples * n_features, "gaussian_fit")
        n_chunks = _fit_chunk_count(n_samples, n_slots, n_features)
        row_count, count, mean, ssd = _kernels.gaussian_fit(
            X, codes, weights, n_classes, track_unweighted, False, n_chunks, n_threads,
            rows,
        )
        if not (np.isfinite(mean).all() and np.isfinite(ssd).all()):
            # Only now look at X itself: infinity is an error, NaN means missing.
            self._raise_if_infinite(X, rows)
            if _any_of_rows(np.isnan, X, rows):
                row_count, count, mean, ssd = _kernels.gaussian_fit(
                    X, codes, weights, n_classes, track_unweighted, True, n_chunks,
                    n_threads, rows,
                )
            if not (np.isfinite(mean).all() and np.isfinite(ssd).all()):
                raise ValueError(
                    "Input X has values too large in magnitude: their variance "
                    "overflows float64. Rescale the features."
                )
        if track_unweighted:
            seen = (count[n_classes:], mean[n_classes:], ssd[n_classes:])
            row_count, count = row_count[:n_classes], count[:n_classes]
            mean, ssd = mean[:n_classes], ssd[:n_classes]
        else:
            seen = _kernels.merge_all_slots(count, mean, ssd)
        seen = tuple(np.ascontiguousarray(a) for a in seen)
        self._raise_if_variance_underflows(X, seen[2], weights if forgets(self.half_life)
                                           else None, rows)
        row_count, count = row_count.copy(), np.ascontiguousarray(count)
        mean, ssd = np.ascontiguousarray(mean), np.ascontiguousarray(ssd)
        if first_call and row_count.sum() <= 0:
            raise ValueError("The sum of sample_weight is zero: nothing to fit.")

        if not first_call:
            # Merge with what was learned before, on copies: the model changes only
            # once everything has succeeded.
            # (under forgetting, the counts and squared deviations learned before
            # are scaled by the batch's decay; the means keep their values)
            decay = decay_factor(self.half_life, n_samples)
            old = (self._feature_count * decay, self.theta_.copy(),
                   self._class_ssd * decay)
            _kernels.merge_moments(*old, count, mean, ssd)
            row_count = self.class_count_ * decay + row_count
            count, mean, ssd = old
            old_seen = (self._seen_count * decay, self._seen_mean.copy(),
                        self._seen_ssd * decay)
            _kernels.merge_moments(*old_seen, *seen)
            seen = old_seen

        if not first_call:
            self._check_feature_names_match(feature_names)
        self._set_fitted_state(fitted_classes, priors, row_count, count, mean, ssd, seen)
        if first_call:
            self._set_feature_names(feature_names)
            self.n_features_in_ = n_features
        return self

    def _check_feature_names_match(self, feature_names):
        fitted = getattr(self, "feature_names_in_", None)
        if fitted is None or feature_names is None:
            return
        if len(fitted) != len(feature_names) or np.any(fitted != feature_names):
            raise ValueError(
                "The feature names should match those that were passed during fit."
            )

    @staticmethod
    def _raise_if_variance_underflows(X, ssd, weights=None, rows=None):
        """Values so small (~1e-160 and below) that their spread squares to zero.
        ``weights``: the rows' decayed weights under forgetting, where a row too
        old to count (weight below 1e-150) may differ from the rows that count.
        ``rows``: the rows of X fitted (None: all)."""
        flat = np.flatnonzero(ssd[0] < np.finfo(np.float64).tiny)
        if flat.size == 0:
            return
        if rows is None:
            rows = np.arange(X.shape[0])
        if weights is not None:
            rows = rows[weights >= 1e-150]
            if rows.shape[0] == 0:
                return
        # Those features are constant (fine) or their variance underflowed (not):
        # only they are looked at again.
        columns = X[np.ix_(rows, flat)]
        with np.errstate(invalid="ignore"):
            spread = np.nanmax(columns, axis=0) - np.nanmin(columns, axis=0)
        if np.any(spread > 0):
            raise ValueError(
                "Input X has values too small in magnitude: their variance "
                "underflows float64. Rescale the features."
            )

    @staticmethod
    def _raise_if_infinite(X, rows=None):
        if _any_of_rows(np.isinf, X, rows):
            raise ValueError(
                f"Input X contains infinity or a value too large for {X.dtype!r}."
            )

    def _set_fitted_state(self, classes, priors, row_count, count, mean, ssd, seen):
        seen_count, _, seen_ssd = seen
        with np.errstate(invalid="ignore", divide="ignore"):
            class_var = np.where(count > 0, ssd / np.where(count > 0, count, 1), 0.0)
            feature_var = np.where(seen_count > 0, seen_ssd / np.where(
                seen_count > 0, seen_count, 1), 0.0)
        largest_var = float(np.max(feature_var))
        # When every feature is constant, scikit-learn's epsilon is 0 and its
        # variances are 0, which makes every prediction NaN; fastnb smooths on the
        # unit scale instead.
        epsilon = float(self.var_smoothing * (largest_var if largest_var > 0 else 1.0))
        prior = row_count / row_count.sum() if priors is None else priors
        var = class_var + epsilon
        if epsilon == 0.0:
            # var_smoothing=0: a feature a class has no value of yet (a class
            # given to partial_fit, or grown, before its rows come) would have a
            # zero variance (scikit-learn's: NaN predictions, and a state no file
            # could hold); it takes the unit scale until its values come.
            var = np.where(count > 0, var, 1.0)
        with np.errstate(divide="ignore"):
            log_prior = np.log(prior)
        half_log_2pi_var = 0.5 * np.log(2.0 * np.pi * var)
        if not (np.isfinite(epsilon) and np.all(np.isfinite(var))
                and np.all(np.isfinite(mean))):
            # Squared deviations past float64's range (values near 1e154 and
            # beyond, or a partial_fit far from a loaded model's means): refused
            # before anything is committed, so the model stays as it was.
            raise ValueError(
                "GaussianNB's variances overflow float64 on this data (values too "
                "large or too far apart); the model is left as it was.")
        # All validation is done: commit the new state.
        self.classes_ = classes
        self.class_count_ = row_count
        self.class_prior_ = prior
        self.theta_ = mean
        self.var_ = var
        self.epsilon_ = epsilon
        self._feature_count = count
        self._class_ssd = ssd
        self._seen_count, self._seen_mean, self._seen_ssd = seen
        self._half_inv_var = np.ascontiguousarray(0.5 / var)
        self._half_log_2pi_var = np.ascontiguousarray(half_log_2pi_var)
        self._log_prior = np.ascontiguousarray(log_prior, dtype=np.float64)
        self._log_norm = np.ascontiguousarray(log_prior - half_log_2pi_var.sum(axis=1))

    # -- persistence and merging ---------------------------------------------------
    def _sufficient_state(self):
        return {
            "class_count_": self.class_count_,
            "feature_count": self._feature_count,
            "theta_": self.theta_,
            "class_ssd": self._class_ssd,
            "seen_count": self._seen_count,
            "seen_mean": self._seen_mean,
            "seen_ssd": self._seen_ssd,
        }

    @classmethod
    def _check_state_invariants(cls, classes, arrays, n_features):
        """Raise a ValueError naming the member and the rule where the saved state
        breaks what the kernels rely on: class_count_ sums to a positive finite
        total, feature_count within class_count_ of its class, and the variances the state implies (class_ssd / feature_count,
        seen_ssd / seen_count) finite: a denormal count (5e-324) made them
        infinite, and every prediction NaN."""
        row_count = arrays["class_count_"]
        rules.positive_total("class_count_", row_count)
        count = arrays["feature_count"]
        rules.counts_within("feature_count", count, row_count[:, None],
                            "class_count_ of its class")
        # (seen_count counts rows, unweighted, for epsilon_ as scikit-learn's:
        # with sample weights it has no bound in class_count_, which sums weights)
        for ssd_name, count_name in (("class_ssd", "feature_count"),
                                     ("seen_ssd", "seen_count")):
            ssd, n = arrays[ssd_name], arrays[count_name]
            with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
                var = np.where(n > 0, ssd / np.where(n > 0, n, 1), 0.0)
            rules.check(np.all(np.isfinite(var)), ssd_name,
                        f"{ssd_name} / {count_name} (a variance) overflows float64")
        # A mean beyond sqrt(float64's largest) squares to infinity as soon as a
        # later partial_fit measures a row's deviation from it: the model would
        # load and predict, then turn every probability NaN (found by the fuzzer).
        for name in ("theta_", "seen_mean"):
            rules.check(np.all(np.abs(arrays[name]) <= MEAN_LIMIT), name,
                        f"|{name}| must be at most {MEAN_LIMIT:g} (its squared "
                        "deviations overflow float64 beyond)")

    def _restore(self, classes, arrays, n_features, feature_names):
        self._validate_params()
        self._check_state_invariants(classes, arrays, n_features)
        priors = resolve_priors(self.priors, classes.shape[0], name="priors", sum_to_one=True)
        row_count, count = arrays["class_count_"], arrays["feature_count"]
        seen = (arrays["seen_count"], arrays["seen_mean"], arrays["seen_ssd"])
        with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
            self._set_fitted_state(classes, priors, row_count, count, arrays["theta_"],
                                   arrays["class_ssd"], seen)
        self._finish_restore(n_features, feature_names)
        self._check_derived_state()

    def _check_derived_state(self):
        """After a restore: epsilon_ and the variances finite and positive, and
        the predict terms finite (a class's log prior may be -inf: a class with
        no rows)."""
        rules.check(np.isfinite(self.epsilon_), "seen_ssd",
                    "epsilon_ (var_smoothing times the largest variance) overflows")
        rules.check(bool(np.all((self.var_ > 0) & np.isfinite(self.var_))), "class_ssd",
                    "the variances (plus epsilon_) must be finite and positive")
        rules.derived_finite("class_ssd", self._half_inv_var)
        rules.derived_finite("class_ssd", self._half_log_2pi_var)
        rules.derived_finite("class_count_", self._log_prior, allow=("-inf",))
        rules.derived_finite("class_ssd", self._log_norm, allow=("-inf",))

    def _merged_with(self, other):
        classes, where_a, where_b = union_classes(self.classes_, other.classes_)
        shape = (classes.shape[0], self.n_features_in_)

        def expand(model, where):
            moments = [np.zeros(shape) for _ in range(3)]
            moments[0][where] = model._feature_count
            moments[1][where] = model.theta_
            moments[2][where] = model._class_ssd
            rows = np.zeros(shape[0])
            rows[where] = model.class_count_
            return rows, moments

        rows_a, moments = expand(self, where_a)
        rows_b, other_moments = expand(other, where_b)
        _kernels.merge_moments(*moments, *other_moments)
        seen = [self._seen_count.copy(), self._seen_mean.copy(), self._seen_ssd.copy()]
        _kernels.merge_moments(*seen, other._seen_count, other._seen_mean,
                               other._seen_ssd)
        merged = type(self)(**self.get_params())
        priors = resolve_priors(merged.priors, shape[0], name="priors", sum_to_one=True)
        merged._set_fitted_state(classes, priors, rows_a + rows_b, *moments, tuple(seen))
        merged._finish_restore(self.n_features_in_,
                               getattr(self, "feature_names_in_", None))
        return merged

    # -- prediction ------------------------------------------------------------------
    def _jll_terms(self):
        """The model's ``GaussianTerms`` (fastnb/_jll_terms.py)."""
        self._check_fitted()
        return GaussianTerms(log_prior=self._log_prior, theta=self.theta_,
                             half_inv_var=self._half_inv_var,
                             half_log_2pi_var=self._half_log_2pi_var)

    def _included_log_prior(self):
        with np.errstate(divide="ignore"):
            return np.log(self.class_prior_)

    def _check_predict_X(self, X):
        self._check_fitted()
        if hasattr(self, "feature_names_in_") or not isinstance(X, np.ndarray):
            self._check_feature_names(X, reset=False)
        if not _in_place(X):
            X = check_dense_X(X, type(self).__name__)
        if X.shape[1] != self.n_features_in_:
            self._check_n_features(X, reset=False)
        return X

    def _predict_candidates(self, models, X, labels_only):
        """The joint log likelihoods on X of ``models`` (this model's
        ``with_params``: its means, other variances and priors) in one pass
        over X, each candidate's the bits its own ``predict_joint_log_proba``
        gives (the same terms, summed in the same order).

        Returns (out, suspect): out is (g, n, k) float64, or with
        ``labels_only`` each candidate's ``predict`` as class indices, (g, n)
        intp; suspect (g,) counts each candidate's rows with no finite best
        score, whose output its own predict is left to decide (it raises on
        infinite X).
        """
        X = self._check_predict_X(X)
        for model in models:
            if not (model.theta_ is self.theta_
                    or np.array_equal(model.theta_, self.theta_)):
                raise ValueError("The candidates must share this model's means.")
        n, g, k = X.shape[0], len(models), self.classes_.shape[0]

        def stacked(name, width):
            return np.ascontiguousarray(np.stack([getattr(m, name) for m in models])
                                        .reshape(g, k, width), dtype=np.float64)

        d = self.theta_.shape[1]
        terms = (stacked("_half_inv_var", d), stacked("_half_log_2pi_var", d),
                 stacked("_log_norm", 1)[:, :, 0].copy(),
                 stacked("_log_prior", 1)[:, :, 0].copy())
        n_threads = self._predict_threads(n, self.var_.size * g)
        if labels_only:
            out = np.empty((g, n), dtype=np.intp)
            derivation = ((None, None, None) if n * terms[0].size < _DERIVE_MIN_WORK
                          else _label_anchors(terms[0]))
            suspect = _candidate_kernels.gaussian_predict_candidates(
                X, self.theta_, *terms, MODE_ARGMAX, out, None, n_threads, *derivation)
        else:
            out = np.empty((g, n, k), dtype=np.float64)
            suspect = _candidate_kernels.gaussian_predict_candidates(
                X, self.theta_, *terms, MODE_JLL, None, out, n_threads)
        return out, suspect

    def _run_predict_kernel(self, X, mode, labels_out, out):
        n_threads = self._predict_threads(X.shape[0], self.var_.size)
        n_suspect = _kernels.gaussian_predict(
            X, self.theta_, self._half_inv_var, self._half_log_2pi_var, self._log_norm,
            self._log_prior, mode, labels_out, out, n_threads,
        )
        if n_suspect:
            self._raise_if_infinite(X)

