"""Fitting on Dask: equal to a local fit whatever the chunking, on a real cluster."""

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

import fastnb
from _registry import DATA_MAKERS, ESTIMATORS as REGISTRY, mixed_data

dask = pytest.importorskip("dask")
da = pytest.importorskip("dask.array")
distributed = pytest.importorskip("distributed")
import fastnb.dask as fnd  # noqa: E402


def gaussian_data(rng, n):
    y = rng.integers(0, 4, n)
    return rng.normal(size=(n, 6)) + y[:, None] + 100.0, y


def count_data(rng, n):
    y = rng.integers(0, 3, n)
    X = rng.poisson(1.0 + y[:, None] * np.linspace(0, 1, 8), size=(n, 8)).astype(float)
    return X, y


def categorical_data(rng, n):
    """Integer codes; one column of negative ints, one whose largest codes are rare
    (so that blocks see different categories)."""
    y = rng.integers(0, 4, n)
    X = (rng.integers(0, 5, (n, 6)) + y[:, None]) % 7
    X[:, 0] = -X[:, 0]
    X[:, 1] = np.where(rng.random(n) < 0.002, 40 + y, X[:, 1])
    return X, y


# name -> (factory, data maker), for every registered estimator (the kinds this
# file's makers do not cover take the registry's).
_DATA = {"continuous": gaussian_data, "counts": count_data, "categories": categorical_data,
         "mixed": mixed_data}
ESTIMATORS = {
    name: (lambda spec=spec: spec.make(rich=True),
           _DATA.get(spec.data_kind, DATA_MAKERS[spec.data_kind]))
    for name, spec in REGISTRY.items()
}


@pytest.fixture(scope="module")
def client():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster:
        with distributed.Client(cluster) as client:
            yield client


def _assert_equal_models(a, b, rtol=1e-10):
    assert_array_equal(a.classes_, b.classes_)
    if hasattr(b, "categories_"):
        for ours, theirs in zip(a.categories_, b.categories_):
            assert_array_equal(ours, theirs)
    state_a, state_b = a._sufficient_state(), b._sufficient_state()
    if state_a.keys() != state_b.keys():
        # one model on the sparse count table, the other dense: under
        # FASTNB_TEST_SPARSE_TABLE=1 this process fits on the table, the workers
        # (other processes) dense; their counts must still agree
        state_a = {key: getattr(a, key) for key in ("class_count_", "feature_count_")}
        state_b = {key: getattr(b, key) for key in state_a}
    for key, value in state_b.items():
        assert_allclose(state_a[key], value, rtol=rtol, atol=1e-9, err_msg=key)


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
@pytest.mark.parametrize("chunks", [5000, 777, 10_000])
def test_cluster_fit_equals_local_fit(client, name, chunks):
    factory, make = ESTIMATORS[name]
    rng = np.random.default_rng(chunks)
    X, y = make(rng, 10_000)
    local = factory().fit(X, y)
    model = fnd.fit(factory(), da.from_array(X, chunks=(chunks, -1)),
                    da.from_array(y, chunks=chunks))
    assert type(model) is type(local)
    _assert_equal_models(model, local)
    assert_array_equal(fnd.predict(model, da.from_array(X, chunks=(chunks, -1))).compute(),
                       model.predict(X))
    proba = fnd.predict_proba(model, da.from_array(X, chunks=(chunks, -1)))
    assert isinstance(proba, da.Array)
    assert_allclose(proba.compute(), local.predict_proba(X), rtol=1e-9, atol=1e-12)
    log_proba = fnd.predict_log_proba(model, da.from_array(X, chunks=(chunks, -1)))
    assert_allclose(log_proba.compute(), local.predict_log_proba(X), rtol=1e-9,
                    atol=1e-9)


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_cluster_fit_with_weights_and_given_classes(client, name):
    factory, make = ESTIMATORS[name]
    rng = np.random.default_rng(1)
    X, y = make(rng, 6000)
    w = rng.uniform(0.1, 2, 6000)
    local = factory().fit(X, y, sample_weight=w)
    model = fnd.fit(factory(), da.from_array(X, chunks=(1000, -1)),
                    da.from_array(y, chunks=1000),
                    sample_weight=da.from_array(w, chunks=1000), classes=np.unique(y))
    _assert_equal_models(model, local)


def test_cluster_fit_from_a_dask_dataframe(client):
    dd = pytest.importorskip("dask.dataframe")
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(2)
    X, y = gaussian_data(rng, 5000)
    frame = pd.DataFrame(X, columns=[f"f{j}" for j in range(X.shape[1])])
    frame["label"] = np.array(["a", "b", "c", "d"])[y]
    ddf = dd.from_pandas(frame, npartitions=4)
    features = ddf[[f"f{j}" for j in range(X.shape[1])]]
    model = fnd.fit(fastnb.GaussianNB(), features, ddf["label"])
    local = fastnb.GaussianNB().fit(frame.drop(columns="label"), frame["label"])
    _assert_equal_models(model, local)
    assert_array_equal(model.feature_names_in_, local.feature_names_in_)
    assert_array_equal(fnd.predict(model, features).compute(), local.predict(
        frame.drop(columns="label")))


@pytest.mark.parametrize("name", ["BernoulliNB", "MultinomialNB", "ComplementNB"])
def test_cluster_fit_on_sparse_blocks(client, name):
    sparse = pytest.importorskip("scipy.sparse")
    factory, make = ESTIMATORS[name]
    X, y = make(np.random.default_rng(5), 4000)
    dense = da.from_array(X, chunks=(700, -1))
    blocks = dense.map_blocks(sparse.csr_matrix, dtype=X.dtype,
                              meta=sparse.csr_matrix((0, 0)))
    model = fnd.fit(factory(), blocks, da.from_array(y, chunks=700))
    local = factory().fit(sparse.csr_matrix(X), y)
    _assert_equal_models(model, local)
    # The merged model equals the local one to rounding (a near-tie may flip), and
    # the lazy predict equals the model's own predict exactly.
    assert_array_equal(fnd.predict(model, blocks).compute(),
                       model.predict(sparse.csr_matrix(X)))
    assert_allclose(model.predict_joint_log_proba(X), local.predict_joint_log_proba(X),
                    rtol=1e-10)


def test_categorical_cluster_fit_from_a_dataframe_with_string_columns(client):
    dd = pytest.importorskip("dask.dataframe")
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(3)
    n = 4000
    y = rng.integers(0, 3, n)
    words = np.array(["red", "green", "blue", "\u00e9cru", "teal"], dtype=object)
    colour = words[(rng.integers(0, 3, n) + y) % 5]
    colour[rng.random(n) < 0.05] = None
    frame = pd.DataFrame({
        "colour": pd.array(colour, dtype="string"),
        "size": pd.Categorical(np.array(["S", "M", "L", "XL"])[
            (rng.integers(0, 2, n) + y) % 4], categories=["S", "M", "L", "XL", "XXL"]),
        "code": (rng.integers(0, 4, n) + y) % 6,
        "shift": rng.integers(-3, 3, n),
    })
    # A category that only one partition holds.
    frame.loc[n - 3:, "colour"] = "violet"
    frame["label"] = np.array(["a", "b", "c"])[y]
    w = rng.uniform(0.1, 2, n)
    frame["w"] = w
    ddf = dd.from_pandas(frame, npartitions=5)
    features = ["colour", "size", "code", "shift"]
    local = fastnb.CategoricalNB().fit(frame[features], frame["label"], sample_weight=w)
    model = fnd.fit(fastnb.CategoricalNB(), ddf[features], ddf["label"],
                    sample_weight=ddf["w"])
    assert [list(c) for c in model.categories_] == [list(c) for c in local.categories_]
    assert list(model.categories_[0]) == ["blue", "green", "red", "teal", "violet",
                                          "\u00e9cru"]
    _assert_equal_models(model, local)
    assert_array_equal(model.feature_names_in_, features)
    assert_allclose(fnd.predict_proba(model, ddf[features]).compute(),
                    local.predict_proba(frame[features]), rtol=1e-10, atol=1e-12)
    assert_array_equal(fnd.predict(model, ddf[features]).compute(),
                       local.predict(frame[features]))


def test_workers_run_single_threaded_by_default(client):
    threads = client.run(lambda: __import__("fastnb").effective_n_threads())
    assert set(threads.values()) == {1}


def test_bad_collections_are_refused(client):
    X = da.ones((10, 2), chunks=5)
    with pytest.raises(TypeError, match="dask array or dataframe"):
        fnd.fit(fastnb.GaussianNB(), np.ones((10, 2)), da.zeros(10, chunks=5))
    with pytest.raises(ValueError, match="same row chunks|row blocks"):
        fnd.fit(fastnb.GaussianNB(), X, da.zeros(10, chunks=2))
    with pytest.raises(ValueError, match="split_every"):
        fnd.fit(fastnb.GaussianNB(), X, da.zeros(10, chunks=5), split_every=1)


@pytest.mark.parametrize("chunks", [2000, 700, 128])
@pytest.mark.parametrize("name", ["GaussianNB", "MultinomialNB"])
def test_a_model_that_forgets_is_the_local_fit_of_the_rows_in_order(client, name, chunks):
    """The blocks are in the array's order: each is aged by the rows after it
    (fastnb._distributed.stream_weights, as fastnb.spark given orderCol), so the
    fit is the local one whatever the chunking, and forgets on from there."""
    rng = np.random.default_rng(chunks)
    y = rng.integers(0, 2, 2000)
    X = rng.poisson(1.0 + y[:, None] * np.array([0.0, 1.0, 2.0]), size=(2000, 3))
    X = X.astype(float)
    fitted = fnd.fit(getattr(fastnb, name)(half_life=500.0),
                     da.from_array(X, chunks=(chunks, 3)), da.from_array(y, chunks=chunks))
    local = getattr(fastnb, name)(half_life=500.0).fit(X, y)
    _assert_equal_models(fitted, local, rtol=1e-12)
    fitted.partial_fit(X[:50], y[:50])
    local.partial_fit(X[:50], y[:50])
    _assert_equal_models(fitted, local, rtol=1e-12)


def test_a_block_whose_weights_underflow_is_refused():
    from fastnb import _distributed

    assert_allclose(_distributed.stream_weights(2.0, [1.0, 3.0], 2, 4), [0.25, 0.75])
    with pytest.raises(ValueError, match="over 1074 half-lives"):
        _distributed.stream_weights(1.0, None, 3, 1100)


def test_a_model_that_forgets_on_a_dask_dataframe(client):
    dd = pytest.importorskip("dask.dataframe")
    pd = pytest.importorskip("pandas")

    rng = np.random.default_rng(3)
    y = rng.integers(0, 3, 900)
    X = rng.normal(y[:, None], 1.0, size=(900, 2))
    frame = dd.from_pandas(pd.DataFrame(X, columns=["a", "b"]), npartitions=4)
    labels = dd.from_pandas(pd.Series(y), npartitions=4)
    fitted = fnd.fit(fastnb.GaussianNB(half_life=100.0), frame, labels)
    local = fastnb.GaussianNB(half_life=100.0).fit(pd.DataFrame(X, columns=["a", "b"]), y)
    _assert_equal_models(fitted, local, rtol=1e-12)


def test_priors_are_applied_once_and_checked_as_spark_checks_them(client):
    """The rules of fastnb._distributed: blocks fit without the priors (a block
    sorted by class lacks classes), the merge gets them once; a wrong count is
    the message fastnb.spark gives, naming the classes found."""
    rng = np.random.default_rng(5)
    X, y = rng.normal(size=(60, 3)), np.repeat([0, 1, 2], 20)
    Xd, yd = da.from_array(X, chunks=20), da.from_array(y, chunks=20)
    for estimator, local in ((fastnb.GaussianNB(priors=[0.2, 0.3, 0.5]),
                              fastnb.GaussianNB(priors=[0.2, 0.3, 0.5])),
                             (fastnb.MultinomialNB(class_prior=[0.2, 0.3, 0.5]),
                              fastnb.MultinomialNB(class_prior=[0.2, 0.3, 0.5]))):
        data = np.abs(X) if isinstance(local, fastnb.MultinomialNB) else X
        fitted = fnd.fit(estimator, da.from_array(data, chunks=20), yd)
        _assert_equal_models(fitted, local.fit(data, y))
    with pytest.raises(ValueError, match="Number of priors must match number of "
                                         r"classes.*classes found: \[0, 1, 2\]"):
        fnd.fit(fastnb.GaussianNB(priors=[0.5, 0.5]), Xd, yd)


@pytest.mark.slow
def test_data_larger_than_worker_memory():
    """2 GB generated lazily, fitted by two workers limited to 400 MB each."""
    n_rows, n_features, rows_per_chunk = 12_500_000, 20, 250_000  # 2 GB of float64

    def make_X(block_id):
        rng = np.random.default_rng(block_id[0])
        return rng.normal(size=(rows_per_chunk, n_features))

    def make_y(block_id):
        return np.random.default_rng(10_000 + block_id[0]).integers(0, 3, rows_per_chunk)

    n_chunks = n_rows // rows_per_chunk
    X = da.map_blocks(make_X, chunks=((rows_per_chunk,) * n_chunks, (n_features,)),
                      dtype=np.float64)
    y = da.map_blocks(make_y, chunks=((rows_per_chunk,) * n_chunks,), dtype=np.int64)
    assert X.nbytes >= 2e9
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  memory_limit="400MB", dashboard_address=None) as cluster:
        with distributed.Client(cluster):
            model = fnd.fit(fastnb.GaussianNB(), X, y, classes=[0, 1, 2])
    assert model.class_count_.sum() == n_rows
    # The same data, generated chunk by chunk here and fed to partial_fit: exact.
    reference = fastnb.GaussianNB()
    for index in range(n_chunks):
        reference.partial_fit(make_X((index, 0)), make_y((index,)), classes=[0, 1, 2])
    _assert_equal_models(model, reference)
