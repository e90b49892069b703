"""Exponential forgetting (``half_life``) of every model.

The oracle: a model that forgets equals scikit-learn's ``fit`` of all the rows
so far with ``sample_weight = w * 2**(-age / half_life)`` (GaussianNB: ``theta_``
and ``var_ - epsilon_``), and any split of the stream into ``partial_fit``
batches gives the model ``fit`` gives.
"""

import math

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal

import fastnb
from fastnb import (BernoulliNB, CategoricalNB, ColumnwiseNB, ComplementNB, GaussianNB,
                    MultinomialNB)

sk_nb = pytest.importorskip("sklearn.naive_bayes")

CLASSES = np.array([0, 1, 2])
MODELS = {
    "gaussian": (GaussianNB, sk_nb.GaussianNB),
    "bernoulli": (BernoulliNB, sk_nb.BernoulliNB),
    "multinomial": (MultinomialNB, sk_nb.MultinomialNB),
    "complement": (ComplementNB, sk_nb.ComplementNB),
    "categorical": (CategoricalNB, sk_nb.CategoricalNB),
}
# the fitted attributes compared with scikit-learn's
ATTRIBUTES = {
    "gaussian": ("class_count_", "class_prior_", "theta_"),
    "bernoulli": ("class_count_", "feature_count_", "feature_log_prob_",
                  "class_log_prior_"),
    "multinomial": ("class_count_", "feature_count_", "feature_log_prob_",
                    "class_log_prior_"),
    "complement": ("class_count_", "feature_count_", "feature_all_",
                   "feature_log_prob_"),
    "categorical": ("class_count_", "class_log_prior_"),
}


def make_data(kind, n, seed, d=6):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    if kind == "gaussian":
        X = rng.normal(size=(n, d)) + y[:, None]
    elif kind == "bernoulli":
        X = (rng.random((n, d)) < 0.2 + 0.2 * y[:, None]).astype(np.float64)
    elif kind == "categorical":
        X = rng.integers(0, 4, (n, d))
    else:
        X = rng.poisson(1.0 + y[:, None], (n, d)).astype(np.float64)
    return X, y


def decayed(weights, n, half_life):
    ages = np.arange(n - 1, -1, -1, dtype=np.float64)
    return weights * 2.0 ** (-ages / half_life)


def stream(model, X, y, cuts, sample_weight=None):
    bounds = [0, *sorted(set(cuts)), X.shape[0]]
    for a, b in zip(bounds[:-1], bounds[1:]):
        if b > a:
            model.partial_fit(X[a:b], y[a:b], classes=CLASSES,
                              sample_weight=None if sample_weight is None
                              else sample_weight[a:b])
    return model


def assert_same_model(kind, a, b, rtol, atol=0.0):
    for name in ATTRIBUTES[kind]:
        assert_allclose(getattr(a, name), getattr(b, name), rtol=rtol, atol=atol,
                        err_msg=name)
    if kind == "gaussian":
        assert_allclose(a.var_ - a.epsilon_, b.var_ - b.epsilon_, rtol=rtol, atol=atol)
    if kind == "categorical":
        for mine, theirs in zip(a.category_count_, b.category_count_):
            assert_allclose(mine, theirs, rtol=rtol, atol=atol)
        for mine, theirs in zip(a.feature_log_prob_, b.feature_log_prob_):
            assert_allclose(mine, theirs, rtol=rtol, atol=atol)


@settings(max_examples=15, deadline=None)
@given(kind=st.sampled_from(sorted(MODELS)),
       n=st.integers(5, 120),
       half_life=st.sampled_from([0.5, 7.0, 40.0, 1e4]),
       cuts=st.lists(st.integers(1, 119), max_size=6),
       weighted=st.booleans(),
       seed=st.integers(0, 2**16))
def test_stream_equals_sklearn_fit_of_decayed_weights(kind, n, half_life, cuts,
                                                      weighted, seed):
    ours, theirs = MODELS[kind]
    X, y = make_data(kind, n, seed)
    rng = np.random.default_rng(seed + 1)
    w = rng.uniform(0.1, 3.0, n) if weighted else np.ones(n)
    y[:3] = CLASSES  # every class has a row (scikit-learn's class_count_ > 0)
    model = stream(ours(half_life=half_life), X, y, [c for c in cuts if c < n],
                   w if weighted else None)
    reference = theirs().fit(X, y, sample_weight=decayed(w, n, half_life))
    assert_same_model(kind, model, reference, rtol=1e-10)
    assert_array_equal(model.predict(X), reference.predict(X))
    # and the same model as one fit of the stream
    whole = ours(half_life=half_life).fit(X, y, sample_weight=w if weighted else None)
    assert_same_model(kind, model, whole, rtol=1e-12)


@pytest.mark.parametrize("kind", ["bernoulli", "multinomial", "complement"])
def test_csr_stream_equals_dense(kind):
    ours, theirs = MODELS[kind]
    X, y = make_data(kind, 300, 3, d=40)
    X[:, 5:] = 0
    model = stream(ours(half_life=25.0), sp.csr_matrix(X), y, [1, 7, 100, 101, 250])
    reference = theirs().fit(X, y, sample_weight=decayed(np.ones(300), 300, 25.0))
    assert_same_model(kind, model, reference, rtol=1e-10)


def test_sparse_table_sized_model_forgets_exactly():
    """At hashed-text width (the size that picks the sparse count table without
    forgetting) the decayed counts are still exact."""
    rng = np.random.default_rng(0)
    X = sp.random(200, 2**16, density=0.001, format="csr", random_state=1,
                  data_rvs=lambda k: rng.integers(1, 4, k).astype(np.float64))
    y = rng.integers(0, 3, 200)
    model = stream(MultinomialNB(half_life=30.0), X, y, [50, 51, 120])
    reference = sk_nb.MultinomialNB().fit(
        X, y, sample_weight=decayed(np.ones(200), 200, 30.0))
    assert_allclose(model.feature_count_, reference.feature_count_, rtol=1e-10)
    assert_allclose(model.feature_log_prob_, reference.feature_log_prob_, rtol=1e-10)


@pytest.mark.parametrize("kind", ["gaussian", "bernoulli", "multinomial"])
def test_missing_values_split_invariant(kind):
    ours, _ = MODELS[kind]
    X, y = make_data(kind, 150, 5)
    X[np.random.default_rng(2).random(X.shape) < 0.1] = np.nan
    whole = ours(half_life=20.0).fit(X, y)
    model = stream(ours(half_life=20.0), X, y, [1, 2, 60, 149])
    assert_same_model(kind, model, whole, rtol=1e-12)


@pytest.mark.parametrize("kind", sorted(MODELS))
@pytest.mark.parametrize("none", [None, math.inf])
def test_infinite_half_life_is_no_forgetting_bit_for_bit(kind, none):
    ours, _ = MODELS[kind]
    X, y = make_data(kind, 200, 11)
    plain = stream(ours(), X, y, [50, 51, 120])
    same = stream(ours(half_life=none), X, y, [50, 51, 120])
    for name in ATTRIBUTES[kind]:
        assert_array_equal(getattr(plain, name), getattr(same, name))
    assert_array_equal(plain.predict_log_proba(X), same.predict_log_proba(X))


def mixed_columnwise(half_life):
    """A ColumnwiseNB of three kinds of sub-model over mixed_data's columns."""
    return ColumnwiseNB([("g", GaussianNB(), [0, 1]), ("c", CategoricalNB(), [2]),
                         ("m", MultinomialNB(), [3, 4])], half_life=half_life)


def mixed_data(n, seed):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    X = np.column_stack([rng.normal(size=n) + y, rng.normal(size=n),
                         rng.integers(0, 4, n), rng.poisson(1 + y), rng.poisson(2, n)])
    return X.astype(np.float64), y


# (data of order one: a class mean that cancels to ~1e-5 differs between two
# summation orders by an ulp of the data, 2e-16, a relative 4e-12 of itself;
# found by this test, GaussianNB, n=106, one cut, seed 108)
ATOL = 1e-13


@settings(max_examples=25, deadline=None)
@given(kind=st.sampled_from(sorted(MODELS) + ["columnwise"]),
       n=st.integers(8, 150),
       half_life=st.sampled_from([0.7, 9.0, 60.0]),
       cuts=st.lists(st.integers(1, 149), max_size=5),
       weighted=st.booleans(), nan=st.booleans(), sparse=st.booleans(),
       seed=st.integers(0, 2**16))
def test_any_split_of_the_stream_is_one_fit(kind, n, half_life, cuts, weighted, nan,
                                            sparse, seed):
    """Batch-split invariance under forgetting, all six models: any sequence of
    partial_fit calls over the stream (row order kept) is its one fit, to
    1e-12, with weights, NaN (missing values) and CSR input for the count
    models."""
    if kind == "columnwise":
        X, y = mixed_data(n, seed)
        make = mixed_columnwise
    else:
        X, y = make_data(kind, n, seed)
        X = X.astype(np.float64)
        make = lambda h: MODELS[kind][0](half_life=h)  # noqa: E731
    rng = np.random.default_rng(seed + 2)
    y[:3] = CLASSES
    if nan:
        X[rng.random(X.shape) < 0.1] = np.nan
    if sparse and kind in ("bernoulli", "multinomial", "complement"):
        X = sp.csr_matrix(X)
    w = rng.uniform(0.1, 3.0, n) if weighted else None
    whole = make(half_life).fit(X, y, sample_weight=w)
    model = stream(make(half_life), X, y, [c for c in cuts if c < n], w)
    assert_allclose(model.class_count_, whole.class_count_, rtol=1e-12, atol=0)
    if kind == "columnwise":
        for name in ("g", "c", "m"):
            assert_same_model({"g": "gaussian", "c": "categorical", "m": "multinomial"}[name],
                              model.named_estimators_[name], whole.named_estimators_[name],
                              rtol=1e-12, atol=ATOL)
    else:
        assert_same_model(kind, model, whole, rtol=1e-12, atol=ATOL)
    assert_allclose(model.predict_joint_log_proba(X), whole.predict_joint_log_proba(X),
                    rtol=1e-10)


def test_columnwise_forgets_as_its_sub_models():
    rng = np.random.default_rng(4)
    X = np.column_stack([rng.normal(size=200), rng.normal(size=200)])
    y = rng.integers(0, 3, 200)
    model = ColumnwiseNB([("g", GaussianNB(), [0, 1])], half_life=15.0)
    stream(model, X, y, [10, 11, 150])
    alone = GaussianNB(half_life=15.0).fit(X, y)
    sub = model.named_estimators_["g"]
    assert sub.half_life == 15.0
    assert_same_model("gaussian", sub, alone, rtol=1e-12)
    assert_allclose(model.class_count_, alone.class_count_, rtol=1e-12)
    assert_allclose(model.predict_log_proba(X), alone.predict_log_proba(X), rtol=1e-9)


@pytest.mark.parametrize("value", [0, -1.0, math.nan, -math.inf])
def test_bad_half_life_is_a_value_error(value):
    X, y = make_data("gaussian", 10, 0)
    for ours, _ in MODELS.values():
        with pytest.raises(ValueError, match="'half_life' parameter"):
            ours(half_life=value).fit(*make_data("multinomial", 10, 0))
    with pytest.raises(ValueError, match="'half_life' parameter"):
        ColumnwiseNB(half_life=value).fit(X, y)


def test_half_life_of_wrong_type_is_a_type_error():
    with pytest.raises(TypeError, match="'half_life' parameter"):
        MultinomialNB(half_life="2000").fit(*make_data("multinomial", 10, 0))


@pytest.mark.parametrize("kind", sorted(MODELS))
def test_save_load_keeps_forgetting(kind, tmp_path):
    ours, _ = MODELS[kind]
    X, y = make_data(kind, 160, 8)
    model = stream(ours(half_life=12.0), X[:100], y[:100], [30])
    model.save(tmp_path / "m.npz")
    loaded = fastnb.load(tmp_path / "m.npz")
    assert loaded.half_life == 12.0
    stream(loaded, X[100:], y[100:], [20])
    whole = ours(half_life=12.0).fit(X, y)
    assert_same_model(kind, loaded, whole, rtol=1e-12)


@pytest.mark.parametrize("kind", sorted(MODELS))
def test_failed_partial_fit_leaves_the_model(kind):
    ours, _ = MODELS[kind]
    X, y = make_data(kind, 100, 9)
    model = stream(ours(half_life=10.0), X, y, [40])
    before = {name: np.copy(getattr(model, name)) for name in ATTRIBUTES[kind]}
    with pytest.raises(ValueError):
        model.partial_fit(X[:5, :3], y[:5])  # wrong number of features
    with pytest.raises(ValueError):
        model.partial_fit(X[:5], [0, 1, 2, 0, 7])  # a label outside classes_
    with pytest.raises(ValueError):
        model.partial_fit(X[:5], y[:5], sample_weight=[1, 1, -1, 1, 1])
    for name, value in before.items():
        assert_array_equal(getattr(model, name), value)
    # and the stream goes on as if the failed calls never happened
    stream(model, X[:20], y[:20], [])
    whole = ours(half_life=10.0).fit(np.vstack([X, X[:20]]), np.concatenate([y, y[:20]]))
    assert_same_model(kind, model, whole, rtol=1e-12)


@pytest.mark.parametrize("kind", sorted(MODELS))
def test_merge_adds_streams_aligned_at_their_ends(kind):
    """fastnb.merge of two forgetting models: each row weighted by its age in its
    own stream, both streams ending now."""
    ours, theirs = MODELS[kind]
    X, y = make_data(kind, 150, 10)
    y[:3] = y[90:93] = CLASSES
    a = stream(ours(half_life=20.0), X[:90], y[:90], [40])
    b = stream(ours(half_life=20.0), X[90:], y[90:], [7])
    merged = fastnb.merge(a, b)
    weights = np.concatenate([decayed(np.ones(90), 90, 20.0),
                              decayed(np.ones(60), 60, 20.0)])
    reference = theirs().fit(X, y, sample_weight=weights)
    assert_same_model(kind, merged, reference, rtol=1e-10)


def test_a_model_from_before_half_life_has_its_default(tmp_path):
    """Files and pickles written before the parameter existed load as models
    that do not forget (files: tests/test_categorical_compat.py)."""
    X, y = make_data("gaussian", 50, 1)
    state = GaussianNB().fit(X, y).__getstate__()
    del state["half_life"]
    old = GaussianNB.__new__(GaussianNB)
    old.__setstate__(state)
    assert old.half_life is None
    old.partial_fit(X, y)
    members = tmp_path / "old.npz"
    old.save(members)
    assert fastnb.load(members).half_life is None


def test_rows_too_old_to_count_are_not_an_underflow():
    """A feature constant over the rows that still count is a zero variance,
    not values too small, even where rows forgotten to weight 0 differ."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(3000, 2))
    X[1000:, 0] = 5.0
    y = rng.integers(0, 2, 3000)
    model = GaussianNB(half_life=1.0).fit(X, y)
    assert_allclose(model.theta_[:, 0], 5.0)
    assert np.all(model.var_[:, 0] - model.epsilon_ <= 1e-300)


def test_a_denormal_half_life_forgets_all_but_the_last_row():
    X, y = make_data("gaussian", 20, 3)
    model = GaussianNB(half_life=5e-324).partial_fit(X, y, classes=CLASSES)
    model.partial_fit(X, y)
    assert model.class_count_.sum() == 1.0
    assert np.all(np.isfinite(model.predict_proba(X)))


@pytest.mark.parametrize("kind", sorted(MODELS))
def test_forgetting_with_grown_classes_equals_classes_up_front(kind):
    ours, _ = MODELS[kind]
    X, y = make_data(kind, 200, 12)
    y = np.where(np.arange(200) < 100, y % 2, y)  # class 2 first seen at row 100
    grown = ours(grow_classes=True, half_life=10.0)
    for start in range(0, 200, 30):
        grown.partial_fit(X[start:start + 30], y[start:start + 30])
    whole = ours(half_life=10.0).fit(X, y)
    assert_same_model(kind, grown, whole, rtol=1e-12)


def test_a_half_life_past_float64_is_refused():
    # the model-file fuzzer's find: a file whose header said half_life=10**400
    # loaded, then partial_fit raised OverflowError
    import numpy as np
    import pytest

    import fastnb
    with pytest.raises(ValueError, match="half_life"):
        fastnb.MultinomialNB(half_life=10**400).fit(np.ones((2, 2)), [0, 1])


@pytest.mark.parametrize("as_strings", [False, True])
@pytest.mark.parametrize("weighted", [False, True])
def test_categorical_forgets_in_place(as_strings, weighted):
    """CategoricalNB's batches that bring no new category decay and add the
    counts in place (integer codes: one kernel pass, and unweighted ones after
    the first the whole batch in ``SmallBatches.add``; value features: the
    batch's columns), keeping the model's tables; a new category takes the
    general path. Every path is scikit-learn's fit of the decayed weights."""
    rng = np.random.default_rng(21)
    X, y = rng.integers(0, 4, (400, 5)), rng.integers(0, 3, 400)
    X[:4] = np.arange(4)[:, None]           # every category in the first batch
    X[300:, 0] = np.where(X[300:, 0] == 0, 4, X[300:, 0])   # a new one at 300
    w = rng.uniform(0.2, 2.0, 400) if weighted else np.ones(400)
    data = X.astype(str).astype(object) if as_strings else X
    model = CategoricalNB(half_life=60.0)
    bounds = [0, 100, 101, 180, 300, 330, 400]
    for a, b in zip(bounds[:-1], bounds[1:]):
        counts = model.__dict__.get("_count_table")
        state = None if counts is None else counts.small_batches
        model.partial_fit(data[a:b], y[a:b], classes=CLASSES,
                          sample_weight=w[a:b] if weighted else None)
        if a and b <= 300:
            assert model._count_table is counts, "the counts were rebuilt"
            # (the state the kernel path made at the first later batch, used
            # by the next ones)
            # (a weighted batch makes none: only an unweighted one can use it)
            assert (counts.small_batches is not None) == (not (weighted or as_strings))
            assert (state is not None and counts.small_batches is state) == (
                not (weighted or as_strings) and a > 100)
        reference = sk_nb.CategoricalNB().fit(
            X[:b], y[:b], sample_weight=decayed(w[:b], b, 60.0))
        assert_allclose(model.class_count_, reference.class_count_, rtol=1e-10)
        assert_allclose(model.predict_joint_log_proba(data[:b]),
                        reference.predict_joint_log_proba(X[:b]), rtol=1e-10)
    for mine, theirs in zip(model.category_count_, reference.category_count_):
        assert_allclose(mine, theirs, rtol=1e-10, atol=0)
    for mine, theirs in zip(model.feature_log_prob_, reference.feature_log_prob_):
        assert_allclose(mine, theirs, rtol=1e-10, atol=0)


# -- MultinomialNB on the sparse count table: the counts in a frame ----------------

@pytest.fixture
def small_tables(monkeypatch):
    """Every CSR fit of the count models in the sparse count table, whatever its
    width (the shipped thresholds pick it from ~2**19 features at k=3), so that
    these tests run at a width scikit-learn's dense oracle takes quickly."""
    from fastnb import _count_table

    monkeypatch.setattr(_count_table, "TABLE_MIN_CELLS", 0)
    monkeypatch.setattr(_count_table, "TABLE_MIN_CELLS_PER_NONZERO", 0)


def hashed_counts(n, seed, d=4096, per_row=30):
    """Hashed-text-like counts (CSR)."""
    rng = np.random.default_rng(seed)
    X = sp.random(n, d, density=per_row / d, format="csr", random_state=seed,
                  data_rvs=lambda k: rng.integers(1, 4, k).astype(np.float64))
    return X, rng.integers(0, 3, n)


def table_of(model):
    table = model.__dict__.get("_table")
    assert table is not None, "the model left the sparse count table"
    return table


TABLE_MODELS = {
    "bernoulli": (BernoulliNB, sk_nb.BernoulliNB, {}),
    "multinomial": (MultinomialNB, sk_nb.MultinomialNB, {}),
    "complement": (ComplementNB, sk_nb.ComplementNB, {}),
    "complement-norm": (ComplementNB, sk_nb.ComplementNB, {"norm": True}),
}


@pytest.mark.parametrize("kind", sorted(TABLE_MODELS))
@pytest.mark.parametrize("half_life, cuts", [(150.0, [50, 51, 170, 200, 400]),
                                             (2.0, [50, 100, 150, 200, 250, 300, 350])])
@pytest.mark.parametrize("n_threads", [1, 2])
def test_table_stream_forgets_exactly_between_predicts(half_life, cuts, n_threads, kind,
                                                       small_tables):
    """The table decays by one scale a batch and refreshes the weights a predict
    reads: after every batch, predictions of a few rows (the table walk) and of
    all rows so far (the feature slots) and the fitted attributes equal
    scikit-learn's fit of the decayed weights. half_life=2 takes the scale below
    FRAME_MIN_SCALE every few batches (the true counts stored again)."""
    ours, theirs, params = TABLE_MODELS[kind]
    X, y = hashed_counts(450, 1)
    model = ours(half_life=half_life, n_threads=n_threads, **params)
    bounds = [0, *cuts, X.shape[0]]
    for a, b in zip(bounds[:-1], bounds[1:]):
        if a:
            model.predict_joint_log_proba(X[a:a + 3])  # reads a few blocks only
        model.partial_fit(X[a:b], y[a:b], classes=CLASSES)
        table = table_of(model)
        reference = theirs(**params).fit(X[:b], y[:b],
                                         sample_weight=decayed(np.ones(b), b, half_life))
        assert_allclose(model.predict_joint_log_proba(X[a:b][:4]),
                        reference.predict_joint_log_proba(X[a:b][:4]), rtol=1e-10)
        assert_allclose(model.predict_joint_log_proba(X[:b]),
                        reference.predict_joint_log_proba(X[:b]), rtol=1e-10)
        assert_allclose(model.class_count_, reference.class_count_, rtol=1e-10)
    assert table.weight_epoch is not None
    assert_allclose(model.feature_count_, reference.feature_count_, rtol=1e-10, atol=0)
    assert_allclose(model.feature_log_prob_, reference.feature_log_prob_, rtol=1e-10)
    if kind.startswith("complement"):
        assert_allclose(model.feature_all_, reference.feature_all_, rtol=1e-10, atol=0)
    # and one fit of the stream is the same model
    whole = ours(half_life=half_life, n_threads=n_threads, **params).fit(X, y)
    table_of(whole)
    assert_allclose(whole.predict_joint_log_proba(X), model.predict_joint_log_proba(X),
                    rtol=1e-12)


def test_table_frame_weights_and_missing_values(small_tables):
    X, y = hashed_counts(300, 2)
    X = X.astype(np.float64)
    X.data[::17] = np.nan  # NaN is a missing value: it adds nothing
    w = np.random.default_rng(3).uniform(0.2, 3.0, 300)
    model = MultinomialNB(half_life=40.0)
    stream(model, X, y, [60, 61, 200], sample_weight=w)
    table_of(model)
    observed = X.copy()
    observed.data = np.nan_to_num(observed.data, nan=0.0)
    reference = sk_nb.MultinomialNB().fit(observed, y, sample_weight=decayed(w, 300, 40.0))
    assert_allclose(model.feature_count_, reference.feature_count_, rtol=1e-10, atol=0)
    assert_allclose(model.predict_joint_log_proba(observed[:50]),
                    reference.predict_joint_log_proba(observed[:50]), rtol=1e-10)
    # the missing values' weights decay with the counts
    missing = np.zeros((3, X.shape[1]))
    rows = np.repeat(np.arange(300), np.diff(X.indptr))
    nan = np.isnan(X.data)
    np.add.at(missing, (y[rows[nan]], X.indices[nan]), decayed(w, 300, 40.0)[rows[nan]])
    assert_allclose(model._missing_count, missing, rtol=1e-10, atol=0)


def test_bernoulli_table_frame_with_missing_values_equals_dense(monkeypatch,
                                                                dense_first_fits):
    """BernoulliNB's table keeps counts and missing weights in one frame, and its
    predict terms read them scaled: the same model as the dense counts (which
    the oracle tests check), with NaN and weights, through a renormalisation
    (half_life=3: the scale passes 2**-64 every ~190 rows)."""
    from fastnb import _count_table
    X, y = hashed_counts(300, 12)
    X.data[::13] = np.nan
    observed = X.copy()
    observed.data = np.nan_to_num(observed.data, nan=0.0)
    w = np.random.default_rng(13).uniform(0.2, 3.0, 300)
    cuts = [40, 41, 100, 170, 260]
    for half_life in (35.0, 3.0):
        dense = stream(BernoulliNB(half_life=half_life), X, y, cuts, sample_weight=w)
        assert dense.__dict__.get("_table") is None
        with monkeypatch.context() as patch:
            patch.setattr(_count_table, "TABLE_MIN_CELLS", 0)
            patch.setattr(_count_table, "TABLE_MIN_CELLS_PER_NONZERO", 0)
            model = BernoulliNB(half_life=half_life)
            bounds = [0, *cuts, 300]
            for a, b in zip(bounds[:-1], bounds[1:]):
                model.partial_fit(X[a:b], y[a:b], classes=CLASSES, sample_weight=w[a:b])
                # a state's terms, from the scaled counts (a row with NaN reads
                # the whole model, which stores the true counts: none here)
                model.predict(observed[a:a + 2])
        assert table_of(model).count_scale != 1.0
        assert_allclose(model.predict_joint_log_proba(X), dense.predict_joint_log_proba(X),
                        rtol=1e-10)
        assert_allclose(model.feature_count_, dense.feature_count_, rtol=1e-10, atol=0)
        assert_allclose(model._missing_count, dense._missing_count, rtol=1e-10, atol=0)
        assert_allclose(model.feature_log_prob_, dense.feature_log_prob_, rtol=1e-10)


@pytest.mark.parametrize("kind", sorted(TABLE_MODELS))
def test_table_batch_writes_only_its_own_entries(kind, small_tables):
    """O(batch), structurally, for every table model: under forgetting a
    partial_fit leaves the stored count of every entry its batch does not touch
    as it was (the decay is the frame's one scale)."""
    ours, _, params = TABLE_MODELS[kind]
    X, y = hashed_counts(400, 14)
    model = ours(half_life=100.0, **params).fit(X[:300], y[:300])
    model.predict(X[:5])
    table = table_of(model)
    counts = table.ent_count[:table.used].copy()
    model.partial_fit(X[300:310], y[300:310])
    assert table_of(model) is table
    touched = set(X[300:310].indices)
    untouched = [e for j in range(X.shape[1]) if j not in touched
                 for e in range(table.feat_start[j], table.feat_start[j] + table.feat_len[j])]
    assert len(untouched) > 1000
    assert_array_equal(table.ent_count[untouched], counts[untouched])
    assert table.count_scale == 2.0 ** (-10 / 100.0)


def test_table_batch_and_predict_cost_what_they_touch(small_tables):
    """O(batch), structurally: a partial_fit stamps no weight (it changes one
    scale), and a predict refreshes the blocks of its own features only."""
    X, y = hashed_counts(400, 4)
    model = MultinomialNB(half_life=100.0).fit(X[:300], y[:300])
    model.predict(X[:1])  # (the fit's listed weights computed)
    table = table_of(model)
    stamps = table.weight_epoch.copy()
    scale = table.count_scale
    model.partial_fit(X[300:350], y[300:350])
    assert_array_equal(table.weight_epoch, stamps)
    assert table.count_scale == scale * 2.0 ** (-50 / 100.0)
    features, offsets = table.pending_entries()
    # (the entries the batch changed, listed by the add as without forgetting)
    pending = set(table.feat_start[features] + offsets)

    def blocks(row):
        return {int(e) for j in row.indices if table.feat_len[j] > 0
                for e in range(table.feat_start[j], table.feat_start[j] + table.feat_len[j])}
    # a row of the fit's whose blocks the batch did not change
    row = next(X[i:i + 1] for i in range(300) if blocks(X[i:i + 1]) - pending)
    weights = table.ent_weight[:table.used].copy()
    model.predict(row)
    assert set(np.flatnonzero(table.weight_epoch == table.epoch)) == set(row.indices)
    # the only weights written are those of the row's blocks and the listed ones
    after = table.ent_weight[:table.used]
    changed = np.flatnonzero((after != weights) & ~(np.isnan(after) & np.isnan(weights)))
    mine = blocks(row)
    assert mine - pending and (mine - pending) & set(changed)
    assert set(changed) <= mine | pending


def test_table_half_life_changed_or_dropped_mid_stream(small_tables):
    X, y = hashed_counts(300, 5)
    model = MultinomialNB(half_life=30.0).fit(X[:100], y[:100])
    model.predict(X[:5])
    model.set_params(half_life=80.0).partial_fit(X[100:200], y[100:200])
    model.predict(X[:5])
    model.set_params(half_life=None).partial_fit(X[200:], y[200:])
    table = table_of(model)
    assert table.weight_epoch is None and table.count_scale == 1.0
    weights = np.concatenate([decayed(np.ones(100), 100, 30.0) * 2.0 ** (-100 / 80.0),
                              decayed(np.ones(100), 100, 80.0), np.ones(100)])
    reference = sk_nb.MultinomialNB().fit(X, y, sample_weight=weights)
    assert_allclose(model.feature_count_, reference.feature_count_, rtol=1e-10, atol=0)
    assert_allclose(model.predict_joint_log_proba(X), reference.predict_joint_log_proba(X),
                    rtol=1e-10)


@pytest.mark.parametrize("kind", sorted(TABLE_MODELS))
def test_table_failed_partial_fit_is_undone(monkeypatch, kind, small_tables):
    """A failure after the frame moved and the batch was added (here: the
    class prior's update raises MemoryError) puts the scale, the epoch and the
    counts back: the stream goes on as if the call never happened."""
    ours, theirs, params = TABLE_MODELS[kind]
    X, y = hashed_counts(300, 6)
    model = ours(half_life=50.0, **params).fit(X[:150], y[:150])
    model.partial_fit(X[150:200], y[150:200])
    table = table_of(model)
    jll = model.predict_joint_log_proba(X[:20])  # (norm: normalises the table)
    before = (table.count_scale, table.epoch, jll)

    def failing_prior(class_count):
        raise MemoryError("no room")
    monkeypatch.setattr(model, "_class_log_prior", failing_prior)
    with pytest.raises(MemoryError):
        model.partial_fit(X[200:250], y[200:250])
    monkeypatch.undo()
    assert (table.count_scale, table.epoch) == before[:2]
    assert_array_equal(model.predict_joint_log_proba(X[:20]), before[2])
    model.partial_fit(X[200:], y[200:])
    reference = theirs(**params).fit(X, y, sample_weight=decayed(np.ones(300), 300, 50.0))
    assert_allclose(model.predict_joint_log_proba(X), reference.predict_joint_log_proba(X),
                    rtol=1e-10)


@pytest.mark.parametrize("kind", sorted(TABLE_MODELS))
def test_table_save_load_mid_stream(kind, tmp_path, small_tables):
    ours, _, params = TABLE_MODELS[kind]
    X, y = hashed_counts(300, 7)
    model = stream(ours(half_life=60.0, **params), X[:200], y[:200], [80, 81])
    model.predict(X[:3])  # some weights refreshed, the rest stale
    model.save(tmp_path / "m.npz")
    loaded = fastnb.load(tmp_path / "m.npz")
    assert_allclose(loaded.predict_joint_log_proba(X), model.predict_joint_log_proba(X),
                    rtol=1e-12)
    for m in (model, loaded):
        stream(m, X[200:], y[200:], [50])
    assert_allclose(loaded.predict_joint_log_proba(X), model.predict_joint_log_proba(X),
                    rtol=1e-12)
    table_of(loaded)


@pytest.mark.parametrize("kind", sorted(TABLE_MODELS))
def test_table_half_life_so_short_a_batch_forgets_all_before(kind, small_tables):
    """A decay below the frame's range (1e-300 rows: 0) decays the stored counts
    themselves: only each batch's last row is left (the fuzzer's find: a file's
    half_life=1e-300 made partial_fit divide by a zero scale)."""
    ours, theirs, params = TABLE_MODELS[kind]
    X, y = hashed_counts(200, 8)
    model = stream(ours(half_life=1e-300, **params), X, y, [100, 150])
    reference = theirs(**params).fit(X, y, sample_weight=decayed(np.ones(200), 200, 1e-300))
    assert_allclose(model.feature_count_, reference.feature_count_, rtol=1e-10, atol=0)
    assert_allclose(model.class_count_, reference.class_count_, rtol=1e-10, atol=0)
    model = stream(ours(half_life=0.5, **params), X, y, [50, 100, 150])
    reference = theirs(**params).fit(X, y, sample_weight=decayed(np.ones(200), 200, 0.5))
    assert_allclose(model.predict_joint_log_proba(X[:30]),
                    reference.predict_joint_log_proba(X[:30]), rtol=1e-10)
