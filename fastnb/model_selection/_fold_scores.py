"""Scores of a search's candidates from one joint log likelihood each.

scikit-learn's scorers call the estimator's ``predict`` and ``predict_proba``
(two predicts over the fold) and validate their inputs (``log_loss`` alone
one-hot encodes the fold's labels a call). For the common scorer names a
candidate's scores are simple functions of its joint log likelihood ``jll``
on the fold: the labels are its arg-max (the first on ties, as the predict
kernels take it), the probabilities its soft-max. A C-contiguous float64
``jll`` (every fastnb model's) is summarised in one kernel pass
(``fold_row_scores``: each row's arg-max and top score, and the row less it);
another takes NumPy. A MultinomialNB alpha sweep (``_alpha_sweep.py``) computes
each row's arg-max and log-loss term in its walk instead: ``row_codes`` gives it
the labels, ``scores_of_rows`` averages what it returns. ``FoldScorer`` encodes a
fold's labels once and computes
those scores from a candidate's ``jll``, exactly as scikit-learn's functions
would from the model's outputs; where
scikit-learn would warn or raise (a class of the model missing from the fold
under log loss, a label predicted that the fold lacks under balanced accuracy,
a non-finite row), it returns None and the search calls the scorer itself.
"""

import numpy as np

from .._dispatch import load_kernels
from .._threads import threads_for

_kernels = load_kernels("_discrete_predict")  # fold_row_scores


# scorer name -> the ``FoldScorer`` method that computes it
_METRICS = {"accuracy": "_accuracy", "balanced_accuracy": "_balanced_accuracy",
            "neg_log_loss": "_neg_log_loss"}
# the metrics of the labels alone
_LABEL_METRICS = ("accuracy", "balanced_accuracy")


def fold_metrics(scoring):
    """{key of the search's scores: scorer name} when every metric of
    ``scoring`` is one ``FoldScorer`` computes (key None: a single metric, a
    float score), else None. ``scoring=None`` is the estimator's ``score``:
    a fastnb model's (or a pipeline's, through its last step) is the accuracy."""
    if scoring is None:
        return {None: "accuracy"}
    if isinstance(scoring, str):
        names = {None: scoring}
    elif isinstance(scoring, (list, tuple, set)):
        names = {name: name for name in scoring}
    elif isinstance(scoring, dict):
        names = dict(scoring)
    else:
        return None
    if not all(isinstance(name, str) and name in _METRICS for name in names.values()):
        return None
    return names


class FoldScorer:
    """The scores of candidates on one fold's labels ``y`` (see the module)."""

    def __init__(self, y, metrics):
        self._y = np.asarray(y)
        self._metrics = metrics
        self._classes = None
        # the kernel's (n, k) output, reused by every candidate of the fold: a
        # fresh one each time cost its pages' faults (5.6 MB at T1's fold)
        self._scratch = None

    def _encode(self, classes):
        """The fold's labels as indices into ``classes`` (a model's sorted
        ``classes_``), once per classes array."""
        if self._classes is classes:
            return
        y, k = self._y, classes.shape[0]
        at = np.minimum(np.searchsorted(classes, y), k - 1)
        known = classes[at] == y
        self._codes = at
        self._all_known = bool(known.all())
        self._known = known
        self._count = np.bincount(at[known], minlength=k)
        self._classes = classes

    def scores(self, jll, classes, offset=None):
        """The candidate's scores (a float, or a dict by the metrics' keys) from
        its joint log likelihood on the fold (``jll + offset``, with ``offset``
        a (k,) array, if given), or None where scikit-learn's scorer must
        decide."""
        if classes.shape[0] < 2 or jll.shape != (self._y.shape[0], classes.shape[0]):
            return None
        if self._y.shape[0] == 0:
            return None
        try:
            self._encode(classes)
        except TypeError:
            return None  # (labels that do not compare with the classes)
        if offset is not None:
            offset = np.asarray(offset, dtype=np.float64)
        if jll.dtype == np.float64 and jll.flags.c_contiguous and (
                offset is None or offset.shape == (jll.shape[1],)):
            # one pass: each row's arg-max and top score, and the row less it
            n, k = jll.shape
            predicted, top = np.empty(n, dtype=np.intp), np.empty(n)
            if self._scratch is None or self._scratch.shape != (n, k):
                self._scratch = np.empty((n, k))
            shifted = self._scratch
            n_threads = threads_for(None, jll.size, "predict")
            if _kernels.fold_row_scores(jll, np.zeros(k) if offset is None else offset,
                                        predicted, top, shifted, n_threads):
                return None  # (a NaN row, or a non-finite top: as below)
        else:
            if offset is not None:
                jll = jll + offset
            # (argmax takes a row's first NaN as its largest: a NaN row's top is NaN)
            predicted = jll.argmax(axis=1)
            top = np.take_along_axis(jll, predicted[:, None], axis=1)[:, 0]
            if not np.all(np.isfinite(top)):
                return None  # (the predict kernels' own handling of such rows)
            shifted = None
        return self._scores(jll, top, predicted, shifted)

    def labels_suffice(self):
        """Whether every metric is a function of the predicted labels alone."""
        return all(name in _LABEL_METRICS for name in self._metrics.values())

    def scores_of_labels(self, predicted, classes):
        """The candidate's scores from its predicted class indices (into
        ``classes``; every row's best score finite), when ``labels_suffice``;
        None where scikit-learn's scorer must decide."""
        if (not self.labels_suffice() or classes.shape[0] < 2
                or predicted.shape != self._y.shape or self._y.shape[0] == 0):
            return None
        try:
            self._encode(classes)
        except TypeError:
            return None
        return self._scores(None, None, predicted, None)

    def row_codes(self, classes):
        """(the fold's labels as indices into ``classes``, -1 for a label the
        model lacks; whether the log-loss terms are wanted: log loss is asked
        and every class of the model is in the fold), the inputs of
        ``scores_of_rows``; None where scikit-learn's scorer must decide."""
        if classes.shape[0] < 2 or self._y.shape[0] == 0:
            return None
        try:
            self._encode(classes)
        except TypeError:
            return None
        codes = np.where(self._known, self._codes, -1).astype(np.intp, copy=False)
        want_loss = ("neg_log_loss" in self._metrics.values() and self._all_known
                     and bool(np.all(self._count > 0)))
        return codes, want_loss

    def scores_of_rows(self, predicted, loss, classes):
        """The candidate's scores from its predicted class indices (into
        ``classes``; every row's best score finite) and, if log loss is asked,
        its rows' log-loss terms ``loss`` (-log of the clipped probability of
        the row's class, as ``_neg_log_loss`` takes it; None: not computed);
        None where scikit-learn's scorer must decide."""
        if (classes.shape[0] < 2 or predicted.shape != self._y.shape
                or self._y.shape[0] == 0
                or (loss is not None and loss.shape != self._y.shape)):
            return None
        try:
            self._encode(classes)
        except TypeError:
            return None
        return self._scores(None, None, predicted, None, loss)

    def _scores(self, jll, top, predicted, shifted, row_loss=None):
        self._jll, self._top, self._predicted, self._shifted = jll, top, predicted, shifted
        self._row_loss = row_loss
        self._loss = None
        out = {}
        try:
            for key, name in self._metrics.items():
                score = getattr(self, _METRICS[name])()
                if score is None:
                    return None
                out[key] = score
        finally:
            del (self._jll, self._top, self._predicted, self._shifted, self._loss,
                 self._row_loss)
        return out[None] if None in out else out

    def _correct(self):
        return self._known & (self._codes == self._predicted)

    def _accuracy(self):
        # accuracy_score: the average of y_true == y_pred
        return float(np.average(self._correct()))

    def _balanced_accuracy(self):
        # balanced_accuracy_score: the mean recall of the classes of y_true,
        # over the sorted union of the labels (a label predicted that y_true
        # lacks makes scikit-learn warn: its scorer decides)
        if not self._all_known or not np.all(self._count[self._predicted] > 0):
            return None
        k = self._classes.shape[0]
        hits = np.bincount(self._codes[self._correct()], minlength=k)
        present = self._count > 0
        per_class = hits[present] / self._count[present]
        return float(np.mean(per_class))

    def _neg_log_loss(self):
        # -log_loss(y_true, predict_proba): labels from y_true, which must hold
        # every class of the model; a binary model's scorer passes the second
        # column p, and log_loss takes 1 - p for the first
        if not self._all_known or not np.all(self._count > 0):
            return None
        if self._loss is not None:
            return self._loss  # (asked twice: ``shifted`` is its exp by now)
        if self._row_loss is not None:
            self._loss = -1 * float(np.average(self._row_loss))
            return self._loss
        top, shifted = self._top, self._shifted
        if top is None:
            return None  # (the rows' labels alone)
        if shifted is None:
            shifted = self._jll - top[:, None]
        # exp(jll - top) over its row sum: the soft-max (in place: ``shifted`` is
        # this scorer's own)
        np.exp(shifted, out=shifted)
        total = shifted.sum(axis=1)
        if shifted.shape[1] == 2:
            positive = shifted[:, 1] / total
            true_proba = np.where(self._codes == 1, positive, 1 - positive)
        else:
            true_proba = shifted[np.arange(shifted.shape[0]), self._codes] / total
        eps = np.finfo(np.float64).eps
        loss = -np.log(np.clip(true_proba, eps, 1 - eps))
        self._loss = -1 * float(np.average(loss))
        return self._loss
