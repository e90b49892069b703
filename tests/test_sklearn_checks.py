"""scikit-learn's own estimator checks, run on every fastnb estimator."""

import warnings

import pytest

pytest.importorskip("sklearn")
from sklearn.utils.estimator_checks import parametrize_with_checks  # noqa: E402

from _registry import ESTIMATORS as REGISTRY  # noqa: E402

# fastnb estimators implement scikit-learn's protocol without inheriting from its
# BaseEstimator (importing fastnb must not import scikit-learn); the checks warn
# about that once at collection.
warnings.filterwarnings("ignore", message="Estimator .* does not inherit from")

ESTIMATORS = [spec.make() for spec in REGISTRY.values()]

# Checks that a fastnb estimator is expected to fail, with the reason. Empty: every
# check passes.
EXPECTED_FAILURES = {}


@parametrize_with_checks(
    ESTIMATORS, expected_failed_checks=lambda estimator: EXPECTED_FAILURES.get(
        type(estimator).__name__, {}
    )
)
def test_sklearn_compatible_estimator(estimator, check):
    check(estimator)
