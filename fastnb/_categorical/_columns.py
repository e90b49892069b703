"""Column blocks: X split into pieces the kernels read as they are, per column kind.

A NumPy array becomes one block: numeric (read without a copy when its dtype is a
kernel dtype) or object. A DataFrame of one numeric dtype is one numeric block
too; any other DataFrame is a block per column: numeric, object (strings,
mixtures), or a pandas Categorical, whose categories are keyed once and whose
*pandas positions* (``.cat.codes``: the position of each value among the
Categorical's categories, -1 when missing) say which one each row holds.
"""

from dataclasses import dataclass

import numpy as np

from .._validation import _shape_errors, is_sparse, plain

__all__ = ["Columns", "NumericBlock", "ObjectBlock", "PandasCategoricalColumn",
           "column_label", "raise_unhashable", "split_columns", "KERNEL_DTYPES"]

# The dtypes the compiled kernels read directly (one fused specialisation each).
KERNEL_DTYPES = frozenset(
    np.dtype(t)
    for t in (
        np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32,
        np.int64, np.uint64, np.float32, np.float64,
    )
)


@dataclass(frozen=True)
class NumericBlock:
    """Numeric columns: column i of ``values`` (n, m), C-contiguous in a kernel
    dtype, is feature ``features[i]``."""

    values: np.ndarray
    features: np.ndarray


@dataclass(frozen=True)
class ObjectBlock:
    """Python objects: column i of ``values`` (n, m), a writeable object array, is
    feature ``features[i]``."""

    values: np.ndarray
    features: np.ndarray


@dataclass(frozen=True)
class PandasCategoricalColumn:
    """A pandas Categorical column: row i holds ``categories[positions[i]]``
    (nothing where positions[i] is -1)."""

    positions: np.ndarray
    categories: np.ndarray
    feature: int


@dataclass(frozen=True)
class Columns:
    """X as blocks, with its shape."""

    n_samples: int
    n_features: int
    blocks: tuple

    @property
    def single_numeric(self):
        """The whole of X is one numeric array."""
        return len(self.blocks) == 1 and isinstance(self.blocks[0], NumericBlock)


def numeric_2d(arr):
    """A numeric array as the kernels read it: bools as uint8, other dtypes widened."""
    if arr.dtype.kind == "b":
        arr = arr.view(np.uint8)
    elif arr.dtype.kind == "f" and arr.dtype not in KERNEL_DTYPES:
        arr = arr.astype(np.float64)
    elif arr.dtype not in KERNEL_DTYPES:
        arr = arr.astype(np.int64 if arr.dtype.kind == "i" else np.uint64)
    return np.ascontiguousarray(arr)


def _writeable(arr):
    # Cython object memoryviews cannot be const: copy read-only object arrays.
    return arr if arr.flags.writeable else arr.copy()


def _all_features(n_features):
    return np.arange(n_features, dtype=np.intp)


def split_columns(X, name):
    """Split X (array-like or DataFrame) into kernel-readable blocks."""
    if isinstance(X, np.ndarray) and X.ndim == 2 and X.dtype in KERNEL_DTYPES and \
            X.flags.c_contiguous and X.shape[0] and X.shape[1]:
        # What the kernels read as it is (the small-call path: no other check).
        return Columns(X.shape[0], X.shape[1],
                       (NumericBlock(X, _all_features(X.shape[1])),))
    if is_sparse(X):
        raise TypeError(
            "Sparse data was passed for X, but dense data is required. Use "
            f"'.toarray()' to convert to a dense numpy array: {name} does not "
            "accept sparse input."
        )
    if hasattr(X, "columns") and hasattr(X, "dtypes") and hasattr(X, "iloc"):
        return _dataframe_columns(X, name)
    arr = X if isinstance(X, np.ndarray) else np.asarray(X)
    if arr.dtype.kind in "US" and not isinstance(X, np.ndarray):
        # Lists that mix strings and numbers would be stringified by np.asarray.
        arr = np.asarray(X, dtype=object)
    _shape_errors(arr, name)
    n_samples, n_features = arr.shape
    if arr.dtype.kind == "c":
        raise ValueError(f"Complex data not supported\n{arr!r}\n")
    if arr.dtype.kind in "biuf":
        block = NumericBlock(numeric_2d(arr), _all_features(n_features))
    else:
        values = arr if arr.dtype.kind == "O" else arr.astype(object)
        block = ObjectBlock(_writeable(values), _all_features(n_features))
    return Columns(n_samples, n_features, (block,))


def _dataframe_columns(X, name):
    shape = X.shape
    if len(shape) != 2:
        raise ValueError(f"Found array with dim {len(shape)}. {name} expected <= 2.")
    n_samples, n_features = shape
    for size, what in ((n_samples, "sample"), (n_features, "feature")):
        if size == 0:
            raise ValueError(
                f"Found array with 0 {what}(s) (shape={shape}) while a minimum of 1 "
                f"is required by {name}."
            )
    dtypes = list(X.dtypes)
    if all(isinstance(dt, np.dtype) and dt.kind in "biuf" for dt in dtypes) and (
        len(set(dtypes)) == 1
    ):
        block = NumericBlock(numeric_2d(np.asarray(X.to_numpy())),
                             _all_features(n_features))
        return Columns(n_samples, n_features, (block,))
    blocks = []
    for j, dtype in enumerate(dtypes):
        column = X.iloc[:, j]
        feature = np.array([j], dtype=np.intp)
        if type(dtype).__name__ == "CategoricalDtype":
            positions = np.asarray(column.cat.codes.to_numpy(), dtype=np.int64)
            categories = np.asarray(column.cat.categories.to_numpy(dtype=object))
            blocks.append(PandasCategoricalColumn(positions, _writeable(categories), j))
        elif isinstance(dtype, np.dtype) and dtype.kind in "biuf":
            values = np.asarray(column.to_numpy()).reshape(-1, 1)
            blocks.append(NumericBlock(numeric_2d(values), feature))
        else:
            values = np.asarray(column.to_numpy(dtype=object)).reshape(-1, 1)
            blocks.append(ObjectBlock(_writeable(values), feature))
    return Columns(n_samples, n_features, tuple(blocks))


def column_label(names, j):
    """How errors name column j: its index, and its name when X had names."""
    return f"{j} ({plain(names[j])!r})" if names is not None else f"{j}"


def raise_unhashable(column, j, names):
    """The TypeError for a column holding an unhashable value, naming the value."""
    for value in column:
        try:
            hash(value)
        except TypeError:
            raise TypeError(
                f"X column {column_label(names, j)} holds an unhashable value "
                f"{plain(value)!r} of type {type(value).__name__}: every category value "
                "must be hashable (the argument must be a string, bytes, a number "
                "or another hashable value)."
            ) from None
    raise TypeError(f"X column {column_label(names, j)} holds an unhashable value.")
