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

# PoissonNB, GammaNB and LogNormalNB refuse, at fit, values out of their support
# (issue 52): the data scikit-learn's checks make for a ``positive_only``
# estimator is its blobs shifted by their minimum, which holds one 0 (out of
# GammaNB's and LogNormalNB's support, x > 0) and values that are not integers
# (out of PoissonNB's). These checks fit on such data, so they fail with the
# models' own ValueError; tests/test_parametric.py covers what they check
# (fit/predict protocol, weights, pickle-free save, partial_fit, dtypes) on
# data in the support. ExponentialNB (x >= 0) passes every check.
_SUPPORT_CHECKS = [
    "check_all_zero_sample_weights_error",
    "check_classifiers_classes",
    "check_classifiers_one_label",
    "check_classifiers_train",
    "check_dict_unchanged",
    "check_dont_overwrite_parameters",
    "check_dtype_object",
    "check_estimators_dtypes",
    "check_estimators_fit_returns_self",
    "check_estimators_overwrite_params",
    "check_estimators_partial_fit_n_features",
    "check_estimators_pickle",
    "check_f_contiguous_array_estimator",
    "check_fit2d_1feature",
    "check_fit2d_1sample",
    "check_fit2d_predict1d",
    "check_fit_check_is_fitted",
    "check_fit_idempotent",
    "check_fit_score_takes_y",
    "check_methods_sample_order_invariance",
    "check_methods_subset_invariance",
    "check_n_features_in",
    "check_n_features_in_after_fitting",
    "check_pipeline_consistency",
    "check_readonly_memmap_input",
    "check_sample_weights_list",
    "check_supervised_y_2d",
]
_POISSON_ONLY = [
    "check_classifiers_one_label_sample_weights",
    "check_sample_weight_equivalence_on_dense_data",
]
_POSITIVE_ONLY = [
    "check_classifier_data_not_an_array",
    "check_sample_weights_not_an_array",
    "check_sample_weights_pandas_series",
]


def _out_of_support(checks, why):
    return {check: why for check in checks}


_NO_ZERO = "scikit-learn's shifted data holds 0, out of the support x > 0"
_NOT_COUNTS = "scikit-learn's data are not integer counts"


# Checks that a fastnb estimator is expected to fail, with the reason: only the
# parametric models' fits on data out of their support.
EXPECTED_FAILURES = {
    "PoissonNB": _out_of_support(_SUPPORT_CHECKS + _POISSON_ONLY, _NOT_COUNTS),
    "GammaNB": _out_of_support(_SUPPORT_CHECKS + _POSITIVE_ONLY, _NO_ZERO),
    "LogNormalNB": _out_of_support(_SUPPORT_CHECKS + _POSITIVE_ONLY, _NO_ZERO),
}


@parametrize_with_checks(
    ESTIMATORS, expected_failed_checks=lambda estimator: EXPECTED_FAILURES.get(
        type(estimator).__name__, {}
    )
)
def test_sklearn_compatible_estimator(estimator, check):
    check(estimator)


def test_param_names_follow_the_class_and_its_init():
    # the names are cached per class (``_get_param_names``): a subclass with its
    # own __init__, and an __init__ replaced later, have their own
    import fastnb

    class _Wider(fastnb.MultinomialNB):
        def __init__(self, *, extra=1, **params):
            super().__init__(**params)
            self.extra = extra

    base = fastnb.MultinomialNB()._get_param_names()
    assert "extra" not in base
    assert _Wider._get_param_names() == ["extra"]
    _Wider.__init__ = fastnb.MultinomialNB.__init__
    assert _Wider._get_param_names() == base
    assert fastnb.MultinomialNB(alpha=0.5).get_params()["alpha"] == 0.5
    assert fastnb.MultinomialNB._get_param_names() is not fastnb.MultinomialNB._get_param_names()
