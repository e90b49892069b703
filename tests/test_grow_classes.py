"""grow_classes=True: classes that first appear mid-stream (issue 44).

The oracle: the same stream fed to a model told of every class on its first
partial_fit, whose fitted attributes must be equal to 1e-12."""

import contextlib

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings, strategies as st
from numpy.testing import assert_allclose, assert_array_equal

import fastnb
from fastnb import _count_table

MODELS = [fastnb.GaussianNB, fastnb.MultinomialNB, fastnb.ComplementNB,
          fastnb.BernoulliNB, fastnb.CategoricalNB, fastnb.ColumnwiseNB]
ATTRIBUTES = ["classes_", "class_count_", "theta_", "var_", "epsilon_", "class_prior_",
              "class_log_prior_", "feature_count_", "feature_log_prob_",
              "category_count_"]


@contextlib.contextmanager
def table_fits(on):
    saved = (_count_table.TABLE_MIN_CELLS, _count_table.TABLE_MIN_CELLS_PER_NONZERO)
    if on:
        _count_table.TABLE_MIN_CELLS = _count_table.TABLE_MIN_CELLS_PER_NONZERO = 0
    try:
        yield
    finally:
        _count_table.TABLE_MIN_CELLS, _count_table.TABLE_MIN_CELLS_PER_NONZERO = saved


def stream(kind, rng, n=90, d=4, nan=False):
    if kind is fastnb.CategoricalNB:
        X = rng.integers(0, 4, size=(n, d))
    else:
        X = rng.poisson(1.0, size=(n, d)).astype(np.float64)
        if nan:
            X[rng.random(X.shape) < 0.1] = np.nan
    labels = np.array(["ham", "spam", "eggs", "bacon"])
    # the classes arrive one after another: the first batch sees one class only
    y = labels[np.minimum(np.arange(n) * 4 // n, 3)]
    return X, y


def assert_same_model(a, b):
    assert_array_equal(a.classes_, b.classes_)
    for name in ATTRIBUTES:
        if hasattr(b, name):
            x, y = getattr(a, name), getattr(b, name)
            if isinstance(y, list):
                for p, q in zip(x, y):
                    assert_allclose(p, q, rtol=1e-12, atol=1e-300)
            elif isinstance(y, np.ndarray) and y.dtype.kind not in "OUS":
                assert_allclose(x, y, rtol=1e-12, atol=1e-300)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), kind=st.sampled_from(MODELS[:5]),
       sparse=st.booleans(), table=st.booleans(), weighted=st.booleans(),
       nan=st.booleans(), n_batches=st.integers(1, 6), shuffle=st.booleans())
def test_grown_equals_declared_up_front(seed, kind, sparse, table, weighted, nan,
                                        n_batches, shuffle):
    rng = np.random.default_rng(seed)
    X, y = stream(kind, rng, nan=nan and kind is not fastnb.CategoricalNB)
    if shuffle:   # any arrival order of the classes
        order = rng.permutation(y.shape[0])
        X, y = X[order], y[order]
    w = rng.random(y.shape[0]) + 0.5 if weighted else None
    sparse = sparse and kind in (fastnb.MultinomialNB, fastnb.ComplementNB,
                                 fastnb.BernoulliNB)
    Xf = sp.csr_matrix(X) if sparse else X
    cuts = np.sort(rng.choice(np.arange(1, y.shape[0]), n_batches - 1, replace=False))
    bounds = [0, *cuts.tolist(), y.shape[0]]
    with table_fits(table and sparse):
        grown = kind(grow_classes=True)
        told = kind()
        for lo, hi in zip(bounds[:-1], bounds[1:]):
            wb = None if w is None else w[lo:hi]
            grown.partial_fit(Xf[lo:hi], y[lo:hi], sample_weight=wb)
            told.partial_fit(Xf[lo:hi], y[lo:hi], classes=np.unique(y), sample_weight=wb)
    if table and sparse:
        assert grown.__dict__.get("_table") is not None
    assert_same_model(grown, told)
    assert_allclose(grown.predict_joint_log_proba(Xf), told.predict_joint_log_proba(Xf),
                    rtol=1e-12, atol=1e-9)
    assert_array_equal(grown.predict(Xf), told.predict(Xf))


def test_columnwise_grows(rng):
    pd = pytest.importorskip("pandas")
    n = 80
    frame = pd.DataFrame({"size": rng.normal(size=n),
                          "colour": rng.choice(["red", "blue"], n),
                          "count": rng.poisson(1.0, n).astype(float)})
    y = np.array(["a", "b", "c", "d"])[np.minimum(np.arange(n) * 4 // n, 3)]
    grown, told = fastnb.ColumnwiseNB(grow_classes=True), fastnb.ColumnwiseNB()
    for lo in range(0, n, 20):
        grown.partial_fit(frame.iloc[lo:lo + 20], y[lo:lo + 20])
        told.partial_fit(frame.iloc[lo:lo + 20], y[lo:lo + 20], classes=np.unique(y))
    assert_array_equal(grown.classes_, told.classes_)
    assert_allclose(grown.class_count_, told.class_count_)
    assert_allclose(grown.predict_joint_log_proba(frame), told.predict_joint_log_proba(frame),
                    rtol=1e-12, atol=1e-9)


@pytest.mark.parametrize("kind", MODELS[:5])
def test_default_keeps_sklearns_contract(kind, rng):
    X, y = stream(kind, rng)
    with pytest.raises(ValueError, match="classes must be passed on the first call"):
        kind().partial_fit(X, y)
    model = kind().partial_fit(X[:10], y[:10], classes=["ham", "spam"])
    with pytest.raises(ValueError):
        model.partial_fit(X[-10:], y[-10:])            # "bacon" is not a class
    with pytest.raises(ValueError):
        model.partial_fit(X[:10], y[:10], classes=["ham", "spam", "eggs"])


@pytest.mark.parametrize("kind", MODELS[:5])
def test_classes_given_later_add_classes(kind, rng):
    X, y = stream(kind, rng)
    model = kind(grow_classes=True).partial_fit(X[:10], y[:10])
    assert model.classes_.tolist() == ["ham"]
    model.partial_fit(X[10:20], y[10:20], classes=["ham", "zebra"])
    assert model.classes_.tolist() == ["ham", "zebra"]
    assert model.class_count_[1] == 0
    model.partial_fit(X[60:], y[60:])
    assert model.classes_.tolist() == ["bacon", "eggs", "ham", "zebra"]


@pytest.mark.parametrize("kind", MODELS[:5])
def test_a_failed_batch_with_a_new_class_leaves_the_model_as_it_was(kind, rng):
    X, y = stream(kind, rng)
    model = kind(grow_classes=True).partial_fit(X[:30], y[:30])
    before = {key: (value.copy() if isinstance(value, np.ndarray) else value)
              for key, value in model.__dict__.items()}
    bad = X[60:70].astype(np.float64).copy()
    bad[0, 0] = np.inf if kind is not fastnb.CategoricalNB else -1
    with pytest.raises((ValueError, TypeError)):
        model.partial_fit(bad if kind is not fastnb.CategoricalNB else X[60:70, :2],
                          y[60:70])
    assert model.classes_.tolist() == before["classes_"].tolist()
    for key, value in before.items():
        if isinstance(value, np.ndarray) and value.dtype.kind not in "OUS":
            assert_array_equal(model.__dict__[key], value)


def test_priors_must_name_every_class(rng):
    X, y = stream(fastnb.GaussianNB, rng)
    model = fastnb.GaussianNB(priors=[0.5, 0.5], grow_classes=True)
    model.partial_fit(X[:44], y[:44])                  # ham, spam
    with pytest.raises(ValueError, match="prior"):
        model.partial_fit(X[44:], y[44:])              # eggs, bacon: 4 classes
    assert model.classes_.tolist() == ["ham", "spam"]
    with pytest.raises(ValueError, match="prior"):
        fastnb.MultinomialNB(class_prior=[0.5, 0.5], grow_classes=True).partial_fit(
            X, y)


def test_labels_that_do_not_compare(rng):
    X, _ = stream(fastnb.MultinomialNB, rng)
    model = fastnb.MultinomialNB(grow_classes=True).partial_fit(X[:5], [1, 2, 1, 2, 1])
    with pytest.raises(TypeError, match="do not compare"):
        model.partial_fit(X[:2], np.array(["a", 3], dtype=object))
    with pytest.raises(TypeError, match="grow_classes"):
        fastnb.GaussianNB(grow_classes="yes").partial_fit(X, np.arange(X.shape[0]))


@pytest.mark.parametrize("kind", MODELS[:5])
def test_merge_save_load_with_grown_classes(kind, rng, tmp_path):
    X, y = stream(kind, rng)
    a = kind(grow_classes=True).partial_fit(X[:40], y[:40])
    b = kind(grow_classes=True).partial_fit(X[40:], y[40:])
    merged = fastnb.merge(a, b)
    whole = kind().fit(X, y)
    assert_array_equal(merged.classes_, whole.classes_)
    assert_allclose(merged.predict_joint_log_proba(X), whole.predict_joint_log_proba(X),
                    rtol=1e-10, atol=1e-9)
    merged.save(tmp_path / "grown.npz")
    loaded = fastnb.load(tmp_path / "grown.npz")
    assert loaded.grow_classes is True
    loaded.partial_fit(X[:5], np.array(["new"] * 5))
    assert "new" in loaded.classes_.tolist()


def test_dask_fit_with_grow_classes(rng):
    dask_array = pytest.importorskip("dask.array")
    import fastnb.dask

    X, y = stream(fastnb.GaussianNB, rng)
    model = fastnb.dask.fit(fastnb.GaussianNB(grow_classes=True),
                            dask_array.from_array(X, chunks=30),
                            dask_array.from_array(y, chunks=30))
    assert_allclose(model.theta_, fastnb.GaussianNB().fit(X, y).theta_, rtol=1e-12)
