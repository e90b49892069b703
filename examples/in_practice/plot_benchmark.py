"""
Speed against scikit-learn
==========================

A small version of fastnb's benchmark, measured each time this documentation
is built: three workloads, fit, predict and predict_proba, fastnb and
scikit-learn in the same process, the median of five runs after a warm-up.
The sizes are kept small so that the example runs in seconds; the machine that
builds the documentation may be busy, so read the ratios as indicative.

The full benchmark, at a million rows, is at the end of this page.
"""

import timeit

import matplotlib.pyplot as plt
import numpy as np
import sklearn.naive_bayes
from scipy import sparse
from sklearn.preprocessing import OrdinalEncoder

import fastnb


def median_time(function, repeats=5):
    """The median of ``repeats`` timed calls, after a warm-up call."""
    function()
    return float(np.median(timeit.repeat(function, number=1, repeat=repeats)))


rng = np.random.default_rng(0)
workloads = {}

# GaussianNB: 200,000 rows, 20 features, 5 classes.
y = rng.integers(0, 5, 200_000)
X = rng.normal(size=(200_000, 20)) + y[:, None]
workloads["GaussianNB\nn=2e5 d=20"] = (
    fastnb.GaussianNB(), sklearn.naive_bayes.GaussianNB(), X, y, X)

# MultinomialNB on a sparse word-count matrix: 20,000 rows, 2**14 words.
n, vocabulary, per_row = 20_000, 2**14, 50
indices = rng.integers(0, vocabulary, n * per_row)
counts = sparse.csr_matrix(
    (np.ones(n * per_row), indices, np.arange(0, n * per_row + 1, per_row)),
    shape=(n, vocabulary))
counts.sum_duplicates()
topic = rng.integers(0, 10, n)
workloads["MultinomialNB\nCSR, V=2^14"] = (
    fastnb.MultinomialNB(), sklearn.naive_bayes.MultinomialNB(), counts, topic, counts)

# CategoricalNB on strings: fastnb reads them; scikit-learn needs an encoder.
strings = rng.choice([f"value-{i}" for i in range(50)], size=(100_000, 5)).astype(object)
label = rng.integers(0, 3, 100_000)
encoder = OrdinalEncoder().fit(strings)
workloads["CategoricalNB\nstrings, n=1e5"] = (
    fastnb.CategoricalNB(), sklearn.naive_bayes.CategoricalNB(), strings, label,
    encoder)

results = []
for name, (ours, theirs, X, y, theirs_input) in workloads.items():
    encode = (theirs_input.transform if isinstance(theirs_input, OrdinalEncoder)
              else (lambda data: data))
    ours.fit(X, y)
    theirs.fit(encode(X), y)
    for operation in ("fit", "predict", "predict_proba"):
        if operation == "fit":
            mine = median_time(lambda: ours.fit(X, y))
            other = median_time(lambda: theirs.fit(encode(X), y))
        else:
            mine = median_time(lambda: getattr(ours, operation)(X))
            other = median_time(lambda: getattr(theirs, operation)(encode(X)))
        results.append((name, operation, mine, other))
        print(f"{name.splitlines()[0]:>14} {operation:<14} fastnb {mine * 1e3:8.2f} ms"
              f"   scikit-learn {other * 1e3:8.2f} ms   {other / mine:5.1f}x")

# %%
# Speedups
# --------
# scikit-learn's time divided by fastnb's (for CategoricalNB, scikit-learn's
# time includes the ``OrdinalEncoder`` that its input needs).

fig, ax = plt.subplots(figsize=(9, 4.5), layout="constrained")
operations = ["fit", "predict", "predict_proba"]
positions = np.arange(len(workloads))
for i, operation in enumerate(operations):
    speedups = [other / mine for name, op, mine, other in results if op == operation]
    bars = ax.bar(positions + (i - 1) * 0.27, speedups, 0.27, label=operation)
    ax.bar_label(bars, fmt="%.0fx", fontsize=8)
ax.set_xticks(positions, list(workloads))
ax.axhline(1, color="black", linewidth=0.8)
ax.set_yscale("log")
ax.set_ylabel("speedup over scikit-learn (log scale)")
ax.set_title(f"fastnb vs scikit-learn, {fastnb.show_config()['threads']} threads, "
             f"{fastnb.show_config()['simd']} kernels")
ax.legend()
plt.show()

# %%
# The full benchmark
# ------------------
# ``benchmarks/side_by_side.py`` measures every estimator at up to a million
# rows, with each operation's target, and draws this chart (about 12 minutes):
#
# .. code-block:: console
#
#    $ python -P benchmarks/side_by_side.py --chart docs/benchmarks.png
#
# .. image:: /benchmarks.png
#    :alt: Speedups of fastnb over scikit-learn for each estimator and operation,
#          and the time of GaussianNB's fit and predict against the number of rows.
#
# The measured table is in the README; :doc:`/user_guide/performance` explains
# where the speed comes from.
