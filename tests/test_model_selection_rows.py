"""A search's GaussianNB fits each split on X's training rows in place
(``_fit_rows``, no copy of X[train]): the same model as a fit of the copy, bit
for bit, and the same ``cv_results_`` as scikit-learn's search."""

import numpy as np
import pytest
from numpy.testing import assert_array_equal

import fastnb
from fastnb.model_selection import GridSearchCV
from test_model_selection import both

_STATE = ("classes_", "class_count_", "class_prior_", "theta_", "var_", "epsilon_",
          "_feature_count", "_class_ssd", "_seen_count", "_seen_mean", "_seen_ssd",
          "_half_inv_var", "_log_norm")


def assert_same_model(a, b):
    for name in _STATE:
        assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)
        assert np.asarray(getattr(a, name)).dtype == np.asarray(getattr(b, name)).dtype
    assert a.n_features_in_ == b.n_features_in_
    assert not hasattr(b, "feature_names_in_")


def data(rng, n, d, dtype, nan, order="C"):
    y = rng.integers(0, 4, n)
    X = (rng.normal(size=(n, d)) * 3 + 100 + y[:, None]).astype(dtype)
    if nan:
        X[rng.random(X.shape) < 0.1] = np.nan
    return np.asarray(X, order=order), y


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("nan", [False, True])
@pytest.mark.parametrize("n_threads", [1, 2])
@pytest.mark.parametrize("order", ["C", "F"])
def test_fit_rows_equals_a_fit_of_the_copy(dtype, nan, n_threads, order, rng):
    # 40,000 rows: several fit chunks, so the chunks must be cut by position
    X, y = data(rng, 40_000, 9, dtype, nan, order)
    rows = rng.permutation(len(y))[:30_000]
    for params in ({}, {"priors": [0.1, 0.2, 0.3, 0.4], "var_smoothing": 1e-3},
                   {"half_life": 5000.0}):
        copy = fastnb.GaussianNB(n_threads=n_threads, **params).fit(X[rows], y[rows])
        model = fastnb.GaussianNB(n_threads=n_threads, **params)
        assert model._fit_rows(GaussianRows(X), rows, y[rows]) is model
        assert_same_model(copy, model)


def GaussianRows(X):
    prepared = fastnb.GaussianNB._rows_fit_X(X)
    assert prepared is X
    return prepared


def test_fit_rows_refuses_as_a_fit_does(rng):
    X, y = data(rng, 200, 3, np.float64, False)
    rows = np.arange(150)
    X[190, 1] = np.inf          # outside the rows: not looked at
    fastnb.GaussianNB()._fit_rows(X, rows, y[rows])
    X[10, 1] = np.inf
    with pytest.raises(ValueError, match="infinity"):
        fastnb.GaussianNB().fit(X[rows], y[rows])
    with pytest.raises(ValueError, match="infinity"):
        fastnb.GaussianNB()._fit_rows(X, rows, y[rows])
    tiny = np.zeros((200, 2))
    tiny[:100, 0] = 1e-170 * np.arange(100)
    with pytest.raises(ValueError, match="too small"):
        fastnb.GaussianNB().fit(tiny[rows], y[rows])
    with pytest.raises(ValueError, match="too small"):
        fastnb.GaussianNB()._fit_rows(tiny, rows, y[rows])
    tiny[:, 0] = 0.0
    tiny[195, 0] = 1e-170    # a spread outside the rows is not theirs
    fastnb.GaussianNB()._fit_rows(tiny, rows, y[rows])
    with pytest.raises(ValueError, match="not a row of X"):
        fastnb.GaussianNB()._fit_rows(X, np.array([0, 200]), y[:2])
    assert fastnb.GaussianNB._rows_fit_X(X.tolist()) is None
    assert fastnb.GaussianNB._rows_fit_X(y.reshape(-1, 2)) is None


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("nan", [False, True])
@pytest.mark.parametrize("n_threads", [1, 2])
def test_search_fits_each_split_on_its_rows(dtype, nan, n_threads, rng, monkeypatch):
    X, y = data(rng, 9_000, 5, dtype, nan)
    fitted = []
    original = fastnb.GaussianNB._fit_rows

    def recorded(self, X_rows, rows, y_rows):
        assert X_rows is X
        model = original(self, X_rows, rows, y_rows)
        fitted.append((rows.copy(), model))
        return model

    monkeypatch.setattr(fastnb.GaussianNB, "_fit_rows", recorded)
    grid = {"var_smoothing": [1e-9, 1e-2], "priors": [None, [0.1, 0.2, 0.3, 0.4]]}
    both(GridSearchCV, fastnb.GaussianNB(n_threads=n_threads), grid, X, y, cv=3,
         scoring=["accuracy", "neg_log_loss"], refit="neg_log_loss")
    assert len(fitted) == 3          # a fit per split
    for rows, model in fitted:
        copy = fastnb.GaussianNB(n_threads=n_threads).fit(X[rows], y[rows])
        assert_same_model(copy, model)


def test_masks_and_lists_of_rows_and_other_X(rng):
    from sklearn.model_selection import KFold

    X, y = data(rng, 300, 4, np.float64, False)
    masks = []
    for train, test in KFold(3).split(X):
        mask = np.zeros(len(y), bool)
        mask[train] = True
        masks.append((mask, ~mask))
    grid = {"var_smoothing": [1e-9, 0.1]}
    both(GridSearchCV, fastnb.GaussianNB(), grid, X, y, cv=masks)
    negative = [(train - len(y), test) for train, test in KFold(3).split(X)]
    both(GridSearchCV, fastnb.GaussianNB(), grid, X, y, cv=negative)
    both(GridSearchCV, fastnb.GaussianNB(), grid, X.tolist(), y, cv=3)
    both(GridSearchCV, fastnb.GaussianNB(), grid, X, y, cv=3, return_train_score=True)
