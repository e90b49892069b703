"""fastnb.model_selection's sweep of MultinomialNB's alphas (AlphaSweep,
fastnb/model_selection/_alpha_sweep.py): every alpha's joint log likelihood from
one pass over a split's rows equals the candidate model's own, and searches that
take it give scikit-learn's cv_results_."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal

import fastnb

sklearn_search = pytest.importorskip("sklearn.model_selection")
from test_model_selection import both  # noqa: E402

from fastnb.model_selection import GridSearchCV  # noqa: E402
from fastnb.model_selection import _alpha_sweep  # noqa: E402
from fastnb.model_selection._alpha_sweep import AlphaSweep  # noqa: E402

GRID = {"alpha": [1e-3, 0.05, 0.5, 2.0], "fit_prior": [True, False]}


def text_data(rng, n=240, d=400, k=4):
    """CSR counts over a Zipf-like vocabulary: small whole counts, with a few
    large (>= 64) and fractional ones, the sweep's two kinds of weights."""
    y = rng.integers(0, k, n)
    ranks = np.minimum(rng.zipf(1.3, size=(n, 12)) - 1, d - 1)
    ranks = (ranks + 7 * y[:, None] * (rng.random((n, 12)) < 0.3)) % d
    rows = np.repeat(np.arange(n), 12)
    X = sp.csr_matrix((np.ones(n * 12), (rows, ranks.ravel())), shape=(n, d))
    X.sum_duplicates()
    X.data[rng.random(X.data.shape[0]) < 0.05] *= 70
    X.data[rng.random(X.data.shape[0]) < 0.05] *= 0.37
    return X, y


def fitted_and_fold(rng, table_fits, **params):
    X, y = text_data(rng)
    with table_fits():
        model = fastnb.MultinomialNB(**params).fit(X[:180], y[:180])
    assert model.__dict__.get("_table") is not None
    return model, X[180:]


MEMBERS = [(0, {"alpha": 1e-3, "fit_prior": True}),
           (1, {"alpha": 1e-3, "fit_prior": False}),
           (2, {"alpha": 0.5, "fit_prior": True}),
           (3, {"alpha": 2.0, "class_prior": [0.1, 0.2, 0.3, 0.4]}),
           (4, {"alpha": 7.0, "force_alpha": False})]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("index", [np.int32, np.int64])
def test_swept_jll_equals_the_candidates_own(dtype, index, rng, table_fits):
    model, fold = fitted_and_fold(rng, table_fits)
    fold = sp.csr_matrix(fold, dtype=dtype)
    fold.indices, fold.indptr = fold.indices.astype(index), fold.indptr.astype(index)
    by_threads = []
    for n_threads in (1, 2):
        model.set_params(n_threads=n_threads)
        sweep = AlphaSweep.of(model, MEMBERS, fold, fold[:7])
        assert sweep is not None
        got = [sweep.jll(position) for position in range(len(MEMBERS))]
        for (_, derived), (test, train) in zip(MEMBERS, got):
            candidate = model.with_params(**derived)
            assert_allclose(test, candidate.predict_joint_log_proba(fold),
                            rtol=1e-13, atol=1e-10)
            # a row alone is scored by the table walk: the same bits
            for row in range(7):
                assert_array_equal(train[row],
                                   candidate.predict_joint_log_proba(fold[row])[0])
        by_threads.append(got)
    for one, two in zip(*by_threads):
        assert_array_equal(one[0], two[0])


@pytest.mark.parametrize("n_alphas", [2, 7, 10, 13, 17])
def test_long_runs_of_frequent_features(n_alphas, rng, table_fits):
    # rows of ~30 frequent features (dense blocks, walked in runs of up to 8)
    # between rare ones, fractional and large counts, 4 to 20 lanes of alphas:
    # each row's scores are the table walk's bits
    n, k = 160, 3
    y = np.arange(n) % k
    frequent = rng.integers(0, 60, size=(n, 30))
    rare = 60 + rng.integers(0, 2000, size=(n, 6))
    cols = np.hstack([frequent, rare])
    rows = np.repeat(np.arange(n), cols.shape[1])
    X = sp.csr_matrix((np.ones(rows.size), (rows, cols.ravel())), shape=(n, 2060))
    X.sum_duplicates()
    X.data[rng.random(X.data.shape[0]) < 0.1] *= 300
    X.data[rng.random(X.data.shape[0]) < 0.1] *= 0.37
    with table_fits():
        model = fastnb.MultinomialNB().fit(X[:120], y[:120])
    members = [(i, {"alpha": a}) for i, a in enumerate(np.geomspace(1e-3, 5.0, n_alphas))]
    for n_threads in (1, 2):
        model.set_params(n_threads=n_threads)
        sweep = AlphaSweep.of(model, members, X[120:], X[120:])
        assert sweep is not None
        for position, (_, derived) in enumerate(members):
            candidate = model.with_params(**derived)
            train = sweep.jll(position)[1]
            for row in range(0, 40, 3):
                assert_array_equal(
                    train[row], candidate.predict_joint_log_proba(X[120 + row])[0])


def test_alpha_chunks(rng, table_fits, monkeypatch):
    model, fold = fitted_and_fold(rng, table_fits)
    whole = AlphaSweep.of(model, MEMBERS, fold, None)
    monkeypatch.setattr(_alpha_sweep, "_CHUNK_CELLS", 1)  # one alpha a chunk
    chunked = AlphaSweep.of(model, MEMBERS, fold, None)
    for position in (4, 0, 2, 3, 1):
        assert_array_equal(chunked.jll(position)[0], whole.jll(position)[0])


def test_what_is_not_swept(rng, table_fits):
    model, fold = fitted_and_fold(rng, table_fits)
    members = [(0, {"alpha": 1.0}), (1, {"alpha": np.full(fold.shape[1], 0.5)}),
               (2, {"alpha": 1e-12, "force_alpha": False}), (3, {"alpha": -1.0}),
               (4, {"alpha": 0.3})]
    sweep = AlphaSweep.of(model, members, fold, None)
    assert [sweep.jll(p) is None for p in range(5)] == [False, True, True, True, False]
    # fewer than two alphas, another model, rows the sweep does not read
    assert AlphaSweep.of(model, members[:2], fold, None) is None
    assert AlphaSweep.of(model, [(0, {"alpha": 0.3, "fit_prior": True}),
                                 (1, {"alpha": 0.3, "fit_prior": False})],
                         fold, None) is None
    with table_fits():
        complement = fastnb.ComplementNB().fit(*text_data(rng))
    assert AlphaSweep.of(complement, members, fold, None) is None
    negative = fold.copy()
    negative.data[0] = -1.0
    missing = fold.copy()
    missing.data[0] = np.nan
    for rows in (negative, missing, fold.toarray(), fold[:, :-1]):
        assert AlphaSweep.of(model, members, rows, None) is None
    with table_fits():
        forgetting = fastnb.MultinomialNB(half_life=50.0).fit(*text_data(rng))
    assert AlphaSweep.of(forgetting, members, fold, None) is None


@pytest.mark.parametrize("return_train_score", [False, True])
def test_search_equals_sklearns(return_train_score, rng, table_fits, monkeypatch):
    X, y = text_data(rng)
    swept = []
    result = AlphaSweep.result
    monkeypatch.setattr(AlphaSweep, "result", lambda self, *args: swept.append(
        result(self, *args)) or swept[-1])
    grid = [GRID, {"alpha": [0.2, np.full(X.shape[1], 0.3)],
                   "class_prior": [None, [0.1, 0.2, 0.3, 0.4]]}]
    with table_fits():
        both(GridSearchCV, fastnb.MultinomialNB(), grid, X, y, cv=3,
             scoring=["accuracy", "neg_log_loss"], refit="neg_log_loss",
             return_train_score=return_train_score)
    assert sum(r is not None for r in swept) == 3 * (8 + 2)


def test_search_of_tiny_alphas_warns_as_sklearns(rng, table_fits):
    X, y = text_data(rng)
    grid = {"alpha": [1e-12, 0.1, 1.0], "force_alpha": [False]}
    with table_fits(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        both(GridSearchCV, fastnb.MultinomialNB(), grid, X, y, cv=3,
             scoring="neg_log_loss")


@pytest.mark.parametrize("k", [2, 3, 35])
def test_fold_scorer_kernel_equals_the_numpy_path(k, rng):
    from fastnb.model_selection._fold_scores import FoldScorer, _kernels

    n = 300
    y = np.arange(n) % k
    jll = rng.normal(size=(n, k)) * 30
    jll[::7, 0] = jll[::7, -1]          # ties: the first class wins
    jll[::11, k // 2] = -np.inf         # a class with no chance
    metrics = {"acc": "accuracy", "ll": "neg_log_loss", "bal": "balanced_accuracy"}
    classes = np.arange(k)
    kernel = FoldScorer(y, metrics).scores(jll, classes)
    numpy_path = FoldScorer(y, metrics).scores(np.asfortranarray(jll), classes)
    assert kernel["acc"] == numpy_path["acc"] and kernel["bal"] == numpy_path["bal"]
    assert_allclose(kernel["ll"], numpy_path["ll"], rtol=1e-13)
    # an offset (a log prior) is the same as adding it to the rows
    prior = rng.normal(size=k) * 5
    shifted = FoldScorer(y, metrics).scores(jll + prior, classes)
    for rows in (jll, np.asfortranarray(jll)):
        offset = FoldScorer(y, metrics).scores(rows, classes, offset=prior)
        assert offset["acc"] == shifted["acc"] and offset["bal"] == shifted["bal"]
        assert_allclose(offset["ll"], shifted["ll"], rtol=1e-13)
    for bad in (np.nan, np.inf):
        spoiled = jll.copy()
        spoiled[5, 1] = bad
        assert FoldScorer(y, metrics).scores(spoiled, classes) is None
        assert FoldScorer(y, metrics).scores(np.asfortranarray(spoiled), classes) is None
    outputs = []
    for n_threads in (1, 2):
        out = (np.empty(n, dtype=np.intp), np.empty(n), np.empty((n, k)))
        assert _kernels.fold_row_scores(jll, prior, *out, n_threads) == 0
        outputs.append(out)
    for one, two in zip(*outputs):
        assert_array_equal(one, two)
    assert_array_equal(outputs[0][0], (jll + prior).argmax(axis=1))
    assert_array_equal(outputs[0][1], (jll + prior).max(axis=1))
    assert_array_equal(outputs[0][2], (jll + prior) - (jll + prior).max(axis=1)[:, None])
    # a metric asked twice reads the same rows twice
    twice = FoldScorer(y, {"a": "neg_log_loss", "b": "neg_log_loss"}).scores(jll, classes)
    assert twice["a"] == twice["b"] == kernel["ll"]
