"""fastnb.onnx: every model exported to ONNX, run in onnxruntime, against fastnb.

onnxruntime's labels must equal fastnb's ``predict`` on every row but exact
ties (rows whose two best classes' joint log likelihoods are within the
export type's rounding, such as a row with every value missing when the
priors are equal: counted, printed and bounded), and its probabilities must be
within 1e-5 of ``predict_proba`` (1e-12 with float64), on random and real data
with missing values and unseen categories. Skipped where the ``onnx`` extra
(onnx, onnxruntime, skl2onnx) is not installed.
"""

import subprocess
import sys

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")
skl2onnx = pytest.importorskip("skl2onnx")

import fastnb  # noqa: E402
import fastnb.onnx  # noqa: E402
from fastnb.datasets import load_iris, load_penguins  # noqa: E402

TOLERANCE = {np.float32: 1e-5, np.float64: 1e-12}
# the gap between the two best joint log likelihoods below which float32 may
# pick either class: a few float32 ulps of the scores' size
TIE_ULPS = 64


def _session(onnx_model):
    onnx.checker.check_model(onnx_model, full_check=True)
    options = ort.SessionOptions()
    options.log_severity_level = 3
    return ort.InferenceSession(onnx_model.SerializeToString(), options,
                                providers=["CPUExecutionProvider"])


def _run(onnx_model, feeds, classes):
    """(labels, probabilities as an (n, k) array) from onnxruntime, whichever
    form (tensor or ZipMap) the model gives them in."""
    labels, probabilities = _session(onnx_model).run(None, feeds)
    if isinstance(probabilities, list):
        keys = [int(c) if isinstance(c, (int, np.integer)) else str(c)
                for c in classes.tolist()]
        probabilities = np.array([[row[key] for key in keys] for row in probabilities])
    return labels, probabilities


def _labels(classes):
    return classes.astype(np.int64) if classes.dtype.kind in "iub" else classes.astype(str)


def check_against_fastnb(model, onnx_model, feeds, X, dtype, zipmap=False):
    """Labels equal fastnb's but on exact ties; probabilities within the
    tolerance. Returns the number of ties."""
    labels, probabilities = _run(onnx_model, feeds, model.classes_)
    expected = model.predict(X)
    expected_proba = model.predict_proba(X)
    # ZipMap gives float32 probabilities whatever the dtype
    tolerance = TOLERANCE[np.float32 if zipmap else dtype]
    np.testing.assert_allclose(probabilities, expected_proba, rtol=0, atol=tolerance)
    differ = np.flatnonzero(labels != _labels(np.asarray(expected)))
    if differ.size == 0:
        return 0
    jll = np.sort(model.predict_joint_log_proba(X[differ] if not hasattr(X, "iloc")
                                                else X.iloc[differ]), axis=1)
    gap = jll[:, -1] - jll[:, -2]
    # fastnb's BernoulliNB scores hold sum_j log(1 - p) (in its bias), which a
    # missing value's term takes back: a sum of that size, rounded
    magnitude = np.abs(jll[:, -1])
    if isinstance(model, fastnb.BernoulliNB):
        magnitude = np.maximum(magnitude, np.abs(model._missing_log_terms()).sum(1).max())
    allowed = TIE_ULPS * np.spacing(magnitude.astype(dtype))
    assert np.all(gap <= allowed), f"labels differ beyond {dtype.__name__} ties: {gap}"
    print(f"{type(model).__name__}: {differ.size} {dtype.__name__} tie(s) of "
          f"{len(expected)} rows")
    return differ.size


def _random_dense(n=300, d=12, k=4, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    X = rng.normal(size=(n, d)) + y[:, None] * 0.3
    return X, y


def _with_nan(X, seed=1):
    X = np.array(X, dtype=np.float64)
    rng = np.random.default_rng(seed)
    X[rng.random(X.shape) < 0.1] = np.nan
    X[0] = np.nan  # a row with nothing observed: the priors alone
    return X


# -- GaussianNB and the discrete models ---------------------------------------------


def _dense_models():
    return [
        ("gaussian", fastnb.GaussianNB(), lambda X: X),
        ("bernoulli", fastnb.BernoulliNB(), lambda X: X),
        ("bernoulli-binarize-0.5", fastnb.BernoulliNB(binarize=0.5), lambda X: X),
        ("bernoulli-binarize-None", fastnb.BernoulliNB(binarize=None),
         lambda X: (X > 0).astype(np.float64)),
        ("multinomial", fastnb.MultinomialNB(), lambda X: np.round(np.abs(X) * 3)),
        ("multinomial-alpha-array", fastnb.MultinomialNB(alpha=np.linspace(0.1, 2, 12)),
         lambda X: np.abs(X)),
        ("complement", fastnb.ComplementNB(), lambda X: np.round(np.abs(X) * 3)),
        ("complement-norm", fastnb.ComplementNB(norm=True), lambda X: np.abs(X)),
    ]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name,model,transform", _dense_models(),
                         ids=[m[0] for m in _dense_models()])
def test_dense_models_match_fastnb(name, model, transform, dtype):
    X, y = _random_dense()
    X = transform(X)
    model.fit(X, y)
    X_test = _with_nan(transform(_random_dense(seed=5)[0])).astype(dtype)
    for zipmap in (False, True):
        onnx_model = fastnb.onnx.to_onnx(model, X[:1], dtype=dtype, zipmap=zipmap)
        check_against_fastnb(model, onnx_model, {"X": X_test}, X_test, dtype, zipmap)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_gaussian_on_iris(dtype):
    X, y = load_iris(return_X_y=True)
    model = fastnb.GaussianNB().fit(X, y)
    X_test = _with_nan(X).astype(dtype)
    onnx_model = fastnb.onnx.to_onnx(model, X[:1], dtype=dtype, zipmap=False)
    check_against_fastnb(model, onnx_model, {"X": X_test}, X_test, dtype)


def test_gaussian_many_features_counts_float32_ties(record_property):
    """100 features, 10 classes (the benchmark's shape), 2,000 rows: the float32
    graph's labels equal fastnb's but on ties, counted."""
    X, y = _random_dense(n=2000, d=100, k=10, seed=3)
    X *= 0.2
    model = fastnb.GaussianNB().fit(X, y)
    X32 = X.astype(np.float32)
    onnx_model = fastnb.onnx.to_onnx(model, X[:1], zipmap=False)
    ties = check_against_fastnb(model, onnx_model, {"X": X32}, X32, np.float32)
    record_property("float32_ties", ties)
    assert ties <= 2


def _table_model(model):
    """A model on the sparse count table: hashed-text-like CSR counts over
    2**16 features and 16 classes (1,048,576 cells, the table's threshold)."""
    sparse = pytest.importorskip("scipy.sparse")
    rng = np.random.default_rng(7)
    n, d, k = 400, 1 << 16, 16
    y = np.arange(n) % k
    rows = np.repeat(np.arange(n), 20)
    cols = (rng.zipf(1.3, n * 20) * 2654435761 + y[rows] * 97) % d
    X = sparse.csr_matrix((np.ones(n * 20), (rows, cols)), shape=(n, d))
    X.sum_duplicates()
    model.fit(X, y)
    assert model.__dict__.get("_table") is not None, "the model is not on the table"
    return model, X


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("model", [fastnb.MultinomialNB(), fastnb.ComplementNB(),
                                   fastnb.ComplementNB(norm=True), fastnb.BernoulliNB()],
                         ids=["multinomial", "complement", "complement-norm",
                              "bernoulli"])
def test_models_on_the_sparse_count_table(model, dtype):
    model, X = _table_model(model)
    X_test = X[:60].toarray()
    if isinstance(model, fastnb.BernoulliNB):
        X_test = _with_nan(X_test)
    X_test = X_test.astype(dtype)
    onnx_model = fastnb.onnx.to_onnx(model, X_test[:1], dtype=dtype, zipmap=False)
    weights = [t for t in onnx_model.graph.initializer if t.name == "weights"][0]
    assert tuple(weights.dims) == (X.shape[1], model.classes_.shape[0])
    assert weights.data_type == (onnx.TensorProto.FLOAT if dtype == np.float32
                                 else onnx.TensorProto.DOUBLE)
    check_against_fastnb(model, onnx_model, {"X": X_test}, X_test, dtype)


def test_table_export_writes_no_float64_copy():
    """The float32 weights of a table model are written by blocks of features:
    the export's peak extra memory stays near the float32 weights (k d 4
    bytes), far below a dense float64 copy (k d 8)."""
    import tracemalloc

    model, X = _table_model(fastnb.MultinomialNB())
    model.predict(X[:1])  # the table's predict state, as after training
    k, d = model.classes_.shape[0], X.shape[1]
    tracemalloc.start()
    fastnb.onnx.to_onnx(model, None, zipmap=False)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    # the float32 weights, their bytes in the TensorProto, and a block of scratch:
    # a float64 copy on top of the two would be 4 times the weights
    assert peak < 3.2 * k * d * 4, peak


# -- CategoricalNB -------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_categorical_codes_with_missing_and_unseen(dtype):
    rng = np.random.default_rng(2)
    X = rng.integers(0, 6, size=(400, 5)).astype(np.float64)
    y = rng.integers(0, 3, 400)
    model = fastnb.CategoricalNB(alpha=0.5).fit(X, y)
    X_test = _with_nan(rng.integers(0, 6, size=(200, 5)))
    X_test[1::7, 1] = 40     # out of range: unseen
    X_test[2::9, 2] = -3     # negative: unseen
    X_test[3::11, 3] = 2.5   # not an integer: unseen
    X_test = X_test.astype(dtype)
    for zipmap in (False, True):
        onnx_model = fastnb.onnx.to_onnx(model, X[:1], dtype=dtype, zipmap=zipmap)
        check_against_fastnb(model, onnx_model, {"X": X_test}, X_test, dtype, zipmap)


def test_categorical_strings_with_missing_and_unseen():
    rng = np.random.default_rng(4)
    X = rng.choice(["red", "green", "blue", "grey"], size=(300, 3)).astype(object)
    y = rng.choice(["cat", "dog"], 300)
    model = fastnb.CategoricalNB().fit(X, y)
    X_test = X[:100].copy()
    X_test[::4, 1] = "purple"          # unseen
    X_test[1::5, 2] = None              # missing: the empty string in ONNX
    feeds = {"X": np.where(X_test == None, "", X_test).astype(str)}  # noqa: E711
    onnx_model = fastnb.onnx.to_onnx(model, X[:1])
    assert onnx_model.graph.input[0].type.tensor_type.elem_type == onnx.TensorProto.STRING
    check_against_fastnb(model, onnx_model, feeds, X_test, np.float32, zipmap=True)


def test_categorical_number_categories():
    rng = np.random.default_rng(5)
    X = rng.choice([-7.0, 0.25, 3.0, 1e6], size=(300, 2))
    y = rng.integers(0, 3, 300)
    model = fastnb.CategoricalNB().fit(X, y)
    X_test = _with_nan(X[:80])
    X_test[::3, 0] = 8.0   # unseen
    onnx_model = fastnb.onnx.to_onnx(model, X[:1], dtype=np.float64, zipmap=False)
    check_against_fastnb(model, onnx_model, {"X": X_test}, X_test, np.float64)
    onnx_model = fastnb.onnx.to_onnx(model, X[:1], zipmap=False)
    check_against_fastnb(model, onnx_model, {"X": X_test.astype(np.float32)},
                         X_test.astype(np.float32), np.float32)


def test_categorical_categories_float32_cannot_hold():
    X = np.array([[16777217.0], [16777216.0], [3.0]])
    model = fastnb.CategoricalNB().fit(X, [0, 1, 0])
    with pytest.raises(ValueError, match="dtype=np.float64"):
        fastnb.onnx.to_onnx(model, X[:1])
    fastnb.onnx.to_onnx(model, X[:1], dtype=np.float64)


# -- ColumnwiseNB --------------------------------------------------------------------


def _penguin_feeds(X, dtype):
    """One (n, 1) input a column: strings ("" for missing) and numbers."""
    feeds = {}
    for name in X.columns:
        column = X[[name]]
        if column.dtypes.iloc[0].kind in "fiub":
            feeds[name] = column.to_numpy(dtype=dtype)
        else:
            feeds[name] = column.astype(object).fillna("").to_numpy(dtype=str)
    return feeds


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_columnwise_on_penguins(dtype):
    pytest.importorskip("pandas")
    X, y = load_penguins(return_X_y=True, as_frame=True)
    model = fastnb.ColumnwiseNB().fit(X, y)
    onnx_model = fastnb.onnx.to_onnx(model, X[:1], dtype=dtype, zipmap=False)
    assert {i.name for i in onnx_model.graph.input} == set(X.columns)
    X_test = X.copy()
    X_test.loc[X_test.index[::10], "island"] = "Atlantis"   # unseen
    check_against_fastnb(model, onnx_model, _penguin_feeds(X_test, dtype), X_test, dtype)


def test_columnwise_explicit_sub_models_and_skl2onnx():
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(6)
    n = 300
    X = pd.DataFrame({"height": rng.normal(size=n), "count": rng.poisson(3, n) * 1.0,
                      "colour": rng.choice(["red", "blue", "green"], n),
                      "code": rng.integers(0, 4, n) * 1.0, "unused": rng.normal(size=n)})
    y = rng.integers(0, 3, n)
    model = fastnb.ColumnwiseNB([
        ("size", fastnb.GaussianNB(), ["height"]),
        ("counts", fastnb.MultinomialNB(), ["count"]),
        ("tags", fastnb.CategoricalNB(), ["colour", "code"]),
    ], remainder="drop").fit(X, y)
    X_test = X.copy()
    X_test.loc[X_test.index[::7], "height"] = np.nan
    X_test.loc[X_test.index[::5], "colour"] = "white"
    onnx_model = fastnb.onnx.to_onnx(model, X[:1], zipmap=False)
    assert [i.name for i in onnx_model.graph.input] == ["height", "count", "colour", "code"]
    feeds = _penguin_feeds(X_test.drop(columns="unused"), np.float32)
    check_against_fastnb(model, onnx_model, feeds, X_test, np.float32)
    # skl2onnx: one input a DataFrame column (float64: the graph computes in it)
    converted = skl2onnx.to_onnx(model, X[:1], options={"zipmap": False})
    feeds = {name: X_test[[name]].to_numpy() if name != "colour"
             else X_test[[name]].to_numpy(dtype=str) for name in X.columns}
    check_against_fastnb(model, converted, feeds, X_test, np.float64)


# -- skl2onnx ------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_skl2onnx_pipeline_round_trips(dtype):
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    X, y = load_iris(return_X_y=True)
    labels = np.array(["setosa", "versicolor", "virginica"])[y]
    pipe = make_pipeline(StandardScaler(), fastnb.GaussianNB()).fit(X, labels)
    X_test = X.astype(dtype)
    for options in (None, {id(pipe[-1]): {"zipmap": False}}):
        onnx_model = skl2onnx.to_onnx(pipe, X_test[:1], options=options)
        got_labels, proba = _run(onnx_model, {"X": X_test}, pipe.classes_)
        np.testing.assert_array_equal(got_labels, pipe.predict(X_test))
        # skl2onnx's scaler computes in the input's type
        np.testing.assert_allclose(proba, pipe.predict_proba(X_test), rtol=0,
                                   atol=1e-5 if dtype == np.float32 or options is None
                                   else 1e-12)


@pytest.mark.parametrize("model", [fastnb.BernoulliNB(), fastnb.MultinomialNB(),
                                   fastnb.ComplementNB(), fastnb.CategoricalNB()],
                         ids=["bernoulli", "multinomial", "complement", "categorical"])
def test_skl2onnx_to_onnx_of_each_model(model):
    rng = np.random.default_rng(8)
    X = rng.integers(0, 4, size=(200, 6)).astype(np.float32)
    y = rng.integers(0, 3, 200)
    model.fit(X, y)
    onnx_model = skl2onnx.to_onnx(model, X[:1], options={"zipmap": False})
    assert [o.name for o in onnx_model.graph.output] == ["label", "probabilities"]
    check_against_fastnb(model, onnx_model, {"X": X}, X, np.float32)


# -- bad input -----------------------------------------------------------------------


def test_unfitted_model_is_refused():
    with pytest.raises(ValueError, match="not fitted yet.*classes_"):
        fastnb.onnx.to_onnx(fastnb.GaussianNB(), np.zeros((1, 2)))
    with pytest.raises(ValueError, match="not fitted"):
        skl2onnx.to_onnx(fastnb.MultinomialNB(), np.zeros((1, 2), dtype=np.float32))


def test_unsupported_options_are_named():
    X, y = _random_dense(n=40, d=3, k=2)
    model = fastnb.GaussianNB().fit(X, y)
    with pytest.raises(ValueError, match="dtype must be np.float32 or np.float64"):
        fastnb.onnx.to_onnx(model, X[:1], dtype=np.int32)
    with pytest.raises(ValueError, match="zipmap must be True or False"):
        fastnb.onnx.to_onnx(model, X[:1], zipmap="columns")
    with pytest.raises(ValueError, match="opset 13 or later"):
        fastnb.onnx.to_onnx(model, X[:1], target_opset=9)
    with pytest.raises(ValueError, match="expecting 3 features"):
        fastnb.onnx.to_onnx(model, X[:1, :2])
    with pytest.raises(TypeError, match="fastnb.onnx takes fastnb models .BernoulliNB"):
        fastnb.onnx.to_onnx(object(), X[:1])
    with pytest.raises(ValueError, match="hash_buckets"):
        fastnb.onnx.to_onnx(fastnb.CategoricalNB(hash_buckets=8).fit(
            np.array([["a"], ["b"]], dtype=object), [0, 1]), None)
    mixed = np.array([["a", 1], ["b", 2], ["a", 3]], dtype=object)
    with pytest.raises(ValueError, match="string features .* and numeric ones"):
        fastnb.onnx.to_onnx(fastnb.CategoricalNB().fit(mixed, [0, 1, 0]), None)


@pytest.mark.parametrize("opset", [13, 17, 21])
def test_opsets(opset):
    X, y = _random_dense(n=100, d=4, k=3)
    for model in (fastnb.GaussianNB().fit(X, y),
                  fastnb.CategoricalNB().fit(np.round(np.abs(X)), y)):
        onnx_model = fastnb.onnx.to_onnx(model, X[:1], target_opset=opset, zipmap=False)
        assert onnx_model.opset_import[0].version == opset
        X_test = np.abs(np.round(X)).astype(np.float32)
        check_against_fastnb(model, onnx_model, {"X": X_test}, X_test, np.float32)


def test_import_fastnb_imports_no_onnx(tmp_path):
    code = ("import sys, fastnb\n"
            "loaded = [m for m in ('onnx', 'onnxruntime', 'skl2onnx', 'fastnb.onnx')"
            " if m in sys.modules]\n"
            "assert not loaded, loaded\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True,
                            text=True, cwd=tmp_path)
    assert result.returncode == 0, result.stderr



@pytest.mark.parametrize("model", [fastnb.GaussianNB(), fastnb.BernoulliNB(binarize=1.5),
                                   fastnb.ComplementNB(norm=True), fastnb.CategoricalNB()],
                         ids=["gaussian", "bernoulli", "complement-norm", "categorical"])
def test_a_saved_and_loaded_model_exports_the_same_graph(model, tmp_path):
    rng = np.random.default_rng(9)
    X = rng.integers(0, 4, size=(200, 6)).astype(np.float64)
    model.fit(X, rng.integers(0, 3, 200))
    model.save(tmp_path / "model.fnb")
    loaded = fastnb.load(tmp_path / "model.fnb")
    assert (fastnb.onnx.to_onnx(loaded, X[:1]).SerializeToString()
            == fastnb.onnx.to_onnx(model, X[:1]).SerializeToString())
