"""Shared helpers for the asv suites: data makers and the estimator pairs."""

import numpy as np


def gaussian_data(n, d, k, dtype, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    X = rng.standard_normal((n, d)) + 0.1 * y[:, None]
    return X.astype(dtype), y


def library_estimator(library, name, **params):
    """The estimator class ``name`` from fastnb or from sklearn.naive_bayes."""
    if library == "fastnb":
        import fastnb

        return getattr(fastnb, name)(**params)
    from sklearn import naive_bayes

    params.pop("n_threads", None)
    return getattr(naive_bayes, name)(**params)


class EstimatorTimings:
    """The operations every suite measures, on ``self.model``, ``self.X``, ``self.y``
    (set by the suite's ``setup``): fit, predict, predict_proba, and their peaks."""

    def time_fit(self, *params):
        self.model.fit(self.X, self.y)

    def time_predict(self, *params):
        self.model.predict(self.X)

    def time_predict_proba(self, *params):
        self.model.predict_proba(self.X)

    def peakmem_fit(self, *params):
        self.model.fit(self.X, self.y)

    def peakmem_predict(self, *params):
        self.model.predict(self.X)

    def peakmem_predict_proba(self, *params):
        self.model.predict_proba(self.X)
