# Over the ~600-line guideline on purpose: the sparse count table's contract
# (chosen from the data, built, streamed, exact against scikit-learn) with its
# shared helpers; moves and streams have their own files.
"""The sparse per-class count table of MultinomialNB, ComplementNB and BernoulliNB
(text scale).

The whole suite also runs on the table with FASTNB_TEST_SPARSE_TABLE=1; these
tests check what is particular to it: that it is picked from the data, that
partial_fit works in place on it, and that its answers are scikit-learn's.
"""

import contextlib
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
from _registry import hashed_text

MODELS = [("MultinomialNB", {}), ("MultinomialNB", {"alpha": 0.3, "fit_prior": False}),
          ("ComplementNB", {}), ("ComplementNB", {"norm": True}),
          ("BernoulliNB", {}), ("BernoulliNB", {"binarize": 1.5, "alpha": 0.5})]


@pytest.fixture
def text():
    return hashed_text(400, seed=3)


@contextlib.contextmanager
def _count_table_thresholds(min_cells, min_cells_per_nonzero):
    """The table for every CSR fit, however small (what the hypothesis tests need:
    pytest's monkeypatch fixture does not reset between hypothesis examples)."""
    saved = _count_table.TABLE_MIN_CELLS, _count_table.TABLE_MIN_CELLS_PER_NONZERO
    _count_table.TABLE_MIN_CELLS = min_cells
    _count_table.TABLE_MIN_CELLS_PER_NONZERO = min_cells_per_nonzero
    try:
        yield
    finally:
        _count_table.TABLE_MIN_CELLS, _count_table.TABLE_MIN_CELLS_PER_NONZERO = saved


def _table_of(model):
    return model.__dict__.get("_table")


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


# -- BernoulliNB on the table ------------------------------------------------------------

def _with_missing(X, every=17):
    Xm = X.copy()
    Xm.data[::every] = np.nan
    return Xm


def _sk_bernoulli_with_missing(Xm, y, params, sample_weight=None):
    """scikit-learn's BernoulliNB with fastnb's missing-value rule (a missing value
    is left out of its feature's counts and denominator, and of the joint log
    likelihood), computed from scikit-learn's counts on the observed values."""
    observed = Xm.copy()
    observed.data = np.nan_to_num(observed.data)
    theirs = sk.BernoulliNB(**params).fit(observed, y, sample_weight=sample_weight)
    nan = Xm.copy()
    nan.data = np.isnan(nan.data).astype(float)
    nan.eliminate_zeros()
    classes = np.unique(y)
    onehot = (y[:, None] == classes).astype(float)
    if sample_weight is not None:
        onehot *= sample_weight[:, None]
    missing = np.asarray((nan.T @ onehot).T)
    alpha = params.get("alpha", 1.0)
    flp = (np.log(theirs.feature_count_ + alpha)
           - np.log(theirs.class_count_[:, None] - missing + 2 * alpha))
    return theirs, flp, missing


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n_threads", [1, 2])
@pytest.mark.parametrize("params", [{}, {"binarize": 1.5, "alpha": 0.5},
                                    {"binarize": None, "alpha": 2.0},
                                    {"fit_prior": False, "alpha": 1e-3}])
def test_bernoulli_table_matches_sklearn(text, dtype, n_threads, params):
    X, y = text
    X = X.astype(dtype)
    if params.get("binarize", 0.0) is None:
        X.data[:] = 1.0  # binary input, as binarize=None presumes
    ours = fastnb.BernoulliNB(n_threads=n_threads, **params).fit(X, y)
    theirs = sk.BernoulliNB(**params).fit(X, y)
    assert _table_of(ours) is not None
    assert "feature_log_prob_" not in ours.__dict__
    assert_allclose(ours.feature_count_, theirs.feature_count_, rtol=1e-12)
    assert_allclose(ours.feature_log_prob_, theirs.feature_log_prob_, rtol=1e-10)
    assert_allclose(ours.class_log_prior_, theirs.class_log_prior_, rtol=1e-12)
    for rows in (X[:1], X[:5], X):  # the table walk, and the dense weights
        assert_allclose(ours.predict_joint_log_proba(rows),
                        theirs.predict_joint_log_proba(rows), rtol=1e-10)
        assert_array_equal(ours.predict(rows), theirs.predict(rows))
    assert_allclose(ours.predict_proba(X[:50].toarray()),
                    theirs.predict_proba(X[:50].toarray()), rtol=1e-9, atol=1e-12)


def test_bernoulli_partial_fit_splits_weights_and_priors(text):
    X, y = text
    rng = np.random.default_rng(8)
    w = rng.uniform(0, 3, X.shape[0])
    params = {"class_prior": rng.dirichlet(np.ones(35)), "alpha": 0.7, "binarize": 1.0}
    classes = np.unique(y)
    whole = fastnb.BernoulliNB(**params).fit(X, y, sample_weight=w)
    stream = fastnb.BernoulliNB(**params)
    theirs = sk.BernoulliNB(**params)
    for start, stop in [(0, 1), (1, 130), (130, 131), (131, 400)]:
        stream.partial_fit(X[start:stop], y[start:stop], classes=classes,
                           sample_weight=w[start:stop])
        theirs.partial_fit(X[start:stop], y[start:stop], classes=classes,
                           sample_weight=w[start:stop])
        assert_allclose(stream.predict_joint_log_proba(X[:3]),
                        theirs.predict_joint_log_proba(X[:3]), rtol=1e-10)
    assert _table_of(stream) is not None
    assert_array_equal(stream.feature_count_, whole.feature_count_)
    assert_array_equal(stream.predict_joint_log_proba(X), whole.predict_joint_log_proba(X))
    assert_allclose(stream.predict_joint_log_proba(X), theirs.predict_joint_log_proba(X),
                    rtol=1e-10)


def test_bernoulli_array_alpha_stays_dense(text):
    X, y = text
    alpha = np.random.default_rng(5).uniform(0.1, 2, X.shape[1])
    ours = fastnb.BernoulliNB(alpha=alpha).fit(X, y)
    theirs = sk.BernoulliNB(alpha=1.0).fit(X, y)
    assert _table_of(ours) is None
    expected = (np.log(theirs.feature_count_ + alpha)
                - np.log(theirs.class_count_[:, None] + 2 * alpha))
    assert_allclose(ours.feature_log_prob_, expected, rtol=1e-10)
    # a table-backed model given an array alpha goes dense on its next call,
    # with the same counts
    model = fastnb.BernoulliNB().partial_fit(X[:200], y[:200], classes=np.unique(y))
    assert _table_of(model) is not None
    model.set_params(alpha=alpha).partial_fit(X[200:], y[200:])
    assert _table_of(model) is None
    assert_array_equal(model.feature_count_, theirs.feature_count_)
    assert_allclose(model.feature_log_prob_, expected, rtol=1e-10)


def test_bernoulli_failed_partial_fit_changes_nothing(text):
    X, y = text
    model = fastnb.BernoulliNB(binarize=None).fit(X, y)
    before = model.predict_joint_log_proba(X)
    counts = model.feature_count_
    bad = X[:5].copy()
    bad.data[-1] = np.inf  # after valid rows: the batch is checked in full first
    with pytest.raises(ValueError, match="infinity"):
        model.partial_fit(bad, y[:5])
    bad.data[-1] = 1e308
    bad.data[-2] = 1e308
    with pytest.raises(ValueError, match="too large"):
        model.partial_fit(bad, y[:5])
    with pytest.raises(ValueError):
        model.partial_fit(X[:5], np.array([0, 1, 2, 3, 99]))  # an unknown class
    with pytest.raises(ValueError):
        model.partial_fit(X[:5, :100], y[:5])  # the wrong number of features
    assert_array_equal(model.feature_count_, counts)
    assert_array_equal(model.predict_joint_log_proba(X), before)
    # binarized, infinity is still refused, at fit and at predict
    model = fastnb.BernoulliNB().fit(X, y)
    with pytest.raises(ValueError, match="infinity"):
        model.partial_fit(bad.multiply(np.inf).tocsr(), y[:5])
    with pytest.raises(ValueError, match="infinity"):
        model.predict(sp.csr_matrix(np.where(X[:2].toarray() > 0, np.inf, 0)))


@pytest.mark.parametrize("binarize", [0.0, None])
def test_bernoulli_missing_values_merge_and_save(text, tmp_path, binarize):
    X, y = text
    if binarize is None:
        X = X.copy()
        X.data[:] = 1.0
    Xm = _with_missing(X)
    params = {"binarize": binarize, "alpha": 0.5}
    w = np.random.default_rng(2).uniform(0.5, 2, X.shape[0])
    model = fastnb.BernoulliNB(**params).fit(Xm, y, sample_weight=w)
    assert _table_of(model) is not None
    theirs, flp, missing = _sk_bernoulli_with_missing(Xm, y, params, w)
    assert_allclose(model.feature_count_, theirs.feature_count_, rtol=1e-12)
    assert_allclose(model._missing_count, missing, rtol=1e-12)
    assert_allclose(model.feature_log_prob_, flp, rtol=1e-10)
    # the dense model with the same data is the reference for the outputs
    dense = fastnb.BernoulliNB(**params).fit(Xm.toarray(), y, sample_weight=w)
    assert _table_of(dense) is None
    assert_allclose(model.feature_log_prob_, dense.feature_log_prob_, rtol=1e-12)
    for rows in (Xm[:1], Xm[:5], Xm, X):
        assert_allclose(model.predict_joint_log_proba(rows),
                        dense.predict_joint_log_proba(rows.toarray()), rtol=1e-10)
    # partial_fit in any split, with the missing values in some batches only
    stream = fastnb.BernoulliNB(**params)
    for start, stop in [(0, 50), (50, 51), (51, 400)]:
        stream.partial_fit(Xm[start:stop], y[start:stop], classes=np.unique(y),
                           sample_weight=w[start:stop])
    assert_array_equal(stream.predict_joint_log_proba(Xm),
                       model.predict_joint_log_proba(Xm))
    # merge (exact to rounding) and save/load (the same bits)
    half = fastnb.BernoulliNB(**params).fit(Xm[:200], y[:200], sample_weight=w[:200])
    other = fastnb.BernoulliNB(**params).fit(Xm[200:], y[200:], sample_weight=w[200:])
    merged = fastnb.merge(half, other)
    assert_allclose(merged.predict_joint_log_proba(Xm), model.predict_joint_log_proba(Xm),
                    rtol=1e-10)
    model.save(tmp_path / "b.npz")
    loaded = fastnb.load(tmp_path / "b.npz")
    assert _table_of(loaded) is not None
    assert_array_equal(loaded._missing_count, model._missing_count)
    for rows in (Xm[:2], Xm):
        assert_array_equal(loaded.predict_joint_log_proba(rows),
                           model.predict_joint_log_proba(rows))


def test_bernoulli_saved_with_array_alpha_loads_dense(text, tmp_path):
    X, y = text
    model = fastnb.BernoulliNB().fit(X, y)
    alpha = np.full(X.shape[1], 0.5)
    model.set_params(alpha=alpha)
    model.save(tmp_path / "b.npz")
    loaded = fastnb.load(tmp_path / "b.npz")
    assert _table_of(loaded) is None
    expected = fastnb.BernoulliNB(alpha=alpha).fit(X, y)
    assert_array_equal(loaded.feature_count_, expected.feature_count_)
    assert_allclose(loaded.predict_joint_log_proba(X), expected.predict_joint_log_proba(X),
                    rtol=1e-12)


def test_bernoulli_same_bits_for_any_thread_count(text):
    X, y = text
    Xm = _with_missing(X, 23)
    one = fastnb.BernoulliNB(n_threads=1).fit(Xm, y)
    two = fastnb.BernoulliNB(n_threads=2).fit(Xm, y)
    for rows in (Xm[:3], Xm):
        assert_array_equal(one.predict_joint_log_proba(rows),
                           two.predict_joint_log_proba(rows))


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n_batches=st.integers(1, 4),
       binarize=st.sampled_from([0.0, 0.5, 1.5]), alpha=st.floats(1e-3, 3.0))
def test_bernoulli_table_property(seed, n_batches, binarize, alpha):
    """Any data, any split into batches: the table-backed model is scikit-learn's."""
    rng = np.random.default_rng(seed)
    n, d, k = int(rng.integers(5, 60)), int(rng.integers(2000, 5000)), int(rng.integers(2, 9))
    X = sp.random(n, d, density=float(rng.uniform(0.0005, 0.01)), format="csr",
                  random_state=rng, data_rvs=lambda size: rng.integers(1, 4, size) / 2.0)
    y = rng.integers(0, k, n)
    classes = np.arange(k)
    params = {"binarize": binarize, "alpha": alpha}
    ours = fastnb.BernoulliNB(**params)
    theirs = sk.BernoulliNB(**params)
    bounds = np.unique(np.r_[0, np.sort(rng.integers(0, n + 1, n_batches - 1)), n])
    with _count_table_thresholds(0, 0):
        for start, stop in zip(bounds[:-1], bounds[1:]):
            ours.partial_fit(X[start:stop], y[start:stop], classes=classes)
            theirs.partial_fit(X[start:stop], y[start:stop], classes=classes)
    assert _table_of(ours) is not None
    assert_allclose(ours.feature_count_, theirs.feature_count_, rtol=1e-12)
    assert_allclose(ours.feature_log_prob_, theirs.feature_log_prob_, rtol=1e-10)
    for rows in (X[:1], X):
        assert_allclose(ours.predict_joint_log_proba(rows),
                        theirs.predict_joint_log_proba(rows), rtol=1e-9, atol=1e-9)


def _assert_same_entries(built, added):
    """The two tables hold the same entries, in the same order, with the same
    bits of every count."""
    assert_array_equal(built.feat_len, added.feat_len)
    features_a, classes_a, positions_a = added.entries()
    features_b, classes_b, positions_b = built.entries()
    assert_array_equal(features_b, features_a)
    assert_array_equal(classes_b, classes_a)
    assert_array_equal(built.ent_count[positions_b].view(np.int64),
                       added.ent_count[positions_a].view(np.int64))


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1),
       n_features=st.sampled_from([1, 3, 17, 1024, 1025, 70_000]),
       n_classes=st.sampled_from([1, 2, 5, 35, 300, 2000]), weighted=st.booleans(),
       binarize=st.booleans(), n_threads=st.integers(1, 3),
       values=st.sampled_from(["thirds", "whole", "large", "zeros"]))
def test_build_is_add_into_an_empty_table(seed, n_features, n_classes, weighted, binarize,
                                          n_threads, values):
    """A large first batch is built by partitions of features (``table_partition``,
    ``table_reduce``, ``table_fill``): the entries, their order, the bits of every
    count and class total, and the block layout are those of adding the batch row
    by row, for any shape, class count and thread count, in compact records
    (unweighted whole counts below 2**15, or thresholded ones, and 16-bit keys)
    or not, with explicit zeros (stored, but no records) or not."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(0, 60))
    density = 0.002 if n_features > 5000 else float(rng.uniform(0.0, 0.3))

    def draw(size):
        if values == "thirds":
            return rng.integers(1, 8, size) / 3.0
        if values == "whole":
            return rng.integers(1, 40, size).astype(np.float64)
        if values == "zeros":
            # explicit zeros among whole counts: stored, but no records
            return rng.integers(0, 3, size).astype(np.float64)
        # whole, about the compact records' largest count (2**15 - 1) and above
        return rng.choice([1.0, 2.0, 32766.0, 32767.0, 32768.0, 1e6], size,
                          p=[0.4, 0.3, 0.1, 0.1, 0.05, 0.05])
    X = sp.random(n, n_features, density=density, format="csr", random_state=rng,
                  data_rvs=draw)
    codes = rng.integers(0, n_classes, n).astype(np.intp)
    weights = rng.random(n) if weighted else None
    added = _count_table.SparseCountTable(n_classes, n_features)
    added.add(X, codes, weights, binarize, 0.5)
    partition = _count_table.BatchPartition(X, codes, weights, n_classes, binarize, 0.5,
                                            n_threads, False)
    counts_fit = binarize or bool(np.all((X.data == np.floor(X.data))
                                         & (X.data < 2**15)))
    assert partition.compact == (weights is None and counts_fit
                                 and n_classes << partition.part_shift <= 2**16)
    built = _count_table.SparseCountTable.build(X, codes, weights, n_classes, binarize, 0.5,
                                                n_threads, partition)
    _assert_same_entries(built, added)
    assert_array_equal(built.feat_start[built.feat_len == 0], -1)
    assert_array_equal(built.class_total.view(np.int64), added.class_total.view(np.int64))
    # blocks in feature order, each with room for the next power of two
    rooms = [1 << (int(length) - 1).bit_length() for length in built.feat_len if length]
    assert built.used == sum(rooms)
    assert_array_equal(built.feat_start[built.feat_len > 0], np.cumsum(rooms) - rooms)


@pytest.mark.parametrize("largest, weighted, binarize, n_classes, compact", [
    (32767.0, False, False, 35, True),     # the largest count a compact record holds
    (32768.0, False, False, 35, False),
    (2.5, False, False, 35, False),        # not whole
    (3.0, True, False, 35, False),         # weighted
    (1e9, False, True, 35, True),          # thresholded: 0 or 1
    (3.0, False, False, 2000, False),      # (class, offset) keys past 16 bits
])
def test_compact_records_and_their_bounds(largest, weighted, binarize, n_classes, compact):
    # A batch is partitioned in compact records (one int32 each, the count above
    # its 16-bit key) only where every count fits: the same table either way
    rng = np.random.default_rng(5)
    n, d = 400, 2**20
    X = sp.random(n, d, density=20 / d, format="csr", random_state=rng,
                  data_rvs=lambda size: rng.integers(1, 5, size).astype(np.float64))
    X.data[::97] = largest
    codes = rng.integers(0, n_classes, n).astype(np.intp)
    weights = rng.random(n) if weighted else None
    for n_threads in (1, 2):
        partition = _count_table.BatchPartition(X, codes, weights, n_classes, binarize,
                                                0.5, n_threads, False)
        assert partition.compact == compact
        built = _count_table.SparseCountTable.build(X, codes, weights, n_classes,
                                                    binarize, 0.5, n_threads, partition)
        added = _count_table.SparseCountTable(n_classes, d)
        added.add(X, codes, weights, binarize, 0.5)
        _assert_same_entries(built, added)


def test_compact_reduction_with_a_full_map_and_large_sums():
    # A compact partition's reduction keeps each (feature, class) pair's entry
    # number and count in one map cell: here one partition of 4,096 features x 16
    # classes has all 65,536 pairs (entry numbers up to 2**16 - 1), and one pair
    # sums 70,000 records of 32,767 (2.3e9, past 2**31): the same table as adding
    # row by row
    n_classes, d = 16, 4096
    pairs = np.arange(n_classes * d)
    rows_class = np.concatenate([pairs % n_classes, np.zeros(70_000, dtype=np.int64)])
    rows_feature = np.concatenate([pairs // n_classes, np.full(70_000, 7)])
    values = np.concatenate([np.ones(pairs.shape[0]), np.full(70_000, 32767.0)])
    n = rows_class.shape[0]
    X = sp.csr_matrix((values, (np.arange(n), rows_feature)), shape=(n, d))
    codes = rows_class.astype(np.intp)
    partition = _count_table.BatchPartition(X, codes, None, n_classes, False, 0.0, 1,
                                            False)
    assert partition.compact and partition.part_start.shape[0] == 2
    built = _count_table.SparseCountTable.build(X, codes, None, n_classes, False, 0.0, 1,
                                                partition)
    added = _count_table.SparseCountTable(n_classes, d)
    added.add(X, codes, None, False, 0.0)
    _assert_same_entries(built, added)
    assert built.used == n_classes * d
    assert built.to_dense()[0, 7] == 1.0 + 70_000 * 32767.0


@pytest.mark.parametrize("n_threads", [1, 2])
def test_compact_entries_and_their_bound(n_threads, monkeypatch):
    # The reduction writes a partition's entries compact (the count above the key,
    # as a compact record) where its records were compact and every summed count
    # is still below 2**15: (feature, class) pairs summing to 2**15 - 1, 2**15 and
    # 50,000, each in a partition of its own (k = 3: 16,384 features a partition)
    rng = np.random.default_rng(41)
    n, d, k = 600, 2**16, 3
    X = sp.random(n, d, density=8 / d, format="csr", random_state=rng,
                  data_rvs=lambda size: rng.integers(1, 4, size).astype(np.float64))
    X = sp.lil_matrix(X)
    codes = np.arange(n) % k
    for feature, counts in [(5, (32766.0, 1.0)), (20_000, (16384.0, 16384.0)),
                            (40_000, (30_000.0, 20_000.0))]:
        X[:, feature] = 0.0
        X[0, feature], X[3, feature] = counts  # rows 0 and 3: both class 0
    X = sp.csr_matrix(X)
    seen = []
    reduce = _count_table._build_kernels.table_reduce

    def recording_reduce(*args):
        reduce(*args)
        seen.append(args[6].copy())  # part_compact, as the reduction wrote it

    monkeypatch.setattr(_count_table._build_kernels, "table_reduce", recording_reduce)
    partition = _count_table.BatchPartition(X, codes, None, k, False, 0.0, n_threads,
                                            False)
    assert partition.compact and partition.part_shift == 14
    built = _count_table.SparseCountTable.build(X, codes, None, k, False, 0.0, n_threads,
                                                partition)
    assert seen[0].tolist() == [1, 0, 0, 1]
    added = _count_table.SparseCountTable(k, d)
    added.add(X, codes, None, False, 0.0)
    _assert_same_entries(built, added)
    assert_array_equal(built.feat_start[built.feat_len == 0], -1)
    positions = {int(f): int(p) for f, c, p in zip(*built.entries()) if c == 0}
    assert built.ent_count[[positions[5], positions[20_000], positions[40_000]]].tolist() \
        == [32767.0, 32768.0, 50_000.0]


@pytest.mark.parametrize("n_threads", [1, 2, 3, 4])
@pytest.mark.parametrize("divisor", [2.0, 1.0])
def test_build_with_the_frequent_features_together(n_threads, divisor):
    # A vocabulary numbered by frequency (T1's Zipf ranks) puts most records in
    # the first partitions: the reduce cuts the partitions into runs of equal
    # work, not equal count. The table is still the one of adding row by row,
    # from compact records (whole counts) or not (halves).
    rng = np.random.default_rng(17)
    n, d, k = 3_000, 70_000, 7
    ranks = np.minimum((rng.pareto(0.6, n * 12) * 3).astype(np.int64), d - 1)
    rows = np.repeat(np.arange(n), 12)
    X = sp.csr_matrix((rng.integers(1, 4, n * 12) / divisor, (rows, ranks)), shape=(n, d))
    codes = rng.integers(0, k, n).astype(np.intp)
    partition = _count_table.BatchPartition(X, codes, None, k, False, 0.0, n_threads,
                                            True)
    assert partition.compact == (divisor == 1.0)
    sizes = np.diff(partition.part_start)
    assert sizes[0] > sizes[1:].sum() / 3  # skewed, as meant
    added = _count_table.SparseCountTable(k, d)
    added.add(X, codes, None, False, 0.0)
    built = _count_table.SparseCountTable.build(X, codes, None, k, False, 0.0, n_threads,
                                                partition)
    _assert_same_entries(built, added)


@pytest.mark.parametrize("name", ["MultinomialNB", "ComplementNB"])
@pytest.mark.parametrize("per_feature_alpha", [False, True])
@pytest.mark.parametrize("n_threads", [1, 2])
@pytest.mark.parametrize("scale", [4.0, 1.0])
def test_built_table_weights_are_the_refresh(name, per_feature_alpha, n_threads, scale):
    # A fit that builds its table computes the weights (and ComplementNB's
    # per-feature terms) as the entries are placed: the refresh's, bit for bit,
    # from records of values and keys (quarters) or compact ones (whole counts)
    rng = np.random.default_rng(23)
    n, d, k = 2_000, 2**16, 20
    ranks = np.minimum((rng.pareto(0.8, n * 12) * 4).astype(np.int64), d - 1)
    X = sp.csr_matrix((rng.integers(1, 90, n * 12) / scale,
                       (np.repeat(np.arange(n), 12), ranks)), shape=(n, d))
    y = rng.integers(0, k, n)
    alpha = rng.uniform(0.1, 2.0, d) if per_feature_alpha else 0.7
    assert _count_table.builds_table(k, d, X.nnz)
    model = getattr(fastnb, name)(alpha=alpha, n_threads=n_threads).fit(X, y)
    table = model._table
    assert table is not None
    features = table.all_features()
    _, _, positions = table.entries()
    weights = table.ent_weight.copy()
    terms = {key: model.__dict__[key].copy()
             for key in ("_feature_all", "_feat_base") if key in model.__dict__}
    table.ent_weight[:] = np.nan
    model._refresh_table(table, features, np.atleast_1d(model._table_alpha))
    assert_array_equal(weights[positions].view(np.int64),
                       table.ent_weight[positions].view(np.int64))
    for key, value in terms.items():
        assert_array_equal(value.view(np.int64), model.__dict__[key].view(np.int64))
    # every feature's terms (those without entries too, which the build's
    # reduction and fill write) are those of a table made by adding the rows
    streamed = getattr(fastnb, name)(alpha=alpha, n_threads=n_threads)
    streamed.partial_fit(X[:1], y[:1], classes=np.arange(k))
    streamed.partial_fit(X[1:], y[1:])
    assert not _count_table.builds_table(k, d, X[:1].nnz)
    streamed._flush_table()
    for key, value in terms.items():
        assert_array_equal(value.view(np.int64), streamed.__dict__[key].view(np.int64))
    expected = getattr(sk, name)(alpha=alpha).fit(X, y)
    assert_allclose(model.predict_joint_log_proba(X[:50]),
                    expected.predict_joint_log_proba(X[:50]), rtol=1e-10)


def _run_work(part_start, width, cells):
    sizes = np.diff(part_start)
    return sizes + np.minimum(sizes, cells) + width


@settings(max_examples=60, deadline=None)
@given(sizes=st.lists(st.integers(0, 10_000), min_size=1, max_size=40),
       n_runs=st.integers(1, 6), width=st.sampled_from([0, 16, 1024]),
       cells=st.sampled_from([0, 50, 35 * 1024]))
def test_balanced_runs_cut_the_work_evenly(sizes, n_runs, width, cells):
    """The runs cover the partitions in order, and each run's work is at most its
    share plus one partition's (a partition is never split)."""
    part_start = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    runs = _count_table._build_kernels.balanced_runs(part_start, width, cells, n_runs)
    assert runs.shape == (n_runs + 1,)
    assert runs[0] == 0 and runs[-1] == len(sizes)
    assert np.all(np.diff(runs) >= 0)
    work = _run_work(part_start, width, cells)
    total, largest = int(work.sum()), int(work.max())
    for t in range(n_runs):
        assert work[runs[t]:runs[t + 1]].sum() <= total / n_runs + largest


def test_balanced_runs_of_one_large_partition():
    # T1's shape: the first partition holds 44% of the records and few entries;
    # it gets a run with some partitions after it, the rest the other run
    sizes = np.array([1_480_000] + [2_000] * 1023)
    part_start = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    runs = _count_table._build_kernels.balanced_runs(part_start, 1024, 35 * 1024, 2)
    work = _run_work(part_start, 1024, 35 * 1024)
    assert 1 < runs[1] < 1024
    halves = work[:runs[1]].sum(), work[runs[1]:].sum()
    assert abs(halves[0] - halves[1]) <= work[runs[1] - 1]


def _check_values(rng, size, kind):
    """Values of the validation pass's tests: thirds (few rows whole), whole counts
    (most rows take the pass's whole-number sum), or whole values with some at and
    beyond that sum's bound (2**31, up to where a double's sums round), and
    negative zeros."""
    if kind == "thirds":
        return rng.integers(-1, 8, size) / 3.0
    values = rng.integers(0, 8, size).astype(np.float64)
    if kind == "large":
        pick = rng.random(size)
        values[pick < 0.1] = 2.0**31 - 1
        values[(pick >= 0.1) & (pick < 0.15)] = 2.0**31
        values[(pick >= 0.15) & (pick < 0.2)] = 2.0**40 + 1
        # where the order of the additions shows: 2**53 + 1 rounds back to 2**53
        values[(pick >= 0.2) & (pick < 0.25)] = 2.0**53
        values[(pick >= 0.25) & (pick < 0.35)] = -0.0
    return values


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n_rows=st.integers(0, 40), weighted=st.booleans(),
       binarize=st.booleans(), float32=st.booleans(),
       kind=st.sampled_from(["thirds", "whole", "large"]), with_bad=st.booleans())
def test_csr_check_is_the_same_for_any_thread_count(seed, n_rows, weighted, binarize,
                                                    float32, kind, with_bad):
    """The validation pass runs over blocks of rows in parallel: its flags, each
    row's total and the class totals are the same for any block count, and the
    row totals are those the table gives a batch that skipped the check. Each
    row's total has the bits of its values added in order, whichever way the
    pass summed it (whole values are summed in four lanes), and the partitions'
    counts are the batch's clean non-zeros."""
    rng = np.random.default_rng(seed)
    n_features, n_classes = 50, 4
    X = sp.random(n_rows, n_features, density=0.2, format="csr", random_state=rng,
                  data_rvs=lambda size: _check_values(rng, size, kind))
    X.data = X.data.astype(np.float32 if float32 else np.float64)
    # with_bad: NaN, infinities and out-of-range indices in ~10% of the non-zeros
    bad = rng.random(X.data.shape[0]) if with_bad else np.ones(X.data.shape[0])
    X.data[bad < 0.05] = np.nan
    X.data[(bad >= 0.05) & (bad < 0.065)] = np.inf
    X.data[(bad >= 0.065) & (bad < 0.08)] = -np.inf
    X.indices[(bad >= 0.08) & (bad < 0.1)] = n_features + 3
    codes = rng.integers(0, n_classes, n_rows).astype(np.intp)
    weights = rng.random(n_rows) if weighted else None
    kernels = _count_table._kernels
    results = []
    for n_threads in (1, 2, 3, 4):
        row_total, batch_total = np.empty(n_rows), np.zeros(n_classes)
        flags = kernels.csr_check(X.data, X.indices, X.indptr, n_features, codes, weights,
                                  row_total, batch_total, binarize, 0.5, n_threads)
        results.append((flags, row_total, batch_total))
        # the pass that validates a batch to be built is the same check: the same
        # flags and totals, and nothing written unless the batch is clean
        for stop_on_negative in (False, True):
            partition = _count_table.BatchPartition(X, codes, weights, n_classes,
                                                    binarize, 0.5, n_threads,
                                                    stop_on_negative)
            assert partition.flags == flags
            assert_array_equal(partition.row_total.view(np.int64), row_total.view(np.int64))
            assert_array_equal(partition.batch_total.view(np.int64),
                               batch_total.view(np.int64))
            n_nan, n_inf, n_neg, n_malformed = flags
            clean = not (n_nan or n_inf or n_malformed or (n_neg and stop_on_negative))
            assert (partition.largest >= 0) == clean
            if clean:
                # each partition's records: the non-zeros (thresholded) of its features
                kept = (X.data > 0.5) if binarize else (X.data != 0)
                width = 1 << partition.part_shift
                expected = np.bincount(X.indices[kept] // width,
                                       minlength=partition.part_start.shape[0] - 1)
                assert_array_equal(np.diff(partition.part_start), expected)
    for flags, row_total, batch_total in results[1:]:
        assert flags == results[0][0]
        assert_array_equal(row_total.view(np.int64), results[0][1].view(np.int64))
        assert_array_equal(batch_total.view(np.int64), results[0][2].view(np.int64))
    flags, row_total, batch_total = results[0]
    values = X.data.astype(np.float64)
    assert flags == (int(np.isnan(values).sum()), int(np.isinf(values).sum()),
                     int(((values < 0) & np.isfinite(values)).sum()),
                     int((X.indices >= n_features).sum()))
    # each row's total: its finite values (thresholded) added in order, weighted
    for i in range(n_rows):
        row_sum = 0.0
        for x in values[X.indptr[i]:X.indptr[i + 1]]:
            if np.isfinite(x):
                row_sum += (1.0 if x > 0.5 else 0.0) if binarize else float(x)
        assert row_total[i] == (1.0 if weights is None else weights[i]) * row_sum
    expected = np.zeros(n_classes)
    for i in range(n_rows):
        expected[codes[i]] += row_total[i]
    assert_array_equal(batch_total, expected)
    again = _count_table._row_totals(X, codes, weights, binarize, 0.5, n_classes)
    assert_array_equal(again.view(np.int64), row_total.view(np.int64))


def test_live_features_is_flatnonzero():
    kernels = _count_table._kernels
    rng = np.random.default_rng(5)
    for d, density in ((0, 0.5), (1, 0.0), (1, 1.0), (1000, 0.5), (70_001, 0.01)):
        lengths = ((rng.random(d) < density) * rng.integers(1, 9, d)).astype(np.int32)
        got = _count_table._update_kernels.live_features(lengths)
        assert got.dtype == np.int64
        assert_array_equal(got, np.flatnonzero(lengths))


@pytest.mark.parametrize("alpha", [1.0, 0.37, 1e-10, 5.0])
@pytest.mark.parametrize("n", [5, 126])
def test_small_count_weights_are_the_logs(alpha, n):
    # MultinomialNB's entry weight of a whole count below 64 comes from a table of
    # the same expression when a refresh or flush has 64 features or entries or
    # more (n=126; n=5 computes every log): the same bits as the logs, which a
    # per-feature alpha takes, in refresh and flush
    rng = np.random.default_rng(11)
    counts = np.concatenate([np.arange(0.0, 70.0), rng.random(50) * 80,
                             [0.5, 63.0, 63.5, 64.0, 1e6, 2.0**53]])
    counts = counts[rng.permutation(counts.shape[0])[:n]]
    kernels = _count_table._kernels
    # one entry a feature: n features, n entries
    features = np.arange(n, dtype=np.int64)
    lengths = np.ones(n, dtype=np.int32)
    results = []
    for alphas in (np.array([alpha]), np.full(n, alpha)):  # the table, logs
        for refresh in (True, False):
            weights = np.full(n, np.nan)
            if refresh:
                _count_table._update_kernels.refresh_multinomial(features, features, lengths, counts, weights,
                                            alphas, 1)
            else:
                marks = np.full((n + 7) // 8, 255, dtype=np.uint8)
                _count_table._update_kernels.flush_multinomial(features, np.zeros(n, dtype=np.int32),
                                          features, counts, weights, marks, alphas, 1)
                # the flush clears the marks of the entries it computed
                assert not np.unpackbits(marks, bitorder="little")[:n].any()
            results.append(weights)
    for weights in results[:3]:
        assert_array_equal(weights.view(np.int64), results[3].view(np.int64))
    assert_allclose(results[0], np.log(counts + alpha) - np.log(alpha), rtol=1e-15)


@pytest.mark.parametrize("alpha", [1.0, 0.37, 0.1, 1e-10, 5.0])
@pytest.mark.parametrize("n", [5, 126])
def test_small_complement_logs_are_the_logs(alpha, n):
    # ComplementNB's log(F_j + a) and log(F_j + a - N_cj) of a whole F_j (or
    # F_j - N_cj) below 64 come from a table of log(m + a) when a refresh has 64
    # features or more (n=126): only where m + a rounds to scikit-learn's
    # (F_j + a) - N_cj, so the same bits as the logs (a per-feature alpha, or
    # n=5, computes every log)
    import math
    rng = np.random.default_rng(12)
    kernels = _count_table._kernels
    # two entries a feature: whole, fractional, large and boundary counts
    counts = np.concatenate([rng.integers(0, 40, 2 * n).astype(np.float64),
                             rng.random(2 * n) * 70, [63.0, 1.0, 64.0, 0.5, 1e6, 3.0]])
    counts = counts[rng.permutation(counts.shape[0])[:2 * n]]
    features = np.arange(n, dtype=np.int64)
    starts = 2 * features
    lengths = np.full(n, 2, dtype=np.int32)
    results = []
    for alphas in (np.array([alpha]), np.full(n, alpha)):
        weights, totals, base = np.full(2 * n, np.nan), np.zeros(n), np.zeros(n)
        _count_table._update_kernels.refresh_complement(features, starts, lengths, counts, weights, totals,
                                   base, alphas, 1)
        results.append((weights, totals, base))
    for got, expected in zip(results[0], results[1]):
        assert_array_equal(got.view(np.int64), expected.view(np.int64))
    weights, totals, base = results[0]
    for j in range(n):
        total = (0.0 + counts[2 * j]) + counts[2 * j + 1]
        assert totals[j] == total
        assert base[j] == math.log(total + alpha)
        for e in (2 * j, 2 * j + 1):
            assert weights[e] == math.log((total + alpha) - counts[e]) - base[j]


@pytest.mark.parametrize("name, params", MODELS)
def test_one_document_predict_is_the_general_path(text, monkeypatch, name, params):
    # predict of a one-row CSR matrix on the table takes a shorter path to the
    # same kernel: the same label as the general path, for every row, dtype and
    # index dtype; inputs the kernel does not take go down the general path
    from fastnb._base import MODE_ARGMAX
    X, y = text
    model = getattr(fastnb, name)(**params).fit(X, y)
    assert _table_of(model) is not None
    taken = []
    one_document = type(model)._one_document_labels

    def spy(self, rows):
        labels = one_document(self, rows)
        taken.append(labels is not None)
        return labels

    monkeypatch.setattr(type(model), "_one_document_labels", spy)
    for value_dtype, index_dtype in ((np.float64, np.int32), (np.float32, np.int64)):
        Xc = X.astype(value_dtype)
        Xc.indices = Xc.indices.astype(index_dtype)
        Xc.indptr = Xc.indptr.astype(index_dtype)
        for i in range(0, X.shape[0], 7):
            row = Xc[i]
            general = model.classes_[model._predict_into(row, MODE_ARGMAX)]
            got = model.predict(row)
            assert got.shape == (1,) and got.dtype == model.classes_.dtype
            assert_array_equal(got, general)
            assert taken[-1]
    # NaN (missing) is scored by the general path
    row = X[3].copy()
    row.data[0] = np.nan
    assert_array_equal(model.predict(row), model.predict(sp.vstack([row, row]))[:1])
    assert not taken[-1]
    # integer values, and a row the model cannot take, the same as before
    assert_array_equal(model.predict(X[5].astype(np.int64)), model.predict(X[5]))
    assert not taken[-2]
    with pytest.raises(ValueError, match="features"):
        model.predict(sp.csr_matrix((1, X.shape[1] + 1)))
    bad = X[6].copy()
    bad.indices[0] = X.shape[1] + 5
    with pytest.raises(ValueError):
        model.predict(bad)


@pytest.mark.parametrize("name, params", MODELS)
def test_one_document_predict_follows_the_model(text, name, params):
    # The 1-document path keeps what it needs (predictor, label views) in the
    # table's predict state: a partial_fit, a new threshold and a copy of the
    # model are seen at the next call, and each call returns an array of its own.
    import copy

    from fastnb._base import MODE_ARGMAX
    X, y = text
    model = getattr(fastnb, name)(**params).fit(X, y)
    row = X[11]

    def general(m):
        return m.classes_[m._predict_into(row, MODE_ARGMAX)]

    classes = model.classes_.copy()
    first = model.predict(row)
    assert_array_equal(first, general(model))
    first[0] = -1  # the caller's array: the model's labels are not changed
    assert_array_equal(model.classes_, classes)
    assert_array_equal(model.predict(row), general(model))
    # taught the row as another class, often enough to change its label
    other = model.classes_[(list(model.classes_).index(general(model)[0]) + 1)
                           % model.classes_.shape[0]]
    twin = copy.copy(model)  # shares the table until one of them is fitted
    before = twin.predict(row)
    model.partial_fit(sp.vstack([row] * 200), np.full(200, other))
    assert_array_equal(model.predict(row), general(model))
    assert model.predict(row)[0] == other
    # empty documents of one class: new class counts (priors and totals), the
    # same entries; a document of one feature never seen then goes by them
    # (not ComplementNB's, whose weights are the feature counts alone)
    unseen = np.setdiff1d(np.flatnonzero(X.getnnz(axis=0) == 0), row.indices)[0]
    lone = sp.csr_matrix(([2.0], ([0], [unseen])), shape=(1, X.shape[1]))
    last = model.classes_[-1] if other != model.classes_[-1] else model.classes_[0]
    assert model.predict(lone)[0] != last
    model.predict(X[:40])  # the batch path refreshes every weight first
    model.partial_fit(sp.csr_matrix((20_000, X.shape[1])), np.full(20_000, last))
    assert_array_equal(model.predict(lone),
                       model.classes_[model._predict_into(lone, MODE_ARGMAX)])
    if name != "ComplementNB" and params.get("fit_prior", True):
        assert model.predict(lone)[0] == last
    if name == "BernoulliNB":
        model.set_params(binarize=1e9)  # every value thresholded to 0
        assert_array_equal(model.predict(row), general(model))
        assert_array_equal(model.predict(row), model.predict(sp.csr_matrix(row.shape)))
    assert twin.predict(row)[0] in (before[0], other)
    assert_array_equal(twin.predict(row), general(twin))


@pytest.mark.parametrize("name, params", MODELS[::2])
def test_one_document_kernel_reads_only_what_it_takes(text, name, params):
    # TablePredictor.predict_row reads the row's arrays through the buffer
    # protocol: native float64/float32 values, int32/int64 indices, 1-D and
    # contiguous, two row pointers within the arrays. Anything else is -1 (the
    # general path), never a crash or a wrong label
    X, y = text
    model = getattr(fastnb, name)(**params).fit(X, y)
    predictor = model._table_predictor(model._table_predict_state())
    row = X[4]
    data, indices, indptr = row.data, row.indices, row.indptr
    label = predictor.predict_row(data, indices, indptr, False, 0.0)
    assert model.classes_[label] == model.predict(row)[0]
    for values in (data.astype(np.float32), data):
        for index_dtype in (np.int32, np.int64):
            assert predictor.predict_row(values, indices.astype(index_dtype),
                                         indptr.astype(index_dtype), False, 0.0) == label
    wide = np.repeat(data, 2)
    rejected = [
        (data.astype(np.float16), indices, indptr),
        (data.astype(data.dtype.newbyteorder()), indices, indptr),
        (wide[::2], indices, indptr),                  # not contiguous
        (data, indices.astype(np.uint32), indptr.astype(np.uint32)),
        (data, indices, indptr.astype(np.uint8)),
        (data.reshape(1, -1), indices, indptr),        # 2-D
        (data, indices, np.array([0, 1, 2], dtype=indptr.dtype)),
        (data, indices, np.array([1, 0], dtype=indptr.dtype)),
        (data, indices, np.array([-1, 2], dtype=indptr.dtype)),
        (data[:-1], indices, indptr),                  # the row past the values
        (data, indices[:-1], indptr),                  # or past the indices
        (list(data), indices, indptr),                 # not a buffer
        (data, None, indptr),
    ]
    for args in rejected:
        assert predictor.predict_row(*args, False, 0.0) == -1
    bad = indices.copy()
    bad[0] = X.shape[1]
    assert predictor.predict_row(data, bad, indptr, False, 0.0) == -1
    missing = data.copy()
    missing[0] = np.nan
    assert predictor.predict_row(missing, indices, indptr, False, 0.0) == -1


@pytest.mark.parametrize("name, params", MODELS)
def test_one_document_rows_not_in_canonical_format(text, name, params):
    # With a threshold, a row's repeated index is thresholded after its values
    # are summed: the kernel sends a row whose indices do not increase strictly
    # to the general path (which makes the row canonical), for both index dtypes.
    # Without one, the sum is the same in any order, and the kernel scores it.
    X, y = text
    model = getattr(fastnb, name)(**params).fit(X, y)
    predictor = model._table_predictor(model._table_predict_state())
    binarize = model._threshold() is not None
    threshold = float(model._threshold() or 0.0)
    for i in range(0, 40, 3):
        row = X[i]
        if row.nnz < 3:
            continue
        # a duplicate of the first index, values split so that each half is at or
        # below the threshold while their sum is above it (1.5: 1.0 + 1.0)
        values = np.concatenate([[1.0, 1.0], row.data[1:]])
        indices = np.concatenate([row.indices[:1], row.indices]).astype(row.indices.dtype)
        duplicated = sp.csr_matrix((values, indices, [0, values.shape[0]]), shape=row.shape)
        shuffled = row.copy()
        order = np.arange(row.nnz)[::-1]
        shuffled.data, shuffled.indices = row.data[order], row.indices[order]
        shuffled.has_sorted_indices = False
        for odd in (duplicated, shuffled):
            expected = model.predict(sp.vstack([odd, odd]).tocsr())[:1]
            canonical = odd.copy()
            canonical.sum_duplicates()
            assert_array_equal(model.predict(canonical), expected)
            assert_array_equal(model.predict(odd), expected)
            for index_dtype in (np.int32, np.int64):
                label = predictor.predict_row(odd.data, odd.indices.astype(index_dtype),
                                              odd.indptr.astype(index_dtype), binarize,
                                              threshold)
                if binarize:
                    assert label == -1
                else:
                    assert model.classes_[label] == expected[0]


@pytest.mark.parametrize("name, params", MODELS[::2])
def test_predict_state_is_derived_data(text, name, params):
    # The table keeps its model's predict terms and predictors between calls; a
    # predict leaves the estimator's attributes as they were, and the state is
    # not pickled or copied with the model (it holds Cython objects, and is
    # computed again from the counts)
    import copy
    import pickle
    X, y = text
    model = getattr(fastnb, name)(**params).fit(X, y)
    model.partial_fit(X[:50], y[:50])
    model.predict(X[:1])  # computes the weights the batch made stale
    state = dict(model.__dict__)
    fresh = pickle.dumps(model)
    expected = model.predict(X)
    one = model.predict(X[7])
    assert _table_of(model).predict_state is not None
    assert model.__dict__.keys() == state.keys()
    assert all(model.__dict__[key] is state[key] for key in state)
    assert pickle.dumps(model) == fresh
    _table_of(model).predict_state = None
    assert pickle.dumps(model) == fresh
    for twin in (pickle.loads(fresh), copy.deepcopy(model)):
        assert _table_of(twin).predict_state is None
        assert_array_equal(twin.predict(X), expected)
        assert_array_equal(twin.predict(X[7]), one)
    # a new state after a change: a batch, or new priors the terms were made from
    model.partial_fit(X[50:80], y[50:80])
    reference = getattr(fastnb, name)(**params).fit(X, y)
    reference.partial_fit(X[:80], y[:80])
    assert_array_equal(model.predict(X), reference.predict(X))
    assert_array_equal(model.predict(X[7]), reference.predict(X[7]))
    model.class_log_prior_ = model.class_log_prior_ + np.linspace(0, 50, len(model.classes_))
    reference.class_log_prior_ = model.class_log_prior_.copy()
    assert_array_equal(model.predict(X), reference.predict(X))
    # two shallow copies that share a table each get their own terms
    twin = copy.copy(model)
    twin.class_log_prior_ = np.zeros_like(model.class_log_prior_)
    other = copy.copy(reference)
    other.class_log_prior_ = np.zeros_like(model.class_log_prior_)
    for _ in range(2):
        assert_array_equal(model.predict(X), reference.predict(X))
        assert_array_equal(twin.predict(X), other.predict(X))
        assert_array_equal(twin.predict(X[7]), other.predict(X[7]))


def test_one_document_predict_of_many_classes():
    # past ROW_STACK_CLASSES (256) classes the 1-document kernel takes its scores
    # from the heap: the same labels as the general path
    from fastnb._base import MODE_ARGMAX
    rng = np.random.default_rng(8)
    n, d, k = 900, 4096, 300
    X = sp.random(n, d, density=0.01, format="csr", random_state=rng,
                  data_rvs=lambda size: rng.integers(1, 4, size).astype(float))
    y = np.arange(n) % k
    with _count_table_thresholds(0, 0):
        model = fastnb.MultinomialNB(alpha=0.5).fit(X, y)
    assert _table_of(model) is not None
    predictor = model._table_predictor(model._table_predict_state())
    for i in range(0, n, 37):
        row = X[i]
        label = predictor.predict_row(row.data, row.indices, row.indptr, False, 0.0)
        assert label == model._predict_into(row, MODE_ARGMAX)[0]
        assert_array_equal(model.predict(row), model.classes_[[label]])


def test_build_takes_shapes_whose_record_keys_fit():
    # a record's key is class << part_shift | offset, in 31 bits; a shape past that
    # (millions of classes) is added row by row instead
    assert _count_table.can_build(35, 2**20)
    assert _count_table.can_build(2000, 70_000)
    assert not _count_table.can_build(2**27, 2**20)
    shift = _count_table._partition_shift(2**20, 2**24)
    assert _count_table.can_build(2**24, 2**20) == ((2**24 << shift) < 2**31)


@pytest.mark.parametrize("walk", [True, False])
@pytest.mark.parametrize("name, params", [MODELS[0], MODELS[3], MODELS[5]])
def test_table_predict_gives_the_first_of_tied_classes(name, params, walk, monkeypatch):
    """Classes 0-2 are fitted on one set of documents and classes 3-6 on another,
    each on the same documents: their scores tie exactly, and predict gives the
    first class of the largest score, as scikit-learn's arg-max does (the table
    walk, the feature slots and the 1-document path; 7 classes put the tied 3-6
    in all four of the arg-max's interleaved running maxima)."""
    rng = np.random.default_rng(2)
    d = 5_000
    first = sp.random(40, d, density=0.01, format="csr", random_state=rng,
                      data_rvs=lambda size: rng.integers(1, 4, size).astype(np.float64))
    second = sp.random(40, d, density=0.01, format="csr", random_state=rng,
                       data_rvs=lambda size: rng.integers(1, 4, size).astype(np.float64))
    X = sp.vstack([first] * 3 + [second] * 4, format="csr")
    y = np.repeat(np.arange(7), 40)
    with _count_table_thresholds(0, 0):
        ours = getattr(fastnb, name)(**params).fit(X, y)
        assert _table_of(ours) is not None
    theirs = getattr(sk, name)(**params).fit(X, y)
    batch = sp.vstack([first, second, sp.csr_matrix((3, d))], format="csr")
    monkeypatch.setattr(_discrete._table_predict, "TABLE_DENSE_PREDICT_NNZ_RATIO",
                        0 if walk else 10**9)
    labels = ours.predict(batch)
    assert ("table_slots" in _table_of(ours).predict_state) == (not walk)
    assert_array_equal(labels, theirs.predict(batch))
    assert_array_equal(labels, np.argmax(ours.predict_joint_log_proba(batch), axis=1))
    assert set(labels[:40].tolist()) <= {0, 3} and set(labels[40:].tolist()) <= {0, 3}
    assert 3 in labels.tolist()
    for i in (0, 40, 41, 80):
        assert_array_equal(ours.predict(batch[i]), labels[i:i + 1])


@pytest.mark.parametrize("n_classes", [1, 3, 8, 20, 35, 48, 53])
@pytest.mark.parametrize("name, params", [MODELS[0], MODELS[3], MODELS[5]])
def test_slot_predict_matches_the_table_walk(name, params, n_classes, monkeypatch):
    """Large batches score rows over feature slots (``fill_slots``): a feature
    with up to 4 classes inline, more in a dense row, summed in registers (up to
    48 classes, padded to 8, 16, ..., 48; a model of more walks the table). Its
    scores are the table walk's to rounding, whatever the thread count, the
    dtypes, or where a row's features fall; a bad index is still an error."""
    rng = np.random.default_rng(n_classes)
    n, d = 600, 3000
    # features 0-59 get 1..8 classes each (both sides of the inline limit),
    # the rest are rare; the batch also holds features never fitted
    rows, cols = [], []
    for i in range(n):
        width = rng.integers(1, 12)
        rows += [i] * width
        cols += list(rng.choice(d, size=width, replace=False))
    y = np.arange(n) % n_classes
    for j in range(60):
        classes = rng.choice(n_classes, size=min(n_classes, 1 + j % 8), replace=False)
        for c in classes:
            rows.append(int(rng.choice(np.flatnonzero(y[:400] == c))))
            cols.append(j)
    X = sp.csr_matrix((rng.integers(1, 4, size=len(cols)).astype(np.float64),
                       (rows, cols)), shape=(n, d))
    X.sum_duplicates()
    with _count_table_thresholds(0, 0):
        model = getattr(fastnb, name)(**params).fit(X[:400], y[:400])
        assert _table_of(model) is not None
    lengths = model._table.feat_len
    assert {1, 4, 5}.issubset(set(lengths.tolist())) or n_classes < 5
    batch = X[400:]
    monkeypatch.setattr(_discrete._table_predict, "TABLE_DENSE_PREDICT_NNZ_RATIO", 0)
    walked = model.predict_log_proba(batch)
    walked_labels = model.predict(batch)
    assert "table_slots" not in _table_of(model).predict_state
    monkeypatch.setattr(_discrete._table_predict, "TABLE_DENSE_PREDICT_NNZ_RATIO", 10**9)
    for values in (np.float64, np.float32):
        for index in (np.int32, np.int64):
            Xb = batch.astype(values)
            Xb.indices = Xb.indices.astype(index)
            Xb.indptr = Xb.indptr.astype(index)
            by_thread = []
            for n_threads in (1, 2):
                model.set_params(n_threads=n_threads)
                by_thread.append(model.predict_log_proba(Xb))
                assert_array_equal(model.predict(Xb), walked_labels)
            assert ("table_slots" in _table_of(model).predict_state) == (n_classes <= 48)
            assert_array_equal(by_thread[0], by_thread[1])
            assert_allclose(by_thread[0], walked, rtol=1e-12, atol=1e-12)
    bad = batch.copy()
    bad.indices[3] = d + 5
    with pytest.raises(ValueError):
        model.predict(bad)
