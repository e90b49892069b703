"""Discrete workloads B1 (BernoulliNB) and M1 (MultinomialNB, ComplementNB)."""

import numpy as np

from harness import Case, MemoryCase


def bernoulli_data(n, d, k, seed=0):
    """0/1 features whose rates depend on the class; returned as a bool matrix."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    rates = rng.uniform(0.1, 0.9, size=(k, d))
    X = np.empty((n, d), dtype=bool)
    step = 50_000
    for start in range(0, n, step):
        stop = min(n, start + step)
        X[start:stop] = rng.random((stop - start, d)) < rates[y[start:stop]]
    return X, y


def text_counts(n, n_features, k, nnz_per_row=100, seed=0):
    """CSR term counts: Zipf-like tokens (rank ** -1.05), class-dependent vocabulary.

    Every document draws tokens from one Zipf distribution over a vocabulary that
    each class permutes in part, so the classes differ; repeated tokens become
    counts, and about ``nnz_per_row`` distinct tokens remain per document.
    """
    import scipy.sparse as sp

    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    cdf = np.cumsum(np.arange(1, n_features + 1, dtype=np.float64) ** -1.05)
    cdf /= cdf[-1]
    draws = int(nnz_per_row * 1.27)  # repeats of frequent tokens merge into counts
    ranks = np.searchsorted(cdf, rng.random(n * draws)).astype(np.int64)
    np.minimum(ranks, n_features - 1, out=ranks)
    # class-specific vocabularies: each class swaps its own 20% of the ranks
    shifts = rng.integers(1, n_features, size=k)
    row_class = np.repeat(y, draws)
    swap = rng.random(n * draws) < 0.2
    ranks[swap] = (ranks[swap] * 7919 + shifts[row_class[swap]]) % n_features
    rows = np.repeat(np.arange(n, dtype=np.int64), draws)
    X = sp.csr_matrix(
        (np.ones(n * draws), (rows, ranks)), shape=(n, n_features), dtype=np.float64
    )
    X.sum_duplicates()
    return X, y


def cases(quick=False):
    import fastnb
    from sklearn import naive_bayes as sk

    scale = 20 if quick else 1
    out = []

    # B1: BernoulliNB, n=1,000,000, d=200, 0/1 features, k=5; float64 and bool.
    n = 1_000_000 // scale
    Xb, y = bernoulli_data(n, 200, 5)
    Xf = Xb.astype(np.float64)
    ours, theirs = fastnb.BernoulliNB().fit(Xf, y), sk.BernoulliNB().fit(Xf, y)
    b1 = f"B1 n={n:.0e} d=200 k=5"
    out += [
        Case(f"{b1} float64", "fit", lambda: ours.fit(Xf, y), lambda: theirs.fit(Xf, y),
             20),
        Case(f"{b1} float64", "predict", lambda: ours.predict(Xf),
             lambda: theirs.predict(Xf), 10),
        Case(f"{b1} float64", "predict_proba", lambda: ours.predict_proba(Xf),
             lambda: theirs.predict_proba(Xf)),
    ]
    ours_none = fastnb.BernoulliNB(binarize=None).fit(Xf, y)
    theirs_none = sk.BernoulliNB(binarize=None).fit(Xf, y)
    out += [
        Case(f"{b1} float64 binarize=None", "fit",
             lambda: ours_none.fit(Xf, y), lambda: theirs_none.fit(Xf, y), 1),
        Case(f"{b1} float64 binarize=None", "predict",
             lambda: ours_none.predict(Xf), lambda: theirs_none.predict(Xf), 1),
    ]
    # The same data as a bool matrix: against fastnb on float64, and against sklearn.
    ours_bool = fastnb.BernoulliNB().fit(Xb, y)
    theirs_bool = sk.BernoulliNB().fit(Xb, y)
    out += [
        Case(f"{b1} bool", "fit vs fastnb float64", lambda: ours_bool.fit(Xb, y),
             lambda: ours.fit(Xf, y), 3, baseline="fastnb float64"),
        Case(f"{b1} bool", "predict vs fastnb float64", lambda: ours_bool.predict(Xb),
             lambda: ours.predict(Xf), 3, baseline="fastnb float64"),
        Case(f"{b1} bool", "predict_proba vs fastnb float64",
             lambda: ours_bool.predict_proba(Xb), lambda: ours.predict_proba(Xf),
             baseline="fastnb float64"),
        Case(f"{b1} bool", "fit", lambda: ours_bool.fit(Xb, y),
             lambda: theirs_bool.fit(Xb, y)),
        Case(f"{b1} bool", "predict", lambda: ours_bool.predict(Xb),
             lambda: theirs_bool.predict(Xb)),
    ]

    # M1: CSR counts, n=200,000 documents, 2**18 features, ~100 nonzeros/row, k=20.
    m = 200_000 // scale
    Xs, ys = text_counts(m, 2**18, 20)
    m1 = f"M1 n={m:.0e} V=2^18 nnz/row={Xs.nnz / m:.0f} k=20"
    for name in ("MultinomialNB", "ComplementNB"):
        ours_m = getattr(fastnb, name)().fit(Xs, ys)
        theirs_m = getattr(sk, name)().fit(Xs, ys)
        out += [
            # the text-scale issue raised M1 fit's target from 4x to 10x
            Case(f"{m1} {name}", "fit", lambda o=ours_m: o.fit(Xs, ys),
                 lambda t=theirs_m: t.fit(Xs, ys), 10),
            Case(f"{m1} {name}", "predict", lambda o=ours_m: o.predict(Xs),
                 lambda t=theirs_m: t.predict(Xs), 2.5),
            Case(f"{m1} {name}", "predict_proba", lambda o=ours_m: o.predict_proba(Xs),
                 lambda t=theirs_m: t.predict_proba(Xs)),
        ]
    return out


def memory_cases(quick=False):
    import fastnb

    scale = 20 if quick else 1
    n = 1_000_000 // scale
    Xb, y = bernoulli_data(n, 200, 5)
    Xf = Xb.astype(np.float64)
    model = fastnb.BernoulliNB().fit(Xf, y)
    k, d = 5, 200
    # O(k*d) slack: the model-sized arrays (and the bool table: d/8 x 256 x k).
    allowance = 64 * k * d + ((d + 7) // 8) * 256 * k * 8 + (1 << 20)
    b1 = f"B1 n={n:.0e} d=200 k=5"
    m = 200_000 // scale
    Xs, ys = text_counts(m, 2**18, 20)
    multinomial = fastnb.MultinomialNB().fit(Xs, ys)
    return [
        MemoryCase(f"{b1} float64", "predict", lambda: model.predict(Xf), allowance),
        MemoryCase(f"{b1} float64", "predict_proba", lambda: model.predict_proba(Xf),
                   allowance),
        MemoryCase(f"{b1} bool", "predict", lambda: model.predict(Xb), allowance),
        MemoryCase(f"M1 n={m:.0e} V=2^18 k=20", "predict",
                   lambda: multinomial.predict(Xs), (1 << 20)),
        MemoryCase(f"M1 n={m:.0e} V=2^18 k=20", "predict_proba",
                   lambda: multinomial.predict_proba(Xs), (1 << 20)),
    ]
