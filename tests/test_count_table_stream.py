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
from fastnb._discrete import _table_predict as table_predict_module
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


def _counting_fills(monkeypatch):
    """Count the full builds of the feature slots (``fill_slots`` calls)."""
    kernels = table_predict_module._table_predict_kernels
    fill = kernels.fill_slots
    builds = []

    def counted(*args):
        builds.append(1)
        return fill(*args)
    monkeypatch.setattr(kernels, "fill_slots", counted)
    return builds


@pytest.mark.parametrize("name, params", MODELS)
@pytest.mark.parametrize("room", [True, False])
def test_large_predicts_between_batches_patch_the_slots(text, name, params, room,
                                                        monkeypatch):
    # A large predict (one that reads the slots) after each batch patches the
    # slots of the one before for the features the batch changed: the same bits
    # as slots built afresh (a pickled copy keeps no slots). Without room for
    # dense rows, the features that pass SLOT_ENTRIES classes make it rebuild.
    X, y = text
    if not room:
        monkeypatch.setattr(table_predict_module, "SLOT_ROOM", 0)
        monkeypatch.setattr(table_predict_module, "SLOT_ROOM_SHARE", 1 << 40)
    builds = _counting_fills(monkeypatch)
    rng = np.random.default_rng(12)
    weights = rng.uniform(0.5, 2, X.shape[0])
    model = getattr(fastnb, name)(**params)
    classes = np.unique(y)
    large = X[:150]
    assert large.nnz * 8 >= X.shape[1]   # the slots' path
    for start, stop in [(0, 1), (1, 90), (90, 91), (91, 200), (200, 300)]:
        model.partial_fit(X[start:stop], y[start:stop], classes=classes,
                          sample_weight=weights[start:stop])
        got = model.predict_joint_log_proba(large)
        fresh = pickle.loads(pickle.dumps(model))
        assert_array_equal(got, fresh.predict_joint_log_proba(large))
        assert_array_equal(model.predict(large), fresh.predict(large))
        if start == 1:
            bad = X[:2].copy()
            bad.data[0] = -1.0
            with pytest.raises(ValueError, match="Negative"):
                model.partial_fit(bad, y[:2])
            assert_array_equal(model.predict_joint_log_proba(large), got)
    # the copies built their own; the model built once (or, without room, again
    # whenever a batch took features past four classes: the second one at least)
    own = len(builds) - 5
    assert own == 1 if room else own >= 2
    # a new alpha refreshes every weight: the slots are built again
    model.set_params(alpha=0.7)
    model.partial_fit(X[:10], y[:10])
    got = model.predict_joint_log_proba(large)
    assert len(builds) == own + 5 + 1
    assert_array_equal(got, pickle.loads(pickle.dumps(model)).predict_joint_log_proba(large))


def test_a_long_log_of_changes_rebuilds_the_slots(text, monkeypatch):
    # past d / SLOT_LOG_SHARE logged features, patching costs what a build does
    X, y = text
    monkeypatch.setattr(fastnb._count_table, "SLOT_LOG_SHARE", 1 << 20)
    builds = _counting_fills(monkeypatch)
    model = fastnb.MultinomialNB().partial_fit(X[:100], y[:100], classes=np.unique(y))
    model.predict(X[:150])
    model.partial_fit(X[100:200], y[100:200])
    model.predict(X[:1])            # the flush logs the changes: too many
    assert model._table.slot_state is None
    expected = pickle.loads(pickle.dumps(model)).predict_joint_log_proba(X[:150])
    assert_array_equal(model.predict_joint_log_proba(X[:150]), expected)
    assert len(builds) == 3         # the model's two and the copy's


def test_copies_sharing_a_table_do_not_patch_each_others_slots(text):
    import copy
    X, y = text
    model = fastnb.MultinomialNB().partial_fit(X[:100], y[:100], classes=np.unique(y))
    twin = copy.copy(model)         # shares the table
    assert twin._table is model._table
    model.predict(X[:150])
    twin.predict(X[:150])           # another owner: builds its own
    model.partial_fit(X[100:200], y[100:200])   # (the twin's counts change too)
    got = [m.predict_joint_log_proba(X[:150]) for m in (twin, model, twin)]

    def rebuilt(m):
        m._table.forget_slots()
        m._table.predict_state = None
        return m.predict_joint_log_proba(X[:150])
    assert_array_equal(got[0], rebuilt(twin))
    assert_array_equal(got[1], rebuilt(model))
    assert_array_equal(got[2], rebuilt(twin))


def test_patch_slots_reports_rows_it_has_no_room_for():
    kernels = table_predict_module._table_predict_kernels
    # feature 1 has five classes: more than a slot holds inline
    features = np.array([0, 1, 1, 1, 1, 1], dtype=np.int64)
    classes = np.array([2, 0, 1, 2, 3, 4], dtype=np.int64)
    table = SparseCountTable.from_entries(6, 3, features, classes, np.ones(6),
                                          np.ones(6))
    table.ent_weight[:] = np.arange(table.ent_weight.shape[0], dtype=float)
    slots = np.empty(3 * kernels.slot_bytes(), dtype=np.uint8)
    base = np.zeros(1)
    rows = np.zeros((1, 8))
    assert kernels.fill_slots(table.feat_start, table.feat_len, table.ent_class,
                              table.ent_weight, base, slots, rows) == 1
    with pytest.raises(ValueError, match="fewer dense rows"):
        kernels.fill_slots(table.feat_start, table.feat_len, table.ent_class,
                           table.ent_weight, base, slots, np.zeros((0, 8)))
    # feature 0 passes four classes: no free row
    more = SparseCountTable.from_entries(
        6, 3, np.array([0] * 5 + [1] * 5, dtype=np.int64),
        np.array([0, 1, 2, 3, 4] * 2, dtype=np.int64), np.ones(10), np.ones(6))
    assert kernels.patch_slots(np.array([0], dtype=np.int64), more.feat_start,
                               more.feat_len, more.ent_class, more.ent_weight, base,
                               slots, rows, 1) == -1
    assert kernels.patch_slots(np.array([0], dtype=np.int64), more.feat_start,
                               more.feat_len, more.ent_class, more.ent_weight, base,
                               slots, np.zeros((2, 8)), 1) == 2
    with pytest.raises(ValueError, match="out of range"):
        kernels.patch_slots(np.array([3], dtype=np.int64), more.feat_start,
                            more.feat_len, more.ent_class, more.ent_weight, base,
                            slots, rows, 1)


@pytest.mark.parametrize("half_life", [None, 50.0])
def test_bernoulli_nan_predict_reads_only_its_features(monkeypatch, half_life):
    """A sparse row with NaN on a table-backed BernoulliNB takes out the terms of
    its missing features from their blocks: no dense k x d log probabilities
    (a 1-document predict at 2**20 features was ~300 ms), and the same values
    as the model's own dense feature_log_prob_."""
    X, y = hashed_text(300, seed=8)
    X = X.astype(np.float64)
    model = fastnb.BernoulliNB(half_life=half_life)
    for start, stop in [(0, 200), (200, 300)]:
        model.partial_fit(X[start:stop], y[start:stop], classes=np.unique(y))
    assert model.__dict__.get("_table") is not None
    rows = X[:20].copy()
    rows.data[::3] = np.nan
    dense = rows.toarray()
    present = (np.nan_to_num(dense) > 0).astype(np.float64)   # (binarize=0.0)
    flp = model.feature_log_prob_
    log_absent = np.log(1 - np.exp(flp))
    # each observed feature's log p or log(1 - p); a missing one adds nothing
    expected = (present @ (flp - log_absent).T
                + np.where(np.isnan(dense), 0.0, 1.0) @ log_absent.T
                + model.class_log_prior_)

    def whole_model(*args):
        raise AssertionError("the predict read the whole model")
    monkeypatch.setattr(type(model), "_missing_log_terms", whole_model)
    monkeypatch.setattr(type(model), "_dense_from_table", whole_model)
    np.testing.assert_allclose(model.predict_joint_log_proba(rows), expected,
                               rtol=1e-10)
