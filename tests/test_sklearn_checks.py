"""scikit-learn's estimator checks, run on every fastnb estimator.

Add new estimators to ESTIMATORS; list any expected failure in EXPECTED_FAILED
with its reason.
"""

import pytest

pytest.importorskip("sklearn")
from sklearn.utils.estimator_checks import parametrize_with_checks  # noqa: E402

from fastnb import BernoulliNB, ComplementNB, MultinomialNB  # noqa: E402

ESTIMATORS = [BernoulliNB(), MultinomialNB(), ComplementNB()]

# {estimator class name: {check name: reason}}
EXPECTED_FAILED = {}


def _expected_failed_checks(estimator):
    return EXPECTED_FAILED.get(type(estimator).__name__, {})


@parametrize_with_checks(ESTIMATORS, expected_failed_checks=_expected_failed_checks)
def test_sklearn_compatible_estimator(estimator, check):
    check(estimator)
