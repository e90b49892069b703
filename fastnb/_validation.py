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
    "CSRInput",
    "check_counts_X",
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


def plain(value):
    """value for a message: NumPy scalars (also inside lists, tuples and arrays)
    as the Python values they hold, so that a message shows 6 and 'a', not
    np.int64(6) and np.str_('a')."""
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, (list, tuple)):
        return type(value)(plain(v) for v in value)
    return value


def is_sparse(X):
    """Whether X is a SciPy sparse matrix or array, detected without importing SciPy."""
    module = type(X).__module__
    return module.startswith("scipy.sparse") and hasattr(X, "format")


def feature_names_of(X):
    """Column names of a dataframe as an object array, or None (scikit-learn's rules)."""
    if isinstance(X, np.ndarray) or not hasattr(X, "columns"):
        return None
    # A pyarrow Table's .columns are its column arrays; its names are column_names.
    names = X.column_names if type(X).__module__.startswith("pyarrow") else X.columns
    names = np.asarray(names, dtype=object)
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


def _strings_error(arr, name):
    """The error for an array of strings or bytes given as numeric X. As in
    scikit-learn: numbers written as strings ("1.5") are not numbers; an object
    array of them is converted, as scikit-learn converts it."""
    return ValueError(
        f"{name} needs numeric X, got an array of dtype {arr.dtype}: dtype='numeric' "
        "is not compatible with arrays of bytes/strings. Convert your data to "
        "numeric values explicitly instead (e.g. X.astype(float)); categories as "
        "strings belong to CategoricalNB or ColumnwiseNB."
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
    if kind in "USV":
        raise _strings_error(arr, name)
    if arr.dtype != np.float64 and arr.dtype != np.float32:
        if kind == "O":
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


# -- discrete models: dense arrays read in their own dtype, sparse CSR read in place ---

# Dense dtypes the discrete kernels read without conversion (bool is read as uint8).
_KERNEL_DTYPES = frozenset(
    np.dtype(t) for t in (np.float64, np.float32, np.uint8, np.int8, np.int16,
                          np.int32, np.int64)
)
# The smallest kernel dtype that holds every value of these dtypes.
_WIDEN = {
    np.dtype(np.uint16): np.dtype(np.int32),
    np.dtype(np.uint32): np.dtype(np.int64),
    np.dtype(np.uint64): np.dtype(np.float64),
    np.dtype(np.float16): np.dtype(np.float32),
}


class CSRInput:
    """A validated CSR matrix as the raw arrays the kernels read.

    ``data`` is float32 or float64; ``indices`` and ``indptr`` share one dtype,
    int32 or int64. ``shape`` is (n_samples, n_features). ``source`` is the CSR
    matrix the arrays belong to (kept so they stay alive).
    """

    __slots__ = ("data", "indices", "indptr", "shape", "source")

    def __init__(self, data, indices, indptr, shape, source):
        self.data = data
        self.indices = indices
        self.indptr = indptr
        self.shape = shape
        self.source = source

    @property
    def ndim(self):
        return 2


def check_counts_X(X, name, *, canonical=False):
    """Validate X for a discrete model: a kernel-ready ndarray or a ``CSRInput``.

    Dense arrays keep their dtype when a kernel reads it (float32/64, bool, uint8,
    int8/16/32/64; kernels read bool as uint8 through a view); other
    numeric dtypes are widened to the smallest kernel dtype that holds them;
    object arrays become float64. Only a non-C-contiguous array is copied.

    Sparse matrices are never densified: CSR is read in place, CSC/COO (and the
    other formats) are converted once to CSR. Data of a dtype other than float32/64
    is converted to float64 (an O(nnz) copy of ``data`` only). With
    ``canonical=True`` a matrix with duplicate or unsorted indices is canonicalised
    on a copy (duplicates summed), which thresholding needs.

    Finiteness and signs are not checked here: the kernels do it in their pass.
    """
    if is_sparse(X):
        return _check_csr(X, name, canonical)
    arr = X if isinstance(X, np.ndarray) else np.asarray(X)
    kind = arr.dtype.kind
    if kind == "c":
        raise ValueError(f"Complex data not supported\n{arr!r}\n")
    if kind in "mM":
        raise TypeError(f"{name} needs numeric X, got dtype {arr.dtype}.")
    _shape_errors(arr, name)
    dtype = arr.dtype
    if kind == "b":
        return np.ascontiguousarray(arr)
    if dtype.byteorder not in ("=", "|"):
        arr = arr.astype(dtype.newbyteorder("="))
        dtype = arr.dtype
    if kind in "USV":
        raise _strings_error(arr, name)
    if dtype not in _KERNEL_DTYPES:
        if kind == "O":
            try:
                arr = arr.astype(np.float64)
            except ValueError as error:
                raise ValueError(f"{name} needs numeric X: {error}") from error
        elif dtype in _WIDEN:
            arr = arr.astype(_WIDEN[dtype])
        else:
            arr = arr.astype(np.float64)
    return np.ascontiguousarray(arr)


def ready_csr(X, canonical=False):
    """A ``CSRInput`` for a SciPy CSR matrix or array that the kernels can read as
    it is (float32/64 data, int32 or int64 indices and row pointers of one dtype,
    at least one row and one column, canonical if asked), else None: the fast
    path of small predict calls, where the general checks cost more than the
    kernel. None sends the caller to ``check_counts_X``, which validates in full.
    """
    kind = type(X)
    if kind not in _CSR_TYPES:
        if kind.__name__ not in _CSR_TYPE_NAMES or not kind.__module__.startswith("scipy.sparse"):
            return None
        _CSR_TYPES.add(kind)
    data, indices, indptr = X.data, X.indices, X.indptr
    index_dtype = indices.dtype
    shape = X.shape
    if (data.dtype.char not in "fd" or index_dtype.kind != "i"
            or index_dtype.itemsize not in (4, 8) or indptr.dtype != index_dtype
            or shape[0] == 0 or shape[1] == 0
            or indptr.shape[0] != shape[0] + 1 or data.shape[0] != indices.shape[0]
            or not (data.flags.c_contiguous and indices.flags.c_contiguous
                    and indptr.flags.c_contiguous)
            or (canonical and not X.has_canonical_format)):
        return None
    return CSRInput(data, indices, indptr, shape, X)


_CSR_TYPE_NAMES = ("csr_matrix", "csr_array")
# the classes found to be SciPy's CSR types (by the check above, which costs more
# than a 1-document predict's other checks), without importing SciPy here
_CSR_TYPES = set()


def _check_csr(X, name, canonical):
    if X.ndim != 2:
        raise ValueError(f"{name} needs a 2d sparse matrix, got ndim={X.ndim}.")
    if X.format != "csr":
        X = X.tocsr()
        # the conversion sums duplicates and sorts indices
    n_samples, n_features = X.shape
    if n_samples == 0:
        raise ValueError(
            f"Found array with 0 sample(s) (shape={X.shape}) while a minimum of 1 "
            f"is required by {name}."
        )
    if n_features == 0:
        raise ValueError(
            f"Found array with 0 feature(s) (shape={X.shape}) while a minimum of 1 "
            f"is required by {name}."
        )
    if X.dtype.kind == "c":
        raise ValueError(f"Complex data not supported\n{X!r}\n")
    if canonical and not X.has_canonical_format:
        X = X.copy()
        X.sum_duplicates()  # sorts the indices and sums the duplicates
    data, indices, indptr = X.data, X.indices, X.indptr
    if data.dtype != np.float64 and data.dtype != np.float32:
        try:
            data = data.astype(np.float64)
        except (TypeError, ValueError) as error:
            raise ValueError(f"{name} needs numeric X: {error}") from error
    index_dtype = np.int32
    if indices.dtype != np.int32 or indptr.dtype != np.int32:
        index_dtype = np.int64
    indices = np.ascontiguousarray(indices, dtype=index_dtype)
    indptr = np.ascontiguousarray(indptr, dtype=index_dtype)
    data = np.ascontiguousarray(data)
    if indptr.shape[0] != n_samples + 1 or data.shape[0] != indices.shape[0]:
        raise ValueError(f"{name} got a malformed CSR matrix: inconsistent arrays.")
    return CSRInput(data, indices, indptr, (n_samples, n_features), X)
