"""Text vectorizers: raw documents to the sparse count matrices Naive Bayes reads.

``HashingVectorizer`` and ``CountVectorizer`` are drop-ins for scikit-learn's
(``sklearn.feature_extraction.text``): the same parameters, defaults, attributes
and methods, and the same matrix, bit for bit (indices, values, dtype and CSR
layout), about 10-20 times faster. Tokenising, lowercasing, n-grams, hashing
(MurmurHash3) and counting run in compiled code over the documents' own string
buffers, in parallel over documents (``n_threads``), with no Python object per
token.

The compiled path covers the analyzers ``"word"`` (the default token pattern
``(?u)\\b\\w\\w+\\b``, or ``\\b\\w+\\b``), ``"char"`` and ``"char_wb"``, any
``ngram_range``, ``stop_words``, ``lowercase``, ``strip_accents`` and every
``input``/``encoding``/``decode_error``. What it cannot compile is handed to
Python and gives the same result more slowly: a custom ``preprocessor`` or
``strip_accents`` callable runs in Python before compiled tokenising; a custom
``token_pattern``, ``tokenizer`` or callable ``analyzer`` makes the whole
analysis Python's (hashing stays compiled).

This module imports NumPy only. The matrices are SciPy CSR matrices, so
``transform`` needs SciPy: ``pip install "fastnb[text]"``.

Examples
--------
>>> from fastnb.text import CountVectorizer
>>> docs = ["The cat sat.", "The cat sat on the mat!"]
>>> vectorizer = CountVectorizer()
>>> X = vectorizer.fit_transform(docs)
>>> vectorizer.get_feature_names_out()
array(['cat', 'mat', 'on', 'sat', 'the'], dtype=object)
>>> X.toarray()
array([[1, 0, 0, 1, 1],
       [1, 1, 1, 1, 2]])
"""

import re
import sys
import unicodedata
import warnings
from collections import defaultdict
from collections.abc import Mapping
from functools import partial
from numbers import Integral, Real
from operator import itemgetter

import numpy as np

from . import _text_chars, _text_kernels
from ._base import _BaseNB
from ._stop_words import ENGLISH_STOP_WORDS
from ._threads import effective_n_threads
from ._validation import not_fitted_error

__all__ = [
    "ENGLISH_STOP_WORDS",
    "CountVectorizer",
    "HashingVectorizer",
    "strip_accents_ascii",
    "strip_accents_unicode",
    "strip_tags",
]

DEFAULT_TOKEN_PATTERN = r"(?u)\b\w\w+\b"
# Token patterns the kernels run: maximal runs of \w of at least this length.
_COMPILED_PATTERNS = {
    r"(?u)\b\w\w+\b": 2,
    r"\b\w\w+\b": 2,
    r"(?u)\b\w+\b": 1,
    r"\b\w+\b": 1,
}
_ANALYZERS = {
    "word": _text_kernels.ANALYZER_WORD,
    "char": _text_kernels.ANALYZER_CHAR,
    "char_wb": _text_kernels.ANALYZER_CHAR_WB,
}
_NORMS = {None: 0, "l1": 1, "l2": 2}
_PARALLEL_MIN_VALUES = 1 << 24
# Below this many characters (a few milliseconds of work) a call runs on one
# thread, outside any OpenMP region: on a busy machine, waiting for a second
# thread costs more than the work.
_PARALLEL_MIN_CHARS = 1 << 18
_NO_TABLE = np.zeros(0, dtype=np.uint8)


def _scipy_sparse():
    try:
        import scipy.sparse
    except ImportError as error:
        raise ImportError(
            "fastnb.text returns SciPy sparse matrices and needs SciPy, which is not "
            'installed: pip install "fastnb[text]" (or pip install scipy).'
        ) from error
    return scipy.sparse


def _csr(sp, data, indices, indptr, shape, dtype=None):
    """A CSR matrix, or a CSR array when scikit-learn (if it is loaded) is set
    to the sparse-array interface; the arrays are not copied unless ``dtype``
    makes SciPy cast the data."""
    container = sp.csr_matrix
    sklearn = sys.modules.get("sklearn")
    if sklearn is not None:
        try:
            if sklearn.get_config().get("sparse_interface") == "sparray":
                container = sp.csr_array
        except Exception:  # pragma: no cover - an unusual scikit-learn
            pass
    return container((data, indices, indptr), shape=shape, dtype=dtype, copy=False)


def _check_sparse_dtype(sp, dtype):
    """Raise SciPy's error for a dtype its sparse arrays do not support (float16,
    object, ...), as scikit-learn's matrix construction does."""
    sp.csr_array((0, 0), dtype=dtype)


def _index_arrays(indices, indptr):
    """CSR index arrays as scikit-learn builds them: int32, or int64 when the
    entries outnumber int32."""
    index_dtype = np.int64 if indptr[-1] > np.iinfo(np.int32).max else np.int32
    return indices.astype(index_dtype, copy=False), indptr.astype(index_dtype, copy=False)


# -- the text helpers of sklearn.feature_extraction.text -----------------------------

def strip_accents_unicode(s):
    """Remove accents: NFKD-normalise, then drop the combining characters.

    Parameters
    ----------
    s : str

    Returns
    -------
    s : str

    Examples
    --------
    >>> from fastnb.text import strip_accents_unicode
    >>> strip_accents_unicode("Crème brûlée")
    'Creme brulee'
    """
    if s.isascii():
        return s
    normalized = unicodedata.normalize("NFKD", s)
    return "".join([c for c in normalized if not unicodedata.combining(c)])


def strip_accents_ascii(s):
    """NFKD-normalise and keep the ASCII characters only.

    Parameters
    ----------
    s : str

    Returns
    -------
    s : str

    Examples
    --------
    >>> from fastnb.text import strip_accents_ascii
    >>> strip_accents_ascii("Crème brûlée à 10€")
    'Creme brulee a 10'
    """
    return unicodedata.normalize("NFKD", s).encode("ASCII", "ignore").decode("ASCII")


_TAG = re.compile(r"<([^>]+)>", flags=re.UNICODE)


def strip_tags(s):
    """Replace every ``<...>`` tag by a space (a basic HTML/XML tag stripper).

    Parameters
    ----------
    s : str

    Returns
    -------
    s : str

    Examples
    --------
    >>> from fastnb.text import strip_tags
    >>> strip_tags("<p>Hello <b>world</b></p>")
    ' Hello  world  '
    """
    return _TAG.sub(" ", s)


def _preprocess(doc, accent_function=None, lower=False):
    if lower:
        doc = doc.lower()
    if accent_function is not None:
        doc = accent_function(doc)
    return doc


def _analyze(doc, analyzer=None, tokenizer=None, ngrams=None, preprocessor=None,
             decoder=None, stop_words=None):
    if decoder is not None:
        doc = decoder(doc)
    if analyzer is not None:
        return analyzer(doc)
    if preprocessor is not None:
        doc = preprocessor(doc)
    if tokenizer is not None:
        doc = tokenizer(doc)
    if ngrams is not None:
        doc = ngrams(doc, stop_words) if stop_words is not None else ngrams(doc)
    return doc


def _check_stop_list(stop):
    if stop == "english":
        return ENGLISH_STOP_WORDS
    if isinstance(stop, str):
        raise ValueError(f"not a built-in stop list: {stop}")
    if stop is None:
        return None
    return frozenset(stop)


# -- parameter validation, with scikit-learn's wording --------------------------------

class _InvalidParameterError(ValueError, TypeError):
    """A parameter is out of its domain (as scikit-learn's InvalidParameterError,
    which is raised instead when scikit-learn is loaded, so that code catching it
    catches fastnb's)."""


def _invalid_parameter_error(message):
    validation = sys.modules.get("sklearn.utils._param_validation")
    error_class = getattr(validation, "InvalidParameterError", _InvalidParameterError)
    return error_class(message)


def _is_bool(value):
    return isinstance(value, (bool, np.bool_))


def _is_int(value):
    return isinstance(value, Integral) and not isinstance(value, (bool, np.bool_))


def _is_real_not_int(value):
    return isinstance(value, Real) and not isinstance(value, Integral)


def _string_option(*options):
    return (lambda v: isinstance(v, str) and v in options,
            "a str among {" + ", ".join(repr(o) for o in sorted(options)) + "}")


_COMMON_CONSTRAINTS = {
    "input": [_string_option("filename", "file", "content")],
    "encoding": [(lambda v: isinstance(v, str), "an instance of 'str'")],
    "decode_error": [_string_option("strict", "ignore", "replace")],
    "strip_accents": [_string_option("ascii", "unicode"), (lambda v: v is None, "None"),
                      (callable, "a callable")],
    "lowercase": [(_is_bool, "an instance of 'bool' or an instance of 'numpy.bool'")],
    "preprocessor": [(callable, "a callable"), (lambda v: v is None, "None")],
    "tokenizer": [(callable, "a callable"), (lambda v: v is None, "None")],
    "stop_words": [_string_option("english"),
                   (lambda v: isinstance(v, list), "an instance of 'list'"),
                   (lambda v: v is None, "None")],
    "token_pattern": [(lambda v: isinstance(v, str), "an instance of 'str'"),
                      (lambda v: v is None, "None")],
    "ngram_range": [(lambda v: isinstance(v, tuple), "an instance of 'tuple'")],
    "analyzer": [_string_option("word", "char", "char_wb"), (callable, "a callable")],
    "binary": [(_is_bool, "an instance of 'bool' or an instance of 'numpy.bool'")],
    "n_threads": [(lambda v: v is None or (_is_int(v) and v != 0),
                   "None, -1 or a non-zero int")],
}


def _doc_frequency_bound(value):
    return (_is_real_not_int(value) and 0 <= value <= 1) or (
        _is_int(value) and value >= 1)


_HASHING_CONSTRAINTS = {
    **_COMMON_CONSTRAINTS,
    "n_features": [(lambda v: _is_int(v) and 1 <= v < np.iinfo(np.int32).max,
                    "an int in the range [1, 2147483647)")],
    "norm": [_string_option("l1", "l2"), (lambda v: v is None, "None")],
    "alternate_sign": [(_is_bool, "an instance of 'bool' or an instance of 'numpy.bool'")],
}

_COUNT_CONSTRAINTS = {
    **_COMMON_CONSTRAINTS,
    "max_df": [(_doc_frequency_bound,
                "a float in the range [0.0, 1.0] or an int in the range [1, inf)")],
    "min_df": [(_doc_frequency_bound,
                "a float in the range [0.0, 1.0] or an int in the range [1, inf)")],
    "max_features": [(lambda v: v is None or (_is_int(v) and v >= 1),
                      "an int in the range [1, inf) or None")],
    "vocabulary": [(lambda v: v is None or isinstance(v, Mapping)
                    or hasattr(v, "__iter__"),
                    "an instance of 'collections.abc.Mapping', an object implementing "
                    "'__iter__' or None")],
}


class _KernelPlan:
    """How the kernels analyze documents for one vectorizer configuration."""

    __slots__ = ("analyzer", "min_n", "max_n", "min_token_len", "stop_words",
                 "kernel_lower", "python_preprocess", "skip_combining")


class _TextVectorizer:
    """What the two vectorizers share (not public): scikit-learn's estimator
    protocol and its ``_VectorizerMixin`` API (decode, build_analyzer, ...), the
    dispatch to the kernels, and the slow Python analysis they fall back on."""

    _CONSTRAINTS = _COMMON_CONSTRAINTS

    # The estimator protocol is fastnb's (get_params, set_params, repr, pickling).
    _get_param_names = _BaseNB.__dict__["_get_param_names"]
    get_params = _BaseNB.get_params
    set_params = _BaseNB.set_params
    __repr__ = _BaseNB.__repr__
    __getstate__ = _BaseNB.__getstate__
    __setstate__ = _BaseNB.__setstate__

    _white_spaces = re.compile(r"\s\s+")

    def _validate_params(self):
        name = type(self).__name__
        for param, options in self._CONSTRAINTS.items():
            value = getattr(self, param)
            if any(check(value) for check, _ in options):
                continue
            expected = [text for _, text in options]
            expected = (", ".join(expected[:-1]) + " or " + expected[-1]
                        if len(expected) > 1 else expected[0])
            raise _invalid_parameter_error(
                f"The {param!r} parameter of {name} must be {expected}. "
                f"Got {value!r} instead.")

    # -- scikit-learn's _VectorizerMixin API ------------------------------------------
    def decode(self, doc):
        """Decode the input into a string of unicode symbols.

        The decoding strategy depends on the vectorizer parameters.

        Parameters
        ----------
        doc : bytes or str
            The string to decode.

        Returns
        -------
        doc : str
            A string of unicode symbols.
        """
        if self.input == "filename":
            with open(doc, "rb") as fh:
                doc = fh.read()
        elif self.input == "file":
            doc = doc.read()
        if isinstance(doc, bytes):
            doc = doc.decode(self.encoding, self.decode_error)
        if doc is np.nan:
            raise ValueError(
                "np.nan is an invalid document, expected byte or unicode string.")
        return doc

    def _word_ngrams(self, tokens, stop_words=None):
        """Turn tokens into a sequence of n-grams after stop words filtering."""
        if stop_words is not None:
            tokens = [w for w in tokens if w not in stop_words]
        min_n, max_n = self.ngram_range
        if max_n != 1:
            original = tokens
            if min_n == 1:
                tokens = list(original)
                min_n += 1
            else:
                tokens = []
            n_original = len(original)
            for n in range(min_n, min(max_n + 1, n_original + 1)):
                for i in range(n_original - n + 1):
                    tokens.append(" ".join(original[i: i + n]))
        return tokens

    def _char_ngrams(self, text_document):
        """Tokenize text_document into a sequence of character n-grams."""
        text_document = self._white_spaces.sub(" ", text_document)
        text_len = len(text_document)
        min_n, max_n = self.ngram_range
        if min_n == 1:
            ngrams = list(text_document)
            min_n += 1
        else:
            ngrams = []
        for n in range(min_n, min(max_n + 1, text_len + 1)):
            for i in range(text_len - n + 1):
                ngrams.append(text_document[i: i + n])
        return ngrams

    def _char_wb_ngrams(self, text_document):
        """Character n-grams inside word boundaries, words padded with a space."""
        text_document = self._white_spaces.sub(" ", text_document)
        min_n, max_n = self.ngram_range
        ngrams = []
        for w in text_document.split():
            w = " " + w + " "
            w_len = len(w)
            for n in range(min_n, max_n + 1):
                offset = 0
                ngrams.append(w[offset: offset + n])
                while offset + n < w_len:
                    offset += 1
                    ngrams.append(w[offset: offset + n])
                if offset == 0:  # count a short word (w_len < n) only once
                    break
        return ngrams

    def _accent_function(self):
        if not self.strip_accents:
            return None
        if callable(self.strip_accents):
            return self.strip_accents
        if self.strip_accents == "ascii":
            return strip_accents_ascii
        if self.strip_accents == "unicode":
            return strip_accents_unicode
        raise ValueError(f'Invalid value for "strip_accents": {self.strip_accents}')

    def build_preprocessor(self):
        """Return a function to preprocess the text before tokenization.

        Returns
        -------
        preprocessor : callable
            A function to preprocess the text before tokenization.
        """
        if self.preprocessor is not None:
            return self.preprocessor
        return partial(_preprocess, accent_function=self._accent_function(),
                       lower=self.lowercase)

    def build_tokenizer(self):
        """Return a function that splits a string into a sequence of tokens.

        Returns
        -------
        tokenizer : callable
            A function to split a string into a sequence of tokens.
        """
        if self.tokenizer is not None:
            return self.tokenizer
        token_pattern = re.compile(self.token_pattern)
        if token_pattern.groups > 1:
            raise ValueError(
                "More than 1 capturing group in token pattern. Only a single "
                "group should be captured.")
        return token_pattern.findall

    def get_stop_words(self):
        """Build or fetch the effective stop words list.

        Returns
        -------
        stop_words : frozenset or None
            The stop words.
        """
        return _check_stop_list(self.stop_words)

    def _check_stop_words_consistency(self, stop_words, preprocess, tokenize):
        """Warn (once per stop list) when preprocessing and tokenizing a stop word
        gives tokens that are not stop words."""
        if id(self.stop_words) == getattr(self, "_stop_words_id", None):
            return None
        try:
            inconsistent = set()
            for w in stop_words or ():
                for token in tokenize(preprocess(w)):
                    if token not in stop_words:
                        inconsistent.add(token)
            self._stop_words_id = id(self.stop_words)
            if inconsistent:
                warnings.warn(
                    "Your stop_words may be inconsistent with your preprocessing. "
                    "Tokenizing the stop words generated tokens "
                    f"{sorted(inconsistent)!r} not in stop_words.")
            return not inconsistent
        except Exception:
            self._stop_words_id = id(self.stop_words)
            return "error"

    def build_analyzer(self):
        """Return a callable to process input data.

        The callable handles the decoding, preprocessing, tokenization and n-grams
        generation of one document, in Python (the slow path the vectorizers fall
        back on; their ``transform`` runs compiled code where it can).

        Returns
        -------
        analyzer : callable
            A function to handle preprocessing, tokenization and n-grams
            generation.
        """
        if callable(self.analyzer):
            return partial(_analyze, analyzer=self.analyzer, decoder=self.decode)
        preprocess = self.build_preprocessor()
        if self.analyzer == "char":
            return partial(_analyze, ngrams=self._char_ngrams, preprocessor=preprocess,
                           decoder=self.decode)
        if self.analyzer == "char_wb":
            return partial(_analyze, ngrams=self._char_wb_ngrams,
                           preprocessor=preprocess, decoder=self.decode)
        if self.analyzer == "word":
            stop_words = self.get_stop_words()
            tokenize = self.build_tokenizer()
            self._check_stop_words_consistency(stop_words, preprocess, tokenize)
            return partial(_analyze, ngrams=self._word_ngrams, tokenizer=tokenize,
                           preprocessor=preprocess, decoder=self.decode,
                           stop_words=stop_words)
        raise ValueError(f"{self.analyzer} is not a valid tokenization scheme/analyzer")

    def _validate_ngram_range(self):
        min_n, max_m = self.ngram_range
        if min_n > max_m:
            raise ValueError(
                f"Invalid value for ngram_range={self.ngram_range} "
                "lower boundary larger than the upper boundary.")

    def _warn_for_unused_params(self):
        if self.tokenizer is not None and self.token_pattern is not None:
            warnings.warn("The parameter 'token_pattern' will not be used"
                          " since 'tokenizer' is not None'")
        if self.preprocessor is not None and callable(self.analyzer):
            warnings.warn("The parameter 'preprocessor' will not be used"
                          " since 'analyzer' is callable'")
        if (self.ngram_range != (1, 1) and self.ngram_range is not None
                and callable(self.analyzer)):
            warnings.warn("The parameter 'ngram_range' will not be used"
                          " since 'analyzer' is callable'")
        if self.analyzer != "word" or callable(self.analyzer):
            if self.stop_words is not None:
                warnings.warn("The parameter 'stop_words' will not be used"
                              " since 'analyzer' != 'word'")
            if (self.token_pattern is not None
                    and self.token_pattern != DEFAULT_TOKEN_PATTERN):
                warnings.warn("The parameter 'token_pattern' will not be used"
                              " since 'analyzer' != 'word'")
            if self.tokenizer is not None:
                warnings.warn("The parameter 'tokenizer' will not be used"
                              " since 'analyzer' != 'word'")

    # -- the compiled path --------------------------------------------------------------
    def _kernel_plan(self):
        """The kernel configuration for these parameters, or None when the
        analysis must run in Python. Call after build_analyzer() has validated
        them."""
        analyzer = self.analyzer
        if callable(analyzer) or not isinstance(analyzer, str):
            return None
        try:
            min_n, max_n = self.ngram_range
        except (TypeError, ValueError):
            return None
        if not (_is_int(min_n) and _is_int(max_n) and 1 <= min_n <= max_n < 2**31):
            return None
        plan = _KernelPlan()
        plan.analyzer = _ANALYZERS[analyzer]
        plan.min_n, plan.max_n = int(min_n), int(max_n)
        plan.min_token_len = 0
        plan.stop_words = None
        if analyzer == "word":
            if self.tokenizer is not None:
                return None
            pattern = self.token_pattern
            if not isinstance(pattern, str) or pattern not in _COMPILED_PATTERNS:
                return None
            plan.min_token_len = _COMPILED_PATTERNS[pattern]
            plan.stop_words = self.get_stop_words()
        plan.skip_combining = False
        if self.preprocessor is not None:
            plan.kernel_lower = False
            plan.python_preprocess = self.preprocessor
        elif not self.strip_accents:
            plan.kernel_lower = bool(self.lowercase)
            plan.python_preprocess = None
        elif self.strip_accents == "unicode":
            # NFKD in Python (C speed); the kernel drops the combining characters
            lower = bool(self.lowercase)
            plan.kernel_lower = False
            plan.skip_combining = True
            plan.python_preprocess = partial(_nfkd_unless_ascii, lower=lower)
        else:
            plan.kernel_lower = False
            plan.python_preprocess = self.build_preprocessor()
        return plan

    def _kernel_texts(self, docs, plan):
        """The documents as exact str for the kernels, decoded and preprocessed as
        far as Python must; None when a document cannot go to the kernels (the
        Python analysis then raises scikit-learn's error)."""
        if (plan.python_preprocess is None and self.input == "content"
                and all(type(doc) is str for doc in docs)):
            return docs
        decode = self.decode
        texts = [decode(doc) for doc in docs]
        if plan.python_preprocess is None and not all(type(t) is str for t in texts):
            if not all(isinstance(t, str) for t in texts):
                return None
            if plan.kernel_lower:
                # str subclasses: scikit-learn calls their own lower()
                plan.kernel_lower = False
                plan.python_preprocess = _lowered
        preprocess = plan.python_preprocess
        if preprocess is not None:
            texts = [preprocess(t) for t in texts]
            if not all(isinstance(t, str) for t in texts):
                return None
        return [t if type(t) is str else str.__str__(t) for t in texts]

    def _n_threads_for(self, texts):
        if sum(map(len, texts)) < _PARALLEL_MIN_CHARS:
            return 1
        return effective_n_threads(self.n_threads)

    def _run_kernels(self, docs, plan, mode, *, n_features=1, alternate_sign=False,
                     vocabulary=None, wide_counts=False):
        """Analyze ``docs`` with the kernels: ``(indptr, ids, counts, extra)``, or
        None when Python must do it (then it raises scikit-learn's error, if any)."""
        texts = self._kernel_texts(docs, plan)
        if texts is None:
            return None
        info, expand = _text_chars.info_table()
        sigma = _text_chars.built_sigma_table()
        combining = _text_chars.combining_table() if plan.skip_combining else _NO_TABLE
        stop = None
        if plan.stop_words:
            stop = _text_kernels.TermSet(plan.stop_words)
        n_threads = self._n_threads_for(texts)
        while True:
            status, result = _text_kernels.analyze(
                texts, mode, plan.analyzer, plan.min_n, plan.max_n, plan.min_token_len,
                plan.kernel_lower, plan.skip_combining, info,
                _NO_TABLE if sigma is None else sigma, combining, expand, stop,
                vocabulary, n_features, alternate_sign, n_threads, wide_counts)
            if status == _text_kernels.STATUS_NEED_SIGMA:
                sigma = _text_chars.sigma_table()
                continue
            if status == _text_kernels.STATUS_SURROGATE:
                return None
            return result

    def __sklearn_tags__(self):
        # Only scikit-learn calls this, so importing it here costs nothing else.
        from sklearn.utils import InputTags, Tags, TargetTags

        return Tags(
            estimator_type=None,
            target_tags=TargetTags(required=False),
            input_tags=InputTags(string=True, two_d_array=False),
        )


def _lowered(doc):
    return doc.lower()


def _nfkd_unless_ascii(doc, lower):
    if lower:
        doc = doc.lower()
    return doc if doc.isascii() else unicodedata.normalize("NFKD", doc)


def _wide_counts(dtype):
    """Whether the kernels should give int64 counts: for an int64 matrix (the
    default), which is then made without a copy; for another dtype SciPy casts
    int32 counts, as scikit-learn's are."""
    try:
        return dtype is not None and np.dtype(dtype) == np.int64
    except TypeError:
        return False


def _raw_documents_expected(X):
    if isinstance(X, str):
        raise ValueError(
            "Iterable over raw text documents expected, string object received.")


_VECTORIZER_PARAMETERS = """\
    input : {'filename', 'file', 'content'}, default='content'
        ``'content'``: the documents are str or bytes; ``'filename'``: paths of
        files to read; ``'file'``: objects with a ``read`` method.
    encoding : str, default='utf-8'
        The encoding that decodes bytes documents (and files).
    decode_error : {'strict', 'ignore', 'replace'}, default='strict'
        What to do with bytes that are not valid in ``encoding``
        (``bytes.decode``'s ``errors``).
    strip_accents : {'ascii', 'unicode'} or callable, default=None
        Remove accents after lowercasing: ``'unicode'`` drops the combining marks
        of the NFKD form, ``'ascii'`` keeps its ASCII characters.
    lowercase : bool, default=True
        Lowercase the documents (``str.lower()``) before tokenizing.
    preprocessor : callable, default=None
        Replaces lowercasing and accent stripping (runs in Python).
    tokenizer : callable, default=None
        Replaces the token pattern (the word analysis then runs in Python).
    stop_words : {'english'}, list, default=None
        Words removed before n-grams are made; ``'english'`` is
        :data:`ENGLISH_STOP_WORDS`. Word analyzer only.
    token_pattern : str or None, default=r"(?u)\\b\\w\\w+\\b"
        The regular expression of a token (word analyzer). The default and
        ``r"(?u)\\b\\w+\\b"`` are compiled; another pattern runs in Python.
    ngram_range : tuple (min_n, max_n), default=(1, 1)
        The n-grams made for every n with ``min_n <= n <= max_n``.
    analyzer : {'word', 'char', 'char_wb'} or callable, default='word'
        Word n-grams, character n-grams, or character n-grams of the padded
        words; a callable (the slow path) maps a decoded document to features.
"""


class HashingVectorizer(_TextVectorizer):
    __doc__ = """Convert documents to a matrix of hashed token counts (compiled).

    A drop-in for scikit-learn's ``HashingVectorizer``: the same parameters and the
    same matrix, bit for bit. Each term's column is the MurmurHash3 (32-bit, seed
    0) of its UTF-8 bytes modulo ``n_features``, with the hash's sign when
    ``alternate_sign``; rows are then made binary and/or normalised. It is
    stateless: ``fit`` only validates the parameters.

    Parameters
    ----------
""" + _VECTORIZER_PARAMETERS + """\
    n_features : int, default=2**20
        The number of columns.
    binary : bool, default=False
        Set every stored value to 1 (before normalisation).
    norm : {'l1', 'l2'} or None, default='l2'
        Normalise each row to unit l1 or l2 norm, or not.
    alternate_sign : bool, default=True
        Give each term the sign of its hash, so that collisions tend to cancel.
        (MultinomialNB needs non-negative features: use ``False`` before it.)
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
    """

    _CONSTRAINTS = _HASHING_CONSTRAINTS

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
        _raw_documents_expected(X)
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
        _raw_documents_expected(X)
        self._validate_ngram_range()
        analyzer = self.build_analyzer()
        sp = _scipy_sparse()
        docs = X if isinstance(X, list) else list(X)
        n_features = self.n_features
        if not _is_int(n_features) or not 1 <= n_features < np.iinfo(np.int32).max:
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
        n_threads = 1 if counts.shape[0] < _PARALLEL_MIN_VALUES else effective_n_threads(
            self.n_threads)
        if dtype == np.float64 or dtype == np.float32:
            data = np.empty(counts.shape[0], dtype=dtype)
            code = _NORMS.get(norm) if isinstance(norm, (str, type(None))) else None
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
        code = _NORMS.get(norm) if isinstance(norm, (str, type(None))) else None
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


def _normalize_python(data, indptr, norm):
    """scikit-learn's ``normalize`` for the norms the kernel does not do ('max')."""
    if norm == "max":
        lengths = np.diff(indptr)
        filled = lengths > 0
        norms = np.zeros(len(lengths), dtype=data.dtype)
        if data.size:
            starts = indptr[:-1][filled]
            norms[filled] = np.maximum.reduceat(np.abs(data), starts)
        elementwise = norms.repeat(lengths)
        mask = elementwise != 0
        data[mask] /= elementwise[mask]
        return data
    raise ValueError(f"'{norm}' is not a supported norm")


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
""" + _VECTORIZER_PARAMETERS + """\
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

    _CONSTRAINTS = _COUNT_CONSTRAINTS

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
        _raw_documents_expected(raw_documents)
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
        _raw_documents_expected(raw_documents)
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
