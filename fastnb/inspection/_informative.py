"""The most informative features of each class of a fitted model."""

import numpy as np

from .._capabilities import capabilities_of
from .._dispatch import load_kernels
from .._threads import threads_for
from ._names import names_at

_kernels = load_kernels("_inspection_informative")

SCORES = {
    "counts": "log P(x_j | c) - log P(x_j | not c), the other classes mixed by "
              "their priors, with P the weight of one occurrence (log-odds for "
              "BernoulliNB)",
    "complement": "w_cj - the prior-weighted mean of w_c'j over the other classes, "
                  "w the weight of one occurrence",
    "gaussian": "(theta_cj - prior-weighted mean of the other classes' means) / "
                "the prior-weighted within-class standard deviation",
    "categorical": "log P(x_j = v | c) - log P(x_j = v | not c), the other classes "
                   "mixed by their priors",
    "columnwise": "each column's sub-model's score, in that sub-model's units "
                  "(score_kinds says which): ranked together by |score|, though "
                  "a standardised mean difference and a log-probability ratio "
                  "are not of one unit",
}
# What each kind of score is, in a few words (plot axes and legends).
SCORE_UNITS = {
    "counts": "log-probability ratio",
    "complement": "complement weight difference",
    "gaussian": "standardised mean difference",
    "categorical": "log-probability ratio",
}


def _best(scores, features, n, by_size=False):
    """Per class (row), the n best of candidate (score, feature) pairs: largest
    score (or |score|) first, the smaller feature among equals; -1 padding."""
    k = scores.shape[0]
    out_f = np.full((k, n), -1, dtype=np.int64)
    out_s = np.zeros((k, n))
    for c in range(k):
        s, f = scores[c], features[c]
        keep = (f >= 0) & np.isfinite(s) & ((s != 0) if by_size else (s > 0))
        s, f = s[keep], f[keep]
        order = np.lexsort((f, -(np.abs(s) if by_size else s)))[:n]
        out_f[c, :order.shape[0]] = f[order]
        out_s[c, :order.shape[0]] = s[order]
    return out_f, out_s


def _work_plan(cache, table, n_blocks):
    """The features with entries (ascending) and the first of them in each of
    ``n_blocks`` blocks of equal work (entries, and a little a feature): a text
    model's entries crowd its frequent features, the first ones (T1, in 8 equal
    ranges of features: 675k entries in the first, 57k in the last). An O(d)
    pass, kept with the model state's predict cache (``cache``) for the next
    call. Any bounds give the same result: they only share the work out."""
    key = ("informative_plan", n_blocks)
    plan = cache.get(key)
    if plan is None:
        active = np.flatnonzero(table.feat_len).astype(np.int64)
        work = np.cumsum(table.feat_len[active], dtype=np.int64)
        work += np.arange(1, work.shape[0] + 1)
        total = int(work[-1]) if work.shape[0] else 0
        targets = (np.arange(1, n_blocks, dtype=np.int64) * total) // n_blocks
        bounds = np.concatenate([[0], np.searchsorted(work, targets, side="right"),
                                 [active.shape[0]]]).astype(np.int64)
        plan = cache[key] = (active, bounds)
    return plan


def count_model(model, n):
    """BernoulliNB, MultinomialNB, ComplementNB: a compiled pass over the
    features, O(d k + entries) for a table model, in blocks of features."""
    complement = capabilities_of(model).terms == "complement"
    prior = np.exp(np.asarray(model.class_log_prior_, dtype=np.float64))
    k = prior.shape[0]
    d = model.n_features_in_
    n_threads = threads_for(model.n_threads, d * k, "predict")
    n_blocks = max(1, min(4 * n_threads, d))
    features = np.empty((n_blocks, k, n), dtype=np.int64)
    values = np.empty((n_blocks, k, n))
    sizes = np.zeros((n_blocks, k), dtype=np.intp)
    table = model.__dict__.get("_table")
    if table is not None:
        cache = model._table_predict_state()
        feat_base, _, scale, mult = cache["table_terms"]
        mult = np.ascontiguousarray(mult, dtype=np.float64)
        if not complement and not np.all(mult == 1.0):
            raise AssertionError("a log-mixture score needs mult == 1")  # pragma: no cover
        # MultinomialNB's entry weights are log(N + a) - log a: exp(w) - 1 = N / a
        from_counts = capabilities_of(model).terms == "multinomial"
        alpha = np.atleast_1d(np.asarray(getattr(model, "_table_alpha", 1.0),
                                         dtype=np.float64))
        _kernels.table_informative(
            table.feat_start, table.feat_len, table.ent_class,
            cache["table_entry_weights"], table.ent_count, alpha, from_counts,
            np.ascontiguousarray(feat_base, dtype=np.float64),
            np.ascontiguousarray(scale, dtype=np.float64), mult, prior,
            not complement, features, values, np.empty((n_blocks, 4 * k)), sizes,
            *_work_plan(cache, table, n_blocks), n_threads)
    else:
        counted = np.ascontiguousarray(model.feature_count_ > 0, dtype=np.uint8)
        scratch = np.empty((n_blocks, 2 * k))
        _kernels.dense_informative(model._weights, counted, prior, not complement,
                                   features, values, scratch, sizes, n_threads)
    merged_f, merged_s = _best(values.transpose(1, 0, 2).reshape(k, -1),
                               features.transpose(1, 0, 2).reshape(k, -1), n)
    return merged_f, merged_s, SCORES["complement" if complement else "counts"], None


def gaussian(model, n):
    prior = model.class_prior_
    theta, var = model.theta_, model.var_
    total = prior.sum()
    weighted = prior @ theta
    with np.errstate(invalid="ignore", divide="ignore"):
        others = (weighted[None, :] - prior[:, None] * theta) / (total - prior)[:, None]
        scale = np.sqrt(prior @ var / total)
        scores = (theta - others) / scale[None, :]
    features = np.broadcast_to(np.arange(theta.shape[1]), theta.shape)
    f, s = _best(scores, features, n, by_size=True)
    return f, s, SCORES["gaussian"], None


def categorical(model, n):
    prior = np.exp(model.class_log_prior_)
    total = prior.sum()
    all_scores, all_features, all_categories = [], [], []
    for j, log_prob in enumerate(model.feature_log_prob_):
        p = np.exp(log_prob)                       # (k, n_categories_j)
        mixed = prior @ p
        with np.errstate(invalid="ignore", divide="ignore"):
            others = (mixed[None, :] - prior[:, None] * p) / (total - prior)[:, None]
            all_scores.append(log_prob - np.log(others))
        all_features.append(np.full(log_prob.shape, j))
        all_categories.append(np.broadcast_to(np.arange(log_prob.shape[1]), log_prob.shape))
    scores = np.concatenate(all_scores, axis=1)
    codes = np.concatenate(all_categories, axis=1)
    columns = np.concatenate(all_features, axis=1)
    # rank (column, category) pairs: the pair's flat position is the "feature"
    flat = np.broadcast_to(np.arange(scores.shape[1]), scores.shape)
    at, s = _best(scores, flat, n)
    feats = np.where(at >= 0, columns[0][np.maximum(at, 0)], -1)
    cats = np.empty(at.shape, dtype=object)
    for c in range(at.shape[0]):
        for r in range(at.shape[1]):
            pos = at[c, r]
            cats[c, r] = (model.categories_[feats[c, r]][codes[0][pos]]
                          if pos >= 0 else None)
    return feats, s, SCORES["categorical"], cats


def columnwise(model, n):
    k = model.classes_.shape[0]
    parts_f, parts_s, parts_c = [], [], []
    parts_k = []
    for (_, sub, _), positions in zip(model.estimators_, model._positions):
        f, s, _, cats, kinds = informative(sub, min(n, _n_candidates(sub)))
        positions = np.asarray(positions, dtype=np.int64)
        parts_f.append(np.where(f >= 0, positions[np.maximum(f, 0)], -1))
        parts_s.append(s)
        parts_c.append(cats if cats is not None else np.full(f.shape, None, dtype=object))
        parts_k.append(kinds)
    scores = np.concatenate(parts_s, axis=1)
    columns = np.concatenate(parts_f, axis=1)
    cats = np.concatenate(parts_c, axis=1)
    flat = np.broadcast_to(np.arange(scores.shape[1]), scores.shape)
    at, s = _best(scores, np.where(columns >= 0, flat, -1), n, by_size=True)
    feats = np.where(at >= 0, np.take_along_axis(columns, np.maximum(at, 0), 1), -1)
    out_c = np.where(at >= 0, np.take_along_axis(cats, np.maximum(at, 0), 1), None)
    out_k = np.where(at >= 0, np.take_along_axis(np.concatenate(parts_k, axis=1),
                                                 np.maximum(at, 0), 1), "")
    has_categories = any(capabilities_of(sub).terms == "categorical"
                         for _, sub, _ in model.estimators_)
    return (feats, s, SCORES["columnwise"], (out_c if has_categories else None),
            out_k.astype(object))


def _n_candidates(model):
    terms = capabilities_of(model).terms
    if terms == "categorical":
        return int(sum(p.shape[1] for p in model.feature_log_prob_))
    if terms == "composite":
        return sum(_n_candidates(sub) for _, sub, _ in model.estimators_)
    return model.n_features_in_


_KIND_OF_SCORE = {text: kind for kind, text in SCORES.items()}


def informative(model, n):
    """(features, scores, score, categories, score_kinds): score_kinds (k, n)
    names each entry's kind of score (a key of SCORE_UNITS; "" where none)."""
    kind = capabilities_of(model, what="fastnb.inspection").terms
    scorer = _SCORERS.get(kind)
    if scorer is None:
        raise TypeError(
            f"fastnb.inspection cannot rank the features of {type(model).__name__}: "
            f"no score is defined for its {kind!r} terms.")
    if kind == "composite":
        return scorer(model, n)
    f, s, score, cats = scorer(model, n)
    kinds = np.where(f >= 0, _KIND_OF_SCORE[score], "").astype(object)
    return f, s, score, cats, kinds


# The score of each kind of joint-log-likelihood terms (Capabilities.terms).
_SCORERS = {
    "gaussian": gaussian,
    "categorical": categorical,
    "composite": columnwise,
    "bernoulli": count_model,
    "multinomial": count_model,
    "complement": count_model,
}


def named(model, features, names, categories):
    out = names_at(names, features)
    if categories is not None:
        for index in zip(*np.nonzero(features >= 0)):
            if categories[index] is not None:
                out[index] = f"{out[index]}={categories[index]}"
    return out
