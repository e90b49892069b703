"""ColumnwiseNB with the parametric models as sub-models (exact against the hand
sum, save/load, merge), and ColumnwiseNB(numeric="select"): its score against
a brute-force cross-validation of the explicit model it chose, the supports,
the greedy optimum, persistence, merge, partial_fit and refusals."""

import io
import re

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

import fastnb
from _model_files import assert_damaged_layouts_refused
import fastnb._columnwise._select as select_module
from fastnb import (BernoulliNB, CategoricalNB, ColumnwiseNB, ExponentialNB, GammaNB,
                    GaussianNB, LogNormalNB, PoissonNB)
from fastnb._columnwise._select import (FAMILY_SUPPORT, SELECT_FOLDS,
                                        candidate_families)

pd = pytest.importorskip("pandas")

FAMILY_CLASSES = {"gaussian": GaussianNB, "poisson": PoissonNB, "gamma": GammaNB,
                  "lognormal": LogNormalNB, "exponential": ExponentialNB}


def skewed_frame(rng, n=400, k=3, missing=True):
    y = rng.integers(0, k, n)
    frame = pd.DataFrame({
        "visits": rng.poisson(0.5 + 2 * y).astype(float),
        "spend": rng.lognormal(0.5 * y, 0.8),
        "wait": rng.exponential(1.0 + y),
        "dose": rng.gamma(2.0 + y, 1.5),
        "height": rng.normal(y, 1.0),
        "colour": np.array(["red", "green", "blue"], dtype=object)[
            (rng.integers(0, 2, n) + y) % 3],
        "member": rng.random(n) < 0.3 + 0.2 * (y == 1),
    })
    if missing:
        frame.loc[rng.random(n) < 0.05, "spend"] = np.nan
        frame.loc[rng.random(n) < 0.05, "visits"] = np.nan
    return frame, y


PARAMETRIC = [
    ("counts", PoissonNB(alpha=1e-3), ["visits"]),
    ("amounts", LogNormalNB(), ["spend"]),
    ("waits", ExponentialNB(), ["wait"]),
    ("doses", GammaNB(), ["dose"]),
    ("normal", GaussianNB(), ["height"]),
    ("words", CategoricalNB(), ["colour"]),
    ("flags", BernoulliNB(), ["member"]),
]


def hand_jll(frame, y, spec, X_new=None, sample_weight=None):
    """log P(c) + sum_m (jll_m - log P_m(c)), from sub-models fitted by hand."""
    X_new = frame if X_new is None else X_new
    total, log_prior = 0.0, None
    for _, estimator, columns in spec:
        def part(X):
            return X[columns] if isinstance(estimator, CategoricalNB) else X[
                columns].astype(np.float64)
        model = type(estimator)(**estimator.get_params()).fit(
            part(frame), y, sample_weight=sample_weight)
        included = model._included_log_prior()
        total = total + model.predict_joint_log_proba(part(X_new)) - included
        log_prior = included
    return log_prior + total


# -- the parametric models as sub-models -------------------------------------------

@pytest.mark.parametrize("weighted", [False, True])
def test_parametric_sub_models_equal_the_hand_sum(rng, weighted):
    frame, y = skewed_frame(rng)
    weights = rng.uniform(0.2, 3, len(y)) if weighted else None
    model = ColumnwiseNB(PARAMETRIC).fit(frame, y, sample_weight=weights)
    assert_allclose(model.predict_joint_log_proba(frame),
                    hand_jll(frame, y, PARAMETRIC, sample_weight=weights), rtol=1e-12)
    # any thread count, the same bits
    again = ColumnwiseNB(PARAMETRIC, n_threads=1).fit(frame, y, sample_weight=weights)
    assert_array_equal(again.predict_joint_log_proba(frame),
                       ColumnwiseNB(PARAMETRIC, n_threads=2).fit(
                           frame, y, sample_weight=weights).predict_joint_log_proba(frame))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_one_parametric_sub_model_equals_that_model(rng, dtype):
    frame, y = skewed_frame(rng, missing=False)
    X = frame[["spend", "wait", "dose"]].to_numpy(dtype=dtype)
    for cls in (GammaNB, LogNormalNB, ExponentialNB):
        alone = cls().fit(X, y)
        model = ColumnwiseNB([("only", cls(), [0, 1, 2])]).fit(X, y)
        assert_allclose(model.predict_joint_log_proba(X),
                        alone.predict_joint_log_proba(X), rtol=1e-12)
        assert_array_equal(model.predict(X), alone.predict(X))


def test_parametric_sub_models_save_load_and_merge(rng):
    frame, y = skewed_frame(rng)
    whole = ColumnwiseNB(PARAMETRIC).fit(frame, y)
    buffer = io.BytesIO()
    whole.save(buffer)
    buffer.seek(0)
    loaded = fastnb.load(buffer)
    assert_array_equal(loaded.predict_joint_log_proba(frame),
                       whole.predict_joint_log_proba(frame))
    assert loaded.summary() == whole.summary()
    half = len(y) // 2
    merged = fastnb.merge(ColumnwiseNB(PARAMETRIC).fit(frame[:half], y[:half]),
                          ColumnwiseNB(PARAMETRIC).fit(frame[half:], y[half:]))
    assert_allclose(merged.predict_joint_log_proba(frame),
                    whole.predict_joint_log_proba(frame), rtol=1e-10)


def test_parametric_sub_model_refuses_values_outside_its_support(rng):
    frame, y = skewed_frame(rng, missing=False)
    frame.loc[0, "visits"] = -1.0
    model = ColumnwiseNB(PARAMETRIC)
    with pytest.raises(ValueError, match="sub-estimator 'counts'.*visits"):
        model.fit(frame, y)
    assert not hasattr(model, "classes_")


# -- numeric="select" -----------------------------------------------------------------

def test_candidates_come_from_the_registry():
    families = [family for family, _ in candidate_families()]
    assert families[:5] == ["gaussian", "lognormal", "gamma", "exponential", "poisson"]
    kde = getattr(fastnb, "KernelDensityNB", None)
    assert ("kde" in families) == (kde is not None and kde._capabilities.sub_model)
    assert set(families) <= set(FAMILY_SUPPORT)


def test_select_chooses_within_each_columns_support(rng, monkeypatch):
    monkeypatch.setattr(select_module, "SELECT_MARGIN", 0.0)  # every gain counts
    frame, y = skewed_frame(rng, n=600)
    frame["shifted"] = frame["height"] - 10.0  # negative: Gaussian only
    frame["fractional"] = frame["wait"] + 0.5  # positive, not counts
    model = ColumnwiseNB(numeric="select").fit(frame, y)
    chosen = {column: family for column, family, _, _ in model.selection_}
    # negative values: a family for any real value (Gaussian or a kernel density)
    assert FAMILY_SUPPORT[chosen["shifted"]] == "any"
    assert chosen["fractional"] != "poisson"
    assert chosen["visits"] == "poisson"  # counts of rates 0.5, 2.5, 4.5
    assert chosen["spend"] in ("lognormal", "gamma")
    for column, family in chosen.items():
        values = frame[column].dropna().to_numpy()
        support = FAMILY_SUPPORT[family]
        assert support != "positive" or np.all(values > 0)
        assert support != "nonnegative" or np.all(values >= 0)
        assert support != "counts" or np.all(values == np.floor(values))
    # the sub-models are named after the families, each over its columns
    for name, sub_model, columns in model.estimators_:
        if name in FAMILY_CLASSES:
            assert type(sub_model) is FAMILY_CLASSES[name]
            assert all(chosen[c] == name for c in columns)
    assert re.search(r"\nvisits +poisson +0\.\d{4} +0\.\d{4}\n", model.summary())


def _brute_force_log_loss(frame, y, spec):
    """The 5-fold (row i in fold i % 5) held-out log loss of ColumnwiseNB(spec),
    each fold's model fitted on the other folds."""
    n = len(y)
    losses = np.empty(n)
    for fold in range(SELECT_FOLDS):
        test = np.arange(n) % SELECT_FOLDS == fold
        model = ColumnwiseNB(spec).fit(frame[~test], y[~test])
        log_proba = model.predict_log_proba(frame[test])
        losses[test] = -log_proba[np.arange(test.sum()),
                                  np.searchsorted(model.classes_, y[test])]
    return losses.mean()


def _numeric_spec(assignment, others=()):
    groups = {}
    for column, family in assignment.items():
        groups.setdefault(family, []).append(column)
    return [(family, FAMILY_CLASSES[family](), columns)
            for family, columns in groups.items()] + list(others)


def test_select_scores_are_the_cross_validated_log_loss_of_its_choice(rng):
    frame, y = skewed_frame(rng, n=300, missing=False)
    frame = frame[["visits", "spend", "wait", "member"]]
    model = ColumnwiseNB(numeric="select").fit(frame, y)
    chosen = {column: family for column, family, _, _ in model.selection_}
    flags = [("bernoulli", BernoulliNB(), ["member"])]
    expected = _brute_force_log_loss(frame, y, _numeric_spec(chosen, flags))
    # (GaussianNB's var_smoothing reads the largest variance of its columns:
    # one column at a time in the selection, all of them in the brute force)
    for column, family, score, gaussian in model.selection_:
        assert_allclose(score, expected, rtol=1e-6)
        alternative = _brute_force_log_loss(
            frame, y, _numeric_spec({**chosen, column: "gaussian"}, flags))
        assert_allclose(gaussian, alternative, rtol=1e-6)
        assert score <= gaussian * (1 + 1e-12)


def test_without_a_margin_the_choice_is_a_coordinate_optimum(rng, monkeypatch):
    monkeypatch.setattr(select_module, "SELECT_MARGIN", 0.0)
    frame, y = skewed_frame(rng, n=300, missing=False)
    frame = frame[["visits", "spend", "wait"]]
    model = ColumnwiseNB(numeric="select").fit(frame, y)
    chosen = {column: family for column, family, _, _ in model.selection_}
    for column, family, score, _ in model.selection_:
        values = frame[column].to_numpy()
        for other in FAMILY_CLASSES:
            support = FAMILY_SUPPORT[other]
            if (support == "positive" and values.min() <= 0) or (
                    support == "counts" and np.any(values != np.floor(values))):
                continue
            loss = _brute_force_log_loss(frame, y, _numeric_spec({**chosen,
                                                                 column: other}))
            assert score <= loss * (1 + 1e-6), (column, family, other)


def test_the_margin_keeps_the_gaussian_within_the_noise(rng, monkeypatch):
    frame, y = skewed_frame(rng, n=200, missing=False)
    frame = frame[["visits", "spend", "wait", "dose", "height"]]
    scores = {}
    for margin in (0.0, select_module.SELECT_MARGIN, 1e6):
        monkeypatch.setattr(select_module, "SELECT_MARGIN", margin)
        model = ColumnwiseNB(numeric="select").fit(frame, y)
        scores[margin] = [family for _, family, _, _ in model.selection_]
    assert scores[1e6] == ["gaussian"] * 5
    changed = [sum(f != "gaussian" for f in s) for s in scores.values()]
    assert changed[0] >= changed[1] >= changed[2]


def test_select_is_deterministic_and_the_default_is_unchanged(rng):
    frame, y = skewed_frame(rng)
    a = ColumnwiseNB(numeric="select").fit(frame, y)
    b = ColumnwiseNB(numeric="select").fit(frame, y)
    assert a.selection_ == b.selection_
    assert_array_equal(a.predict_joint_log_proba(frame), b.predict_joint_log_proba(frame))
    default = ColumnwiseNB().fit(frame, y)
    assert default.numeric == "gaussian" and not hasattr(default, "selection_")
    assert [name for name, _, _ in default.estimators_] == [
        "gaussian", "bernoulli", "categorical"]


def test_select_equals_the_explicit_model_of_its_choice(rng):
    frame, y = skewed_frame(rng)
    model = ColumnwiseNB(numeric="select").fit(frame, y)
    explicit = ColumnwiseNB([(name, type(m)(**m.get_params()), columns)
                             for name, m, columns in model.estimators_]).fit(frame, y)
    assert_array_equal(model.predict_joint_log_proba(frame),
                       explicit.predict_joint_log_proba(frame))


def test_select_save_load_round_trips_the_choice(rng):
    frame, y = skewed_frame(rng)
    model = ColumnwiseNB(numeric="select").fit(frame, y)
    buffer = io.BytesIO()
    model.save(buffer)
    buffer.seek(0)
    loaded = fastnb.load(buffer)
    assert loaded.numeric == "select"
    assert loaded.selection_ == model.selection_
    assert loaded.summary() == model.summary()
    assert_array_equal(loaded.predict_joint_log_proba(frame),
                       model.predict_joint_log_proba(frame))
    # and the plain model's file has no selection
    buffer = io.BytesIO()
    ColumnwiseNB().fit(frame, y).save(buffer)
    buffer.seek(0)
    assert not hasattr(fastnb.load(buffer), "selection_")


def test_select_partial_fit_keeps_the_first_choice(rng, monkeypatch):
    monkeypatch.setattr(select_module, "SELECT_MARGIN", 0.0)  # every gain counts
    frame, y = skewed_frame(rng, n=600)
    model = ColumnwiseNB(numeric="select").partial_fit(frame[:300], y[:300],
                                                       classes=[0, 1, 2])
    first, names = list(model.selection_), [n for n, _, _ in model.estimators_]
    later = frame[300:].copy()
    later["height"] = later["height"].abs() + 1.0  # would allow other families
    model.partial_fit(later, y[300:])
    assert model.selection_ == first
    assert [n for n, _, _ in model.estimators_] == names
    # a batch outside a chosen family's support is refused, the model unchanged
    before = model.predict_joint_log_proba(frame)
    later["visits"] = later["visits"] + 0.5
    with pytest.raises(ValueError, match="sub-estimator 'poisson'.*not integers"):
        model.partial_fit(later, y[300:])
    assert_array_equal(model.predict_joint_log_proba(frame), before)


def test_select_merge_needs_equal_choices(rng):
    frame, y = skewed_frame(rng, n=800)
    frame = frame[["visits", "height", "member"]]  # clear choices in each half
    half = 400
    a = ColumnwiseNB(numeric="select").fit(frame[:half], y[:half])
    b = ColumnwiseNB(numeric="select").fit(frame[half:], y[half:])
    assert [f for _, f, _, _ in a.selection_] == [f for _, f, _, _ in b.selection_]
    merged = fastnb.merge(a, b)
    explicit = ColumnwiseNB([(name, type(m)(**m.get_params()), columns)
                             for name, m, columns in a.estimators_]).fit(frame, y)
    assert_allclose(merged.predict_joint_log_proba(frame),
                    explicit.predict_joint_log_proba(frame), rtol=1e-10)
    assert [row[:2] for row in merged.selection_] == [row[:2] for row in a.selection_]
    assert all(row[2] is None for row in merged.selection_)
    other = frame[half:].copy()
    other["visits"] = other["visits"] + 0.5  # not counts: not Poisson
    c = ColumnwiseNB(numeric="select").fit(other, y[half:])
    with pytest.raises(ValueError, match="chose different families.*visits"):
        fastnb.merge(a, c)


def test_select_with_few_rows_keeps_the_gaussian():
    X = pd.DataFrame({"a": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0], "b": [1, 2, 3, 4, 5, 6]})
    model = ColumnwiseNB(numeric="select").fit(X.astype(float), [0, 0, 0, 1, 1, 1])
    assert model.selection_ == [("a", "gaussian", None, None),
                                ("b", "gaussian", None, None)]
    assert "a       gaussian  -         -" in model.summary()


@pytest.mark.parametrize("extra", [{"grow_classes": True}, {"half_life": 200.0}])
def test_select_with_growing_classes_and_forgetting(rng, extra):
    frame, y = skewed_frame(rng)
    model = ColumnwiseNB(numeric="select", **extra)
    if extra.get("grow_classes"):
        model.partial_fit(frame[y < 2], y[y < 2]).partial_fit(frame[y == 2], y[y == 2])
        assert_array_equal(model.classes_, [0, 1, 2])
    else:
        model.fit(frame, y)
        for _, sub_model, _ in model.estimators_:
            assert sub_model.half_life == 200.0
    assert model.selection_ is not None


def test_numeric_parameter_is_checked(rng):
    frame, y = skewed_frame(rng)
    assert ColumnwiseNB(numeric="select").get_params()["numeric"] == "select"
    assert ColumnwiseNB().set_params(numeric="select").numeric == "select"
    with pytest.raises(ValueError, match="numeric"):
        ColumnwiseNB(numeric="poisson").fit(frame, y)
    with pytest.raises(ValueError, match="needs estimators='auto'"):
        ColumnwiseNB([("g", GaussianNB(), ["height"])], numeric="select",
                     remainder="drop").fit(frame, y)
    with pytest.raises(ValueError, match="distributed fit"):
        ColumnwiseNB(numeric="select")._with_fixed_plan(frame)
    bad = ColumnwiseNB(numeric="select")
    with pytest.raises(ValueError, match="sample_weight|Sample weights"):
        bad.fit(frame, y, sample_weight=np.ones(3))
    assert not hasattr(bad, "classes_")


def test_select_on_a_subset_of_the_rows_and_on_object_arrays(rng, monkeypatch):
    frame, y = skewed_frame(rng, n=500)
    weights = rng.uniform(0.5, 2.0, len(y))
    full = ColumnwiseNB(numeric="select").fit(frame, y, sample_weight=weights)
    monkeypatch.setattr(select_module, "SELECT_MAX_ROWS", 200)
    subset = ColumnwiseNB(numeric="select").fit(frame, y, sample_weight=weights)
    assert [c for c, _, _, _ in subset.selection_] == [c for c, _, _, _ in
                                                      full.selection_]
    assert subset.selection_ != full.selection_  # scored on other rows
    explicit = ColumnwiseNB([(name, type(m)(**m.get_params()), columns)
                             for name, m, columns in subset.estimators_])
    assert_allclose(subset.predict_joint_log_proba(frame),
                    explicit.fit(frame, y, sample_weight=weights)
                    .predict_joint_log_proba(frame), rtol=1e-12)
    as_objects = ColumnwiseNB(numeric="select").fit(
        frame.to_numpy(dtype=object), y, sample_weight=weights)
    assert [f for _, f, _, _ in as_objects.selection_] == [
        f for _, f, _, _ in subset.selection_]


def test_a_damaged_selection_in_a_file_is_a_clear_error(rng, tmp_path):
    import json

    frame, y = skewed_frame(rng)
    ColumnwiseNB(numeric="select").fit(frame, y).save(tmp_path / "m.npz")
    with np.load(tmp_path / "m.npz") as archive:
        members = {name: archive[name] for name in archive.files}
    layout = json.loads(members["layout"].tobytes())
    assert len(layout["selection"]) == 5
    damages = {
        "family": lambda d: d["selection"][0].__setitem__(1, "gamma"),
        "column": lambda d: d["selection"][0].__setitem__(0, 99),
        "score": lambda d: d["selection"][0].__setitem__(2, "low"),
        "shape": lambda d: d["selection"].append([1]),
        "type": lambda d: d.update(selection={"a": 1}),
    }
    assert_damaged_layouts_refused(members, layout, damages, tmp_path)


@pytest.mark.parametrize("cls", [PoissonNB, ExponentialNB, GammaNB, LogNormalNB])
def test_onnx_and_inspection_refuse_a_sub_model_they_cannot_read(rng, cls):
    """Until fastnb.onnx and fastnb.inspection read a family's terms, a
    ColumnwiseNB holding it is refused by the family's name, before any work."""
    from fastnb._capabilities import INSPECTION_TERMS, ONNX_TERMS

    frame, y = skewed_frame(rng, missing=False)
    frame = frame[["visits" if cls is PoissonNB else "dose", "height"]]
    model = ColumnwiseNB([("part", cls(), [frame.columns[0]]),
                          ("rest", GaussianNB(), ["height"])]).fit(frame, y)
    terms = cls._capabilities.terms
    if terms not in ONNX_TERMS:
        pytest.importorskip("onnx")
        import fastnb.onnx

        with pytest.raises(TypeError, match=f"{cls.__name__}.*{terms}"):
            fastnb.onnx.to_onnx(model)
    if terms not in INSPECTION_TERMS:
        import fastnb.inspection

        with pytest.raises(TypeError, match=f"{cls.__name__}.*{terms}"):
            fastnb.inspection.contributions(model, frame)
