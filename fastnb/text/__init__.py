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

This package imports NumPy only. The matrices are SciPy CSR matrices, so
``transform`` needs SciPy: ``pip install "fastnb[text]"``.

The package's modules: ``_params`` (parameter validation and documentation),
``_preprocessing`` (scikit-learn's text helpers and the Python analysis),
``_base`` (the shared vectorizer: analyzer configuration, kernel dispatch),
``_hashing`` and ``_counting`` (the two vectorizers), ``_term_names`` (the terms
behind hashed columns, for fastnb.inspection) and ``_csr`` (the SciPy matrix).

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

from .._stop_words import ENGLISH_STOP_WORDS
from ._counting import CountVectorizer
from ._hashing import HashingVectorizer
from ._term_names import HashedTermNames
from ._preprocessing import strip_accents_ascii, strip_accents_unicode, strip_tags

__all__ = [
    "ENGLISH_STOP_WORDS",
    "CountVectorizer",
    "HashedTermNames",
    "HashingVectorizer",
    "strip_accents_ascii",
    "strip_accents_unicode",
    "strip_tags",
]

# The public names belong to fastnb.text (pickles, reprs and the API reference
# name them there, whichever module defines them).
for _name in __all__[1:]:
    globals()[_name].__module__ = __name__
del _name
