"""Input validation shared by every estimator.

Messages follow scikit-learn's wording where its estimator checks look for it, so
that fastnb estimators pass ``parametrize_with_checks`` without importing sklearn.
"""

import sys
import warnings

import numpy as np

__all__ = [
    "DataConversionWarning",
    "NotFittedError",
    "check_dense_X",
    "check_sample_weight",
    "check_y",
    "feature_names_of",
    "is_sparse",
    "not_fitted_error",
]


class NotFittedError(ValueError, AttributeError):
    """Raised when a predict method is called before ``fit``.

    It subclasses both ValueError and AttributeError, as scikit-learn's does.

    Examples
    --------
    >>> import numpy as np
    >>> from fastnb import GaussianNB, NotFittedError
    >>> try:
    ...     GaussianNB().predict(np.zeros((1, 2)))
    ... except NotFittedError as error:
    ...     print("not fitted")
    not fitted
    """


_SKLEARN_COMPATIBLE_NOT_FITTED = {}


def not_fitted_error(message):
    """A NotFittedError to raise; also scikit-learn's when scikit-learn is loaded.

    fastnb never imports scikit-learn, but code that already uses it (a Pipeline, a
    ``except sklearn.exceptions.NotFittedError``) should catch fastnb's error too.
    """
    sklearn_exceptions = sys.modules.get("sklearn.exceptions")
    if sklearn_exceptions is None:
        return NotFittedError(message)
    base = sklearn_exceptions.NotFittedError
    combined = _SKLEARN_COMPATIBLE_NOT_FITTED.get(base)
    if combined is None:
        combined = type("NotFittedError", (NotFittedError, base), {
            "__module__": NotFittedError.__module__,
            "__doc__": NotFittedError.__doc__,
        })
        _SKLEARN_COMPATIBLE_NOT_FITTED[base] = combined
    return combined(message)


class DataConversionWarning(UserWarning):
    """Warns that input data was reshaped or converted, e.g. a column-vector y.

    Examples
    --------
    >>> from fastnb import DataConversionWarning
    >>> issubclass(DataConversionWarning, UserWarning)
    True
    """


def is_sparse(X):
    """Whether X is a SciPy sparse matrix or array, detected without importing SciPy."""
    module = type(X).__module__
    return module.startswith("scipy.sparse") and hasattr(X, "format")


def feature_names_of(X):
    """Column names of a dataframe as an object array, or None (scikit-learn's rules)."""
    if isinstance(X, np.ndarray) or not hasattr(X, "columns"):
        return None
    names = np.asarray(X.columns, dtype=object)
    if names.ndim != 1 or len(names) == 0:
        return None
    kinds = sorted({type(name).__qualname__ for name in names})
    if len(kinds) > 1 and "str" in kinds:
        raise TypeError(
            "Feature names are only supported if all input features have string "
            f"names, but your input has {kinds} as feature name / column name "
            "types. If you want feature names to be stored and validated, you must "
            "convert them all to strings, by using X.columns = X.columns.astype(str) "
            "for example. Otherwise you can remove feature / column names from your "
            "input data, or convert them all to a non-string data type."
        )
    if kinds == ["str"]:
        return names
    return None


def check_feature_names(estimator, X, *, reset):
    """Record (reset=True) or verify the feature names of X against the fit's."""
    names = feature_names_of(X)
    if reset:
        if names is not None:
            estimator.feature_names_in_ = names
        elif hasattr(estimator, "feature_names_in_"):
            del estimator.feature_names_in_
        return
    fitted = getattr(estimator, "feature_names_in_", None)
    cls = type(estimator).__name__
    if names is None and fitted is None:
        return
    if fitted is None:
        warnings.warn(
            f"X has feature names, but {cls} was fitted without feature names",
            UserWarning,
            stacklevel=3,
        )
        return
    if names is None:
        warnings.warn(
            f"X does not have valid feature names, but {cls} was fitted with "
            "feature names",
            UserWarning,
            stacklevel=3,
        )
        return
    if len(fitted) != len(names) or np.any(fitted != names):
        unexpected = sorted(set(names) - set(fitted))
        missing = sorted(set(fitted) - set(names))
        message = "The feature names should match those that were passed during fit.\n"
        if unexpected:
            message += "Feature names unseen at fit time:\n" + "".join(
                f"- {name}\n" for name in unexpected
            )
        if missing:
            message += "Feature names seen at fit time, yet now missing:\n" + "".join(
                f"- {name}\n" for name in missing
            )
        if not unexpected and not missing:
            message += "Feature names must be in the same order as they were in fit.\n"
        raise ValueError(message)


def _shape_errors(arr, name):
    if arr.ndim == 0:
        raise ValueError(
            f"Expected 2D array, got scalar array instead:\narray={arr!r}.\n"
            "Reshape your data either using array.reshape(-1, 1) if your data has a "
            "single feature or array.reshape(1, -1) if it contains a single sample."
        )
    if arr.ndim == 1:
        raise ValueError(
            f"Expected 2D array, got 1D array instead:\narray={arr!r}.\n"
            "Reshape your data either using array.reshape(-1, 1) if your data has a "
            "single feature or array.reshape(1, -1) if it contains a single sample."
        )
    if arr.ndim > 2:
        raise ValueError(f"Found array with dim {arr.ndim}. {name} expected <= 2.")
    if arr.shape[0] == 0:
        raise ValueError(
            f"Found array with 0 sample(s) (shape={arr.shape}) while a minimum of 1 "
            f"is required by {name}."
        )
    if arr.shape[1] == 0:
        raise ValueError(
            f"Found array with 0 feature(s) (shape={arr.shape}) while a minimum of 1 "
            f"is required by {name}."
        )


def check_dense_X(X, name):
    """Validate a dense numeric X; return a C-contiguous float32 or float64 array.

    float32 and float64 arrays are used as they are (copied once only when not
    C-contiguous); integers, bools and numeric objects become float64.
    Finiteness is not checked here: the kernels detect it in their own pass.
    """
    if is_sparse(X):
        raise TypeError(
            "Sparse data was passed for X, but dense data is required. Use "
            f"'.toarray()' to convert to a dense numpy array: {name} does not "
            "accept sparse input."
        )
    arr = X if isinstance(X, np.ndarray) else np.asarray(X)
    kind = arr.dtype.kind
    if kind == "c":
        raise ValueError(f"Complex data not supported\n{arr!r}\n")
    if kind in "mM":
        raise TypeError(f"{name} needs numeric X, got dtype {arr.dtype}.")
    _shape_errors(arr, name)
    if arr.dtype != np.float64 and arr.dtype != np.float32:
        if kind in "USO" or kind == "V":
            try:
                arr = arr.astype(np.float64)
            except ValueError as error:
                raise ValueError(f"{name} needs numeric X: {error}") from error
        else:
            arr = arr.astype(np.float64)
    return np.ascontiguousarray(arr)


def check_y(y, n_samples, name):
    """Validate a 1d target of length n_samples; return it as an ndarray."""
    if y is None:
        raise ValueError(f"{name} requires y to be passed, but the target y is None.")
    if is_sparse(y):
        raise TypeError(f"{name} needs a dense 1d y, got a sparse matrix.")
    y = np.asarray(y)
    if y.ndim == 2 and y.shape[1] == 1:
        warnings.warn(
            "A column-vector y was passed when a 1d array was expected. Please change "
            "the shape of y to (n_samples, ), for example using ravel().",
            DataConversionWarning,
            stacklevel=3,
        )
        y = y.ravel()
    if y.ndim != 1:
        raise ValueError(
            f"y should be a 1d array, got an array of shape {y.shape} instead."
        )
    if y.shape[0] != n_samples:
        raise ValueError(
            "Found input variables with inconsistent numbers of samples: "
            f"[{n_samples}, {y.shape[0]}]"
        )
    kind = y.dtype.kind
    if kind == "c":
        raise ValueError("Complex data not supported in y.")
    if kind == "f":
        finite = np.isfinite(y)
        if not finite.all():
            what = "NaN" if np.isnan(y).any() else "infinity"
            raise ValueError(f"Input y contains {what}.")
        if np.any(y != np.floor(y)):
            raise ValueError(
                "Unknown label type: continuous. Maybe you are trying to fit a "
                "classifier, which expects discrete classes on a regression target "
                "with continuous values."
            )
    elif kind == "O":
        for value in y:
            if value is None or (isinstance(value, float) and value != value):
                raise ValueError("Input y contains missing values (None or NaN).")
            if isinstance(value, float) and value != int(value):
                raise ValueError(
                    "Unknown label type: continuous. Maybe you are trying to fit a "
                    "classifier, which expects discrete classes on a regression "
                    "target with continuous values."
                )
    elif kind in "mMV":
        raise ValueError(f"Unknown label type: {y.dtype} labels are not supported.")
    return y


def check_sample_weight(sample_weight, n_samples):
    """Validate sample weights: finite, non-negative, shape (n_samples,), float64."""
    if sample_weight is None:
        return None
    try:
        weights = np.asarray(sample_weight, dtype=np.float64)
    except (TypeError, ValueError) as error:
        raise ValueError(f"sample_weight must be numeric: {error}") from error
    if weights.ndim == 0:
        weights = np.full(n_samples, float(weights))
    if weights.ndim != 1:
        raise ValueError("Sample weights must be 1D array or scalar")
    if weights.shape != (n_samples,):
        raise ValueError(
            f"sample_weight.shape == {weights.shape}, expected {(n_samples,)}!"
        )
    if not np.isfinite(weights).all():
        raise ValueError("Input sample_weight contains NaN or infinity.")
    if (weights < 0).any():
        raise ValueError("Negative values in data passed to sample_weight")
    return np.ascontiguousarray(weights)
