"""The one table of fastnb estimators that every table-driven test reads.

Its rows are the library's own registry (fastnb._capabilities: every public
model class declares its capabilities there), so a new model is in every
table-driven test (bad input, persistence, threads, Dask, scikit-learn's checks,
the common checks of tests/test_common_checks.py) by its registration alone. A
test reads a model's kind of input from ``data_kind`` (its ``reads``) and makes
data with ``DATA_MAKERS``: a kind without a maker fails with a KeyError instead
of being skipped. ``RICH_PARAMS`` optionally names parameters that exercise more
of a model than its defaults.
"""

from dataclasses import dataclass, field

import numpy as np

# (importing it imports fastnb, which registers every model)
from fastnb._capabilities import registered_models

__all__ = ["DATA_MAKERS", "ESTIMATORS", "EstimatorSpec", "mixed_data", "names",
           "names_of_kind", "positive_data"]


@dataclass(frozen=True)
class EstimatorSpec:
    """What the table-driven tests need to know of one estimator."""

    cls: type
    # Parameters that make a fit exercise more of the model than the defaults do.
    rich_params: dict = field(default_factory=dict)

    @property
    def capabilities(self):
        return self.cls._capabilities

    @property
    def data_kind(self):
        """The kind of X it models (``Capabilities.reads``): "continuous"
        (GaussianNB), "counts" (the count models), "categories" (CategoricalNB:
        values of any type) or "mixed" (ColumnwiseNB, see ``mixed_data``)."""
        return self.cls._capabilities.reads

    @property
    def prior_param(self):
        """The parameter that sets the class priors."""
        return self.cls._capabilities.prior_param

    @property
    def name(self):
        return self.cls.__name__

    def make(self, rich=False, **params):
        """A new, unfitted instance (``rich``: with ``rich_params``)."""
        return self.cls(**({**self.rich_params, **params} if rich else params))


# Optional: parameters that exercise more of a model than its defaults.
RICH_PARAMS = {
    "GaussianNB": {"var_smoothing": 1e-6},
    "BernoulliNB": {"alpha": 0.5, "binarize": 1.0},
    "MultinomialNB": {"alpha": 0.5},
    "ComplementNB": {"norm": True},
    "CategoricalNB": {"alpha": 0.5},
    "PoissonNB": {"alpha": 0.5},
    "ExponentialNB": {"var_smoothing": 1e-6},
    "GammaNB": {"var_smoothing": 1e-6},
    "LogNormalNB": {"var_smoothing": 1e-6},
}

ESTIMATORS = {
    name: EstimatorSpec(cls, RICH_PARAMS.get(name, {}))
    for name, cls in registered_models().items()
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


def continuous_data(rng=None, n=300, k=3, seed=0):
    """Gaussian-ish columns, one far from zero (exact moments matter there)."""
    rng = np.random.default_rng(seed) if rng is None else rng
    y = rng.integers(0, k, n)
    X = rng.normal(size=(n, 6)) + y[:, None]
    X[:, 5] = X[:, 5] * 10.0 + 1e4
    return X, y


def count_data(rng=None, n=300, k=3, seed=0):
    """Poisson counts whose rates differ by class."""
    rng = np.random.default_rng(seed) if rng is None else rng
    y = rng.integers(0, k, n)
    X = rng.poisson(1.0 + y[:, None] * np.linspace(0, 1, 8), size=(n, 8)).astype(float)
    return X, y


def category_data(rng=None, n=300, k=3, seed=0):
    """Integer codes (as floats, so that NaN can mark a missing value)."""
    rng = np.random.default_rng(seed) if rng is None else rng
    y = rng.integers(0, k, n)
    X = ((rng.integers(0, 4, (n, 5)) + y[:, None]) % 6).astype(float)
    return X, y


# The data maker of each kind of input (``Capabilities.reads``).
DATA_MAKERS = {
    "continuous": continuous_data,
    "counts": count_data,
    "categories": category_data,
    "mixed": mixed_data,
    "positive": lambda rng=None, n=300, k=3, seed=0: positive_data(rng, n=n, k=k,
                                                                    seed=seed),
}


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
