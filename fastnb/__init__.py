"""fastnb: compiled, OpenMP-parallel Naive Bayes classifiers.

A drop-in for ``sklearn.naive_bayes``: the same estimators, parameters, fitted
attributes and outputs, computed by one-pass Cython kernels. scikit-learn is not
imported by ``import fastnb``.

Examples
--------
>>> import fastnb
>>> from fastnb.datasets import load_iris
>>> X, y = load_iris(return_X_y=True)
>>> model = fastnb.GaussianNB().fit(X, y)
>>> round(model.score(X, y), 2)
0.96
"""

import os as _os

try:
    # First: fastnb/_version.py exists only in a build (meson writes it), so its
    # absence means this is the source tree, not an installed fastnb.
    from ._version import __version__
except ModuleNotFoundError as _error:
    if _error.name != __name__ + "._version":
        raise
    raise ImportError(
        f"fastnb was imported from its source tree ({_os.path.dirname(__file__)}), "
        "which has no compiled build: Python puts the current folder first on "
        "its path. Run Python with -P (`python -P ...`, as the README does) or "
        "from outside the clone to use the installed fastnb, or install the "
        "clone editable (`pip install --no-build-isolation -e .`)."
    ) from None

from ._categorical import CategoricalNB
from ._columnwise import ColumnwiseNB
from ._discrete import BernoulliNB, ComplementNB, MultinomialNB
from ._gaussian import GaussianNB
from ._kde import KernelDensityNB
from ._parametric import ExponentialNB, GammaNB, LogNormalNB, PoissonNB
from ._persist import load, merge
from ._threads import effective_n_threads, openmp_enabled, show_config
from ._validation import DataConversionWarning, NotFittedError


def get_include():
    """The folder to add to Cython's include path to cimport fastnb's kernels.

    ``from fastnb.cython_kernels cimport ...`` needs ``fastnb/cython_kernels.pxd``
    on Cython's include path; pass this folder with ``--include-dir`` (meson:
    ``cython_args``), as with ``numpy.get_include()``.

    Returns
    -------
    path : str

    Examples
    --------
    >>> import os, fastnb
    >>> os.path.isdir(fastnb.get_include())
    True
    """
    return _os.path.dirname(_os.path.dirname(_os.path.abspath(__file__)))


__all__ = [
    "BernoulliNB",
    "CategoricalNB",
    "ColumnwiseNB",
    "ComplementNB",
    "DataConversionWarning",
    "ExponentialNB",
    "GammaNB",
    "GaussianNB",
    "KernelDensityNB",
    "LogNormalNB",
    "MultinomialNB",
    "NotFittedError",
    "PoissonNB",
    "__version__",
    "effective_n_threads",
    "get_include",
    "load",
    "merge",
    "openmp_enabled",
    "show_config",
]
