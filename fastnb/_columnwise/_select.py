"""ColumnwiseNB(numeric="select"): each numeric column's likelihood family,
chosen on the training data by what it does to the whole classifier.

The candidates
--------------
``FAMILY_SUPPORT`` lists the families "select" may give a numeric column, keyed
by the ``terms`` kind of a registered sub-model's capabilities record, with the
support the column's training values must lie in. A registered model whose
record has ``sub_model=True``, ``statistics_add=True`` and a ``terms`` kind
listed here is a candidate (it must also take ``n_threads``, and
``partial_fit(X, y, classes, sample_weight)`` as every fastnb model does):
a new family (KernelDensityNB, terms "kde") joins the selection by its
registration and its one line here, and a listed kind that no registered model
has is skipped.

The criterion
-------------
A family that fits a column best is not always the one that classifies best
(naive Bayes' errors come from the assumptions between columns too), so the
choice is judged by the held-out log loss of the whole naive Bayes classifier:

1. The rows are split into ``SELECT_FOLDS`` inner folds by row index (row i is
   in fold ``i % SELECT_FOLDS``): no seed, so the same data always gives the
   same choice.
2. For each numeric column and each family its values allow, a one-column
   model is fitted on each fold (one pass over the column), and the model of a
   fold's complement is the ``fastnb.merge`` of the other folds' (exact: the
   statistics add). Each row thus gets a held-out term ``log P(x_ij | c)`` per
   family. The other (non-numeric) sub-models of the "auto" plan get their
   held-out terms from fits that give the fold's rows weight 0.
3. A choice's score is the held-out log loss: the weighted mean over rows of
   ``-log P(y_i | x_i)`` under the held-out class priors plus every column's
   term (rows whose class the complement never saw are left out).
4. Starting from the Gaussian everywhere, the columns are visited in order and
   each takes the family of lowest score with the other columns at their
   current choice, provided it beats the current one by more than
   ``SELECT_MARGIN`` standard errors of the per-row differences of held-out
   loss (a gain within the noise of the folds changes nothing); sweeps repeat
   until none changes, at most ``SELECT_SWEEPS``.

The selection reads the rows with their ``sample_weight`` and without
``half_life`` (forgetting weighs rows by their order, which the folds do not
keep); a family whose model does not forget is not a candidate when
``half_life`` is set. The held-out class priors are the complement's class
frequencies, also when ColumnwiseNB's ``priors`` are given. Past
``SELECT_MAX_ROWS`` rows (or fewer, down to ``SELECT_MIN_ROWS``, where the
held-out terms of many columns and classes would take more than
``SELECT_MEMORY_BYTES``) it reads an evenly spaced subset of the rows. With
fewer than ``2 * SELECT_FOLDS`` rows every column stays Gaussian.
"""

from functools import reduce

import numpy as np

from .._capabilities import registered_models
from .._persist import merge

SELECT_FOLDS = 5
SELECT_SWEEPS = 3
SELECT_MAX_ROWS = 100_000
SELECT_MIN_ROWS = 5_000
SELECT_MEMORY_BYTES = 256 << 20
# A family replaces a column's current one only if it lowers the held-out log
# loss by more than this many standard errors of the per-row differences: a
# gain within the noise of the folds is no reason to leave the Gaussian (on the
# tables of tools/likelihood_comparison.py, 0 and 1 chose families that lost on
# new rows of one table; see docs/user_guide/likelihoods.rst).
SELECT_MARGIN = 2.0

# family (a record's ``terms`` kind) -> the support its training values need:
# "any" (finite numbers), "nonnegative" (>= 0), "positive" (> 0) or "counts"
# (non-negative integers). The order is the order of preference on a tie.
FAMILY_SUPPORT = {
    "gaussian": "any",
    "lognormal": "positive",
    "gamma": "positive",
    "exponential": "nonnegative",
    "poisson": "counts",
    "kde": "any",
}


def candidate_families(half_life=None):
    """[(family, class)]: the registered sub-models "select" may choose from, in
    ``FAMILY_SUPPORT``'s order (one class a family: the first registered)."""
    found = {}
    for cls in registered_models().values():
        record = cls._capabilities
        if (not record.sub_model or not record.statistics_add
                or record.terms not in FAMILY_SUPPORT):
            continue  # (the folds' models are merged: their statistics must add)
        if half_life is not None and not record.forgets:
            continue
        found.setdefault(record.terms, cls)
    return [(family, found[family]) for family in FAMILY_SUPPORT if family in found]


def family_model(cls, n_threads, half_life):
    """An unfitted ``cls`` with ColumnwiseNB's threads and forgetting."""
    params = {"n_threads": n_threads}
    if "half_life" in cls._get_param_names():
        params["half_life"] = half_life
    return cls(**params)


def allowed(support, values):
    """Whether the column's observed (non-NaN) ``values`` lie in ``support``."""
    if support == "any":
        return True
    if values.size == 0 or not np.all(np.isfinite(values)):
        return False
    if support == "positive":
        return bool(np.all(values > 0))
    nonnegative = bool(np.all(values >= 0))
    if support == "nonnegative":
        return nonnegative
    return nonnegative and bool(np.all(values == np.floor(values)))


def _rows(n, n_classes, n_terms):
    """The rows the selection reads: all, or an evenly spaced subset of at most
    SELECT_MAX_ROWS, fewer where its (rows, classes) held-out terms per column
    and family would pass SELECT_MEMORY_BYTES (never fewer than
    SELECT_MIN_ROWS)."""
    limit = min(SELECT_MAX_ROWS, max(SELECT_MIN_ROWS, SELECT_MEMORY_BYTES // (
        8 * n_classes * n_terms)))
    if n <= limit:
        return None
    return np.linspace(0, n - 1, limit).round().astype(np.intp)


def select_families(table, numeric, others, y, sample_weight, n_threads, half_life,
                    label):
    """Choose a family for each numeric column.

    ``numeric``: the positions of the columns "auto" models as numbers;
    ``others``: [(unfitted sub-model, positions)] of the other kinds;
    ``label(j)``: the name of column j. Returns ``(families, selection)``:
    {position: (family, class)} and the ``selection_`` rows
    [(column, family, log loss, Gaussian's log loss)]."""
    candidates = candidate_families(half_life)
    gaussian = candidates[0]
    n = table.n_samples
    if n < 2 * SELECT_FOLDS:
        return ({j: gaussian for j in numeric},
                [(label(j), "gaussian", None, None) for j in numeric])
    rows = _rows(n, np.unique(y).shape[0], len(numeric) * len(candidates) + 3)
    y_used = y if rows is None else y[rows]
    classes, y_code = np.unique(y_used, return_inverse=True)
    m, k = y_code.shape[0], classes.shape[0]
    weights = (np.ones(m) if sample_weight is None else
               np.asarray(sample_weight, dtype=np.float64)[
                   slice(None) if rows is None else rows])
    folds = [np.arange(f, m, SELECT_FOLDS) for f in range(SELECT_FOLDS)]
    fold_of = np.arange(m) % SELECT_FOLDS

    # Held-out class log priors of each row (its fold's complement).
    counts = np.zeros((SELECT_FOLDS, k))
    np.add.at(counts, (fold_of, y_code), weights)
    complement = counts.sum(axis=0) - counts
    with np.errstate(divide="ignore", invalid="ignore"):
        log_prior = np.log(complement / complement.sum(axis=1, keepdims=True))
    base = log_prior[fold_of]
    # Rows whose class their complement never saw carry no information.
    used = np.isfinite(base[np.arange(m), y_code])
    weights = np.where(used, weights, 0.0)

    for model, positions in others:
        base = base + _other_terms(table, model, positions, rows, y_used, weights,
                                   fold_of, classes)

    terms = {}
    for j in numeric:
        column = np.asarray(table.block(np.array([j]), 0, n, False), dtype=np.float64)
        column = column if rows is None else column[rows]
        observed = column[~np.isnan(column)]
        terms[j] = {}
        for family, cls in candidates:
            if allowed(FAMILY_SUPPORT[family], observed):
                terms[j][family] = _held_out_terms(
                    cls, column, y_used, weights, folds, classes, n_threads)

    choice = {j: "gaussian" for j in numeric}
    total = base + sum(terms[j]["gaussian"] for j in numeric)
    for _ in range(SELECT_SWEEPS):
        changed = False
        for j in numeric:
            rest = total - terms[j][choice[j]]
            best, best_rows = choice[j], _row_losses(rest + terms[j][choice[j]], y_code)
            for family, part in terms[j].items():
                rows_f = _row_losses(rest + part, y_code)
                if _better(rows_f, best_rows, weights):
                    best, best_rows = family, rows_f
            if best != choice[j]:
                choice[j], changed = best, True
                total = rest + terms[j][best]
        if not changed:
            break

    by_family = dict(candidates)
    selection = []
    for j in numeric:
        rest = total - terms[j][choice[j]]
        selection.append((label(j), choice[j],
                          _log_loss(rest + terms[j][choice[j]], y_code, weights),
                          _log_loss(rest + terms[j]["gaussian"], y_code, weights)))
    return {j: (choice[j], by_family[choice[j]]) for j in numeric}, selection


def _held_out_terms(cls, column, y, weights, folds, classes, n_threads):
    """(m, k): each row's term ``log P(x | c)`` under the one-column ``cls``
    model of its fold's complement (0 for a missing value)."""
    X = column.reshape(-1, 1)
    fitted = []
    for rows in folds:
        model = cls(n_threads=n_threads)
        model.partial_fit(X[rows], y[rows], classes=classes,
                          sample_weight=weights[rows])
        fitted.append(model)
    out = np.empty((X.shape[0], classes.shape[0]))
    for f, rows in enumerate(folds):
        model = reduce(merge, fitted[:f] + fitted[f + 1:])
        with np.errstate(divide="ignore", invalid="ignore"):
            part = model.predict_joint_log_proba(X[rows]) - model._included_log_prior()
        out[rows] = np.where(np.isfinite(model._included_log_prior()), part, 0.0)
    return out


def _other_terms(table, model, positions, rows, y, weights, fold_of, classes):
    """(m, k): a non-numeric sub-model's held-out terms (its jll less its prior),
    from fits on all rows with the fold's rows at weight 0 (its block of columns
    is read as the fit reads it, whole: a CategoricalNB's frame has no rows to
    pick)."""
    n = table.n_samples
    block = table.block(positions, 0, n, model._capabilities.reads == "categories")
    all_weights = np.zeros(n)
    y_all = np.full(n, classes[0], dtype=classes.dtype) if rows is not None else y
    if rows is None:
        chosen = slice(None)
    else:
        chosen = rows
        y_all = y_all.copy()
        y_all[rows] = y
    out = np.empty((y.shape[0], classes.shape[0]))
    for f in range(SELECT_FOLDS):
        fold_weights = np.where(fold_of == f, 0.0, weights)
        all_weights[:] = 0.0
        all_weights[chosen] = fold_weights
        fitted = _clone(model).partial_fit(block, y_all, classes=classes,
                                           sample_weight=all_weights)
        in_fold = np.flatnonzero(fold_of == f)
        at = in_fold if rows is None else rows[in_fold]
        jll = fitted.predict_joint_log_proba(block)[at]
        with np.errstate(invalid="ignore"):
            part = jll - fitted._included_log_prior()
        out[in_fold] = np.where(np.isfinite(fitted._included_log_prior()), part, 0.0)
    return out


def _clone(model):
    clone = type(model)(**model.get_params(deep=False))
    if hasattr(model, "_by_value"):
        clone._by_value = model._by_value
    return clone


def _better(losses, than, weights):
    """Whether the per-row held-out ``losses`` beat ``than`` by more than
    SELECT_MARGIN standard errors of their weighted mean difference (noise)."""
    used = weights > 0
    w = weights[used]
    diff = (than - losses)[used]
    total = w.sum()
    if total <= 0:
        return False
    mean = (w * diff).sum() / total
    spread = np.sqrt((w * (diff - mean) ** 2).sum() / total)
    n_eff = total ** 2 / (w ** 2).sum()
    return bool(mean > SELECT_MARGIN * spread / np.sqrt(n_eff)) and mean > 0


def _row_losses(jll, y_code):
    """Each row's -log P(y_i | x_i) from the (m, k) joint log likelihood."""
    top = jll.max(axis=1, keepdims=True)
    with np.errstate(invalid="ignore", over="ignore"):
        norm = top[:, 0] + np.log(np.exp(jll - top).sum(axis=1))
        return norm - jll[np.arange(jll.shape[0]), y_code]


def _log_loss(jll, y_code, weights):
    """The weighted mean of -log P(y_i | x_i) from the (m, k) joint log
    likelihood (rows of weight 0 left out)."""
    top = jll.max(axis=1, keepdims=True)
    with np.errstate(invalid="ignore", over="ignore"):
        norm = top[:, 0] + np.log(np.exp(jll - top).sum(axis=1))
        per_row = norm - jll[np.arange(jll.shape[0]), y_code]
    per_row = np.where(weights > 0, per_row, 0.0)
    total = weights.sum()
    return float((weights * per_row).sum() / total) if total > 0 else 0.0
