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

__version__ = "0.1.0"

from ._categorical import CategoricalNB
from ._gaussian import GaussianNB
from ._threads import effective_n_threads, openmp_enabled, show_config
from ._validation import DataConversionWarning, NotFittedError

__all__ = [
    "CategoricalNB",
    "DataConversionWarning",
    "GaussianNB",
    "NotFittedError",
    "__version__",
    "effective_n_threads",
    "openmp_enabled",
    "show_config",
]
