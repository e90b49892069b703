"""A group's candidates scored from one pass over a split's test rows.

A search's GaussianNB candidates that differ only in ``var_smoothing`` and
``priors`` share their means and differ in every variance: each one's predict
is a full O(n_test x k x d) pass over the rows. ``GaussianNB._predict_candidates``
computes each row's squared deviations once and every candidate's score from
them (one multiply-add per row, class, feature and candidate, instead of a
subtraction and two multiplies and a row re-read each), the same sums as each
candidate's own predict, and for label-only metrics (accuracy) writes the
labels only. A candidate whose derivation, prediction or scores this path cannot
give (an invalid value, a row with no finite score, a scorer that must decide)
is left to the search's ordinary path, which reports it as scikit-learn would.
"""

import time

# candidates per pass, and the most memory a pass's (g, n_test, k) scores take
_MAX_CANDIDATES = 32
_MAX_SCORE_BYTES = 256 << 20


def scores_together(fitted, members, X_test, n_test, test_scorer):
    """{candidate index: (test scores, its with_params time, its share of the
    scoring time)} for the members of a group (``fitted`` being the first's
    model) whose scores come from one pass; empty if the model has no such
    pass or the group has one candidate."""
    predict = getattr(fitted, "_predict_candidates", None)
    if predict is None or len(members) < 2:
        return {}
    labels_only = test_scorer.labels_suffice()
    derived_models = []
    for position, (index, derived) in enumerate(members):
        start = time.time()
        try:
            model = fitted if position == 0 else fitted.with_params(**derived)
        except Exception:
            continue  # (the ordinary path raises or reports it)
        derived_models.append((index, model, time.time() - start))
    k = fitted.classes_.shape[0]
    per_pass = _MAX_CANDIDATES if labels_only else int(
        max(1, min(_MAX_CANDIDATES, _MAX_SCORE_BYTES // max(1, 8 * n_test * k))))
    results = {}
    for first in range(0, len(derived_models), per_pass):
        chunk = derived_models[first:first + per_pass]
        start = time.time()
        try:
            outputs, suspect = predict([model for _, model, _ in chunk], X_test,
                                       labels_only)
        except Exception:
            return results  # (the ordinary path predicts the rest)
        share = (time.time() - start) / len(chunk)
        for (index, model, derive_time), output, n_suspect in zip(chunk, outputs,
                                                                  suspect):
            if n_suspect:
                continue
            start = time.time()
            scores = (test_scorer.scores_of_labels(output, model.classes_)
                      if labels_only else test_scorer.scores(output, model.classes_))
            if scores is not None:
                results[index] = (scores, derive_time, share + time.time() - start)
        del outputs
    return results
