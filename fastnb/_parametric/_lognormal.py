"""LogNormalNB: log-normal Naive Bayes for positive values."""

import numpy as np

from .._capabilities import Capabilities
from .. import _invariants as rules
from ._base import PARAMETRIC_FINALISING, _ParametricNB, kernels

__all__ = ["LogNormalNB"]


class LogNormalNB(_ParametricNB):
    """Log-normal Naive Bayes, for positive features (x > 0).

    Each feature of each class is log-normal: log x is Gaussian, with the
    class's weighted mean ``mu_`` and standard deviation ``sigma_`` of log x
    (the maximum-likelihood fit, as ``scipy.stats.lognorm.fit(x, floc=0)``,
    whose ``s`` is ``sigma_`` and ``scale`` is ``exp(mu_)``). The moments are
    exact as GaussianNB's (weighted Welford updates of log x in one pass,
    merged with Chan's formula). The joint log likelihood is GaussianNB's on
    log x minus ``sum_j log x_j``, scipy's ``lognorm.logpdf`` summed.

    Parameters
    ----------
    {priors}
    var_smoothing : float, default=1e-9
        Portion of the largest variance of log x of all features (all classes
        together) that is added to the variances, so that a feature constant
        within a class does not get a variance of 0. 0 gives the
        maximum-likelihood fit (and refuses such data).
    {n_threads, grow_classes, half_life}

    Attributes
    ----------
    {class attributes}
    epsilon_ : float
        What is added to the variances of log x: ``var_smoothing`` times the
        largest variance of log x over the features of all classes together
        (1 when they are all 0).
    mu_ : ndarray of shape (n_classes, n_features)
        The mean of log x of each feature per class. A class that saw no value
        of a feature (all missing) takes the fit of all classes together.
    sigma_ : ndarray of shape (n_classes, n_features)
        The standard deviation of log x of each feature per class (the square
        root of its variance plus ``epsilon_``).
    {feature attributes}

    {Notes on positive values}

    Examples
    --------
    >>> import numpy as np
    >>> from fastnb import LogNormalNB
    >>> X = np.exp(np.array([[0.0, 1.0], [0.2, 1.1], [0.1, 0.9],
    ...                      [3.0, 0.0], [3.2, 0.1], [3.1, -0.1]]))
    >>> y = np.array([0, 0, 0, 1, 1, 1])
    >>> clf = LogNormalNB().fit(X, y)
    >>> clf.predict(np.exp([[0.1, 1.0], [3.0, 0.0]]))
    array([0, 1])
    >>> clf.mu_.round(2)
    array([[0.1, 1. ],
           [3.1, 0. ]])
    """

    _capabilities = Capabilities(
        reads="positive", terms="lognormal", prior_param="priors",
        finalising_params=PARAMETRIC_FINALISING | {"var_smoothing"}, nonnegative=True,
        sub_model=True)
    _FAMILY = kernels.FAMILIES["lognormal"]
    _MEANS = ("mean_log_x",)
    _PREDICT_WORK_KIND = "log_predict"     # (a log of each value)
    _HAS_SSD = True
    _SSD = "ssd_log_x"
    _SUPPORT = "positive values (x > 0)"
    # log_norm = log prior - sum of 0.5 log(2 pi var): the Gaussian kernel's
    _CONST_SIGN = -1.0

    # The sufficient statistics. Load checks: class_count_ sums to a positive
    # finite total; feature_count within class_count_ of its class;
    # |mean_log_x| at most 1e150; ssd_log_x / feature_count (a variance)
    # finite; the derived variances finite and positive.
    _STATE_SPEC = {
        "class_count_": (("k",), ("finite", "nonneg")),
        "feature_count": (("k", "d"), ("finite", "nonneg")),
        "mean_log_x": (("k", "d"), ("finite",)),
        "ssd_log_x": (("k", "d"), ("finite", "nonneg")),
    }

    @staticmethod
    def _variances(count, ssd):
        with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
            return np.where(count > 0, ssd / np.where(count > 0, count, 1), 0.0)

    @classmethod
    def _check_family_state(cls, arrays):
        var = cls._variances(arrays["feature_count"], arrays["ssd_log_x"])
        rules.check(np.all(np.isfinite(var)), "ssd_log_x",
                    "ssd_log_x / feature_count (a variance) overflows float64")

    def _derive(self, stats):
        pooled = self._pooled(stats)
        means = self._filled_means(stats, pooled, {"mean_log_x": 0.0})
        pooled_var = self._variances(pooled["feature_count"], pooled["ssd_log_x"])
        var = np.where(stats["feature_count"] > 0,
                       self._variances(stats["feature_count"], stats["ssd_log_x"]),
                       pooled_var)
        largest = float(np.max(pooled_var))
        epsilon = float(self.var_smoothing) * (largest if largest > 0 else 1.0)
        var = var + epsilon
        mu = means["mean_log_x"]
        return ({"mu_": mu, "sigma_": np.sqrt(var), "epsilon_": epsilon},
                (mu, 0.5 / var, 0.5 * np.log(2.0 * np.pi * var)))
