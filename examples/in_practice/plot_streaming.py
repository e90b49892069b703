"""
Streaming: accuracy over time with ``partial_fit``
==================================================

A stream arrives in batches. Each batch is first used to *test* the current
model (it has not seen those rows yet), then to train it: the accuracy over
time of a model that learns as it goes.

Halfway through, the world changes: two classes swap where their features lie.
A model that keeps every batch (``partial_fit`` alone) does not recover: the
old batches keep their weight, and each moved class's statistics mix its old
place with its new one. A model of the last few batches only, made by merging
per-batch models with :func:`fastnb.merge` (exact, and cheap: a model is a few
counts and moments per class), recovers within a few batches.
"""

import collections

import matplotlib.pyplot as plt
import numpy as np

import fastnb

rng = np.random.default_rng(0)
n_batches, batch_size, n_features = 60, 400, 6
classes = np.array(["a", "b", "c"])
centres = rng.normal(scale=1.2, size=(3, n_features))


def batch(t):
    """One batch of the stream; from t = 30 on, classes b and c trade places."""
    labels = rng.integers(0, 3, batch_size)
    where = labels.copy()
    if t >= n_batches // 2:
        where = np.array([0, 2, 1])[labels]
    X = centres[where] + rng.normal(size=(batch_size, n_features))
    return X, classes[labels]


growing = fastnb.GaussianNB()
recent = collections.deque(maxlen=5)      # per-batch models of the last 5 batches
accuracy = {"partial_fit on everything": [], "merge of the last 5 batches": []}
for t in range(n_batches):
    X, y = batch(t)
    if t > 0:   # test first, on rows the models have not seen
        accuracy["partial_fit on everything"].append(growing.score(X, y))
        accuracy["merge of the last 5 batches"].append(fastnb.merge(*recent).score(X, y))
    growing.partial_fit(X, y, classes=classes)
    recent.append(fastnb.GaussianNB().fit(X, y))

print(f"rows seen by the growing model: {int(growing.class_count_.sum())}")
print(f"rows in the window model: {int(fastnb.merge(*recent).class_count_.sum())}")

# %%
# Accuracy on each new batch
# --------------------------

fig, ax = plt.subplots(figsize=(9, 4), layout="constrained")
steps = np.arange(1, n_batches)
for (name, values), style in zip(accuracy.items(), ["-", "--"]):
    ax.plot(steps, values, style, marker="o", markersize=3, label=name)
ax.axvline(n_batches // 2, color="grey", linestyle=":", label="classes b and c swap")
ax.set_xlabel("batch")
ax.set_ylabel("accuracy on the batch, before training on it")
ax.set_ylim(0, 1)
ax.legend(loc="lower left")
plt.show()

# %%
# Before the change, the two models are equally good: five batches are enough
# data for a few means and variances. After it, the growing model keeps
# confusing b and c, even when it has seen as many batches after the change as
# before; the window model has forgotten the old world within five batches.
# Both are the exact models of the data they hold: the choice is only about how
# much of the past should count.
