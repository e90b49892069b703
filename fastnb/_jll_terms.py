"""Each model's joint log likelihood as typed terms, one type a kind of terms.

A fitted model's ``_jll_terms()`` returns one of these records, built in the
model's own package from its private state; code outside the package (fastnb.onnx
today) writes the likelihood from the record alone, never reading a model's
private attributes. The type is the model's ``Capabilities.terms`` family:

- ``GaussianTerms``: jll[c] = log_prior[c] - sum over observed j of
  ((x_j - theta[c, j])**2 * half_inv_var[c, j] + half_log_2pi_var[c, j]);
- ``LinearTerms``: jll = v(x) @ W + bias, v(x) = x (or x > threshold, as 0/1),
  a missing value read as 0, plus ``absent[c, j]`` for every observed feature
  where given (BernoulliNB's log(1 - p), which its bias leaves out);
- ``LookupTerms``: jll[c] = class_log_prior[c] + sum over observed j of
  table[first_row[j] + row_j(x_j), c], row_j a category's row (an unseen value:
  row n_categories[j]);
- ``ParametricTerms`` (PoissonNB, ExponentialNB, GammaNB, LogNormalNB): a value
  is observed where it is in the family's support at predict (finite, x >= 0;
  x > 0 where ``positive``), else missing (NaN, negative, ...: it adds
  nothing); jll[c] = log_prior[c] + sum over observed j of
  (a[c, j] x_j + b[c, j] log x_j + const[c, j]) (Poisson: a = log lambda,
  b = 0, const = -lambda; exponential: a = -1/scale, b = 0, const = -log
  scale; gamma: a = -1/scale, b = shape - 1, const = -shape log scale -
  lgamma(shape)), or where ``of_log`` (log-normal) the Gaussian terms of log x,
  -((log x_j - a[c, j])**2 b[c, j] + const[c, j]) (a = mu, b = 0.5 / var,
  const = 0.5 log(2 pi var)); plus the class-free ``free_term`` of each
  observed value (Poisson: -log(x!) = -lgamma(x + 1); log-normal: -log x),
  which changes no probability and no label;
- ``CompositeTerms``: jll = bias + the sum of each part's jll over its columns;
- ``KernelDensityTerms``: jll[c] = log_prior[c] + sum over observed j of the
  log density on the grid of (c, j): with t = x_j * inv_width - origin, the
  grid interpolated linearly at t where 0 <= t <= n_nodes - 1, else the
  Gaussian tail ``grid[end] + slope u - curvature u**2`` (u the distance past
  the end node at ``start`` or ``stop``), at least ``floor``.
"""

from dataclasses import dataclass
from typing import Callable

import numpy as np

__all__ = ["CompositeTerms", "GaussianTerms", "KernelDensityTerms", "LinearTerms",
           "LookupTerms", "ParametricTerms"]


@dataclass(frozen=True)
class GaussianTerms:
    log_prior: np.ndarray        # (k,)
    theta: np.ndarray            # (k, d)
    half_inv_var: np.ndarray     # (k, d): 0.5 / var
    half_log_2pi_var: np.ndarray  # (k, d): 0.5 * log(2 pi var)


@dataclass(frozen=True)
class LinearTerms:
    bias: np.ndarray                       # (k,)
    # (d, k) weights in the given dtype, each feature's row less its mean over
    # the classes (where finite): the scores move by a per-row constant, so
    # the probabilities are the model's, and a wide model's weights are written
    # without a float64 (d, k) copy
    centred_weights: Callable[[np.dtype], np.ndarray]
    threshold: float = None                # binarize, or None
    absent: np.ndarray = None              # (d, k), centred, or None


@dataclass(frozen=True)
class LookupTerms:
    class_log_prior: np.ndarray  # (k,)
    table: np.ndarray            # (rows, k): every feature's block of rows
    first_row: np.ndarray        # (d,) int64: feature j's block starts here
    n_categories: np.ndarray     # (d,): feature j's unseen row
    # per feature: ("code", None) integer codes are rows; ("string", [values])
    # or ("number", float64 values) a value's row is its position; ("bucket",
    # None) rows are fastnb's own 64-bit hash of the value
    features: tuple


@dataclass(frozen=True)
class ParametricTerms:
    family: str              # "poisson", "exponential", "gamma" or "lognormal"
    log_prior: np.ndarray    # (k,)
    a: np.ndarray            # (k, d)
    b: np.ndarray            # (k, d)
    const: np.ndarray        # (k, d)

    @property
    def positive(self):
        """Whether the support at predict is x > 0 (else x >= 0)."""
        return self.family in ("gamma", "lognormal")

    @property
    def of_log(self):
        """Whether the terms are a Gaussian's of log x (log-normal)."""
        return self.family == "lognormal"

    @property
    def free_term(self):
        """The class-free term of an observed value: "log_factorial"
        (-lgamma(x + 1)), "log" (-log x) or None."""
        return {"poisson": "log_factorial", "lognormal": "log"}.get(self.family)


@dataclass(frozen=True)
class CompositeTerms:
    bias: np.ndarray  # (k,)
    # ((positions, terms), ...): each part's columns of X and its terms
    parts: tuple


@dataclass(frozen=True)
class KernelDensityTerms:
    log_prior: np.ndarray    # (k,)
    inv_width: np.ndarray    # (k, d) 1 / node spacing
    origin: np.ndarray       # (k, d) the first node's index
    start: np.ndarray        # (k, d) the first node's value
    stop: np.ndarray         # (k, d) the last node's value
    grid: np.ndarray         # (k, d, n_nodes) log densities at predict's nodes
    slope_low: np.ndarray    # (k, d)
    slope_high: np.ndarray   # (k, d)
    curvature: np.ndarray    # (k, d) 1 / (2 h**2)
    floor: float


def centred(block):
    """Subtract from each feature's row of (features, k) float64 weights, in
    place, its mean over the classes (where every class's weight is finite).

    Each row's jll then moves by sum_j x_j mean_j, the same for every class:
    the probabilities and the arg-max are those of the model, and the scores
    summed are the differences between classes, not log probabilities of -10
    to -20 a feature whose float32 rounding (~1e-6 each) would add up over a
    row's features."""
    with np.errstate(invalid="ignore"):
        mean = block.mean(axis=1, keepdims=True)
    block -= np.where(np.isfinite(mean), mean, 0.0)
    return block
