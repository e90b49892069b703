"""BernoulliNB."""

from numbers import Real

import numpy as np

from .._capabilities import Capabilities
from .._params import param_error
from .._threads import threads_for
from ._base import DISCRETE_FINALISING, _BaseDiscreteNB
from ._shared import _nonnegative_threshold, _table_update_kernels

_NO_INT64 = np.zeros(0, dtype=np.int64)
_NO_INT32 = np.zeros(0, dtype=np.int32)
_NO_FLOAT64 = np.zeros(0, dtype=np.float64)


class BernoulliNB(_BaseDiscreteNB):
    """Naive Bayes classifier for multivariate Bernoulli models.

    A drop-in for ``sklearn.naive_bayes.BernoulliNB``. The ``binarize``
    threshold is applied inside the kernels as X is read: no binarized copy of X
    is made, and bool/uint8/integer arrays are read as they are (a bool matrix is
    8x less memory traffic than float64). The absent-feature term
    ``sum_j log(1 - p_cj)`` is folded into a per-class constant once per fit.
    On sparse text-scale input (hashed features, many classes) the counts are
    kept in a sparse per-class table, so that fit and ``partial_fit`` cost
    O(non-zeros) and the model's memory follows its non-zero counts; the dense
    ``feature_count_`` and ``feature_log_prob_`` are computed when read.

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
    grow_classes : bool, default=False
        Whether ``partial_fit`` may meet classes it was not told of: the first
        call may then omit ``classes``, and a later batch may bring new labels
        (see :class:`~fastnb.MultinomialNB`).
    half_life : float, default=None
        Exponential forgetting, in rows: each row counts with weight
        ``sample_weight * 2**(-age / half_life)`` (see :class:`MultinomialNB`).

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
    _TABLE_STATE_SPEC = {
        **_BaseDiscreteNB._TABLE_STATE_SPEC,
        "table_class_total": (("k",), ("finite",)),
        "table_count": (("n",), ("finite",)),
    }

    # Sparse count table (text scale): the counts only; the predict terms are
    # derived from them when a predict first needs them (see _table_terms).
    _table_model = "bernoulli"
    _capabilities = Capabilities(
        reads="counts", terms="bernoulli", prior_param="class_prior",
        finalising_params=DISCRETE_FINALISING, reads_text_counts=True,
        column_kind="bernoulli", sub_model=True)
    _table_missing_entries = True
    _counts_rows = True
    _table_keeps_weights = False
    # under forgetting the table's counts are in a frame (``count_scale`` times
    # the stored ones), which the predict terms read scaled: a batch is O(1)
    # more than without forgetting
    _table_forgets = True

    def __init__(self, *, alpha=1.0, force_alpha=True, binarize=0.0, fit_prior=True,
                 class_prior=None, n_threads=None, grow_classes=False,
                 half_life=None):
        super().__init__(alpha=alpha, force_alpha=force_alpha, fit_prior=fit_prior,
                         class_prior=class_prior, n_threads=n_threads,
                         grow_classes=grow_classes, half_life=half_life)
        self.binarize = binarize

    def _validate_params(self):
        super()._validate_params()
        if self.binarize is not None and not _nonnegative_threshold(self.binarize):
            kind = TypeError if not isinstance(self.binarize, Real) else ValueError
            raise param_error(type(self).__name__, "binarize",
                              "None or a float in the range [0.0, inf)", self.binarize, kind)

    def _threshold(self):
        return self.binarize

    # -- the sparse count table ----------------------------------------------------
    # For class c and feature j, p_cj = (N_cj + a) / (C_c - M_cj + 2a) and
    #     jll_c = log prior_c + sum_j log(1 - p_cj) + sum_j x_j (log p_cj - log(1 - p_cj)).
    # Every feature without a count or a missing value in class c (N = M = 0) has
    # the same p0_c = a / (C_c + 2a): its terms are per-class values, and only the
    # entries of the table (pairs with a count or a missing value) differ from them.
    # The entry terms depend on C_c, which every batch of class c changes, so they
    # are derived at predict time, once per model state (O(entries)), and fit and
    # partial_fit only add counts (O(non-zeros of the batch + classes)). With an
    # array alpha, p0 depends on the feature too: the model stays dense.
    def _moves_to_table(self, Xv, n_classes, alpha):
        return np.ndim(alpha) == 0 and super()._moves_to_table(Xv, n_classes, alpha)

    def _use_table(self, Xv, n_classes, alpha, first_call):
        return np.ndim(alpha) == 0 and super()._use_table(Xv, n_classes, alpha,
                                                           first_call)

    def _reset_table_terms(self, n_features, alpha, built=False):
        self._feat_base = np.zeros(1)

    def _refresh_table(self, table, features, alpha):
        pass  # nothing kept between calls but the counts

    def _table_terms(self):
        table = self._table
        k = table.n_classes
        a = float(self._table_alpha)
        class_count = self.class_count_
        with np.errstate(divide="ignore", invalid="ignore"):
            lp0 = np.log(a) - np.log(class_count + a * 2)
            ln0 = np.log(1 - np.exp(lp0))
        w0 = lp0 - ln0
        weights = np.zeros(table.ent_class.shape[0])
        scratch = np.empty_like(weights)
        const_delta = np.zeros(k)
        missing = self._missing_table
        if missing is None:
            miss = (_NO_INT64, _NO_INT32, _NO_INT32, _NO_FLOAT64)
        else:
            miss = (missing.feat_start, missing.feat_len, missing.ent_class,
                    missing.ent_count)
        n_threads = threads_for(self.n_threads, table.used, "count_fit")
        with np.errstate(divide="ignore", invalid="ignore"):
            _table_update_kernels.bernoulli_entry_terms(
                table.feat_start, table.feat_len, table.ent_class, table.ent_count,
                *miss, class_count, a, w0, ln0, weights, const_delta, scratch,
                n_threads, table.count_scale)
            bias = self.class_log_prior_ + (table.n_features * ln0 + const_delta)
        return self._feat_base, bias, w0, np.ones(k), weights

    def _dense_from_table(self, name):
        if name != "feature_log_prob_":
            return super()._dense_from_table(name)
        self._settle_table()  # (under forgetting: the true counts stored)
        return self._update_feature_log_prob(
            self._table.to_dense(), self.class_count_, self._table_alpha,
            self._missing_count)[0]

    def _restore_table(self, classes, arrays, n_features):
        super()._restore_table(classes, arrays, n_features)
        if np.ndim(self._table_alpha) != 0:
            # saved with an array alpha (set after fitting): the dense model
            self._table_to_dense_state()

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

    def _missing_log_terms_at(self, features):
        # the log probabilities of the batch's features with NaN only: on the
        # table, from their blocks (a whole feature_log_prob_ was k x d a call)
        features, where = np.unique(features, return_inverse=True)
        table = self.__dict__.get("_table")
        if table is None:
            feature_log_prob = self.feature_log_prob_[:, features]
        else:
            missing = self._missing_table
            feature_log_prob = self._update_feature_log_prob(
                table.columns(features), self.class_count_, self._table_alpha,
                None if missing is None else missing.columns(features))[0]
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.log(1 - np.exp(feature_log_prob)).T[where]

    def _predict_weights(self, feature_log_prob, class_log_prior):
        # jll = X @ (log p - log(1 - p)).T + log prior + sum_j log(1 - p), with
        # scikit-learn's formula for log(1 - p) so that the outputs agree.
        with np.errstate(divide="ignore", invalid="ignore"):
            neg_prob = np.log(1 - np.exp(feature_log_prob))
            return feature_log_prob - neg_prob, class_log_prior + neg_prob.sum(axis=1)
