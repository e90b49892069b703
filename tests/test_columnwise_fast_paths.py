"""ColumnwiseNB's fast paths on DataFrames, held to the slow ones: Arrow string
columns factorised by a kernel (fit); *tabled* sub-models, a CategoricalNB whose
columns are all Arrow strings or a BernoulliNB whose columns are all NumPy bools
(predict: each distinct value's terms, then a gather); and DataFrame columns put
side by side by a kernel. Every result is compared
with the hand sum of the sub-models or with the same data as Python objects."""

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

import fastnb._columnwise as columnwise
from fastnb import BernoulliNB, CategoricalNB, ColumnwiseNB, GaussianNB
from fastnb._columnwise import _table
from test_columnwise import hand_jll, normalised

pd = pytest.importorskip("pandas")
pa = pytest.importorskip("pyarrow")

STRING_DTYPES = ["str", "string[pyarrow]", "arrow-string", "arrow-large-string"]


def _dtype(name):
    return {"arrow-string": pd.ArrowDtype(pa.string()),
            "arrow-large-string": pd.ArrowDtype(pa.large_string())}.get(name, name)


def string_frame(rng, n=500, k=3, dtype="str", many=False):
    """Floats, bools and three string columns (NA, the empty string, non-ASCII,
    strings longer than 8 bytes; ``many``: one column of mostly distinct values)."""
    y = rng.integers(0, k, n)
    words = np.array(["", "red", "green", "blue", "\u00e9t\u00e9 \u65e5\u672c",
                      "a value longer than eight bytes"], dtype=object)
    a = words[(rng.integers(0, 4, n) + y) % 6]
    b = words[(rng.integers(0, 3, n) + 2 * y) % 6]
    c = np.array([f"id-{i}" for i in rng.integers(0, n, n)], dtype=object) if many \
        else words[rng.integers(0, 6, n)]
    for column in (a, b, c):
        column[rng.random(n) < 0.07] = None
    frame = pd.DataFrame({
        "x": rng.normal(size=n) + y,
        "a": pd.array(a, dtype=_dtype(dtype)),
        "z": rng.normal(size=n) - y,
        "b": pd.array(b, dtype=_dtype(dtype)),
        "flag": rng.random(n) < 0.3 + 0.2 * (y == 1),
        "c": pd.array(c, dtype=_dtype(dtype)),
        "flag2": rng.random(n) < 0.5,
    })
    return frame, y


@pytest.fixture
def tabled_calls(monkeypatch):
    """How many blocks went through the tabled path (a list, one entry a block)."""
    calls = []
    original = columnwise._predict._Prediction._value_terms

    def spy(self, *args):
        calls.append(args[1])
        return original(self, *args)

    monkeypatch.setattr(columnwise._predict._Prediction, "_value_terms", spy)
    return calls


TABLED = [
    ("normal", GaussianNB(), ["x", "z"]),
    ("words", CategoricalNB(alpha=0.5), ["a", "b", "c"]),
    ("flags", BernoulliNB(), ["flag", "flag2"]),
]


def as_objects(frame):
    """The same frame with its strings as a NumPy object column (the slow path)."""
    return frame.astype({c: object for c in "abc"}).replace({pd.NA: None})


@pytest.mark.parametrize("dtype", STRING_DTYPES)
@pytest.mark.parametrize("many", [False, True])
@pytest.mark.parametrize("priors", [None, [0.2, 0.5, 0.3]])
def test_tabled_sub_model_equals_the_hand_sum(rng, dtype, many, priors, tabled_calls):
    frame, y = string_frame(rng, dtype=dtype, many=many)
    model = ColumnwiseNB(TABLED, priors=priors).fit(frame, y)
    model.predict(frame)
    assert len(tabled_calls) == 2  # the strings and the bools, one block
    new, _ = string_frame(rng, n=300, dtype=dtype, many=many)  # unseen values too
    for X in (frame, new):
        expected = hand_jll(as_objects(frame), y, TABLED, priors,
                            X_new=as_objects(X))
        assert_allclose(model.predict_joint_log_proba(X), expected, rtol=1e-12)
        assert_allclose(model.predict_log_proba(X), normalised(expected), rtol=1e-12,
                        atol=1e-12)
        assert_array_equal(model.predict(X), np.argmax(expected, axis=1))
    # and the same model as one fitted on the strings as Python objects
    slow = ColumnwiseNB(TABLED, priors=priors).fit(as_objects(frame), y)
    assert_allclose(model.predict_joint_log_proba(new),
                    slow.predict_joint_log_proba(as_objects(new)), rtol=1e-12)
    words = model.named_estimators_["words"]
    for mine, theirs in zip(words.categories_,
                            slow.named_estimators_["words"].categories_):
        assert_array_equal(mine, theirs)


def test_tabled_sub_model_alone_equals_that_model(rng, tabled_calls):
    frame, y = string_frame(rng)
    alone = CategoricalNB().fit(as_objects(frame)[["a", "b", "c"]], y)
    model = ColumnwiseNB([("only", CategoricalNB(), ["a", "b", "c"])],
                         remainder="drop").fit(frame, y)
    objects = as_objects(frame)[["a", "b", "c"]]
    assert_allclose(model.predict_joint_log_proba(frame),
                    alone.predict_joint_log_proba(objects), rtol=1e-12)
    assert_allclose(model.predict_proba(frame), alone.predict_proba(objects),
                    rtol=1e-12, atol=1e-15)
    assert_array_equal(model.predict(frame), alone.predict(objects))
    assert len(tabled_calls) == 3


@pytest.mark.parametrize("bernoulli", [BernoulliNB(), BernoulliNB(binarize=None),
                                       BernoulliNB(alpha=0.2, binarize=0.5),
                                       BernoulliNB(binarize=1.0)])
def test_tabled_bernoulli_alone_equals_that_model(rng, bernoulli, tabled_calls):
    frame, y = string_frame(rng)
    columns = ["flag", "flag2"]
    alone = type(bernoulli)(**bernoulli.get_params()).fit(frame[columns], y)
    model = ColumnwiseNB([("only", bernoulli, columns)], remainder="drop").fit(frame, y)
    assert_allclose(model.predict_joint_log_proba(frame),
                    alone.predict_joint_log_proba(frame[columns]), rtol=1e-12)
    assert_array_equal(model.predict(frame), alone.predict(frame[columns]))
    assert len(tabled_calls) == 2


def test_auto_tables_a_frame_of_only_strings(rng):
    frame, y = string_frame(rng)
    frame = frame[["a", "b", "c"]]
    model = ColumnwiseNB().fit(frame, y)
    assert [name for name, _, _ in model.estimators_] == ["categorical"]
    spec = [(name, type(est)(), columns) for name, est, columns in model.estimators_]
    assert_allclose(model.predict_joint_log_proba(frame),
                    hand_jll(as_objects(frame), y, spec), rtol=1e-12)


def test_chunked_arrow_columns(rng):
    frame, y = string_frame(rng)
    twice = pd.concat([frame, frame.iloc[::-1]], ignore_index=True)
    assert twice["a"].array.__arrow_array__().num_chunks == 2
    model = ColumnwiseNB(TABLED).fit(twice, np.concatenate([y, y[::-1]]))
    objects = ColumnwiseNB(TABLED).fit(as_objects(twice), np.concatenate([y, y[::-1]]))
    assert_allclose(model.predict_joint_log_proba(twice),
                    objects.predict_joint_log_proba(as_objects(twice)), rtol=1e-12)


@pytest.mark.parametrize("block_rows", [1, 7, 64, 1 << 16])
def test_tabled_blocks_and_threads_give_the_same_bits(rng, parallel_kernels,
                                                     monkeypatch, block_rows):
    frame, y = string_frame(rng, n=700)
    expected = None
    with parallel_kernels():
        for n_threads in (1, 2, 3):
            model = ColumnwiseNB(TABLED, n_threads=n_threads).fit(frame, y)
            monkeypatch.setattr(columnwise._predict, "_PREDICT_BLOCK_ROWS", 1 << 16)
            if expected is None:
                expected = [getattr(model, m)(frame) for m in (
                    "predict", "predict_proba", "predict_joint_log_proba")]
            monkeypatch.setattr(columnwise._predict, "_PREDICT_BLOCK_ROWS", block_rows)
            for method, value in zip(("predict", "predict_proba",
                                      "predict_joint_log_proba"), expected):
                assert_array_equal(getattr(model, method)(frame), value,
                                   err_msg=f"{method} {n_threads}")


def test_tabled_unseen_class_of_partial_fit_is_impossible(rng):
    frame, y = string_frame(rng)
    model = ColumnwiseNB(TABLED).partial_fit(frame, y, classes=[0, 1, 2, 3])
    jll = model.predict_joint_log_proba(frame)
    assert np.all(jll[:, 3] == -np.inf) and np.all(np.isfinite(jll[:, :3]))
    assert_array_equal(model.predict_proba(frame)[:, 3], 0)


def test_tabled_rows_of_missing_values_are_decided_by_the_priors(rng):
    frame, y = string_frame(rng)
    model = ColumnwiseNB([("words", CategoricalNB(), ["a", "b", "c"])],
                         remainder="drop").fit(frame, y)
    empty = frame.iloc[:3].copy()
    for column in "abc":
        empty[column] = pd.array([None] * 3, dtype="str")
    assert_allclose(model.predict_joint_log_proba(empty),
                    np.tile(model.class_log_prior_, (3, 1)), rtol=1e-12)


# -- the kernels ------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", STRING_DTYPES)
def test_string_codes_number_the_strings_as_pandas_factorize(rng, dtype):
    words = np.array(["", "a", "\u00e9", "\u65e5\u672c\u8a9e", "x" * 17, "value-01",
                      "value-1"] + [f"w{i}" for i in range(3000)], dtype=object)
    values = words[rng.integers(0, len(words), 20_000)]
    values[rng.random(values.shape[0]) < 0.1] = None
    series = pd.Series(values, dtype=_dtype(dtype))
    strings = _table._arrow_strings(series)
    for start, stop in [(0, 20_000), (1, 2), (3_333, 12_345), (19_999, 20_000)]:
        codes = np.empty(stop - start, dtype=np.int32)
        uniques = _table._arrow_string_codes(strings, start, stop, codes)
        expected_codes, expected_uniques = series.array[start:stop].factorize()
        assert_array_equal(codes, expected_codes)
        assert list(uniques) == list(np.asarray(expected_uniques, dtype=object))


def test_string_codes_of_all_distinct_strings_grow_the_table():
    series = pd.Series([f"u{i}" for i in range(100_000)], dtype="str")
    codes = np.empty(100_000, dtype=np.int32)
    uniques = _table._arrow_string_codes(_table._arrow_strings(series), 0, 100_000,
                                         codes)
    assert_array_equal(codes, np.arange(100_000))
    assert list(uniques) == list(series)


def test_only_arrow_strings_take_the_kernel():
    for series in (pd.Series(["a"], dtype="string[python]"),
                   pd.Series(["a"], dtype="category"),
                   pd.Series([1], dtype=pd.ArrowDtype(pa.int64()))):
        assert _table._arrow_strings(series) is None
    assert _table._arrow_strings(np.array(["a"], dtype=object)) is None


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.bool_])
def test_stack_columns_puts_columns_side_by_side(rng, dtype):
    base = (rng.normal(size=(9, 1000)) > 0).astype(dtype)
    columns = [base[3], base[0], base[8, ::-1], np.asfortranarray(base)[5]]
    kernel_dtype = np.uint8 if dtype == np.bool_ else dtype
    for start, stop in [(0, 1000), (10, 300), (999, 1000)]:
        out = np.empty((stop - start, 4), dtype=dtype)
        _table._kernels.stack_columns([c.view(kernel_dtype) for c in columns],
                                      out.view(kernel_dtype), start)
        assert_array_equal(out, np.column_stack(columns)[start:stop])


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.bool_])
def test_blocks_of_frame_columns(rng, dtype):
    """Floats that pandas keeps in one 2d array come as a view of it; other
    columns, and bools, are put side by side into the caller's scratch."""
    values = (rng.normal(size=(1000, 6)) > 0).astype(dtype)
    frame = pd.DataFrame(values.copy())  # one 2d block: each column a row of it
    table = _table._Table(frame, "test")
    scratch = {}
    for positions in ([0, 1, 2], [5, 3, 1], [0, 1, 4], [2]):
        for start, stop in [(0, 1000), (10, 300), (999, 1000)]:
            block = table.block(np.array(positions), start, stop, False, scratch)
            assert block.dtype == dtype
            assert_array_equal(block, values[start:stop, positions])
            shared = np.shares_memory(block, frame.iloc[:, 0].to_numpy()) or \
                np.shares_memory(block, frame.iloc[:, positions[0]].to_numpy())
            if len(positions) > 1:
                assert shared == (dtype != np.bool_ and positions != [0, 1, 4])
    assert len(scratch) == (3 if dtype == np.bool_ else 1)


def test_stack_columns_refuses_short_columns():
    out = np.empty((10, 2))
    with pytest.raises(ValueError, match="too short"):
        _table._kernels.stack_columns([np.zeros(10), np.zeros(9)], out, 0)
    with pytest.raises(ValueError, match="one column per"):
        _table._kernels.stack_columns([np.zeros(10)], out, 0)
