"""asv benchmarks for CategoricalNB, with scikit-learn beside it.

scikit-learn's CategoricalNB takes integer codes only; for strings and 64-bit IDs
its baseline is the OrdinalEncoder + CategoricalNB pipeline people use.
"""

import numpy as np

from .common import EstimatorTimings, library_estimator


def _codes(n, d, n_categories, k, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    X = (rng.integers(0, n_categories, (n, d)) + (y[:, None] * 3) * (
        rng.random((n, d)) < 0.3)) % n_categories
    return X.astype(np.int64), y


def _estimator(library, values, n_threads):
    if library == "fastnb" or values == "codes":
        return library_estimator(library, "CategoricalNB", n_threads=n_threads)
    from sklearn.naive_bayes import CategoricalNB
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OrdinalEncoder

    return make_pipeline(
        OrdinalEncoder(handle_unknown="use_encoded_value", unknown_value=-1,
                       dtype=np.int64),
        CategoricalNB(),
    )


class CategoricalNBSuite(EstimatorTimings):
    """C1 / C1s shapes: fit, predict, predict_proba and peak memory."""

    param_names = ["library", "n_samples", "values", "n_threads"]
    params = (
        ["fastnb", "sklearn"],
        [100_000, 1_000_000],
        ["codes", "strings"],
        [1, 2],
    )
    timeout = 600
    n_features, n_categories, n_classes = 20, 50, 5

    def setup(self, library, n_samples, values, n_threads):
        if library == "sklearn" and n_threads != 1:
            raise NotImplementedError("scikit-learn's CategoricalNB has no threads")
        self.X, self.y = _codes(n_samples, self.n_features, self.n_categories,
                                self.n_classes)
        if values == "strings":
            self.X = self.X.astype(str).astype(object)
        self.model = _estimator(library, values, n_threads)
        self.model.fit(self.X, self.y)


class CategoricalNBHighCardinality(EstimatorTimings):
    """C2 shape: one feature of distinct 64-bit IDs plus 10 code features."""

    param_names = ["library", "n_distinct"]
    params = (["fastnb", "sklearn"], [100_000, 1_000_000])
    timeout = 600

    def setup(self, library, n_distinct):
        rng = np.random.default_rng(0)
        n = 1_000_000
        ids = rng.integers(-(2**63), 2**63 - 1, n_distinct, dtype=np.int64,
                           endpoint=True)
        self.y = rng.integers(0, 5, n)
        self.X = np.column_stack([ids[rng.permutation(n) % n_distinct],
                                  rng.integers(0, 50, (n, 10))])
        self.model = _estimator(library, "ids", 1 if library == "sklearn" else None)
        self.model.fit(self.X, self.y)


class CategoricalNBSmallBatches:
    """C3: a stream of partial_fit batches of 100 rows x 20 code features (the
    categories already seen) into a model fitted on 100,000 rows; each timing
    runs 50 consecutive batches (the time per batch is a fiftieth)."""

    param_names = ["library"]
    params = (["fastnb", "sklearn"],)
    n_batches = 50

    def setup(self, library):
        X, y = _codes(100_000 + 100 * self.n_batches, 20, 50, 5)
        self.classes = np.unique(y)
        self.batches = [(X[i:i + 100], y[i:i + 100])
                        for i in range(100_000, X.shape[0], 100)]
        self.model = library_estimator(library, "CategoricalNB")
        self.model.fit(X[:100_000], y[:100_000])

    def time_partial_fit_50_batches(self, library):
        for Xb, yb in self.batches:
            self.model.partial_fit(Xb, yb, classes=self.classes)
