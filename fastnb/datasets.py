"""Small data sets shipped inside the package, so that demos need no download.

The loaders are shaped as scikit-learn's ``load_iris``: a :class:`Bunch` (keys
and attributes) of ``data``, ``target``, ``feature_names``, ``target_names``,
``frame`` and ``DESCR``; ``return_X_y=True`` for ``(data, target)``;
``as_frame=True`` for a pandas DataFrame and Series (pandas is imported then
only).
"""

from importlib import resources

import numpy as np

__all__ = ["Bunch", "load_iris", "load_penguins"]

IRIS_FEATURE_NAMES = ("sepal_length", "sepal_width", "petal_length", "petal_width")
IRIS_TARGET_NAMES = ("setosa", "versicolor", "virginica")

_IRIS_DESCR = """\
Fisher's Iris data set
======================

150 iris flowers of three species (setosa, versicolor, virginica), 50 each,
with four measurements in centimetres: sepal length and width, petal length
and width. R. A. Fisher (1936), "The use of multiple measurements in taxonomic
problems", Annals of Eugenics 7(2): 179-188. Public domain. The values are
those distributed with scikit-learn's ``load_iris`` (which corrects two entries
of the UCI copy). ``target`` holds the codes 0, 1, 2 of ``target_names``.
"""

_PENGUINS_DESCR = """\
Palmer penguins
===============

344 penguins of three species (Adelie, Chinstrap, Gentoo) observed on three
islands of the Palmer Archipelago, Antarctica, 2007-2009. Columns: the island
(str), bill length and depth (mm), flipper length (mm), body mass (g), the sex
(str) and the year (int). Eleven rows have missing values (two have no
measurement at all). ``target`` holds the species names.

Gorman, Williams and Fraser (2014), PLoS ONE 9(3): e90081; data from the
Palmer Station Antarctica LTER, packaged by Horst, Hill and Gorman (2020,
``palmerpenguins`` 0.1.6). CC0 1.0 (public domain dedication).
"""


class Bunch(dict):
    """A dict whose keys are also attributes, as scikit-learn's ``Bunch``.

    What the :mod:`fastnb.datasets` loaders return: ``bunch["data"]`` and
    ``bunch.data`` are the same object.

    Parameters
    ----------
    **fields
        The keys and their values.

    Examples
    --------
    >>> from fastnb.datasets import Bunch
    >>> bunch = Bunch(data=[1, 2], target=[0, 1])
    >>> bunch.data is bunch["data"]
    True
    >>> bunch.name = "tiny"
    >>> bunch["name"]
    'tiny'
    """

    def __init__(self, **fields):
        super().__init__(fields)

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None

    def __setattr__(self, name, value):
        self[name] = value

    def __delattr__(self, name):
        try:
            del self[name]
        except KeyError:
            raise AttributeError(name) from None

    def __dir__(self):
        return list(self.keys()) + list(super().__dir__())

    def __setstate__(self, state):
        # (pickles of a dict subclass restore its items; no attribute state)
        pass


def _bunch(data, target, feature_names, target_names, target_name, descr, filename,
           *, return_X_y, as_frame, frame_data):
    """The loaders' common tail: pandas objects when asked, then the tuple or the
    Bunch. ``frame_data()`` builds the DataFrame of the features."""
    frame = None
    if as_frame:
        import pandas as pd

        data = frame_data(pd)
        target = pd.Series(target, name=target_name)
        frame = pd.concat([data, target], axis=1)
    if return_X_y:
        return data, target
    return Bunch(data=data, target=target, frame=frame,
                 feature_names=list(feature_names),
                 target_names=np.array(target_names), DESCR=descr,
                 filename=filename, data_module="fastnb.data")


def _check_flags(return_X_y, as_frame):
    for name, value in (("return_X_y", return_X_y), ("as_frame", as_frame)):
        if not isinstance(value, (bool, np.bool_)):
            raise TypeError(f"{name} must be a bool, got {value!r}.")


def load_iris(*, return_X_y=False, as_frame=False):
    """Load Fisher's Iris data set (public domain), bundled with fastnb.

    Shaped as scikit-learn's ``load_iris`` (the same values; the feature names
    are ``sepal_length``, ... rather than ``sepal length (cm)``, ...).

    Parameters
    ----------
    return_X_y : bool, default=False
        If True, return ``(data, target)`` instead of a Bunch.
    as_frame : bool, default=False
        If True, ``data`` is a pandas DataFrame (columns ``feature_names``),
        ``target`` a pandas Series named ``"target"``, and ``frame`` the two
        side by side (needs pandas).

    Returns
    -------
    data : Bunch or tuple
        A :class:`Bunch` (keys and attributes) of ``data`` of shape (150, 4)
        float64 in centimetres, ``target`` of shape (150,) with the integer codes
        0, 1, 2 of ``target_names`` (setosa, versicolor, virginica),
        ``feature_names``, ``frame`` (None unless ``as_frame``), ``DESCR``,
        ``filename`` and ``data_module``; or ``(data, target)``.

    Examples
    --------
    >>> from fastnb.datasets import load_iris
    >>> X, y = load_iris(return_X_y=True)
    >>> X.shape, y.shape
    ((150, 4), (150,))
    >>> iris = load_iris()
    >>> iris.target_names[iris.target[-1]], iris.feature_names[0]
    (np.str_('virginica'), 'sepal_length')
    """
    _check_flags(return_X_y, as_frame)
    text = resources.files("fastnb").joinpath("data", "iris.csv").read_text("ascii")
    rows = [line.split(",") for line in text.strip().splitlines()[1:]]
    X = np.array([[float(value) for value in row[:4]] for row in rows])
    y = np.array([IRIS_TARGET_NAMES.index(row[4]) for row in rows], dtype=np.int64)
    return _bunch(X, y, IRIS_FEATURE_NAMES, IRIS_TARGET_NAMES, "target", _IRIS_DESCR,
                  "iris.csv", return_X_y=return_X_y, as_frame=as_frame,
                  frame_data=lambda pd: pd.DataFrame(X, columns=list(IRIS_FEATURE_NAMES)))


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
        If True, return ``(data, target)`` instead of a Bunch.
    as_frame : bool, default=False
        If True, ``data`` is a pandas DataFrame (str columns for the island and
        the sex, float64 measurements, int64 year), ``target`` a pandas Series
        named ``"species"``, and ``frame`` the two side by side (needs pandas);
        otherwise ``data`` is a (344, 7) object array of Python str, float and
        int values and ``target`` a NumPy array.

    Returns
    -------
    data : Bunch or tuple
        A :class:`Bunch` (keys and attributes) of ``data``, ``target`` of shape
        (344,), the species names (str), ``feature_names``, ``target_names``,
        ``frame`` (None unless ``as_frame``), ``DESCR``, ``filename`` and
        ``data_module``; or ``(data, target)``.

    Examples
    --------
    >>> from fastnb.datasets import load_penguins
    >>> X, y = load_penguins(return_X_y=True)
    >>> X.shape, sorted(set(y.tolist()))
    ((344, 7), ['Adelie', 'Chinstrap', 'Gentoo'])
    >>> X[3]
    array(['Torgersen', nan, nan, nan, nan, None, 2007], dtype=object)
    >>> load_penguins().feature_names[-1]
    'year'
    """
    _check_flags(return_X_y, as_frame)
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

    def frame_data(pd):
        return pd.DataFrame({
            name: pd.array(X[:, j], dtype="str") if name in ("island", "sex")
            else X[:, j].astype(np.int64 if name == "year" else np.float64)
            for j, name in enumerate(PENGUINS_FEATURE_NAMES)
        })

    return _bunch(X, y, PENGUINS_FEATURE_NAMES, PENGUINS_TARGET_NAMES, "species",
                  _PENGUINS_DESCR, "penguins.csv", return_X_y=return_X_y,
                  as_frame=as_frame, frame_data=frame_data)
