"""GaussianNB workloads G1-G3 for the side-by-side benchmark."""

import numpy as np

from harness import Case, MemoryCase


def _data(n, d, k, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    X = rng.standard_normal((n, d))
    X += y[:, None] * 0.1
    return X, y


def cases(quick=False):
    import fastnb
    from sklearn.naive_bayes import GaussianNB as SklearnGaussianNB

    out = []
    scale = 20 if quick else 1
    # G1: n=1,000,000, d=100, k=10 float64.
    n1, n2 = 1_000_000 // scale, 100_000 // scale
    X, y = _data(n1, 100, 10)
    ours, theirs = fastnb.GaussianNB(), SklearnGaussianNB()
    ours.fit(X, y)
    theirs.fit(X, y)
    g1 = f"G1 n={n1:.0e} d=100 k=10"
    out += [
        Case(g1, "fit", lambda: ours.fit(X, y), lambda: theirs.fit(X, y), 30),
        Case(g1, "predict", lambda: ours.predict(X), lambda: theirs.predict(X), 30),
        Case(g1, "predict_proba", lambda: ours.predict_proba(X),
             lambda: theirs.predict_proba(X), 25),
        # The whole fit (validation and label encoding included) against one read of X.
        Case(g1, "fit vs X.sum()", lambda: ours.fit(X, y), lambda: X.sum(), 0.5,
             baseline="X.sum()"),
    ]
    # G2: n=100,000, d=20, k=2.
    X2, y2 = _data(n2, 20, 2, seed=1)
    ours2, theirs2 = fastnb.GaussianNB(), SklearnGaussianNB()
    ours2.fit(X2, y2)
    theirs2.fit(X2, y2)
    g2 = f"G2 n={n2:.0e} d=20 k=2"
    out += [
        Case(g2, "fit", lambda: ours2.fit(X2, y2), lambda: theirs2.fit(X2, y2)),
        Case(g2, "predict", lambda: ours2.predict(X2), lambda: theirs2.predict(X2)),
        Case(g2, "predict_proba", lambda: ours2.predict_proba(X2),
             lambda: theirs2.predict_proba(X2)),
    ]
    # G3: latency on 1 and 100 rows of the G1 model (d=100, k=10).
    one, hundred = np.ascontiguousarray(X[:1]), np.ascontiguousarray(X[:100])
    out += [
        Case("G3 latency d=100 k=10", "predict 1 row", lambda: ours.predict(one),
             lambda: theirs.predict(one), max_seconds=10e-6, inner_loops=2000),
        Case("G3 latency d=100 k=10", "predict 100 rows", lambda: ours.predict(hundred),
             lambda: theirs.predict(hundred), inner_loops=500),
    ]
    return out


def memory_cases(quick=False):
    import fastnb

    X, y = _data(100_000, 100, 10)
    model = fastnb.GaussianNB().fit(X, y)
    allowance = 64 * 1024 + 8 * 10 * 100 * 4  # O(k*d) slack
    return [
        MemoryCase("G1-shape n=1e5", "predict", lambda: model.predict(X), allowance),
        MemoryCase("G1-shape n=1e5", "predict_proba", lambda: model.predict_proba(X),
                   allowance),
        MemoryCase("G1-shape n=1e5", "predict_joint_log_proba",
                   lambda: model.predict_joint_log_proba(X), allowance),
    ]
