"""Text workload V1 for the side-by-side benchmark: fastnb.text against
sklearn.feature_extraction.text.

V1  25,000 documents, about 26 MB of UTF-8: words drawn from a Zipf distribution
    (exponent 1.05) over a vocabulary of 50,000 made-up words, 22% of them with
    accented Latin letters and 8% CJK; 10% of the words capitalised; separated by
    spaces, punctuation and newlines; 5 classes, each favouring its own part of the
    vocabulary. Targets, in one run: HashingVectorizer and CountVectorizer
    fit_transform >= 10x scikit-learn on one thread and >= 15x on two; raw text to a
    fitted MultinomialNB to predictions >= 10x scikit-learn's pipeline; peak memory
    of fit_transform no more than scikit-learn's (see memory_cases()).
"""

import tracemalloc

import numpy as np

from harness import Case, MemoryCase

_LATIN = np.array(list("abcdefghijklmnopqrstuvwxyz"))
_ACCENTED = np.array(list("éèêëàâäçñöüßåøíóúãõœ"))
_CJK = np.array([chr(c) for c in range(0x4E00, 0x4E00 + 3000)])
_SEPARATORS = np.array([" "] * 14 + [", ", ". ", "; ", " - ", " (", ") ", "! ", "? ",
                        "\n", ": "], dtype=object)


def _vocabulary(rng, n_words):
    """n_words distinct made-up words: Latin (some accented) and CJK."""
    words, seen = [], set()
    while len(words) < n_words:
        n = 2 * (n_words - len(words))
        lengths = rng.integers(2, 11, n)
        kind = rng.random(n)
        letters = rng.choice(_LATIN, size=(n, 10))
        accents = rng.random((n, 10)) < 0.15
        letters[accents & (kind[:, None] < 0.30)] = rng.choice(
            _ACCENTED, size=int((accents & (kind[:, None] < 0.30)).sum()))
        cjk = rng.choice(_CJK, size=(n, 4))
        for i in range(n):
            if kind[i] < 0.08:
                word = "".join(cjk[i, : max(2, lengths[i] // 3 + 1)])
            else:
                word = "".join(letters[i, : lengths[i]])
            if word not in seen:
                seen.add(word)
                words.append(word)
                if len(words) == n_words:
                    break
    return np.array(words, dtype=object)


def v1_corpus(n_docs=25_000, n_words=50_000, words_per_doc=128, n_classes=5, seed=0):
    """(documents, labels): the V1 corpus, deterministic for a seed."""
    rng = np.random.default_rng(seed)
    vocabulary = _vocabulary(rng, n_words)
    y = rng.integers(0, n_classes, n_docs)
    lengths = rng.poisson(words_per_doc, n_docs)
    total = int(lengths.sum())
    cdf = np.cumsum(np.arange(1, n_words + 1, dtype=np.float64) ** -1.05)
    cdf /= cdf[-1]
    ranks = np.minimum(np.searchsorted(cdf, rng.random(total)), n_words - 1)
    # each class swaps 20% of its draws into its own stretch of the vocabulary
    row_class = np.repeat(y, lengths)
    swap = rng.random(total) < 0.2
    ranks[swap] = (ranks[swap] * 7919 + 1000 * row_class[swap]) % n_words
    words = vocabulary[ranks]
    capital = rng.random(total) < 0.1
    words[capital] = [w.capitalize() for w in words[capital]]
    parts = np.empty(2 * total, dtype=object)
    parts[0::2] = words
    parts[1::2] = _SEPARATORS[rng.integers(0, len(_SEPARATORS), total)]
    ends = 2 * np.cumsum(lengths)
    starts = ends - 2 * lengths
    docs = ["".join(parts[s:e]) for s, e in zip(starts, ends)]
    return docs, y


def corpus_label(docs):
    megabytes = sum(len(d.encode("utf-8")) for d in docs) / 1e6
    return f"V1 {len(docs):,} docs {megabytes:.1f} MB"


def _pipelines(library, n_threads=None):
    """HashingVectorizer -> MultinomialNB, as text classification pipelines use it."""
    if library == "fastnb":
        import fastnb
        from fastnb.text import HashingVectorizer

        vectorizer = HashingVectorizer(alternate_sign=False, n_threads=n_threads)
        return vectorizer, fastnb.MultinomialNB(n_threads=n_threads)
    from sklearn.feature_extraction.text import HashingVectorizer
    from sklearn.naive_bayes import MultinomialNB

    return HashingVectorizer(alternate_sign=False), MultinomialNB()


def _end_to_end(vectorizer, model, docs, y):
    """Raw documents -> fitted model -> predictions (on the same documents)."""
    model.fit(vectorizer.fit_transform(docs), y)
    return model.predict(vectorizer.transform(docs))


def _v1(quick):
    """The V1 corpus (a twentieth of it when quick), its labels and its name."""
    docs, y = v1_corpus(25_000 // (20 if quick else 1))
    return docs, y, corpus_label(docs)


def cases(quick=False):
    from sklearn.feature_extraction import text as sk_text

    from fastnb import text as fast_text

    docs, y, label = _v1(quick)
    out = []
    for name in ("HashingVectorizer", "CountVectorizer"):
        theirs = getattr(sk_text, name)()
        for threads, target in ((1, 10), (2, 15)):
            ours = getattr(fast_text, name)(n_threads=threads)
            out.append(Case(f"{label} {name}", f"fit_transform, {threads} thread"
                            + ("s" if threads > 1 else ""),
                            lambda ours=ours: ours.fit_transform(docs),
                            lambda theirs=theirs: theirs.fit_transform(docs), target))
    ours_vec, ours_nb = _pipelines("fastnb")
    theirs_vec, theirs_nb = _pipelines("sklearn")
    out.append(Case(f"{label} HashingVectorizer+MultinomialNB", "raw text to predictions",
                    lambda: _end_to_end(ours_vec, ours_nb, docs, y),
                    lambda: _end_to_end(theirs_vec, theirs_nb, docs, y), 10))
    return out


def sklearn_peak_bytes(function):
    """Peak traced bytes of one call (after a warm-up), as run_memory_case does."""
    function()
    tracemalloc.start()
    try:
        function()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def memory_cases(quick=False):
    """fit_transform may use no more memory than scikit-learn's: the allowance is
    scikit-learn's measured peak (less the matrix fastnb returns, which counts
    against fastnb already)."""
    from sklearn.feature_extraction import text as sk_text

    from fastnb import text as fast_text

    docs, _, label = _v1(quick)
    out = []
    for name in ("HashingVectorizer", "CountVectorizer"):
        theirs = getattr(sk_text, name)()
        ours = getattr(fast_text, name)()
        peak = sklearn_peak_bytes(lambda: theirs.fit_transform(docs))
        returned = _matrix_bytes(ours.fit_transform(docs))
        out.append(MemoryCase(f"{label} {name}", "fit_transform (allowed: sklearn's peak)",
                              lambda ours=ours: _Sized(ours.fit_transform(docs)),
                              max(0, peak - returned)))
    return out


def _matrix_bytes(X):
    return X.data.nbytes + X.indices.nbytes + X.indptr.nbytes


class _Sized:
    """A CSR matrix with ``nbytes`` (its three arrays), for run_memory_case."""

    def __init__(self, X):
        self.X = X
        self.nbytes = _matrix_bytes(X)
