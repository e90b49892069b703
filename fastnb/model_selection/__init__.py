"""Parameter searches that fit each split once: scikit-learn's ``GridSearchCV``
and ``RandomizedSearchCV``, for fastnb models and pipelines that end in one.

A naive Bayes model's statistics (counts, means, variances) do not depend on
``alpha``, ``fit_prior``, ``class_prior``, ``priors``, ``var_smoothing`` or
ComplementNB's ``norm``: the candidates that differ only in those are made from
one fit per split by the model's ``with_params``. This module needs
scikit-learn (the ``model_selection`` extra); ``import fastnb`` does not import
it.
"""

try:
    import sklearn  # noqa: F401
except ImportError as error:  # pragma: no cover - depends on the environment
    raise ImportError(
        "fastnb.model_selection needs scikit-learn: pip install "
        "'fastnb[model_selection]'") from error

from ._search import GridSearchCV, RandomizedSearchCV  # noqa: E402

__all__ = ["GridSearchCV", "RandomizedSearchCV"]
