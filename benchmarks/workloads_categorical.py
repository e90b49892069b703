"""CategoricalNB workloads C1, C1s and C2 for the side-by-side benchmark.

C1   n=1,000,000, d=20 integer codes with 50 categories each, k=5, against
     scikit-learn's CategoricalNB (targets: fit 30x, predict 10x, predict_proba 8x).
C1s  the same data as strings (an object array of distinct str objects), against
     scikit-learn's OrdinalEncoder + CategoricalNB pipeline (fit 5x, predict 5x).
C2   one feature of 1,000,000 distinct 64-bit IDs plus 10 ordinary features, k=5,
     against the OrdinalEncoder pipeline (scikit-learn's CategoricalNB cannot take
     the raw IDs: it would need a 2**63-column table). No speed target: fit, predict
     and memory must grow with the distinct values seen, see memory_cases().
C3   a stream of partial_fit batches of 100 rows x 20 code features (categories
     already seen) into a model fitted on C1's first 100,000 rows (--quick: half):
     the small-call cost, at most 60 microseconds a batch (against scikit-learn's,
     timed alike).
"""

import numpy as np

from harness import Case, MemoryCase, streamer


def c1_data(n, d=20, n_categories=50, k=5, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    # Class-dependent category frequencies, so that predictions are not trivial.
    X = (rng.integers(0, n_categories, (n, d)) + (y[:, None] * 3) * (
        rng.random((n, d)) < 0.3)) % n_categories
    return X.astype(np.int64), y


def c2_data(n, n_ids, d_small=10, k=5, seed=0):
    rng = np.random.default_rng(seed)
    ids = rng.integers(-(2**63), 2**63 - 1, n_ids, dtype=np.int64, endpoint=True)
    y = rng.integers(0, k, n)
    id_column = ids[rng.permutation(n) % n_ids]
    small = rng.integers(0, 50, (n, d_small))
    return np.column_stack([id_column, small]), y


C3_BATCH = 100
C3_BATCHES_PER_TIMING = 50


def _pipeline():
    from sklearn.naive_bayes import CategoricalNB
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OrdinalEncoder

    return make_pipeline(
        OrdinalEncoder(handle_unknown="use_encoded_value", unknown_value=-1,
                       dtype=np.int64),
        CategoricalNB(),
    )


def cases(quick=False):
    import fastnb
    from sklearn.naive_bayes import CategoricalNB as SklearnCategoricalNB

    out = []
    scale = 20 if quick else 1
    n = 1_000_000 // scale

    X, y = c1_data(n)
    ours, theirs = fastnb.CategoricalNB(), SklearnCategoricalNB()
    ours.fit(X, y)
    theirs.fit(X, y)
    c1 = f"C1 n={n:.0e} d=20 50 cats k=5"
    out += [
        Case(c1, "fit", lambda: ours.fit(X, y), lambda: theirs.fit(X, y), 30),
        Case(c1, "predict", lambda: ours.predict(X), lambda: theirs.predict(X), 10),
        Case(c1, "predict_proba", lambda: ours.predict_proba(X),
             lambda: theirs.predict_proba(X), 8),
    ]

    # Distinct str objects per cell, as text parsers produce them.
    Xs = X.astype(str).astype(object)
    ours_s, theirs_s = fastnb.CategoricalNB(), _pipeline()
    ours_s.fit(Xs, y)
    theirs_s.fit(Xs, y)
    c1s = f"C1s n={n:.0e} d=20 strings k=5"
    out += [
        Case(c1s, "fit", lambda: ours_s.fit(Xs, y), lambda: theirs_s.fit(Xs, y), 5,
             baseline="OrdinalEncoder+CategoricalNB"),
        Case(c1s, "predict", lambda: ours_s.predict(Xs), lambda: theirs_s.predict(Xs),
             5, baseline="OrdinalEncoder+CategoricalNB"),
    ]

    X2, y2 = c2_data(n, n)
    ours2, theirs2 = fastnb.CategoricalNB(), _pipeline()
    ours2.fit(X2, y2)
    theirs2.fit(X2, y2)
    c2 = f"C2 n={n:.0e} {n:.0e} distinct 64-bit IDs + 10 features k=5"
    out += [
        Case(c2, "fit", lambda: ours2.fit(X2, y2), lambda: theirs2.fit(X2, y2),
             baseline="OrdinalEncoder+CategoricalNB"),
        Case(c2, "predict", lambda: ours2.predict(X2), lambda: theirs2.predict(X2),
             baseline="OrdinalEncoder+CategoricalNB"),
        Case(c2, "predict_proba", lambda: ours2.predict_proba(X2),
             lambda: theirs2.predict_proba(X2), baseline="OrdinalEncoder+CategoricalNB"),
    ]

    # each timing runs C3_BATCHES_PER_TIMING consecutive batches (a stream) and
    # reports the time per batch, on both sides
    n3 = min(n // 2, 100_000)
    classes = np.unique(y)
    batches = [(X[i:i + C3_BATCH], y[i:i + C3_BATCH])
               for i in range(n3, min(n, n3 + 200 * C3_BATCH), C3_BATCH)]
    ours3 = fastnb.CategoricalNB().fit(X[:n3], y[:n3])
    theirs3 = SklearnCategoricalNB().fit(X[:n3], y[:n3])
    out.append(Case(f"C3 batch={C3_BATCH} d=20 50 cats k=5", "partial_fit per batch",
                    streamer(ours3, batches, classes),
                    streamer(theirs3, batches, classes), max_seconds=60e-6,
                    inner_loops=C3_BATCHES_PER_TIMING))
    return out


def memory_cases(quick=False):
    import fastnb

    n = 1_000_000 // (20 if quick else 1)
    X2, y2 = c2_data(n, n)
    model = fastnb.CategoricalNB().fit(X2, y2)
    # Fit keeps O(n) index arrays (class codes) plus per distinct value: the
    # growable table and counts, then the sorted categories, keys, counts, log
    # probabilities and frozen table of the model: budget 400 bytes per distinct.
    fit_allowance = 16 * n + 400 * n
    return [
        MemoryCase(f"C2 n={n:.0e} distinct={n:.0e}", "fit",
                   lambda: fastnb.CategoricalNB().fit(X2, y2), fit_allowance),
        MemoryCase(f"C2 n={n:.0e} distinct={n:.0e}", "predict",
                   lambda: model.predict(X2), 8 * n + (1 << 20)),
    ]
