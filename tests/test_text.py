# Over the ~600-line guideline on purpose: one file holds every comparison of
# fastnb.text with scikit-learn's vectorizers, parameter by parameter, so that a
# parameter's cases (and the corpus fixtures they share) are read in one place.
"""fastnb.text against scikit-learn: the same matrices, bit for bit.

Every comparison requires identical CSR matrices: container type, shape, dtype,
index dtypes, indptr, indices (in stored order), data (sign bits included) and
the sorted-indices flag; for CountVectorizer also the vocabulary (its order and
the types of its values) and transform().
"""

import pathlib
import pickle
import subprocess
import sys
import warnings

import numpy as np
import pytest

sp = pytest.importorskip("scipy.sparse")
sk_text = pytest.importorskip("sklearn.feature_extraction.text")

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import fastnb  # noqa: E402
from fastnb import text as fast_text  # noqa: E402
from fastnb.text import _params as text_params  # noqa: E402

DATA = pathlib.Path(__file__).resolve().parent / "data" / "text_corpus.txt"
VECTORIZERS = ("HashingVectorizer", "CountVectorizer")
HASHING_ONLY = {"n_features", "norm", "alternate_sign"}
COUNT_ONLY = {"min_df", "max_df", "max_features", "vocabulary"}


def corpus():
    """The public-domain paragraphs of tests/data/text_corpus.txt."""
    text = DATA.read_text(encoding="utf-8")
    lines = [line for line in text.splitlines() if not line.startswith("#")]
    return [p.strip("\n") for p in "\n".join(lines).split("\n\n") if p.strip()]


def assert_same_csr(ours, theirs):
    assert type(ours) is type(theirs)
    assert ours.shape == theirs.shape
    assert ours.dtype == theirs.dtype
    assert ours.indices.dtype == theirs.indices.dtype
    assert ours.indptr.dtype == theirs.indptr.dtype
    np.testing.assert_array_equal(ours.indptr, theirs.indptr)
    np.testing.assert_array_equal(ours.indices, theirs.indices)
    if ours.dtype == np.longdouble and np.longdouble != np.float64:
        # 80-bit values in 16 bytes: the padding bytes are undefined
        np.testing.assert_array_equal(ours.data, theirs.data)
        np.testing.assert_array_equal(np.signbit(ours.data), np.signbit(theirs.data))
    else:
        assert ours.data.tobytes() == theirs.data.tobytes()  # bits, -0.0 included
    assert ours.has_sorted_indices == theirs.has_sorted_indices


def params_for(name, params):
    drop = COUNT_ONLY if name == "HashingVectorizer" else HASHING_ONLY
    return {k: v for k, v in params.items() if k not in drop}


def outcome(function):
    try:
        return function(), None
    except Exception as error:  # compared with scikit-learn's below
        return None, error


def assert_same_as_sklearn(docs, params, *, n_threads=None):
    """Both vectorizers give scikit-learn's result (or its exception type)."""
    for name in VECTORIZERS:
        kwargs = params_for(name, params)
        theirs = getattr(sk_text, name)(**kwargs)
        ours = getattr(fast_text, name)(**kwargs, n_threads=n_threads)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            expected, their_error = outcome(lambda: theirs.fit_transform(docs))
            got, our_error = outcome(lambda: ours.fit_transform(docs))
        if their_error is not None or our_error is not None:
            assert type(our_error) is type(their_error), (name, our_error, their_error)
            continue
        assert_same_csr(got, expected)
        if name == "CountVectorizer":
            assert list(ours.vocabulary_.items()) == list(theirs.vocabulary_.items())
            assert [type(v) for v in ours.vocabulary_.values()] == [
                type(v) for v in theirs.vocabulary_.values()]
            assert ours.fixed_vocabulary_ == theirs.fixed_vocabulary_
            np.testing.assert_array_equal(ours.get_feature_names_out(),
                                          theirs.get_feature_names_out())
            assert_same_csr(ours.transform(docs), theirs.transform(docs))


# -- the English stop words ---------------------------------------------------------

def test_english_stop_words_are_scikit_learns():
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    assert isinstance(fast_text.ENGLISH_STOP_WORDS, frozenset)
    assert len(fast_text.ENGLISH_STOP_WORDS) == 318
    assert fast_text.ENGLISH_STOP_WORDS == ENGLISH_STOP_WORDS


# -- differential tests on generated Unicode text ------------------------------------

_CHARS = (
    list("abcxyzABCXYZ0189_") + list(" .,;:!?'\"-()/@#&")
    + [" ", " ", " ", "\t", "\n", "\r", "\x0b", "\x0c", "\x1f", "\x85", "\xa0",
       "\u1680", "\u2003", "\u2028", "\u3000"]
    + list("éÉàçÇñöÖüÜßÿµ") + list("ŁłŒœĞğİıŞş")
    + list("ΣσςΑαΟοΔδΌόΐἀἈ") + list("ЖжЯяЁё")
    + ["\u0300", "\u0301", "\u0308", "\u0327", "\u0345", "\u20dd"]
    + list("日本語中文あいカタ한국") + list("٣²½Ⅻ０Ａｂﬁǅẞ")
    + ["\u2019", "\u00b7", "\u02bc", "\u00ad", "\u200b", "\u200d"]
    + ["\U0001d400", "\U0001f600", "\U00010400", "\U00010428", "\U0001d7d8"]
    + list("عربيةשלוםहिन्दीไทย")
)
_word = st.text(alphabet=st.sampled_from(_CHARS), min_size=0, max_size=12)
_long_token = st.builds(lambda c, n: c * n, st.sampled_from(list("aΣé日_1")),
                        st.integers(50, 400))
_document = st.lists(st.one_of(_word, _word, _word, _long_token), max_size=12).map(
    "".join) | st.lists(st.sampled_from(["the", "The", "cat", "ΣΑΣ", "σας", "a", " ",
                                          ", ", "İstanbul", "naïve"]),
                        max_size=12).map(" ".join)
documents = st.lists(_document, min_size=1, max_size=6)

CONFIGS = [
    {},
    {"ngram_range": (1, 3)},
    {"ngram_range": (2, 2), "stop_words": "english"},
    {"stop_words": ["the", "σας", "日本語", "a"]},
    {"lowercase": False},
    {"strip_accents": "unicode"},
    {"strip_accents": "ascii", "ngram_range": (1, 2)},
    {"token_pattern": r"(?u)\b\w+\b", "binary": True},
    {"norm": "l1", "n_features": 1000, "min_df": 2},
    {"norm": None, "alternate_sign": False, "max_df": 0.6},
    {"dtype": np.float32, "max_features": 5},
    {"dtype": np.int32, "norm": None, "n_features": 7},
    {"analyzer": "char", "ngram_range": (1, 3)},
    {"analyzer": "char", "ngram_range": (2, 4), "lowercase": False},
    {"analyzer": "char_wb", "ngram_range": (1, 4)},
    {"analyzer": "char_wb", "ngram_range": (3, 5), "strip_accents": "unicode"},
    {"vocabulary": ["the", "cat", "σας", "日本語", "a b", "naïve", "zz"],
     "ngram_range": (1, 2)},
]


@pytest.mark.parametrize("params", CONFIGS, ids=lambda p: repr(p)[:60])
@settings(deadline=None)
@given(docs=documents)
def test_same_matrices_as_sklearn(params, docs):
    assert_same_as_sklearn(docs, params)


SLOW_PATH_CONFIGS = [
    {"token_pattern": r"\w{3,}"},
    {"token_pattern": r"(\w)\w"},
    {"tokenizer": str.split, "token_pattern": None},
    {"analyzer": lambda doc: doc.split(",")},
    {"preprocessor": lambda doc: doc.upper()},
    {"strip_accents": lambda doc: doc.replace("a", "b")},
    {"ngram_range": (0, 2)},
    {"analyzer": "char", "ngram_range": (0, 2)},
]


@pytest.mark.parametrize("params", SLOW_PATH_CONFIGS, ids=lambda p: repr(p)[:60])
@settings(deadline=None, max_examples=15)
@given(docs=documents)
def test_python_fallback_gives_the_same_matrices(params, docs):
    assert_same_as_sklearn(docs, params)


# -- a fixed corpus of real text ---------------------------------------------------

@pytest.mark.parametrize("params", CONFIGS + SLOW_PATH_CONFIGS + [
    {"ngram_range": (1, 4), "stop_words": "english", "min_df": 2},
    {"max_features": 40, "max_df": 0.5, "dtype": np.float64, "binary": True},
    {"analyzer": "char_wb", "ngram_range": (2, 3), "max_features": 100},
], ids=lambda p: repr(p)[:60])
def test_public_domain_corpus(params):
    docs = corpus()
    assert len(docs) >= 18
    assert_same_as_sklearn(docs, params)


def test_corpus_as_bytes_in_other_encodings(tmp_path):
    docs = corpus()
    for encoding in ("utf-8", "utf-16", "utf-32"):
        assert_same_as_sklearn([d.encode(encoding) for d in docs],
                               {"encoding": encoding})
    latin1 = [d.encode("latin-1", "replace") for d in docs]
    for errors in ("ignore", "replace"):
        assert_same_as_sklearn(latin1, {"decode_error": errors})
    with pytest.raises(UnicodeDecodeError):
        fast_text.HashingVectorizer().fit_transform(latin1)
    with pytest.raises(UnicodeDecodeError):
        fast_text.CountVectorizer().fit_transform(latin1)
    assert_same_as_sklearn(latin1, {"encoding": "latin-1"})


def test_file_and_filename_input(tmp_path):
    docs = corpus()
    paths = []
    for i, doc in enumerate(docs):
        path = tmp_path / f"doc{i}.txt"
        path.write_bytes(doc.encode("utf-8"))
        paths.append(str(path))
    for name in VECTORIZERS:
        expected = getattr(sk_text, name)().fit_transform(docs)
        by_name = getattr(fast_text, name)(input="filename").fit_transform(paths)
        assert_same_csr(by_name, expected)
        files = [open(path, "rb") for path in paths]
        try:
            by_file = getattr(fast_text, name)(input="file").fit_transform(files)
        finally:
            for f in files:
                f.close()
        assert_same_csr(by_file, expected)


# -- Unicode tables, exhaustively ----------------------------------------------------
# Through HashingVectorizer with 2**31 - 2 columns: any difference in a term
# changes its hash (and no vocabulary of a million terms is built). Lone
# surrogates are left out: UTF-8 cannot encode them (test_lone_surrogates).

def _all_code_points(step=4096, sep="", repeat=1):
    chars = [chr(c) * repeat for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF]
    return [sep.join(chars[i:i + step]) + sep for i in range(0, len(chars), step)]


def _assert_same_hashes(docs, **params):
    params.update(n_features=2**31 - 2, norm=None)
    assert_same_csr(fast_text.HashingVectorizer(**params).fit_transform(docs),
                    sk_text.HashingVectorizer(**params).fit_transform(docs))


def test_lowercase_of_every_code_point_is_str_lower():
    # char unigrams hash every lowercased code point (sigma included, in context)
    _assert_same_hashes(_all_code_points(), analyzer="char")


def test_word_characters_of_every_code_point_are_re_w():
    # one-character tokens: exactly the (lowercased) \w characters
    for lowercase in (True, False):
        _assert_same_hashes(_all_code_points(sep=" "), lowercase=lowercase,
                            token_pattern=r"(?u)\b\w+\b")


def test_whitespace_of_every_code_point_is_re_s():
    # each code point twice: the char analyzer turns a whitespace pair (r"\s\s+")
    # into one space; char_wb splits on whitespace (str.split), so that a
    # whitespace code point is in no n-gram of the padded words
    for analyzer in ("char", "char_wb"):
        _assert_same_hashes(_all_code_points(repeat=2), analyzer=analyzer,
                            lowercase=False)


@pytest.mark.parametrize("word", ["ΣΑΣ", "ΟΔΟΣ", "Σ", "ΑΣ.Σ", "Α\u0345Σ", "ΑΣ\u00adΑ",
                                  "Α'Σ", "ΑΣ'", "ΑΣ\u0301Α", "ΑΣ\u0301", "\U00010400Σ",
                                  "İΣ", "ΣİΣ", "ǅΣ"])
def test_final_sigma_in_context(word):
    docs = [word, word + " " + word.lower(), "x" + word + "x", "1" + word]
    assert_same_as_sklearn(docs, {})
    assert_same_as_sklearn(docs, {"analyzer": "char", "ngram_range": (1, 2)})


# -- edge cases ----------------------------------------------------------------------

def test_lone_surrogates():
    docs = ["ab\udc80cd", "x\ud800 yy"]
    # word tokens never hold a surrogate; char n-grams do: UTF-8 cannot encode
    # them, so scikit-learn's hashing raises, and its counting does not
    assert_same_as_sklearn(docs, {})
    assert_same_as_sklearn(docs, {"analyzer": "char"})
    with pytest.raises(UnicodeEncodeError):
        fast_text.HashingVectorizer(analyzer="char").fit_transform(docs)


def test_long_tokens_and_documents():
    docs = ["a" * 100_000, "日本" * 30_000 + " x", ("word " * 20_000).strip(),
            "é" * 5 + " " + "Σ" * 70_000]
    assert_same_as_sklearn(docs, {})
    assert_same_as_sklearn(docs, {"ngram_range": (1, 3)})
    assert_same_as_sklearn(docs, {"analyzer": "char_wb", "ngram_range": (3, 3)})


@settings(deadline=None, max_examples=30)
@given(features=st.lists(st.lists(st.binary(max_size=20) | st.text(max_size=9),
                                  max_size=8), min_size=1, max_size=5))
def test_murmurhash_of_bytes_and_str_features(features):
    # a callable analyzer returning bytes or str: MurmurHash3 of every length
    params = {"analyzer": lambda i: features[i], "norm": None, "n_features": 2**31 - 2}
    docs = list(range(len(features)))
    expected = sk_text.HashingVectorizer(**params).fit_transform(docs)
    assert_same_csr(fast_text.HashingVectorizer(**params).fit_transform(docs), expected)


def test_hash_collisions_and_cancelling_signs():
    words = [a + b for a in "abcdefgh" for b in "abcdefgh"]
    docs = [" ".join(words[i:i + 9]) for i in range(0, 60, 3)]
    for n_features in (1, 2, 3, 8):
        assert_same_as_sklearn(docs, {"n_features": n_features, "norm": None})
        assert_same_as_sklearn(docs, {"n_features": n_features, "binary": True})
        assert_same_as_sklearn(docs, {"n_features": n_features, "norm": "l2"})
    # explicit zeros stay, as scipy's sum_duplicates leaves them
    X = fast_text.HashingVectorizer(n_features=2, norm=None).fit_transform(docs)
    assert (X.data == 0).any()


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64, np.int32, np.int16,
                                   np.int8, np.uint8, np.uint64, bool, np.complex128,
                                   np.longdouble, np.float16, None])
@pytest.mark.parametrize("norm", [None, "l1", "l2"])
def test_dtypes(dtype, norm):
    docs = corpus()[:6] + ["word " * 300]
    assert_same_as_sklearn(docs, {"dtype": dtype, "norm": norm})
    assert_same_as_sklearn(docs, {"dtype": dtype, "norm": norm, "alternate_sign": False,
                                  "binary": True})


def test_empty_inputs():
    for docs in (["", "", "."], ["a b c"], [""]):
        assert_same_as_sklearn(docs, {})
        assert_same_as_sklearn(docs, {"analyzer": "char_wb"})
    with pytest.raises(ValueError, match="empty vocabulary"):
        fast_text.CountVectorizer().fit_transform([])
    with pytest.raises(ValueError, match="Cannot vectorize empty sequence"):
        fast_text.HashingVectorizer().fit_transform([])


def test_min_df_max_df_max_features():
    docs = corpus()
    for params in ({"min_df": 1.0}, {"min_df": 3}, {"max_df": 2}, {"max_df": 0.1},
                   {"min_df": 0.1, "max_df": 0.9, "max_features": 10},
                   {"max_features": 1}, {"max_features": 10_000},
                   {"max_df": 0.5, "min_df": 0.6}, {"min_df": 1000}):
        assert_same_as_sklearn(docs, params)


def test_fixed_vocabularies():
    docs = corpus()
    for vocabulary in (["the", "of", "σας", "qqq"], {"of": 1, "the": 0},
                       {"of", "the", "a"}, ("the", "the"),
                       {"the": 0, "of": 2}, [], ["The", "of"], ["of", 5, ("a",)]):
        assert_same_as_sklearn(docs, {"vocabulary": vocabulary})


def test_documents_of_other_types():
    docs = corpus()[:4]

    class Documents(list):
        pass

    for container in (tuple, Documents, np.array, lambda d: np.array(d, dtype=object)):
        assert_same_as_sklearn(container(docs), {})
    assert_same_as_sklearn(np.array(docs), {"lowercase": False})
    for name in VECTORIZERS:  # one pass over an iterator, as scikit-learn makes
        expected = getattr(sk_text, name)().fit_transform(iter(docs))
        assert_same_csr(getattr(fast_text, name)().fit_transform(iter(docs)), expected)

    class Text(str):
        def lower(self):
            return "upper " + str.lower(self)

    assert_same_as_sklearn([Text(d) for d in docs], {})
    for bad in ([np.nan], ["ok", 5], ["ok", None], "a string"):
        assert_same_as_sklearn(bad, {})


def test_invalid_parameters_raise_like_sklearn():
    docs = corpus()[:3]
    for params in ({"norm": "l3"}, {"n_features": 0}, {"n_features": 2.0},
                   {"ngram_range": (2, 1)}, {"ngram_range": [1, 2]},
                   {"stop_words": "French"}, {"stop_words": {"a"}},
                   {"analyzer": "words"}, {"strip_accents": "none"},
                   {"binary": 1}, {"lowercase": "yes"}, {"input": "url"},
                   {"decode_error": "skip"}, {"encoding": 5}, {"min_df": 2.0},
                   {"max_df": -1}, {"max_features": 0}, {"vocabulary": 5},
                   {"dtype": "not a dtype"}, {"token_pattern": r"(a)(b)"}):
        assert_same_as_sklearn(docs, params)


def test_parameters_are_validated_in_fit_not_init():
    vectorizer = fast_text.HashingVectorizer(norm="l3")
    assert vectorizer.norm == "l3"
    with pytest.raises(ValueError, match="'norm' parameter"):
        vectorizer.fit(["a b"])
    with pytest.raises(ValueError, match="'n_threads' parameter"):
        fast_text.CountVectorizer(n_threads=0).fit(["a b"])


@pytest.mark.parametrize("alphabet", ["abcdefghijklmnopqrstuvwxyz0123456789_",
                                      "aé_ßçñ9", "\u4e00\u4e8c\u4e09a"])
@pytest.mark.parametrize("pattern", [r"(?u)\b\w\w+\b", r"(?u)\b\w+\b"])
def test_every_token_length_hashes_as_sklearn(alphabet, pattern):
    """Tokens of 1 to 40 code points, at every position of a document: the
    short-token hash (up to 12 code points, no branch on the length) and the
    long one give scikit-learn's columns and signs."""
    rng = np.random.default_rng(len(alphabet))
    letters = np.array(list(alphabet))
    words = ["".join(rng.choice(letters, size=n)) for n in range(1, 41) for _ in range(3)]
    docs = [" ".join(words[i:] + words[:i]) for i in range(0, len(words), 7)]
    docs += [w for w in words]  # one token, at the very end of its buffer
    for n_features in (2**20, 1000, 1):
        assert_same_as_sklearn(docs, {"token_pattern": pattern,
                                      "n_features": n_features})


# -- threads ---------------------------------------------------------------------------

@pytest.mark.parametrize("params", [{}, {"ngram_range": (1, 2), "stop_words": "english"},
                                    {"analyzer": "char_wb", "ngram_range": (2, 4)},
                                    {"max_features": 50, "min_df": 2},
                                    {"norm": "l1", "binary": True, "dtype": np.float32},
                                    {"norm": None, "alternate_sign": False}])
def test_threads_give_the_same_bits(monkeypatch, params):
    monkeypatch.setattr(text_params, "PARALLEL_MIN_CHARS", 0)
    monkeypatch.setattr(text_params, "PARALLEL_MIN_VALUES", 0)
    docs = corpus() * 3
    for name in VECTORIZERS:
        kwargs = params_for(name, params)
        one = getattr(fast_text, name)(n_threads=1, **kwargs)
        X1 = one.fit_transform(docs)
        for n_threads in (2, 3, 7, None):
            many = getattr(fast_text, name)(n_threads=n_threads, **kwargs)
            assert_same_csr(many.fit_transform(docs), X1)
            if name == "CountVectorizer":
                assert list(many.vocabulary_.items()) == list(one.vocabulary_.items())
                assert_same_csr(many.transform(docs), one.transform(docs))
    assert_same_as_sklearn(docs, params, n_threads=2)


@settings(deadline=None, max_examples=20)
@given(docs=st.lists(_document, min_size=1, max_size=12))
def test_threads_on_generated_text(docs):
    saved = text_params.PARALLEL_MIN_CHARS, text_params.PARALLEL_MIN_VALUES
    text_params.PARALLEL_MIN_CHARS = text_params.PARALLEL_MIN_VALUES = 0
    try:
        for name in VECTORIZERS:
            X1, error1 = outcome(
                lambda: getattr(fast_text, name)(n_threads=1).fit_transform(docs))
            X2, error2 = outcome(
                lambda: getattr(fast_text, name)(n_threads=3).fit_transform(docs))
            assert type(error1) is type(error2)
            if error1 is None:
                assert_same_csr(X2, X1)
    finally:
        text_params.PARALLEL_MIN_CHARS, text_params.PARALLEL_MIN_VALUES = saved


# -- the estimator API -----------------------------------------------------------------

@pytest.mark.parametrize("name", VECTORIZERS)
def test_estimator_protocol(name):
    from sklearn.base import clone
    from sklearn.utils.estimator_checks import (
        check_get_params_invariance,
        check_no_attributes_set_in_init,
        check_parameters_default_constructible,
        check_set_params,
    )

    cls = getattr(fast_text, name)
    vectorizer = cls(ngram_range=(1, 2), n_threads=1)
    check_parameters_default_constructible(name, cls())
    check_no_attributes_set_in_init(name, vectorizer)
    check_get_params_invariance(name, vectorizer)
    check_set_params(name, vectorizer)
    sk_params = sorted(getattr(sk_text, name)().get_params())
    assert sorted(vectorizer.get_params()) == sorted(sk_params + ["n_threads"])
    copy = clone(vectorizer)
    assert copy.get_params() == vectorizer.get_params() and copy is not vectorizer
    assert repr(cls()) == f"{name}()"
    assert "ngram_range=(1, 2)" in repr(vectorizer)


@pytest.mark.parametrize("name", VECTORIZERS)
def test_fit_transform_equals_fit_then_transform(name):
    docs = corpus()
    vectorizer = getattr(fast_text, name)()
    X = vectorizer.fit_transform(docs)
    Y = getattr(fast_text, name)().fit(docs).transform(docs)
    assert X.shape == Y.shape and (X != Y).nnz == 0
    if name == "HashingVectorizer":
        assert_same_csr(X, Y)
        assert vectorizer.partial_fit(docs) is vectorizer


@pytest.mark.parametrize("name", VECTORIZERS)
def test_pickle_round_trip(name):
    docs = corpus()
    vectorizer = getattr(fast_text, name)(ngram_range=(1, 2), stop_words="english")
    X = vectorizer.fit_transform(docs)
    restored = pickle.loads(pickle.dumps(vectorizer))
    assert restored.get_params() == vectorizer.get_params()
    assert_same_csr(restored.transform(docs), vectorizer.transform(docs))
    if name == "CountVectorizer":
        assert restored.vocabulary_ == vectorizer.vocabulary_
    assert X.nnz


def test_count_vectorizer_methods():
    docs = corpus()
    ours = fast_text.CountVectorizer().fit(docs)
    theirs = sk_text.CountVectorizer().fit(docs)
    X = ours.transform(docs)
    for a, b in zip(ours.inverse_transform(X), theirs.inverse_transform(X)):
        np.testing.assert_array_equal(a, b)
    for a, b in zip(ours.inverse_transform(X.toarray()), theirs.inverse_transform(X)):
        np.testing.assert_array_equal(a, b)
    assert ours.build_analyzer()(docs[0]) == theirs.build_analyzer()(docs[0])
    assert ours.build_tokenizer()(docs[1]) == theirs.build_tokenizer()(docs[1])
    assert ours.build_preprocessor()(docs[2]) == theirs.build_preprocessor()(docs[2])
    assert ours.decode(b"abc") == "abc"
    with pytest.raises(fastnb.NotFittedError):
        fast_text.CountVectorizer().transform(docs)
    with pytest.raises(ValueError, match="string object received"):
        ours.transform("one string")
    assert fast_text.strip_accents_unicode("Crème") == sk_text.strip_accents_unicode(
        "Crème")
    assert fast_text.strip_accents_ascii("Crème") == sk_text.strip_accents_ascii("Crème")
    assert fast_text.strip_tags("<a>x</a>") == sk_text.strip_tags("<a>x</a>")


def test_warnings_like_sklearn():
    docs = corpus()[:3]
    for params in ({"stop_words": ["The"]}, {"tokenizer": str.split},
                   {"analyzer": "char", "stop_words": "english"},
                   {"vocabulary": ["The"]}):
        for name in VECTORIZERS:
            kwargs = params_for(name, params)
            with warnings.catch_warnings(record=True) as theirs:
                warnings.simplefilter("always")
                outcome(lambda: getattr(sk_text, name)(**kwargs).fit_transform(docs))
            with warnings.catch_warnings(record=True) as ours:
                warnings.simplefilter("always")
                outcome(lambda: getattr(fast_text, name)(**kwargs).fit_transform(docs))
            assert [str(w.message) for w in ours] == [str(w.message) for w in theirs]


def test_sparse_array_interface_follows_sklearn_config():
    import sklearn

    docs = corpus()[:3]
    with sklearn.config_context(sparse_interface="sparray"):
        assert_same_as_sklearn(docs, {})
        assert isinstance(fast_text.CountVectorizer().fit_transform(docs), sp.csr_array)


def _labelled_corpus():
    docs = corpus()
    y = np.array([i % 3 for i in range(len(docs))])
    return docs * 4, np.tile(y, 4)


@pytest.mark.parametrize("name", VECTORIZERS)
def test_pipelines_with_fastnb_and_sklearn_naive_bayes(name):
    from sklearn.model_selection import cross_val_score
    from sklearn.naive_bayes import MultinomialNB as SklearnMultinomialNB
    from sklearn.pipeline import make_pipeline

    docs, y = _labelled_corpus()
    params = {"alternate_sign": False} if name == "HashingVectorizer" else {}
    reference = make_pipeline(getattr(sk_text, name)(**params), SklearnMultinomialNB())
    expected = reference.fit(docs, y).predict_proba(docs)
    for model in (fastnb.MultinomialNB(), SklearnMultinomialNB()):
        pipeline = make_pipeline(getattr(fast_text, name)(**params), model)
        pipeline.fit(docs, y)
        np.testing.assert_allclose(pipeline.predict_proba(docs), expected, rtol=1e-10)
        np.testing.assert_array_equal(pipeline.predict(docs), reference.predict(docs))
    scores = cross_val_score(make_pipeline(getattr(fast_text, name)(**params),
                                           fastnb.MultinomialNB()), docs, y, cv=3)
    assert scores.shape == (3,)


# -- imports ---------------------------------------------------------------------------

def _run_python(code, folder):
    """Run code in a fresh interpreter outside the source tree; its stdout."""
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            cwd=folder)
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_import_needs_only_numpy(tmp_path):
    code = (
        "import sys, fastnb.text\n"
        "assert 'sklearn' not in sys.modules, 'sklearn imported'\n"
        "assert 'scipy' not in sys.modules, 'scipy imported'\n"
        "X = fastnb.text.HashingVectorizer().fit_transform(['a text'])\n"
        "assert 'sklearn' not in sys.modules, 'sklearn imported by transform'\n"
        "print(type(X).__name__)\n"
    )
    assert _run_python(code, tmp_path).strip() == "csr_matrix"


def test_without_scipy_the_error_names_the_text_extra(tmp_path):
    code = (
        "import sys\n"
        "sys.modules['scipy'] = None\n"  # as if scipy were not installed
        "import fastnb.text\n"
        "try:\n"
        "    fastnb.text.CountVectorizer().fit_transform(['a text'])\n"
        "except ImportError as error:\n"
        "    print(error)\n"
    )
    message = _run_python(code, tmp_path)
    assert 'pip install "fastnb[text]"' in message
    # "fastnb[text]" needs the package on an index; from a clone, the folder does
    assert 'pip install ".[text]"' in message
