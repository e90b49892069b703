"""Small data sets shipped inside the package, so that demos need no download."""

from importlib import resources

import numpy as np

__all__ = ["load_iris"]

IRIS_FEATURE_NAMES = ("sepal_length", "sepal_width", "petal_length", "petal_width")
IRIS_TARGET_NAMES = ("setosa", "versicolor", "virginica")


def load_iris(*, return_X_y=False):
    """Load Fisher's Iris data set (public domain), bundled with fastnb.

    Parameters
    ----------
    return_X_y : bool, default=False
        If True, return ``(X, y)`` instead of a dict.

    Returns
    -------
    data : dict or tuple
        ``X`` of shape (150, 4) float64 in centimetres, ``y`` of shape (150,) with
        integer codes 0, 1, 2; as a dict also ``feature_names`` and
        ``target_names`` (setosa, versicolor, virginica). The values equal
        scikit-learn's ``load_iris``.

    Examples
    --------
    >>> from fastnb.datasets import load_iris
    >>> X, y = load_iris(return_X_y=True)
    >>> X.shape, y.shape
    ((150, 4), (150,))
    """
    text = resources.files("fastnb").joinpath("data", "iris.csv").read_text("ascii")
    rows = [line.split(",") for line in text.strip().splitlines()[1:]]
    X = np.array([[float(value) for value in row[:4]] for row in rows])
    y = np.array([IRIS_TARGET_NAMES.index(row[4]) for row in rows], dtype=np.int64)
    if return_X_y:
        return X, y
    return {
        "data": X,
        "target": y,
        "feature_names": list(IRIS_FEATURE_NAMES),
        "target_names": np.array(IRIS_TARGET_NAMES),
    }
