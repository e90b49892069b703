"""partial_fit streams on the sparse count table: the entry weights a batch makes
stale are listed by the table and computed at the next predict (or read of
``feature_all_``). A stream must give the same bits with or without predicts in
between, a failing batch must leave the list as it was, and predicts (also
concurrent ones, and of pickled or saved copies) must read no stale weight."""

import pickle
import threading

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_array_equal

import fastnb
from fastnb._count_table import SparseCountTable
from _registry import hashed_text

# the models whose table keeps entry weights (BernoulliNB derives them at predict)
MODELS = [("MultinomialNB", {}), ("MultinomialNB", {"alpha": 0.3}),
          ("ComplementNB", {}), ("ComplementNB", {"norm": True})]


@pytest.fixture
def text():
    return hashed_text(300, seed=7)


def _stream(name, params, X, y, predict_between, weights=None):
    model = getattr(fastnb, name)(**params)
    classes = np.unique(y)
    for start, stop in [(0, 1), (1, 90), (90, 91), (91, 200), (200, 300)]:
        w = None if weights is None else weights[start:stop]
        model.partial_fit(X[start:stop], y[start:stop], classes=classes, sample_weight=w)
        if predict_between:
            model.predict(X[:3])
    return model


@pytest.mark.parametrize("name, params", MODELS)
def test_stream_with_or_without_predicts_is_fit(text, name, params):
    X, y = text
    rng = np.random.default_rng(9)
    weights = rng.uniform(0.5, 2, X.shape[0])
    params = dict(params, alpha=params.get("alpha", 1.0) * rng.uniform(0.5, 2, X.shape[1]))
    whole = getattr(fastnb, name)(**params).fit(X, y, sample_weight=weights)
    quiet = _stream(name, params, X, y, False, weights)
    busy = _stream(name, params, X, y, True, weights)
    assert quiet._table.n_pending > 0  # the stream's weights are still to compute
    if name == "ComplementNB":
        # reading the attribute computes the stale totals first
        assert_array_equal(quiet.feature_all_, whole.feature_all_)
        assert quiet._table.n_pending == 0
    expected = whole.predict_joint_log_proba(X)
    assert_array_equal(quiet.predict_joint_log_proba(X), expected)
    assert quiet._table.n_pending == 0
    assert_array_equal(busy.predict_joint_log_proba(X), expected)
    # the dense feature-major weights (a batch of many non-zeros) are built after
    # the refresh too
    big = sp.vstack([X] * 30, format="csr")
    more = _stream(name, params, X, y, False, weights)
    assert_array_equal(more.predict_joint_log_proba(big), whole.predict_joint_log_proba(big))


@pytest.mark.parametrize("name, params", MODELS)
def test_failed_partial_fit_keeps_the_pending_list(text, name, params):
    X, y = text
    model = _stream(name, params, X, y, False)
    assert model._table.n_pending > 0
    before = pickle.dumps(vars(model))
    bad = X[:5].copy()
    bad.data[-1] = np.inf
    with pytest.raises(ValueError, match="infinity"):
        model.partial_fit(bad, y[:5])
    assert pickle.dumps(vars(model)) == before


@pytest.mark.parametrize("name, params", MODELS)
def test_predict_refresh_leaves_dict_unchanged(text, name, params):
    X, y = text
    model = _stream(name, params, X, y, False)
    state = dict(model.__dict__)
    model.predict(X[:2])
    assert model._table.n_pending == 0
    assert model.__dict__.keys() == state.keys()
    assert all(model.__dict__[key] is state[key] for key in state)


@pytest.mark.parametrize("name, params", MODELS)
def test_copies_with_stale_weights_predict_the_same(text, tmp_path, name, params):
    X, y = text
    model = _stream(name, params, X, y, False)
    copy = pickle.loads(pickle.dumps(model))
    model.save(tmp_path / "m.npz")
    loaded = fastnb.load(tmp_path / "m.npz")
    assert copy._table.n_pending == model._table.n_pending > 0
    expected = model.predict_joint_log_proba(X)
    assert_array_equal(copy.predict_joint_log_proba(X), expected)
    assert_array_equal(loaded.predict_joint_log_proba(X), expected)


def test_concurrent_predicts_read_refreshed_weights(text):
    X, y = text
    for name, params in MODELS:
        expected = _stream(name, params, X, y, False).predict_joint_log_proba(X)
        model = _stream(name, params, X, y, False)
        results = [None] * 8
        barrier = threading.Barrier(len(results))

        def work(i):
            barrier.wait()
            results[i] = model.predict_joint_log_proba(X)

        threads = [threading.Thread(target=work, args=(i,)) for i in range(len(results))]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        for result in results:
            assert_array_equal(result, expected)


def test_add_lists_each_changed_entry_once():
    # rows of class 0, 1, 0: feature 2 gets classes 0 and 1, feature 5 class 0
    X = sp.csr_matrix(np.array([[0, 0, 1.0, 0, 0, 2.0],
                                [0, 0, 3.0, 0, 0, 0.0],
                                [0, 0, 1.0, 0, 0, 1.0]]))
    codes = np.array([0, 1, 0], dtype=np.intp)
    table = SparseCountTable(2, 6, capacity=1)
    table.add(X, codes, None, False, 0.0, pending=True)
    features, offsets = table.pending_entries()
    assert sorted(zip(features.tolist(), offsets.tolist())) == [(2, 0), (2, 1), (5, 0)]
    # exactly those entries are marked (a block that moved left its old slots,
    # which nothing reads, behind)
    _, _, positions = table.entries()
    marked = positions[np.unpackbits(table.ent_stale, bitorder="little")[positions] == 1]
    assert sorted(marked.tolist()) == sorted(table.feat_start[[2, 2, 5]] + [0, 1, 0])
    assert_array_equal(table.to_dense(), [[0, 0, 2, 0, 0, 3], [0, 0, 3, 0, 0, 0]])
    table.add(X[1:2], codes[1:2], None, False, 0.0, pending=True)
    assert table.n_pending == 3  # (2, class 1) is listed already
    table.clear_pending()
    assert table.n_pending == 0


def test_a_table_pickled_with_nan_marks_gets_its_bitmap():
    # before the stale bitmap, a listed entry's weight was NaN: such a table
    # (its state without ``ent_stale``) unpickles with those entries marked, so
    # that the model's next flush refreshes them and a later batch does not list
    # them twice
    X = sp.csr_matrix(np.array([[0, 0, 1.0, 0, 0, 2.0], [0, 3.0, 0, 0, 0, 0]]))
    codes = np.array([0, 1], dtype=np.intp)
    table = SparseCountTable(2, 6)
    table.add(X, codes, None, False, 0.0, pending=True)
    listed = np.flatnonzero(np.unpackbits(table.ent_stale, bitorder="little"))
    assert listed.shape[0] == 3
    state = dict(table.__dict__)
    del state["ent_stale"]
    state["ent_weight"] = state["ent_weight"].copy()
    state["ent_weight"][:table.used] = 0.0
    state["ent_weight"][listed] = np.nan
    old = SparseCountTable.__new__(SparseCountTable)
    old.__setstate__(state)
    marked = np.unpackbits(old.ent_stale, bitorder="little")[:table.used]
    assert_array_equal(np.flatnonzero(marked), listed)
    old.add(X, codes, None, False, 0.0, pending=True)
    assert old.n_pending == 3
