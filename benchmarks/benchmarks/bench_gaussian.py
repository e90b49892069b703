"""asv benchmarks for GaussianNB, with scikit-learn's GaussianNB beside it."""

import numpy as np

from .common import EstimatorTimings, gaussian_data, library_estimator


class GaussianNBSuite(EstimatorTimings):
    """fit / predict / predict_proba / peak memory over size, dtype and threads."""

    param_names = ["library", "n_samples", "dtype", "n_threads"]
    params = (
        ["fastnb", "sklearn"],
        [100_000, 1_000_000],
        ["float64", "float32"],
        [1, 2],
    )
    timeout = 300
    n_features, n_classes = 100, 10

    def setup(self, library, n_samples, dtype, n_threads):
        if library == "sklearn" and n_threads != 1:
            raise NotImplementedError("scikit-learn's GaussianNB has no thread setting")
        self.X, self.y = gaussian_data(n_samples, self.n_features, self.n_classes,
                                       np.dtype(dtype))
        self.model = library_estimator(library, "GaussianNB", n_threads=n_threads)
        self.model.fit(self.X, self.y)


class GaussianNBLatency:
    """Predict latency on 1 and 100 rows (d=100, k=10)."""

    param_names = ["library", "n_rows"]
    params = (["fastnb", "sklearn"], [1, 100])

    def setup(self, library, n_rows):
        X, y = gaussian_data(10_000, 100, 10, np.float64)
        self.model = library_estimator(library, "GaussianNB").fit(X, y)
        self.rows = np.ascontiguousarray(X[:n_rows])

    def time_predict(self, library, n_rows):
        self.model.predict(self.rows)
