"""
Fitting on a Dask cluster
=========================

:func:`fastnb.dask.fit` fits a fastnb estimator on Dask collections: each block
is fitted where it lives, by the ordinary compiled ``partial_fit``, and the
block models are merged in a tree with :func:`fastnb.merge`. Only the final
model, a few numbers per class and feature, reaches the client.

Here the cluster is a small local one, two workers in this process
(``processes=False``), so that the example runs anywhere; the same code runs on
a cluster of many machines once a ``Client`` points at it.
"""

import dask.array as da
import matplotlib.pyplot as plt
import numpy as np
from dask.distributed import Client, LocalCluster

import fastnb
import fastnb.dask

with LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                  dashboard_address=None) as cluster, Client(cluster) as client:
    # Data generated on the workers, in 8 blocks of 50,000 rows.
    rng = da.random.default_rng(0)
    y = rng.integers(0, 3, size=400_000, chunks=50_000)
    X = rng.normal(size=(400_000, 10), chunks=(50_000, 10)) + y[:, None]

    model = fastnb.dask.fit(fastnb.GaussianNB(), X, y)
    print(model, "fitted on", int(model.class_count_.sum()), "rows")

    # Prediction is lazy, block by block; compute what is needed.
    labels = fastnb.dask.predict(model, X)
    accuracy_per_block = da.map_blocks(
        lambda predicted, truth: np.atleast_1d((predicted == truth).mean()),
        labels, y, chunks=(1,), dtype=float).compute()
    class_counts_per_block = np.stack([
        np.bincount(block, minlength=3) for block in
        client.compute([y.blocks[i] for i in range(y.numblocks[0])], sync=True)])

    # The same fit, locally, on the concatenated data: the same model.
    X_local, y_local = da.compute(X, y)
    local = fastnb.GaussianNB().fit(X_local, y_local)

print("equal to a local fit:", np.allclose(model.theta_, local.theta_)
      and np.allclose(model.var_, local.var_))

# %%
# What each block contributed
# ---------------------------
# The merged model's ``class_count_`` is the sum of the blocks' class counts,
# and its means and variances are the blocks' combined exactly (Chan's
# formula), whatever the chunking.

fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4), layout="constrained")
bottom = np.zeros(len(class_counts_per_block))
for c in range(3):
    left.bar(np.arange(len(bottom)), class_counts_per_block[:, c], bottom=bottom,
             label=f"class {c}")
    bottom += class_counts_per_block[:, c]
left.set_xlabel("block")
left.set_ylabel("rows")
left.set_title("Rows per block and class")
left.legend(loc="lower right")

right.bar(np.arange(len(accuracy_per_block)), accuracy_per_block, color="#2a9d8f")
right.set_ylim(0, 1)
right.set_xlabel("block")
right.set_ylabel("accuracy")
right.set_title("fastnb.dask.predict, accuracy per block")
plt.show()
