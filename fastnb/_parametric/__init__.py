"""The parametric Naive Bayes models: one distribution per feature and class,
fitted by maximum likelihood from per-class sufficient statistics in one pass."""

from ._exponential import ExponentialNB
from ._gamma import GammaNB
from ._lognormal import LogNormalNB
from ._poisson import PoissonNB

__all__ = ["ExponentialNB", "GammaNB", "LogNormalNB", "PoissonNB"]
