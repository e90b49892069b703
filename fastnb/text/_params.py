"""Parameters of the fastnb.text vectorizers: their validation, with
scikit-learn's wording and error class, the shared parameter documentation, and
the thresholds below which a call stays on one thread."""

import sys
from collections.abc import Mapping
from numbers import Integral, Real

import numpy as np

DEFAULT_TOKEN_PATTERN = r"(?u)\b\w\w+\b"
# Token patterns the kernels run: maximal runs of \w of at least this length.
COMPILED_PATTERNS = {
    r"(?u)\b\w\w+\b": 2,
    r"\b\w\w+\b": 2,
    r"(?u)\b\w+\b": 1,
    r"\b\w+\b": 1,
}
NORMS = {None: 0, "l1": 1, "l2": 2}
# Values (nonzeros) below which normalising stays on one thread.
PARALLEL_MIN_VALUES = 1 << 24
# Below this many characters (a few milliseconds of work) a call runs on one
# thread, outside any OpenMP region: on a busy machine, waiting for a second
# thread costs more than the work.
PARALLEL_MIN_CHARS = 1 << 18


class _InvalidParameterError(ValueError, TypeError):
    """A parameter is out of its domain (as scikit-learn's InvalidParameterError,
    which is raised instead when scikit-learn is loaded, so that code catching it
    catches fastnb's)."""


def invalid_parameter_error(message):
    validation = sys.modules.get("sklearn.utils._param_validation")
    error_class = getattr(validation, "InvalidParameterError", _InvalidParameterError)
    return error_class(message)


def is_bool(value):
    return isinstance(value, (bool, np.bool_))


def is_int(value):
    return isinstance(value, Integral) and not isinstance(value, (bool, np.bool_))


def _is_real_not_int(value):
    return isinstance(value, Real) and not isinstance(value, Integral)


def _string_option(*options):
    return (lambda v: isinstance(v, str) and v in options,
            "a str among {" + ", ".join(repr(o) for o in sorted(options)) + "}")


COMMON_CONSTRAINTS = {
    "input": [_string_option("filename", "file", "content")],
    "encoding": [(lambda v: isinstance(v, str), "an instance of 'str'")],
    "decode_error": [_string_option("strict", "ignore", "replace")],
    "strip_accents": [_string_option("ascii", "unicode"), (lambda v: v is None, "None"),
                      (callable, "a callable")],
    "lowercase": [(is_bool, "an instance of 'bool' or an instance of 'numpy.bool'")],
    "preprocessor": [(callable, "a callable"), (lambda v: v is None, "None")],
    "tokenizer": [(callable, "a callable"), (lambda v: v is None, "None")],
    "stop_words": [_string_option("english"),
                   (lambda v: isinstance(v, list), "an instance of 'list'"),
                   (lambda v: v is None, "None")],
    "token_pattern": [(lambda v: isinstance(v, str), "an instance of 'str'"),
                      (lambda v: v is None, "None")],
    "ngram_range": [(lambda v: isinstance(v, tuple), "an instance of 'tuple'")],
    "analyzer": [_string_option("word", "char", "char_wb"), (callable, "a callable")],
    "binary": [(is_bool, "an instance of 'bool' or an instance of 'numpy.bool'")],
    "n_threads": [(lambda v: v is None or (is_int(v) and v != 0),
                   "None, -1 or a non-zero int")],
}


def _doc_frequency_bound(value):
    return (_is_real_not_int(value) and 0 <= value <= 1) or (
        is_int(value) and value >= 1)


HASHING_CONSTRAINTS = {
    **COMMON_CONSTRAINTS,
    "n_features": [(lambda v: is_int(v) and 1 <= v < np.iinfo(np.int32).max,
                    "an int in the range [1, 2147483647)")],
    "norm": [_string_option("l1", "l2"), (lambda v: v is None, "None")],
    "alternate_sign": [(is_bool, "an instance of 'bool' or an instance of 'numpy.bool'")],
}

COUNT_CONSTRAINTS = {
    **COMMON_CONSTRAINTS,
    "max_df": [(_doc_frequency_bound,
                "a float in the range [0.0, 1.0] or an int in the range [1, inf)")],
    "min_df": [(_doc_frequency_bound,
                "a float in the range [0.0, 1.0] or an int in the range [1, inf)")],
    "max_features": [(lambda v: v is None or (is_int(v) and v >= 1),
                      "an int in the range [1, inf) or None")],
    "vocabulary": [(lambda v: v is None or isinstance(v, Mapping)
                    or hasattr(v, "__iter__"),
                    "an instance of 'collections.abc.Mapping', an object implementing "
                    "'__iter__' or None")],
}


def raw_documents_expected(X):
    if isinstance(X, str):
        raise ValueError(
            "Iterable over raw text documents expected, string object received.")


VECTORIZER_PARAMETERS = """\
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
