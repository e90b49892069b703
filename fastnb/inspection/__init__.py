"""Exact explanations of fastnb's predictions (mirroring ``sklearn.inspection``).

A naive Bayes model's joint log likelihood is a sum over features,
``jll[i, c] = base[c] + sum_j term(c, j, X[i, j])``, so every prediction splits
exactly into one contribution a feature. This module gives

- :func:`contributions`: every contribution (dense X: an (n, k, d) array; CSR X:
  one CSR matrix a class, with X's sparsity pattern);
- :func:`top_contributions`: per row, the largest contributions to the log-odds
  of the predicted class against the runner-up (or of two named classes), by a
  compiled kernel that never holds all contributions;
- :func:`informative_features`: the most informative features of each class of
  a whole model;
- :func:`plot_informative_features` and :func:`plot_contributions` (matplotlib,
  optional): the two standard pictures.

Importing it imports nothing but NumPy and fastnb; pandas (``to_frame``) and
matplotlib (the plots) are imported when used.
"""

from numbers import Integral

import numpy as np

from .._validation import CSRInput
from ._informative import _n_candidates, informative, named
from ._names import names_at, resolve_feature_names
from ._plot import plot_contributions, plot_informative_features
from ._results import InformativeFeatures, TopContributions
from ._terms import ColumnwiseTerms, terms_class, terms_of

__all__ = [
    "InformativeFeatures",
    "TopContributions",
    "contributions",
    "informative_features",
    "plot_contributions",
    "plot_informative_features",
    "top_contributions",
]


def _check_fitted(model):
    terms_class(model)
    model._check_fitted()


def _check_n(n, largest):
    """n, at most ``largest`` (a model of fewer features lists them all)."""
    if not isinstance(n, Integral) or isinstance(n, bool):
        raise TypeError(f"n must be an int, got {n!r}.")
    if n < 1:
        raise ValueError(f"n must be at least 1, got {n}.")
    return min(int(n), largest)


def contributions(model, X, *, by_estimator=False):
    """Each feature's exact contribution to each class's joint log likelihood.

    For every row i and class c,
    ``base[i, c] + values[i, c, :].sum() == model.predict_joint_log_proba(X)[i, c]``
    (up to the rounding of the sums' order). The base is what the model gives
    every row:

    - GaussianNB, MultinomialNB, ComplementNB, CategoricalNB, PoissonNB,
      ExponentialNB, GammaNB, LogNormalNB, KernelDensityNB: the class's log prior
      (ComplementNB: its bias, the log prior with one class, else 0);
    - BernoulliNB: the log prior plus ``sum_j log(1 - p_cj)``, what every feature
      adds when absent; a present feature then contributes
      ``log p_cj - log(1 - p_cj)``;
    - ColumnwiseNB: its log prior plus each sub-model's base less the log prior
      that sub-model includes.

    A feature's contribution is its term of the likelihood: a zero count adds
    nothing to MultinomialNB and ComplementNB, a missing value (NaN) adds nothing
    to the likelihood (for BernoulliNB its contribution takes back the absent
    term its base holds, ``-log(1 - p_cj)``), an unseen category adds the
    smoothed probability CategoricalNB gives it, and a value out of a
    parametric model's support (a negative value; zero for GammaNB and
    LogNormalNB) adds nothing, as in its ``predict``.

    Parameters
    ----------
    model : fitted fastnb estimator
        GaussianNB, BernoulliNB, MultinomialNB, ComplementNB, CategoricalNB,
        PoissonNB, ExponentialNB, GammaNB, LogNormalNB or ColumnwiseNB.
    X : array-like of shape (n_samples, n_features), or a SciPy CSR matrix
        The rows to explain, as ``model.predict`` takes them.
    by_estimator : bool, default=False
        ColumnwiseNB only: also return each sub-model's part.

    Returns
    -------
    base : ndarray of shape (n_samples, n_classes)
    values : ndarray of shape (n_samples, n_classes, n_features), or list of CSR
        For CSR input (the count models), a list of n_classes CSR matrices of X's
        shape and sparsity pattern: only X's stored entries, never a dense
        (n, k, d) array.
    parts : dict, only with ``by_estimator=True``
        ``{name: (base, columns, values)}`` per sub-model of a ColumnwiseNB: its
        own base (with its log prior), its columns, and its (n, k, len(columns))
        contributions.

    Examples
    --------
    >>> import numpy as np
    >>> from fastnb import GaussianNB
    >>> from fastnb.inspection import contributions
    >>> X = np.array([[0.0, 1.0], [0.2, 1.5], [2.0, 0.0], [2.5, 0.4]])
    >>> model = GaussianNB().fit(X, [0, 0, 1, 1])
    >>> base, values = contributions(model, X)
    >>> values.shape
    (4, 2, 2)
    >>> bool(np.allclose(base + values.sum(axis=2), model.predict_joint_log_proba(X)))
    True
    """
    _check_fitted(model)
    terms = terms_of(model, X)
    base = np.tile(np.asarray(terms.base, dtype=np.float64), (terms.n_samples, 1))
    if isinstance(terms.X, CSRInput):
        data = terms.csr()
        source = terms.X.source
        kind = type(source) if source is not None else _csr_matrix()
        indices = np.array(terms.X.indices)
        indptr = np.array(terms.X.indptr)
        values = [kind((data[c], indices, indptr), shape=terms.X.shape)
                  for c in range(terms.k)]
    else:
        values = terms.dense()
    if by_estimator:
        if not isinstance(terms, ColumnwiseTerms):
            raise ValueError("by_estimator=True is for a ColumnwiseNB, not "
                             f"{type(model).__name__}.")
        parts = {name: (np.tile(part_base, (terms.n_samples, 1)), columns, part_values)
                 for name, (part_base, columns, part_values)
                 in terms.by_estimator().items()}
        return base, values, parts
    return base, values


def _csr_matrix():
    from scipy.sparse import csr_matrix
    return csr_matrix


def top_contributions(model, X, n=10, *, classes=None, feature_names=None):
    """Per row, the features that most moved the prediction, with their names.

    The log-odds of ``explained`` against ``against``,
    ``jll[explained] - jll[against]``, is ``base`` plus one contribution a
    feature (:func:`contributions`' values of the two classes, subtracted); this
    returns, per row, the n largest by absolute value (positive: for
    ``explained``), computed by a compiled kernel that keeps n per row and never
    holds all contributions. A feature that contributes exactly 0 (a zero count)
    is never listed.

    Parameters
    ----------
    model : fitted fastnb estimator
    X : array-like of shape (n_samples, n_features), or a SciPy CSR matrix
    n : int, default=10
        How many features per row (all of them when the model has fewer).
    classes : None or a pair of labels, default=None
        None: each row's predicted class against its runner-up (the model needs
        two classes at least). ``(a, b)``: a against b for every row.
    feature_names : None, array-like of str, or an object with ``get_feature_names_out()``, default=None
        A name for each of the ``n_features_in_`` columns (for example a fitted
        ``fastnb.text.CountVectorizer`` or ``fastnb.text.HashedTermNames``).
        None: the model's ``feature_names_in_`` when it has them, else "x0", "x1", ...

    Returns
    -------
    top : TopContributions

    Examples
    --------
    >>> import numpy as np
    >>> from fastnb import MultinomialNB
    >>> from fastnb.inspection import top_contributions
    >>> X = np.array([[3, 0, 1], [0, 2, 2], [4, 1, 0]])
    >>> model = MultinomialNB().fit(X, ["spam", "ham", "spam"])
    >>> top = top_contributions(model, [[2, 0, 1]], n=2,
    ...                         feature_names=["free", "meeting", "offer"])
    >>> top.explained.tolist(), top.against.tolist(), top.names[0].tolist()
    (['spam'], ['ham'], ['free', 'offer'])
    >>> bool(np.isclose(top.base[0] + top.values[0].sum(), top.log_odds[0]))
    True
    """
    _check_fitted(model)
    n = _check_n(n, model.n_features_in_)
    names = resolve_feature_names(model, feature_names)
    k = model.classes_.shape[0]
    if classes is None:
        if k < 2:
            raise ValueError("top_contributions needs a model of two classes or more "
                             "(or classes=(a, b)).")
        pair = None
    else:
        labels = list(classes) if not isinstance(classes, str) else None
        if labels is None or len(labels) != 2:
            raise ValueError(f"classes must be a pair of labels (a, b), got {classes!r}.")
        pair = [_class_index(model, label) for label in labels]
    terms = terms_of(model, X, deferred=True)
    first, second, log_odds, features, values = terms.scored_top(pair, n)
    base = np.asarray(terms.base, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        base_diff = base[first] - base[second]
    return TopContributions(model.classes_[first], model.classes_[second], log_odds,
                            base_diff, features, lambda: names_at(names, features),
                            values)


def _class_index(model, label):
    found = np.flatnonzero(model.classes_ == label) if np.ndim(label) == 0 else []
    if len(found) != 1:
        raise ValueError(f"{label!r} is not one of the model's classes_: "
                         f"{model.classes_.tolist()!r}.")
    return int(found[0])


def informative_features(model, n=20, *, feature_names=None):
    """The most informative features of each class of a fitted model.

    The score of feature j for class c compares c with the other classes, mixed
    by their priors (``InformativeFeatures.score`` says which, per model):

    - MultinomialNB, BernoulliNB: ``log P(x_j | c) - log P(x_j | not c)``, with P
      the weight of one occurrence (the probability of the feature,
      MultinomialNB; the odds of its presence, BernoulliNB); positive scores
      only, largest first;
    - ComplementNB: its weight for c less the prior-weighted mean of the other
      classes' weights; positive scores only;
    - GaussianNB: the standardised mean difference, ``(theta_cj - mean of the
      other classes' theta_j) / the pooled within-class standard deviation``,
      largest ``|score|`` first (signed);
    - CategoricalNB: per (feature, category) pair,
      ``log P(x_j = v | c) - log P(x_j = v | not c)``; positive scores only;
    - ColumnwiseNB: each column's sub-model's score, largest ``|score|`` first.
      The scores of different sub-models are not of one unit (a GaussianNB
      column's standardised mean difference beside a CategoricalNB column's
      log-probability ratio): ranking them on one axis is a convention, not a
      comparison of like with like. ``score_kinds`` marks each entry's kind,
      and :func:`plot_informative_features` colours and labels them so.

    For the models of counts, a class's candidates are the features it has a
    count of (a feature never seen with a class tells nothing of it, whatever
    its smoothed weight); they are scored by a compiled pass, O(d k) over dense
    counts, O(k + entries) over the sparse count table (a model of 2**20 hashed
    features: its non-zero counts only).

    Parameters
    ----------
    model : fitted fastnb estimator
    n : int, default=20
        How many features per class (all of them when the model has fewer;
        CategoricalNB: (feature, category) pairs).
    feature_names : as in :func:`top_contributions`

    Returns
    -------
    result : InformativeFeatures

    Examples
    --------
    >>> import numpy as np
    >>> from fastnb import MultinomialNB
    >>> from fastnb.inspection import informative_features
    >>> X = np.array([[3, 0, 1], [0, 2, 2], [4, 1, 0]])
    >>> model = MultinomialNB().fit(X, ["spam", "ham", "spam"])
    >>> best = informative_features(model, n=1, feature_names=["free", "meeting", "offer"])
    >>> best.classes.tolist(), best.names[:, 0].tolist()
    (['ham', 'spam'], ['meeting', 'free'])
    """
    _check_fitted(model)
    n = _check_n(n, _n_candidates(model))
    names = resolve_feature_names(model, feature_names)
    features, scores, score, categories, kinds = informative(model, n)
    return InformativeFeatures(model.classes_, features,
                               named(model, features, names, categories), scores,
                               score, categories, kinds)
