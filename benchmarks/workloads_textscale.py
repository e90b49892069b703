"""Text-scale workloads T1 (fit/predict) and S1 (a stream of partial_fit batches).

T1: 100,000 documents, ~30 non-zeros each (Zipf tokens over 2**20 hashed
features), 35 classes, CSR float64. S1: the same documents as ``partial_fit``
batches of 1,000. A River column (``learn_one`` per document) is added where
River is installed (the optional ``bench`` extra).

S1 times a run of ``S1_BATCHES_PER_TIMING`` consecutive batches per timing, on
both sides, and reports the time per batch: a stream. Timing one batch alone
right after scikit-learn's (which streams ~300 MB of dense counts through the
caches per batch) measured fastnb on a cold cache, 2-3x its time in a stream.
MultinomialNB and ComplementNB compute the entry weights that batches changed at
the next predict (once for all the batches since the last one): S1 counts the
counting; a predict after every batch would add that refresh to each.
"""

import pathlib
import sys
import time
import tracemalloc

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

from harness import Case, MemoryCase, streamer  # noqa: E402
from workloads_discrete import text_counts  # noqa: E402

N_FEATURES = 2**20
N_CLASSES = 35
BATCH = 1_000
S1_BATCHES_PER_TIMING = 10
MODELS = ("MultinomialNB", "ComplementNB", "BernoulliNB")


def t1_data(quick=False):
    n = 10_000 if quick else 100_000
    return text_counts(n, N_FEATURES, N_CLASSES, nnz_per_row=30, seed=11)


def _batches(X, y):
    return [(X[i:i + BATCH], y[i:i + BATCH]) for i in range(0, X.shape[0], BATCH)]


def cases(quick=False):
    import fastnb
    from sklearn import naive_bayes as sk

    X, y = t1_data(quick)
    classes = np.unique(y)
    t1 = f"T1 n={X.shape[0]:.0e} V=2^20 nnz/row={X.nnz / X.shape[0]:.0f} k=35"
    s1 = "S1 batch=1000 V=2^20 k=35"
    batches = _batches(X, y)
    one_doc = X[:1]
    out = []
    for name in MODELS:
        ours = getattr(fastnb, name)().fit(X, y)
        theirs = getattr(sk, name)().fit(X, y)
        out += [
            Case(f"{t1} {name}", "fit", lambda o=ours: o.fit(X, y),
                 lambda t=theirs: t.fit(X, y), 30),
            Case(f"{t1} {name}", "predict", lambda o=ours: o.predict(X),
                 lambda t=theirs: t.predict(X), 10),
            # scikit-learn takes ~0.2 s per document here: timed alone, against the bound
            Case(f"{t1} {name}", "predict 1 document", lambda o=ours: o.predict(one_doc),
                 None, max_seconds=5e-6, inner_loops=200),
            # the models are fully trained on T1 before the stream goes on
            Case(f"{s1} {name}", "partial_fit per batch",
                 streamer(ours, batches, classes), streamer(theirs, batches, classes),
                 300,
                 inner_loops=S1_BATCHES_PER_TIMING),
        ]
    out += _river_cases(X, y, quick)
    return out


def _river_cases(X, y, quick):
    """Stream throughput of MultinomialNB against River's learn_one, if installed."""
    try:
        from river import naive_bayes as river_nb
    except ImportError:
        return []
    import fastnb

    n_docs = 2_000 if quick else 10_000
    Xs, ys = X[:n_docs], y[:n_docs]
    docs = []
    for i in range(n_docs):
        start, stop = Xs.indptr[i], Xs.indptr[i + 1]
        docs.append(dict(zip(Xs.indices[start:stop].tolist(), Xs.data[start:stop].tolist())))
    labels = ys.tolist()
    classes = np.unique(y)
    # each side gets its input ready in its own format, outside the timing: River
    # its dicts, fastnb its CSR batches (slicing a CSR matrix costs ~0.3 ms a batch)
    batches = _batches(Xs, ys)

    def ours():
        model = fastnb.MultinomialNB()
        for Xb, yb in batches:
            model.partial_fit(Xb, yb, classes=classes)

    def river():
        model = river_nb.MultinomialNB()
        for doc, label in zip(docs, labels):
            model.learn_one(doc, label)

    return [Case(f"S1 {n_docs} docs MultinomialNB", "stream (partial_fit per 1,000)",
                 ours, river, 50, baseline="River learn_one")]


def _peak_bytes(function):
    tracemalloc.start()
    try:
        function()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def memory_cases(quick=False):
    import fastnb
    from sklearn import naive_bayes as sk

    X, y = t1_data(quick)
    out = []
    for name in MODELS:
        theirs = _peak_bytes(lambda: getattr(sk, name)().fit(X, y))
        case = MemoryCase(f"T1 {name}", "fit",
                          lambda n=name: getattr(fastnb, n)().fit(X, y), theirs // 10)
        case.notes.append(f"scikit-learn: {theirs / 2**20:.0f} MiB")
        out.append(case)
    return out


def growth(quick=False, repeats=5):
    """partial_fit time per batch at increasing model sizes (should stay flat)."""
    import fastnb

    X, y = t1_data(quick)
    classes = np.unique(y)
    batches = _batches(X, y)
    rows = []
    for name in MODELS:
        model = getattr(fastnb, name)()
        times = []
        for i, (Xb, yb) in enumerate(batches):
            start = time.perf_counter()
            model.partial_fit(Xb, yb, classes=classes)
            times.append(time.perf_counter() - start)
        q = len(times) // 4
        rows.append((name, np.median(times[1:q + 1]), np.median(times[-q:])))
    return rows


if __name__ == "__main__":
    for name, early, late in growth():
        print(f"{name}: partial_fit per batch, first quarter {early * 1e3:.2f} ms, "
              f"last quarter {late * 1e3:.2f} ms")
