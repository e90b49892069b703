"""The distributed fit that fastnb.spark and fastnb.dask share: one set of rules.

A distributed fit is three steps, whatever the engine:

1. ``plan(estimator, engine)``, on the driver (client) before any job: check the
   estimator's parameters and that its fit can be distributed at all, and make
   the *block template*, the estimator every block is fitted with. A model that
   forgets (``half_life``) can be only where the engine knows the blocks' order
   and how many rows follow each: a row's weight depends on the rows after it.
   Parameters that only finalise a model from its statistics and that a block
   could not use (``priors``, ``class_prior``: one per class, and a block may
   lack a class) are stripped from the template.
2. ``fit_block(template, X, y, ...)``, in each task: the ordinary compiled fit
   of the block's rows (a model that forgets: with ``stream_weights``, which
   age them by the rows after the block).
3. On the driver (client): merge the block models exactly (``tree_merge``, or
   the engine's own tree of ``fastnb.merge``), then apply the estimator's
   finalising parameters once (``finalised``), checked against the classes
   found.

The result equals the local fit of the collected rows to rounding.
"""

import numpy as np

from ._capabilities import capabilities_of
from ._forgetting import forgets
from ._persist import merge

__all__ = ["finalised", "fit_block", "plan", "stream_weights", "tree_merge"]

# The parameters that do not change the statistics, only the model made from
# them, are each model's declared ``Capabilities.finalising_params``: a model
# with other values of these is made from the same merged statistics
# (fitMultiple over a grid of them counts once). Its ``prior_param`` is one a
# block cannot be fitted with (one value per class, and a block may not see
# every class): blocks are fitted without it, and it is applied to the merge.


def plan(estimator, engine, *, ordered=False, remedy="stream the rows in order "
                                                    "through partial_fit"):
    """The block template of ``estimator`` for a distributed fit by ``engine``
    (a name for messages: "fastnb.spark", "fastnb.dask"), after checking, before
    any job, that the fit can be distributed. ``ordered``: the engine knows each
    block's place in one order of the rows, and how many rows follow it, so a
    model that forgets can be fitted (``stream_weights``); ``remedy`` completes
    the message where it cannot.

    Raises ValueError (or the estimator's own TypeError) for parameters that are
    invalid or that no distributed fit can honour.
    """
    estimator._validate_params()
    params = estimator.get_params(deep=False)
    half_life = params.get("half_life")
    if forgets(half_life) and not ordered:
        raise ValueError(
            f"{engine} does not fit a model that forgets (half_life={half_life!r}) "
            "without the order of its rows: a row's weight depends on every row "
            "after it, which partitions fitted apart and merged do not know. "
            f"To fit it, {remedy}.")
    record = capabilities_of(estimator, what=engine)
    if not record.statistics_add:
        raise ValueError(
            f"{engine} cannot fit {type(estimator).__name__}: its statistics do not "
            "add, so partitions cannot be fitted apart and merged.")
    return type(estimator)(**{**params, record.prior_param: None})


def stream_weights(half_life, sample_weight, n_rows, rows_after):
    """The sample weights with which a block's own forgetting fit (``half_life``)
    gives its rows their weights in the whole stream: a block followed by
    ``rows_after`` rows is the stream's rows ``2**(-rows_after / half_life)``
    older than its own fit makes them. Merged (summed), the blocks' models are
    the local fit of the stream, to rounding, and forget on from there."""
    factor = float(np.exp2(-(rows_after / float(half_life))))
    if factor == 0.0:
        raise ValueError(
            f"A block of rows is followed by {rows_after} rows, over 1074 half-lives "
            f"(half_life={half_life!r}): its weights underflow to zero. Fit only the "
            "rows that still count.")
    if sample_weight is None:
        return np.full(n_rows, factor)
    return np.asarray(sample_weight, dtype=np.float64) * factor


def fit_block(template, X, y, *, sample_weight=None, classes=None):
    """The model of one block's rows: ``template``'s class and parameters."""
    model = type(template)(**template.get_params(deep=False))
    if classes is None:
        return model.fit(X, y, sample_weight=sample_weight)
    return model.partial_fit(X, y, classes=classes, sample_weight=sample_weight)


def tree_merge(models):
    """Merge pairwise, level by level: each model takes part in log2(n) merges."""
    models = list(models)
    if not models:
        raise ValueError("Found no rows in any partition: nothing to fit.")
    while len(models) > 1:
        models = [merge(models[i], models[i + 1]) if i + 1 < len(models)
                  else models[i] for i in range(0, len(models), 2)]
    return models[0]


def finalised(merged, estimator, *, copy=False):
    """The model of ``merged``'s statistics with ``estimator``'s parameters (the
    finalising ones and ``n_threads``; the others are the block template's, and
    equal). ``merged`` itself when only ``n_threads`` differs and the model is not
    composite (it is the merge's own, not shared: remaking it would cost k x d
    again); else a new model restored from the statistics, so that its derived
    attributes, and a composite's sub-models, are made as a fit makes them.
    ``copy``: ``merged`` is shared (one merge, several models): never return it.

    Raises ValueError at the driver where a finalising parameter does not fit
    the classes found (``priors`` of another length).
    """
    wanted = estimator.get_params(deep=False)
    params = merged.get_params(deep=False)
    record = type(merged)._capabilities
    changed = {name: wanted[name] for name in (record.finalising_params - {"n_threads"})
               & set(wanted) if not _same(params[name], wanted[name])}
    if not (changed or copy or record.composite):
        merged.set_params(n_threads=wanted["n_threads"])
        return merged
    try:
        return merged._from_statistics({**changed, "n_threads": wanted["n_threads"]},
                                       checked=True)
    except ValueError as error:
        raise ValueError(f"{error} (the classes found: {merged.classes_.tolist()})") \
            from None


def _same(a, b):
    if a is None or b is None:
        return a is b
    try:
        return bool(np.array_equal(np.asarray(a), np.asarray(b)))
    except (TypeError, ValueError):
        return a == b
