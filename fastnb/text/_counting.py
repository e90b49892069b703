"""``fastnb.text.CountVectorizer``: token counts over a learnt (or given)
vocabulary, with scikit-learn's document-frequency pruning."""

import warnings
from collections import defaultdict
from collections.abc import Mapping
from numbers import Integral
from operator import itemgetter

import numpy as np

from .. import _text_kernels
from .._validation import not_fitted_error
from ._base import _TextVectorizer
from ._csr import _check_sparse_dtype, _csr, _index_arrays, _scipy_sparse, _wide_counts
from ._params import (
    COUNT_CONSTRAINTS,
    DEFAULT_TOKEN_PATTERN,
    VECTORIZER_PARAMETERS,
    raw_documents_expected,
)


def _python_count_vocab(analyze, docs, vocabulary, fixed):
    """scikit-learn's dictionary counting, for features that Python analysed:
    ``(indptr, ids, counts, vocabulary)`` with ids in first-appearance order."""
    if not fixed:
        vocabulary = defaultdict()
        vocabulary.default_factory = vocabulary.__len__
    ids, counts, indptr = [], [], [0]
    for doc in docs:
        counter = {}
        for feature in analyze(doc):
            try:
                index = vocabulary[feature]
            except KeyError:
                continue
            counter[index] = counter.get(index, 0) + 1
        ids.extend(counter)
        counts.extend(counter.values())
        indptr.append(len(ids))
    indptr = np.asarray(indptr, dtype=np.int64)
    ids = np.asarray(ids, dtype=np.int64)
    counts = np.asarray(counts, dtype=np.intc)
    if len(ids):  # sort each row by index, as csr sort_indices does
        rows = np.repeat(np.arange(len(indptr) - 1), np.diff(indptr))
        order = np.lexsort((ids, rows))
        ids, counts = ids[order], counts[order]
    return indptr, ids, counts, vocabulary


class CountVectorizer(_TextVectorizer):
    __doc__ = """Convert documents to a matrix of token counts (compiled).

    A drop-in for scikit-learn's ``CountVectorizer``: the same parameters,
    attributes (``vocabulary_``, ``fixed_vocabulary_``) and methods, and the same
    matrix, bit for bit, including its layout (``fit_transform`` lists each row's
    terms in the order the corpus first used them, as scikit-learn's does;
    ``transform`` sorts them).

    Parameters
    ----------
""" + VECTORIZER_PARAMETERS + """\
    max_df : float in [0.0, 1.0] or int, default=1.0
        Drop terms in more documents than this (a fraction of the documents or a
        count). Ignored with a fixed vocabulary.
    min_df : float in [0.0, 1.0] or int, default=1
        Drop terms in fewer documents than this.
    max_features : int, default=None
        Keep only the terms most frequent in the corpus, this many.
    vocabulary : Mapping or iterable, default=None
        A fixed vocabulary: term -> column, or an iterable of terms.
    binary : bool, default=False
        Set every nonzero count to 1.
    dtype : dtype, default=np.int64
        The dtype of the matrix.
    n_threads : int or None, default=None
        Threads for the compiled analysis: None or -1 for all usable cores (see
        :func:`fastnb.effective_n_threads`). Every thread count gives the same
        matrix and vocabulary.

    Attributes
    ----------
    vocabulary_ : dict
        Term -> column.
    fixed_vocabulary_ : bool
        Whether the vocabulary was given.

    See Also
    --------
    HashingVectorizer : stateless, hashed columns.

    Notes
    -----
    ``fit_transform`` and ``transform`` need SciPy (``pip install "fastnb[text]"``).

    Examples
    --------
    >>> from fastnb.text import CountVectorizer
    >>> corpus = ["This is the first document.", "This document is the second one."]
    >>> vectorizer = CountVectorizer(ngram_range=(1, 2), max_features=5)
    >>> X = vectorizer.fit_transform(corpus)
    >>> vectorizer.get_feature_names_out()
    array(['document', 'is', 'is the', 'the', 'this'], dtype=object)
    >>> X.toarray()
    array([[1, 1, 1, 1, 1],
           [1, 1, 1, 1, 1]])
    """

    _CONSTRAINTS = COUNT_CONSTRAINTS

    def __init__(self, *, input="content", encoding="utf-8", decode_error="strict",
                 strip_accents=None, lowercase=True, preprocessor=None, tokenizer=None,
                 stop_words=None, token_pattern=DEFAULT_TOKEN_PATTERN,
                 ngram_range=(1, 1), analyzer="word", max_df=1.0, min_df=1,
                 max_features=None, vocabulary=None, binary=False, dtype=np.int64,
                 n_threads=None):
        self.input = input
        self.encoding = encoding
        self.decode_error = decode_error
        self.strip_accents = strip_accents
        self.preprocessor = preprocessor
        self.tokenizer = tokenizer
        self.analyzer = analyzer
        self.lowercase = lowercase
        self.token_pattern = token_pattern
        self.stop_words = stop_words
        self.max_df = max_df
        self.min_df = min_df
        self.max_features = max_features
        self.ngram_range = ngram_range
        self.vocabulary = vocabulary
        self.binary = binary
        self.dtype = dtype
        self.n_threads = n_threads

    def __sklearn_is_fitted__(self):
        return hasattr(self, "vocabulary_")

    def _validate_vocabulary(self):
        vocabulary = self.vocabulary
        if vocabulary is None:
            self.fixed_vocabulary_ = False
            return
        if isinstance(vocabulary, set):
            vocabulary = sorted(vocabulary)
        if not isinstance(vocabulary, Mapping):
            vocab = {}
            for i, t in enumerate(vocabulary):
                if vocab.setdefault(t, i) != i:
                    raise ValueError(f"Duplicate term in vocabulary: {t!r}")
            vocabulary = vocab
        else:
            indices = set(vocabulary.values())
            if len(indices) != len(vocabulary):
                raise ValueError("Vocabulary contains repeated indices.")
            for i in range(len(vocabulary)):
                if i not in indices:
                    raise ValueError(f"Vocabulary of size {len(vocabulary)} doesn't "
                                     f"contain index {i}.")
        if not vocabulary:
            raise ValueError("empty vocabulary passed to fit")
        self.fixed_vocabulary_ = True
        self.vocabulary_ = dict(vocabulary)

    def _check_vocabulary(self):
        if not hasattr(self, "vocabulary_"):
            self._validate_vocabulary()
            if not self.fixed_vocabulary_:
                raise not_fitted_error("Vocabulary not fitted or provided")
        if len(self.vocabulary_) == 0:
            raise ValueError("Vocabulary is empty")

    def _count(self, docs, fixed):
        """Analyze and count: ``(indptr, ids, counts, terms, rank)``.

        With a fixed vocabulary, ``ids`` are its indices, each row sorted by them.
        For a fit, ``terms`` lists the terms in order of first appearance in the
        corpus, ``rank`` gives each one's place in sorted order, and ``ids`` are
        those places; each row lists its terms in order of first appearance (the
        layout of scikit-learn's matrix)."""
        analyze = self.build_analyzer()
        plan = self._kernel_plan()
        result = None
        if plan is not None:
            vocabulary = None
            if fixed:
                items = self.vocabulary_.items()
                vocabulary = _text_kernels.TermSet([t for t, _ in items],
                                                   [i for _, i in items])
                mode = _text_kernels.MODE_FIXED
            else:
                mode = _text_kernels.MODE_FIT
            result = self._run_kernels(docs, plan, mode, vocabulary=vocabulary,
                                       wide_counts=_wide_counts(self.dtype))
        if result is not None:
            indptr, ids, counts, extra = result
            terms, rank = extra if extra is not None else (None, None)
        else:
            indptr, ids, counts, vocabulary = _python_count_vocab(
                analyze, docs, self.vocabulary_ if fixed else None, fixed)
            terms = rank = None
            if not fixed:
                terms = list(vocabulary)
                rank = np.empty(len(terms), dtype=np.int64)
                for position, (_, old) in enumerate(sorted(vocabulary.items())):
                    rank[old] = position
                ids = rank[ids]
        if not fixed and not terms:
            raise ValueError(
                "empty vocabulary; perhaps the documents only contain stop words")
        return indptr, ids, counts, terms, rank

    def _matrix(self, sp, indptr, ids, counts, n_columns):
        """csr of the counts, cast to ``dtype`` by SciPy as scikit-learn's is."""
        ids, indptr = _index_arrays(ids, indptr)
        _check_sparse_dtype(sp, np.dtype(self.dtype) if self.dtype is not None
                            else counts.dtype)
        X = _csr(sp, counts, ids, indptr, (len(indptr) - 1, n_columns), self.dtype)
        if self.binary:
            X.data.fill(1)
        return X

    def fit(self, raw_documents, y=None):
        """Learn the vocabulary of all tokens in the raw documents.

        Parameters
        ----------
        raw_documents : iterable
            str or bytes documents, file names or file objects (``input``).
        y : None
            Ignored.

        Returns
        -------
        self : CountVectorizer
            Fitted vectorizer.
        """
        self.fit_transform(raw_documents)
        return self

    def fit_transform(self, raw_documents, y=None):
        """Learn the vocabulary and return the document-term matrix.

        Parameters
        ----------
        raw_documents : iterable
            str or bytes documents, file names or file objects (``input``).
        y : None
            Ignored.

        Returns
        -------
        X : scipy.sparse CSR matrix of shape (n_samples, n_features)
            Document-term matrix.
        """
        self._validate_params()
        raw_documents_expected(raw_documents)
        self._validate_ngram_range()
        self._warn_for_unused_params()
        self._validate_vocabulary()
        max_df, min_df, max_features = self.max_df, self.min_df, self.max_features
        if self.fixed_vocabulary_ and self.lowercase:
            for term in self.vocabulary:
                if any(map(str.isupper, term)):
                    warnings.warn(
                        "Upper case characters found in vocabulary while 'lowercase' "
                        "is True. These entries will not be matched with any "
                        "documents")
                    break
        sp = _scipy_sparse()
        docs = raw_documents if isinstance(raw_documents, list) else list(raw_documents)
        fixed = self.fixed_vocabulary_
        indptr, ids, counts, terms, rank = self._count(docs, fixed)
        if fixed:
            return self._matrix(sp, indptr, ids, counts, len(self.vocabulary_))
        X = self._matrix(sp, indptr, ids, counts, len(terms))
        n_doc = X.shape[0]
        max_doc_count = max_df if isinstance(max_df, Integral) else max_df * n_doc
        min_doc_count = min_df if isinstance(min_df, Integral) else min_df * n_doc
        if max_doc_count < min_doc_count:
            raise ValueError("max_df corresponds to < documents than min_df")
        X, vocabulary = self._limit_features(sp, X, terms, rank, max_doc_count,
                                             min_doc_count, max_features)
        self.vocabulary_ = vocabulary
        return X

    def _limit_features(self, sp, X, terms, rank, high, low, limit):
        """Keep the terms in [low, high] documents (and the ``limit`` most
        frequent), numbered in sorted order; each row keeps its entries' order.

        This is scikit-learn's ``_sort_features`` and ``_limit_features`` on the
        matrix whose columns are numbered by first appearance."""
        n_terms = len(terms)
        sorted_ids = X.indices
        if high >= X.shape[0] and low <= 1 and (limit is None or limit >= n_terms):
            mask = None  # every term is in 1 to n_doc documents: nothing to prune
        else:
            dfs = np.bincount(sorted_ids, minlength=n_terms)
            mask = np.ones(n_terms, dtype=bool)
            mask &= dfs <= high
            mask &= dfs >= low
            if limit is not None and mask.sum() > limit:
                tfs = np.asarray(X.sum(axis=0)).ravel()
                mask_inds = (-tfs[mask]).argsort()[:limit]
                new_mask = np.zeros(n_terms, dtype=bool)
                new_mask[np.where(mask)[0][mask_inds]] = True
                mask = new_mask
        if mask is None:
            # scikit-learn's values: ints, numpy ints when max_features is set
            values = rank.tolist() if limit is None else list(rank)
            return X, dict(zip(terms, values))
        new_indices = np.cumsum(mask) - 1
        kept = np.flatnonzero(mask)
        if len(kept) == 0:
            raise ValueError(
                "After pruning, no terms remain. Try a lower min_df or a higher max_df.")
        keep_entry = mask[sorted_ids]
        indices = new_indices[sorted_ids[keep_entry]].astype(X.indices.dtype)
        data = X.data[keep_entry]
        kept_before = np.zeros(len(keep_entry) + 1, dtype=np.int64)
        np.cumsum(keep_entry, out=kept_before[1:])
        indptr = kept_before[X.indptr].astype(X.indptr.dtype)
        X = _csr(sp, data, indices, indptr, (X.shape[0], len(kept)))
        kept_terms = mask[rank]
        values = new_indices[rank[kept_terms]]
        # scikit-learn's dict: insertion in first-appearance order; values are
        # ints from its final renumbering (numpy ints when max_features is set)
        values = values.tolist() if limit is None else list(values)
        return X, dict(zip([t for t, k in zip(terms, kept_terms) if k], values))

    def transform(self, raw_documents):
        """Transform documents to a document-term matrix, with the vocabulary
        fitted (or given).

        Parameters
        ----------
        raw_documents : iterable
            str or bytes documents, file names or file objects (``input``).

        Returns
        -------
        X : scipy.sparse CSR matrix of shape (n_samples, n_features)
            Document-term matrix, with sorted indices.
        """
        raw_documents_expected(raw_documents)
        self._check_vocabulary()
        sp = _scipy_sparse()
        docs = raw_documents if isinstance(raw_documents, list) else list(raw_documents)
        indptr, ids, counts, _, _ = self._count(docs, True)
        return self._matrix(sp, indptr, ids, counts, len(self.vocabulary_))

    def inverse_transform(self, X):
        """Return the terms of each document's nonzero entries.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Document-term matrix.

        Returns
        -------
        X_original : list of arrays of shape (n_samples,)
            The terms of each row.
        """
        self._check_vocabulary()
        terms = np.array(list(self.vocabulary_.keys()))
        indices = np.array(list(self.vocabulary_.values()))
        inverse_vocabulary = terms[np.argsort(indices)]
        if hasattr(X, "tocsr") and hasattr(X, "nnz"):
            X = X.tocsr()
            return [inverse_vocabulary[X.indices[X.indptr[i]: X.indptr[i + 1]][
                X.data[X.indptr[i]: X.indptr[i + 1]] != 0]].ravel()
                for i in range(X.shape[0])]
        X = np.asarray(X)
        if X.ndim != 2:
            raise ValueError(f"Expected 2D array, got {X.ndim}D array instead.")
        return [inverse_vocabulary[np.flatnonzero(X[i, :])].ravel()
                for i in range(X.shape[0])]

    def get_feature_names_out(self, input_features=None):
        """Get output feature names for transformation.

        Parameters
        ----------
        input_features : array-like of str or None, default=None
            Not used, present here for API consistency by convention.

        Returns
        -------
        feature_names_out : ndarray of str objects
            The terms, in column order.
        """
        self._check_vocabulary()
        return np.asarray(
            [t for t, i in sorted(self.vocabulary_.items(), key=itemgetter(1))],
            dtype=object)
