"""Pickle-free save/load, pickling, and exact merging of fitted models."""

import io
import dataclasses
import json
import pickle
import subprocess
import sys
import zipfile

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal

import fastnb
from _registry import ESTIMATORS as REGISTRY, mixed_data, positive_data


def gaussian_data(rng, n=300, d=4, k=3):
    y = rng.integers(0, k, n)
    return rng.normal(size=(n, d)) + y[:, None], y


def count_data(rng, n=300, d=4, k=3):
    y = rng.integers(0, k, n)
    return rng.poisson(1.0 + y[:, None], size=(n, d)).astype(np.float64), y


def categorical_data(rng, n=300, d=4, k=3):
    """Mixed columns: strings, negative ints, codes 0..5, and mixed objects."""
    y = rng.integers(0, k, n)
    X = np.empty((n, d), dtype=object)
    words = np.array(["red", "green", "blue", "\u00e9t\u00e9", ""], dtype=object)
    for j in range(d):
        shifted = (rng.integers(0, 4, n) + y) % 6
        kind = j % 4
        if kind == 0:
            X[:, j] = words[shifted % len(words)]
        elif kind == 1:
            X[:, j] = shifted.astype(np.int64) - 2
        elif kind == 2:
            X[:, j] = shifted
        else:
            mixed = np.array([2**62, -7, 1.5, "x", b"y", 2**70, None], dtype=object)
            X[:, j] = mixed[shifted % len(mixed)]
    return X, y


# name -> (factory, data maker), for every registered estimator.
_DATA = {"continuous": gaussian_data, "counts": count_data, "categories": categorical_data,
         "mixed": mixed_data, "positive": positive_data}
ESTIMATORS = {
    name: (lambda spec=spec: spec.make(rich=True), _DATA[spec.data_kind])
    for name, spec in REGISTRY.items()
}


def fitted(name, rng, **data_kwargs):
    factory, make = ESTIMATORS[name]
    X, y = make(rng, **data_kwargs)
    return factory().fit(X, y), X, y


def public_state(model):
    """The fitted state (parameters are compared separately)."""
    params = model.get_params()
    return {k: v for k, v in vars(model).items() if k not in params}


def assert_same_value(a, b, name):
    """Equal values, element by element through lists and tuples (ragged ones
    included) and the fields of dataclasses, with equal dtypes for arrays."""
    if dataclasses.is_dataclass(a) and not isinstance(a, type):
        assert type(b) is type(a), name
        assert_same_value(dataclasses.astuple(a), dataclasses.astuple(b), name)
    elif isinstance(a, (list, tuple)):
        assert isinstance(b, type(a)) and len(a) == len(b), name
        for i, (x, y) in enumerate(zip(a, b)):
            assert_same_value(x, y, f"{name}[{i}]")
    elif isinstance(a, dict):
        assert isinstance(b, dict) and a.keys() == b.keys(), name
        for key in a:
            assert_same_value(a[key], b[key], f"{name}[{key!r}]")
    elif hasattr(a, "get_params"):  # a sub-model (ColumnwiseNB): same class and state
        assert type(a) is type(b), name
        assert_same_value(a.get_params(deep=False), b.get_params(deep=False), name)
        state_a, state_b = public_state(a), public_state(b)
        assert state_a.keys() == state_b.keys(), name
        for key in state_a:
            assert_same_value(state_a[key], state_b[key], f"{name}.{key}")
    elif isinstance(a, str):
        assert a == b, name
    elif a is None:
        assert b is None, name
    else:
        a, b = np.asarray(a), np.asarray(b)
        assert a.dtype == b.dtype, name
        assert_array_equal(a, b, err_msg=name)


def assert_same_model(a, b, X):
    assert type(a) is type(b)
    params_a, params_b = a.get_params(), b.get_params()
    assert params_a.keys() == params_b.keys()
    for key, value in params_a.items():  # array-likes come back as arrays
        if value is None or isinstance(value, (bool, str)):
            assert params_b[key] is value or params_b[key] == value, key
        else:
            assert_array_equal(np.asarray(params_b[key]), np.asarray(value), err_msg=key)
    state_a, state_b = public_state(a), public_state(b)
    assert state_a.keys() == state_b.keys()
    for key in state_a:
        assert_same_value(state_a[key], state_b[key], key)
    for method in ("predict", "predict_proba", "predict_joint_log_proba"):
        assert_array_equal(getattr(a, method)(X), getattr(b, method)(X))


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_save_load_round_trip_is_bit_exact(name, rng, tmp_path):
    model, X, _ = fitted(name, rng)
    path = tmp_path / "model.npz"
    model.save(path)
    assert_same_model(model, fastnb.load(path), X)


class _Unseekable(io.RawIOBase):
    """A stream without seek or tell (a socket, an object-store upload or
    download), read or written in small pieces."""

    def __init__(self, data=b""):
        self.data, self.at = bytearray(data), 0

    def readable(self):
        return True

    def writable(self):
        return True

    def readinto(self, buffer):
        n = min(len(buffer), len(self.data) - self.at, 4096)
        buffer[:n] = self.data[self.at:self.at + n]
        self.at += n
        return n

    def write(self, data):
        self.data += data
        return len(data)


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_save_load_through_file_objects_is_bit_exact(name, rng, tmp_path):
    """A model kept in a database or an object store: no temporary file."""
    model, X, _ = fitted(name, rng)
    path = tmp_path / "model.npz"
    model.save(path)
    stream = io.BytesIO()
    model.save(stream)
    assert stream.getvalue() == path.read_bytes()
    stream.seek(0)
    assert_same_model(model, fastnb.load(stream), X)
    with open(path, "rb") as handle:  # an open file
        assert_same_model(model, fastnb.load(handle), X)
    with open(tmp_path / "again.npz", "wb") as handle:
        model.save(handle)
        assert not handle.closed  # the caller's to close
    assert_same_model(model, fastnb.load(tmp_path / "again.npz"), X)
    upload = _Unseekable()
    model.save(upload)
    assert_same_model(model, fastnb.load(_Unseekable(upload.data)), X)
    assert_same_model(model, fastnb.load(io.BufferedReader(_Unseekable(upload.data))), X)


def test_a_file_object_is_read_from_its_position(rng):
    model, X, _ = fitted("GaussianNB", rng)
    stream = io.BytesIO()
    stream.write(b"a record's other fields")
    model.save(stream)
    stream.seek(len(b"a record's other fields"))
    assert_same_model(model, fastnb.load(stream), X)
    tail = _Unseekable(stream.getvalue())
    tail.at = len(b"a record's other fields")
    assert_same_model(model, fastnb.load(tail), X)


def test_text_streams_and_other_objects_are_type_errors(rng, tmp_path):
    model, _, _ = fitted("GaussianNB", rng)
    model.save(tmp_path / "model.npz")
    with pytest.raises(TypeError, match="save needs a binary file object"):
        model.save(io.StringIO())
    with open(tmp_path / "model.npz") as text, pytest.raises(
            TypeError, match="load needs a binary file object"):
        fastnb.load(text)
    for other in (None, 3, [b"PK"]):
        with pytest.raises(TypeError, match="a path .* or a binary file object"):
            fastnb.load(other)
        with pytest.raises(TypeError, match="a path .* or a binary file object"):
            model.save(other)


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_bytes_round_trip_is_the_file(name, rng, tmp_path):
    """to_bytes/from_bytes (fastnb.spark ships partition models so): the bytes are
    save's file, and they are checked as load checks a file."""
    from fastnb import _persist

    model, X, _ = fitted(name, rng)
    blob = _persist.to_bytes(model)
    assert_same_model(model, _persist.from_bytes(blob), X)
    model.save(tmp_path / "model.npz")
    assert_same_model(model, _persist.from_bytes((tmp_path / "model.npz").read_bytes()), X)
    with pytest.raises(ValueError, match="not a valid fastnb model"):
        _persist.from_bytes(blob[: len(blob) // 2])


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_save_load_keeps_labels_and_feature_names(name, rng, tmp_path):
    pd = pytest.importorskip("pandas")
    factory, make = ESTIMATORS[name]
    X, y = make(rng)
    labels = np.array(["ham", "spam", "eggs"], dtype=object)[y]
    frame = pd.DataFrame(X, columns=[f"f{j}" for j in range(X.shape[1])])
    model = factory().fit(frame, labels)
    model.save(tmp_path / "m.npz")
    loaded = fastnb.load(tmp_path / "m.npz")
    assert loaded.classes_.dtype == object
    assert_array_equal(loaded.feature_names_in_, model.feature_names_in_)
    assert_array_equal(loaded.predict(frame), model.predict(frame))


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_load_in_a_fresh_process(name, rng, tmp_path):
    model, X, _ = fitted(name, rng)
    model.save(tmp_path / "m.npz")
    # The test data may be an object array: it (not the model) travels by pickle.
    np.save(tmp_path / "X.npy", X, allow_pickle=True)
    np.save(tmp_path / "expected.npy", model.predict_proba(X))
    code = (
        "import sys, numpy as np, fastnb\n"
        "m = fastnb.load('m.npz')\n"
        "X = np.load('X.npy', allow_pickle=True)\n"
        "assert (m.predict_proba(X) == np.load('expected.npy')).all()\n"
        "print('same')\n"
    )
    result = subprocess.run([sys.executable, "-c", code], cwd=tmp_path,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "same"


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_pickle_round_trip_is_exact(name, rng):
    model, X, _ = fitted(name, rng)
    blob = pickle.dumps(model)
    assert_same_model(model, pickle.loads(blob), X)
    joblib = pytest.importorskip("joblib")
    buffer = io.BytesIO()
    joblib.dump(model, buffer)
    buffer.seek(0)
    assert_same_model(model, joblib.load(buffer), X)


def _rewrite(path, out, *, header=None, arrays=None, drop=(), extra=None):
    with np.load(path, allow_pickle=False) as archive:
        members = {name: archive[name] for name in archive.files}
    if header is not None:
        members["header"] = np.frombuffer(json.dumps(header).encode(), dtype=np.uint8)
    for name, value in (arrays or {}).items():
        members[name] = value
    for name in drop:
        del members[name]
    members.update(extra or {})
    with open(out, "wb") as handle:
        np.savez(handle, **members)
    return out


def _header(path):
    with np.load(path, allow_pickle=False) as archive:
        return json.loads(archive["header"].tobytes())


def _last_float_array(path):
    """The name of the last float64 member the header lists."""
    with np.load(path, allow_pickle=False) as archive:
        return [name for name in _header(path)["arrays"]
                if archive[name].dtype == np.float64 and archive[name].size][-1]


CORRUPTIONS = {
    "truncated": lambda p, o: o.write_bytes(p.read_bytes()[: len(p.read_bytes()) // 2]),
    "empty": lambda p, o: o.write_bytes(b""),
    "not a zip": lambda p, o: o.write_bytes(b"\x93NUMPY garbage" * 10),
    "random bytes": lambda p, o: o.write_bytes(np.random.default_rng(0).bytes(5000)),
    "pickle payload": lambda p, o: o.write_bytes(pickle.dumps({"os": "system"})),
    "no header": lambda p, o: _rewrite(p, o, drop=["header"]),
    "header not json": lambda p, o: _rewrite(
        p, o, extra={"header": np.frombuffer(b"{not json", dtype=np.uint8)}),
    "wrong format": lambda p, o: _rewrite(p, o, header={**_header(p), "format": "x"}),
    "future version": lambda p, o: _rewrite(
        p, o, header={**_header(p), "format_version": 99}),
    "unknown estimator": lambda p, o: _rewrite(
        p, o, header={**_header(p), "estimator": "os.system"}),
    "unknown parameter": lambda p, o: _rewrite(
        p, o, header={**_header(p), "params": {**_header(p)["params"], "evil": 1}}),
    "bad parameter value": lambda p, o: _rewrite(
        p, o, header={**_header(p), "params": {
            **_header(p)["params"], "n_threads": {"array": [1], "dtype": "|O"}}}),
    "n_features mismatch": lambda p, o: _rewrite(
        p, o, header={**_header(p), "n_features_in": 99}),
    "missing array": lambda p, o: _rewrite(p, o, drop=[_header(p)["arrays"][-1]]),
    "extra array": lambda p, o: _rewrite(p, o, extra={"payload": np.zeros(3)}),
    "object array": lambda p, o: _rewrite(
        p, o, extra={"classes": np.array([object(), object()], dtype=object)}),
    "nan in statistics": lambda p, o: _rewrite(
        p, o, arrays={_last_float_array(p): np.full_like(
            np.load(p)[_last_float_array(p)], np.nan)}),
    "negative counts": lambda p, o: _rewrite(
        p, o, arrays={"class_count_": -np.load(p)["class_count_"]}),
    "wrong dtype": lambda p, o: _rewrite(
        p, o, arrays={"class_count_": np.load(p)["class_count_"].astype(np.float32)}),
    "wrong shape": lambda p, o: _rewrite(
        p, o, arrays={"class_count_": np.load(p)["class_count_"][:-1]}),
    "unsorted classes": lambda p, o: _rewrite(
        p, o, arrays={"classes": np.load(p)["classes"][::-1].copy()}),
}


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
@pytest.mark.parametrize("corruption", sorted(CORRUPTIONS))
def test_damaged_files_give_a_clear_error(name, corruption, rng, tmp_path):
    model, _, _ = fitted(name, rng)
    good, bad = tmp_path / "good.npz", tmp_path / "bad.npz"
    model.save(good)
    CORRUPTIONS[corruption](good, bad)
    with pytest.raises(ValueError, match="not a valid fastnb model file"):
        fastnb.load(bad)


def test_missing_file_is_file_not_found(tmp_path):
    with pytest.raises(FileNotFoundError):
        fastnb.load(tmp_path / "absent.npz")


def test_save_refuses_unsaveable_labels(rng, tmp_path):
    X, y = gaussian_data(rng)
    labels = np.empty(3, dtype=object)
    labels[:] = [(1,), (2,), (3,)]
    model = fastnb.GaussianNB().fit(X, labels[y])
    with pytest.raises(ValueError, match="classes_ are objects"):
        model.save(tmp_path / "m.npz")


def test_hostile_zip_member_size_is_refused(rng, tmp_path):
    model, _, _ = fitted("GaussianNB", rng)
    good = tmp_path / "good.npz"
    model.save(good)
    bad = tmp_path / "bomb.npz"
    with zipfile.ZipFile(good) as source, zipfile.ZipFile(bad, "w") as target:
        for info in source.infolist():
            data = source.read(info)
            if info.filename == "header.npy":
                data = data + b" " * (2 << 20)  # a header past the size limit
            target.writestr(info.filename, data)
    with pytest.raises(ValueError, match="not a valid fastnb model file"):
        fastnb.load(bad)


# -- merge ---------------------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(ESTIMATORS))
@given(seed=st.integers(0, 2**32 - 1), n_parts=st.integers(2, 4),
       weighted=st.booleans())
def test_merge_of_fits_equals_fit_of_union(name, seed, n_parts, weighted):
    rng = np.random.default_rng(seed)
    factory, make = ESTIMATORS[name]
    X, y = make(rng, n=int(rng.integers(20, 400)))
    weights = rng.uniform(0.1, 3, len(y)) if weighted else None
    # Parts split at random; sorting by label first gives parts that miss classes.
    order = np.argsort(y, kind="stable") if rng.random() < 0.5 else rng.permutation(len(y))
    cuts = np.unique(rng.integers(1, len(y), n_parts - 1))
    parts = []
    for rows in np.split(order, cuts):
        w = None if weights is None else weights[rows]
        parts.append(factory().fit(X[rows], y[rows], sample_weight=w))
    merged = fastnb.merge(*parts)
    whole = factory().fit(X, y, sample_weight=weights)
    assert_array_equal(merged.classes_, whole.classes_)
    for key, value in whole._sufficient_state().items():
        assert_allclose(merged._sufficient_state()[key], value, rtol=1e-10, atol=1e-9,
                        err_msg=key)
    assert_allclose(merged.predict_joint_log_proba(X), whole.predict_joint_log_proba(X),
                    rtol=1e-10, atol=1e-8)


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_merge_refuses_incompatible_models(name, rng):
    factory, make = ESTIMATORS[name]
    X, y = make(rng)
    a = factory().fit(X, y)
    with pytest.raises(ValueError, match="features"):
        fastnb.merge(a, factory().fit(X[:, :-1], y))
    with pytest.raises(TypeError, match="Cannot merge"):
        fastnb.merge(a, object())
    with pytest.raises(fastnb.NotFittedError):
        fastnb.merge(a, factory())
    with pytest.raises(ValueError, match="at least one"):
        fastnb.merge()
    params = {k: v for k, v in a.get_params().items() if isinstance(v, float)}
    if params:
        key = sorted(params)[0]
        other = factory().set_params(**{key: params[key] * 2 + 1}).fit(X, y)
        with pytest.raises(ValueError, match="different parameters"):
            fastnb.merge(a, other)
    before = pickle.dumps(vars(a))
    fastnb.merge(a, factory().fit(X, y))
    assert pickle.dumps(vars(a)) == before  # inputs untouched


@pytest.mark.parametrize("name", ["GaussianNB", "MultinomialNB", "BernoulliNB",
                                  "ComplementNB", "CategoricalNB"])
def test_merge_of_a_scikit_learn_model_names_what_merge_takes(name, rng):
    """scikit-learn's class of the same name is not fastnb's: a TypeError, not an
    AttributeError on a private method."""
    sklearn_nb = pytest.importorskip("sklearn.naive_bayes")
    X, y = rng.integers(0, 3, (30, 4)), rng.integers(0, 2, 30)
    theirs = getattr(sklearn_nb, name)().fit(X, y)
    ours = getattr(fastnb, name)().fit(X, y)
    for models in ((theirs,), (ours, theirs), ([theirs, theirs],)):
        with pytest.raises(TypeError, match=f"Cannot merge sklearn's {name}: merge "
                           "takes fitted fastnb estimators of one class"):
            fastnb.merge(*models)


# -- CategoricalNB: categories of every kind, as plain arrays --------------------------
def _categorical_models():
    """name -> (model, X): every kind of category CategoricalNB keeps."""
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(5)
    n = 200
    y = rng.integers(0, 3, n)
    ints = np.array([-(2**63), -5, 0, 7, 2**62, 2**63 - 1], dtype=np.int64)
    X_int = np.stack([ints[rng.integers(0, 6, n)], rng.integers(0, 9, n)], axis=1)
    X_float = np.stack([rng.choice([-2.5, 0.25, 1e300, np.inf, -np.inf, np.nan], n),
                        rng.choice([0.0, 1.0, 3.0], n)], axis=1)
    mixed = np.array([True, 3, 2.5, "s", "\u00e9\U0001f600", b"\x00\xff", 2**64 + 3,
                      -(2**70), np.str_("npstr"), None, float("nan")], dtype=object)
    X_obj = mixed[rng.integers(0, mixed.size, (n, 3))]
    frame = pd.DataFrame({
        "cat": pd.Categorical(rng.choice(["lo", "mid", "hi"], n),
                              categories=["lo", "mid", "hi", "never"]),
        "str": pd.array(rng.choice(["a", "b", None], n), dtype="string"),
        "int": rng.integers(-3, 3, n),
        "bool": rng.random(n) < 0.5,
    })
    labels = np.array(["x", "y", "z"], dtype=object)[y]
    return {
        "ints": (fastnb.CategoricalNB().fit(X_int, y), X_int),
        "floats": (fastnb.CategoricalNB(alpha=0.3).fit(X_float, y), X_float),
        "objects": (fastnb.CategoricalNB(fit_prior=False).fit(X_obj, y), X_obj),
        "dataframe": (fastnb.CategoricalNB().fit(frame, labels), frame),
        "hash_buckets": (fastnb.CategoricalNB(hash_buckets=13).fit(X_obj, y), X_obj),
        "min_categories": (fastnb.CategoricalNB(min_categories=[4, 12]).fit(
            X_int[:, 1:].repeat(2, axis=1), y), X_int[:, 1:].repeat(2, axis=1)),
        "class_prior": (fastnb.CategoricalNB(class_prior=[0.2, 0.3, 0.5]).partial_fit(
            X_obj, y, classes=[0, 1, 2]), X_obj),
        "weighted": (fastnb.CategoricalNB().fit(X_obj, y, sample_weight=rng.uniform(
            0, 2, n)), X_obj),
    }


CATEGORICAL_CASES = ["ints", "floats", "objects", "dataframe", "hash_buckets",
                     "min_categories", "class_prior", "weighted"]


@pytest.mark.parametrize("case", CATEGORICAL_CASES)
def test_categorical_round_trip_of_every_category_kind(case, tmp_path):
    model, X = _categorical_models()[case]
    model.save(tmp_path / "m.npz")
    loaded = fastnb.load(tmp_path / "m.npz")
    assert_same_model(model, loaded, X)
    for a, b in zip(model.categories_, loaded.categories_):
        if a is not None:
            assert [type(v) for v in a] == [type(v) for v in b]
    with np.load(tmp_path / "m.npz", allow_pickle=False) as archive:
        assert all(archive[name].dtype != object for name in archive.files)


def test_categorical_round_trip_in_a_fresh_process(tmp_path):
    model, X = _categorical_models()["objects"]
    model.save(tmp_path / "m.npz")
    np.save(tmp_path / "expected.npy", model.predict_joint_log_proba(X))
    np.save(tmp_path / "X.npy", X, allow_pickle=True)
    code = (
        "import numpy as np, fastnb\n"
        "m = fastnb.load('m.npz')\n"
        "X = np.load('X.npy', allow_pickle=True)\n"
        "assert (m.predict_joint_log_proba(X) == np.load('expected.npy')).all()\n"
        "print(repr([list(c) for c in m.categories_]))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], cwd=tmp_path,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == repr([list(c) for c in model.categories_])


def test_categorical_save_refuses_unsaveable_categories(tmp_path):
    X = np.empty((2, 1), dtype=object)
    X[0, 0], X[1, 0] = (1, 2), (3,)
    model = fastnb.CategoricalNB().fit(X, [0, 1])
    with pytest.raises(ValueError, match="feature 0 has the category"):
        model.save(tmp_path / "m.npz")
    assert not (tmp_path / "m.npz").exists()


def _set(name, fn):
    return lambda p, o: _rewrite(p, o, arrays={name: fn(np.load(p)[name])})


def _swap_first_two(a):
    a = a.copy()
    a[[0, 1]] = a[[1, 0]]
    return a


CATEGORICAL_CORRUPTIONS = {
    "nan count": _set("category_count", lambda a: np.where(a == a.max(), np.nan, a)),
    "negative count": _set("category_count", lambda a: -a),
    "count exceeds class count": _set("category_count", lambda a: a * 3),
    "count columns": _set("category_count", lambda a: a[:, :-1].copy()),
    "unknown feature kind": _set("feature_kind", lambda a: a + 7),
    "bucket kind": _set("feature_kind", lambda a: np.full_like(a, 2)),
    "n_categories": _set("n_categories_", lambda a: a + 1),
    "unsorted categories": _set("value_int", _swap_first_two),
    "duplicate categories": _set("value_int", lambda a: np.where(a == a[1], a[0], a)),
    "duplicate after sorting": _set("value_int", lambda a: np.maximum(a, a[2])),
    "unknown value kind": _set("value_kind", lambda a: a + 9),
    "value kind": _set("value_kind", lambda a: np.where(a == 2, 3, a)),
    "integral float": _set("value_float", lambda a: np.where(a != 0, 2.0, a)),
    "stray int": _set("value_int", lambda a: np.where(a == 0, 5, a)),
    "text offsets": _set("value_text_end", lambda a: a[::-1].copy()),
    "text too short": _set("value_text", lambda a: a[:-1].copy()),
    "bad utf-8": _set("value_text", lambda a: np.full_like(a, 0xFF)),
    "text dtype": _set("value_text", lambda a: a.astype(np.int64)),
    "object text": _set("value_text", lambda a: a.astype(object)),
    "value lengths": _set("value_float", lambda a: a[:-1].copy()),
}


@pytest.mark.parametrize("corruption", sorted(CATEGORICAL_CORRUPTIONS))
def test_categorical_damaged_files_give_a_clear_error(corruption, tmp_path):
    on_ints = {"unsorted categories", "duplicate categories", "duplicate after sorting"}
    model, _ = _categorical_models()["ints" if corruption in on_ints else "objects"]
    good, bad = tmp_path / "good.npz", tmp_path / "bad.npz"
    model.save(good)
    fastnb.load(good)
    CATEGORICAL_CORRUPTIONS[corruption](good, bad)
    with pytest.raises(ValueError, match="not a valid fastnb model file"):
        fastnb.load(bad)


def test_categorical_damaged_bucket_and_code_files(tmp_path):
    for case, name, fn in [
        ("hash_buckets", "n_categories_", lambda a: a - 1),
        ("hash_buckets", "feature_kind", lambda a: np.zeros_like(a)),
        ("min_categories", "n_categories_", lambda a: np.minimum(a, 3)),
        ("min_categories", "feature_kind", lambda a: np.ones_like(a)),
    ]:
        model, _ = _categorical_models()[case]
        good, bad = tmp_path / f"{case}.npz", tmp_path / "bad.npz"
        model.save(good)
        _set(name, fn)(good, bad)
        with pytest.raises(ValueError, match="not a valid fastnb model file"):
            fastnb.load(bad)


@given(seed=st.integers(0, 2**32 - 1), n_parts=st.integers(2, 4),
       weighted=st.booleans(), min_categories=st.sampled_from([None, 3, 9]))
def test_categorical_merge_of_integer_codes_is_exact(seed, n_parts, weighted,
                                                     min_categories):
    """Codes (a feature may turn into values in one part only), class subsets,
    min_categories, weights, with parts given classes via partial_fit."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(10, 300))
    y = rng.integers(0, 4, n)
    X = rng.integers(0, 8, (n, 3))
    if min_categories is None and rng.random() < 0.5:
        X[rng.integers(0, n), 1] = -1  # one part sees a non-code value
    w = rng.uniform(0.1, 3, n) if weighted else np.ones(n)
    order = np.argsort(y, kind="stable") if rng.random() < 0.5 else rng.permutation(n)
    cuts = np.unique(rng.integers(1, n, n_parts - 1))
    params = dict(min_categories=min_categories)
    parts = []
    for rows in np.split(order, cuts):
        part = fastnb.CategoricalNB(**params)
        if rng.random() < 0.5:
            part.partial_fit(X[rows], y[rows], classes=[0, 1, 2, 3], sample_weight=w[rows])
        else:
            part.fit(X[rows], y[rows], sample_weight=w[rows])
        parts.append(part)
    merged = fastnb.merge(*parts)
    whole = fastnb.CategoricalNB(**params).fit(X, y, sample_weight=w)
    if not set(np.unique(y)) == set(merged.classes_):
        whole = fastnb.CategoricalNB(**params).partial_fit(X, y, classes=merged.classes_,
                                                           sample_weight=w)
    assert_array_equal(merged.classes_, whole.classes_)
    assert_array_equal(merged.n_categories_, whole.n_categories_)
    for a, b in zip(merged.categories_, whole.categories_):
        assert_array_equal(a, b)
    for a, b in zip(merged.category_count_, whole.category_count_):
        if weighted:
            assert_allclose(a, b, rtol=1e-10, atol=1e-12)
        else:
            assert_array_equal(a, b)
    assert_allclose(merged.predict_joint_log_proba(X), whole.predict_joint_log_proba(X),
                    rtol=1e-10, atol=1e-10)


def test_categorical_merge_of_dataframes_with_new_categories():
    pd = pytest.importorskip("pandas")
    a = pd.DataFrame({"c": pd.Categorical(["x", "y", "x"]), "s": ["p", "q", None]})
    b = pd.DataFrame({"c": pd.Categorical(["z", "y"]), "s": ["r", "p"]})
    y_a, y_b = ["u", "v", "u"], ["w", "u"]
    merged = fastnb.merge(fastnb.CategoricalNB().fit(a, y_a),
                          fastnb.CategoricalNB().fit(b, y_b))
    whole = fastnb.CategoricalNB().fit(pd.concat([a.astype(object), b.astype(object)]),
                                       y_a + y_b)
    assert_array_equal(merged.classes_, ["u", "v", "w"])
    for m, w in zip(merged.categories_, whole.categories_):
        assert_array_equal(m, w)
    for m, w in zip(merged.category_count_, whole.category_count_):
        assert_array_equal(m, w)
    assert_array_equal(merged.feature_names_in_, ["c", "s"])


@pytest.mark.parametrize("swap", [False, True])
def test_categorical_merge_keeps_value_features_whatever_their_values(swap):
    """A part whose column held a string only at zero weight has int categories but
    is a value feature: merged with a code part, it stays one, as in a fit."""
    X_a = np.array([[0], [1], [2]], dtype=object)
    X_b = np.array([[3], ["never"], [1]], dtype=object)
    w_a, w_b = np.ones(3), np.array([1.0, 0.0, 2.0])
    y_a, y_b = [0, 1, 0], [1, 1, 0]
    parts = [fastnb.CategoricalNB().fit(X_a, y_a, sample_weight=w_a),
             fastnb.CategoricalNB().fit(X_b, y_b, sample_weight=w_b)]
    assert parts[1]._predict_tables.kind(0) == "value"
    merged = fastnb.merge(*(parts[::-1] if swap else parts))
    whole = fastnb.CategoricalNB().fit(np.r_[X_a, X_b], y_a + y_b,
                                       sample_weight=np.r_[w_a, w_b])
    assert merged._predict_tables.kind(0) == whole._predict_tables.kind(0) == "value"
    assert_array_equal(merged.categories_[0], whole.categories_[0])
    assert_array_equal(merged.category_count_[0], whole.category_count_[0])


def test_categorical_merge_refuses_different_hash_buckets():
    X, y = np.array([[0], [1], [2]]), [0, 1, 0]
    with pytest.raises(ValueError, match="different parameters"):
        fastnb.merge(fastnb.CategoricalNB(hash_buckets=4).fit(X, y),
                     fastnb.CategoricalNB(hash_buckets=8).fit(X, y))
    with pytest.raises(ValueError, match="different parameters"):
        fastnb.merge(fastnb.CategoricalNB(hash_buckets=4).fit(X, y),
                     fastnb.CategoricalNB().fit(X, y))
    with pytest.raises(ValueError, match="different parameters"):
        fastnb.merge(fastnb.CategoricalNB(min_categories=4).fit(X, y),
                     fastnb.CategoricalNB(min_categories=5).fit(X, y))
