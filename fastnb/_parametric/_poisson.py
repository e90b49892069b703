"""PoissonNB: Poisson Naive Bayes for non-negative integer counts."""

import numpy as np

from .._capabilities import Capabilities
from ._base import PARAMETRIC_FINALISING, _ParametricNB, kernels

__all__ = ["PoissonNB"]


class PoissonNB(_ParametricNB):
    """Poisson Naive Bayes, for features that are non-negative integer counts.

    Each feature of each class is a Poisson distribution whose rate is the
    class's weighted mean of the feature (its maximum-likelihood fit), plus
    ``alpha``. Fitting makes one pass over X in a compiled, OpenMP-parallel
    kernel; prediction runs one fused kernel over rows, and the joint log
    likelihood is ``log prior + sum_j (x_j log lambda - lambda - log(x_j!))``,
    scipy's ``poisson.logpmf`` summed.

    Parameters
    ----------
    {priors}
    alpha : float, default=1e-9
        Added to every fitted rate: a class that never saw a non-zero value of
        a feature gets the rate ``alpha`` rather than 0, under which any
        non-zero count would be impossible (a score of -inf). 0 gives the
        maximum-likelihood rates.
    {n_threads, grow_classes, half_life}

    Attributes
    ----------
    {class attributes}
    lambda_ : ndarray of shape (n_classes, n_features)
        The rate of each feature per class (its weighted mean, plus ``alpha``).
        A class that saw no value of a feature (all missing) takes the mean of
        all classes.
    {feature attributes}

    Notes
    -----
    Fit refuses (``ValueError``) negative values, values that are not integers
    and infinity. NaN is a missing value: it adds nothing to the statistics of
    its feature, and nothing to a row's score at predict time. At predict time
    a negative value counts as missing too, and a non-integer ``x`` is scored
    with the continuous ``log(x!) = lgamma(x + 1)``: every answer is finite.

    Examples
    --------
    >>> import numpy as np
    >>> from fastnb import PoissonNB
    >>> X = np.array([[0, 1], [1, 0], [0, 2], [5, 6], [7, 4], [6, 5]])
    >>> y = np.array([0, 0, 0, 1, 1, 1])
    >>> clf = PoissonNB().fit(X, y)
    >>> clf.predict([[1, 1], [6, 6]])
    array([0, 1])
    >>> clf.lambda_.round(2)
    array([[0.33, 1.  ],
           [6.  , 5.  ]])
    """

    _capabilities = Capabilities(
        reads="positive", terms="poisson", prior_param="priors",
        finalising_params=PARAMETRIC_FINALISING | {"alpha"}, nonnegative=True,
        sub_model=True)
    _FAMILY = kernels.FAMILIES["poisson"]
    _MEANS = ("mean_x",)
    _SMOOTHING = "alpha"
    _SUPPORT = "non-negative integer counts"

    # The sufficient statistics. Load checks: class_count_ sums to a positive
    # finite total; feature_count within class_count_ of its class; mean_x
    # finite, non-negative and at most 1e150; the derived rates finite.
    _STATE_SPEC = {
        "class_count_": (("k",), ("finite", "nonneg")),
        "feature_count": (("k", "d"), ("finite", "nonneg")),
        "mean_x": (("k", "d"), ("finite", "nonneg")),
    }

    def __init__(self, *, priors=None, alpha=1e-9, n_threads=None,
                 grow_classes=False, half_life=None):
        self.alpha = alpha
        self._set_shared_params(priors, n_threads, grow_classes, half_life)

    def _derive(self, stats):
        means = self._filled_means(stats, self._pooled(stats), {"mean_x": 0.0})
        rate = means["mean_x"] + float(self.alpha)
        # log(0) (alpha=0, a class that saw only zeros) as the most negative
        # float: a count of 0 then scores 0 * that = 0, not NaN, and any other
        # count about -inf
        log_rate = np.maximum(np.log(rate), -np.finfo(np.float64).max)
        return {"lambda_": rate}, (log_rate, np.zeros_like(rate), -rate)
