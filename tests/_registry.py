"""The one table of fastnb estimators that every table-driven test reads.

A test file that runs "every estimator" (bad input, persistence, threads, Dask,
scikit-learn's checks) takes its rows from ``ESTIMATORS`` and supplies a data
maker for each ``data_kind``. Registering a new estimator here puts it in every
such table at once; a table without a data maker for its kind fails with a
KeyError instead of skipping it silently.
"""

from dataclasses import dataclass, field

import numpy as np

import fastnb

__all__ = ["ESTIMATORS", "EstimatorSpec", "mixed_data", "names", "names_of_kind",
           "positive_data"]


@dataclass(frozen=True)
class EstimatorSpec:
    """What the table-driven tests need to know of one estimator."""

    cls: type
    # The kind of X it models: "continuous" (GaussianNB), "counts" (the count
    # models), "categories" (CategoricalNB: values of any type), "mixed"
    # (ColumnwiseNB: columns of different kinds, see ``mixed_data``) or
    # "positive" (the parametric models: positive integer-valued floats, in
    # the support of Poisson, exponential, gamma and log-normal alike; see
    # ``positive_data``).
    data_kind: str
    # The parameter that sets the class priors.
    prior_param: str
    # Parameters that make a fit exercise more of the model than the defaults do.
    rich_params: dict = field(default_factory=dict)

    @property
    def name(self):
        return self.cls.__name__

    def make(self, rich=False, **params):
        """A new, unfitted instance (``rich``: with ``rich_params``)."""
        return self.cls(**({**self.rich_params, **params} if rich else params))


ESTIMATORS = {
    spec.name: spec
    for spec in [
        EstimatorSpec(fastnb.GaussianNB, "continuous", "priors",
                      {"var_smoothing": 1e-6}),
        EstimatorSpec(fastnb.BernoulliNB, "counts", "class_prior",
                      {"alpha": 0.5, "binarize": 1.0}),
        EstimatorSpec(fastnb.MultinomialNB, "counts", "class_prior", {"alpha": 0.5}),
        EstimatorSpec(fastnb.ComplementNB, "counts", "class_prior", {"norm": True}),
        EstimatorSpec(fastnb.CategoricalNB, "categories", "class_prior", {"alpha": 0.5}),
        EstimatorSpec(fastnb.ColumnwiseNB, "mixed", "priors"),
        EstimatorSpec(fastnb.PoissonNB, "positive", "priors", {"alpha": 0.5}),
        EstimatorSpec(fastnb.ExponentialNB, "positive", "priors",
                      {"var_smoothing": 1e-6}),
        EstimatorSpec(fastnb.GammaNB, "positive", "priors", {"var_smoothing": 1e-6}),
        EstimatorSpec(fastnb.LogNormalNB, "positive", "priors",
                      {"var_smoothing": 1e-6}),
    ]
}


def mixed_data(rng=None, n=300, k=3, seed=0):
    """The "mixed" kind's table, as an object array: a float column with NaN, a
    str column with None, a bool column, small integer codes and a float column
    far from zero (ColumnwiseNB's "auto" makes one GaussianNB, one BernoulliNB
    and one CategoricalNB of them, whatever subset of rows it sees)."""
    rng = np.random.default_rng(seed) if rng is None else rng
    y = rng.integers(0, k, n)
    X = np.empty((n, 5), dtype=object)
    X[:, 0] = rng.normal(size=n) + y
    X[rng.random(n) < 0.05, 0] = np.nan
    words = np.array(["red", "green", "blue", "\u00e9t\u00e9", None], dtype=object)
    X[:, 1] = words[(rng.integers(0, 3, n) + y) % 5]
    X[:, 2] = (rng.random(n) < 0.3 + 0.2 * (y % 2)).astype(object)
    X[:, 3] = ((rng.integers(0, 4, n) + y) % 6).astype(object)
    X[:, 4] = rng.normal(size=n) * 1e3 + 1e6 + y * 100.0
    return X, y


def positive_data(rng=None, n=300, d=4, k=3, seed=0):
    """The "positive" kind's X: counts 1, 2, 3, ... as float64, each class its
    own rate (in the support of every parametric model), with y."""
    rng = np.random.default_rng(seed) if rng is None else rng
    y = rng.integers(0, k, n)
    y[:k] = np.arange(k)
    X = 1.0 + rng.poisson(1.0 + y[:, None] + 0.5 * np.arange(d), (n, d))
    return X.astype(np.float64), y


def hashed_text(n, seed):
    """Hashed-text-like CSR counts: wide (2**15 columns), sparse, 35 classes, with 20
    frequent features shared by all classes (as in Zipf-distributed text) that a
    batch hits many times; every class appears in the first 35 rows."""
    import scipy.sparse as sp

    rng = np.random.default_rng(seed)
    d, k = 1 << 15, 35
    rare = sp.random(n, d - 20, density=0.002, random_state=seed + 1, format="csr",
                     data_rvs=lambda size: rng.integers(1, 4, size).astype(float))
    frequent = sp.csr_matrix(rng.integers(0, 3, (n, 20)).astype(float))
    X = sp.hstack([frequent, rare], format="csr")
    y = rng.integers(0, k, n)
    y[:k] = np.arange(k)
    return X, y


def names():
    """Every registered estimator's name, sorted (for pytest.mark.parametrize)."""
    return sorted(ESTIMATORS)


def names_of_kind(*kinds):
    """The names of the estimators whose data_kind is one of ``kinds``."""
    return sorted(name for name, spec in ESTIMATORS.items() if spec.data_kind in kinds)
