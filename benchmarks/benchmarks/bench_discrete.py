"""asv benchmarks for BernoulliNB, MultinomialNB and ComplementNB.

Each suite has a ``library`` parameter: "fastnb" and "sklearn" (the scikit-learn
baseline) run side by side on the same data (workloads B1 and M1, scaled).
"""

import pathlib
import sys

import numpy as np

from .common import EstimatorTimings, library_estimator

# The data makers are shared with the side-by-side workloads.
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
from workloads_discrete import bernoulli_data, text_counts  # noqa: E402


class BernoulliNBSuite(EstimatorTimings):
    """B1: 0/1 features, d=200, k=5, as float64 or as a bool matrix."""

    param_names = ["library", "n_samples", "dtype", "binarize", "n_threads"]
    params = (
        ["fastnb", "sklearn"],
        [100_000, 1_000_000],
        ["float64", "bool"],
        [0.0, None],
        [1, 2],
    )
    timeout = 300

    def setup(self, library, n_samples, dtype, binarize, n_threads):
        if library == "sklearn" and n_threads != 1:
            raise NotImplementedError("scikit-learn's BernoulliNB has no thread setting")
        X, self.y = bernoulli_data(n_samples, 200, 5)
        self.X = X.astype(np.float64) if dtype == "float64" else X
        self.model = library_estimator(library, "BernoulliNB", binarize=binarize,
                                       n_threads=n_threads)
        self.model.fit(self.X, self.y)


class BernoulliNBSklearnBaseline(BernoulliNBSuite):
    """scikit-learn's BernoulliNB alone on B1 (the baseline beside the fastnb suite)."""

    param_names = ["n_samples", "dtype", "binarize"]
    params = ([100_000, 1_000_000], ["float64", "bool"], [0.0, None])

    def setup(self, n_samples, dtype, binarize):
        super().setup("sklearn", n_samples, dtype, binarize, 1)


class _TextSuite(EstimatorTimings):
    """M1: CSR term counts, 2**18 features, ~100 nonzeros per row, k=20."""

    model_name = None
    param_names = ["library", "n_samples", "n_threads"]
    params = (["fastnb", "sklearn"], [20_000, 200_000], [1, 2])
    timeout = 300

    def setup(self, library, n_samples, n_threads):
        if library == "sklearn" and n_threads != 1:
            raise NotImplementedError("scikit-learn has no thread setting here")
        self.X, self.y = text_counts(n_samples, 2**18, 20)
        self.model = library_estimator(library, self.model_name, n_threads=n_threads)
        self.model.fit(self.X, self.y)
        # Time predict in its steady state: a first predict of the timed batch builds
        # the feature-major weights that fastnb's large CSR predicts read (a dense
        # model builds them on any first predict; a model on the sparse count
        # table, the 20,000-row shape since 9ac655f, on its first large one).
        self.model.predict(self.X)


class MultinomialNBSuite(_TextSuite):
    model_name = "MultinomialNB"


class ComplementNBSuite(_TextSuite):
    model_name = "ComplementNB"


class MultinomialNBSklearnBaseline(MultinomialNBSuite):
    """scikit-learn's MultinomialNB alone on M1."""

    param_names = ["n_samples"]
    params = ([20_000, 200_000],)

    def setup(self, n_samples):
        super().setup("sklearn", n_samples, 1)


class ComplementNBSklearnBaseline(ComplementNBSuite):
    """scikit-learn's ComplementNB alone on M1."""

    param_names = ["n_samples"]
    params = ([20_000, 200_000],)

    def setup(self, n_samples):
        super().setup("sklearn", n_samples, 1)
