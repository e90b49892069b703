"""O1-O2: onnxruntime's single-row latency of an exported model beside fastnb's
own one-row ``predict`` (no target: a fact users ask for). O3: the export of the
T1 model (2**20 hashed features, 35 classes, on the sparse count table) to ONNX
bytes, against issue 45's bound of 2 s, with the file's size against the model's
float32 weights (bound: 1.1x) in its operation.

O1: GaussianNB, 100 features, 10 classes (G1's shape), one float32 row to
onnxruntime, one float64 row to fastnb. O2: MultinomialNB on 2**18 hashed
features, 35 classes (on fastnb's sparse count table), one document: a CSR row
to fastnb, a dense (1, 2**18) float32 row to onnxruntime (ONNX inputs are dense).
The exported graphs are fastnb.onnx.to_onnx's with ``zipmap=False``; "predict"
fetches the label only, "predict_proba" the probabilities only. onnxruntime runs
with one intra-op thread (fastnb scores one row on one thread too). Skipped
when onnx or onnxruntime is not installed.
"""

import pathlib
import sys

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

from harness import Case  # noqa: E402
from workloads_discrete import text_counts  # noqa: E402


def _session(onnx_model):
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.log_severity_level = 3
    return ort.InferenceSession(onnx_model.SerializeToString(), options,
                                providers=["CPUExecutionProvider"])


def _latency_cases(workload, model, row, session, feed, inner_loops):
    """predict and predict_proba of one row: fastnb's against onnxruntime's."""
    return [
        Case(workload, operation, lambda method=method: method(row),
             lambda output=output: session.run([output], feed), baseline="onnxruntime",
             inner_loops=inner_loops)
        for operation, method, output in (("predict", model.predict, "label"),
                                          ("predict_proba", model.predict_proba,
                                           "probabilities"))
    ]


def cases(quick=False):
    try:
        import onnxruntime  # noqa: F401

        from fastnb.onnx import to_onnx
    except ImportError:
        return []  # the onnx extra is not installed
    import fastnb

    rng = np.random.default_rng(0)
    # O1: GaussianNB, d=100, k=10
    n = 2_000 if quick else 20_000
    y = rng.integers(0, 10, n)
    X = rng.standard_normal((n, 100)) + y[:, None] * 0.1
    gaussian = fastnb.GaussianNB().fit(X, y)
    one = np.ascontiguousarray(X[:1])
    out = _latency_cases("O1 onnxruntime 1 row GaussianNB d=100 k=10", gaussian, one,
                         _session(to_onnx(gaussian, X[:1], zipmap=False)),
                         {"X": one.astype(np.float32)}, 2000)
    # O2: MultinomialNB, 2**18 hashed features, 35 classes
    n_docs = 2_000 if quick else 20_000
    counts, labels = text_counts(n_docs, 2**18, 35, nnz_per_row=30, seed=3)
    multinomial = fastnb.MultinomialNB().fit(counts, labels)
    document = counts[:1]
    out += _latency_cases("O2 onnxruntime 1 row MultinomialNB V=2^18 k=35", multinomial,
                          document, _session(to_onnx(multinomial, None, zipmap=False)),
                          {"X": document.toarray().astype(np.float32)}, 20)
    # O3: the T1 model exported (to_onnx, then the bytes of the file)
    from workloads_textscale import N_CLASSES, t1_data

    X_t1, y_t1 = t1_data(quick=quick)
    t1 = fastnb.MultinomialNB().fit(X_t1, y_t1)
    size = len(to_onnx(t1, None, zipmap=False).SerializeToString())
    ratio = size / (X_t1.shape[1] * N_CLASSES * 4)
    out.append(Case(f"O3 export T1 V=2^{X_t1.shape[1].bit_length() - 1} k={N_CLASSES}",
                    f"to_onnx + SerializeToString (file {ratio:.4f}x the float32 weights)",
                    lambda: to_onnx(t1, None, zipmap=False).SerializeToString(),
                    baseline="(a bound, no peer)", max_seconds=2.0))
    return out
