"""fastnb.model_selection's fused sweep of MultinomialNB's alphas
(``alpha_sweep_rows``): each candidate's predicted classes and log-loss terms
from one walk over a fold equal those of the candidate's scores (the unfused
sweep plus the prior, then ``FoldScorer``'s arg-max and soft-max), and rows it
cannot score go the unfused way."""

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal

import fastnb

sklearn_search = pytest.importorskip("sklearn.model_selection")
StratifiedKFold = sklearn_search.StratifiedKFold
from test_model_selection import both  # noqa: E402
from test_model_selection_sweep import text_data  # noqa: E402

from fastnb.model_selection import GridSearchCV  # noqa: E402
from fastnb.model_selection import _alpha_sweep  # noqa: E402
from fastnb.model_selection._alpha_sweep import AlphaSweep  # noqa: E402
from fastnb.model_selection._fold_scores import FoldScorer  # noqa: E402

METRICS = {"acc": "accuracy", "ll": "neg_log_loss", "bal": "balanced_accuracy"}


def members_for(k):
    prior = np.arange(1.0, k + 1) / (k * (k + 1) / 2)
    return [(0, {"alpha": 1e-3, "fit_prior": True}),
            (1, {"alpha": 1e-3, "fit_prior": False}),
            (2, {"alpha": 0.05, "fit_prior": True}),
            (3, {"alpha": 0.5, "class_prior": prior}),
            (4, {"alpha": 2.0, "fit_prior": False}),
            (5, {"alpha": 7.0, "force_alpha": False})]


def split(rng, table_fits, k, dtype):
    X, y = text_data(rng, n=160 + 12 * k, d=400, k=k)
    # (stratified: every class in the fold, as log loss needs)
    train, test = next(StratifiedKFold(4, shuffle=True, random_state=0).split(X, y))
    with table_fits():
        model = fastnb.MultinomialNB().fit(X[train], y[train])
    assert model.__dict__.get("_table") is not None
    fold = sp.csr_matrix(X[test], dtype=dtype)
    return model, fold, y[test], X[train], y[train]


def unfused(sweep, position, rows, y, classes):
    """(predicted, loss terms) from the candidate's swept jll, as FoldScorer
    and NumPy take them."""
    jll = sweep.jll(position)[rows]
    predicted = jll.argmax(axis=1)
    shifted = np.exp(jll - jll.max(axis=1)[:, None])
    total = shifted.sum(axis=1)
    codes = np.searchsorted(classes, y)
    if classes.shape[0] == 2:
        positive = shifted[:, 1] / total
        true_proba = np.where(codes == 1, positive, 1 - positive)
    else:
        true_proba = shifted[np.arange(codes.shape[0]), codes] / total
    eps = np.finfo(np.float64).eps
    return predicted, -np.log(np.clip(true_proba, eps, 1 - eps))


@pytest.mark.parametrize("k", [2, 35])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_fused_rows_equal_the_swept_scores(k, dtype, rng, table_fits):
    model, fold, y_fold, train, y_train = split(rng, table_fits, k, dtype)
    members = members_for(k)
    classes = model.classes_
    by_threads = []
    for n_threads in (1, 2):
        model.set_params(n_threads=n_threads)
        sweep = AlphaSweep.of(model, members, fold, train)
        scorers = (FoldScorer(y_fold, METRICS), FoldScorer(y_train, METRICS))
        fused = sweep._fused_rows(scorers)
        assert fused is not None
        at, outputs = fused
        assert sorted(at) == list(range(len(members)))
        for rows, (y, (predicted, loss)) in enumerate(zip((y_fold, y_train), outputs)):
            assert loss is not None
            for position in range(len(members)):
                want_predicted, want_loss = unfused(sweep, position, rows, y, classes)
                assert_array_equal(predicted[at[position]], want_predicted)
                # (fastnb's exp and log against NumPy's: an ulp of a probability
                # near 1 is 2.2e-16 of -log of it. Where a group shares its
                # exps (k > 2), a probability is exp(S_c - max S) w_c / sum,
                # not exp(jll_c - top) / sum: they differ by the rounding of
                # jll = S + prior, a few ulps of the row's largest |jll|)
                jll_ulp = np.spacing(np.abs(sweep.jll(position)[rows]).max(axis=1))
                allowed = 1e-14 * np.abs(want_loss) + 1e-15 + (8 * jll_ulp if k > 2 else 0)
                off = np.abs(loss[at[position]] - want_loss)
                assert np.all(off <= allowed), (off / allowed).max()
        # the search's scores of a candidate: those of its swept jll
        for position in range(len(members)):
            got = sweep.result(position, *scorers)
            prior = sweep._swept[position][1]
            for key, y, rows in (("test_scores", y_fold, 0), ("train_scores", y_train, 1)):
                want = FoldScorer(y, METRICS).scores(sweep.jll(position)[rows] - prior,
                                                     classes, offset=prior)
                assert got[key]["acc"] == want["acc"]
                assert got[key]["bal"] == want["bal"]
                assert_allclose(got[key]["ll"], want["ll"], rtol=1e-15 if k == 2 else 1e-13)
        by_threads.append(outputs)
    for one, two in zip(*by_threads):
        assert_array_equal(one[0], two[0])
        assert_array_equal(one[1], two[1])


def test_the_fused_sweep_writes_no_scores(rng, table_fits, monkeypatch):
    model, fold, y_fold, _, _ = split(rng, table_fits, 4, np.float64)
    sweep = AlphaSweep.of(model, members_for(4), fold, None)

    def refuse(*args):
        raise AssertionError("the (m, n, k) scores were written")

    monkeypatch.setattr(_alpha_sweep._kernels, "alpha_sweep_scores", refuse,
                        raising=False)
    scorer = FoldScorer(y_fold, METRICS)
    for position in range(6):
        assert sweep.result(position, scorer, None)["test_scores"]["ll"] < 0


def test_overflowing_rows_go_the_unfused_way(rng, table_fits):
    model, fold, y_fold, _, _ = split(rng, table_fits, 4, np.float64)
    huge = fold.copy()
    row = np.argmax(np.diff(huge.indptr))
    huge.data[huge.indptr[row]:huge.indptr[row + 1]] = 1e308   # inf - inf: NaN
    sweep = AlphaSweep.of(model, members_for(4), huge, None)
    assert sweep._fused_rows((FoldScorer(y_fold, METRICS), None)) is None
    # the unfused scores, whose scorer leaves the NaN row to scikit-learn
    assert sweep.jll(0) is not None
    assert sweep.result(0, FoldScorer(y_fold, METRICS), None) is None


def test_labels_the_model_lacks(rng, table_fits):
    model, fold, y_fold, _, _ = split(rng, table_fits, 4, np.float64)
    y_odd = y_fold.copy()
    y_odd[::5] = 9                       # a label the model lacks
    sweep = AlphaSweep.of(model, members_for(4), fold, None)
    # log loss is scikit-learn's to decide; accuracy counts the rows as wrong
    assert sweep.result(0, FoldScorer(y_odd, METRICS), None) is None
    sweep = AlphaSweep.of(model, members_for(4), fold, None)
    accuracy = sweep.result(1, FoldScorer(y_odd, {None: "accuracy"}), None)
    predicted = sweep.jll(1)[0].argmax(axis=1)
    want = np.average((y_odd < 4) & (model.classes_[predicted] == y_odd))
    assert accuracy["test_scores"] == want
    # the kernel refuses a code that is not a class when the loss is asked
    codes = np.searchsorted(model.classes_, y_fold).astype(np.intp)
    codes[2] = -1
    table = model._table
    alphas = np.array([0.5, 1.0])
    base, scale = sweep._terms(alphas)
    predicted = np.empty((1, fold.shape[0]), dtype=np.intp)
    loss = np.empty((1, fold.shape[0]))
    bad = _alpha_sweep._kernels.alpha_sweep_rows(
        fold.data, fold.indices, fold.indptr, table.feat_start, table.feat_len,
        table.ent_class, table.ent_count, alphas, base, scale,
        np.array([1], dtype=np.intp), np.zeros((1, 4)), np.empty((0, 4)), codes,
        predicted, loss, 1)
    assert bad == 1


@pytest.mark.parametrize("return_train_score", [False, True])
def test_fused_search_equals_sklearns(return_train_score, rng, table_fits, monkeypatch):
    X, y = text_data(rng, n=300, d=400, k=5)
    fused = []
    fuse = AlphaSweep._fuse
    monkeypatch.setattr(AlphaSweep, "_fuse", lambda self, *args: fused.append(
        fuse(self, *args)) or fused[-1])
    grid = {"alpha": [1e-3, 0.05, 0.5, 2.0], "fit_prior": [True, False]}
    with table_fits():
        both(GridSearchCV, fastnb.MultinomialNB(), grid, X, y, cv=3,
             scoring={"a": "accuracy", "b": "balanced_accuracy", "l": "neg_log_loss"},
             refit="l", return_train_score=return_train_score)
    assert len(fused) == 3 and all(f is not None for f in fused)


def test_both_builds_give_the_same_bits(rng, table_fits):
    """The portable build and the AVX2 one (4 alphas a lane, m padded): the
    same scores, classes and loss terms."""
    import importlib

    builds = [importlib.import_module("fastnb._alpha_sweep_kernels")]
    try:
        builds.append(importlib.import_module("fastnb._alpha_sweep_kernels_avx2"))
    except ImportError:
        pytest.skip("no AVX2 build")
    model, fold, y_fold, _, _ = split(rng, table_fits, 35, np.float64)
    sweep = AlphaSweep.of(model, members_for(35), fold, None)
    table = model._table
    codes = np.searchsorted(model.classes_, y_fold).astype(np.intp)
    outputs = []
    for m, shared in ((1, False), (5, False), (8, False), (5, True)):
        alphas = np.geomspace(1e-3, 3.0, m)
        base, scale = sweep._terms(alphas)
        # (shared: each alpha with the fitted prior and a uniform one, the
        # soft-max's exps taken once an alpha)
        cand_alpha = np.arange(m, dtype=np.intp).repeat(1 + shared)
        priors = np.tile(model.class_log_prior_, (cand_alpha.shape[0], 1))
        priors[1::2] = -np.log(35) if shared else priors[1::2]
        weights = _alpha_sweep._shared_exp_weights(priors, m)
        assert weights.shape[0] == (cand_alpha.shape[0] if shared else 0)
        for kernels in builds:
            scores = np.empty((m, fold.shape[0], 35))
            predicted = np.empty(priors.shape[:1] + fold.shape[:1], dtype=np.intp)
            loss = np.empty(predicted.shape)
            args = (fold.data, fold.indices, fold.indptr, table.feat_start,
                    table.feat_len, table.ent_class, table.ent_count, alphas, base, scale)
            assert kernels.alpha_sweep_scores(*args, scores, 2) == 0
            assert kernels.alpha_sweep_rows(*args, cand_alpha, priors, weights, codes,
                                            predicted, loss, 2) == 0
            outputs.append((scores, predicted, loss))
        for one, two in zip(*outputs[-2:]):
            assert_array_equal(one.view(np.int64) if one.dtype == np.float64 else one,
                               two.view(np.int64) if two.dtype == np.float64 else two)


@pytest.mark.parametrize("k", [1, 2, 3, 4, 5, 8, 35])
def test_candidate_argmax_is_numpys(k, rng):
    """A candidate's predicted class: NumPy's argmax of its scores plus its
    prior (the first largest, ties and signed zeros included), and that sum,
    the same on both builds."""
    import importlib

    builds = [importlib.import_module("fastnb._alpha_sweep_kernels")]
    try:
        builds.append(importlib.import_module("fastnb._alpha_sweep_kernels_avx2"))
    except ImportError:
        pass
    scores = rng.normal(size=(400, k)) * 50
    # ties: whole numbers drawn from a few, so a row's largest often repeats,
    # and rows of zeros of both signs
    scores[:200] = rng.integers(-3, 2, size=(200, k))
    scores[200:220] = np.where(rng.random((20, k)) < 0.5, -0.0, 0.0)
    scores[220:230] = -np.inf
    for prior in (np.zeros(k), rng.normal(size=k), -np.log(np.arange(1, k + 1))):
        jll = scores + prior
        # (all -inf rows: NumPy's first index)
        want = jll.argmax(axis=1)
        for kernels in builds:
            best, top = kernels.argmax_of_sums(np.ascontiguousarray(scores), prior)
            assert_array_equal(best, want)
            assert_array_equal(top.view(np.int64),
                               jll[np.arange(jll.shape[0]), want].view(np.int64))
