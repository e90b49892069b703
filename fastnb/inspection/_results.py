"""The result types of fastnb.inspection: plain NumPy arrays, with a long-form
pandas DataFrame on request."""

import numpy as np


def _pandas():
    try:
        import pandas
    except ImportError as error:  # pragma: no cover - pandas is a test dependency
        raise ImportError("to_frame() needs pandas: pip install pandas") from error
    return pandas


class TopContributions:
    """The largest contributions to one row's log-odds of two classes, per row.

    Returned by :func:`fastnb.inspection.top_contributions`. For every row,
    ``log_odds == base + values.sum() + (the contributions of the features not
    shown)``: the log-odds of ``explained`` against ``against`` split exactly into
    a base (what the model gives every row) and one term a feature.

    Attributes
    ----------
    explained : ndarray of shape (n_rows,)
        The class explained for each row (the predicted class, or the first of
        the two classes asked for).
    against : ndarray of shape (n_rows,)
        The class it is compared with (the runner-up, or the second asked for).
    log_odds : ndarray of shape (n_rows,)
        ``jll[explained] - jll[against]``, from ``predict_joint_log_proba``.
    base : ndarray of shape (n_rows,)
        The base of ``explained`` less that of ``against`` (see
        :func:`fastnb.inspection.contributions`).
    features : ndarray of shape (n_rows, n), dtype int64
        The column index of each contribution, largest ``|value|`` first; -1
        where a row has fewer than n features that contribute.
    names : ndarray of shape (n_rows, n), dtype object
        Their names ("" where ``features`` is -1).
    values : ndarray of shape (n_rows, n)
        Their contributions to the log-odds (positive: for ``explained``); 0.0
        where ``features`` is -1.

    Examples
    --------
    >>> import numpy as np
    >>> from fastnb import MultinomialNB
    >>> from fastnb.inspection import top_contributions
    >>> X = np.array([[3, 0, 1], [0, 2, 2], [4, 1, 0]])
    >>> model = MultinomialNB().fit(X, ["a", "b", "a"])
    >>> top = top_contributions(model, X[:1], n=2, feature_names=["x", "y", "z"])
    >>> top.explained, top.against
    (array(['a'], dtype='<U1'), array(['b'], dtype='<U1'))
    >>> top.names
    array([['x', 'z']], dtype=object)
    """

    def __init__(self, explained, against, log_odds, base, features, names, values):
        self.explained = explained
        self.against = against
        self.log_odds = log_odds
        self.base = base
        self.features = features
        self.values = values
        # names: an array, or a callable that makes it on first use (a million
        # default "x123" strings cost more than the explanation itself)
        self._names = names

    @property
    def names(self):
        if callable(self._names):
            self._names = self._names()
        return self._names

    def __len__(self):
        return self.features.shape[0]

    @property
    def nbytes(self):
        """Bytes of the result's numeric arrays (names excluded)."""
        return sum(getattr(self, name).nbytes for name in (
            "explained", "against", "log_odds", "base", "features", "values"))

    def __repr__(self):
        n_rows, n = self.features.shape
        return f"TopContributions({n_rows} rows, top {n})"

    def to_frame(self):
        """The contributions as a long pandas DataFrame.

        Returns
        -------
        frame : pandas.DataFrame
            One line a (row, rank) with a feature: columns ``row``, ``rank``,
            ``explained``, ``against``, ``feature``, ``name``, ``value``.

        Examples
        --------
        >>> import numpy as np
        >>> from fastnb import BernoulliNB
        >>> from fastnb.inspection import top_contributions
        >>> X = np.array([[1, 0], [0, 1], [1, 1]])
        >>> model = BernoulliNB().fit(X, [0, 1, 0])
        >>> top_contributions(model, X[:1], n=2).to_frame().columns.tolist()
        ['row', 'rank', 'explained', 'against', 'feature', 'name', 'value']
        """
        pandas = _pandas()
        n_rows, n = self.features.shape
        keep = self.features.ravel() >= 0
        rows = np.repeat(np.arange(n_rows), n)[keep]
        return pandas.DataFrame({
            "row": rows,
            "rank": np.tile(np.arange(n), n_rows)[keep],
            "explained": self.explained[rows],
            "against": self.against[rows],
            "feature": self.features.ravel()[keep],
            "name": self.names.ravel()[keep],
            "value": self.values.ravel()[keep],
        })


class InformativeFeatures:
    """The most informative features of each class of a fitted model.

    Returned by :func:`fastnb.inspection.informative_features`.

    Attributes
    ----------
    classes : ndarray of shape (n_classes,)
        The model's ``classes_``.
    features : ndarray of shape (n_classes, n), dtype int64
        Per class, the column index of its n best features, best first; -1 where
        fewer than n features have a positive score.
    names : ndarray of shape (n_classes, n), dtype object
        Their names ("" for -1); for CategoricalNB, ``"name=category"``.
    scores : ndarray of shape (n_classes, n)
        Their scores (0.0 for -1).
    score : str
        What the score is, for this model.
    categories : ndarray of shape (n_classes, n), dtype object, or None
        CategoricalNB (and ColumnwiseNB's categorical columns): the category of
        each entry; None for the other models.
    score_kinds : ndarray of shape (n_classes, n), dtype object
        The kind of each entry's score ("" for -1): ``"counts"`` (MultinomialNB,
        BernoulliNB: a log-probability ratio), ``"complement"``, ``"gaussian"``
        (a standardised mean difference) or ``"categorical"`` (a log-probability
        ratio). One kind for a single model; for ColumnwiseNB each entry has its
        sub-model's, and entries of different kinds, ranked together by
        ``|score|``, are not of one unit.

    Examples
    --------
    >>> import numpy as np
    >>> from fastnb import MultinomialNB
    >>> from fastnb.inspection import informative_features
    >>> X = np.array([[3, 0, 1], [0, 2, 2], [4, 1, 0]])
    >>> model = MultinomialNB().fit(X, ["a", "b", "a"])
    >>> informative_features(model, n=1, feature_names=["x", "y", "z"]).names
    array([['x'],
           ['y']], dtype=object)
    """

    def __init__(self, classes, features, names, scores, score, categories=None,
                 score_kinds=None):
        self.classes = classes
        self.features = features
        self.names = names
        self.scores = scores
        self.score = score
        self.categories = categories
        self.score_kinds = score_kinds

    def __repr__(self):
        k, n = self.features.shape
        return f"InformativeFeatures({k} classes, top {n}; score: {self.score})"

    def to_frame(self):
        """The features as a long pandas DataFrame.

        Returns
        -------
        frame : pandas.DataFrame
            One line a (class, rank) with a feature: columns ``class``, ``rank``,
            ``feature``, ``name``, ``score``, ``score_kind``.

        Examples
        --------
        >>> import numpy as np
        >>> from fastnb import GaussianNB
        >>> from fastnb.inspection import informative_features
        >>> X = np.array([[0.0, 1.0], [0.1, 1.2], [2.0, 1.1], [2.2, 0.9]])
        >>> model = GaussianNB().fit(X, [0, 0, 1, 1])
        >>> informative_features(model, n=1).to_frame()["name"].tolist()
        ['x0', 'x0']
        """
        pandas = _pandas()
        k, n = self.features.shape
        keep = self.features.ravel() >= 0
        return pandas.DataFrame({
            "class": np.repeat(self.classes, n)[keep],
            "rank": np.tile(np.arange(n), k)[keep],
            "feature": self.features.ravel()[keep],
            "name": self.names.ravel()[keep],
            "score": self.scores.ravel()[keep],
            "score_kind": (self.score_kinds.ravel()[keep] if self.score_kinds is not
                           None else np.full(int(keep.sum()), "", dtype=object)),
        })
