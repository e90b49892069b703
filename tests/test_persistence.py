"""Pickle-free save/load, pickling, and exact merging of fitted models."""

import io
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


def gaussian_data(rng, n=300, d=4, k=3):
    y = rng.integers(0, k, n)
    return rng.normal(size=(n, d)) + y[:, None], y


def count_data(rng, n=300, d=4, k=3):
    y = rng.integers(0, k, n)
    return rng.poisson(1.0 + y[:, None], size=(n, d)).astype(np.float64), y


# name -> (factory, data maker). Every estimator of fastnb is listed here.
ESTIMATORS = {
    "GaussianNB": (lambda: fastnb.GaussianNB(var_smoothing=1e-6), gaussian_data),
    "BernoulliNB": (lambda: fastnb.BernoulliNB(alpha=0.5), count_data),
    "MultinomialNB": (lambda: fastnb.MultinomialNB(alpha=0.5), count_data),
    "ComplementNB": (lambda: fastnb.ComplementNB(norm=True), count_data),
}


def fitted(name, rng, **data_kwargs):
    factory, make = ESTIMATORS[name]
    X, y = make(rng, **data_kwargs)
    return factory().fit(X, y), X, y


def public_state(model):
    return {k: v for k, v in vars(model).items()}


def assert_same_model(a, b, X):
    assert type(a) is type(b)
    assert a.get_params() == b.get_params() or repr(a) == repr(b)
    state_a, state_b = public_state(a), public_state(b)
    assert state_a.keys() == state_b.keys()
    for key in state_a:
        assert_array_equal(np.asarray(state_a[key]), np.asarray(state_b[key]), err_msg=key)
    for method in ("predict", "predict_proba", "predict_joint_log_proba"):
        assert_array_equal(getattr(a, method)(X), getattr(b, method)(X))


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_save_load_round_trip_is_bit_exact(name, rng, tmp_path):
    model, X, _ = fitted(name, rng)
    path = tmp_path / "model.npz"
    model.save(path)
    assert_same_model(model, fastnb.load(path), X)


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
    np.save(tmp_path / "X.npy", X)
    np.save(tmp_path / "expected.npy", model.predict_proba(X))
    code = (
        "import sys, numpy as np, fastnb\n"
        "m = fastnb.load('m.npz')\n"
        "assert (m.predict_proba(np.load('X.npy')) == np.load('expected.npy')).all()\n"
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
        p, o, arrays={_header(p)["arrays"][-1]: np.full_like(
            np.load(p)[_header(p)["arrays"][-1]], np.nan)}),
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
