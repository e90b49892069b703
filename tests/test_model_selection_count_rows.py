"""A search's count-table models (MultinomialNB, ComplementNB, BernoulliNB) fit
each split on the CSR X's training rows in place (``_fit_rows``: the partition
kernel reads the rows where they are, no copy of X[train]): the same model as a
fit of the copy, attribute for attribute and bit for bit, and the same
``cv_results_`` as scikit-learn's search. What that path does not take (NaN,
infinity, a dense-table split, forgetting) is the fit of the copy. And the
search reads ``cv`` once, as scikit-learn's does (a generator of splits)."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_array_equal

import fastnb
from fastnb._discrete import _table as table_module
from fastnb.model_selection import GridSearchCV
from _count_tables import MODELS
from _registry import hashed_text
from test_count_table import _assert_same_table_state, _table_state
from test_model_selection import both


def _state(model):
    """Everything a fitted model holds, its table as ``_table_state`` lists it
    (the entry weights where the model keeps them), the rest as it is."""
    state = {}
    for name, value in model.__dict__.items():
        if name in ("_table", "_missing_table"):
            value = _table_state(value)
            if value is not None and not model._table_keeps_weights:
                del value["weights"]
        state[name] = value
    return state


def assert_same_model(got, expected, X):
    a, b = _state(got), _state(expected)
    assert a.keys() == b.keys()
    for name in b:
        if name in ("_table", "_missing_table"):
            _assert_same_table_state(a[name], b[name])
        elif isinstance(b[name], np.ndarray):
            assert_array_equal(a[name], b[name], err_msg=name)
            assert a[name].dtype == b[name].dtype, name
        elif name not in ("_table_terms_cache",):
            assert type(a[name]) is type(b[name]), name
    for name in ("feature_count_", "class_count_", "feature_log_prob_",
                 "class_log_prior_"):
        assert_array_equal(getattr(got, name), getattr(expected, name), err_msg=name)
    assert_array_equal(got.predict_joint_log_proba(X), expected.predict_joint_log_proba(X))


def _fit_both(name, params, X, rows, y):
    copy = getattr(fastnb, name)(**params).fit(X[rows], y[rows])
    model = getattr(fastnb, name)(**params)
    prepared = model._rows_fit_X(X)
    assert prepared is not None
    assert model._fit_rows(prepared, rows, y[rows]) is model
    return model, copy


def _unsorted(X):
    """X with each row's indices in descending order (not canonical)."""
    X = X.copy()
    for i in range(X.shape[0]):
        lo, hi = X.indptr[i], X.indptr[i + 1]
        X.indices[lo:hi] = X.indices[lo:hi][::-1].copy()
        X.data[lo:hi] = X.data[lo:hi][::-1].copy()
    X.has_canonical_format = False
    return X


def _first_value_of(X, rows):
    """The position in X.data of the first value of the first non-empty row."""
    row = next(r for r in rows if X.indptr[r + 1] > X.indptr[r])
    return X.indptr[row]


@pytest.mark.parametrize("name, params", MODELS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n_threads", [1, 2])
@pytest.mark.parametrize("order", ["sorted", "shuffled"])
def test_fit_rows_equals_a_fit_of_the_copy(name, params, dtype, n_threads, order, rng,
                                           monkeypatch):
    X, y = hashed_text(400, seed=5)
    X = X.astype(dtype)
    rows = rng.permutation(400)[:320]
    if order == "sorted":
        rows = np.sort(rows)
    params = {**params, "n_threads": n_threads}
    copy = getattr(fastnb, name)(**params).fit(X[rows], y[rows])
    assert copy.__dict__.get("_table") is not None   # (the table's path)
    model = getattr(fastnb, name)(**params)
    prepared = model._rows_fit_X(X)
    monkeypatch.setattr(type(model), "fit", None)    # (no copy taken)
    assert model._fit_rows(prepared, rows, y[rows]) is model
    monkeypatch.undo()
    assert_same_model(model, copy, X)


@pytest.mark.parametrize("name, params", MODELS)
def test_whole_and_weighted_values(name, params, rng):
    # tf-idf-like values (not whole numbers): the records are not compact, and
    # the counts are sums of fractions, in the rows' order
    X, y = hashed_text(400, seed=6)
    X.data = X.data * rng.uniform(0.1, 2.0, X.data.shape[0])
    rows = np.sort(rng.permutation(400)[:300])
    model, copy = _fit_both(name, params, X, rows, y)
    assert_same_model(model, copy, X)


@pytest.mark.parametrize("name", ["MultinomialNB", "ComplementNB", "BernoulliNB"])
def test_what_the_rows_path_leaves_to_the_copy(name, rng):
    X, y = hashed_text(400, seed=7)
    rows = np.sort(rng.permutation(400)[:300])
    # NaN in the rows: missing values, fitted as a fit of the copy does
    Xm = X.copy()
    Xm.data[_first_value_of(Xm, rows[3:])] = np.nan
    model, copy = _fit_both(name, {}, Xm, rows, y)
    assert_same_model(model, copy, Xm)
    # infinity or a negative value in the rows: the fit's own error; outside
    # the rows: not looked at
    outside = np.setdiff1d(np.arange(400), rows)
    for value, message in ((np.inf, "infinity"), (-1.0, "Negative")):
        if name == "BernoulliNB" and value < 0:
            continue   # (BernoulliNB thresholds negative values)
        Xb = X.copy()
        Xb.data[_first_value_of(Xb, outside)] = value
        model, copy = _fit_both(name, {}, Xb, rows, y)
        assert_same_model(model, copy, X)
        Xb.data[_first_value_of(Xb, rows[5:])] = value
        model = getattr(fastnb, name)()
        with pytest.raises(ValueError, match=message):
            model._fit_rows(model._rows_fit_X(Xb), rows, y[rows])
    # a few rows (the dense table), alpha too small, forgetting: the copy's fit
    for params, few in (({}, 20), ({"alpha": 0.0, "force_alpha": False}, 300),
                        ({"half_life": 100.0}, 300)):
        subset = rows[:few]
        copy = getattr(fastnb, name)(**params).fit(X[subset], y[subset])
        model = getattr(fastnb, name)(**params)
        prepared = getattr(fastnb, name)()._rows_fit_X(X)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            model._fit_rows(prepared, subset, y[subset])
        assert len(caught) == (1 if "force_alpha" in params else 0)
        assert_same_model(model, copy, X)


def test_rows_fit_X_takes_csr_as_the_kernels_read_it(rng):
    X, y = hashed_text(60, seed=8)
    model = fastnb.MultinomialNB()
    assert model._rows_fit_X(X).matrix is X
    assert model._rows_fit_X(X.toarray()) is None
    assert model._rows_fit_X(X.tocsc()) is None
    assert model._rows_fit_X(X.astype(np.int64)) is None      # (converted)
    assert fastnb.MultinomialNB(half_life=10.0)._rows_fit_X(X) is None
    unsorted = _unsorted(X)
    assert fastnb.MultinomialNB()._rows_fit_X(unsorted) is not None
    assert fastnb.BernoulliNB()._rows_fit_X(unsorted) is None  # (thresholds)


@pytest.mark.parametrize("name", ["MultinomialNB", "ComplementNB", "BernoulliNB"])
@pytest.mark.parametrize("n_threads", [1, 2])
def test_search_fits_each_split_on_its_rows(name, n_threads, rng, monkeypatch):
    X, y = hashed_text(500, seed=9)
    fitted = []
    original = table_module._TableMixin._fit_rows

    def recorded(self, X_rows, rows, y_rows):
        assert X_rows.matrix is X
        model = original(self, X_rows, rows, y_rows)
        fitted.append((rows.copy(), model))
        return model

    monkeypatch.setattr(table_module._TableMixin, "_fit_rows", recorded)
    grid = {"alpha": [0.01, 0.5, 2.0], "fit_prior": [True, False]}
    if name == "BernoulliNB":
        # (two fits a split; with fit_prior too, two candidates' log losses,
        # clipped, came out equal here and 1 ulp apart in scikit-learn's search,
        # a rank apart: the copy's path does the same)
        grid = {"alpha": [0.01, 0.5, 2.0], "binarize": [0.0, 1.5]}
    both(GridSearchCV, getattr(fastnb, name)(n_threads=n_threads), grid, X, y, cv=3,
         scoring=["accuracy", "neg_log_loss"], refit="neg_log_loss")
    assert len(fitted) == 3 * (2 if name == "BernoulliNB" else 1)
    for rows, model in fitted:
        copy = getattr(fastnb, name)(**model.get_params()).fit(X[rows], y[rows])
        assert_same_model(model, copy, X)


def test_search_with_a_statistics_changing_grid_on_unsorted_csr(rng):
    # a BernoulliNB asked for X without thresholding (binarize=None) and a
    # candidate that thresholds: that candidate's split is fitted on a copy,
    # whose duplicates are summed before the threshold
    X, y = hashed_text(600, seed=10)
    X.data[:] = 1.0     # (binary: as binarize=None reads it)
    X = _unsorted(X)
    # every value as two halves at the same position: 0.5 each, 1.0 summed
    unsorted = sp.csr_matrix((np.repeat(X.data / 2, 2), np.repeat(X.indices, 2),
                              2 * X.indptr), shape=X.shape)
    unsorted.has_canonical_format = False
    grid = {"binarize": [None, 0.5], "alpha": [0.5, 1.0]}
    both(GridSearchCV, fastnb.BernoulliNB(binarize=None), grid, unsorted, y, cv=3,
         scoring=["accuracy", "neg_log_loss"], refit="accuracy")


def test_a_generator_of_splits_is_read_once(rng):
    # scikit-learn's fit lists cv once (check_cv); a second check_cv of the
    # spent generator found no splits
    from sklearn import model_selection as sklearn_search

    from test_model_selection import assert_same_results

    X, y = hashed_text(300, seed=11)
    grid = {"alpha": [0.5, 1.0]}
    ours = GridSearchCV(fastnb.MultinomialNB(), grid, scoring="accuracy",
                        cv=sklearn_search.KFold(3).split(X)).fit(X, y)
    theirs = sklearn_search.GridSearchCV(fastnb.MultinomialNB(), grid, scoring="accuracy",
                                         cv=sklearn_search.KFold(3).split(X)).fit(X, y)
    ours._probe_X = X
    assert_same_results(ours, theirs)
