"""BernoulliNB, MultinomialNB, ComplementNB as ``LinearTerms`` (fastnb/_jll_terms.py)."""

import numpy as np

from .._jll_terms import LinearTerms, centred

# Rows of features computed at a time when the weights of a sparse count table
# are written out: (TABLE_BLOCK, k) float64 scratch (4.6 MB at 35 classes), so
# the only full-size array made is the (d, k) weights in the requested dtype.
TABLE_BLOCK = 1 << 14


def _table_weights(model, dtype):
    """(d, k) weights, centred, and (k,) bias of a model on the sparse count
    table, written from the table's terms by blocks of features without a dense
    float64 copy:

        W[j, c] = mult[c] * (base[j] + scale[c] + w[c, j])

    with w the entry weight of (class, feature) pairs with a count, 0 elsewhere
    (the table predict's ``bias + mult * (x . base + s(x) scale + x . w)``)."""
    cache = model._table_predict_state()
    feat_base, bias, scale, mult = cache["table_terms"]
    table = model._table
    d, k = table.n_features, table.n_classes
    base = np.broadcast_to(np.asarray(feat_base, dtype=np.float64), (d,))
    features, classes, positions = table.entries()   # feature-major
    values = mult[classes] * ((base[features] + scale[classes])
                              + cache["table_entry_weights"][positions])
    weights = np.empty((d, k), dtype=dtype)
    if np.all(mult == mult[0]):
        # One multiplier (MultinomialNB; ComplementNB without norm): the centred
        # weight of a pair without a count is mult (scale[c] - mean(scale)) less
        # the feature's mean of what its entries add, so the (d, k) array is one
        # broadcast subtraction, in the requested dtype, then the entries.
        added = np.bincount(features, values - mult[classes] * (
            base[features] + scale[classes]), minlength=d) / k
        row = mult[0] * (scale - scale.mean())
        np.subtract(row.astype(dtype)[None, :], added.astype(dtype)[:, None],
                    out=weights)
        weights[features, classes] = values - (
            mult[0] * (base[features] + scale.mean()) + added[features])
        return weights, np.asarray(bias, dtype=np.float64)
    bounds = np.searchsorted(features, np.arange(0, d + TABLE_BLOCK, TABLE_BLOCK))
    scratch = np.empty((min(d, TABLE_BLOCK), k))
    for i, start in enumerate(range(0, d, TABLE_BLOCK)):
        stop = min(d, start + TABLE_BLOCK)
        block = scratch[:stop - start]
        np.add(base[start:stop, None], scale, out=block)
        block *= mult
        lo, hi = bounds[i], bounds[i + 1]
        block[features[lo:hi] - start, classes[lo:hi]] = values[lo:hi]
        weights[start:stop] = centred(block)
    return weights, np.asarray(bias, dtype=np.float64)


def linear_terms(model):
    """The ``LinearTerms`` of a fitted count model: its weights as its predict
    reads them; NaN (missing) adds nothing (read as 0), and BernoulliNB's
    log(1 - p) terms go to ``absent``, added for the observed features only
    (jll = log prior + x @ (log p - log(1 - p)).T + observed @ log(1 - p).T)."""
    bernoulli = model._capabilities.terms == "bernoulli"
    if model.__dict__.get("_table") is not None and not bernoulli:
        bias = np.asarray(model._table_predict_state()["table_terms"][1],
                          dtype=np.float64)

        def weights_of(dtype):
            return _table_weights(model, dtype)[0]
    else:
        if bernoulli:
            # (the dense weights; on the table too, from its counts)
            weights = model._predict_weights(model.feature_log_prob_,
                                             model.class_log_prior_)[0]
            bias = model.class_log_prior_
        else:
            weights, bias = model._weights, model._bias

        def weights_of(dtype):
            return centred(np.array(weights.T, dtype=np.float64)).astype(dtype, copy=False)
    absent = (centred(np.array(model._missing_log_terms().T, dtype=np.float64))
              if bernoulli else None)
    return LinearTerms(bias=np.asarray(bias, dtype=np.float64), centred_weights=weights_of,
                       threshold=model._threshold(), absent=absent)
