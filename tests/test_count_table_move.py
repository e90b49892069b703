"""A model whose first fit kept dense counts moves them into the sparse count
table at a partial_fit whose batch is small beside the model, so that a stream
of small batches costs what each batch touches, not k x d. The moved model must
be the dense one to rounding (and scikit-learn's), a failing call must leave the
dense model exactly as it was, and models the table does not suit stay dense."""

import numpy as np
import pytest
import scipy.sparse as sp
import sklearn.naive_bayes as sk
from numpy.testing import assert_allclose, assert_array_equal

import fastnb
from fastnb._discrete import _table as table_module

# every test here starts from a model whose first fit kept dense counts
pytestmark = pytest.mark.usefixtures("dense_first_fits")

K, D = 8, 4096   # 32,768 cells: the smallest model that moves
MODELS = [("MultinomialNB", {}), ("MultinomialNB", {"alpha": 0.4}),
          ("ComplementNB", {}), ("ComplementNB", {"norm": True}),
          ("BernoulliNB", {}), ("BernoulliNB", {"binarize": 1.5})]
ATTRIBUTES = ("class_count_", "feature_count_", "feature_log_prob_", "class_log_prior_")


def _data(n, seed, k=K, d=D, missing=False):
    rng = np.random.default_rng(seed)
    X = sp.random(n, d, density=0.05, random_state=seed, format="csr",
                  data_rvs=lambda size: rng.integers(1, 5, size).astype(float))
    if missing:
        X.data[rng.random(X.data.shape[0]) < 0.05] = np.nan
    y = rng.integers(0, k, n)
    y[:k] = np.arange(k)
    return X, y


def _stream(name, params, X, y, weights, moves, monkeypatch, dtype=np.float64,
            dense_batches=False):
    """A first batch of 400 rows (dense counts), then batches of 1 to 3 rows."""
    with monkeypatch.context() as patch:
        if not moves:
            patch.setattr(table_module, "MOVE_MIN_CELLS", 1 << 62)
        model = getattr(fastnb, name)(**params)
        classes = np.unique(y)
        bounds = [0, 400, 401, 403, 404, 407]
        for start, stop in zip(bounds[:-1], bounds[1:]):
            Xb = X[start:stop].astype(dtype)
            if dense_batches and start:
                Xb = Xb.toarray()
            model.partial_fit(Xb, y[start:stop], classes=classes,
                              sample_weight=weights[start:stop])
            assert ("_table" in model.__dict__) == (moves and start > 0)
    return model


@pytest.mark.parametrize("name, params", MODELS)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("dense_batches", [False, True])
def test_moved_stream_is_the_dense_stream_and_sklearn(name, params, dtype, dense_batches,
                                                     monkeypatch):
    X, y = _data(407, seed=3)
    weights = np.random.default_rng(4).uniform(0.5, 2.0, X.shape[0])
    moved = _stream(name, params, X, y, weights, True, monkeypatch, dtype, dense_batches)
    dense = _stream(name, params, X, y, weights, False, monkeypatch, dtype, dense_batches)
    oracle = getattr(sk, name)(**params)
    for start, stop in [(0, 400), (400, 407)]:
        oracle.partial_fit(X[start:stop].astype(dtype), y[start:stop],
                           classes=np.unique(y), sample_weight=weights[start:stop])
    test = X[:300].astype(dtype)
    for attribute in ATTRIBUTES + (("feature_all_",) if name == "ComplementNB" else ()):
        assert_allclose(getattr(moved, attribute), getattr(dense, attribute),
                        rtol=1e-12, atol=1e-12, err_msg=attribute)
        assert_allclose(getattr(moved, attribute), getattr(oracle, attribute),
                        rtol=1e-10, atol=1e-10, err_msg=attribute)
    assert_allclose(moved.predict_joint_log_proba(test),
                    dense.predict_joint_log_proba(test), rtol=1e-12)
    assert_allclose(moved.predict_log_proba(test), oracle.predict_log_proba(test),
                    rtol=1e-10, atol=1e-10)
    assert_array_equal(moved.predict(test), oracle.predict(test))


@pytest.mark.parametrize("name", ["MultinomialNB", "ComplementNB", "BernoulliNB"])
def test_moved_stream_keeps_missing_counts(name, monkeypatch):
    # NaN (missing) in the dense first batch and in the small ones after it
    X, y = _data(407, seed=5, missing=True)
    weights = np.ones(X.shape[0])
    moved = _stream(name, {}, X, y, weights, True, monkeypatch)
    dense = _stream(name, {}, X, y, weights, False, monkeypatch)
    test = np.nan_to_num(X[:200].toarray())
    for attribute in ATTRIBUTES:
        assert_allclose(getattr(moved, attribute), getattr(dense, attribute),
                        rtol=1e-12, atol=1e-12, err_msg=attribute)
    assert_allclose(moved.predict_joint_log_proba(test),
                    dense.predict_joint_log_proba(test), rtol=1e-12)


@pytest.mark.parametrize("name, bad", [
    (name, bad) for name in ("MultinomialNB", "ComplementNB", "BernoulliNB")
    for bad in ("negative", "infinity", "features", "labels")
    if (name, bad) != ("BernoulliNB", "negative")])   # (thresholded: not an error)
def test_failed_small_batch_leaves_the_dense_model_exactly(name, bad):
    X, y = _data(400, seed=6)
    model = getattr(fastnb, name)().fit(X, y)
    before = {key: np.copy(value) if isinstance(value, np.ndarray) else value
              for key, value in model.__dict__.items()}
    Xb, yb = X[:2].toarray(), y[:2].copy()
    if bad == "negative":
        Xb[0, 5] = -1.0
    elif bad == "infinity":
        Xb[1, 7] = np.inf
    elif bad == "features":
        Xb = Xb[:, :-1]
    else:
        yb[0] = 99
    with pytest.raises(ValueError):
        model.partial_fit(sp.csr_matrix(Xb), yb)
    assert model.__dict__.keys() == before.keys()
    for key, value in before.items():
        if isinstance(value, np.ndarray):
            assert_array_equal(model.__dict__[key], value, err_msg=key)
    assert "_table" not in model.__dict__


def test_failure_after_the_move_restores_the_dense_model(monkeypatch):
    X, y = _data(400, seed=8)
    model = fastnb.MultinomialNB().fit(X, y)
    before = dict(model.__dict__)
    expected = model.predict_joint_log_proba(X)

    def fail(*args, **kwargs):
        raise MemoryError("no room")
    monkeypatch.setattr(fastnb.MultinomialNB, "_fit_table", fail)
    with pytest.raises(MemoryError):
        model.partial_fit(X[:1], y[:1])
    assert model.__dict__ == before    # the same objects, untouched
    assert_array_equal(model.predict_joint_log_proba(X), expected)


@pytest.mark.parametrize("name, params, k, rows", [
    ("MultinomialNB", {}, 60, 1),                    # more classes than the slots hold
    ("BernoulliNB", {"alpha": np.full(D, 0.5)}, K, 1),   # its table takes a scalar alpha
    ("MultinomialNB", {"alpha": 0.0, "force_alpha": True}, K, 1),  # a log of zero
    ("MultinomialNB", {}, K, 200),                   # a batch not small beside the model
])
def test_models_the_table_does_not_suit_stay_dense(name, params, k, rows):
    X, y = _data(400 + rows, seed=9, k=k)
    model = getattr(fastnb, name)(**params)
    model.partial_fit(X[:400], y[:400], classes=np.arange(k))
    with np.errstate(divide="ignore"):
        model.partial_fit(X[400:], y[400:])
    assert "_table" not in model.__dict__


def test_moved_model_saves_loads_and_merges(tmp_path):
    X, y = _data(800, seed=10)
    moved = fastnb.MultinomialNB().fit(X[:400], y[:400])
    moved.partial_fit(X[400:401], y[400:401])
    assert "_table" in moved.__dict__
    moved.save(tmp_path / "m.npz")
    loaded = fastnb.load(tmp_path / "m.npz")
    assert_array_equal(loaded.predict_joint_log_proba(X), moved.predict_joint_log_proba(X))
    other = fastnb.MultinomialNB().fit(X[401:], y[401:])
    merged = fastnb.merge([moved, other])
    whole = sk.MultinomialNB().fit(X, y)
    assert_allclose(merged.feature_log_prob_, whole.feature_log_prob_, rtol=1e-10)
    assert_allclose(merged.predict_log_proba(X), whole.predict_log_proba(X),
                    rtol=1e-10, atol=1e-10)
