"""Small data sets shipped inside the package, so that demos need no download."""

from importlib import resources

import numpy as np

__all__ = ["load_iris", "load_penguins"]

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


PENGUINS_FEATURE_NAMES = ("island", "bill_length_mm", "bill_depth_mm",
                          "flipper_length_mm", "body_mass_g", "sex", "year")
PENGUINS_TARGET_NAMES = ("Adelie", "Chinstrap", "Gentoo")
_PENGUINS_NUMERIC = ("bill_length_mm", "bill_depth_mm", "flipper_length_mm",
                     "body_mass_g")


def load_penguins(*, return_X_y=False, as_frame=False):
    """Load the Palmer penguins (CC0), a small real table of mixed columns with
    missing values, bundled with fastnb.

    344 penguins of three species (Adelie, Chinstrap, Gentoo) observed on three
    islands of the Palmer Archipelago, Antarctica, 2007-2009 (Gorman, Williams
    and Fraser, 2014; packaged by Horst, Hill and Gorman, 2020). Columns: the
    island (str), four measurements (float: bill length and depth in mm,
    flipper length in mm, body mass in g), the sex (str) and the year (int).
    Eleven rows have missing values (two have no measurement at all), marked
    NaN in the floats and None (``pd.NA`` in a frame) in the sex.

    Parameters
    ----------
    return_X_y : bool, default=False
        If True, return ``(X, y)`` instead of a dict.
    as_frame : bool, default=False
        If True, X is a pandas DataFrame (str columns for the island and the
        sex, float64 measurements, int64 year; needs pandas); otherwise a
        (344, 7) object array of Python str, float and int values.

    Returns
    -------
    data : dict or tuple
        ``X``, and ``y`` of shape (344,), the species names (str); as a dict also
        ``feature_names`` and ``target_names``.

    Examples
    --------
    >>> from fastnb.datasets import load_penguins
    >>> X, y = load_penguins(return_X_y=True)
    >>> X.shape, sorted(set(y.tolist()))
    ((344, 7), ['Adelie', 'Chinstrap', 'Gentoo'])
    >>> X[3]
    array(['Torgersen', nan, nan, nan, nan, None, 2007], dtype=object)
    """
    text = resources.files("fastnb").joinpath("data", "penguins.csv").read_text("ascii")
    lines = text.strip().splitlines()
    header = lines[0].split(",")
    rows = [line.split(",") for line in lines[1:]]
    y = np.array([row[0] for row in rows])
    X = np.empty((len(rows), len(PENGUINS_FEATURE_NAMES)), dtype=object)
    for j, name in enumerate(PENGUINS_FEATURE_NAMES):
        values = [row[header.index(name)] for row in rows]
        if name in _PENGUINS_NUMERIC:
            X[:, j] = [float("nan") if v == "NA" else float(v) for v in values]
        elif name == "year":
            X[:, j] = [int(v) for v in values]
        else:
            X[:, j] = [None if v == "NA" else v for v in values]
    if as_frame:
        import pandas as pd

        X = pd.DataFrame({
            name: pd.array(X[:, j], dtype="str") if name in ("island", "sex")
            else X[:, j].astype(np.int64 if name == "year" else np.float64)
            for j, name in enumerate(PENGUINS_FEATURE_NAMES)
        })
    if return_X_y:
        return X, y
    return {
        "data": X,
        "target": y,
        "feature_names": list(PENGUINS_FEATURE_NAMES),
        "target_names": np.array(PENGUINS_TARGET_NAMES),
    }
