"""A split's rows of X for the search: the training rows of a model that fits on
X's rows in place (no copy), copied only when something else reads them; the
held-out rows of an ndarray X, copied into one buffer that every split reuses."""

import numpy as np

from sklearn.utils import _safe_indexing


def _rows_fit_X(base, X):
    """X as the fastnb model's ``_fit_rows`` reads it (validated once for the
    whole search), when ``base`` is a model that fits on X's rows in place;
    else None (each split fits on a copy of its training rows)."""
    rows_fit_X = getattr(base, "_rows_fit_X", None)
    return None if rows_fit_X is None else rows_fit_X(X)


def _row_indices(train, n_samples):
    """A split's training rows as an intp array of indices in [0, n_samples)
    (a boolean mask or negative indices made so), or None where they are not
    such (the split's fit then takes the copy, and fails as scikit-learn's)."""
    rows = np.asarray(train)
    if rows.dtype == bool:
        if rows.shape != (n_samples,) or not rows.any():
            return None
        return np.flatnonzero(rows)
    if rows.ndim != 1 or rows.shape[0] == 0 or rows.dtype.kind not in "iu":
        return None
    rows = rows.astype(np.intp, copy=False)
    if rows.min() < -n_samples or rows.max() >= n_samples:
        return None
    return np.where(rows < 0, rows + n_samples, rows) if rows.min() < 0 else rows


class _LazyRows:
    """X's rows of a split, copied (``_safe_indexing``) when first asked for."""

    def __init__(self, X, rows):
        self._X, self._rows, self._copy = X, rows, None

    def get(self):
        if self._copy is None:
            self._copy = _safe_indexing(self._X, self._rows)
        return self._copy


class _HeldOutRows:
    """The held-out rows of each split of an ndarray X, copied into one buffer
    of the largest split's size (a split's rows are read only while it is
    evaluated)."""

    def __init__(self, X, splits):
        self._X = X
        self._buffer = np.empty((max(len(test) for _, test in splits),) + X.shape[1:],
                                dtype=X.dtype)

    def take(self, test):
        rows = _row_indices(test, self._X.shape[0])
        if rows is None:
            return None
        # (mode="clip": the indices are checked; "raise" copies through a buffer)
        return np.take(self._X, rows, axis=0, out=self._buffer[:rows.shape[0]],
                       mode="clip")
