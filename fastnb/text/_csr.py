"""SciPy CSR assembly for fastnb.text: the matrix from the kernels' arrays, with
scikit-learn's index dtypes, containers and value normalisation. SciPy is
imported on first use only (``import fastnb.text`` needs NumPy alone)."""

import sys

import numpy as np


def _scipy_sparse():
    try:
        import scipy.sparse
    except ImportError as error:
        raise ImportError(
            "fastnb.text returns SciPy sparse matrices and needs SciPy, which is not "
            'installed: pip install "fastnb[text]" (from a clone of fastnb: pip install '
            '".[text]"; or pip install scipy).'
        ) from error
    return scipy.sparse


def _csr(sp, data, indices, indptr, shape, dtype=None):
    """A CSR matrix, or a CSR array when scikit-learn (if it is loaded) is set
    to the sparse-array interface; the arrays are not copied unless ``dtype``
    makes SciPy cast the data."""
    container = sp.csr_matrix
    sklearn = sys.modules.get("sklearn")
    if sklearn is not None:
        try:
            if sklearn.get_config().get("sparse_interface") == "sparray":
                container = sp.csr_array
        except Exception:  # pragma: no cover - an unusual scikit-learn
            pass
    return container((data, indices, indptr), shape=shape, dtype=dtype, copy=False)


def _check_sparse_dtype(sp, dtype):
    """Raise SciPy's error for a dtype its sparse arrays do not support (float16,
    object, ...), as scikit-learn's matrix construction does."""
    sp.csr_array((0, 0), dtype=dtype)


def _index_arrays(indices, indptr):
    """CSR index arrays as scikit-learn builds them: int32, or int64 when the
    entries outnumber int32."""
    index_dtype = np.int64 if indptr[-1] > np.iinfo(np.int32).max else np.int32
    return indices.astype(index_dtype, copy=False), indptr.astype(index_dtype, copy=False)



def _normalize_python(data, indptr, norm):
    """scikit-learn's ``normalize`` for the norms the kernel does not do ('max')."""
    if norm == "max":
        lengths = np.diff(indptr)
        filled = lengths > 0
        norms = np.zeros(len(lengths), dtype=data.dtype)
        if data.size:
            starts = indptr[:-1][filled]
            norms[filled] = np.maximum.reduceat(np.abs(data), starts)
        elementwise = norms.repeat(lengths)
        mask = elementwise != 0
        data[mask] /= elementwise[mask]
        return data
    raise ValueError(f"'{norm}' is not a supported norm")


def _wide_counts(dtype):
    """Whether the kernels should give int64 counts: for an int64 matrix (the
    default), which is then made without a copy; for another dtype SciPy casts
    int32 counts, as scikit-learn's are."""
    try:
        return dtype is not None and np.dtype(dtype) == np.int64
    except TypeError:
        return False

