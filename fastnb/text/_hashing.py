"""``fastnb.text.HashingVectorizer``: stateless hashed token counts."""

import numpy as np

from .. import _text_kernels
from .._threads import effective_n_threads
from . import _params
from ._base import _TextVectorizer
from ._csr import (
    _check_sparse_dtype,
    _csr,
    _index_arrays,
    _normalize_python,
    _scipy_sparse,
)
from ._params import (
    DEFAULT_TOKEN_PATTERN,
    HASHING_CONSTRAINTS,
    NORMS,
    VECTORIZER_PARAMETERS,
    is_int,
    raw_documents_expected,
)


class HashingVectorizer(_TextVectorizer):
    __doc__ = """Convert documents to a matrix of hashed token counts (compiled).

    A drop-in for scikit-learn's ``HashingVectorizer``: the same parameters and the
    same matrix, bit for bit. Each term's column is the MurmurHash3 (32-bit, seed
    0) of its UTF-8 bytes modulo ``n_features``, with the hash's sign when
    ``alternate_sign``; rows are then made binary and/or normalised. It is
    stateless: ``fit`` only validates the parameters.

    Parameters
    ----------
""" + VECTORIZER_PARAMETERS + """\
    n_features : int, default=2**20
        The number of columns.
    binary : bool, default=False
        Set every stored value to 1 (before normalisation).
    norm : {'l1', 'l2'} or None, default='l2'
        Normalise each row to unit l1 or l2 norm, or not. Use None in front of
        MultinomialNB or ComplementNB, which read counts (see the example).
    alternate_sign : bool, default=True
        Give each term the sign of its hash, so that collisions tend to cancel.
        Use ``False`` in front of MultinomialNB or ComplementNB, which need
        non-negative counts (see the example).
    dtype : type, default=np.float64
        The dtype of the matrix.
    n_threads : int or None, default=None
        Threads for the compiled analysis: None or -1 for all usable cores (see
        :func:`fastnb.effective_n_threads`). Every thread count gives the same
        matrix.

    See Also
    --------
    CountVectorizer : counts over a learnt vocabulary.

    Notes
    -----
    ``transform`` needs SciPy (``pip install "fastnb[text]"``).

    Examples
    --------
    >>> from fastnb.text import HashingVectorizer
    >>> corpus = ["This is the first document.", "Is this the second document?"]
    >>> X = HashingVectorizer(n_features=2**4).fit_transform(corpus)
    >>> X.shape
    (2, 16)
    >>> X.nnz  # 10 terms, but 16 columns make collisions
    8

    In front of a count model, pass ``alternate_sign=False, norm=None``: the
    matrix then holds the term counts (the defaults give signed, l2-normalised
    rows, which lose the counts and, on a small corpus, much of the accuracy):

    >>> from fastnb import MultinomialNB
    >>> train = ["the striker scored a goal", "a late goal won the final",
    ...          "shares fell as rates rose", "the bank raised its rates"]
    >>> topic = ["sport", "sport", "finance", "finance"]
    >>> vectorizer = HashingVectorizer(alternate_sign=False, norm=None)
    >>> counts = vectorizer.transform(train)
    >>> counts.toarray().sum(axis=1).tolist()  # words (of 2+ letters) per document
    [4.0, 5.0, 5.0, 5.0]
    >>> model = MultinomialNB().fit(counts, topic)
    >>> model.predict(vectorizer.transform(["a goal in the final", "rates fell"])).tolist()
    ['sport', 'finance']
    """

    _CONSTRAINTS = HASHING_CONSTRAINTS

    def __init__(self, *, input="content", encoding="utf-8", decode_error="strict",
                 strip_accents=None, lowercase=True, preprocessor=None, tokenizer=None,
                 stop_words=None, token_pattern=DEFAULT_TOKEN_PATTERN,
                 ngram_range=(1, 1), analyzer="word", n_features=(2**20), binary=False,
                 norm="l2", alternate_sign=True, dtype=np.float64, n_threads=None):
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
        self.n_features = n_features
        self.ngram_range = ngram_range
        self.binary = binary
        self.norm = norm
        self.alternate_sign = alternate_sign
        self.dtype = dtype
        self.n_threads = n_threads

    def partial_fit(self, X, y=None):
        """Only validate the parameters (the vectorizer is stateless).

        Parameters
        ----------
        X : iterable over raw text documents
            Ignored.
        y : None
            Ignored.

        Returns
        -------
        self : HashingVectorizer
        """
        self._validate_params()
        return self

    def fit(self, X, y=None):
        """Only validate the parameters (the vectorizer is stateless).

        Parameters
        ----------
        X : iterable over raw text documents
            Ignored, but a single str raises (documents must be an iterable).
        y : None
            Ignored.

        Returns
        -------
        self : HashingVectorizer
        """
        self._validate_params()
        raw_documents_expected(X)
        self._warn_for_unused_params()
        self._validate_ngram_range()
        return self

    def fit_transform(self, X, y=None):
        """Validate the parameters and transform the documents.

        Parameters
        ----------
        X : iterable over raw text documents, length n_samples
            str or bytes (``input='content'``), file names or file objects.
        y : None
            Ignored.

        Returns
        -------
        X : scipy.sparse CSR matrix of shape (n_samples, n_features)
            Document-term matrix.
        """
        return self.fit(X, y).transform(X)

    def transform(self, X):
        """Transform documents to a document-term matrix.

        Parameters
        ----------
        X : iterable over raw text documents, length n_samples
            str or bytes (``input='content'``), file names or file objects.

        Returns
        -------
        X : scipy.sparse CSR matrix of shape (n_samples, n_features)
            Document-term matrix, with sorted indices.
        """
        raw_documents_expected(X)
        self._validate_ngram_range()
        analyzer = self.build_analyzer()
        sp = _scipy_sparse()
        docs = X if isinstance(X, list) else list(X)
        n_features = self.n_features
        if not is_int(n_features) or not 1 <= n_features < np.iinfo(np.int32).max:
            raise ValueError("n_features must be an int in the range [1, 2147483647), "
                             f"got {n_features!r}.")
        dtype = np.dtype(self.dtype)
        alternate_sign = bool(self.alternate_sign)
        result = None
        plan = self._kernel_plan()
        if plan is not None:
            result = self._run_kernels(docs, plan, _text_kernels.MODE_HASH,
                                       n_features=n_features,
                                       alternate_sign=alternate_sign)
        if result is None:
            rows = (analyzer(doc) for doc in docs)
            if docs:
                first = analyzer(docs[0])
                if isinstance(first, str):
                    raise ValueError(
                        "Samples can not be a single string. The input must be an "
                        "iterable over iterables of strings.")
                rows = _chain_first(first, docs, analyzer)
            result = _text_kernels.hash_features(rows, n_features, alternate_sign)
        indptr, columns, counts, n_negative = result
        if len(docs) == 0:
            raise ValueError("Cannot vectorize empty sequence.")
        if dtype.kind == "u" and n_negative:
            raise OverflowError(f"Python integer -1 out of bounds for {dtype.name}")
        data = self._hashed_values(sp, counts, indptr, dtype, columns)
        columns, indptr = _index_arrays(columns, indptr)
        X = _csr(sp, data, columns, indptr, (len(docs), n_features))
        X.has_canonical_format = True  # sorted, no duplicates: as sum_duplicates leaves it
        return X

    def _hashed_values(self, sp, counts, indptr, dtype, columns):
        """The values of the matrix: summed signs in ``dtype``, binary, normalised."""
        norm = self.norm
        binary = bool(self.binary)
        # normalising is a few milliseconds of memory-bound work: another thread
        # is worth waking only for far larger matrices
        n_threads = 1 if counts.shape[0] < _params.PARALLEL_MIN_VALUES else effective_n_threads(
            self.n_threads)
        if dtype == np.float64 or dtype == np.float32:
            data = np.empty(counts.shape[0], dtype=dtype)
            code = NORMS.get(norm) if isinstance(norm, (str, type(None))) else None
            _text_kernels.finish_values(counts, indptr, data, binary,
                                        0 if code is None else code, n_threads)
            if code is None:
                data = _normalize_python(data, indptr, norm)
            return data
        # Another dtype: the sums cast to it (integers wrap, bool is "any term"),
        # checked by SciPy as scikit-learn's csr_array((values, ...)) does.
        _check_sparse_dtype(sp, dtype)
        data = np.ones(counts.shape[0], dtype=dtype) if dtype.kind == "b" else (
            counts.astype(dtype))
        if binary:
            data.fill(1)
        if norm is None:
            return data
        if dtype.kind == "c":
            X = _csr(sp, data, columns, indptr, (len(indptr) - 1, self.n_features))
            raise ValueError(f"Complex data not supported\n{X}\n")
        if dtype != np.float16:
            data = data.astype(np.float64)
        code = NORMS.get(norm) if isinstance(norm, (str, type(None))) else None
        if code is None or data.dtype == np.float16:
            return _normalize_python(data, indptr, norm)
        _text_kernels.finish_values(None, indptr, data, False, code, n_threads)
        return data

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        from sklearn.utils import TransformerTags

        tags.transformer_tags = TransformerTags(preserves_dtype=["float64"])
        tags.requires_fit = False
        return tags


def _chain_first(first, docs, analyzer):
    yield first
    for doc in docs[1:]:
        yield analyzer(doc)

