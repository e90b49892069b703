"""asv benchmarks for ColumnwiseNB on a mixed pandas table (X1's shape), with the
sum of its sub-models on pre-split arrays beside it."""

import numpy as np

from .common import EstimatorTimings


def mixed_frame(n, k=5, seed=0):
    """5 float, 3 string (50 values, pandas str) and 2 bool columns; and the same
    data pre-split: a float block, an object array of the strings, a bool block."""
    import pandas as pd

    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    floats = rng.normal(size=(n, 5)) + 0.3 * y[:, None]
    words = np.array([f"value-{i:02d}" for i in range(50)], dtype=object)
    strings = words[(rng.integers(0, 50, (n, 3)) + y[:, None]) % 50]
    bools = rng.random((n, 2)) < 0.3 + 0.1 * y[:, None]
    frame = pd.DataFrame({
        **{f"f{j}": floats[:, j] for j in range(5)},
        **{f"s{j}": pd.array(strings[:, j], dtype="str") for j in range(3)},
        **{f"b{j}": bools[:, j] for j in range(2)},
    })
    return frame, y, (floats, strings, bools)


class _SubModels:
    """GaussianNB, CategoricalNB and BernoulliNB on pre-split arrays, called one
    after the other (the reference ColumnwiseNB is measured against)."""

    def __init__(self, arrays, n_threads):
        import fastnb

        self.arrays = arrays
        self.models = [fastnb.GaussianNB(n_threads=n_threads),
                       fastnb.CategoricalNB(n_threads=n_threads),
                       fastnb.BernoulliNB(n_threads=n_threads)]

    def fit(self, X, y):
        for model, part in zip(self.models, self.arrays):
            model.fit(part, y)
        return self

    def predict(self, X):
        return [model.predict(part) for model, part in zip(self.models, self.arrays)]

    def predict_proba(self, X):
        return [model.predict_proba(part) for model, part in zip(self.models,
                                                                 self.arrays)]


class ColumnwiseNBSuite(EstimatorTimings):
    """fit / predict / predict_proba / peak memory over size and threads."""

    param_names = ["model", "n_samples", "n_threads"]
    params = (["ColumnwiseNB", "sub-models on pre-split arrays"], [100_000, 1_000_000],
              [1, 2])
    timeout = 300

    def setup(self, model, n_samples, n_threads):
        import fastnb

        self.X, self.y, arrays = mixed_frame(n_samples)
        if model == "ColumnwiseNB":
            self.model = fastnb.ColumnwiseNB(n_threads=n_threads)
        else:
            self.model = _SubModels(arrays, n_threads)
        self.model.fit(self.X, self.y)
