"""BernoulliNB."""

from numbers import Real

import numpy as np

from .._params import param_error
from ._base import _BaseDiscreteNB
from ._shared import _nonnegative_threshold


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
