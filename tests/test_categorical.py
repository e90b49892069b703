# Over the ~600-line guideline on purpose: CategoricalNB against its two oracles
# (scikit-learn on codes, an OrdinalEncoder pipeline on values) share fixtures;
# the kernels' own tests are in test_categorical_kernels.py.
"""CategoricalNB: scikit-learn is the oracle on integer codes; an explicit
OrdinalEncoder pipeline is the oracle on any other category values."""

import os
import pickle
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

from fastnb import CategoricalNB, NotFittedError
from fastnb import _categorical
from fastnb._categorical import _kernels

value_key = _kernels.keys.value_key
from fastnb._threads import PARALLEL_MIN_WORK

sklearn = pytest.importorskip("sklearn")
from sklearn.naive_bayes import CategoricalNB as SkCategoricalNB  # noqa: E402
from sklearn.preprocessing import OrdinalEncoder  # noqa: E402
from sklearn.utils.estimator_checks import parametrize_with_checks  # noqa: E402

RTOL = 1e-10


def _codes_data(rng, n=400, n_categories=(3, 7, 1, 12), k=3):
    X = np.column_stack([rng.integers(0, m, n) for m in n_categories])
    y = rng.integers(0, k, n)
    return X, y


def _assert_same_model(ours, theirs, rtol=RTOL):
    assert_array_equal(ours.classes_, theirs.classes_)
    assert_allclose(ours.class_count_, theirs.class_count_, rtol=rtol)
    assert_allclose(ours.class_log_prior_, theirs.class_log_prior_, rtol=rtol)
    assert_array_equal(ours.n_categories_, theirs.n_categories_)
    assert ours.n_categories_.dtype == np.int64
    assert len(ours.category_count_) == len(theirs.category_count_)
    for a, b in zip(ours.category_count_, theirs.category_count_):
        assert a.shape == b.shape
        assert_allclose(a, b, rtol=rtol)
    for a, b in zip(ours.feature_log_prob_, theirs.feature_log_prob_):
        assert a.shape == b.shape
        assert_allclose(a, b, rtol=rtol)


def _assert_same_predictions(ours, theirs, X_ours, X_theirs=None, rtol=RTOL):
    X_theirs = X_ours if X_theirs is None else X_theirs
    assert_array_equal(ours.predict(X_ours), theirs.predict(X_theirs))
    assert_allclose(ours.predict_proba(X_ours), theirs.predict_proba(X_theirs),
                    rtol=rtol, atol=1e-300)
    assert_allclose(ours.predict_log_proba(X_ours), theirs.predict_log_proba(X_theirs),
                    rtol=rtol)
    assert_allclose(ours.predict_joint_log_proba(X_ours),
                    theirs.predict_joint_log_proba(X_theirs), rtol=rtol)


# -- scikit-learn exact on integer codes --------------------------------------------------
@pytest.mark.parametrize("n_threads", [1, 2])
@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.uint8, np.float64, np.float32])
@pytest.mark.parametrize("k", [4, 6])  # 6: the fused integer-code predict path
def test_matches_sklearn_on_codes(rng, n_threads, dtype, k):
    X, y = _codes_data(rng, n=30000, k=k)
    X = X.astype(dtype)
    ours = CategoricalNB(n_threads=n_threads).fit(X, y)
    theirs = SkCategoricalNB().fit(X, y)
    _assert_same_model(ours, theirs)
    _assert_same_predictions(ours, theirs, X[:3000])
    assert_array_equal(ours.categories_[1], np.arange(7))
    # Every input kind takes the same summation order: the same bits, unseen and
    # out-of-range codes included.
    Xq = X[:200].astype(np.int64)
    Xq[::3, 1] = 9
    Xq[1::3, 2] = -4
    Xq = Xq.astype(dtype) if np.dtype(dtype).kind != "u" else np.abs(Xq).astype(dtype)
    assert_array_equal(ours.predict_proba(Xq), ours.predict_proba(Xq.astype(object)))
    assert_array_equal(ours.predict(Xq), ours.predict(Xq.astype(object)))


@pytest.mark.parametrize(
    "params",
    [
        {"alpha": 0.3},
        {"alpha": 2.5, "fit_prior": False},
        {"class_prior": [0.2, 0.5, 0.3]},
        {"min_categories": 15},
        {"min_categories": [4, 1, 5, 20]},
        {"alpha": 0.0, "force_alpha": True},
    ],
)
def test_matches_sklearn_parameters(rng, params):
    import warnings

    X, y = _codes_data(rng)
    with warnings.catch_warnings():
        # alpha=0 gives log(0) = -inf in scikit-learn, with a RuntimeWarning.
        warnings.simplefilter("ignore", RuntimeWarning)
        ours = CategoricalNB(**params).fit(X, y)
        theirs = SkCategoricalNB(**params).fit(X, y)
        _assert_same_model(ours, theirs)
        if params.get("alpha") != 0.0:
            _assert_same_predictions(ours, theirs, X)
        else:
            assert_array_equal(ours.predict(X), theirs.predict(X))


def test_alpha_floor_warns_like_sklearn(rng):
    X, y = _codes_data(rng)
    with pytest.warns(UserWarning, match="alpha too small"):
        ours = CategoricalNB(alpha=0.0, force_alpha=False).fit(X, y)
    with pytest.warns(UserWarning, match="alpha too small"):
        theirs = SkCategoricalNB(alpha=0.0, force_alpha=False).fit(X, y)
    _assert_same_model(ours, theirs)


@pytest.mark.parametrize("n_threads", [1, 2])
def test_matches_sklearn_weighted(rng, n_threads):
    X, y = _codes_data(rng, n=20000)
    w = rng.uniform(0, 3, X.shape[0])
    w[::7] = 0.0
    ours = CategoricalNB(n_threads=n_threads).fit(X, y, sample_weight=w)
    theirs = SkCategoricalNB().fit(X, y, sample_weight=w)
    _assert_same_model(ours, theirs)
    _assert_same_predictions(ours, theirs, X[:500])


def test_matches_sklearn_partial_fit(rng):
    X, y = _codes_data(rng, n=900)
    # The first batch sees fewer categories than later ones.
    X[:300, 3] = X[:300, 3] % 4
    ours, theirs = CategoricalNB(), SkCategoricalNB()
    for start in range(0, 900, 300):
        batch = slice(start, start + 300)
        ours.partial_fit(X[batch], y[batch], classes=[0, 1, 2])
        theirs.partial_fit(X[batch], y[batch], classes=[0, 1, 2])
    # scikit-learn's n_categories_ reflects the last batch only; its counts and
    # probabilities reflect all batches, which fastnb matches.
    assert_array_equal(ours.n_categories_, [c.shape[1] for c in theirs.category_count_])
    for a, b in zip(ours.feature_log_prob_, theirs.feature_log_prob_):
        assert_allclose(a, b, rtol=RTOL)
    _assert_same_predictions(ours, theirs, X)


# -- any category values, no encoder -------------------------------------------------------
def _encode_with(categories, columns):
    """Explicit ordinal encoding of columns by a list of category arrays."""
    out = np.empty((len(columns[0]), len(columns)), dtype=np.int64)
    for j, column in enumerate(columns):
        index = {}
        for position, value in enumerate(categories[j]):
            index[(isinstance(value, (bytes, str)), value)] = position
        out[:, j] = [index[(isinstance(v, (bytes, str)), v)] for v in column]
    return out


def _encoded_oracle(ours, X_cols, y, X_pred_cols, **params):
    """scikit-learn fitted on X explicitly encoded with fastnb's categories_."""
    Xe = _encode_with(ours.categories_, X_cols)
    theirs = SkCategoricalNB(**params).fit(Xe, y)
    return theirs, _encode_with(ours.categories_, X_pred_cols)


def test_strings_match_encoded_pipeline(rng):
    n = 3000
    words = np.array(["red", "green", "blue", "cyan", "Ünïcode", "", "zeta"], dtype=object)
    X = np.column_stack([words[rng.integers(0, 7, n)], words[rng.integers(0, 3, n)]])
    y = rng.choice(["a", "b", "c"], n)
    ours = CategoricalNB(alpha=0.5).fit(X, y)
    assert list(ours.categories_[0]) == sorted(words)
    assert list(ours.categories_[1]) == sorted(words[:3])
    # The categories are OrdinalEncoder's, so the usual pipeline is the oracle.
    encoder = OrdinalEncoder().fit(X)
    for ours_c, theirs_c in zip(ours.categories_, encoder.categories_):
        assert list(ours_c) == list(theirs_c)
    theirs, Xe = _encoded_oracle(ours, [X[:, 0], X[:, 1]], y, [X[:, 0], X[:, 1]],
                                 alpha=0.5)
    _assert_same_model(ours, theirs)
    _assert_same_predictions(ours, theirs, X, Xe)
    # The same values as a numpy unicode array and as a list of lists.
    assert_allclose(ours.predict_proba(X.astype(str)), ours.predict_proba(X), rtol=0)
    assert_allclose(ours.predict_proba(X[:50].tolist()), ours.predict_proba(X[:50]),
                    rtol=0)


def test_mixed_kinds_per_column_match_encoded_pipeline(rng):
    n = 2000
    big = np.array([-(2**62), -7, 0, 3, 2**62, 2**63 - 1], dtype=np.int64)
    col_big = big[rng.integers(0, 6, n)]
    col_bytes = np.array([b"x", b"yy", b"", b"\xff"], dtype=object)[rng.integers(0, 4, n)]
    col_float = np.array([0.5, -1.25, 3.0, 1e300])[rng.integers(0, 4, n)]
    col_mixed = np.array([1, "1", b"1", 2.5, (1, 2)], dtype=object)[rng.integers(0, 5, n)]
    y = rng.integers(0, 3, n)
    X = np.empty((n, 4), dtype=object)
    for j, col in enumerate([col_big, col_bytes, col_float, col_mixed]):
        X[:, j] = col.tolist() if j in (0, 2) else col
    ours = CategoricalNB().fit(X, y)
    assert_array_equal(ours.categories_[0], np.sort(big))
    assert ours.categories_[0].dtype == np.int64
    assert list(ours.categories_[2]) == [-1.25, 0.5, 3, 1e300]
    # numbers, then str, then bytes, then other objects
    assert list(ours.categories_[3]) == [1, 2.5, "1", b"1", (1, 2)]
    cols = [X[:, j] for j in range(4)]
    theirs, Xe = _encoded_oracle(ours, cols, y, cols)
    _assert_same_model(ours, theirs)
    _assert_same_predictions(ours, theirs, X, Xe)
    # A numeric int64 column with a huge range uses the hash tables directly.
    numeric = CategoricalNB().fit(col_big.reshape(-1, 1), y)
    assert_array_equal(numeric.categories_[0], np.sort(big))
    assert_allclose(numeric.predict_proba(col_big.reshape(-1, 1)),
                    CategoricalNB().fit(X[:, :1], y).predict_proba(X[:, :1]), rtol=0)


def test_bools_equal_ints_as_in_python():
    X = np.array([[True], [1], [1.0], [False], [0]], dtype=object)
    y = [0, 0, 1, 1, 1]
    model = CategoricalNB().fit(X, y)
    assert_array_equal(model.categories_[0], [0, 1])
    assert_array_equal(model.category_count_[0], [[0, 2], [2, 1]])
    booleans = CategoricalNB().fit(np.array([[True], [True], [True], [False], [False]]),
                                   y)
    assert_array_equal(booleans.category_count_[0], model.category_count_[0])


def test_pandas_categorical_and_string_columns(rng):
    pd = pytest.importorskip("pandas")
    n = 1500
    colors = rng.choice(["red", "green", "blue"], n)
    sizes = rng.choice(["S", "M", "L", "XL"], n)
    ints = rng.integers(-3, 3, n)
    y = rng.integers(0, 2, n)
    frame = pd.DataFrame({
        "color": pd.Categorical(colors, categories=["red", "green", "blue", "never"]),
        "size": pd.Series(sizes, dtype="string"),
        "n": ints,
    })
    ours = CategoricalNB().fit(frame, y)
    assert list(ours.feature_names_in_) == ["color", "size", "n"]
    # Unused pandas categories are not categories of the model: no weight.
    assert list(ours.categories_[0]) == ["blue", "green", "red"]
    assert list(ours.categories_[1]) == ["L", "M", "S", "XL"]
    assert_array_equal(ours.categories_[2], np.arange(-3, 3))
    plain = np.empty((n, 3), dtype=object)
    plain[:, 0], plain[:, 1], plain[:, 2] = colors, sizes, ints
    reference = CategoricalNB().fit(plain, y)
    _assert_same_model(ours, reference, rtol=0)
    assert_allclose(ours.predict_proba(frame), reference.predict_proba(plain), rtol=0)
    cols = [colors, sizes, ints]
    theirs, Xe = _encoded_oracle(ours, cols, y, cols)
    _assert_same_predictions(ours, theirs, frame, Xe)
    # Missing values in a Categorical and a string column.
    frame.loc[:4, "color"] = np.nan
    frame.loc[:4, "size"] = pd.NA
    proba = ours.predict_proba(frame.iloc[:5])
    only_n = ours.predict_joint_log_proba(frame.iloc[:5])
    expected = ours.class_log_prior_ + np.stack(
        [ours.feature_log_prob_[2][:, list(ours.categories_[2]).index(v)]
         for v in ints[:5]])
    assert_allclose(only_n, expected, rtol=1e-12)
    assert_allclose(proba.sum(axis=1), 1.0)


# -- partial_fit and thread invariance --------------------------------------------------------
hypothesis = pytest.importorskip("hypothesis")
from hypothesis import given, settings, strategies as st  # noqa: E402


@settings(max_examples=30, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    cuts=st.lists(st.integers(1, 299), min_size=1, max_size=4),
    kind=st.sampled_from(["codes", "strings", "bigints", "mixed"]),
)
def test_partial_fit_any_split_equals_fit(seed, cuts, kind):
    rng = np.random.default_rng(seed)
    n = 300
    # Sorting by a feature makes categories first appear in later batches.
    codes = np.sort(rng.integers(0, 9, (n, 3)), axis=0)
    if kind == "codes":
        X = codes
    elif kind == "strings":
        X = np.array([f"v{c}" for c in codes.ravel()], dtype=object).reshape(n, 3)
    elif kind == "bigints":
        X = codes.astype(np.int64) * (2**58) - 2**61
    else:
        values = np.array([0, 1, "a", b"b", 2.5, -4, None, "c", 7], dtype=object)
        X = values[codes]
        # A code feature that turns into a value feature in a later batch.
        X[:, 2] = codes[:, 2]
        X[-1, 2] = "late"
    y = rng.integers(0, 3, n)
    full = CategoricalNB().fit(X, y)
    parts = CategoricalNB()
    bounds = [0] + sorted(set(cuts)) + [n]
    for a, b in zip(bounds[:-1], bounds[1:]):
        parts.partial_fit(X[a:b], y[a:b], classes=[0, 1, 2])
    assert_array_equal(parts.classes_, full.classes_)
    assert_array_equal(parts.class_count_, full.class_count_)
    assert_array_equal(parts.n_categories_, full.n_categories_)
    for j in range(3):
        assert_array_equal(parts.categories_[j], full.categories_[j])
        assert parts.categories_[j].dtype == full.categories_[j].dtype
        assert_array_equal(parts.category_count_[j], full.category_count_[j])
        assert_array_equal(parts.feature_log_prob_[j], full.feature_log_prob_[j])
    assert_array_equal(parts.predict_proba(X), full.predict_proba(X))


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), weighted=st.booleans(),
       kind=st.sampled_from(["codes", "floats", "bigints"]))
def test_same_bits_for_any_thread_count(seed, weighted, kind):
    rng = np.random.default_rng(seed)
    n, d = 40000, 6
    X = rng.integers(0, 20, (n, d))
    if kind == "floats":
        X = X + rng.choice([0.0, 0.5], (n, d))
    elif kind == "bigints":
        X = X * (2**40) - 2**45
    y = rng.integers(0, 5, n)
    w = rng.uniform(0, 2, n) if weighted else None
    with pytest.MonkeyPatch.context() as patch:
        # Go parallel at this small size too (n=40000 makes 4 fit chunks).
        for work_kind in PARALLEL_MIN_WORK:  # the parallel paths, however small the data
            patch.setitem(PARALLEL_MIN_WORK, work_kind, 0)
        models = [CategoricalNB(n_threads=t).fit(X, y, sample_weight=w)
                  for t in (1, 2, 4)]
        outputs = [(m.predict(X), m.predict_proba(X)) for m in models]
        assert models[1]._predict_threads(n, d * 5) == 2
    for model, (labels, proba) in zip(models[1:], outputs[1:]):
        for a, b in zip(model.category_count_, models[0].category_count_):
            assert_array_equal(a, b)
        assert_array_equal(labels, outputs[0][0])
        assert_array_equal(proba, outputs[0][1])


# -- stable keys and persistence --------------------------------------------------------------
STABLE_VALUES = ["United-States", "", "Ünïcode ✓", b"\x00bytes", 7, -3, 2**63 + 5, 2**80,
                 0.5, True, (1, "a")]


def test_keys_are_pinned():
    # These keys are part of fastnb's persistence format: they must never change.
    assert value_key(7) == (1, 7)
    assert value_key(-3) == (1, 2**64 - 3)
    assert value_key(True) == value_key(1) == value_key(1.0)
    assert value_key(2**63 + 5) == (2, 2**63 + 5)
    assert value_key("a") == (4, 2714998891557577425)
    assert value_key(0.5)[0] == 3
    assert value_key(None) is None
    assert value_key(float("nan")) is None
    keys = {value_key(v) for v in (1, "1", b"1", 1.5)}
    assert len(keys) == 4
    # A string's key does not depend on its internal width.
    assert value_key("ab") == value_key(str(np.str_("ab")))


def test_keys_and_models_are_stable_across_processes(tmp_path, rng):
    X = np.array([[v, j] for j, v in enumerate(STABLE_VALUES)] * 3, dtype=object)
    y = rng.integers(0, 2, X.shape[0])
    model = CategoricalNB().fit(X, y)
    path = tmp_path / "model.pkl"
    path.write_bytes(pickle.dumps(model))
    np.save(tmp_path / "X.npy", X, allow_pickle=True)
    expected = model.predict_proba(X)
    code = textwrap.dedent(
        f"""
        import pickle, sys
        import numpy as np
        from fastnb._categorical import _kernels
        values = {STABLE_VALUES!r}
        print(repr([_kernels.keys.value_key(v) for v in values]))
        model = pickle.loads(open({str(path)!r}, "rb").read())
        X = np.load({str(tmp_path / "X.npy")!r}, allow_pickle=True)
        np.save({str(tmp_path / "proba.npy")!r}, model.predict_proba(X))
        """
    )
    for seed in ("0", "12345"):
        env = dict(os.environ, PYTHONHASHSEED=seed)
        # Outside the source tree, so that the installed package is imported.
        result = subprocess.run([sys.executable, "-c", code], capture_output=True,
                                text=True, env=env, cwd=tmp_path)
        assert result.returncode == 0, result.stderr
        keys = eval(result.stdout.strip())
        assert keys == [value_key(v) for v in STABLE_VALUES]
        assert_array_equal(np.load(tmp_path / "proba.npy"), expected)


def test_pickle_roundtrip(rng):
    X, y = _codes_data(rng)
    Xs = X.astype(str)
    for data in (X, Xs):
        model = CategoricalNB().fit(data, y)
        clone = pickle.loads(pickle.dumps(model))
        assert_array_equal(clone.predict_proba(data), model.predict_proba(data))


# -- unseen categories and missing values -----------------------------------------------------
@pytest.mark.parametrize("alpha", [1.0, 0.25])
def test_unseen_category_gets_smoothed_zero_count(rng, alpha):
    X = np.array([["a", 0], ["b", 1], ["a", 2], ["c", 1], ["b", 0]], dtype=object)
    y = np.array([0, 0, 1, 1, 1])
    model = CategoricalNB(alpha=alpha).fit(X, y)
    queries = np.array([["zzz", 1], ["a", 99], ["a", -1], ["a", "text"]], dtype=object)
    jll = model.predict_joint_log_proba(queries)
    class_n = model.class_count_
    for row, (unseen_feature, seen_feature, seen_value) in enumerate(
        [(0, 1, 1), (1, 0, "a"), (1, 0, "a"), (1, 0, "a")]
    ):
        n_cat = model.n_categories_[unseen_feature]
        unseen = np.log(alpha / (class_n + alpha * n_cat))
        seen_index = list(model.categories_[seen_feature]).index(seen_value)
        seen = model.feature_log_prob_[seen_feature][:, seen_index]
        assert_allclose(jll[row], model.class_log_prior_ + unseen + seen, rtol=1e-12)
    # scikit-learn raises IndexError on an out-of-range code; fastnb does not.
    codes = np.array([[0, 1], [1, 0], [2, 1]])
    model = CategoricalNB().fit(codes, [0, 1, 1])
    with pytest.raises(IndexError):
        SkCategoricalNB().fit(codes, [0, 1, 1]).predict([[5, 1]])
    proba = model.predict_proba(np.array([[5, 1], [-2, 1]]))
    assert_allclose(proba[0], proba[1])
    assert np.isfinite(proba).all()


def test_missing_values_are_marginalised(rng):
    X, y = _codes_data(rng, n=600)
    Xf = X.astype(np.float64)
    missing = rng.random(600) < 0.2
    Xf[missing, 1] = np.nan
    model = CategoricalNB().fit(Xf, y)
    # Fit: missing rows add to class_count_ but to no category of that feature.
    reference = SkCategoricalNB().fit(X[~missing], y[~missing])
    assert_allclose(model.category_count_[1], reference.category_count_[1])
    assert_allclose(model.class_count_, np.bincount(y))
    for j in (0, 2, 3):
        assert_allclose(model.category_count_[j],
                        SkCategoricalNB().fit(X, y).category_count_[j])
    # Predict: the missing feature's term is left out.
    Xq = Xf[:50].copy()
    Xq[:, 1] = np.nan
    jll = model.predict_joint_log_proba(Xq)
    expected = model.class_log_prior_ + sum(
        model.feature_log_prob_[j][:, X[:50, j]].T for j in (0, 2, 3))
    assert_allclose(jll, expected, rtol=1e-12)
    # A feature that is missing everywhere carries no information.
    empty = Xf.copy()
    empty[:, 1] = np.nan
    model_empty = CategoricalNB().fit(empty, y)
    assert model_empty.category_count_[1].shape == (3, 0)
    jll_empty = model_empty.predict_joint_log_proba(np.array([[0, 5, 0, 0]]))
    assert_allclose(jll_empty[0], model_empty.class_log_prior_ + sum(
        model_empty.feature_log_prob_[j][:, 0] for j in (0, 2, 3)), rtol=1e-12)
    # None in object columns is missing too.
    Xo = Xq.astype(object)
    Xo[:, 1] = None
    assert_allclose(model.predict_joint_log_proba(Xo), jll, rtol=1e-12)


# -- the seed example ------------------------------------------------------------------------
def test_seed_article_census_example():
    from fastnb._demos import categorical_seed_data, categorical_seed_demo

    X, y, query = categorical_seed_data()
    model = CategoricalNB(alpha=1e-12, force_alpha=True).fit(X, y)
    jll = dict(zip(model.classes_, model.predict_joint_log_proba(query)[0]))
    assert_allclose(jll[">50K"], np.log(2 / 27) + np.log(0.5), rtol=1e-9)
    assert_allclose(jll["<=50K"], np.log(8 / 27) + np.log(0.5), rtol=1e-9)
    assert model.predict(query)[0] == "<=50K"
    text = categorical_seed_demo()
    assert "0.074074" in text and "0.296296" in text
    assert text.splitlines()[-1].startswith("predicted: <=50K")


# -- bad input ---------------------------------------------------------------------------------
def test_bad_inputs_raise_clear_errors(rng):
    X, y = _codes_data(rng, n=50)
    with pytest.raises(ValueError, match="Expected 2D array, got 1D"):
        CategoricalNB().fit(X[:, 0], y)
    with pytest.raises(ValueError, match="Found array with dim 3"):
        CategoricalNB().fit(X.reshape(50, 2, 2), y)
    with pytest.raises(ValueError, match="0 sample"):
        CategoricalNB().fit(X[:0], y[:0])
    model = CategoricalNB().fit(X, y)
    with pytest.raises(ValueError, match="X has 3 features, but CategoricalNB is "
                                         "expecting 4 features"):
        model.predict(X[:, :3])
    with pytest.raises(ValueError, match="X has 5 features"):
        model.partial_fit(np.hstack([X, X[:, :1]]), y)
    bad = X.astype(object)
    bad[7, 2] = ["a", "list"]
    with pytest.raises(TypeError, match=r"column 2 holds an unhashable value \['a'"):
        CategoricalNB().fit(bad, y)
    bad[7, 2] = {"a": 1}
    with pytest.raises(TypeError, match="column 2 holds an unhashable value"):
        model.predict(bad)
    negative = X.copy()
    negative[3, 1] = -2
    with pytest.raises(ValueError, match="feature 1 has the negative code -2"):
        CategoricalNB(min_categories=3).fit(negative, y)
    strings = X.astype(object)
    strings[0, 0] = "x"
    with pytest.raises(ValueError, match="feature 0 has the value 'x'"):
        CategoricalNB(min_categories=3).fit(strings, y)
    with pytest.raises(ValueError, match="'alpha' parameter .* range \\[0.0, inf\\)"):
        CategoricalNB(alpha=-1.0).fit(X, y)
    with pytest.raises(ValueError, match="Number of priors must match number of classes"):
        CategoricalNB(class_prior=[0.5, 0.5]).fit(X, y)
    with pytest.raises(ValueError, match="'min_categories' should have shape"):
        CategoricalNB(min_categories=[2, 3]).fit(X, y)
    with pytest.raises(ValueError, match="classes must be passed"):
        CategoricalNB().partial_fit(X, y)
    with pytest.raises(NotFittedError):
        CategoricalNB().predict(X)
    with pytest.raises(ValueError, match="sum of sample_weight is zero"):
        CategoricalNB().fit(X, y, sample_weight=np.zeros(50))
    with pytest.raises(TypeError, match="Sparse data"):
        scipy_sparse = pytest.importorskip("scipy.sparse")
        CategoricalNB().fit(scipy_sparse.csr_matrix(X), y)


def _state(model):
    return pickle.dumps(model.__dict__)


def test_failed_partial_fit_leaves_model_unchanged(rng):
    X = np.array([["a", 1], ["b", 2], ["c", 1]], dtype=object)
    model = CategoricalNB().partial_fit(X, [0, 1, 0], classes=[0, 1])
    before = _state(model)
    bad = np.array([["new", 5], ["d", ["unhashable"]]], dtype=object)
    with pytest.raises(TypeError):
        model.partial_fit(bad, [0, 1])
    assert _state(model) == before
    with pytest.raises(ValueError, match="do not exist in the initial classes"):
        model.partial_fit(np.array([["new", 5]], dtype=object), [7])
    assert _state(model) == before
    with pytest.raises(ValueError, match="Number of priors"):
        model.set_params(class_prior=[1.0]).partial_fit(X, [0, 1, 0])
    model.set_params(class_prior=None)
    assert _state(model) == before
    with pytest.raises(ValueError, match="sample_weight.shape"):
        model.partial_fit(X, [0, 1, 0], sample_weight=[1.0, 2.0])
    assert _state(model) == before
    codes = CategoricalNB(min_categories=2).partial_fit([[0], [1]], [0, 1], classes=[0, 1])
    before = _state(codes)
    with pytest.raises(ValueError, match="negative code"):
        codes.partial_fit([[0], [-1]], [0, 1])
    assert _state(codes) == before
    # And a good batch afterwards is accepted.
    model.partial_fit(np.array([["new", 5]], dtype=object), [1])
    assert "new" in list(model.categories_[0])


# -- high cardinality --------------------------------------------------------------------------
def test_many_distinct_ids_memory_proportional_to_distinct(rng):
    n = 50000
    ids = rng.choice(2**62, size=n // 5, replace=False).astype(np.int64)
    X = np.column_stack([ids[rng.integers(0, ids.size, n)], rng.integers(0, 4, n)])
    y = rng.integers(0, 3, n)
    model = CategoricalNB().fit(X, y)
    distinct = np.unique(X[:, 0])
    assert_array_equal(model.categories_[0], distinct)
    assert model.category_count_[0].shape == (3, distinct.size)
    # The frozen hash table is at most 4 slots per distinct value.
    assert model._predict_tables.feature_table(0)[0].size <= 4 * distinct.size
    assert_array_equal(model.n_categories_, [distinct.size, 4])
    Xs = np.column_stack([X[:, 0].astype(str), X[:, 1]])
    reference = CategoricalNB().fit(Xs.astype(object), y)
    assert_allclose(model.predict_proba(X[:1000]), reference.predict_proba(Xs[:1000]),
                    rtol=0)


def test_hash_buckets_bound_memory_and_share_counts(rng):
    n = 20000
    ids = rng.integers(-(2**63), 2**63 - 1, n, endpoint=True, dtype=np.int64)
    X = np.column_stack([ids, rng.integers(0, 5, n)])
    y = rng.integers(0, 3, n)
    model = CategoricalNB(hash_buckets=256).fit(X, y)
    # Fixed memory: (k, B) counts per feature, whatever the cardinality.
    assert [c.shape for c in model.category_count_] == [(3, 256), (3, 256)]
    assert_array_equal(model.n_categories_, [256, 256])
    assert model.categories_ == [None, None]
    assert_array_equal(sum(c.sum(axis=1) for c in model.category_count_[:1]),
                       model.class_count_)
    # The same values as Python objects or strings hash to the same buckets.
    as_objects = CategoricalNB(hash_buckets=256).fit(X.astype(object), y)
    assert_array_equal(as_objects.predict_proba(X), model.predict_proba(X))
    assert_array_equal(model.predict_proba(X.astype(object)), model.predict_proba(X))
    # Any split into batches gives the same model.
    parts = CategoricalNB(hash_buckets=256)
    for start in range(0, n, 7000):
        parts.partial_fit(X[start:start + 7000], y[start:start + 7000],
                          classes=[0, 1, 2])
    for a, b in zip(parts.category_count_, model.category_count_):
        assert_array_equal(a, b)
    # One bucket: every value collides, so the features carry no information.
    one = CategoricalNB(hash_buckets=1).fit(X, y)
    assert_allclose(one.predict_proba(X[:5]),
                    np.tile(one.class_count_ / n, (5, 1)), rtol=1e-12)
    # Many buckets and few values: no collision, the exact model's probabilities.
    small = np.column_stack([rng.integers(-50, 50, 3000), rng.integers(0, 4, 3000)])
    ys = rng.integers(0, 3, 3000)
    hashed = CategoricalNB(alpha=1e-10, hash_buckets=1 << 20).fit(small, ys)
    exact = CategoricalNB(alpha=1e-10).fit(small, ys)
    assert_allclose(hashed.predict_proba(small), exact.predict_proba(small), rtol=1e-6)
    with pytest.raises(ValueError, match="set only one of them"):
        CategoricalNB(hash_buckets=8, min_categories=2).fit(small, ys)
    with pytest.raises(ValueError, match="'hash_buckets' parameter"):
        CategoricalNB(hash_buckets=0).fit(small, ys)


# -- predict outputs -------------------------------------------------------------------------
def test_predict_outputs_are_consistent(rng):
    X, y = _codes_data(rng, n=3000, k=11)
    X = np.column_stack([X, rng.integers(0, 3, 3000)])
    y = rng.integers(0, 11, 3000)  # k = 11: the general (unpadded) gather
    model = CategoricalNB().fit(X, y)
    jll = model.predict_joint_log_proba(X)
    assert_array_equal(model.predict(X), model.classes_[np.argmax(jll, axis=1)])
    assert_allclose(model.predict_proba(X).sum(axis=1), 1.0)
    assert_allclose(np.exp(model.predict_log_proba(X)), model.predict_proba(X))
    theirs = SkCategoricalNB().fit(X, y)
    _assert_same_predictions(model, theirs, X)
    assert model.score(X, y) == theirs.score(X, y)


def test_vectorised_exp_is_accurate():
    # predict_proba's exp: within 2 ulp of libm over the whole non-positive range,
    # subnormal results and underflow to 0 included.
    rng = np.random.default_rng(5)
    x = np.concatenate([
        -rng.exponential(3.0, 20000), -rng.uniform(0, 745.2, 20000),
        [0.0, -0.0, -1e-300, -np.log(2) / 2, -708.4, -740.0, -745.1, -746.0, -1e6,
         -np.inf],
    ])
    ours = _kernels.predict.exp_nonpositive(x)
    expected = np.exp(x)
    normal = expected > np.finfo(float).tiny
    assert_allclose(ours[normal], expected[normal], rtol=4.5e-16, atol=0)
    assert_allclose(ours[~normal], expected[~normal], rtol=0, atol=1e-320)
    assert ours[-1] == 0.0 and ours[-2] == 0.0


def test_repr_and_tags():
    assert repr(CategoricalNB(alpha=0.5, n_threads=2)) == (
        "CategoricalNB(alpha=0.5, n_threads=2)")
    tags = CategoricalNB().__sklearn_tags__()
    assert tags.input_tags.categorical and tags.input_tags.allow_nan


@parametrize_with_checks([CategoricalNB(), CategoricalNB(hash_buckets=64)])
def test_sklearn_compatible_estimator(estimator, check):
    check(estimator)


@pytest.mark.parametrize("dtype, negative_column",
                         [(np.int64, False), (np.uint8, False), (np.int64, True)])
def test_predict_peak_memory_is_the_output_plus_o_k_d(dtype, negative_column):
    """On 1e5 x 100 integer codes, predict and predict_proba allocate (as traced by
    tracemalloc: numpy and Python allocations) their returned array and O(k * d)
    more: no (n, k) or (n, d) temporary, whichever the lookup path (dense codes, or
    hashed values for a column of negative ints)."""
    import tracemalloc

    rng = np.random.default_rng(0)
    n, d, k = 100_000, 100, 3
    y = rng.integers(0, k, n)
    X = ((rng.integers(0, 10, (n, d)) + y[:, None]) % 10).astype(dtype)
    if negative_column:
        X[:, 0] -= 5
    model = CategoricalNB().fit(X, y)
    budget = 64 * k * d + (16 << 10)
    for method in ("predict", "predict_proba", "predict_log_proba",
                   "predict_joint_log_proba"):
        getattr(model, method)(X[:10])  # any one-time set-up happens here
        tracemalloc.start()
        try:
            tracemalloc.reset_peak()
            base = tracemalloc.get_traced_memory()[0]
            out = getattr(model, method)(X)
            peak = tracemalloc.get_traced_memory()[1] - base
        finally:
            tracemalloc.stop()
        assert out.shape[0] == n
        assert peak <= out.nbytes + budget, (method, peak - out.nbytes)
