"""KernelDensityNB: a Gaussian kernel density per class and feature, from a
linearly binned histogram of bounded size."""

from ._estimator import KernelDensityNB

__all__ = ["KernelDensityNB"]
