"""ExponentialNB: exponential Naive Bayes for non-negative values."""

import numpy as np

from .._capabilities import Capabilities
from ._base import PARAMETRIC_FINALISING, _ParametricNB, kernels

__all__ = ["ExponentialNB"]


class ExponentialNB(_ParametricNB):
    """Exponential Naive Bayes, for non-negative features (x >= 0).

    Each feature of each class is an exponential distribution whose scale is
    the class's weighted mean of the feature (its maximum-likelihood fit, as
    ``scipy.stats.expon.fit(x, floc=0)``), plus ``epsilon_``. Fitting makes one
    pass over X in a compiled, OpenMP-parallel kernel; prediction runs one
    fused kernel over rows: the joint log likelihood is
    ``log prior + sum_j (-log(scale) - x_j / scale)``.

    Parameters
    ----------
    {priors}
    var_smoothing : float, default=1e-9
        Portion of the largest mean of all features (all classes together)
        that is added to every scale, so that a class whose values of a feature
        are all 0 does not get a scale of 0. 0 gives the maximum-likelihood
        scales (and refuses such data).
    {n_threads, grow_classes, half_life}

    Attributes
    ----------
    {class attributes}
    epsilon_ : float
        What is added to every scale: ``var_smoothing`` times the largest mean
        of a feature over all classes (1 when every mean is 0).
    scale_ : ndarray of shape (n_classes, n_features)
        The scale (mean) of each feature per class, plus ``epsilon_``. A class
        that saw no value of a feature (all missing) takes the mean of all
        classes.
    {feature attributes}

    Notes
    -----
    Fit refuses (``ValueError``) negative values and infinity; NaN is a missing
    value, left out of its feature's statistics and of a row's score. At
    predict time a negative value counts as missing too: every answer is
    finite.

    Examples
    --------
    >>> import numpy as np
    >>> from fastnb import ExponentialNB
    >>> X = np.array([[0.1, 1.0], [0.3, 2.0], [0.2, 1.5], [3.0, 0.1], [4.0, 0.2]])
    >>> y = np.array([0, 0, 0, 1, 1])
    >>> clf = ExponentialNB().fit(X, y)
    >>> clf.predict([[0.2, 1.2], [3.5, 0.1]])
    array([0, 1])
    >>> clf.scale_.round(2)
    array([[0.2 , 1.5 ],
           [3.5 , 0.15]])
    """

    _capabilities = Capabilities(
        reads="positive", terms="exponential", prior_param="priors",
        finalising_params=PARAMETRIC_FINALISING | {"var_smoothing"}, nonnegative=True,
        sub_model=True)
    _FAMILY = kernels.FAMILIES["exponential"]
    _MEANS = ("mean_x",)
    _SUPPORT = "non-negative values (x >= 0)"

    # The sufficient statistics. Load checks: class_count_ sums to a positive
    # finite total; feature_count within class_count_ of its class; mean_x
    # finite, non-negative and at most 1e150; the derived scales finite and
    # positive.
    _STATE_SPEC = {
        "class_count_": (("k",), ("finite", "nonneg")),
        "feature_count": (("k", "d"), ("finite", "nonneg")),
        "mean_x": (("k", "d"), ("finite", "nonneg")),
    }

    def _derive(self, stats):
        pooled = self._pooled(stats)
        means = self._filled_means(stats, pooled, {"mean_x": 1.0})
        largest = float(np.max(pooled["mean_x"]))
        epsilon = float(self.var_smoothing) * (largest if largest > 0 else 1.0)
        scale = means["mean_x"] + epsilon
        return ({"scale_": scale, "epsilon_": epsilon},
                (-1.0 / scale, np.zeros_like(scale), -np.log(scale)))
