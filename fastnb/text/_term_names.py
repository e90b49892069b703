"""The terms behind a HashingVectorizer's columns, recorded on request."""

import numpy as np

from .. import _text_kernels
from ._counting import CountVectorizer

# the analysis parameters a HashingVectorizer shares with CountVectorizer: the
# recorder analyses documents exactly as the vectorizer does
_ANALYSIS = ("input", "encoding", "decode_error", "strip_accents", "lowercase",
             "preprocessor", "tokenizer", "stop_words", "token_pattern",
             "ngram_range", "analyzer", "n_threads")


class HashedTermNames:
    """Recover the terms behind the columns of a ``HashingVectorizer``.

    A hashing vectorizer keeps no vocabulary: column j is the hash of every term
    that falls there. This records, from documents you show it (``fit`` or
    ``partial_fit``: the training documents, or a sample), which terms land in
    each column and how often, and names each column by its most frequent
    terms, ``"a | b"`` when several collide (most frequent first). A term whose
    hash sign is negative (``alternate_sign=True``) is shown as ``"-term"``: its
    count enters the column subtracted. A column never seen is named ``"x<j>"``.

    Memory is bounded: at most ``max_terms`` terms are kept a column (a fuller
    column keeps those with the largest counts so far, so the ranking is exact
    while a column has at most ``max_terms`` distinct terms, and approximate
    beyond: a term dropped earlier starts again from its new count). The
    documents are analysed by the compiled ``CountVectorizer`` with the
    vectorizer's own analysis parameters; the vectorizer itself is not changed
    and not slowed.

    The prior art is eli5's ``InvertableHashingVectorizer``. Pass the recorder
    as ``feature_names`` to :mod:`fastnb.inspection`'s functions.

    Parameters
    ----------
    vectorizer : fastnb.text.HashingVectorizer
        The vectorizer whose columns are named.
    max_terms : int, default=3
        Terms kept a column.

    Attributes
    ----------
    n_documents_ : int
        Documents recorded so far.

    Examples
    --------
    >>> from fastnb.text import HashingVectorizer, HashedTermNames
    >>> vectorizer = HashingVectorizer(n_features=8, alternate_sign=False)
    >>> names = HashedTermNames(vectorizer).fit(["free offer", "free free meeting"])
    >>> column = vectorizer.transform(["free"]).indices[0]
    >>> names.get_feature_names_out()[column]
    'free'
    >>> names.get_feature_names_out().shape
    (8,)
    """

    def __init__(self, vectorizer, *, max_terms=3):
        self.vectorizer = vectorizer
        self.max_terms = max_terms

    def _check(self):
        from ._hashing import HashingVectorizer

        if not isinstance(self.vectorizer, HashingVectorizer):
            raise TypeError("HashedTermNames names the columns of a "
                            "fastnb.text.HashingVectorizer, not "
                            f"{type(self.vectorizer).__name__}.")
        if (not isinstance(self.max_terms, (int, np.integer))
                or isinstance(self.max_terms, bool) or self.max_terms < 1):
            raise ValueError(f"max_terms must be an int >= 1, got {self.max_terms!r}.")

    def fit(self, X, y=None):
        """Forget what was recorded, then record the terms of documents X.

        Parameters
        ----------
        X : iterable of str
            Documents, as the vectorizer takes them.
        y : ignored

        Returns
        -------
        self : HashedTermNames
        """
        self._check()
        self._columns = {}
        self.n_documents_ = 0
        return self.partial_fit(X)

    def partial_fit(self, X, y=None):
        """Record the terms of documents X, adding to what was recorded.

        Parameters
        ----------
        X : iterable of str
        y : ignored

        Returns
        -------
        self : HashedTermNames
        """
        self._check()
        if not hasattr(self, "_columns"):
            self._columns = {}
            self.n_documents_ = 0
        docs = X if isinstance(X, list) else list(X)
        params = self.vectorizer.get_params()
        counter = CountVectorizer(**{name: params[name] for name in _ANALYSIS})
        try:
            counts = counter.fit_transform(docs)
        except ValueError as error:
            if "empty vocabulary" not in str(error):
                raise
            self.n_documents_ += len(docs)
            return self
        terms = counter.get_feature_names_out()
        totals = np.asarray(counts.sum(axis=0)).ravel()
        _, columns, signs, _ = _text_kernels.hash_features(
            [[term] for term in terms], int(self.vectorizer.n_features),
            bool(self.vectorizer.alternate_sign))
        keep = int(self.max_terms)
        store = self._columns
        for term, column, sign, total in zip(terms.tolist(), columns.tolist(),
                                             signs.tolist(), totals.tolist()):
            name = term if sign > 0 else "-" + term
            entries = store.setdefault(column, {})
            entries[name] = entries.get(name, 0) + total
            if len(entries) > keep:
                # drop the least frequent (the last name among equals)
                del entries[min(entries, key=lambda t: (entries[t], _Reversed(t)))]
        self.n_documents_ += len(docs)
        return self

    def get_feature_names_out(self, input_features=None):
        """The name of every column of the vectorizer.

        Returns
        -------
        names : ndarray of shape (n_features,), dtype object
        """
        self._check_fitted()
        n_features = int(self.vectorizer.n_features)
        names = np.array([f"x{j}" for j in range(n_features)], dtype=object)
        for column, entries in self._columns.items():
            names[column] = _joined(entries)
        return names

    def _check_fitted(self):
        if not hasattr(self, "_columns"):
            raise ValueError("HashedTermNames is not fitted: call fit or partial_fit "
                             "with documents first.")

    # fastnb.inspection's protocol for names made on demand: a result names only
    # the columns it shows, not all 2**20 (get_feature_names_out()'s cost)
    def _n_names(self):
        self._check_fitted()
        return int(self.vectorizer.n_features)

    def _names_of(self, columns):
        """``get_feature_names_out()[columns]``, naming only these columns."""
        self._check_fitted()
        store = self._columns
        out = np.empty(len(columns), dtype=object)
        for i, column in enumerate(np.asarray(columns).tolist()):
            entries = store.get(column)
            out[i] = f"x{column}" if entries is None else _joined(entries)
        return out


def _joined(entries):
    """A column's name: its terms, most frequent first (ties by term)."""
    return " | ".join(sorted(entries, key=lambda t: (-entries[t], t)))


class _Reversed:
    """Orders strings backwards (ties among the least frequent drop the last)."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value

    def __lt__(self, other):
        return self.value > other.value

    def __eq__(self, other):
        return self.value == other.value
