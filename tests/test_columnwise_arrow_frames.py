"""ColumnwiseNB on frames that are not pandas' but export Arrow (polars, pyarrow's
Table): read by columns as pandas frames are, with the same answers as on the
same data in pandas, and columns selected by name."""

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

from fastnb import BernoulliNB, CategoricalNB, ColumnwiseNB, GaussianNB, MultinomialNB
from fastnb._columnwise import _table

pd = pytest.importorskip("pandas")
pa = pytest.importorskip("pyarrow")
pl = pytest.importorskip("polars")

BY_NAME = [
    ("normal", GaussianNB(), ["height", "weight"]),
    ("flags", BernoulliNB(), ["member"]),
    ("words", CategoricalNB(alpha=0.5), ["colour", "size", "rooms"]),
    ("counts", MultinomialNB(), ["visits"]),
]


def polars_frame(rng, n=500, k=3, missing=True):
    """Floats, strings, a polars Categorical, bools, small integers and counts;
    with nulls in the floats, strings, bools and small integers when missing."""
    y = rng.integers(0, k, n)
    words = np.array(["red", "green", "blue", "\u00e9t\u00e9"])

    def nulls(values):
        if not missing:
            return list(values)
        return [None if gone else v for v, gone in
                zip(values.tolist(), rng.random(n) < 0.05)]

    frame = pl.DataFrame({
        "height": nulls(rng.normal(size=n) + y),
        "weight": rng.normal(size=n) * 10 + 1e4 + 3 * y,
        "colour": nulls(words[(rng.integers(0, 3, n) + y) % 4]),
        "size": pl.Series(np.array(["S", "M", "L"])[(rng.integers(0, 2, n) + y) % 3],
                          dtype=pl.Categorical),
        "member": nulls(rng.random(n) < 0.3 + 0.2 * (y == 1)),
        "rooms": nulls((rng.integers(0, 4, n) + y) % 6),
        "visits": rng.poisson(1.0 + y, n),
    })
    return frame, y


def as_pandas(frame):
    """The same data as pandas holds it without Arrow: NumPy columns, objects
    (None) for strings, a pandas categorical, nullable Int64 and boolean."""
    out = frame.to_pandas()
    for name in ("colour",):
        out[name] = out[name].astype(object)
    for name, dtype in (("rooms", "Int64"), ("member", "boolean")):
        if out[name].dtype == object or out[name].isna().any():
            out[name] = out[name].astype(dtype)
    return out


@pytest.mark.parametrize("missing", [False, True])
@pytest.mark.parametrize("estimators", ["auto", BY_NAME], ids=["auto", "by-name"])
def test_polars_gives_what_the_same_pandas_frame_gives(rng, estimators, missing):
    frame, y = polars_frame(rng, missing=missing)
    expected = ColumnwiseNB(estimators).fit(as_pandas(frame), y)
    model = ColumnwiseNB(estimators).fit(frame, y)
    assert_array_equal(model.feature_names_in_, frame.columns)
    assert [(name, columns) for name, _, columns in model.estimators_] == [
        (name, columns) for name, _, columns in expected.estimators_]
    assert_allclose(model.predict_proba(frame), expected.predict_proba(
        as_pandas(frame)), rtol=1e-12, atol=1e-300)
    assert_array_equal(model.predict(frame), expected.predict(as_pandas(frame)))


def test_a_pyarrow_table_is_read_as_polars_is(rng):
    frame, y = polars_frame(rng)
    table = frame.to_arrow()
    from_polars = ColumnwiseNB(BY_NAME).fit(frame, y)
    model = ColumnwiseNB(BY_NAME).fit(table, y)
    assert_array_equal(model.feature_names_in_, table.column_names)
    assert_allclose(model.predict_proba(table), from_polars.predict_proba(frame),
                    rtol=1e-12)


def test_polars_columns_are_read_in_place_not_as_one_object_array(rng, monkeypatch):
    """The point of the Arrow path: numeric columns come as NumPy arrays of their
    own dtype and strings as Arrow strings; nothing builds an (n, d) object array."""
    frame, _ = polars_frame(rng, missing=False)
    table = _table._Table(frame, "ColumnwiseNB")
    assert table.array is None
    assert table.labels == frame.columns
    kinds = {label: column.dtype for label, column in zip(table.labels, table.columns)}
    assert kinds["height"] == np.float64 and kinds["member"] == np.bool_
    assert kinds["visits"] == np.int64
    assert table.arrow_strings(table.labels.index("colour")) is not None


def test_names_select_columns_without_pyarrow(rng, monkeypatch):
    """Without pyarrow a polars frame is read as one array, and its column names
    still select the sub-models' columns (they failed to before)."""
    frame, y = polars_frame(rng, missing=False)
    monkeypatch.setattr(_table, "_arrow_table", lambda X: None)
    spec = [("normal", GaussianNB(), ["height", "weight"]),
            ("counts", MultinomialNB(), ["visits"]),
            ("words", CategoricalNB(), ["colour", "size"])]
    model = ColumnwiseNB(spec, remainder="drop").fit(frame, y)
    expected = ColumnwiseNB(spec, remainder="drop").fit(as_pandas(frame), y)
    assert_allclose(model.predict_proba(frame), expected.predict_proba(
        as_pandas(frame)), rtol=1e-12)
