"""CountVectorizer's short-term index (terms of up to 12 code points, looked up
by their packed code points) against scikit-learn: many distinct terms (so that
the index grows several times), lengths around the 12-code-point limit, code
points of every width, and any thread count."""

import numpy as np
import pytest

sp = pytest.importorskip("scipy.sparse")
sk_text = pytest.importorskip("sklearn.feature_extraction.text")

from fastnb import text as fast_text  # noqa: E402
from fastnb.text import _params as text_params  # noqa: E402

# word characters of 1, 2 and 4 bytes per code point in CPython's str
_ALPHABETS = ["abcdefghij", "aéßçñ\u4e00\u4e8c", "a\U0001d400\U0001d401\u4e00é"]


def _documents(alphabet, n_terms=6000, seed=0):
    rng = np.random.default_rng(seed)
    letters = np.array(list(alphabet))
    lengths = rng.choice([2, 3, 5, 9, 11, 12, 13, 14, 20], size=n_terms)
    words = ["".join(rng.choice(letters, size=n)) for n in lengths]
    # each word several times, the common ones in most documents
    draws = rng.zipf(1.3, size=40 * n_terms) % n_terms
    sizes = rng.integers(0, 300, size=len(draws) // 150)
    ends = np.cumsum(sizes)
    return [" ".join(words[i] for i in draws[e - s:e]) + (". " if s % 3 else "")
            for s, e in zip(sizes, ends) if e <= len(draws)]


@pytest.mark.parametrize("alphabet", _ALPHABETS)
def test_many_terms_near_the_key_length(monkeypatch, alphabet):
    monkeypatch.setattr(text_params, "PARALLEL_MIN_CHARS", 0)
    docs = _documents(alphabet)
    theirs = sk_text.CountVectorizer()
    expected = theirs.fit_transform(docs)
    assert len(theirs.vocabulary_) > 3000  # the index (4096 slots at first) grew
    for n_threads in (1, 2, 5):
        ours = fast_text.CountVectorizer(n_threads=n_threads)
        got = ours.fit_transform(docs)
        assert list(ours.vocabulary_.items()) == list(theirs.vocabulary_.items())
        assert got.dtype == expected.dtype
        assert got.indices.dtype == expected.indices.dtype
        np.testing.assert_array_equal(got.indptr, expected.indptr)
        np.testing.assert_array_equal(got.indices, expected.indices)
        np.testing.assert_array_equal(got.data, expected.data)


def test_unigrams_with_ngrams_and_stop_words():
    """The index holds unigrams; bigrams (with a space) go to the term table."""
    docs = _documents("abcdefghij", n_terms=3000, seed=1)
    params = {"ngram_range": (1, 2), "stop_words": ["abc", "ab"], "min_df": 2}
    theirs = sk_text.CountVectorizer(**params)
    expected = theirs.fit_transform(docs)
    ours = fast_text.CountVectorizer(**params, n_threads=1)
    got = ours.fit_transform(docs)
    assert list(ours.vocabulary_.items()) == list(theirs.vocabulary_.items())
    np.testing.assert_array_equal(got.indices, expected.indices)
    np.testing.assert_array_equal(got.data, expected.data)
