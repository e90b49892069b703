"""GammaNB: gamma Naive Bayes for positive values."""

import numpy as np

from .._capabilities import Capabilities
from .. import _invariants as rules
from ._base import PARAMETRIC_FINALISING, _ParametricNB, kernels

__all__ = ["GammaNB"]

# The smallest log(mean x) - mean(log x) solved for: a feature constant within a
# class under var_smoothing=0 gets the shape ~1 / (2 * this), 5e14, not infinity.
_LOG_GAP_FLOOR = 1e-15


class GammaNB(_ParametricNB):
    """Gamma Naive Bayes, for positive features (x > 0).

    Each feature of each class is a gamma distribution fitted by maximum
    likelihood (as ``scipy.stats.gamma.fit(x, floc=0)``) from two weighted
    means the kernel accumulates in one pass, of x and of log x: the shape
    ``a`` solves ``log(a) - digamma(a) = log(mean x) - mean(log x)`` (Newton
    steps from Minka's approximation, to machine precision, once per class and
    feature; no second pass over the data), and the scale is ``mean x / a``.
    Prediction runs one fused kernel over rows: the joint log likelihood is
    ``log prior + sum_j ((a - 1) log x_j - x_j / scale - a log(scale) -
    lgamma(a))``, scipy's ``gamma.logpdf`` summed.

    Parameters
    ----------
    {priors}
    var_smoothing : float, default=1e-9
        Portion of the largest ``log(mean x) - mean(log x)`` of all features
        (all classes together) that is added to each class's before its shape
        is solved for. That quantity is about half the variance of log x, and
        0 for a constant feature: the smoothing keeps the shape of a feature
        constant within a class finite. 0 gives the maximum-likelihood fit
        (a constant feature then gets a shape of about 5e14).
    {n_threads, grow_classes, half_life}

    Attributes
    ----------
    {class attributes}
    epsilon_ : float
        What is added to each ``log(mean x) - mean(log x)``: ``var_smoothing``
        times the largest over the features of all classes together (1 when
        they are all 0).
    shape_ : ndarray of shape (n_classes, n_features)
        The shape of each feature per class. A class that saw no value of a
        feature (all missing) takes the fit of all classes together.
    scale_ : ndarray of shape (n_classes, n_features)
        The scale of each feature per class.
    {feature attributes}

    {Notes on positive values}

    Examples
    --------
    >>> import numpy as np
    >>> from fastnb import GammaNB
    >>> rng = np.random.default_rng(0)
    >>> X = np.concatenate([rng.gamma(2.0, 1.0, (200, 2)),
    ...                     rng.gamma(9.0, 2.0, (200, 2))])
    >>> y = np.repeat([0, 1], 200)
    >>> clf = GammaNB().fit(X, y)
    >>> clf.predict([[1.5, 2.0], [20.0, 17.0]])
    array([0, 1])
    >>> bool(np.all(np.abs(clf.shape_[1] - 9.0) < 2.0))
    True
    """

    _capabilities = Capabilities(
        reads="positive", terms="gamma", prior_param="priors",
        finalising_params=PARAMETRIC_FINALISING | {"var_smoothing"}, nonnegative=True,
        sub_model=True)
    _FAMILY = kernels.FAMILIES["gamma"]
    _MEANS = ("mean_x", "mean_log_x")
    _PREDICT_WORK_KIND = "log_predict"     # (a log of each value)
    _SUPPORT = "positive values (x > 0)"

    # The sufficient statistics. Load checks: class_count_ sums to a positive
    # finite total; feature_count within class_count_ of its class; mean_x
    # finite, non-negative, at most 1e150, and positive where feature_count is;
    # |mean_log_x| at most 1e150; the derived shapes and scales finite.
    _STATE_SPEC = {
        "class_count_": (("k",), ("finite", "nonneg")),
        "feature_count": (("k", "d"), ("finite", "nonneg")),
        "mean_x": (("k", "d"), ("finite", "nonneg")),
        "mean_log_x": (("k", "d"), ("finite",)),
    }

    @classmethod
    def _check_family_state(cls, arrays):
        seen = arrays["feature_count"] > 0
        rules.check(np.all(arrays["mean_x"][seen] > 0), "mean_x",
                    "must be positive where feature_count is")

    def _derive(self, stats):
        pooled = self._pooled(stats)
        defaults = {"mean_x": 1.0, "mean_log_x": 0.0}
        means = self._filled_means(stats, pooled, defaults)
        pooled = self._filled_means(pooled, pooled, defaults)
        # (Jensen: log(mean x) >= mean(log x); rounding may leave a hair below)
        gap = np.maximum(np.log(means["mean_x"]) - means["mean_log_x"], 0.0)
        pooled_gap = np.maximum(np.log(pooled["mean_x"]) - pooled["mean_log_x"], 0.0)
        largest = float(np.max(pooled_gap))
        epsilon = float(self.var_smoothing) * (largest if largest > 0 else 1.0)
        gap = np.maximum(gap + epsilon, _LOG_GAP_FLOOR)
        shape = kernels.gamma_shapes(np.ascontiguousarray(gap).ravel()).reshape(gap.shape)
        scale = means["mean_x"] / shape
        log_gamma = kernels.log_gamma_values(shape.ravel()).reshape(shape.shape)
        return ({"shape_": shape, "scale_": scale, "epsilon_": epsilon},
                (-1.0 / scale, shape - 1.0, -shape * np.log(scale) - log_gamma))
