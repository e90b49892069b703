"""Parameter checks shared by every estimator: one rule, one wording.

Each rule is written once here and called by every estimator that has the
parameter. Messages follow scikit-learn's parameter validation ("The 'alpha'
parameter of MultinomialNB must be a float in the range [0.0, inf). Got -1
instead."), which its estimator checks look for, so fastnb estimators pass
``parametrize_with_checks`` without importing scikit-learn.

Two kinds of check:

- ``check_*_param`` validate a constructor parameter's type and range; estimators
  call them from ``_validate_params`` at the start of ``fit``/``partial_fit``
  (never in ``__init__``, as scikit-learn requires);
- ``resolve_*`` turn a valid parameter into what the kernels need once the data's
  shape is known (an alpha array of length n_features, priors of length
  n_classes), raising a ValueError that names the mismatch.
"""

import warnings
from numbers import Integral, Real

import numpy as np

__all__ = [
    "ALPHA_LOWER_BOUND",
    "check_alpha_param",
    "check_bool_param",
    "check_n_threads",
    "check_non_negative_float_param",
    "check_prior_param",
    "param_error",
    "resolve_alpha",
    "resolve_priors",
]

# scikit-learn's lower bound for alpha when force_alpha=False.
ALPHA_LOWER_BOUND = 1e-10


def param_error(owner, name, expected, value, kind=ValueError):
    """The exception for parameter ``name`` of ``owner`` not being ``expected``."""
    of = f" of {owner}" if owner else ""
    return kind(f"The '{name}' parameter{of} must be {expected}. Got {value!r} instead.")


def _is_real(value):
    return isinstance(value, Real) and not isinstance(value, (bool, np.bool_))


def _is_int(value):
    return isinstance(value, Integral) and not isinstance(value, (bool, np.bool_))


def check_n_threads(value, owner=None):
    """``n_threads``: None, or a non-zero int (negative counts back from all cores)."""
    if value is not None and not _is_int(value):
        raise param_error(owner, "n_threads", "an int or None", value, TypeError)
    if value == 0:
        raise param_error(owner, "n_threads", "None, -1 or a non-zero int", value)


def check_bool_param(value, name, owner):
    """A flag such as ``fit_prior`` or ``force_alpha``: a Python or NumPy bool."""
    if not isinstance(value, (bool, np.bool_)):
        raise param_error(owner, name, "an instance of 'bool'", value, TypeError)


def check_non_negative_float_param(value, name, owner):
    """A finite real number >= 0, such as ``var_smoothing`` or a scalar ``alpha``."""
    expected = "a float in the range [0.0, inf)"
    if not _is_real(value):
        raise param_error(owner, name, expected, value, TypeError)
    if not (value >= 0 and np.isfinite(value)):
        raise param_error(owner, name, expected, value)


def check_alpha_param(value, owner, *, allow_array):
    """``alpha``: a float >= 0, or (when allowed) a 1d array-like of numbers, whose
    length :func:`resolve_alpha` checks against the number of features."""
    expected = "a float in the range [0.0, inf)"
    if allow_array:
        expected += " or a 1d array-like of numbers (one per feature)"
    if allow_array and not _is_real(value) and hasattr(value, "__len__") and \
            not isinstance(value, (str, bytes, np.str_, np.bytes_)):
        # A str is a sequence too, and would be taken for an array of length 0.
        try:
            values = np.asarray(value)
        except (TypeError, ValueError) as error:  # ragged
            raise param_error(owner, "alpha", expected, value) from error
        if values.dtype.kind not in "biuf" or values.ndim != 1:
            kind = TypeError if values.dtype.kind in "OUSV" and values.ndim == 0 \
                else ValueError
            raise param_error(owner, "alpha", expected, value, kind)
        return
    if not _is_real(value):
        raise param_error(owner, "alpha", expected, value, TypeError)
    if not value >= 0:
        raise param_error(owner, "alpha", expected, value)


def check_prior_param(value, name, owner):
    """``priors`` / ``class_prior``: None or an array-like (length checked later)."""
    if value is not None and (isinstance(value, (str, bytes)) or not hasattr(value, "__len__")):
        raise param_error(owner, name, "an array-like or None", value, TypeError)


def resolve_alpha(alpha, force_alpha, n_features=None):
    """scikit-learn's ``_check_alpha``: alpha as a float, or a float64 array of
    ``n_features`` values; below ALPHA_LOWER_BOUND it is raised to the bound with a
    warning unless ``force_alpha``."""
    if _is_real(alpha):
        alpha = float(alpha)
        smallest = alpha
    else:
        alpha = np.asarray(alpha, dtype=np.float64)
        if alpha.ndim != 1 or alpha.shape[0] != n_features:
            got = alpha.shape[0] if alpha.ndim == 1 else alpha.shape
            raise ValueError(
                "When alpha is an array, it should contains `n_features`. "
                f"Got {got} elements instead of {n_features}."
            )
        if not np.all(np.isfinite(alpha)):
            raise ValueError("All values in alpha must be finite.")
        smallest = float(np.min(alpha))
        if smallest < 0:
            raise ValueError("All values in alpha must be greater than 0.")
    if smallest < ALPHA_LOWER_BOUND and not force_alpha:
        warnings.warn(
            "alpha too small will result in numeric errors, setting alpha ="
            f" {ALPHA_LOWER_BOUND:.1e}. Use `force_alpha=True` to keep alpha"
            " unchanged.",
            UserWarning,
            stacklevel=4,
        )
        return np.maximum(alpha, ALPHA_LOWER_BOUND) if not isinstance(alpha, float) \
            else ALPHA_LOWER_BOUND
    return alpha


def resolve_priors(priors, n_classes, *, name, sum_to_one):
    """Class priors as a float64 array of ``n_classes`` values, or None when unset.

    ``name`` is the parameter (``priors`` or ``class_prior``), named in every error.
    Used as given (scikit-learn does not normalise them); a prior that is not
    finite or is negative is an error rather than a NaN model. GaussianNB also
    requires them to sum to 1, as scikit-learn's does.
    """
    if priors is None:
        return None
    try:
        prior = np.asarray(priors, dtype=np.float64)
    except (TypeError, ValueError) as error:
        raise ValueError(f"Priors must be numbers: {name}={priors!r}.") from error
    if prior.ndim != 1 or prior.shape[0] != n_classes:
        raise ValueError(
            "Number of priors must match number of classes: "
            f"{name} has shape {prior.shape} for {n_classes} classes."
        )
    if not np.all(np.isfinite(prior)):
        raise ValueError(f"Priors must be finite: {name}={priors!r}.")
    if sum_to_one and not np.isclose(prior.sum(), 1.0):
        raise ValueError(f"The sum of the priors should be 1: {name}={priors!r}.")
    if np.any(prior < 0):
        raise ValueError(f"Priors must be non-negative: {name}={priors!r}.")
    return prior
