"""fastnb.model_selection's scores from one joint log likelihood per candidate
(fastnb/model_selection/_fold_scores.py): equal to scikit-learn's scorers, with
the model's predict and predict_proba never called, and scikit-learn's scorer
deciding where it would warn or raise."""

import copy
import pickle

import numpy as np
import pytest
import scipy.sparse as sp

import fastnb

sklearn_search = pytest.importorskip("sklearn.model_selection")
from test_model_selection import both, count_data, gaussian_data  # noqa: E402

from fastnb.model_selection import GridSearchCV  # noqa: E402
from fastnb.model_selection._fold_scores import fold_metrics  # noqa: E402

FAST = ["accuracy", "balanced_accuracy", "neg_log_loss"]


@pytest.fixture
def no_predict(monkeypatch):
    """Make the models' predict and predict_proba raise: a search that scores by
    the fast path never calls them."""
    def refusing(name):
        def refuse(self, X):
            raise AssertionError("the scorer was called")
        refuse.__name__ = name  # (scikit-learn's scorers look methods up by name)
        return refuse

    for cls in (fastnb.MultinomialNB, fastnb.BernoulliNB, fastnb.ComplementNB,
                fastnb.GaussianNB, fastnb.CategoricalNB):
        for name in ("predict", "predict_proba", "predict_log_proba"):
            monkeypatch.setattr(cls, name, refusing(name))
    return monkeypatch


def test_fold_metrics():
    assert fold_metrics(None) == {None: "accuracy"}
    assert fold_metrics("neg_log_loss") == {None: "neg_log_loss"}
    assert fold_metrics(FAST) == {name: name for name in FAST}
    assert fold_metrics({"a": "accuracy"}) == {"a": "accuracy"}
    assert fold_metrics("roc_auc_ovr") is None
    assert fold_metrics(["accuracy", "f1_macro"]) is None
    assert fold_metrics(lambda est, X, y: 1.0) is None


def test_fold_scorer_leaves_non_finite_rows_to_sklearn():
    from fastnb.model_selection._fold_scores import FoldScorer

    classes = np.array([0, 1, 2])
    scorer = FoldScorer(np.array([0, 1, 2]), {None: "accuracy"})
    assert scorer.scores(np.array([[0., 1, 2], [1, np.nan, 0], [0, 0, 0]]), classes) is None
    assert scorer.scores(np.array([[0., 1, 2], [1, 3, 0], [-np.inf] * 3]), classes) is None
    # -inf beside a finite score is a class with no chance; ties take the first
    assert scorer.scores(np.array([[0., 1, 2], [1, 3, -np.inf], [1, 1, 1]]),
                         classes) == pytest.approx(1 / 3)
    assert scorer.scores(np.zeros((3, 3)), classes[:2]) is None  # (shape)


@pytest.mark.parametrize("make, grid", [
    (fastnb.MultinomialNB, {"alpha": [0.0, 0.01, 1.0], "force_alpha": [True],
                            "fit_prior": [True, False],
                            "class_prior": [None, [0.2, 0.3, 0.5]]}),
    (fastnb.BernoulliNB, {"alpha": [0.1, 2.0], "fit_prior": [True, False],
                          "binarize": [0.5, 1.5]}),
    (fastnb.ComplementNB, {"alpha": [0.1, 1.0], "norm": [True, False],
                           "fit_prior": [True, False]}),
])
@pytest.mark.parametrize("k", [2, 3])
@pytest.mark.parametrize("sparse", [False, True])
def test_fast_scores_equal_sklearns(make, grid, k, sparse, rng):
    X, y = count_data(rng, n=150, k=k)
    if k == 2 and "class_prior" in grid:
        grid = {**grid, "class_prior": [None, [0.3, 0.7]]}
    X = sp.csr_matrix(X) if sparse else X
    scoring = {name: name for name in FAST}
    both(GridSearchCV, make(), grid, X, y, cv=4, scoring=scoring, refit=False,
         return_train_score=True)
    for name in FAST:
        both(GridSearchCV, make(), grid, X, y, cv=3, scoring=name,
             return_train_score=True)


def test_fast_scores_on_the_table_and_float32(rng, table_fits):
    X, y = count_data(rng, n=200, d=30)
    X = sp.csr_matrix(X.astype(np.float32))
    grid = {"alpha": [0.01, 0.5, 3.0], "fit_prior": [True, False]}
    for on in (False, True):
        with table_fits(on):
            both(GridSearchCV, fastnb.MultinomialNB(), grid, X, y, cv=3, scoring=FAST,
                 refit="neg_log_loss")


def test_the_fast_path_calls_no_predict(rng, no_predict):
    X, y = count_data(rng)
    grid = {"alpha": [0.1, 1.0], "fit_prior": [True, False]}
    for scoring in (None, FAST, {"ll": "neg_log_loss"}):
        GridSearchCV(fastnb.MultinomialNB(), grid, cv=3, scoring=scoring, refit=False,
                     error_score="raise", return_train_score=True).fit(X, y)
    Xg, yg = gaussian_data(rng)
    GridSearchCV(fastnb.GaussianNB(), {"var_smoothing": [1e-9, 0.1]}, cv=3,
                 scoring="balanced_accuracy", refit=False,
                 error_score="raise").fit(Xg, yg)
    # another scorer is scikit-learn's, which predicts
    with pytest.raises(AssertionError, match="scorer was called"):
        GridSearchCV(fastnb.MultinomialNB(), grid, cv=3, scoring="roc_auc_ovr",
                     refit=False, error_score="raise").fit(X, y)


def test_folds_that_lack_a_class_go_to_sklearns_scorer(rng):
    # class 3 has two rows: some test folds lack it (log_loss raises there,
    # error_score), some training folds too; balanced accuracy warns when a
    # label predicted is missing from the fold
    X, y = count_data(rng, n=60)
    y[:2] = 3
    X[:2] += 6
    grid = {"alpha": [0.1, 1.0], "fit_prior": [True, False]}
    with pytest.warns(UserWarning):
        both(GridSearchCV, fastnb.MultinomialNB(), grid, X, y, cv=3,
             scoring={"ll": "neg_log_loss", "acc": "accuracy",
                      "bal": "balanced_accuracy"}, refit="acc")
    with pytest.warns(UserWarning):
        both(GridSearchCV, fastnb.MultinomialNB(), grid, X, y, cv=3,
             scoring="balanced_accuracy")


def test_string_labels_and_ties(rng):
    X, y = count_data(rng, n=120)
    labels = np.array(["ant", "bee", "cow"], dtype=object)[y]
    # empty rows tie under a uniform prior: the first class, as predict takes it
    X[::7] = 0
    grid = {"alpha": [0.5, 1.0], "fit_prior": [True, False]}
    both(GridSearchCV, fastnb.MultinomialNB(), grid, X, labels, cv=3, scoring=FAST,
         refit="accuracy", return_train_score=True)


@pytest.mark.parametrize("make, grid, data", [
    (fastnb.MultinomialNB, {"fit_prior": [True, False]}, count_data),
    (fastnb.GaussianNB, {"priors": [None, [0.2, 0.3, 0.5]]}, gaussian_data),
])
def test_memory_does_not_grow_with_the_candidates(make, grid, data, rng):
    # one fold's data and one model at a time: the peak of a search of 24
    # candidates is that of 2 (no copy of X, jll or model kept per candidate)
    import tracemalloc

    X, y = data(rng, n=3000, d=200)
    many = {**grid, ("alpha" if make is fastnb.MultinomialNB else "var_smoothing"):
            [float(v) for v in np.logspace(-3, 0, 12)]}

    def peak(grid):
        tracemalloc.start()
        try:
            GridSearchCV(make(), grid, cv=5, scoring=FAST, refit=False,
                         return_train_score=True).fit(X, y)
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    peak(grid)  # (imports and caches made once)
    assert peak(many) < 1.25 * peak(grid) + 2**20
    assert peak(many) < 3 * X.nbytes


@pytest.mark.parametrize("make", [fastnb.MultinomialNB, fastnb.ComplementNB,
                                  lambda: fastnb.BernoulliNB(binarize=1.0)])
def test_with_params_reusing_a_spare_table(make, rng, table_fits):
    # the search's derivation of candidate after candidate from one copy of the
    # table: the same bits as with_params, the fitted model left as it was
    X, y = count_data(rng, n=200, d=40)
    X = sp.csr_matrix(X)
    with table_fits(True):
        fitted = make().fit(X, y)
    assert fitted.__dict__.get("_table") is not None
    before = fitted.predict_joint_log_proba(X)
    spare = fitted.with_params(alpha=0.3)
    spare.predict_joint_log_proba(X)
    for alpha, fit_prior in [(0.01, True), (2.0, False), (0.5, True)]:
        table = spare._table
        new = fitted._with_params_reusing(spare, alpha=alpha, fit_prior=fit_prior)
        assert new._table is table and "_table" not in spare.__dict__
        reference = fitted.with_params(alpha=alpha, fit_prior=fit_prior)
        np.testing.assert_array_equal(new.predict_joint_log_proba(X),
                                      reference.predict_joint_log_proba(X))
        np.testing.assert_array_equal(new.predict_proba(X[:1]),
                                      reference.predict_proba(X[:1]))
        spare = new
    np.testing.assert_array_equal(fitted.predict_joint_log_proba(X), before)
    # a spare that is not a copy of this model's table: a copy is made
    with table_fits(True):
        other = make().fit(X[:100], y[:100])
    new = fitted._with_params_reusing(other, alpha=0.2)
    assert "_table" in other.__dict__ and new._table is not other._table
    assert new._table is not fitted._table
    # the weak reference to the source table is neither pickled nor copied
    copied = pickle.loads(pickle.dumps(new))
    for twin in (copied, copy.deepcopy(new)):
        assert twin._table.copied_from is None and twin._table.copied_features is None
    np.testing.assert_array_equal(copied.predict_proba(X), new.predict_proba(X))
