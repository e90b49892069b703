"""asv benchmarks of fastnb.inspection (issue 43, workload E1 of side_by_side.py).

The T1 model (hashed text, 2**20 features, 35 classes, the sparse count table):
top-10 explanations of every row beside its predict, their peak memory, and the
informative features of the whole model; GaussianNB (d=100, k=10): dense
contributions of 10,000 rows beside predict_joint_log_proba.
"""

import pathlib
import sys

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
from workloads_textscale import N_CLASSES, N_FEATURES  # noqa: E402
from workloads_discrete import text_counts  # noqa: E402


class InspectionT1(object):
    """Explaining the T1 model's predictions."""

    param_names = ["n_samples"]
    params = ([10_000, 100_000],)
    timeout = 600

    def setup(self, n_samples):
        import fastnb

        self.X, y = text_counts(n_samples, N_FEATURES, N_CLASSES, nnz_per_row=30,
                                seed=11)
        self.model = fastnb.MultinomialNB().fit(self.X, y)
        self.model.predict(self.X)

    def time_predict(self, n_samples):
        self.model.predict(self.X)

    def time_top_contributions(self, n_samples):
        from fastnb.inspection import top_contributions
        top_contributions(self.model, self.X, n=10)

    def peakmem_top_contributions(self, n_samples):
        from fastnb.inspection import top_contributions
        top_contributions(self.model, self.X, n=10)

    def time_informative_features(self, n_samples):
        from fastnb.inspection import informative_features
        informative_features(self.model, n=20)


class InspectionGaussian(object):
    """Dense contributions of a GaussianNB (d=100, k=10)."""

    def setup(self):
        import fastnb

        rng = np.random.default_rng(0)
        y = rng.integers(0, 10, 100_000)
        X = rng.standard_normal((100_000, 100)) + y[:, None] * 0.1
        self.model = fastnb.GaussianNB().fit(X, y)
        self.rows = np.ascontiguousarray(X[:10_000])

    def time_predict_joint_log_proba(self):
        self.model.predict_joint_log_proba(self.rows)

    def time_contributions(self):
        from fastnb.inspection import contributions
        contributions(self.model, self.rows)
