"""The sparse per-class count table of MultinomialNB, ComplementNB and BernoulliNB
(text scale).

The whole suite also runs on the table with FASTNB_TEST_SPARSE_TABLE=1; these
tests check what is particular to it: that it is picked from the data, that
partial_fit works in place on it, and that its answers are scikit-learn's.
BernoulliNB's own, the table's kernels and its predict paths have files of their
own (test_count_table_bernoulli.py, _kernels.py, _predict.py), as have moves and
streams.
"""

import json

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn import naive_bayes as sk

import fastnb
from fastnb import _count_table, _discrete
from _count_tables import MODELS, _table_of, _with_missing
from _registry import hashed_text


@pytest.fixture
def text():
    return hashed_text(400, seed=3)


@pytest.mark.parametrize("name, params", MODELS)
def test_table_matches_sklearn(text, name, params):
    X, y = text
    ours = getattr(fastnb, name)(**params).fit(X, y)
    theirs = getattr(sk, name)(**params).fit(X, y)
    assert _table_of(ours) is not None
    assert "feature_count_" not in ours.__dict__  # computed on access, not stored
    assert_allclose(ours.feature_count_, theirs.feature_count_, rtol=1e-12)
    assert_allclose(ours.feature_log_prob_, theirs.feature_log_prob_, rtol=1e-10)
    assert_allclose(ours.predict_joint_log_proba(X), theirs.predict_joint_log_proba(X),
                    rtol=1e-10)
    assert_allclose(ours.predict_proba(X), theirs.predict_proba(X), rtol=1e-9, atol=1e-12)
    assert_array_equal(ours.predict(X), theirs.predict(X))
    assert_allclose(ours.predict_log_proba(X[:50].toarray()),
                    theirs.predict_log_proba(X[:50].toarray()), rtol=1e-9)
    if name == "ComplementNB":
        assert_allclose(ours.feature_all_, theirs.feature_all_, rtol=1e-12)


@pytest.mark.parametrize("name, params", MODELS)
def test_partial_fit_in_any_split_is_fit(text, name, params):
    X, y = text
    whole = getattr(fastnb, name)(**params).fit(X, y)
    classes = np.unique(y)
    stream = getattr(fastnb, name)(**params)
    for start, stop in [(0, 1), (1, 130), (130, 131), (131, 400)]:
        stream.partial_fit(X[start:stop], y[start:stop], classes=classes)
    assert _table_of(stream) is not None
    assert_array_equal(stream.feature_count_, whole.feature_count_)
    assert_array_equal(stream.predict_proba(X), whole.predict_proba(X))
    # a dense batch into a table-backed model
    stream.partial_fit(X[:7].toarray(), y[:7])
    theirs = getattr(sk, name)(**params).fit(sp.vstack([X, X[:7]]), np.r_[y, y[:7]])
    assert_allclose(stream.predict_joint_log_proba(X), theirs.predict_joint_log_proba(X),
                    rtol=1e-10)


def test_partial_fit_adds_in_place(text):
    X, y = text
    model = fastnb.MultinomialNB().fit(X, y)
    table = _table_of(model)
    model.partial_fit(X[:10], y[:10])
    assert _table_of(model) is table  # the counts were added in place, not copied


def test_sample_weight_priors_and_array_alpha(text):
    X, y = text
    rng = np.random.default_rng(5)
    w = rng.uniform(0, 3, X.shape[0])
    alpha = rng.uniform(0.1, 2, X.shape[1])
    prior = np.full(35, 1 / 35)
    for name in ("MultinomialNB", "ComplementNB"):
        params = {"alpha": alpha, "class_prior": prior}
        ours = getattr(fastnb, name)(**params).fit(X, y, sample_weight=w)
        theirs = getattr(sk, name)(**params).fit(X, y, sample_weight=w)
        assert _table_of(ours) is not None
        assert_allclose(ours.predict_joint_log_proba(X),
                        theirs.predict_joint_log_proba(X), rtol=1e-10)


def test_alpha_changed_between_partial_fits(text):
    X, y = text
    model = fastnb.MultinomialNB().partial_fit(X[:200], y[:200], classes=np.unique(y))
    model.set_params(alpha=0.25).partial_fit(X[200:], y[200:])
    theirs = sk.MultinomialNB(alpha=0.25).fit(X, y)
    assert_allclose(model.predict_joint_log_proba(X), theirs.predict_joint_log_proba(X),
                    rtol=1e-10)


@pytest.mark.parametrize("name", ["MultinomialNB", "ComplementNB"])
def test_failed_partial_fit_changes_nothing(text, name):
    X, y = text
    model = getattr(fastnb, name)().fit(X, y)
    before = model.predict_joint_log_proba(X)
    counts = model.feature_count_
    bad = X[:5].copy()
    bad.data[-1] = -1.0  # after valid rows: the batch is checked in full first
    with pytest.raises(ValueError, match="Negative"):
        model.partial_fit(bad, y[:5])
    bad.data[-1] = np.inf
    with pytest.raises(ValueError, match="infinity"):
        model.partial_fit(bad, y[:5])
    bad.data[-1] = 1e308
    bad.data[-2] = 1e308
    with pytest.raises(ValueError, match="too large"):
        model.partial_fit(bad, y[:5])
    assert_array_equal(model.feature_count_, counts)
    assert_array_equal(model.predict_joint_log_proba(X), before)


@pytest.mark.parametrize("name, params", MODELS)
def test_bad_batch_to_be_built_raises_and_changes_nothing(text, name, params):
    # A large first batch is validated by the pass that also partitions it for
    # the build: bad input raises the errors of the other paths and leaves the
    # model as it was; NaN (missing) builds from the observed values
    X, y = text
    model = getattr(fastnb, name)(**params).fit(X, y)
    state = dict(model.__dict__)
    before = model.predict_joint_log_proba(X)
    cases = [("data", np.inf, "infinity"), ("indices", X.shape[1] + 5, "malformed")]
    if name != "BernoulliNB":  # BernoulliNB thresholds negative values
        cases.append(("data", -1.0, "Negative"))
    for field, value, message in cases:
        bad = X.copy()
        getattr(bad, field)[-1] = value
        with pytest.raises(ValueError, match=message):
            model.fit(bad, y)
        assert all(model.__dict__[key] is state[key] for key in state)
        assert_array_equal(model.predict_joint_log_proba(X), before)
    missing = X.copy()
    missing.data[[3, -1]] = np.nan
    zero = X.copy()
    zero.data[[3, -1]] = 0.0
    refit = model.fit(missing, y)
    assert _table_of(refit) is not None
    expected = getattr(fastnb, name)(**params).fit(zero, y)
    assert_array_equal(refit.feature_count_, expected.feature_count_)
    if name != "BernoulliNB":  # a missing value changes BernoulliNB's denominators
        assert_allclose(refit.predict_joint_log_proba(X),
                        expected.predict_joint_log_proba(X), rtol=1e-12)


@pytest.mark.parametrize("name, params", MODELS)
@pytest.mark.parametrize("first", ["table", "dense"])
@pytest.mark.parametrize("where", ["build", "add"])
def test_failed_refit_on_the_table_changes_nothing(text, monkeypatch, name, params,
                                                   first, where):
    # A fit onto the table that runs out of memory half-way (building the table
    # of a large batch, or adding a small one into a fresh table) leaves the
    # model it was called on as it was: table-backed or dense.
    X, y = text
    model = getattr(fastnb, name)(**params)
    model.fit(X if first == "table" else X.toarray(), y)
    assert (_table_of(model) is None) == (first == "dense")
    state = dict(model.__dict__)
    counts = model.feature_count_
    before = model.predict_joint_log_proba(X)
    # 35 classes keep the table; 40 rows are a small first batch (added row by row)
    X_new = X[:300] if where == "build" else X[:40]
    y_new = np.arange(X_new.shape[0]) % 35

    def no_memory(*args, **kwargs):
        raise MemoryError("no memory for the table (test)")

    monkeypatch.setattr(_count_table.SparseCountTable, where, no_memory)
    with pytest.raises(MemoryError):
        model.fit(X_new, y_new)
    assert model.__dict__.keys() == state.keys()
    assert all(model.__dict__[key] is state[key] for key in state)
    assert_array_equal(model.feature_count_, counts)
    assert_array_equal(model.predict_joint_log_proba(X), before)


def _table_state(table):
    """What a table holds, as copies: its live entries (feature, class, the bits
    of count and weight, and the stale mark), index, class totals, pending list
    and sizes."""
    if table is None:
        return None
    features, classes, positions = table.entries()
    pend_feat, pend_off = table.pending_entries()
    return {"features": features, "classes": classes,
            "counts": table.ent_count[positions].view(np.int64).copy(),
            "weights": table.ent_weight[positions].view(np.int64).copy(),
            "marks": np.unpackbits(table.ent_stale, bitorder="little")[positions],
            "feat_len": table.feat_len.copy(),
            "starts": table.feat_start[table.feat_len > 0].copy(),
            "class_total": table.class_total.view(np.int64).copy(),
            "pend_feat": pend_feat.copy(), "pend_off": pend_off.copy(),
            "sizes": np.array([table.used, table.n_pending, table.version])}


def _assert_same_table_state(got, expected):
    assert (got is None) == (expected is None)
    if expected is not None:
        assert got.keys() == expected.keys()
        for key in expected:
            assert_array_equal(got[key], expected[key], err_msg=key)


def _stream_model(name, params, Xs, y, alpha=None):
    model = getattr(fastnb, name)(**params)
    model.partial_fit(Xs[:100], y[:100], classes=np.unique(y))
    # a predict computes the stale weights: the next batch lists (and marks) only
    # the entries it changes, and a later batch's undo must unmark its own
    model.predict(Xs[:1])
    model.partial_fit(Xs[100:200], y[100:200])
    if alpha is not None:
        model.set_params(alpha=alpha)
    return model


@pytest.mark.parametrize("name, params", MODELS)
@pytest.mark.parametrize("where", ["grow_first", "grow_mid_batch", "after_add",
                                   "after_new_alpha"])
@pytest.mark.parametrize("missing", [False, True])
def test_failed_partial_fit_on_the_table_changes_nothing(text, monkeypatch, name, params,
                                                         where, missing):
    # A later partial_fit adds into the table in place. When it fails after the
    # checks (the pool cannot grow, before the batch or half-way through it; a
    # later step raises, after the counts went in, or after a new alpha rewrote
    # every weight), the model is left as it was, bit for bit, and goes on as if
    # the call had never happened.
    X, y = text
    Xs = _with_missing(X, 23) if missing else X
    alpha = 0.7 if where == "after_new_alpha" else None
    model = _stream_model(name, params, Xs, y, alpha)
    assert _table_of(model) is not None
    if where == "grow_mid_batch":
        # no free room: the batch's first new entry stops the kernel half-way
        for table in (model._table, model._missing_table):
            for key in ("ent_class", "ent_count", "ent_weight") if table else ():
                setattr(table, key, getattr(table, key)[:table.used].copy())
    if where == "after_add":
        # room for the batch: it is added in place, and undone by its log (a pool
        # that grows is replaced, and the old arrays come back whole)
        for table in (model._table, model._missing_table):
            if table is not None:
                table._grow(4 * table.ent_class.shape[0])
    state = dict(model.__dict__)
    tables = [_table_state(model._table), _table_state(model._missing_table)]
    batch, labels = Xs[200:400], y[200:400]

    def no_memory(*args, **kwargs):
        raise MemoryError("no memory (test)")

    if where.startswith("grow"):
        # "grow_first": the pool is grown before the batch; "grow_mid_batch": the
        # pool runs out half-way, and the rows added so far are undone first
        monkeypatch.setattr(_count_table, "ROOM_PER_NONZERO",
                            10**6 if where == "grow_first" else 0)
        monkeypatch.setattr(_count_table.SparseCountTable, "_grow", no_memory)
    else:
        monkeypatch.setattr(type(model), "_class_log_prior", no_memory)
    undone = []
    undo_kernel = _count_table._AddUndo.undo_kernel
    monkeypatch.setattr(_count_table._AddUndo, "undo_kernel",
                        lambda self, table: undone.append(1) or undo_kernel(self, table))
    with pytest.raises(MemoryError):
        model.partial_fit(batch, labels)
    # the kernel ran out of room half-way, or a later step undid the adds
    assert (len(undone) > 0) == (where != "grow_first")
    assert model.__dict__.keys() == state.keys()
    assert all(model.__dict__[key] is state[key] for key in state)
    _assert_same_table_state(_table_state(model._table), tables[0])
    _assert_same_table_state(_table_state(model._missing_table), tables[1])

    monkeypatch.undo()
    model.partial_fit(batch, labels)
    reference = _stream_model(name, params, Xs, y, alpha)
    reference.partial_fit(batch, labels)
    for ours, theirs in ((model._table, reference._table),
                         (model._missing_table, reference._missing_table)):
        got, expected = _table_state(ours), _table_state(theirs)
        if got is not None:
            del got["starts"], expected["starts"]  # a grown pool places blocks apart
            del got["sizes"], expected["sizes"]
        _assert_same_table_state(got, expected)
    assert_array_equal(model.predict_joint_log_proba(Xs),
                       reference.predict_joint_log_proba(Xs))


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n_batches=st.integers(0, 3),
       capacity=st.sampled_from([1, 8, 64, 4096]), weighted=st.booleans(),
       binarize=st.booleans(), pending=st.booleans(), zero_entries=st.booleans(),
       room=st.sampled_from([0, 3]))
def test_add_rolls_back_bit_for_bit(seed, n_batches, capacity, weighted, binarize,
                                    pending, zero_entries, room):
    """``rollback`` of an ``add`` gives back the table before it, and an add that
    ran out of room half-way (undone, the pool grown, the batch added again) is
    the add into a pool that had the room."""
    rng = np.random.default_rng(seed)
    n_features, n_classes = 60, 7

    def batch():
        n = int(rng.integers(0, 30))
        X = sp.random(n, n_features, density=0.15, format="csr", random_state=rng,
                      data_rvs=lambda size: rng.integers(1, 8, size) / 3.0)
        return (X, rng.integers(0, n_classes, n).astype(np.intp),
                rng.random(n) if weighted else None)

    saved_room = _count_table.ROOM_PER_NONZERO
    _count_table.ROOM_PER_NONZERO = room
    try:
        table = _count_table.SparseCountTable(n_classes, n_features, capacity=capacity)
        roomy = _count_table.SparseCountTable(n_classes, n_features, capacity=1 << 14)
        for _ in range(n_batches):
            X, codes, weights = batch()
            for t in (table, roomy):
                t.add(X, codes, weights, binarize, 0.5, pending=pending)
        before = _table_state(table)
        X, codes, weights = batch()
        undo = table.add(X, codes, weights, binarize, 0.5, pending=pending,
                         zero_entries=zero_entries)
        roomy.add(X, codes, weights, binarize, 0.5, pending=pending,
                  zero_entries=zero_entries)
        after, expected = _table_state(table), _table_state(roomy)
        for state in (after, expected):
            del state["starts"], state["sizes"]
        _assert_same_table_state(after, expected)
        table.rollback(undo)
        _assert_same_table_state(_table_state(table), before)
    finally:
        _count_table.ROOM_PER_NONZERO = saved_room


def test_predict_leaves_dict_unchanged(text):
    X, y = text
    for name, params in MODELS:
        model = getattr(fastnb, name)(**params).fit(X, y)
        state = dict(model.__dict__)
        model.predict(X)
        model.predict_proba(X[:3].toarray())
        _ = model.feature_log_prob_
        assert model.__dict__.keys() == state.keys()
        assert all(model.__dict__[key] is state[key] for key in state)


def test_representation_follows_the_data(text, monkeypatch):
    # the thresholds as shipped (FASTNB_TEST_SPARSE_TABLE=1 lowers them to 0)
    monkeypatch.setattr(_count_table, "TABLE_MIN_CELLS", 1 << 20)
    monkeypatch.setattr(_count_table, "TABLE_MIN_CELLS_PER_NONZERO", 2)
    X, y = text
    assert not _count_table.wants_table(20, 200, 10_000)  # small dense table
    assert _count_table.wants_table(35, 1 << 20, 3_000_000)  # hashed text
    assert _count_table.wants_table(5, 1 << 20, 2_400_000)  # raw text pipeline (V1)
    assert not _count_table.wants_table(20, 1 << 18, 20_000_000)  # M1: dense counts
    dense_model = fastnb.MultinomialNB().fit(X.toarray(), y)
    assert _table_of(dense_model) is None
    model = fastnb.MultinomialNB().fit(X, y)
    assert _table_of(model) is not None
    model.fit(X.toarray(), y)  # a refit on dense data goes back to the dense table
    assert _table_of(model) is None and "feature_count_" in model.__dict__
    # alpha = 0 (log 0 terms) stays on the dense kernels
    assert _table_of(fastnb.MultinomialNB(alpha=0.0).fit(X, y)) is None


def test_missing_values_merge_and_save(text, tmp_path):
    X, y = text
    Xm = X.copy()
    Xm.data[::17] = np.nan
    observed = Xm.copy()
    observed.data = np.nan_to_num(observed.data)
    for name in ("MultinomialNB", "ComplementNB"):
        model = getattr(fastnb, name)().fit(Xm, y)
        assert _table_of(model) is not None
        theirs = getattr(sk, name)().fit(observed, y)
        assert_allclose(model.feature_count_, theirs.feature_count_)
        assert_allclose(model.predict_joint_log_proba(observed),
                        theirs.predict_joint_log_proba(observed), rtol=1e-10)
        assert model._missing_count.sum() == np.isnan(Xm.data).sum()
        half = getattr(fastnb, name)().fit(Xm[:200], y[:200])
        other = getattr(fastnb, name)().fit(Xm[200:], y[200:])
        merged = fastnb.merge(half, other)
        assert_allclose(merged.predict_joint_log_proba(observed),
                        model.predict_joint_log_proba(observed), rtol=1e-10)
        path = tmp_path / f"{name}.npz"
        model.save(path)
        loaded = fastnb.load(path)
        # the table itself is saved and rebuilt: the same bits on both predict paths
        assert _table_of(loaded) is not None
        assert_array_equal(loaded.feature_count_, model.feature_count_)
        assert_array_equal(loaded._missing_count, model._missing_count)
        for rows in (Xm[:2], Xm):
            assert_array_equal(loaded.predict_joint_log_proba(rows),
                               model.predict_joint_log_proba(rows))
        # a fastnb 0.1 file (format version 1: dense counts) of the same model loads
        with np.load(path, allow_pickle=False) as archive:
            members = {n: archive[n] for n in archive.files}
        header = json.loads(members.pop("header").tobytes())
        v1 = {"classes": members["classes"], "class_count_": members["class_count_"],
              "feature_count_": model.feature_count_,
              "missing_count": model._missing_count}
        header["format_version"] = 1
        header["arrays"] = ["classes"] + sorted(n for n in v1 if n != "classes")
        with open(tmp_path / "v1.npz", "wb") as handle:
            np.savez(handle, header=np.frombuffer(json.dumps(header).encode(), np.uint8),
                     **v1)
        old = fastnb.load(tmp_path / "v1.npz")
        assert_array_equal(old.feature_count_, model.feature_count_)
        assert_allclose(old.predict_proba(observed), model.predict_proba(observed),
                        rtol=1e-9, atol=1e-300)


def test_same_bits_for_any_thread_count(text):
    X, y = text
    model = fastnb.ComplementNB(n_threads=1).fit(X, y)
    one = model.predict_proba(X)
    model.set_params(n_threads=2)
    assert_array_equal(model.predict_proba(X), one)


@pytest.mark.parametrize("name, params", MODELS)
def test_both_predict_paths_match_sklearn(text, name, params):
    """Small batches walk the table; large ones use the cached feature slots."""
    X, y = text
    ours = getattr(fastnb, name)(**params).fit(X, y)
    theirs = getattr(sk, name)(**params).fit(X, y)
    expected = theirs.predict_joint_log_proba(X)
    assert X.nnz * _discrete.TABLE_DENSE_PREDICT_NNZ_RATIO >= X.shape[1]
    row_by_row = np.vstack([ours.predict_joint_log_proba(X[i]) for i in range(20)])
    assert "table_slots" not in _table_of(ours).predict_state  # table kernel
    assert_allclose(row_by_row, expected[:20], rtol=1e-10)
    assert_allclose(ours.predict_joint_log_proba(X), expected, rtol=1e-10)
    assert "table_slots" in _table_of(ours).predict_state  # slot kernel
    # the path is the batch's, not the cache's: single rows still walk the table
    assert_array_equal(np.vstack([ours.predict_joint_log_proba(X[i]) for i in range(20)]),
                       row_by_row)


@pytest.mark.parametrize("name, params", MODELS)
def test_dense_predict_weights_follow_partial_fit(text, name, params):
    X, y = text
    ours = getattr(fastnb, name)(**params)
    theirs = getattr(sk, name)(**params)
    classes = np.unique(y)
    for part in (slice(0, 200), slice(200, 400)):
        ours.partial_fit(X[part], y[part], classes=classes)
        theirs.partial_fit(X[part], y[part], classes=classes)
        assert_allclose(ours.predict_joint_log_proba(X), theirs.predict_joint_log_proba(X),
                        rtol=1e-10)
        assert_allclose(ours.predict_joint_log_proba(X[:3]),
                        theirs.predict_joint_log_proba(X[:3]), rtol=1e-10)


@pytest.mark.parametrize("fit_norm", [False, True])
def test_complement_norm_is_the_one_of_the_last_fit(text, fit_norm):
    """scikit-learn folds norm into feature_log_prob_ when fitting: changing it
    afterwards changes nothing until the next fit or partial_fit."""
    X, y = text
    ours = fastnb.ComplementNB(norm=fit_norm).fit(X, y)
    theirs = sk.ComplementNB(norm=fit_norm).fit(X, y)
    ours.set_params(norm=not fit_norm)
    theirs.set_params(norm=not fit_norm)
    for rows in (X[:3], X):  # both predict paths
        assert_allclose(ours.predict_joint_log_proba(rows),
                        theirs.predict_joint_log_proba(rows), rtol=1e-10)
    assert_allclose(ours.feature_log_prob_, theirs.feature_log_prob_, rtol=1e-10)
    ours.partial_fit(X[:10], y[:10])
    theirs.partial_fit(X[:10], y[:10])
    assert_allclose(ours.predict_joint_log_proba(X[:3]),
                    theirs.predict_joint_log_proba(X[:3]), rtol=1e-10)
    assert_allclose(ours.feature_log_prob_, theirs.feature_log_prob_, rtol=1e-10)


@pytest.mark.parametrize("name, params", MODELS)
def test_save_load_is_the_same_table(text, tmp_path, name, params):
    X, y = text
    model = getattr(fastnb, name)(**params)
    classes = np.unique(y)
    for part in (slice(0, 150), slice(150, 400)):  # blocks grown over two calls
        model.partial_fit(X[part], y[part], classes=classes)
    model.save(tmp_path / "m.npz")
    loaded = fastnb.load(tmp_path / "m.npz")
    assert _table_of(loaded) is not None
    for rows in (X[:1], X[:5], X):
        assert_array_equal(loaded.predict_joint_log_proba(rows),
                           model.predict_joint_log_proba(rows))
    # and it learns on like the saved one
    loaded.partial_fit(X[:50], y[:50])
    model.partial_fit(X[:50], y[:50])
    assert_array_equal(loaded.predict_joint_log_proba(X[:5]),
                       model.predict_joint_log_proba(X[:5]))


def test_damaged_table_entries_are_refused(text, tmp_path):
    X, y = text
    fastnb.MultinomialNB().fit(X, y).save(tmp_path / "m.npz")
    with np.load(tmp_path / "m.npz", allow_pickle=False) as archive:
        members = {n: archive[n] for n in archive.files}
    damages = {
        "feature out of range": ("table_feature", lambda a: np.where(a == a.max(), X.shape[1], a)),
        "class out of range": ("table_class", lambda a: a + 100),
        "repeated pair": ("table_class", lambda a: np.zeros_like(a)),
        "not grouped": ("table_feature", lambda a: a[::-1].copy()),
        "float indices": ("table_feature", lambda a: a.astype(np.float64)),
        "negative count": ("table_count", lambda a: -a),
    }
    for label, (member, damage) in damages.items():
        bad = dict(members, **{member: damage(members[member])})
        with open(tmp_path / "bad.npz", "wb") as handle:
            np.savez(handle, **bad)
        with pytest.raises(ValueError, match="not a valid fastnb model file"):
            fastnb.load(tmp_path / "bad.npz")
