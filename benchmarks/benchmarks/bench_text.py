"""asv benchmarks for fastnb.text, with sklearn.feature_extraction.text beside it.

The corpus is workload V1's (a Zipf vocabulary with accents and CJK), scaled by
``n_docs``: 25,000 documents are about 26 MB of UTF-8.
"""

import pathlib
import sys

# The corpus maker is shared with the side-by-side workloads.
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
from workloads_text import v1_corpus  # noqa: E402

_CORPORA = {}


def _corpus(n_docs):
    if n_docs not in _CORPORA:
        _CORPORA[n_docs] = v1_corpus(n_docs)
    return _CORPORA[n_docs]


def _vectorizer(library, name, n_threads, **params):
    if library == "fastnb":
        from fastnb import text

        return getattr(text, name)(n_threads=n_threads, **params)
    from sklearn.feature_extraction import text

    return getattr(text, name)(**params)


class VectorizerSuite:
    """fit_transform / transform time and peak memory, over size and threads."""

    param_names = ["library", "vectorizer", "n_docs", "n_threads"]
    params = (
        ["fastnb", "sklearn"],
        ["HashingVectorizer", "CountVectorizer"],
        [2_500, 25_000],
        [1, 2],
    )
    timeout = 600

    def setup(self, library, vectorizer, n_docs, n_threads):
        if library == "sklearn" and n_threads != 1:
            raise NotImplementedError("scikit-learn's vectorizers have no threads")
        self.docs, self.y = _corpus(n_docs)
        self.vectorizer = _vectorizer(library, vectorizer, n_threads)
        self.vectorizer.fit(self.docs)

    def time_fit_transform(self, *params):
        self.vectorizer.fit_transform(self.docs)

    def time_transform(self, *params):
        self.vectorizer.transform(self.docs)

    def peakmem_fit_transform(self, *params):
        self.vectorizer.fit_transform(self.docs)


_OPTIONS = {
    "ngram_range=(1, 2)": {"ngram_range": (1, 2)},
    "stop_words='english'": {"stop_words": "english"},
    "analyzer='char_wb'": {"analyzer": "char_wb"},
    "strip_accents='unicode'": {"strip_accents": "unicode"},
    "min_df=2, max_features=1000": {"min_df": 2, "max_features": 1000},
}


class AnalyzerSuite:
    """The other analyzers and options on 2,500 V1 documents, one thread."""

    param_names = ["library", "options"]
    params = (["fastnb", "sklearn"], list(_OPTIONS))
    timeout = 300

    def setup(self, library, options):
        self.docs, _ = _corpus(2_500)
        self.params = _OPTIONS[options]

    def time_count_vectorizer(self, library, options):
        _vectorizer(library, "CountVectorizer", 1, **self.params).fit_transform(self.docs)

    def time_hashing_vectorizer(self, library, options):
        params = {k: v for k, v in self.params.items()
                  if k not in ("min_df", "max_features")}
        _vectorizer(library, "HashingVectorizer", 1, **params).fit_transform(self.docs)


class TextPipelineSuite:
    """Raw text -> HashingVectorizer -> fitted MultinomialNB -> predictions."""

    param_names = ["library", "n_docs"]
    params = (["fastnb", "sklearn"], [2_500, 25_000])
    timeout = 600

    def setup(self, library, n_docs):
        self.docs, self.y = _corpus(n_docs)
        if library == "fastnb":
            import fastnb

            self.model = fastnb.MultinomialNB()
        else:
            from sklearn.naive_bayes import MultinomialNB

            self.model = MultinomialNB()
        self.vectorizer = _vectorizer(library, "HashingVectorizer", None,
                                      alternate_sign=False)

    def time_fit_predict(self, *params):
        self.model.fit(self.vectorizer.fit_transform(self.docs), self.y)
        self.model.predict(self.vectorizer.transform(self.docs))
