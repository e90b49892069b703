"""Fit fastnb models on Dask collections: one parallel pass, then an exact merge.

Every fastnb estimator's statistics merge exactly (``fastnb.merge``), so a fit on
a Dask array or dataframe is: on each block, on the worker that holds it, the
ordinary compiled ``partial_fit``; then a tree reduction of the block models with
``fastnb.merge`` (``split_every`` at a time). Only the final model, whose size is
O(classes x features), reaches the client; the data never does. The result
equals a local fit on the concatenated data to rounding, whatever the chunking;
a model that forgets (``half_life``) too, each block's rows aged by the rows
of the blocks after it. The rules are fastnb.spark's (``fastnb._distributed``).

Usage::

    import dask.array as da
    import fastnb, fastnb.dask

    model = fastnb.dask.fit(fastnb.GaussianNB(), X, y)    # an ordinary GaussianNB
    labels = fastnb.dask.predict(model, X)                 # lazy dask array
    proba = fastnb.dask.predict_proba(model, X)            # lazy, (n, n_classes)

Threads: Dask starts worker processes with ``OMP_NUM_THREADS=1``, and fastnb
honours it, so each worker runs its kernels on one thread and Dask's own
parallelism (one task per worker thread) does the rest. To let each task use more
threads, set the estimator's ``n_threads`` explicitly (``GaussianNB(n_threads=4)``)
or start the workers with another ``OMP_NUM_THREADS``.

On Spark, ``fastnb.spark`` does the same with the same rules (``fastnb._distributed``
is shared): an Estimator per model, fitted per partition and merged at the driver.
On another engine: fit one model per partition with ``partial_fit(X_part, y_part,
classes=classes)``, ship each with ``save`` to a file object (no pickle), and combine
them with ``fastnb.merge`` (fixed priors are then applied once, to the merged model,
with ``with_params``; forgetting models need the blocks' order, as here).

This module needs ``dask`` (``pip install fastnb[dask]``); ``import fastnb`` does
not import it.
"""

import numpy as np

from . import _distributed
from ._forgetting import forgets
from ._persist import merge

__all__ = ["fit", "predict", "predict_log_proba", "predict_proba"]


def _dask():
    try:
        import dask
    except ImportError as error:  # pragma: no cover - depends on the environment
        raise ImportError(
            "fastnb.dask needs dask: pip install 'fastnb[dask]'"
        ) from error
    return dask


def _is_dask_dataframe(obj):
    """A dask DataFrame or Series (dask arrays have no divisions)."""
    return hasattr(obj, "to_delayed") and hasattr(obj, "divisions")


def _blocks(collection, name):
    """A list of delayed row blocks of a dask array, dataframe or series."""
    dask = _dask()
    if _is_dask_dataframe(collection):
        return list(collection.to_delayed())
    if hasattr(collection, "to_delayed") and hasattr(collection, "chunks"):
        if collection.ndim == 2 and len(collection.chunks[1]) > 1:
            collection = collection.rechunk({1: -1})
        return list(collection.to_delayed().ravel())
    if collection is None:
        return None
    raise TypeError(
        f"{name} must be a dask array or dataframe, got {type(collection).__name__}; "
        "for in-memory data call the estimator's fit directly."
    )


def _unique_labels(y):
    return np.unique(np.asarray(y))


def _fit_block(template, X, y, classes, sample_weight, rows_after=None):
    if len(y) == 0:
        return None
    if rows_after is not None:  # a model that forgets: aged by the rows after it
        sample_weight = _distributed.stream_weights(template.half_life, sample_weight,
                                                    len(y), rows_after)
    return _distributed.fit_block(template, X, np.asarray(y), classes=classes,
                                  sample_weight=sample_weight)


def _rows_after(X, blocks):
    """How many rows follow each row block of X, in the collection's order."""
    dask = _dask()
    if _is_dask_dataframe(X):
        sizes = dask.compute(*[dask.delayed(len)(block) for block in blocks])
    else:
        sizes = X.chunks[0]
    sizes = np.asarray(sizes, dtype=np.int64)
    return (sizes[::-1].cumsum()[::-1] - sizes).tolist()


def _merge_blocks(*models):
    models = [m for m in models if m is not None]
    if not models:
        return None
    return merge(*models) if len(models) > 1 else models[0]


def fit(estimator, X, y, *, sample_weight=None, classes=None, split_every=8):
    """Fit a fastnb estimator on Dask collections; return the fitted estimator.

    Parameters
    ----------
    estimator : fastnb estimator
        Its parameters are used; it is fitted in place and returned.
    X : dask array of shape (n_samples, n_features), or dask dataframe
        Blocks may be NumPy or SciPy sparse (discrete models), or pandas frames
        (CategoricalNB with string or categorical columns; ColumnwiseNB with
        columns of mixed dtypes, whose ``estimators="auto"`` choice is made
        from the first partition).
    y : dask array or series, partitioned like X's rows
    sample_weight : dask array or series, partitioned like X's rows, optional
    classes : array-like, optional
        All the labels. If omitted, found by a cheap first pass over y.
    split_every : int, default=8
        Fan-in of the tree reduction of block models.

    Returns
    -------
    estimator : the fitted estimator
        Equal to ``estimator.fit`` on the concatenated data, to rounding.
    """
    dask = _dask()
    if split_every < 2:
        raise ValueError("split_every must be at least 2.")
    # (the rules of fastnb.spark's fit too: fastnb._distributed; the blocks are
    # in the collection's order, so a model that forgets is fitted exactly)
    template = _distributed.plan(estimator, "fastnb.dask", ordered=True)
    X_blocks, y_blocks = _blocks(X, "X"), _blocks(y, "y")
    w_blocks = _blocks(sample_weight, "sample_weight") if sample_weight is not None \
        else [None] * len(X_blocks)
    if not (len(X_blocks) == len(y_blocks) == len(w_blocks)):
        raise ValueError(
            f"X, y and sample_weight have {len(X_blocks)}, {len(y_blocks)} and "
            f"{len(w_blocks)} row blocks: partition them alike."
        )
    if not _is_dask_dataframe(X) and not _is_dask_dataframe(y):
        if tuple(X.chunks[0]) != tuple(y.chunks[0]):
            raise ValueError("X and y must have the same row chunks.")
    if classes is None:
        # A cheap first pass: the unique labels of each block, merged.
        uniques = [dask.delayed(_unique_labels)(block) for block in y_blocks]
        classes = np.unique(np.concatenate(dask.compute(*uniques)))
    classes = np.asarray(classes)

    if hasattr(template, "_with_fixed_plan"):
        # ColumnwiseNB(estimators="auto") chooses its sub-models from the columns:
        # choose once, from the first partition, so that every block model has
        # the same sub-models and they merge.
        template = template._with_fixed_plan(dask.compute(X_blocks[0])[0])
    after = [None] * len(X_blocks)
    if forgets(template.half_life):
        after = _rows_after(X, X_blocks)
    level = [
        dask.delayed(_fit_block, pure=True)(template, xb, yb, classes, wb, rows)
        for xb, yb, wb, rows in zip(X_blocks, y_blocks, w_blocks, after)
    ]
    while len(level) > 1:
        level = [
            dask.delayed(_merge_blocks, pure=True)(*level[i:i + split_every])
            for i in range(0, len(level), split_every)
        ]
    fitted = level[0].compute()
    if fitted is None:
        raise ValueError("Found array with 0 sample(s): nothing to fit.")
    if classes.size != fitted.classes_.size:
        raise ValueError(f"Expected classes {classes}, fitted {fitted.classes_}.")
    fitted = _distributed.finalised(fitted, estimator)
    # The estimator becomes the fitted model: its own fitted state is replaced.
    params = estimator.get_params(deep=False)
    for key in [k for k in vars(estimator) if k not in params]:
        delattr(estimator, key)
    estimator.__dict__.update({k: v for k, v in vars(fitted).items() if k not in params})
    return estimator


def _predict_block(X, model, method):
    if getattr(X, "shape", (1,))[0] == 0:
        k = model.classes_.shape[0]
        return np.empty((0,) if method == "predict" else (0, k),
                        dtype=model.classes_.dtype if method == "predict" else np.float64)
    return getattr(model, method)(X)


def _lazy_predict(model, X, method):
    dask = _dask()
    model._check_fitted()
    shipped = dask.delayed(model, pure=True)  # one task: sent once to each worker
    k = model.classes_.shape[0]
    if _is_dask_dataframe(X):
        meta = (np.empty(0, dtype=model.classes_.dtype) if method == "predict"
                else np.empty((0, k)))
        import dask.array as da

        blocks = [dask.delayed(_predict_block, pure=True)(part, shipped, method)
                  for part in X.to_delayed()]
        lengths = X.map_partitions(len).compute()
        arrays = [
            da.from_delayed(block, shape=(int(n),) if method == "predict" else (int(n), k),
                            dtype=meta.dtype)
            for block, n in zip(blocks, lengths)
        ]
        return da.concatenate(arrays, axis=0)
    if X.ndim == 2 and len(X.chunks[1]) > 1:
        X = X.rechunk({1: -1})
    if method == "predict":
        return X.map_blocks(_predict_block, shipped, method, drop_axis=1,
                            dtype=model.classes_.dtype, meta=np.empty(0, model.classes_.dtype))
    return X.map_blocks(_predict_block, shipped, method, chunks=(X.chunks[0], (k,)),
                        dtype=np.float64, meta=np.empty((0, 0)))


def predict(model, X):
    """Lazy labels for a dask array or dataframe X (a dask array of n labels)."""
    return _lazy_predict(model, X, "predict")


def predict_proba(model, X):
    """Lazy class probabilities, a dask array of shape (n, n_classes)."""
    return _lazy_predict(model, X, "predict_proba")


def predict_log_proba(model, X):
    """Lazy log class probabilities, a dask array of shape (n, n_classes)."""
    return _lazy_predict(model, X, "predict_log_proba")
