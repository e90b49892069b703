# Over the ~600-line guideline on purpose: ColumnwiseNB's contract, against the
# hand sum of its sub-models, in one file, with the table of bad inputs that must
# leave the model unchanged; faster paths and Arrow frames have their own files.
"""ColumnwiseNB: exact against the hand sum of its sub-models, on every kind of
column and input, with missing values, unseen categories, merge, save/load, Dask,
any thread count, and a table of bad inputs that leave the model unchanged."""

import pickle
import tracemalloc

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

import fastnb
from _model_files import assert_damaged_layouts_refused
import fastnb._columnwise as columnwise
from fastnb import (BernoulliNB, CategoricalNB, ColumnwiseNB, ComplementNB, GaussianNB,
                    MultinomialNB)

pd = pytest.importorskip("pandas")


def mixed_frame(rng, n=400, k=3, missing=True):
    """Floats (with NaN), strings (pandas str, with NA), objects, a pandas
    category, bools, small and large integers, and counts."""
    y = rng.integers(0, k, n)
    words = np.array(["red", "green", "blue", "\u00e9t\u00e9"], dtype=object)
    frame = pd.DataFrame({
        "height": rng.normal(size=n) + y,
        "weight": rng.normal(size=n) * 10 + 1e4 + 3 * y,
        "colour": pd.array(words[(rng.integers(0, 3, n) + y) % 4], dtype="str"),
        "shape": words[(rng.integers(0, 2, n) + 2 * y) % 4].astype(object),
        "size": pd.Categorical(np.array(["S", "M", "L"])[(rng.integers(0, 2, n) + y) % 3],
                               categories=["S", "M", "L", "XL"]),
        "member": rng.random(n) < 0.3 + 0.2 * (y == 1),
        "rooms": (rng.integers(0, 4, n) + y) % 6,
        "visits": rng.poisson(1.0 + y, n),
    })
    if missing:
        frame.loc[rng.random(n) < 0.05, "height"] = np.nan
        frame.loc[rng.random(n) < 0.05, "colour"] = None
        frame.loc[rng.random(n) < 0.05, "shape"] = None
    return frame, y


EXPLICIT = [
    ("normal", GaussianNB(), ["height", "weight"]),
    ("flags", BernoulliNB(), ["member"]),
    ("words", CategoricalNB(alpha=0.5), ["colour", "shape", "size", "rooms"]),
    ("counts", MultinomialNB(), ["visits"]),
]


def hand_jll(frame, y, spec, priors=None, sample_weight=None, X_new=None):
    """log P(c) + sum_m (jll_m - log P_m(c)), from sub-models fitted by hand."""
    X_new = frame if X_new is None else X_new
    total, log_prior = 0.0, None
    def part(X, estimator, columns):  # numbers as float64, NA as NaN
        return X[columns] if isinstance(estimator, CategoricalNB) else X[
            columns].astype(np.float64)

    for _, estimator, columns in spec:
        model = type(estimator)(**estimator.get_params()).fit(
            part(frame, estimator, columns), y, sample_weight=sample_weight)
        included = (np.log(model.class_prior_) if isinstance(model, GaussianNB)
                    else model.class_log_prior_)
        total = total + (model.predict_joint_log_proba(part(X_new, estimator, columns))
                         - included)
        log_prior = included
    if priors is not None:
        log_prior = np.log(priors)
    return log_prior + total


def normalised(jll):
    top = jll.max(axis=1, keepdims=True)
    log_norm = top + np.log(np.exp(jll - top).sum(axis=1, keepdims=True))
    return jll - log_norm


# -- exactness ------------------------------------------------------------------------
@pytest.mark.parametrize("priors", [None, [0.2, 0.5, 0.3]])
@pytest.mark.parametrize("weighted", [False, True])
def test_equals_the_hand_sum_of_its_sub_models(rng, priors, weighted):
    frame, y = mixed_frame(rng)
    weights = rng.uniform(0.2, 3, len(y)) if weighted else None
    model = ColumnwiseNB(EXPLICIT, priors=priors).fit(frame, y, sample_weight=weights)
    expected = hand_jll(frame, y, EXPLICIT, priors, weights)
    assert_allclose(model.predict_joint_log_proba(frame), expected, rtol=1e-12)
    assert_allclose(model.predict_log_proba(frame), normalised(expected), rtol=1e-12,
                    atol=1e-12)
    assert_allclose(model.predict_proba(frame), np.exp(normalised(expected)),
                    rtol=1e-12, atol=1e-15)
    assert_array_equal(model.predict(frame), model.classes_[np.argmax(expected, axis=1)])
    assert model.score(frame, y) == np.mean(model.predict(frame) == y)


def test_auto_equals_the_hand_sum_of_its_choice(rng):
    frame, y = mixed_frame(rng)
    model = ColumnwiseNB().fit(frame, y)
    spec = [(name, type(est)(), columns) for name, est, columns in model.estimators_]
    assert [(name, columns) for name, _, columns in spec] == [
        ("gaussian", ["height", "weight"]),
        ("bernoulli", ["member"]),
        ("categorical", ["colour", "shape", "size", "rooms", "visits"]),
    ]
    assert_allclose(model.predict_joint_log_proba(frame), hand_jll(frame, y, spec),
                    rtol=1e-12)


@pytest.mark.parametrize("sub_model, columns", [
    (GaussianNB(), ["height", "weight"]),
    (BernoulliNB(binarize=None), ["member"]),
    (MultinomialNB(alpha=0.3), ["visits", "rooms"]),
    (CategoricalNB(), ["colour", "shape", "size", "rooms"]),
])
def test_one_sub_model_equals_that_model(rng, sub_model, columns):
    frame, y = mixed_frame(rng)
    alone = type(sub_model)(**sub_model.get_params()).fit(frame[columns], y)
    model = ColumnwiseNB([("only", sub_model, columns)], remainder="drop").fit(frame, y)
    assert_allclose(model.predict_joint_log_proba(frame),
                    alone.predict_joint_log_proba(frame[columns]), rtol=1e-12)
    assert_allclose(model.predict_proba(frame), alone.predict_proba(frame[columns]),
                    rtol=1e-12, atol=1e-15)
    assert_array_equal(model.predict(frame), alone.predict(frame[columns]))
    assert_array_equal(model.class_count_, alone.class_count_)


def test_numpy_object_array_list_and_frame_agree(rng):
    frame, y = mixed_frame(rng, missing=False)
    frame = frame[["height", "shape", "member", "rooms"]]
    X = frame.to_numpy(dtype=object)
    spec = [("g", GaussianNB(), [0]), ("c", CategoricalNB(), [1, 3]),
            ("b", BernoulliNB(), [2])]
    by_frame = ColumnwiseNB([(n, e, list(frame.columns[c])) for n, e, c in spec]).fit(
        frame, y)
    expected = by_frame.predict_joint_log_proba(frame)
    for X_variant in (X, X.tolist()):
        model = ColumnwiseNB(spec).fit(X_variant, y)
        assert_allclose(model.predict_joint_log_proba(X_variant), expected, rtol=1e-12)
        assert_allclose(by_frame.predict_joint_log_proba(frame), expected, rtol=0)
    auto = ColumnwiseNB().fit(X.tolist(), y)
    assert [name for name, _, _ in auto.estimators_] == ["gaussian", "bernoulli",
                                                         "categorical"]


def test_partial_fit_in_batches_equals_fit(rng):
    frame, y = mixed_frame(rng)
    whole = ColumnwiseNB(EXPLICIT).fit(frame, y)
    online = ColumnwiseNB(EXPLICIT)
    for rows in np.array_split(np.arange(len(y)), 5):
        online.partial_fit(frame.iloc[rows], y[rows], classes=[0, 1, 2])
    assert_allclose(online.predict_joint_log_proba(frame),
                    whole.predict_joint_log_proba(frame), rtol=1e-12)


def test_blocks_do_not_change_the_result(rng, monkeypatch):
    frame, y = mixed_frame(rng)
    model = ColumnwiseNB(EXPLICIT).fit(frame, y)
    expected = {m: getattr(model, m)(frame) for m in ("predict", "predict_proba",
                                                      "predict_joint_log_proba")}
    monkeypatch.setattr(columnwise._predict, "_PREDICT_BLOCK_ROWS", 7)
    for method, value in expected.items():
        assert_array_equal(getattr(model, method)(frame), value, err_msg=method)


def test_unseen_class_of_partial_fit_is_impossible(rng):
    frame, y = mixed_frame(rng)
    model = ColumnwiseNB(EXPLICIT).partial_fit(frame, y, classes=[0, 1, 2, 3])
    jll = model.predict_joint_log_proba(frame)
    assert np.all(jll[:, 3] == -np.inf) and np.all(np.isfinite(jll[:, :3]))
    assert_allclose(model.predict_proba(frame)[:, 3], 0)


# -- missing values and unseen categories --------------------------------------------
def test_missing_values_in_every_kind_of_column(rng):
    frame, y = mixed_frame(rng)
    frame["flag"] = pd.array(rng.random(len(y)) < 0.5, dtype="boolean")
    frame.loc[rng.random(len(y)) < 0.1, "flag"] = pd.NA
    frame.loc[rng.random(len(y)) < 0.1, "size"] = np.nan
    model = ColumnwiseNB().fit(frame, y)
    assert model.named_estimators_["bernoulli"].n_features_in_ == 2  # member, flag
    spec = [(name, type(est)(), columns) for name, est, columns in model.estimators_]
    assert_allclose(model.predict_joint_log_proba(frame), hand_jll(frame, y, spec),
                    rtol=1e-12)
    # A row with every value missing is decided by the priors alone.
    empty = frame.iloc[:1].copy()
    for column in empty.columns:
        empty[column] = empty[column].astype(object)
        empty.iloc[0, empty.columns.get_loc(column)] = None
    empty = empty.astype({"height": float, "weight": float})
    assert_allclose(model.predict_joint_log_proba(empty)[0], model.class_log_prior_,
                    rtol=1e-12)


def test_unseen_categories_predict_without_error(rng):
    frame, y = mixed_frame(rng)
    model = ColumnwiseNB(EXPLICIT).fit(frame, y)
    new = frame.iloc[:5].copy()
    new["colour"] = pd.array(["never", "seen", "red", "x", "y"], dtype="str")
    new["shape"] = np.array(["nope"] * 5, dtype=object)
    assert_allclose(model.predict_joint_log_proba(new),
                    hand_jll(frame, y, EXPLICIT, X_new=new), rtol=1e-12)


# -- "auto" ---------------------------------------------------------------------------
@pytest.mark.parametrize("column, kind", [
    (np.array([True, False] * 20), "bernoulli"),
    (np.linspace(0, 1, 40), "gaussian"),
    (np.linspace(0, 1, 40).astype(np.float32), "gaussian"),
    (np.arange(40) % 5, "categorical"),
    (np.arange(40), "gaussian"),
    (np.array(["a", "b"] * 20), "categorical"),
    (np.array(["a", None] * 20, dtype=object), "categorical"),
    (np.array([1.5, None] * 20, dtype=object), "gaussian"),
    (np.array([True, None] * 20, dtype=object), "bernoulli"),
    (np.array([3, None] * 20, dtype=object), "categorical"),
    (pd.Series(["a", "b"] * 20, dtype="category"), "categorical"),
    (pd.Series(["a", None] * 20, dtype="str"), "categorical"),
    (pd.Series([True, None] * 20, dtype="boolean"), "bernoulli"),
    (pd.Series([1, None] * 20, dtype="Int64"), "categorical"),
    (pd.Series(range(40), dtype="Int64"), "gaussian"),
    (pd.Series([0.5, None] * 20, dtype="Float64"), "gaussian"),
])
def test_auto_chooses_by_dtype_and_values(column, kind):
    y = np.arange(40) % 2
    model = ColumnwiseNB().fit(pd.DataFrame({"x": column, "z": np.linspace(0, 1, 40)}), y)
    assert model.named_estimators_[kind] is not None
    assert "x" in dict((n, c) for n, _, c in model.estimators_)[kind]
    model.predict_proba(pd.DataFrame({"x": column, "z": np.linspace(0, 1, 40)}))


def test_auto_refuses_datetimes():
    frame = pd.DataFrame({"when": pd.date_range("2020", periods=4)})
    with pytest.raises(TypeError, match="'when' has dtype datetime64"):
        ColumnwiseNB().fit(frame, [0, 1, 0, 1])


def test_summary_and_fitted_attributes(rng):
    frame, y = mixed_frame(rng)
    model = ColumnwiseNB().fit(frame, y)
    lines = model.summary().splitlines()
    assert [line.split()[0] for line in lines] == ["gaussian", "bernoulli", "categorical"]
    assert lines[0].endswith("height, weight")
    assert_array_equal(model.feature_names_in_, frame.columns)
    assert model.n_features_in_ == frame.shape[1]
    assert_allclose(model.class_prior_, np.bincount(y) / len(y))
    assert set(model.named_estimators_) == {"gaussian", "bernoulli", "categorical"}


# -- column selections ----------------------------------------------------------------
@pytest.mark.parametrize("selection", [
    ["height", "weight"],
    [0, 1],
    [-8, -7],
    slice(0, 2),
    slice("height", "weight"),
    np.array([True, True] + [False] * 6),
    lambda X: [c for c in X.columns if X[c].dtype == np.float64],
])
def test_column_selections_name_the_same_columns(rng, selection):
    frame, y = mixed_frame(rng)
    model = ColumnwiseNB([("g", GaussianNB(), selection)], remainder="drop").fit(frame, y)
    assert model.estimators_[0][2] == ["height", "weight"]


def test_make_column_selector(rng):
    compose = pytest.importorskip("sklearn.compose")
    frame, y = mixed_frame(rng)
    model = ColumnwiseNB([
        ("g", GaussianNB(), compose.make_column_selector(dtype_include="float")),
        ("c", CategoricalNB(), compose.make_column_selector(dtype_exclude="float")),
    ]).fit(frame, y)
    assert model.estimators_[0][2] == ["height", "weight"]
    assert len(model.estimators_[1][2]) == 6


def test_drop_and_remainder(rng):
    frame, y = mixed_frame(rng)
    model = ColumnwiseNB([("g", GaussianNB(), ["height"]), ("x", "drop", ["weight"])],
                         remainder="drop").fit(frame, y)
    assert [name for name, _, _ in model.estimators_] == ["g"]
    alone = GaussianNB().fit(frame[["height"]], y)
    assert_allclose(model.predict_joint_log_proba(frame),
                    alone.predict_joint_log_proba(frame[["height"]]), rtol=1e-12)


# -- scikit-learn composition ---------------------------------------------------------
def test_nested_parameters_clone_and_grid_search(rng):
    model_selection = pytest.importorskip("sklearn.model_selection")
    base = pytest.importorskip("sklearn.base")
    frame, y = mixed_frame(rng)
    model = ColumnwiseNB(EXPLICIT)
    params = model.get_params()
    assert params["words__alpha"] == 0.5 and params["normal"] is EXPLICIT[0][1]
    assert "words__alpha" not in model.get_params(deep=False)
    clone = base.clone(model).set_params(words__alpha=2.0)
    assert clone.estimators[2][1].alpha == 2.0 and EXPLICIT[2][1].alpha == 0.5
    search = model_selection.GridSearchCV(
        ColumnwiseNB([(n, type(e)(**e.get_params()), c) for n, e, c in EXPLICIT]),
        {"words__alpha": [0.1, 1.0], "normal__var_smoothing": [1e-9, 1e-3]}, cv=3)
    search.fit(frame, y)
    assert search.best_score_ > 0.4
    model_selection.cross_val_score(ColumnwiseNB(), frame, y, cv=3)


# -- merge, save and load, pickle ---------------------------------------------------------
def test_merge_of_parts_equals_fit_of_whole(rng):
    frame, y = mixed_frame(rng)
    weights = rng.uniform(0.5, 2, len(y))
    parts = [ColumnwiseNB(EXPLICIT).fit(frame.iloc[rows], y[rows],
                                        sample_weight=weights[rows])
             for rows in np.array_split(np.argsort(y, kind="stable"), 3)]
    merged = fastnb.merge(*parts)
    whole = ColumnwiseNB(EXPLICIT).fit(frame, y, sample_weight=weights)
    assert_array_equal(merged.classes_, whole.classes_)
    assert_allclose(merged.class_count_, whole.class_count_, rtol=1e-12)
    assert_allclose(merged.predict_joint_log_proba(frame),
                    whole.predict_joint_log_proba(frame), rtol=1e-10)
    # "auto" chose differently: a categorical column in one part, Gaussian in another
    few = ColumnwiseNB().fit(frame[["height", "rooms"]], y)
    many = frame[["height", "rooms"]].assign(rooms=np.arange(len(y)))
    with pytest.raises(ValueError, match="different sub-estimators or columns"):
        fastnb.merge(few, ColumnwiseNB().fit(many, y))
    with pytest.raises(ValueError, match="different parameters"):
        fastnb.merge(whole, ColumnwiseNB(EXPLICIT, priors=[0.2, 0.5, 0.3]).fit(frame, y))


@pytest.mark.parametrize("estimators", ["auto", EXPLICIT])
def test_save_load_is_bit_exact(rng, tmp_path, estimators):
    frame, y = mixed_frame(rng)
    labels = np.array(["ham", "spam", "eggs"], dtype=object)[y]
    model = ColumnwiseNB(estimators, priors=[0.5, 0.25, 0.25]).fit(frame, labels)
    model.save(tmp_path / "m.npz")
    loaded = fastnb.load(tmp_path / "m.npz")
    for method in ("predict", "predict_proba", "predict_joint_log_proba"):
        assert_array_equal(getattr(loaded, method)(frame), getattr(model, method)(frame))
    assert loaded.summary() == model.summary()
    assert_array_equal(loaded.feature_names_in_, model.feature_names_in_)
    if estimators != "auto":  # selections come back as positions
        assert [c for _, _, c in loaded.estimators] == [[0, 1], [5], [2, 3, 4, 6], [7]]
    again = pickle.loads(pickle.dumps(model))
    assert_array_equal(again.predict_proba(frame), model.predict_proba(frame))


def test_damaged_layout_is_a_clear_error(rng, tmp_path):
    import json

    frame, y = mixed_frame(rng)
    ColumnwiseNB(EXPLICIT).fit(frame, y).save(tmp_path / "m.npz")
    with np.load(tmp_path / "m.npz") as archive:
        members = {name: archive[name] for name in archive.files}
    layout = json.loads(members["layout"].tobytes())
    damages = {
        "overlap": lambda d: d["estimators"][1].update(columns=[0]),
        "unknown": lambda d: d["estimators"][0].update(estimator="ComplementNB"),
        "outside": lambda d: d["estimators"][0]["arrays"]["theta_"].__setitem__(1, 10**9),
        "prior": lambda d: d["estimators"][0]["params"].update(priors={
            "array": [0.2, 0.5, 0.3], "dtype": "<f8"}),
        "column": lambda d: d["estimators"][0].update(columns=[99]),
        "missing": lambda d: d["estimators"].pop(),
    }
    assert_damaged_layouts_refused(members, layout, damages, tmp_path)


# -- threads and Dask -----------------------------------------------------------------
def test_same_bits_for_any_thread_count(rng, parallel_kernels, monkeypatch):
    frame, y = mixed_frame(rng, n=3000)
    monkeypatch.setattr(columnwise._predict, "_PREDICT_BLOCK_ROWS", 1000)
    results = []
    with parallel_kernels():
        for n_threads in (1, 2, 3):
            model = ColumnwiseNB(EXPLICIT, n_threads=n_threads).fit(frame, y)
            assert all(m.n_threads == n_threads for _, m, _ in model.estimators_)
            results.append([model.predict(frame), model.predict_proba(frame),
                            model.predict_joint_log_proba(frame)])
    for other in results[1:]:
        for a, b in zip(results[0], other):
            assert_array_equal(a, b)


def test_dask_dataframe_of_mixed_dtypes(rng):
    dd = pytest.importorskip("dask.dataframe")
    frame, y = mixed_frame(rng, n=3000)
    frame["label"] = y
    ddf = dd.from_pandas(frame, npartitions=4)
    import fastnb.dask as fnd

    X = ddf.drop(columns="label")
    for estimators in ("auto", EXPLICIT):
        model = fnd.fit(ColumnwiseNB(estimators), X, ddf["label"])
        local = ColumnwiseNB(estimators).fit(frame.drop(columns="label"), y)
        assert model.summary() == local.summary()
        assert_allclose(model.predict_joint_log_proba(frame.drop(columns="label")),
                        local.predict_joint_log_proba(frame.drop(columns="label")),
                        rtol=1e-10)
        assert_array_equal(fnd.predict(model, X).compute(),
                           local.predict(frame.drop(columns="label")))


# -- memory ---------------------------------------------------------------------------
def test_predict_memory_is_output_plus_a_fixed_block(rng):
    """Peak extra memory of predict: its output plus a scratch that does not grow
    with n (two (block, k) buffers and each sub-model's input for one block)."""
    k = 5
    block = columnwise._PREDICT_BLOCK_ROWS
    for n_threads in (1, None):
        extra = []
        for n in (200_000, 400_000):
            y = rng.integers(0, k, n)
            words = np.array([f"w{i}" for i in range(50)], dtype=object)
            frame = pd.DataFrame({
                **{f"f{j}": rng.normal(size=n) + y for j in range(3)},
                "s": pd.array(words[rng.integers(0, 50, n)], dtype="str"),
                "b": rng.random(n) < 0.5,
            })
            model = ColumnwiseNB(n_threads=n_threads).fit(frame, y)
            model.predict(frame)
            for method in ("predict", "predict_proba"):
                tracemalloc.start()
                out = getattr(model, method)(frame)
                _, peak = tracemalloc.get_traced_memory()
                tracemalloc.stop()
                extra.append(peak - out.nbytes)
        # Per thread: scratch, the inputs of one block, its factorised codes.
        threads = 1 if n_threads == 1 else fastnb.effective_n_threads()
        bound = threads * block * (2 * k * 8 + 5 * 8 + 64)
        assert max(extra) <= bound, (n_threads, extra, bound)
        if n_threads == 1:
            # and it does not grow with n. (With several threads the peak depends
            # on how the threads' block scratch happens to overlap in time, so
            # growth is checked on one thread, where the peak is deterministic.)
            assert extra[2] <= extra[0] * 1.1 + (1 << 16), extra
            assert extra[3] <= extra[1] * 1.1 + (1 << 16), extra


# -- bad input ------------------------------------------------------------------------
def _snapshot(model):
    return pickle.dumps(vars(model))


BAD_PARAMS = [
    ([("a", GaussianNB(), ["height"]), ("b", GaussianNB(), ["height", "weight"])],
     ValueError, r"Column 'height' is chosen by sub-estimator 'a' and by sub-estimator 'b'"),
    ([("a", GaussianNB(), ["height", "height"])], ValueError, "chosen by"),
    ([("a", GaussianNB(), ["heigth"])], ValueError, r"Columns \['heigth'\] of sub-estimator "
     r"'a' are not columns of X, whose columns are \['height'"),
    ([("a", GaussianNB(), [99])], ValueError, "out of range"),
    ([("a", GaussianNB(), 1.5)], TypeError, "must be ints, str names"),
    ([("a", GaussianNB(), np.ones(3, dtype=bool))], ValueError, "boolean mask"),
    ([("a", object(), ["height"])], TypeError, "ColumnwiseNB takes fastnb's"),
    ([("a", ComplementNB(), ["visits"])], TypeError, "not log-likelihoods"),
    ([("a", GaussianNB(priors=[0.2, 0.5, 0.3]), ["height"])], ValueError,
     "has its own class prior"),
    ([("a", MultinomialNB(class_prior=[0.2, 0.5, 0.3]), ["visits"])], ValueError,
     r"own class prior \(class_prior="),
    ([("a", BernoulliNB(fit_prior=False), ["member"])], ValueError,
     r"own class prior \(fit_prior=False"),
    ([("a", GaussianNB(), ["height"]), ("a", GaussianNB(), ["weight"])], ValueError,
     "used twice"),
    ([("a__b", GaussianNB(), ["height"])], ValueError, "without '__'"),
    ([("a", GaussianNB())], TypeError, r"\(name, estimator, columns\) tuple"),
    ([], TypeError, "'estimators' parameter of ColumnwiseNB"),
    ("gaussian", TypeError, "'estimators' parameter of ColumnwiseNB"),
    ([("a", GaussianNB(), ["height"])], ValueError,
     r"Columns \['weight', 'colour', .*'visits'\] are not given to any sub-estimator"),
    ([("a", "drop", slice(None))], ValueError, "no columns to model"),
    ([("a", GaussianNB(), ["colour"]), ("b", "drop", ["height", "weight", "shape",
                                                      "size", "member", "rooms", "visits"])],
     ValueError, "sub-estimator 'a'.*not numbers"),
]


@pytest.mark.parametrize("estimators, error, match", BAD_PARAMS)
@pytest.mark.parametrize("method", ["fit", "partial_fit"])
def test_bad_sub_models_and_columns_leave_the_model_unchanged(
        rng, estimators, error, match, method):
    frame, y = mixed_frame(rng)
    model = ColumnwiseNB(EXPLICIT).fit(frame, y)
    before = _snapshot(model)
    model.estimators = estimators
    with pytest.raises(error, match=match):
        if method == "fit":
            model.fit(frame, y)
        else:
            fresh = ColumnwiseNB(estimators)
            fresh.partial_fit(frame, y, classes=[0, 1, 2])
    model.estimators = EXPLICIT
    assert _snapshot(model) == before


def test_names_need_a_frame(rng):
    frame, y = mixed_frame(rng)
    with pytest.raises(ValueError, match="needs X to be a DataFrame"):
        ColumnwiseNB([("a", GaussianNB(), ["x"])]).fit(np.zeros((4, 1)), [0, 1, 0, 1])


def _put_inf(frame):
    frame = frame.copy()
    frame.loc[3, "weight"] = np.inf
    return frame


BAD_CALLS = [
    ("X-1d", lambda m, X, y: m.partial_fit(X["height"].to_numpy(), y), ValueError,
     "Expected 2D array"),
    ("X-3d", lambda m, X, y: m.partial_fit(np.zeros((len(y), 8, 1)), y), ValueError,
     "dim 3"),
    ("X-empty", lambda m, X, y: m.partial_fit(X.iloc[:0], y[:0]), ValueError, "0 sample"),
    ("X-no-columns", lambda m, X, y: m.partial_fit(X.iloc[:, :0], y), ValueError,
     "0 feature"),
    ("X-sparse", lambda m, X, y: m.partial_fit(pytest.importorskip("scipy.sparse")
                                               .csr_matrix(np.ones((len(y), 8))), y),
     TypeError, "dense data is required"),
    ("X-complex", lambda m, X, y: m.partial_fit(np.ones((len(y), 8)) + 1j, y), ValueError,
     "Complex"),
    ("X-inf-second-sub-model", lambda m, X, y: m.partial_fit(_put_inf(X), y), ValueError,
     "sub-estimator 'normal'.*infinity"),
    ("X-other-columns", lambda m, X, y: m.partial_fit(X.rename(columns={"height": "h"}), y),
     ValueError, "feature names should match"),
    ("X-fewer-columns", lambda m, X, y: m.partial_fit(X.iloc[:, :-1], y), ValueError,
     "X has 7 features, but ColumnwiseNB is expecting 8"),
    ("y-short", lambda m, X, y: m.partial_fit(X, y[:-1]), ValueError, "inconsistent"),
    ("y-nan", lambda m, X, y: m.partial_fit(X, np.where(y == 0, np.nan, y)), ValueError,
     "NaN"),
    ("y-unknown-label", lambda m, X, y: m.partial_fit(X, y + 10), ValueError,
     r"label\(s\)"),
    ("classes-mismatch", lambda m, X, y: m.partial_fit(X, y, classes=[0, 1, 2, 3]),
     ValueError, "is not the same as on last call to partial_fit"),
    ("w-negative", lambda m, X, y: m.partial_fit(X, y, sample_weight=-np.ones(len(y))),
     ValueError, "Negative"),
    ("w-short", lambda m, X, y: m.partial_fit(X, y, sample_weight=np.ones(3)), ValueError,
     "sample_weight.shape"),
    ("priors-length", lambda m, X, y: m.set_params(priors=[0.5, 0.5]).partial_fit(X, y),
     ValueError, "Number of priors must match number of classes"),
    ("remainder", lambda m, X, y: m.set_params(remainder="keep").fit(X, y), ValueError,
     "'remainder' parameter of ColumnwiseNB"),
    ("n_threads", lambda m, X, y: m.set_params(n_threads=0).fit(X, y), ValueError,
     "'n_threads' parameter of ColumnwiseNB"),
    ("predict-1d", lambda m, X, y: m.predict(X.iloc[0].to_numpy()), ValueError,
     "Reshape your data"),
    ("predict-fewer-columns", lambda m, X, y: m.predict(X.iloc[:, 1:]), ValueError,
     "feature names should match"),
    ("predict-inf", lambda m, X, y: m.predict_proba(_put_inf(X)), ValueError, "infinity"),
    ("predict-strings-in-floats", lambda m, X, y: m.predict(X.astype({"height": object})
                                                           .assign(height="x")),
     ValueError, "not numbers"),
    ("set_params-unknown", lambda m, X, y: m.set_params(nonsense=1), ValueError,
     "Invalid parameter 'nonsense'"),
    ("set_params-unknown-nested", lambda m, X, y: m.set_params(words__nonsense=1),
     ValueError, "Invalid parameter"),
]


@pytest.mark.parametrize("call, error, match",
                         [pytest.param(*case[1:], id=case[0]) for case in BAD_CALLS])
def test_bad_input_raises_clearly_and_leaves_the_model_unchanged(rng, call, error, match):
    frame, y = mixed_frame(rng)
    model = ColumnwiseNB([(n, type(e)(**e.get_params()), c) for n, e, c in EXPLICIT])
    model.partial_fit(frame, y, classes=[0, 1, 2])
    params = model.get_params(deep=False)
    state = {key: value for key, value in vars(model).items() if key not in params}
    before = pickle.dumps(state)
    with pytest.raises(error, match=match):
        call(model, frame, y)
    state = {key: value for key, value in vars(model).items() if key not in params}
    assert pickle.dumps(state) == before


def test_predict_before_fit():
    for method in ("predict", "predict_proba", "predict_log_proba",
                   "predict_joint_log_proba"):
        with pytest.raises(fastnb.NotFittedError, match="not fitted"):
            getattr(ColumnwiseNB(), method)(np.zeros((2, 2)))
    with pytest.raises(ValueError, match="classes must be passed"):
        ColumnwiseNB().partial_fit(np.zeros((2, 2)), [0, 1])


# -- real data: the Palmer penguins -----------------------------------------------------
def test_penguins_loader():
    from fastnb.datasets import load_penguins

    X, y = load_penguins(return_X_y=True)
    frame, y_frame = load_penguins(return_X_y=True, as_frame=True)
    assert X.shape == frame.shape == (344, 7)
    assert_array_equal(y, y_frame)
    assert np.bincount(np.unique(y, return_inverse=True)[1]).tolist() == [152, 68, 124]
    assert frame.isna().sum().tolist() == [0, 2, 2, 2, 2, 11, 0]
    assert str(frame["island"].dtype) == "str" and frame["year"].dtype == np.int64
    # The object array and the frame give the same model.
    assert_allclose(ColumnwiseNB().fit(X, y).predict_joint_log_proba(X),
                    ColumnwiseNB().fit(frame, y).predict_joint_log_proba(frame),
                    rtol=1e-12)


def test_penguins_beat_the_best_single_model_pipeline():
    """Cross-validated accuracy on a real mixed table with missing values, against
    scikit-learn's best single-model pipelines (encoded, imputed): see
    benchmarks/penguins_accuracy.py for the full table."""
    sklearn = pytest.importorskip("sklearn")  # noqa: F841
    from sklearn.compose import make_column_transformer
    from sklearn.impute import SimpleImputer
    from sklearn.model_selection import RepeatedStratifiedKFold, cross_val_score
    from sklearn.naive_bayes import CategoricalNB as SkCategoricalNB
    from sklearn.naive_bayes import GaussianNB as SkGaussianNB
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import KBinsDiscretizer, OrdinalEncoder

    from fastnb.datasets import load_penguins

    X, y = load_penguins(return_X_y=True, as_frame=True)
    text, numeric = ["island", "sex", "year"], list(X.columns[1:5])
    imputed_text = make_pipeline(SimpleImputer(strategy="most_frequent"),
                                 OrdinalEncoder())
    gaussian = make_pipeline(make_column_transformer(
        (SimpleImputer(), numeric), (imputed_text, text)), SkGaussianNB())
    categorical = make_pipeline(make_column_transformer(
        (make_pipeline(SimpleImputer(), KBinsDiscretizer(
            n_bins=5, encode="ordinal", strategy="quantile")), numeric),
        (imputed_text, text)), SkCategoricalNB(min_categories=5))
    folds = RepeatedStratifiedKFold(n_splits=5, n_repeats=3, random_state=0)
    ours = cross_val_score(ColumnwiseNB(), X, y, cv=folds).mean()
    best = max(cross_val_score(model, X, y, cv=folds).mean()
               for model in (gaussian, categorical))
    assert ours >= 0.975 and ours > best, (ours, best)


@pytest.mark.parametrize("missing", [None, pd.NA])
def test_none_and_pd_na_in_an_object_array_are_missing_as_nan_is(rng, missing):
    """Every column kind that takes missing values (bool, float, counts,
    categories) reads None and pd.NA in a NumPy object array as NaN; "auto"
    does not let them turn a bool or float column into categories."""
    n = 200
    y = rng.integers(0, 2, n)
    X = np.empty((n, 4), dtype=object)
    X[:, 0] = (rng.random(n) < 0.3 + 0.4 * y).tolist()
    X[:, 1] = (rng.normal(size=n) + y).tolist()
    X[:, 2] = rng.poisson(1 + y, n).astype(float).tolist()
    X[:, 3] = np.array(["a", "b", "c"], dtype=object)[rng.integers(0, 3, n)]
    gone = rng.random((n, 4)) < 0.1
    with_nan = X.copy()
    with_nan[gone] = np.nan
    X[gone] = missing
    spec = [("flags", BernoulliNB(), [0]), ("normal", GaussianNB(), [1]),
            ("counts", MultinomialNB(), [2]), ("words", CategoricalNB(), [3])]
    expected = ColumnwiseNB(spec).fit(with_nan, y)
    model = ColumnwiseNB(spec).fit(X, y)
    assert_allclose(model.predict_proba(X), expected.predict_proba(with_nan),
                    rtol=1e-12)
    auto = ColumnwiseNB("auto").fit(X[:, :2], y)
    assert [(name, columns) for name, _, columns in auto.estimators_] == [
        ("gaussian", [1]), ("bernoulli", [0])]
    assert_allclose(auto.predict_proba(X[:, :2]), ColumnwiseNB(spec[:2]).fit(
        with_nan[:, :2], y).predict_proba(with_nan[:, :2]), rtol=1e-12)
