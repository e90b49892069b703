"""fastnb.model_selection and the models' ``with_params``: a fitted model's
statistics under other parameter values equal a refit, and the searches built on
it give scikit-learn's own ``cv_results_``."""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal

import fastnb
from _registry import mixed_data


def gaussian_data(rng, n=120, d=4, k=3):
    y = rng.integers(0, k, n)
    return rng.normal(size=(n, d)) + y[:, None], y


def count_data(rng, n=120, d=6, k=3):
    y = rng.integers(0, k, n)
    return rng.poisson(1.0 + y[:, None], size=(n, d)).astype(np.float64), y


def category_data(rng, n=120, d=3, k=3):
    y = rng.integers(0, k, n)
    X = np.empty((n, d), dtype=object)
    words = np.array(["red", "green", "blue", "sun"], dtype=object)
    X[:, 0] = words[(rng.integers(0, 3, n) + y) % 4]
    X[:, 1] = (rng.integers(0, 3, n) + y) % 5
    X[:, 2] = rng.integers(0, 4, n)
    return X, y


def columnwise():
    return fastnb.ColumnwiseNB([("g", fastnb.GaussianNB(), [0, 4]),
                                ("b", fastnb.BernoulliNB(), [2]),
                                ("c", fastnb.CategoricalNB(), [1, 3])])


def _priors(draw, k):
    if not draw(st.booleans()):
        return None
    weights = np.array(draw(st.lists(st.floats(0.05, 1.0), min_size=k, max_size=k)))
    return weights / weights.sum()


def _alpha(draw):
    return draw(st.sampled_from([0.0, 1e-12, 1e-3, 0.1, 0.5, 1.0, 2.5]))


# name -> (unfitted model, data maker, draw of statistics-free parameters)
MODELS = {
    "GaussianNB": (fastnb.GaussianNB, gaussian_data, lambda draw, k: {
        "var_smoothing": draw(st.sampled_from([0.0, 1e-9, 1e-4, 0.1, 2.0])),
        "priors": _priors(draw, k)}),
    "MultinomialNB": (fastnb.MultinomialNB, count_data, lambda draw, k: {
        "alpha": _alpha(draw), "force_alpha": draw(st.booleans()),
        "fit_prior": draw(st.booleans()), "class_prior": _priors(draw, k)}),
    "ComplementNB": (fastnb.ComplementNB, count_data, lambda draw, k: {
        "alpha": _alpha(draw), "norm": draw(st.booleans()),
        "fit_prior": draw(st.booleans()), "class_prior": _priors(draw, k)}),
    "BernoulliNB": (lambda: fastnb.BernoulliNB(binarize=1.0), count_data,
                    lambda draw, k: {"alpha": _alpha(draw),
                                     "fit_prior": draw(st.booleans()),
                                     "class_prior": _priors(draw, k)}),
    "CategoricalNB": (fastnb.CategoricalNB, category_data, lambda draw, k: {
        "alpha": _alpha(draw), "fit_prior": draw(st.booleans()),
        "class_prior": _priors(draw, k)}),
    "ColumnwiseNB": (columnwise, lambda rng: mixed_data(rng, n=150), lambda draw, k: {
        "priors": _priors(draw, k),
        "g__var_smoothing": draw(st.sampled_from([1e-9, 1e-3, 0.5])),
        "b__alpha": _alpha(draw), "c__alpha": _alpha(draw)}),
}


def assert_same_model(derived, refit, X):
    assert derived.get_params(deep=False).keys() == refit.get_params(deep=False).keys()
    assert_array_equal(derived.classes_, refit.classes_)
    for method in ("predict_joint_log_proba", "predict_proba"):
        assert_allclose(getattr(derived, method)(X), getattr(refit, method)(X),
                        rtol=1e-13, atol=1e-300, err_msg=method)
    assert_array_equal(derived.predict(X), refit.predict(X))


# -- with_params -----------------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(MODELS))
@pytest.mark.parametrize("sparse", [False, True])
@given(data=st.data())
def test_with_params_equals_a_refit(name, sparse, data, table_fits):
    make, make_data, draw_params = MODELS[name]
    if sparse and make_data is not count_data:
        return
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    X, y = make_data(rng)
    weights = rng.uniform(0.2, 2.0, len(y)) if data.draw(st.booleans()) else None
    if sparse:
        X = sp.csr_matrix(X)
    params = draw_params(data.draw, np.unique(y).shape[0])
    with table_fits(sparse and data.draw(st.booleans())):
        model = make().fit(X, y, sample_weight=weights)
        before = model.predict_joint_log_proba(X)
        derived = model.with_params(**params)
        refit = make().set_params(**params).fit(X, y, sample_weight=weights)
        assert_same_model(derived, refit, X)
        for key, value in params.items():
            assert derived.get_params()[key] is not None or value is None
    # the model it came from is left as it was
    assert_array_equal(model.predict_joint_log_proba(X), before)


def test_with_params_after_partial_fit_and_on_float32(rng):
    X, y = count_data(rng)
    model = fastnb.MultinomialNB()
    model.partial_fit(X[:50].astype(np.float32), y[:50], classes=[0, 1, 2])
    model.partial_fit(X[50:].astype(np.float32), y[50:])
    derived = model.with_params(alpha=0.25, fit_prior=False)
    refit = fastnb.MultinomialNB(alpha=0.25, fit_prior=False).fit(X, y)
    assert_same_model(derived, refit, X)


@pytest.mark.parametrize("name", ["MultinomialNB", "ComplementNB", "BernoulliNB"])
@pytest.mark.parametrize("half_life", [None, 40.0])
def test_with_params_of_a_table_model_streamed(name, half_life, rng, table_fits):
    X, y = count_data(rng, n=200, d=40)
    X[::7] = 0  # (rows of zeros)
    X = sp.csr_matrix(X)
    extra = {"binarize": 1.0} if name == "BernoulliNB" else {}
    params = {"alpha": 0.3, "fit_prior": False}
    if name == "ComplementNB":
        params["norm"] = True

    def streamed(**more):
        model = getattr(fastnb, name)(half_life=half_life, **extra, **more)
        for rows in np.array_split(np.arange(200), 4):
            model.partial_fit(X[rows], y[rows], classes=[0, 1, 2])
        return model

    with table_fits():
        model = streamed()
        if half_life is None or name == "ComplementNB":
            assert model.__dict__.get("_table") is not None
        assert_same_model(model.with_params(**params), streamed(**params), X)
        assert_same_model(model.with_params(alpha=np.full(40, 0.5)),
                          streamed(alpha=np.full(40, 0.5)), X)


@pytest.mark.parametrize("make, make_data, params", [
    (fastnb.BernoulliNB, count_data, {"binarize": 0.5}),
    (fastnb.MultinomialNB, count_data, {"half_life": 10.0}),
    (fastnb.GaussianNB, gaussian_data, {"half_life": 10.0}),
    (fastnb.CategoricalNB, category_data, {"min_categories": 9}),
    (fastnb.CategoricalNB, category_data, {"hash_buckets": 16}),
    (columnwise, mixed_data, {"estimators": "auto"}),
    (columnwise, mixed_data, {"c__min_categories": 9}),
])
def test_with_params_refuses_what_needs_the_data(make, make_data, params, rng):
    model = make().fit(*make_data(rng))
    (name,) = params
    with pytest.raises(ValueError, match=f"cannot change '{name}'.*Refit"):
        model.with_params(**params)


def test_with_params_names_and_values_are_checked(rng):
    X, y = count_data(rng)
    model = fastnb.MultinomialNB().fit(X, y)
    with pytest.raises(ValueError, match="Invalid parameter 'alhpa'"):
        model.with_params(alhpa=0.1)
    with pytest.raises(ValueError, match="alpha"):
        model.with_params(alpha=-1.0)
    # a parameter that needs the data may be repeated at its own value
    assert model.with_params(half_life=None, alpha=0.5).alpha == 0.5
    with pytest.raises(fastnb.NotFittedError if hasattr(fastnb, "NotFittedError")
                       else Exception, match="not fitted"):
        fastnb.MultinomialNB().with_params(alpha=0.1)
    auto = fastnb.ColumnwiseNB().fit(*mixed_data(rng, n=60))
    with pytest.raises(ValueError, match="Invalid parameter 'gaussian__var_smoothing'"):
        auto.with_params(gaussian__var_smoothing=0.1)


# -- the searches against scikit-learn's ---------------------------------------------
sklearn_search = pytest.importorskip("sklearn.model_selection")
from sklearn.feature_extraction.text import HashingVectorizer  # noqa: E402
from sklearn.pipeline import Pipeline  # noqa: E402
from sklearn.preprocessing import FunctionTransformer  # noqa: E402

from fastnb.model_selection import GridSearchCV, RandomizedSearchCV  # noqa: E402

_TIMES = ("mean_fit_time", "std_fit_time", "mean_score_time", "std_score_time")


def assert_same_results(ours, theirs):
    """cv_results_ and best_* equal (the times aside, which exist and are finite)."""
    mine, other = ours.cv_results_, theirs.cv_results_
    assert sorted(mine) == sorted(other)
    for key, value in other.items():
        if key in _TIMES or key.startswith("split") and key.endswith("_time"):
            assert np.all(np.isfinite(mine[key])) and np.all(np.asarray(mine[key]) >= 0)
        elif key == "params":
            assert len(mine[key]) == len(value)
            for a, b in zip(mine[key], value):
                assert a.keys() == b.keys()
        elif key.startswith("param_"):
            assert_array_equal(np.ma.getmaskarray(mine[key]), np.ma.getmaskarray(value))
        elif key.startswith("rank_"):
            assert_array_equal(mine[key], value, err_msg=key)
        else:
            assert_allclose(mine[key], value, rtol=1e-12, atol=1e-12, err_msg=key)
    for name in ("best_index_", "best_score_", "n_splits_", "multimetric_"):
        assert (getattr(ours, name, None) == getattr(theirs, name, None)
                or np.isclose(getattr(ours, name), getattr(theirs, name), rtol=1e-12)), name
    if hasattr(theirs, "best_params_"):
        assert ours.best_params_.keys() == theirs.best_params_.keys()
    if hasattr(theirs, "best_estimator_"):
        X = ours._probe_X
        assert_allclose(ours.best_estimator_.predict_proba(X),
                        theirs.best_estimator_.predict_proba(X), rtol=1e-12)


def both(search_class, estimator, grid, X, y, groups=None, **kwargs):
    sklearn_class = getattr(sklearn_search, search_class.__name__)
    fit_params = {} if groups is None else {"groups": groups}
    ours = search_class(estimator, grid, **kwargs).fit(X, y, **fit_params)
    theirs = sklearn_class(estimator, grid, **kwargs).fit(X, y, **fit_params)
    ours._probe_X = X
    assert_same_results(ours, theirs)
    return ours, theirs


GRIDS = {
    "GaussianNB": {"var_smoothing": [1e-9, 1e-3, 0.3], "priors": [None, [0.2, 0.3, 0.5]]},
    "MultinomialNB": {"alpha": [0.01, 0.5, 2.0], "fit_prior": [True, False]},
    "ComplementNB": {"alpha": [0.01, 1.0], "norm": [True, False],
                     "fit_prior": [True, False]},
    "BernoulliNB": {"alpha": [0.1, 1.0], "binarize": [0.5, 1.5],
                    "class_prior": [None, [0.5, 0.25, 0.25]]},
    "CategoricalNB": {"alpha": [0.1, 1.0, 3.0], "fit_prior": [True, False]},
    "ColumnwiseNB": {"g__var_smoothing": [1e-9, 0.1], "c__alpha": [0.3, 1.0],
                     "priors": [None, [0.2, 0.3, 0.5]]},
}


@pytest.mark.parametrize("name", sorted(MODELS))
def test_grid_search_equals_sklearns(name, rng):
    make, make_data, _ = MODELS[name]
    X, y = make_data(rng)
    scoring = {"acc": "accuracy", "ll": "neg_log_loss", "auc": "roc_auc_ovr"}
    both(GridSearchCV, make(), GRIDS[name], X, y, cv=4, scoring=scoring, refit="ll",
         return_train_score=True)


@pytest.mark.parametrize("scoring, refit", [
    (None, True),
    ("neg_log_loss", True),
    ("balanced_accuracy", False),
    (["accuracy", "neg_brier_score"], "accuracy"),
    ({"f1": "f1_macro", "prec": "precision_macro"}, False),
    (lambda est, X, y: float(np.mean(est.predict(X) == y)), True),
    (lambda est, X, y: {"a": float(np.mean(est.predict(X) == y)), "b": 1.0}, "a"),
])
def test_scorings(scoring, refit, rng):
    X, y = count_data(rng)
    both(GridSearchCV, fastnb.MultinomialNB(), GRIDS["MultinomialNB"], X, y, cv=3,
         scoring=scoring, refit=refit)


def test_refit_callable_and_splitters(rng):
    from sklearn.model_selection import GroupKFold, StratifiedShuffleSplit

    X, y = gaussian_data(rng, n=150)
    groups = rng.integers(0, 6, len(y))

    def refit(results):
        return int(np.argmin(results["mean_test_score"]))

    both(GridSearchCV, fastnb.GaussianNB(), GRIDS["GaussianNB"], X, y, groups=groups,
         cv=GroupKFold(3), refit=refit)
    splits = StratifiedShuffleSplit(4, test_size=0.3, random_state=1)
    both(GridSearchCV, fastnb.GaussianNB(), GRIDS["GaussianNB"], X, y, cv=splits,
         return_train_score=True)
    folds = list(splits.split(X, y))
    both(GridSearchCV, fastnb.GaussianNB(), GRIDS["GaussianNB"], X, y, cv=folds)


@pytest.mark.parametrize("sparse", [False, True])
def test_sparse_and_the_count_table(sparse, rng, table_fits):
    X, y = count_data(rng, n=200, d=30)
    with table_fits(sparse):
        both(GridSearchCV, fastnb.ComplementNB(), GRIDS["ComplementNB"],
             sp.csr_matrix(X) if sparse else X, y, cv=3, scoring="neg_log_loss")


def test_randomized_search_equals_sklearns(rng):
    from scipy.stats import loguniform

    X, y = count_data(rng)
    both(RandomizedSearchCV, fastnb.MultinomialNB(),
         {"alpha": loguniform(1e-3, 10), "fit_prior": [True, False]}, X, y, n_iter=7,
         cv=3, random_state=0, scoring=["accuracy", "neg_log_loss"], refit="accuracy")


TEXTS = ["the cat sat", "a dog ran far", "cats and dogs", "the sun is hot",
         "snow is cold", "hot sun today", "cold wind and snow", "a cat and a dog"]


def test_pipeline(rng):
    docs = [TEXTS[i] + " " + TEXTS[j] for i, j in rng.integers(0, 8, (90, 2))]
    y = np.array([("cat" in d or "dog" in d) + 2 * ("cold" in d) for d in docs])
    pipe = Pipeline([("vect", HashingVectorizer(n_features=64, alternate_sign=False,
                                                norm=None)),
                     ("nb", fastnb.MultinomialNB())])
    grid = {"vect__ngram_range": [(1, 1), (1, 2)], "nb__alpha": [0.1, 1.0],
            "nb__fit_prior": [True, False]}
    both(GridSearchCV, pipe, grid, docs, y, cv=3, scoring=["accuracy", "neg_log_loss"],
         refit="neg_log_loss", return_train_score=True)
    # a callable scoring sees the pipeline itself
    seen = []

    def scoring(est, X, y):
        seen.append(type(est))
        return float(np.mean(est.predict(X) == y))

    both(GridSearchCV, pipe, grid, docs, y, cv=3, scoring=scoring)
    assert set(seen) == {Pipeline}


def test_pipeline_that_replaces_its_model(rng):
    X, y = count_data(rng)
    pipe = Pipeline([("scale", FunctionTransformer(np.sqrt)), ("nb", fastnb.GaussianNB())])
    grid = [{"nb": [fastnb.GaussianNB()], "nb__var_smoothing": [1e-9, 0.1]},
            {"nb": [fastnb.MultinomialNB()], "nb__alpha": [0.5, 2.0]}]
    both(GridSearchCV, pipe, grid, X, y, cv=3)


def test_fits_once_per_split_and_statistics_changing_value(rng, monkeypatch):
    X, y = count_data(rng)
    fits = []
    original = fastnb.BernoulliNB.fit

    def counted(self, *args, **kwargs):
        fits.append(self.binarize)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(fastnb.BernoulliNB, "fit", counted)
    grid = {"alpha": [0.1, 0.5, 1.0, 2.0], "fit_prior": [True, False],
            "binarize": [0.5, 1.5]}
    GridSearchCV(fastnb.BernoulliNB(), grid, cv=3, refit=False).fit(X, y)
    assert sorted(fits) == [0.5] * 3 + [1.5] * 3
    fits.clear()
    both(GridSearchCV, fastnb.BernoulliNB(), grid, X, y, cv=3)


def test_failures_and_error_score(rng):
    X, y = count_data(rng)
    grid = {"alpha": [-1.0, 0.5], "fit_prior": [True, False]}
    with pytest.warns(Warning):
        ours, _ = both(GridSearchCV, fastnb.MultinomialNB(), grid, X, y, cv=3,
                       error_score=-5.0, scoring=["accuracy", "neg_log_loss"],
                       refit="accuracy")
    assert np.all(ours.cv_results_["mean_test_accuracy"][:2] == -5.0)
    with pytest.raises(ValueError, match="alpha"):
        GridSearchCV(fastnb.MultinomialNB(), grid, cv=3, error_score="raise").fit(X, y)
    with pytest.raises(ValueError, match="All the 6 fits failed"):
        GridSearchCV(fastnb.MultinomialNB(), {"alpha": [-1.0, -2.0]}, cv=3).fit(X, y)


def test_other_estimators_and_fit_params_go_to_sklearn(rng):
    from sklearn.linear_model import LogisticRegression

    X, y = gaussian_data(rng)
    both(GridSearchCV, LogisticRegression(), {"C": [0.1, 1.0]}, X, y, cv=3)
    weights = rng.uniform(0.5, 2, len(y))
    ours = GridSearchCV(fastnb.GaussianNB(), GRIDS["GaussianNB"], cv=3).fit(
        X, y, sample_weight=weights)
    theirs = sklearn_search.GridSearchCV(fastnb.GaussianNB(), GRIDS["GaussianNB"],
                                         cv=3).fit(X, y, sample_weight=weights)
    ours._probe_X = X
    assert_same_results(ours, theirs)



class _CountingTransformer(FunctionTransformer):
    """A FunctionTransformer that logs the number of rows of each transform
    (in a class attribute: clone copies parameters)."""

    log = []

    def transform(self, X):
        type(self).log.append(len(X))
        return super().transform(X)


def test_a_pipeline_transforms_each_fold_once(rng):
    X, y = count_data(rng, n=90)
    log = _CountingTransformer.log
    log.clear()
    pipe = Pipeline([("root", _CountingTransformer(np.sqrt)),
                     ("nb", fastnb.GaussianNB())])
    grid = {"nb__var_smoothing": [1e-9, 1e-3, 0.1, 1.0]}
    search = GridSearchCV(pipe, grid, cv=3, refit=False).fit(X, y)
    # per fold: the training rows (fit) and the test rows, once each
    assert sorted(log) == [30, 30, 30, 60, 60, 60]
    log.clear()
    theirs = sklearn_search.GridSearchCV(pipe, grid, cv=3, refit=False).fit(X, y)
    assert len(log) == 2 * 4 * 3  # scikit-learn: every candidate and fold
    assert_allclose(search.cv_results_["mean_test_score"],
                    theirs.cv_results_["mean_test_score"], rtol=1e-12)


def test_columnwise_sub_models_in_a_pipeline(rng, monkeypatch):
    X, y = mixed_data(rng, n=150)
    pipe = Pipeline([("same", FunctionTransformer(None)), ("nb", columnwise())])
    grid = {"nb__g__var_smoothing": [1e-9, 0.1], "nb__c__alpha": [0.2, 1.0],
            "nb__b__alpha": [0.5, 2.0]}
    fits = []
    original = fastnb.ColumnwiseNB.fit

    def counted(self, *args, **kwargs):
        fits.append(1)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(fastnb.ColumnwiseNB, "fit", counted)
    GridSearchCV(pipe, grid, cv=3, refit=False).fit(X, y)
    monkeypatch.undo()
    assert len(fits) == 3  # one fit per fold for the 8 candidates
    both(GridSearchCV, pipe, grid, X, y, cv=3, n_jobs=2,
         scoring=["accuracy", "neg_log_loss"], refit="neg_log_loss")
