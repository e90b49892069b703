"""ColumnwiseNB workload X1 for the side-by-side benchmark.

X1  n=1,000,000 rows of a pandas DataFrame: 5 float columns, 3 string columns
    (50 values each, pandas' default str dtype) and 2 bool columns, k=5.

    Against the sum of the sub-models' own calls on pre-split arrays (a C-ordered
    float64 block, an object array of the strings, a bool block): fastnb's
    GaussianNB, CategoricalNB and BernoulliNB, fitted or predicting one after the
    other. Target: ColumnwiseNB within 1.2x of that sum (speedup >= 1/1.2).

    Against wnb's GeneralNB (pure Python, the one other package that mixes
    distributions per column) on a 200,000-row slice: predict >= 100x. wnb reads
    X as floats only, so it gets the strings already encoded as integer codes
    0..49 (and the bools as 0/1), while ColumnwiseNB reads the strings. wnb is
    optional (``pip install wnb``, in the ``bench`` extra); its rows are left out
    when it is not installed.

Memory: the peak extra memory of predict and predict_proba against what they
return; allowed on top: a fixed block of scratch (two (block, k) float64 buffers
and each sub-model's input for one block of rows), which does not grow with n.
"""

import numpy as np

from harness import Case, MemoryCase


def x1_data(n, k=5, seed=0):
    """(frame, y, (floats, strings, bools)): the table and its pre-split arrays."""
    import pandas as pd

    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    floats = rng.normal(size=(n, 5)) + 0.3 * y[:, None]
    vocabulary = np.array([f"value-{i:02d}" for i in range(50)], dtype=object)
    strings = vocabulary[(rng.integers(0, 50, (n, 3))
                          + y[:, None] * (rng.random((n, 3)) < 0.3)) % 50]
    bools = rng.random((n, 2)) < 0.3 + 0.1 * y[:, None]
    frame = pd.DataFrame({
        **{f"f{j}": floats[:, j] for j in range(5)},
        **{f"s{j}": pd.array(strings[:, j], dtype="str") for j in range(3)},
        **{f"b{j}": bools[:, j] for j in range(2)},
    })
    return frame, y, (floats, strings, bools)


def _wnb_model():
    """wnb's GeneralNB with X1's distributions per column, or None without wnb."""
    try:
        from wnb import Distribution, GeneralNB
    except ImportError:
        return None
    return GeneralNB(distributions=[
        (Distribution.NORMAL, [f"f{j}" for j in range(5)]),
        (Distribution.CATEGORICAL, [f"s{j}" for j in range(3)]),
        (Distribution.BERNOULLI, [f"b{j}" for j in range(2)]),
    ])


def cases(quick=False):
    import fastnb

    n = 50_000 if quick else 1_000_000
    frame, y, (floats, strings, bools) = x1_data(n)
    model = fastnb.ColumnwiseNB().fit(frame, y)
    parts = [fastnb.GaussianNB(), fastnb.CategoricalNB(), fastnb.BernoulliNB()]
    arrays = [floats, strings, bools]
    for part, X in zip(parts, arrays):
        part.fit(X, y)

    def fit_parts():
        for part, X in zip(parts, arrays):
            part.fit(X, y)

    def predict_parts(method):
        return lambda: [getattr(part, method)(X) for part, X in zip(parts, arrays)]

    x1 = f"X1 n={n:.0e} 5 float + 3 str + 2 bool k=5"
    baseline = "sum of sub-models on pre-split arrays"
    out = [
        Case(x1, "fit", lambda: model.fit(frame, y), fit_parts, 1 / 1.2,
             baseline=baseline),
        Case(x1, "predict", lambda: model.predict(frame), predict_parts("predict"),
             1 / 1.2, baseline=baseline),
        Case(x1, "predict_proba", lambda: model.predict_proba(frame),
             predict_parts("predict_proba"), baseline=baseline),
    ]
    theirs = _wnb_model()
    if theirs is not None:
        n_slice = 2_000 if quick else 200_000
        rows = frame.iloc[:n_slice]
        # wnb's input: the strings as their codes 0..49, bools as 0/1, all floats.
        encoded = rows.copy()
        for j in range(3):
            encoded[f"s{j}"] = rows[f"s{j}"].str.slice(6).astype(np.float64)
        for j in range(2):
            encoded[f"b{j}"] = rows[f"b{j}"].astype(np.float64)
        theirs.fit(encoded, y[:n_slice])
        ours = fastnb.ColumnwiseNB().fit(rows, y[:n_slice])
        label = f"X1 n={n_slice:.0e} slice"
        out += [
            Case(label, "fit", lambda: ours.fit(rows, y[:n_slice]),
                 lambda: theirs.fit(encoded, y[:n_slice]), baseline="wnb GeneralNB"),
            Case(label, "predict", lambda: ours.predict(rows),
                 lambda: theirs.predict(encoded), 100, baseline="wnb GeneralNB"),
        ]
    return out


def memory_cases(quick=False):
    import fastnb
    from fastnb import _columnwise

    n = 50_000 if quick else 1_000_000
    frame, y, _ = x1_data(n)
    model = fastnb.ColumnwiseNB().fit(frame, y)
    k, block = 5, min(n, _columnwise._PREDICT_BLOCK_ROWS)
    # Per thread (each takes its own blocks): two (block, k) float64 buffers; the
    # string and bool columns' int32 codes (5 x 4 bytes a row; the float block is
    # a view of the frame, and the string and bool sub-models are tabled), with
    # room to spare for a mixed frame whose blocks are copied (at most 128 bytes a
    # row); plus 1 MiB of model-sized slack.
    allowance = fastnb.effective_n_threads() * block * (2 * k * 8 + 128) + (1 << 20)
    label = f"X1 n={n:.0e} k=5"
    return [
        MemoryCase(label, "predict", lambda: model.predict(frame), allowance),
        MemoryCase(label, "predict_proba", lambda: model.predict_proba(frame), allowance),
    ]
