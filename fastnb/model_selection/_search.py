"""GridSearchCV and RandomizedSearchCV: scikit-learn's, with the candidates that
differ only in statistics-free parameters made from one fit per split.

scikit-learn's search clones and fits the estimator for every candidate and split.
Here, for a fastnb model (or a ``Pipeline`` whose last step is one), the
candidates are grouped by the values of the parameters that change the
statistics (anything but the finalising parameters its capabilities declare: a vectorizer's
``ngram_range``, BernoulliNB's ``binarize``, ...). Each group is fitted once per
split on that split's training rows, exactly as scikit-learn would fit it (so
every other parameter, and every step of a pipeline, sees the same data in the
same order), and each candidate of the group is the fitted model's
``with_params`` of its own values: the model a fit would make, from the same
statistics. A pipeline's earlier steps are fitted once per group and split, and
the split's rows transformed once for all the group's candidates.

Splits are not made by subtracting a fold's statistics from the whole: float
subtraction is not exact (a GaussianNB's centred second moments, weighted
counts), so a split's model would differ from scikit-learn's refit in the last
bits. Whole counts would subtract exactly, but a count table's blocks list
each feature's classes in the order the rows first show them, which the
held-out rows change: the table would hold the same counts in another order.
One fit per split on its training rows is what scikit-learn's search
computes, and ``with_params`` derives each candidate from it exactly; GaussianNB
and the count-table models read a split's rows of X in place (``_fit_rows``).

Everything scikit-learn's ``fit`` does besides (the candidates, ``cv_results_``,
``best_*``, ``refit``) is its own code: these classes subclass its searches and
replace only how a batch of candidates is evaluated. A fit that they do not cover
(fit parameters other than ``groups``, metadata routing, an estimator that is
not a fastnb model or a pipeline ending in one) is scikit-learn's own ``fit``.
"""

import copy
import numbers
import time
import warnings
from collections import Counter, defaultdict
from traceback import format_exc

import numpy as np

from sklearn import get_config
from sklearn.base import clone
from sklearn.exceptions import FitFailedWarning
from sklearn.model_selection import GridSearchCV as _SklearnGridSearchCV
from sklearn.model_selection import RandomizedSearchCV as _SklearnRandomizedSearchCV
from sklearn.model_selection import ParameterGrid, ParameterSampler, check_cv
from sklearn.pipeline import Pipeline
from sklearn.utils import _safe_indexing
from sklearn.utils.validation import indexable

from .._base import _BaseNB
from .._discrete import BernoulliNB, MultinomialNB
from .._persist import _same_value
from ._alpha_sweep import AlphaSweep
from ._fold_scores import FoldScorer, fold_metrics
from ._split_rows import _HeldOutRows, _LazyRows, _row_indices, _rows_fit_X
from ._together import scores_together

__all__ = ["GridSearchCV", "RandomizedSearchCV"]


def _final_model(estimator):
    """(prefix of the model's parameters, model) of a fastnb model or a Pipeline
    whose last step is one; None for any other estimator."""
    if isinstance(estimator, _BaseNB):
        return "", estimator
    if isinstance(estimator, Pipeline) and estimator.steps:
        name, last = estimator.steps[-1]
        if isinstance(last, _BaseNB):
            return f"{name}__", last
    return None


def _split_candidate(base, candidate):
    """(the parameters a fit needs, the statistics-free ones of the model) of a
    candidate: its keys for the final model that the model it makes (``set_params``
    of the whole candidate, which may replace the model or its sub-models)
    declares statistics-free (``_is_finalising``), and the rest."""
    prefix, _ = _final_model(base)
    probe = _final_model(clone(base).set_params(**candidate))
    if probe is None or probe[0] != prefix:
        return dict(candidate), {}
    model = probe[1]
    fit_params, derived = {}, {}
    for key, value in candidate.items():
        if key.startswith(prefix) and model._is_finalising(key[len(prefix):]):
            derived[key[len(prefix):]] = value
        else:
            fit_params[key] = value
    return fit_params, derived


def _groups(base, candidates):
    """The candidates grouped by the parameters their fits need: a list of
    (fit parameters, [(index, statistics-free parameters), ...])."""
    groups = []
    for index, candidate in enumerate(candidates):
        fit_params, derived = _split_candidate(base, candidate)
        for params, members in groups:
            if params.keys() == fit_params.keys() and all(
                    params[key] is fit_params[key]
                    or _same_value(params[key], fit_params[key]) for key in params):
                members.append((index, derived))
                break
        else:
            groups.append((fit_params, [(index, derived)]))
    return groups


def _multimetric_names(scoring):
    """The scorer names of a dict, list or tuple ``scoring``; None otherwise."""
    if isinstance(scoring, dict):
        return list(scoring)
    if isinstance(scoring, (list, tuple, set)):
        return list(scoring)
    return None


def _scores_on_final_step(scoring):
    """Whether scores may be computed by the pipeline's last step on rows its
    earlier steps transformed: scikit-learn's scorers (by name, or the
    estimator's ``score``) only call the estimator's predict methods, which a
    pipeline passes to its last step after the transform. A callable may look at
    the pipeline itself, so it is given the pipeline."""
    if scoring is None or isinstance(scoring, str):
        return True
    if isinstance(scoring, (list, tuple, set)):
        return all(isinstance(s, str) for s in scoring)
    if isinstance(scoring, dict):
        return all(isinstance(s, str) for s in scoring.values())
    return False


def _score(scorer, estimator, X, y, error_score, multimetric):
    """scikit-learn's scoring of one split (``model_selection._validation._score``):
    a failed scorer gives ``error_score`` with a warning, unless it is "raise"."""
    try:
        scores = scorer(estimator, X, y)
    except Exception:
        if multimetric or error_score == "raise":
            raise
        scores = error_score
        warnings.warn(
            "Scoring failed. The score on this train-test partition for these "
            f"parameters will be set to {error_score}. Details: \n{format_exc()}",
            UserWarning)
    if multimetric:
        for name, value in list(scores.items()):
            if isinstance(value, str):
                scores[name] = error_score
                warnings.warn(
                    "Scoring failed. The score on this train-test partition for "
                    f"these parameters will be set to {error_score}. Details: \n"
                    f"{value}", UserWarning)
    message = "scoring must return a number, got %s (%s) instead. (scorer=%s)"
    if isinstance(scores, dict):
        for name, value in scores.items():
            if hasattr(value, "item"):
                try:
                    value = value.item()
                except ValueError:
                    pass
            if not isinstance(value, numbers.Number):
                raise ValueError(message % (value, type(value), name))
            scores[name] = value
    else:
        if hasattr(scores, "item"):
            try:
                scores = scores.item()
            except ValueError:
                pass
        if not isinstance(scores, numbers.Number):
            raise ValueError(message % (scores, type(scores), scorer))
    return scores


def _warn_or_raise_about_fit_failures(results, error_score):
    """scikit-learn's report of failed fits: all failed, a ValueError; some, a
    FitFailedWarning."""
    errors = [result["fit_error"] for result in results
              if result["fit_error"] is not None]
    if not errors:
        return
    delimiter = "-" * 80 + "\n"
    summary = "\n".join(f"{delimiter}{n} fits failed with the following error:\n{error}"
                        for error, n in Counter(errors).items())
    if len(errors) == len(results):
        raise ValueError(
            f"\nAll the {len(results)} fits failed.\nIt is very likely that your "
            "model is misconfigured.\nYou can try to debug the error by setting "
            f"error_score='raise'.\n\nBelow are more details about the failures:\n"
            f"{summary}")
    warnings.warn(
        f"\n{len(errors)} fits failed out of a total of {len(results)}.\nThe score "
        f"on these train-test partitions for these parameters will be set to "
        f"{error_score}.\nIf these failures are not expected, you can try to debug "
        "them by setting error_score='raise'.\n\nBelow are more details about the "
        f"failures:\n{summary}", FitFailedWarning)


def _insert_error_scores(results, error_score):
    """A callable scoring that returned dicts: the failed fits' scores become
    dicts of ``error_score`` with the same keys."""
    successful = next((r["test_scores"] for r in results if r["fit_error"] is None),
                      None)
    if not isinstance(successful, dict):
        return
    for result in results:
        if result["fit_error"] is not None:
            result["test_scores"] = dict.fromkeys(successful, error_score)
            if "train_scores" in result:
                result["train_scores"] = dict.fromkeys(successful, error_score)


# The models whose joint log likelihood is the log prior plus terms that the
# prior parameters leave unchanged: a candidate that differs from the last one
# predicted in these parameters only is scored from its jll, the prior swapped
_PRIOR_ONLY_MODELS = (MultinomialNB, BernoulliNB)
_PRIOR_PARAMS = ("fit_prior", "class_prior")


class _Predicted:
    """A candidate's joint log likelihood on a split's test rows (and train
    rows, if scored), with what a sibling that differs from it in the prior
    parameters only needs: its class counts, log prior and other parameters."""

    @classmethod
    def of(cls, model, derived, X_test, X_train):
        """The model's predictions, or None if a predict raises (its scorer
        then raises the same way, and the search treats that as it does)."""
        try:
            test_jll = model.predict_joint_log_proba(X_test)
            train_jll = None if X_train is None else model.predict_joint_log_proba(X_train)
        except Exception:
            return None
        new = cls()
        new.test_jll, new.train_jll = test_jll, train_jll
        new.model_type, new.params = type(model), model.get_params(deep=False)
        new.classes = model.classes_
        new.class_count = getattr(model, "class_count_", None)
        new.prior = getattr(model, "class_log_prior_", None)
        new.others = {name: value for name, value in derived.items()
                      if name not in _PRIOR_PARAMS}
        return new

    def prior_for(self, derived):
        """The log prior of the candidate with the statistics-free parameters
        ``derived`` if it differs from this one in the prior parameters only (its
        jll is then this one's with the prior swapped), else None."""
        if (self.model_type not in _PRIOR_ONLY_MODELS or self.prior is None
                or not np.all(np.isfinite(self.prior))):
            return None
        others = {name: value for name, value in derived.items()
                  if name not in _PRIOR_PARAMS}
        if others.keys() != self.others.keys() or not all(
                _same_value(value, self.others[name]) for name, value in others.items()):
            return None
        try:
            sibling = self.model_type(**copy.deepcopy({**self.params, **derived}))
            sibling._validate_params()
            prior = sibling._class_log_prior(self.class_count)
        except Exception:
            return None  # (the candidate's with_params reports it)
        if prior.shape != self.prior.shape or not np.all(np.isfinite(prior)):
            return None
        return prior


class _OneFitPerSplit:
    """The ``fit`` of both searches: scikit-learn's, evaluating candidates by one
    fit per split and group of candidates that need the same fit."""

    def fit(self, X, y=None, **params):
        """Run fit with all sets of parameters.

        As scikit-learn's ``fit``; the candidates that differ only in the
        fastnb model's statistics-free parameters are made from one fit per
        split (see :mod:`fastnb.model_selection`).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data.
        y : array-like of shape (n_samples,)
            Target values.
        **params : dict
            ``groups`` for the splitter; any other parameter (``sample_weight``,
            ...) runs scikit-learn's own search.

        Returns
        -------
        self : object
            The fitted search.
        """
        if (set(params) - {"groups"} or y is None
                or get_config().get("enable_metadata_routing", False)
                or _final_model(self.estimator) is None):
            return super().fit(X, y, **params)
        if hasattr(self, "_validate_params"):
            self._validate_params()
        if not isinstance(self.error_score, numbers.Number) and self.error_score != "raise":
            raise ValueError(
                "error_score must be the string 'raise' or a numeric value. (Hint: if "
                "using 'raise', please make sure that it has been spelled correctly.)")
        scorers, refit_metric = self._get_scorers()
        multimetric_scoring = _multimetric_names(self.scoring) is not None
        X, y = indexable(X, y)
        groups = params.get("groups")
        # (checked once, as scikit-learn's fit does: a generator of splits is
        # listed here, and y's type is not worked out again)
        cv_orig = check_cv(self.cv, y, classifier=True)
        self.n_splits_ = cv_orig.get_n_splits(X, y, groups=groups)
        base = clone(self.estimator)

        all_params, all_out, all_more = [], [], defaultdict(list)
        results = {}

        def evaluate_candidates(candidate_params, cv=None, more_results=None, **_):
            nonlocal results
            cv = cv or cv_orig
            candidate_params = list(candidate_params)
            splits = list(cv.split(X, y, groups))
            if len(splits) != self.n_splits_:
                raise ValueError(
                    f"cv.split and cv.get_n_splits return inconsistent results. "
                    f"Expected {self.n_splits_} splits, got {len(splits)}")
            if self.verbose > 0:
                print(f"Fitting {len(splits)} folds for each of {len(candidate_params)}"
                      f" candidates, totalling {len(splits) * len(candidate_params)} "
                      "fits")
            out = self._evaluate(base, X, y, candidate_params, splits, scorers,
                                 multimetric_scoring)
            if len(out) < 1:
                raise ValueError("No fits were performed. Was the CV iterator empty? "
                                 "Were there no candidates?")
            _warn_or_raise_about_fit_failures(out, self.error_score)
            if callable(self.scoring):
                _insert_error_scores(out, self.error_score)
            all_params.extend(candidate_params)
            all_out.extend(out)
            for key, value in (more_results or {}).items():
                all_more[key].extend(value)
            results = self._format_results(all_params, self.n_splits_, all_out, all_more)
            return results

        evaluate_candidates(self._candidates())
        self.multimetric_ = isinstance(all_out[0]["test_scores"], dict)
        if callable(self.scoring) and self.multimetric_:
            self._check_refit_for_multimetric(all_out[0]["test_scores"])
            refit_metric = self.refit
        if self.refit or not self.multimetric_:
            self.best_index_ = self._select_best_index(self.refit, refit_metric, results)
            if not callable(self.refit):
                self.best_score_ = results[f"mean_test_{refit_metric}"][self.best_index_]
            self.best_params_ = results["params"][self.best_index_]
        if self.refit:
            self.best_estimator_ = clone(base).set_params(
                **clone(self.best_params_, safe=False))
            start = time.time()
            self.best_estimator_.fit(X, y)
            self.refit_time_ = time.time() - start
            if hasattr(self.best_estimator_, "feature_names_in_"):
                self.feature_names_in_ = self.best_estimator_.feature_names_in_
        self.scorer_ = getattr(scorers, "_scorers", scorers)
        self.cv_results_ = results
        return self

    def _evaluate(self, base, X, y, candidates, splits, scorer, multimetric):
        """What scikit-learn's ``_fit_and_score`` returns for each (candidate,
        split), candidate-major, from one fit per split and group."""
        n_splits = len(splits)
        out = [None] * (len(candidates) * n_splits)
        groups = _groups(base, candidates)
        on_final_step = isinstance(base, Pipeline) and _scores_on_final_step(self.scoring)
        fast_metrics = fold_metrics(self.scoring)
        rows_X = _rows_fit_X(base, X)
        # (X itself: its held-out rows go to one buffer that every split reuses,
        # not a fresh copy a split, whose pages cost more than copying into them)
        held_out = _HeldOutRows(X, splits) if rows_X is X else None
        for split_index, (train, test) in enumerate(splits):
            # a model that fits on X's rows in place needs no copy of the
            # training rows (640 MB a split on 1,000,000 x 100): made only if
            # something else reads them
            rows = None if rows_X is None else _row_indices(train, X.shape[0])
            X_train = _LazyRows(X, train)
            y_train = _safe_indexing(y, train)
            X_test = None if held_out is None else held_out.take(test)
            if X_test is None:
                X_test = _safe_indexing(X, test)
            y_test = _safe_indexing(y, test)
            n_test = len(test)
            for fit_params, members in groups:
                start = time.time()
                members = self._with_defaults(base, fit_params, members)
                # the group's one fit, with its first candidate's values; a
                # candidate whose fit fails (say, an invalid alpha) fails alone,
                # as in scikit-learn, and the next one is fitted
                estimator = None
                while members and estimator is None:
                    index, derived = members[0]
                    try:
                        estimator = clone(base).set_params(
                            **clone(fit_params, safe=False))
                        prefix, _ = _final_model(estimator)
                        estimator.set_params(**{prefix + key: value for key, value
                                                in copy.deepcopy(derived).items()})
                        if rows is not None and hasattr(estimator, "_fit_rows"):
                            estimator._fit_rows(rows_X, rows, y_train)
                        else:
                            estimator.fit(X_train.get(), y_train)
                    except Exception:
                        if self.error_score == "raise":
                            raise
                        estimator = None
                        out[index * n_splits + split_index] = self._failed(
                            time.time() - start, n_test, scorer, multimetric)
                        members = members[1:]
                        start = time.time()
                if estimator is None:
                    continue
                group_fit_time = (time.time() - start) / len(members)
                prefix, fitted = _final_model(estimator)
                if on_final_step:
                    transform = estimator[:-1]
                    scored_test = transform.transform(X_test)
                    scored_train = (transform.transform(X_train.get())
                                    if self.return_train_score else None)
                else:
                    scored_test = X_test
                    scored_train = X_train.get() if self.return_train_score else None
                fast = fast_metrics is not None and (
                    not isinstance(estimator, Pipeline) or on_final_step)
                test_scorer = FoldScorer(y_test, fast_metrics) if fast else None
                train_scorer = (FoldScorer(y_train, fast_metrics)
                                if fast and self.return_train_score else None)
                # a GaussianNB group's candidates from one pass over the rows
                together = (scores_together(fitted, members, scored_test, n_test,
                                            test_scorer)
                            if fast and not self.return_train_score else {})
                # jll on the test (and train) rows of the last candidate that
                # was predicted, for its siblings that differ in the prior only
                last = None
                # the last derived model, whose table the next may take over
                spare = None
                # MultinomialNB's candidates that differ in alpha and the prior
                # only, scored from one pass over the rows
                sweep = (AlphaSweep.of(fitted, members, scored_test,
                                       scored_train if train_scorer else None)
                         if fast else None)
                for position, (index, derived) in enumerate(members):
                    if index in together:
                        scores, derive_time, score_time = together[index]
                        out[index * n_splits + split_index] = {
                            "fit_error": None, "test_scores": scores,
                            "n_test_samples": n_test, "score_time": score_time,
                            "fit_time": group_fit_time + derive_time}
                        continue
                    start = time.time()
                    if sweep is not None:
                        result = sweep.result(position, test_scorer, train_scorer)
                        if result is not None:
                            result.update(n_test_samples=n_test, fit_time=group_fit_time)
                            out[index * n_splits + split_index] = result
                            continue
                    if fast and last is not None:
                        result = self._from_sibling(last, derived, test_scorer,
                                                    train_scorer, start)
                        if result is not None:
                            result.update(n_test_samples=n_test, fit_time=(
                                group_fit_time + result["fit_time"]))
                            out[index * n_splits + split_index] = result
                            continue
                    try:
                        model = (fitted if position == 0
                                 else self._derive(fitted, spare, derived))
                    except Exception:
                        if self.error_score == "raise":
                            raise
                        out[index * n_splits + split_index] = self._failed(
                            group_fit_time + time.time() - start, n_test, scorer,
                            multimetric)
                        continue
                    if isinstance(estimator, Pipeline) and not on_final_step:
                        scored = copy.copy(estimator)
                        scored.steps = list(estimator.steps[:-1]) + [
                            (estimator.steps[-1][0], model)]
                    else:
                        scored = model
                    fit_time = group_fit_time + time.time() - start
                    start = time.time()
                    result = {"fit_error": None}
                    last = None
                    if fast:
                        last = _Predicted.of(model, derived, scored_test,
                                             scored_train if train_scorer else None)
                        if last is not None:
                            result["test_scores"] = test_scorer.scores(
                                last.test_jll, model.classes_)
                            if result["test_scores"] is None:
                                last = None
                    if last is None:
                        result["test_scores"] = _score(scorer, scored, scored_test,
                                                       y_test, self.error_score,
                                                       multimetric)
                    score_time = time.time() - start
                    if self.return_train_score:
                        train_scores = None
                        if last is not None:
                            train_scores = train_scorer.scores(last.train_jll,
                                                               model.classes_)
                        if train_scores is None:
                            last = None
                            train_scores = _score(scorer, scored, scored_train,
                                                  y_train, self.error_score, multimetric)
                        result["train_scores"] = train_scores
                    result.update(n_test_samples=n_test, fit_time=fit_time,
                                  score_time=score_time)
                    out[index * n_splits + split_index] = result
                    spare = model if position else None
                    del model, scored
        return out

    @staticmethod
    def _derive(fitted, spare, derived):
        """``fitted.with_params(**derived)``; a discrete model's takes over the
        table of ``spare`` (the last candidate derived, which is dropped),
        instead of copying the fitted model's."""
        reusing = getattr(fitted, "_with_params_reusing", None)
        if reusing is None or spare is None:
            return fitted.with_params(**derived)
        return reusing(spare, **derived)

    def _from_sibling(self, last, derived, test_scorer, train_scorer, start):
        """The result of a candidate that differs from the last one predicted
        (``last``, a ``_Predicted``) in the prior only, from its jll with the
        prior swapped; None if it is not such a candidate or its scores need
        scikit-learn's scorer. Its fit time is the prior's computation."""
        prior = last.prior_for(derived)
        if prior is None:
            return None
        fit_time = time.time() - start
        start = time.time()
        test_scores = test_scorer.scores((last.test_jll - last.prior) + prior,
                                         last.classes)
        if test_scores is None:
            return None
        result = {"fit_error": None, "test_scores": test_scores}
        if train_scorer is not None:
            result["train_scores"] = train_scorer.scores(
                (last.train_jll - last.prior) + prior, last.classes)
            if result["train_scores"] is None:
                return None
        result.update(fit_time=fit_time, score_time=time.time() - start)
        return result

    @staticmethod
    def _with_defaults(base, fit_params, members):
        """Each candidate's statistics-free parameters: its own values of those
        that any candidate of the group sets, the estimator's for the others."""
        names = {name for _, derived in members for name in derived}
        if not names:
            return members
        try:
            _, model = _final_model(clone(base).set_params(**fit_params))
            defaults = model.get_params(deep=True)
        except Exception:
            return members  # (the fit of the group then fails the same way)
        return [(index, {**{name: defaults[name] for name in names if name in defaults},
                         **derived}) for index, derived in members]

    def _failed(self, fit_time, n_test, scorer, multimetric):
        """The result of a fit that raised (``error_score`` numeric)."""
        if multimetric:
            scores = dict.fromkeys(_multimetric_names(self.scoring), self.error_score)
        else:
            scores = self.error_score
        result = {"fit_error": format_exc(), "test_scores": scores,
                  "n_test_samples": n_test, "fit_time": fit_time, "score_time": 0.0}
        if self.return_train_score:
            result["train_scores"] = copy.copy(scores)
        return result


class GridSearchCV(_OneFitPerSplit, _SklearnGridSearchCV):
    """scikit-learn's ``GridSearchCV``, one fit per split for a fastnb model.

    The same constructor, attributes and ``cv_results_`` as
    ``sklearn.model_selection.GridSearchCV``. For a fastnb model, or a
    ``sklearn.pipeline.Pipeline`` whose last step is one, the candidates
    that differ only in parameters that leave the model's statistics unchanged
    (``alpha``, ``force_alpha``, ``fit_prior``, ``class_prior``, ``priors``,
    ``var_smoothing``, ``norm``, ``n_threads``; ColumnwiseNB's sub-models' as
    ``name__alpha``) are made from one fit per split by the model's
    ``with_params``; the others are fitted once per split and distinct value,
    and a pipeline's earlier steps transform each split once per such fit.
    ``n_jobs`` is accepted; the splits are evaluated one after another (the
    fastnb kernels are multi-threaded themselves). ``fit_time`` of a derived
    candidate is its share of its split's fit plus its own ``with_params``.

    Parameters
    ----------
    estimator, param_grid, scoring, n_jobs, refit, cv, verbose, pre_dispatch, \
error_score, return_train_score
        As ``sklearn.model_selection.GridSearchCV``.

    Examples
    --------
    >>> import numpy as np
    >>> from fastnb import MultinomialNB
    >>> from fastnb.model_selection import GridSearchCV
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 200)
    >>> X = rng.poisson(1 + 2 * y[:, None], size=(200, 5))
    >>> search = GridSearchCV(MultinomialNB(),
    ...                       {"alpha": [0.01, 0.1, 1.0], "fit_prior": [True, False]},
    ...                       cv=5).fit(X, y)
    >>> sorted(search.best_params_)
    ['alpha', 'fit_prior']
    >>> search.cv_results_["mean_test_score"].shape
    (6,)
    """

    def _candidates(self):
        # (scikit-learn's ``_run_search`` makes the same, and also drives its
        # callbacks (1.9), which this ``fit`` has not)
        return ParameterGrid(self.param_grid)


class RandomizedSearchCV(_OneFitPerSplit, _SklearnRandomizedSearchCV):
    """scikit-learn's ``RandomizedSearchCV``, one fit per split for a fastnb model.

    The same constructor, attributes and ``cv_results_`` as
    ``sklearn.model_selection.RandomizedSearchCV`` (the same candidates
    for the same ``random_state``), evaluated as :class:`GridSearchCV` does:
    candidates that differ only in statistics-free parameters of the fastnb
    model are made from one fit per split.

    Parameters
    ----------
    estimator, param_distributions, n_iter, scoring, n_jobs, refit, cv, verbose, \
pre_dispatch, random_state, error_score, return_train_score
        As ``sklearn.model_selection.RandomizedSearchCV``.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy.stats import loguniform
    >>> from fastnb import GaussianNB
    >>> from fastnb.model_selection import RandomizedSearchCV
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 200)
    >>> X = rng.normal(size=(200, 3)) + y[:, None]
    >>> search = RandomizedSearchCV(GaussianNB(),
    ...                             {"var_smoothing": loguniform(1e-12, 1e-1)},
    ...                             n_iter=8, cv=4, random_state=0).fit(X, y)
    >>> len(search.cv_results_["params"])
    8
    """

    def _candidates(self):
        return ParameterSampler(self.param_distributions, self.n_iter,
                                random_state=self.random_state)
