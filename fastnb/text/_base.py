"""What the two vectorizers share: scikit-learn's estimator protocol and its
``_VectorizerMixin`` API (decode, build_analyzer, ...), the analyzer
configuration the kernels run (``_KernelPlan``), the dispatch to them, and the
Python analysis they fall back on."""

import re
import warnings
from functools import partial

import numpy as np

from .. import _text_chars, _text_kernels
from .._base import _BaseNB
from .._threads import effective_n_threads
from . import _params
from ._params import (
    COMMON_CONSTRAINTS,
    COMPILED_PATTERNS,
    DEFAULT_TOKEN_PATTERN,
    invalid_parameter_error,
    is_int,
)
from ._preprocessing import (
    _analyze,
    _check_stop_list,
    _lowered,
    _nfkd_unless_ascii,
    _preprocess,
    strip_accents_ascii,
    strip_accents_unicode,
)

_ANALYZERS = {
    "word": _text_kernels.ANALYZER_WORD,
    "char": _text_kernels.ANALYZER_CHAR,
    "char_wb": _text_kernels.ANALYZER_CHAR_WB,
}
_NO_TABLE = np.zeros(0, dtype=np.uint8)


class _KernelPlan:
    """How the kernels analyze documents for one vectorizer configuration."""

    __slots__ = ("analyzer", "min_n", "max_n", "min_token_len", "stop_words",
                 "kernel_lower", "python_preprocess", "skip_combining")


class _TextVectorizer:
    """What the two vectorizers share (not public): scikit-learn's estimator
    protocol and its ``_VectorizerMixin`` API (decode, build_analyzer, ...), the
    dispatch to the kernels, and the slow Python analysis they fall back on."""

    _CONSTRAINTS = COMMON_CONSTRAINTS

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
            raise invalid_parameter_error(
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
        if not (is_int(min_n) and is_int(max_n) and 1 <= min_n <= max_n < 2**31):
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
            if not isinstance(pattern, str) or pattern not in COMPILED_PATTERNS:
                return None
            plan.min_token_len = COMPILED_PATTERNS[pattern]
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
        if type(docs) is not list:
            # the kernels take an exact list (a subclass, a tuple or a generator's
            # list of documents are all fine for scikit-learn)
            docs = list(docs)
        if (plan.python_preprocess is None and self.input == "content"
                and _text_kernels.exact_str_chars(docs) >= 0):
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
        # (texts are exact str: _kernel_texts made them so)
        if _text_kernels.exact_str_chars(texts) < _params.PARALLEL_MIN_CHARS:
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
