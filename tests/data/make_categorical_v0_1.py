"""Writes the CategoricalNB fixtures of fastnb 0.1 (run once, with that version).

tests/test_categorical_compat.py loads them with the current fastnb: a pickle and
an ``.npz`` (``model.save``) of each kind of feature, and the inputs and
predictions they were made with. Kept so that the fixtures can be regenerated,
never by the test suite::

    python -P tests/data/make_categorical_v0_1.py tests/data
"""

import pathlib
import pickle
import sys

import numpy as np
import pandas as pd

import fastnb


def models():
    rng = np.random.default_rng(101)
    n = 60
    y = rng.integers(0, 3, n)
    labels = np.array(["lo", "mid", "hi"], dtype=object)[y]
    X_codes = rng.integers(0, 5, (n, 3))
    ints = np.array([-(2**63), -5, 0, 7, 2**62], dtype=np.int64)
    X_ints = np.stack([ints[rng.integers(0, 5, n)], rng.integers(0, 9, n)], axis=1)
    X_floats = np.stack([rng.choice([-2.5, 0.25, 1e300, np.nan], n),
                         rng.choice([0.0, 1.0, 3.0], n)], axis=1)
    mixed = np.array([True, 3, 2.5, "s", "\u00e9\U0001f600", b"\x00\xff", 2**64 + 3,
                      np.str_("npstr"), None], dtype=object)
    X_objects = mixed[rng.integers(0, mixed.size, (n, 3))]
    frame = pd.DataFrame({
        "cat": pd.Categorical(rng.choice(["a", "b", "c"], n),
                              categories=["a", "b", "c", "never"]),
        "str": rng.choice(["p", "q"], n).astype(object),
        "int": rng.integers(-3, 3, n),
    })
    online = fastnb.CategoricalNB(class_prior=[0.2, 0.3, 0.5])
    online.partial_fit(X_objects[:30], y[:30], classes=[0, 1, 2])
    online.partial_fit(X_objects[30:], y[30:])
    return {
        "codes": (fastnb.CategoricalNB().fit(X_codes, y), X_codes),
        "ints": (fastnb.CategoricalNB(alpha=0.5).fit(X_ints, labels), X_ints),
        "floats": (fastnb.CategoricalNB(fit_prior=False).fit(X_floats, y), X_floats),
        "objects": (fastnb.CategoricalNB().fit(X_objects, y), X_objects),
        "dataframe": (fastnb.CategoricalNB().fit(frame, labels), frame),
        "hash_buckets": (fastnb.CategoricalNB(hash_buckets=7).fit(X_objects, y),
                         X_objects),
        "min_categories": (fastnb.CategoricalNB(min_categories=[6, 2, 8]).fit(
            X_codes, y), X_codes),
        "partial_fit": (online, X_objects),
    }


def main(folder):
    folder = pathlib.Path(folder)
    cases = {}
    for name, (model, X) in models().items():
        cases[name] = {"model": model, "X": X,
                       "jll": model.predict_joint_log_proba(X),
                       "predict": model.predict(X)}
        model.save(folder / f"categorical_v0_1_{name}.npz")
    with open(folder / "categorical_v0_1.pickle", "wb") as handle:
        pickle.dump({"fastnb_version": fastnb.__version__, "cases": cases}, handle,
                    protocol=4)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).parent)
