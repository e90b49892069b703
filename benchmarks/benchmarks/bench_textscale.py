"""asv benchmarks of the count models at text scale (issue 11): T1 and S1.

T1: hashed-text CSR counts, 2**20 features, ~30 non-zeros per row, 35 classes
(fit, predict, 1-document predict, peak memory of fit); S1: the same documents
as a stream of ``partial_fit`` batches of 1,000 (also with a predict between
batches); 1-document batches into a model first fitted with dense counts. A ``library`` parameter runs
fastnb and scikit-learn side by side on the same data; River's ``learn_one``
stream is a third library where River is installed (the ``bench`` extra).
"""

import pathlib
import sys

import numpy as np

from .common import library_estimator

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
from workloads_textscale import BATCH, N_CLASSES, N_FEATURES  # noqa: E402
from workloads_discrete import text_counts  # noqa: E402

MODELS = ["MultinomialNB", "ComplementNB", "BernoulliNB"]


def _t1(n_samples):
    return text_counts(n_samples, N_FEATURES, N_CLASSES, nnz_per_row=30, seed=11)


def _batches(X, y, start, stop):
    """Rows [start, stop) as partial_fit batches of BATCH documents."""
    return [(X[i:i + BATCH], y[i:i + BATCH]) for i in range(start, stop, BATCH)]


def _next_batch(bench):
    """partial_fit the benchmark's model on its next batch (cycling)."""
    Xb, yb = bench.batches[bench.i % len(bench.batches)]
    bench.i += 1
    bench.model.partial_fit(Xb, yb, classes=bench.classes)


class TextScaleT1(object):
    """T1 fit, predict and 1-document predict."""

    param_names = ["library", "model", "n_samples"]
    params = (["fastnb", "sklearn"], MODELS, [10_000, 100_000])
    timeout = 600

    def setup(self, library, model, n_samples):
        self.X, self.y = _t1(n_samples)
        self.one = self.X[:1]
        self.model = library_estimator(library, model).fit(self.X, self.y)

    def time_fit(self, *params):
        self.model.fit(self.X, self.y)

    def time_predict(self, *params):
        self.model.predict(self.X)

    def time_predict_one_document(self, *params):
        self.model.predict(self.one)

    def peakmem_fit(self, *params):
        self.model.fit(self.X, self.y)


class _TextScaleStream(object):
    """A model fitted on the first T1 documents, and batches of later ones."""

    param_names = ["library", "model"]
    params = (["fastnb", "sklearn"], MODELS)
    timeout = 600

    def _setup(self, library, model, fitted, batched):
        X, y = _t1(100_000)
        self.classes = np.unique(y)
        self.batches = _batches(X, y, *batched)
        self.model = library_estimator(library, model).fit(X[:fitted], y[:fitted])
        self.i = 0
        return X


class TextScaleS1(_TextScaleStream):
    """S1: one partial_fit batch of 1,000 documents into a model trained on T1."""

    def setup(self, library, model):
        self._setup(library, model, 100_000, (0, 100_000))

    def time_partial_fit_batch(self, *params):
        _next_batch(self)


class TextScaleInterleaved(_TextScaleStream):
    """A stream that predicts between its batches: partial_fit of 1,000 T1
    documents, then a predict of 4,000 (a batch large enough for the feature
    slots, which the predict patches for what the batch changed)."""

    def setup(self, library, model):
        X = self._setup(library, model, 50_000, (50_000, 90_000))
        self.test = X[90_000:94_000]
        self.model.predict(self.test)

    def time_partial_fit_then_predict(self, *params):
        _next_batch(self)
        self.model.predict(self.test)


class SmallBatchAfterDenseFit(object):
    """1-document partial_fit batches into a model whose first fit kept dense
    counts (20,000 documents over a small vocabulary, 35 classes): its counts
    move into the sparse table at the first small batch, so that the time of a
    call stays flat as the vocabulary grows (scikit-learn's grows with it)."""

    param_names = ["library", "model", "n_features"]
    params = (["fastnb", "sklearn"], MODELS, [4_096, 16_384])
    timeout = 600

    def setup(self, library, model, n_features):
        X, y = text_counts(20_100, n_features, N_CLASSES, nnz_per_row=30, seed=11)
        self.classes = np.unique(y)
        self.model = library_estimator(library, model).fit(X[:20_000], y[:20_000])
        self.batches = [(X[i:i + 1], y[i:i + 1]) for i in range(20_000, 20_100)]
        self.i = 0

    def time_partial_fit_one_document(self, *params):
        _next_batch(self)


class TextScaleStreamRiver(object):
    """2,000 documents streamed into MultinomialNB: fastnb's partial_fit per 1,000
    documents against River's learn_one per document (skipped without River)."""

    param_names = ["library"]
    params = (["fastnb", "river"],)
    timeout = 600

    def setup(self, library):
        X, y = _t1(2_000)
        self.X, self.y, self.classes = X, y, np.unique(y)
        if library == "river":
            try:
                from river import naive_bayes as river_nb
            except ImportError:
                raise NotImplementedError("River is not installed")
            self.make = river_nb.MultinomialNB
            self.docs = [dict(zip(X.indices[X.indptr[i]:X.indptr[i + 1]].tolist(),
                                  X.data[X.indptr[i]:X.indptr[i + 1]].tolist()))
                         for i in range(X.shape[0])]
            self.labels = y.tolist()

    def time_stream(self, library):
        if library == "river":
            model = self.make()
            for doc, label in zip(self.docs, self.labels):
                model.learn_one(doc, label)
            return
        model = library_estimator("fastnb", "MultinomialNB")
        for start in range(0, self.X.shape[0], BATCH):
            model.partial_fit(self.X[start:start + BATCH], self.y[start:start + BATCH],
                              classes=self.classes)
