"""The one table of fastnb estimators that every table-driven test reads.

A test file that runs "every estimator" (bad input, persistence, threads, Dask,
scikit-learn's checks) takes its rows from ``ESTIMATORS`` and supplies a data
maker for each ``data_kind``. Registering a new estimator here puts it in every
such table at once; a table without a data maker for its kind fails with a
KeyError instead of skipping it silently.
"""

from dataclasses import dataclass, field

import fastnb

__all__ = ["ESTIMATORS", "EstimatorSpec", "names", "names_of_kind"]


@dataclass(frozen=True)
class EstimatorSpec:
    """What the table-driven tests need to know of one estimator."""

    cls: type
    # The kind of X it models: "continuous" (GaussianNB), "counts" (the count
    # models) or "categories" (CategoricalNB: values of any type).
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
    ]
}


def names():
    """Every registered estimator's name, sorted (for pytest.mark.parametrize)."""
    return sorted(ESTIMATORS)


def names_of_kind(*kinds):
    """The names of the estimators whose data_kind is one of ``kinds``."""
    return sorted(name for name, spec in ESTIMATORS.items() if spec.data_kind in kinds)
