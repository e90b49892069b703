"""The sparse count table's predict paths: the 1-document path, the predict
state, tied classes and the feature slots against the table walk."""

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal
from sklearn import naive_bayes as sk

import fastnb
from fastnb import _count_table, _discrete
from _count_tables import MODELS, _count_table_thresholds, _table_of
from _registry import hashed_text


@pytest.fixture
def text():
    return hashed_text(400, seed=3)


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
