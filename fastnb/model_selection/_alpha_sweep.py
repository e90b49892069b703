"""A search's MultinomialNB candidates that differ in alpha and the prior only,
scored from one pass over a split's rows.

Each candidate of a group is the split's fitted model's ``with_params`` of its
values. Deriving it recomputes every entry weight of the count table (O(entries))
and its predict of a large fold builds the table's feature slots for all of its
2**20 features (O(d + entries), ~23 ms at T1's size), whatever the fold touches.
For MultinomialNB the counts are all a candidate's scores need:

    jll_c(alpha) = log prior_c + s(x) [log alpha - log(N_c + alpha d)]
                   + sum over x's non-zeros with a count x_j [log(N_cj + alpha) - log alpha]

(plus s(x) log alpha for the classes without a count, folded into the first
term), so one walk over the fold's non-zeros (``alpha_sweep_scores``) gives every
alpha's scores less the prior, and each candidate adds its own log prior. The
scores are the bits of the table walk of the candidate's model (term for term in
its order; a large batch's predict takes the slots instead, which agree to
rounding), and do not depend on the thread count. When the search's scorers are
``FoldScorer``s, the walk (``alpha_sweep_rows``) turns each row's sums at once
into every candidate's predicted class and log-loss term instead, the scores'
only inputs: no (m, n, k) scores are written and read back. A fold whose rows
that walk cannot score (a NaN or non-finite score, a malformed row) takes the
scores, and then the scorers' own handling of such rows.

Only a plain MultinomialNB whose counts are in a table is swept, without
forgetting or missing values, on a fold of finite non-negative CSR rows; a
candidate with an array alpha, or one its parameters would reject or warn about,
goes the general way (``with_params`` and predict), as does any candidate whose
scores need scikit-learn's scorer.
"""

import copy
import time
import warnings
from numbers import Real

import numpy as np

from .._discrete import MultinomialNB
from .._dispatch import load_kernels
from .._params import ALPHA_LOWER_BOUND
from .._validation import CSRInput

_kernels = load_kernels("_alpha_sweep_kernels")

# the parameters a swept candidate may set (every other one is the fitted model's)
_SWEPT_PARAMS = frozenset({"alpha", "force_alpha", "fit_prior", "class_prior",
                           "n_threads"})

# the widest log prior (largest less smallest) whose exps the fused walk
# shares: a class whose exp(S_c - max S) underflows (S_c < max S - 745) then has
# a probability below exp(-745 + 600) relative to the top class's: nothing
SHARED_PRIOR_SPAN = 600.0

# scores computed at once: at most this many (rows x classes x alphas) doubles,
# the alphas taken in chunks beyond it (T1's 20,000-row fold: all 10 at once)
_CHUNK_CELLS = 1 << 23


def _swept_alpha(fitted, derived):
    """(alpha, log prior) of the candidate ``fitted.with_params(**derived)`` if it
    may be swept, else None."""
    if not derived.keys() <= _SWEPT_PARAMS:
        return None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            model = MultinomialNB(**copy.deepcopy({**fitted.get_params(deep=False),
                                                   **derived}))
            model._validate_params()
            alpha = model.alpha
            if (isinstance(alpha, (bool, np.bool_)) or not isinstance(alpha, Real)
                    or not np.isfinite(alpha) or not alpha > 0
                    or (alpha < ALPHA_LOWER_BOUND and not model.force_alpha)):
                return None
            prior = model._class_log_prior(fitted.class_count_)
    except Exception:
        return None  # (the candidate's with_params reports it, or warns)
    if prior.shape != fitted.classes_.shape or not np.all(np.isfinite(prior)):
        return None
    return float(alpha), prior


def _fold_rows(fitted, X):
    """The fold as a ``CSRInput`` of finite non-negative values, validated as
    the model's predict validates it; None for anything else."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            checked = fitted._check_predict_X(X)
    except Exception:
        return None
    if not isinstance(checked, CSRInput) or checked.shape[1] != fitted._table.n_features:
        return None
    data = checked.data
    if data.shape[0] and not (np.all(np.isfinite(data)) and data.min() >= 0):
        return None
    return checked


def _shared_exp_weights(priors, n_alphas):
    """(C, k) exp(log prior - its largest) of the candidates' log priors
    ``priors``, with which the fused walk takes a row's soft-max exps once an
    alpha, not once a candidate; (0, k) where that saves nothing (no more
    candidates than alphas), for a binary model (whose loss reads 1 - p, where
    a few ulps of p are not a few ulps of the loss), or where a prior spans
    more than SHARED_PRIOR_SPAN (a class's share of exp(S - max S) could then
    underflow where its probability does not)."""
    n_cand, k = priors.shape
    span = priors.max(axis=1) - priors.min(axis=1)
    if n_cand <= n_alphas or k < 3 or not np.all(span <= SHARED_PRIOR_SPAN):
        return np.empty((0, k))
    return np.exp(priors - priors.max(axis=1, keepdims=True))


class AlphaSweep:
    """The swept candidates of one group on one split: their joint log
    likelihoods on the test rows (and train rows), an alpha chunk at a time."""

    @classmethod
    def of(cls, fitted, members, X_test, X_train):
        """The sweep of the group ``members`` ([(index, statistics-free
        parameters), ...]) whose fit is ``fitted``, or None if its candidates to
        sweep have fewer than two alphas or the model or rows are not swept."""
        if type(fitted) is not MultinomialNB:
            return None
        state = fitted.__dict__
        table = state.get("_table")
        if (table is None or table.weight_epoch is not None or table.count_scale != 1.0
                or state.get("_missing_table") is not None):
            return None
        swept = {}
        for position, (_, derived) in enumerate(members):
            found = _swept_alpha(fitted, derived)
            if found is not None:
                swept[position] = found
        if len({alpha for alpha, _ in swept.values()}) < 2:
            # (one alpha: its model's predict, and its siblings' priors swapped
            # in its jll, cost less than a walk)
            return None
        rows = [_fold_rows(fitted, X_test)]
        if X_train is not None:
            rows.append(_fold_rows(fitted, X_train))
        if any(r is None for r in rows):
            return None
        new = cls()
        new._fitted, new._table, new._rows, new._swept = fitted, table, rows, swept
        alphas = []
        for alpha, _ in swept.values():
            if alpha not in alphas:
                alphas.append(alpha)
        new._alphas = alphas
        new._chunk = None   # (first alpha's place, [scores of each rows])
        # {position: its row in the outputs}, [(predicted, loss terms or None) of
        # each rows scored] of ``alpha_sweep_rows``; False once it declined
        new._fused = None
        return new

    def _terms(self, alphas):
        """The (m,) feat_base and (k, m) scale terms of ``alphas``, computed as
        ``_reset_table_terms`` and ``_table_terms`` compute them (the same bits)."""
        table = self._table
        d, k, m = table.n_features, table.n_classes, alphas.shape[0]
        base = np.array([np.log(np.asarray(a, dtype=np.float64)) for a in alphas])
        scale = np.empty((k, m))
        for place, a in enumerate(alphas):
            scale[:, place] = -np.log(table.class_total * table.count_scale
                                      + np.array(a, dtype=np.float64) * d)
        return base, scale

    def _threads(self, rows, m):
        k = self._table.n_classes
        per_row = k * m * max(1, rows.data.shape[0] // max(1, rows.shape[0]))
        return self._fitted._predict_threads(rows.shape[0], per_row)

    def _fused_rows(self, scorers):
        """[(predicted (C, n), loss terms (C, n) or None) of each rows scored by
        a scorer of ``scorers``] of every swept candidate from one walk, or None
        if a scorer needs the scores (or the rows turned out unfit)."""
        if self._fused is None:
            self._fused = self._fuse(scorers) or False
        return self._fused or None

    def _fuse(self, scorers):
        table, classes = self._table, self._fitted.classes_
        positions = list(self._swept)
        n_cand = len(positions)
        if any(n_cand * rows.shape[0] > _CHUNK_CELLS for rows in self._rows):
            return None  # (the scores, an alpha chunk at a time)
        alphas = np.array(self._alphas, dtype=np.float64)
        base, scale = self._terms(alphas)
        cand_alpha = np.array([self._alphas.index(self._swept[p][0]) for p in positions],
                              dtype=np.intp)
        priors = np.ascontiguousarray([self._swept[p][1] for p in positions],
                                      dtype=np.float64)
        weights = _shared_exp_weights(priors, alphas.shape[0])
        outputs = []
        for rows, scorer in zip(self._rows, scorers):
            if scorer is None:
                outputs.append(None)
                continue
            coded = scorer.row_codes(classes)
            if coded is None:
                return None
            codes, want_loss = coded
            predicted = np.empty((n_cand, rows.shape[0]), dtype=np.intp)
            loss = np.empty((n_cand if want_loss else 0, rows.shape[0]))
            bad = _kernels.alpha_sweep_rows(
                rows.data, rows.indices, rows.indptr, table.feat_start, table.feat_len,
                table.ent_class, table.ent_count, alphas, base, scale, cand_alpha,
                priors, weights, codes, predicted, loss,
                self._threads(rows, alphas.shape[0]))
            if bad:
                return None
            outputs.append((predicted, loss if want_loss else None))
        return {position: at for at, position in enumerate(positions)}, outputs

    def _scores(self, alpha):
        """[(m, n, k) scores of each rows] of the chunk holding ``alpha``, and
        its place there."""
        at = self._alphas.index(alpha)
        chunk = self._chunk
        k = self._table.n_classes
        if chunk is None or not chunk[0] <= at < chunk[0] + chunk[1][0].shape[0]:
            longest = max(rows.shape[0] for rows in self._rows)
            size = max(1, _CHUNK_CELLS // max(1, longest * k))
            alphas = np.array(self._alphas[at:at + size], dtype=np.float64)
            chunk = self._chunk = (at, [self._sweep(rows, alphas) for rows in self._rows])
        return chunk[1], at - chunk[0]

    def _sweep(self, rows, alphas):
        table = self._table
        base, scale = self._terms(alphas)
        out = np.empty((alphas.shape[0], rows.shape[0], table.n_classes))
        bad = _kernels.alpha_sweep_scores(
            rows.data, rows.indices, rows.indptr, table.feat_start, table.feat_len,
            table.ent_class, table.ent_count, alphas, base, scale, out,
            self._threads(rows, alphas.shape[0]))
        if bad:
            raise ValueError("a fold row has a feature index out of range")
        return out

    def _planes(self, position):
        """([(n, k) scores less the prior, of each rows], log prior) of the
        group's candidate at ``position``, or None if it is not swept (or the
        rows turned out malformed: predict reports them)."""
        found = self._swept.get(position)
        if found is None:
            return None
        alpha, prior = found
        try:
            scores, place = self._scores(alpha)
        except ValueError:
            self._swept.clear()
            return None
        return [rows[place] for rows in scores], prior

    def jll(self, position):
        """[joint log likelihoods on the test rows, and on the train rows if
        swept] of the group's candidate at ``position``, or None if it is not
        swept."""
        planes = self._planes(position)
        if planes is None:
            return None
        return [plane + planes[1] for plane in planes[0]]

    def result(self, position, test_scorer, train_scorer):
        """The search's result of the group's candidate at ``position`` (without
        ``n_test_samples``), or None if it is not swept or its scores need
        scikit-learn's scorer. Its fit time is its prior's (computed with the
        sweep); its score time includes the sweep of its chunk, if it made it."""
        start = time.time()
        if position not in self._swept:
            return None
        scorers = (test_scorer, train_scorer if len(self._rows) > 1 else None)
        classes = self._fitted.classes_
        result = {"fit_error": None}
        fused = self._fused_rows(scorers)
        if fused is not None:
            at = fused[0][position]
            for key, scorer, outputs in zip(("test_scores", "train_scores"), scorers,
                                            fused[1]):
                if scorer is None:
                    continue
                predicted, loss = outputs
                value = scorer.scores_of_rows(
                    predicted[at], None if loss is None else loss[at], classes)
                if value is None:
                    return None
                result[key] = value
            result.update(fit_time=0.0, score_time=time.time() - start)
            return result
        planes = self._planes(position)
        if planes is None:
            return None
        (test, *train), prior = planes
        for key, scorer, rows in (("test_scores", test_scorer, test),
                                  ("train_scores", train_scorer, train[-1] if train
                                   else None)):
            if scorer is None:
                continue
            # (the prior is added as the scorer reads the rows: no copy)
            value = scorer.scores(rows, classes, offset=prior)
            if value is None:
                return None
            result[key] = value
        result.update(fit_time=0.0, score_time=time.time() - start)
        return result
