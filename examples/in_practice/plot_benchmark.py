"""
Speed against scikit-learn
==========================

A small version of fastnb's benchmark, measured each time this documentation
is built: scaled-down versions of three workloads of the :doc:`/benchmarks`
page (G2: dense Gaussian data; M1: a sparse word-count matrix; C1s: string
categories), fit, predict and predict_proba, fastnb and scikit-learn in the same
process.

To compare the kernels, and to keep a busy build machine from distorting the
picture, fastnb runs on one thread here (scikit-learn's Naive Bayes uses one
core too), and each time is the fastest of five runs after a warm-up. The
sizes are small, so that the example runs in seconds; read the ratios as
indicative. The full benchmark, at up to a million rows and on all cores, is
at the end of this page.
"""

import timeit

import matplotlib.pyplot as plt
from matplotlib.ticker import FuncFormatter, NullFormatter
import numpy as np
import sklearn.naive_bayes
from scipy import sparse
from sklearn.preprocessing import OrdinalEncoder

import fastnb


def best_time(function, repeats=5):
    """The fastest of ``repeats`` timed calls, after a warm-up call: on a busy
    machine the minimum is the least disturbed measurement."""
    function()
    return min(timeit.repeat(function, number=1, repeat=repeats))


rng = np.random.default_rng(0)
workloads = {}

# G2: GaussianNB, 100,000 rows, 20 features, 2 classes.
y = rng.integers(0, 2, 100_000)
X = rng.normal(size=(100_000, 20)) + y[:, None]
workloads["GaussianNB\nG2: n=1e5 d=20"] = (
    fastnb.GaussianNB(n_threads=1), sklearn.naive_bayes.GaussianNB(), X, y, None)

# M1, scaled down: MultinomialNB on a CSR matrix of word counts, 20,000
# documents of 100 words from a vocabulary of 2**16, 20 classes.
n, vocabulary, per_row = 20_000, 2**16, 100
indices = rng.integers(0, vocabulary, n * per_row)
counts = sparse.csr_matrix(
    (np.ones(n * per_row), indices, np.arange(0, n * per_row + 1, per_row)),
    shape=(n, vocabulary))
counts.sum_duplicates()
topic = rng.integers(0, 20, n)
workloads["MultinomialNB\nM1: CSR, n=2e4 V=2^16"] = (
    fastnb.MultinomialNB(n_threads=1), sklearn.naive_bayes.MultinomialNB(), counts, topic,
    None)

# C1s, scaled down: CategoricalNB on strings, 50,000 rows, 5 features of 50
# values, 5 classes. fastnb reads the strings; scikit-learn needs an encoder.
strings = rng.choice([f"value-{i}" for i in range(50)], size=(50_000, 5)).astype(object)
label = rng.integers(0, 5, 50_000)
workloads["CategoricalNB\nC1s: strings, n=5e4"] = (
    fastnb.CategoricalNB(n_threads=1), sklearn.naive_bayes.CategoricalNB(), strings, label,
    OrdinalEncoder().fit(strings))

results = []
for name, (ours, theirs, X, y, encoder) in workloads.items():
    # scikit-learn's CategoricalNB reads codes: its time includes the encoding.
    encode = encoder.transform if encoder is not None else (lambda data: data)
    ours.fit(X, y)
    theirs.fit(encode(X), y)
    for operation in ("fit", "predict", "predict_proba"):
        if operation == "fit":
            mine = best_time(lambda: ours.fit(X, y))
            other = best_time(lambda: theirs.fit(encode(X), y))
        else:
            mine = best_time(lambda: getattr(ours, operation)(X))
            other = best_time(lambda: getattr(theirs, operation)(encode(X)))
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
    ax.bar_label(bars, fmt="%.1fx", fontsize=8)
ax.set_xticks(positions, list(workloads))
ax.axhline(1, color="black", linewidth=0.8)
ax.set_yscale("log")
ax.yaxis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:g}x"))
ax.yaxis.set_minor_formatter(NullFormatter())
ax.set_ylabel("speedup over scikit-learn (log scale)")
ax.set_title(f"fastnb (one thread, {fastnb.show_config()['simd']} kernels) "
             "vs scikit-learn")
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
# Every workload of the full run is on the :doc:`/benchmarks` page;
# :doc:`/user_guide/performance` explains where the speed comes from.
