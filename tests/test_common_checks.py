"""fastnb's own common checks: every registered model, through every feature, on
every path (local, Dask, ONNX, inspection; Spark in test_common_checks_spark.py).

Each cell (model, feature, path) is decided by the library
(``fastnb._capabilities.decision``, from the model's declared capabilities) as
supported or refused, and checked here:

- supported, path "local": the fit with the feature equals the feature's own
  reference (a weight of 2 is the row twice; fixed priors shift the joint log
  likelihood by the change of log prior; a NaN adds nothing; forgetting is a
  fit weighted by age; grown classes equal a fit that knew them; labels of any
  type give the model of their integer codes; a loaded file predicts the same
  bits; a merge of two fits equals one fit of their union);
- supported, path "dask": the Dask fit of the feature's data equals the local
  fit of the same data (state and joint log likelihood);
- supported, path "onnx": onnxruntime's probabilities equal ``predict_proba``
  of the local fit (1e-12, float64);
- supported, path "inspection": base + the sum of the contributions equals
  ``predict_joint_log_proba`` of the local fit;
- refused: the path raises a ValueError or TypeError whose message matches the
  decision's, before any work.

A model registered later is in every cell by its registration; a feature or
path added to the library's tables without a check here fails
(``test_every_feature_and_path_has_a_check``).
"""

import io

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

import fastnb
from fastnb._capabilities import FEATURES, PATHS, decision
from _registry import DATA_MAKERS, ESTIMATORS

RTOL = 1e-9
LOCAL_PATHS = ("local", "dask", "onnx", "inspection")



def _mixed_columns(kind):
    """A ColumnwiseNB column selection by the kind of the values (so that it
    holds for any subset of the mixed table's columns)."""
    def select(X):
        # (a DataFrame where the fit is Spark's: its values as objects)
        X = X.to_numpy(dtype=object) if hasattr(X, "to_numpy") else X
        out = []
        for j in range(X.shape[1]):
            values = [v for v in X[:, j] if v is not None
                      and not (isinstance(v, float) and np.isnan(v))]
            if all(isinstance(v, (bool, np.bool_)) for v in values):
                found = "bernoulli"
            elif all(isinstance(v, float) for v in values):
                found = "gaussian"
            else:
                found = "categorical"
            if found == kind:
                out.append(j)
        return out
    return select


# Parameters under which a feature's reference is exact: GaussianNB's
# var_smoothing adds a share of the largest variance of X (unweighted, as
# scikit-learn's), which a weighted or reduced X changes.
EXACT_PARAMS = {
    "GaussianNB": {"var_smoothing": 0.0},
    "ColumnwiseNB": {"estimators": [
        ("gaussian", fastnb.GaussianNB(var_smoothing=0.0), _mixed_columns("gaussian")),
        ("bernoulli", fastnb.BernoulliNB(), _mixed_columns("bernoulli")),
        ("categorical", fastnb.CategoricalNB(), _mixed_columns("categorical")),
    ]},
}


def _params(name, extra=None):
    return {**EXACT_PARAMS.get(name, {}), **(extra or {})}


def _data(name, n=240, seed=0):
    spec = ESTIMATORS[name]
    X, y = DATA_MAKERS[spec.data_kind](np.random.default_rng(seed), n=n, k=3)
    return X, y


def _with_missing(X, seed=1):
    """X with about 10% of the cells of its first two columns missing (NaN)."""
    X = X.copy()
    rng = np.random.default_rng(seed)
    for j in (0, 1):
        X[rng.random(X.shape[0]) < 0.1, j] = np.nan
    return X


def _jll(model, X):
    return model.predict_joint_log_proba(X)


def _assert_same_model(a, b, X, rtol=RTOL):
    assert_array_equal(a.classes_, b.classes_)
    assert_allclose(_jll(a, X), _jll(b, X), rtol=rtol, atol=1e-9)
    assert_allclose(a.predict_proba(X), b.predict_proba(X), rtol=rtol, atol=1e-12)


# -- each feature: how a model is made with it, and its reference ----------------------
#
# ``make(name, fit)`` returns (model, X_eval): the model made with the feature
# through ``fit(estimator, X, y, sample_weight=None)`` (the path's fit), and rows
# to compare predictions on. ``reference(name)`` returns the model the local fit
# must equal.


def _local_fit(estimator, X, y, sample_weight=None):
    return estimator.fit(X, y, sample_weight=sample_weight)


def make_plain(name, fit):
    X, y = _data(name)
    return fit(ESTIMATORS[name].make(**_params(name)), X, y), X


def reference_plain(name):
    """Two partial_fit batches (a fit is a stream of one batch)."""
    X, y = _data(name)
    model = ESTIMATORS[name].make(**_params(name))
    model.partial_fit(X[:100], y[:100], classes=np.unique(y))
    return model.partial_fit(X[100:], y[100:])


def _weights(n):
    return np.tile([0.0, 1.0, 2.0, 3.0], n // 4 + 1)[:n]


def make_sample_weight(name, fit):
    X, y = _data(name)
    return fit(ESTIMATORS[name].make(**_params(name)), X, y,
               sample_weight=_weights(len(y))), X


def reference_sample_weight(name):
    """A weight of w is the row w times (0: left out)."""
    X, y = _data(name)
    repeats = _weights(len(y)).astype(int)
    return ESTIMATORS[name].make(**_params(name)).fit(
        np.repeat(X, repeats, axis=0), np.repeat(y, repeats))


PRIORS = np.array([0.2, 0.3, 0.5])


def make_priors(name, fit):
    X, y = _data(name)
    spec = ESTIMATORS[name]
    return fit(spec.make(**_params(name, {spec.prior_param: PRIORS})), X, y), X


def check_priors_local(name):
    """Fixed priors change the log prior the model adds, nothing else: a
    generative model's joint log likelihood moves by log(priors) less its
    fitted log prior; a model whose scores hold no prior (ComplementNB) keeps
    them, and its class_log_prior_ is log(priors)."""
    X, y = _data(name)
    spec = ESTIMATORS[name]
    with_priors, _ = make_priors(name, _local_fit)
    without = spec.make(**_params(name)).fit(X, y)
    if spec.capabilities.generative:
        log_prior = np.log(PRIORS)
        shift = log_prior - np.log(np.bincount(y) / len(y))
        assert_allclose(_jll(with_priors, X), _jll(without, X) + shift, rtol=RTOL)
    else:
        assert_allclose(with_priors.class_log_prior_, np.log(PRIORS), rtol=1e-12)
        assert_allclose(_jll(with_priors, X), _jll(without, X), rtol=RTOL)
    return True


def make_missing_values(name, fit):
    X, y = _data(name)
    X = _with_missing(X)
    return fit(ESTIMATORS[name].make(**_params(name)), X, y), X


def check_missing_values_local(name):
    """A NaN adds nothing: the fitted statistics of the other features are
    those of a fit without the column, and a row's joint log likelihood with
    a NaN in column 0 is that model's (a model of terms x_j w_cj, the count
    models: a NaN adds what a zero adds)."""
    X, y = _data(name)
    Xm = _with_missing(X)
    model, _ = make_missing_values(name, _local_fit)
    assert np.all(np.isfinite(model.predict_proba(Xm)))
    rows = np.flatnonzero(np.isnan(Xm[:, 0].astype(float)))
    assert rows.size > 5
    spec = ESTIMATORS[name]
    if spec.capabilities.terms in ("multinomial", "complement"):
        zero = Xm[rows].copy()
        zero[:, 0] = 0.0
        assert_allclose(_jll(model, Xm[rows]), _jll(model, zero), rtol=RTOL)
        return True
    # the same model fitted without column 0 (ColumnwiseNB: its Gaussian
    # column 0 dropped, the remainder as it was)
    without = spec.make(**_params(name)).fit(Xm[:, 1:], y)
    assert_allclose(_jll(model, Xm[rows]), _jll(without, Xm[rows, 1:]), rtol=RTOL,
                    atol=1e-9)
    return True


HALF_LIFE = 60.0


def make_half_life(name, fit):
    X, y = _data(name)
    return fit(ESTIMATORS[name].make(**_params(name, {"half_life": HALF_LIFE})),
               X, y), X


def reference_half_life(name):
    """Forgetting is a fit whose row i weighs 2 ** -((n - 1 - i) / half_life)."""
    X, y = _data(name)
    age = np.arange(len(y))[::-1]
    return ESTIMATORS[name].make(**_params(name)).fit(
        X, y, sample_weight=np.exp2(-age / HALF_LIFE))


def make_grow_classes(name, fit):
    X, y = _data(name)
    return fit(ESTIMATORS[name].make(**_params(name, {"grow_classes": True})), X, y), X


def reference_grow_classes(name):
    """Batches that bring new classes (no ``classes``) give the fit that knew
    every class (with grow_classes=True)."""
    X, y = _data(name)
    model = ESTIMATORS[name].make(**_params(name, {"grow_classes": True}))
    for part in _growing_batches(y):
        model.partial_fit(X[part], y[part])
    return model


def _growing_batches(y):
    """Three batches, each bringing one new class: class c's first half comes
    with batch c, its second half with batch c + 1 (or the last)."""
    halves = []
    for c in np.unique(y):
        rows = np.flatnonzero(y == c)
        halves.append((rows[:len(rows) // 2], rows[len(rows) // 2:]))
    batches = []
    for c, (first, _) in enumerate(halves):
        previous = halves[c - 1][1] if c else np.empty(0, dtype=int)
        batches.append(np.concatenate([first, previous]))
    batches[-1] = np.concatenate([batches[-1], halves[-1][1]])
    return batches


def _check_grow_classes_local(name):
    model = reference_grow_classes(name)
    X, y = _data(name)
    order = np.concatenate(_growing_batches(y))
    one = ESTIMATORS[name].make(**_params(name)).fit(X[order], y[order])
    _assert_same_model(model, one, X)
    return True


def _label_maker(kind):
    def make(name, fit):
        X, y = _data(name)
        labels = {"string": np.array(["ant", "bee", "cat"], dtype=object),
                  "float": np.array([-2.0, 0.0, 7.0])}[kind]
        return fit(ESTIMATORS[name].make(**_params(name)), X, labels[y]), X
    return make


def _check_labels_local(kind):
    def check(name):
        """Labels of any type give the model of their codes, predicting the
        labels themselves."""
        model, X = _label_maker(kind)(name, _local_fit)
        codes = make_plain(name, _local_fit)[0]
        assert_allclose(_jll(model, X), _jll(codes, X), rtol=1e-12)
        assert_array_equal(model.predict(X), model.classes_[codes.predict(X)])
        return True
    return check


def make_save_load(name, fit):
    model, X = make_plain(name, fit)
    path = _tmp_file()
    model.save(path)
    return fastnb.load(path), X


def _tmp_file():
    import tempfile

    folder = tempfile.mkdtemp(prefix="fastnb-common-")
    return f"{folder}/model.npz"


def _check_save_load_local(name):
    """A file written to a path, or to a binary file object, loads back as the
    same model: the same bits out of predict."""
    model, X = make_plain(name, _local_fit)
    loaded, _ = make_save_load(name, _local_fit)
    assert type(loaded) is type(model)
    assert_array_equal(_jll(loaded, X), _jll(model, X))  # bit for bit
    buffer = io.BytesIO()
    model.save(buffer)
    buffer.seek(0)
    assert_array_equal(_jll(fastnb.load(buffer), X), _jll(model, X))
    return True


def make_merge(name, fit):
    X, y = _data(name)
    spec = ESTIMATORS[name]
    parts = [fit(spec.make(**_params(name)), X[rows], y[rows])
             for rows in (slice(0, 90), slice(90, None))]
    return fastnb.merge(*parts), X


MAKERS = {
    "plain": make_plain,
    "sample_weight": make_sample_weight,
    "priors": make_priors,
    "missing_values": make_missing_values,
    "half_life": make_half_life,
    "grow_classes": make_grow_classes,
    "string_labels": _label_maker("string"),
    "float_labels": _label_maker("float"),
    "save_load": make_save_load,
    "merge": make_merge,
}


def _against(reference):
    def check(name, feature):
        model, X = MAKERS[feature](name, _local_fit)
        _assert_same_model(model, reference(name), X)
        return True
    return check


LOCAL_CHECKS = {
    "plain": _against(reference_plain),
    "sample_weight": _against(reference_sample_weight),
    "priors": lambda name, feature: check_priors_local(name),
    "missing_values": lambda name, feature: check_missing_values_local(name),
    "half_life": _against(reference_half_life),
    "grow_classes": lambda name, feature: _check_grow_classes_local(name),
    "string_labels": lambda name, feature: _check_labels_local("string")(name),
    "float_labels": lambda name, feature: _check_labels_local("float")(name),
    "save_load": lambda name, feature: _check_save_load_local(name),
    "merge": _against(lambda name: make_plain(name, _local_fit)[0]),
}


# -- the paths ------------------------------------------------------------------------


def _dask_fit(estimator, X, y, sample_weight=None):
    da = pytest.importorskip("dask.array")
    import fastnb.dask

    chunks = (max(1, X.shape[0] // 3), X.shape[1])
    Xd = da.from_array(X, chunks=chunks)
    yd = da.from_array(np.asarray(y), chunks=chunks[0])
    wd = None if sample_weight is None else da.from_array(sample_weight, chunks=chunks[0])
    return fastnb.dask.fit(estimator, Xd, yd, sample_weight=wd)


def check_dask(name, feature):
    pytest.importorskip("dask.array")
    model, X = MAKERS[feature](name, _dask_fit)
    local, _ = MAKERS[feature](name, _local_fit)
    _assert_same_model(model, local, X)
    a, b = model._sufficient_state(), local._sufficient_state()
    assert a.keys() == b.keys()
    return True


def _onnx_feeds(model, X):
    from fastnb.onnx._models import model_inputs

    inputs = model_inputs(model, np.float64)
    if len(inputs) == 1 and inputs[0][0] == "X":
        _, element, _ = inputs[0]
        return {"X": np.asarray(X, dtype=np.float64)}
    feeds = {}
    for (input_name, element, _), j in zip(inputs, _input_positions(model)):
        column = X[:, j:j + 1]
        if element == 8:  # TensorProto.STRING
            # a missing string ("" in ONNX) is None or NaN here
            feeds[input_name] = np.array(
                [["" if v is None or (isinstance(v, float) and np.isnan(v)) else str(v)]
                 for v in column[:, 0]], dtype=str)
        else:
            feeds[input_name] = np.array(
                [[np.nan if v is None else float(v)] for v in column[:, 0]])
    return feeds


def _input_positions(model):
    return [j for positions in model._positions for j in positions]


def check_onnx(name, feature):
    pytest.importorskip("onnxruntime")
    import onnxruntime as ort

    import fastnb.onnx

    model, X = MAKERS[feature](name, _local_fit)
    graph = fastnb.onnx.to_onnx(model, dtype=np.float64, zipmap=False)
    session = ort.InferenceSession(graph.SerializeToString(),
                                   providers=["CPUExecutionProvider"])
    _, probabilities = session.run(None, _onnx_feeds(model, X))
    assert_allclose(probabilities, model.predict_proba(X), rtol=0, atol=1e-12)
    return True


def check_inspection(name, feature):
    import fastnb.inspection

    model, X = MAKERS[feature](name, _local_fit)
    base, terms = fastnb.inspection.contributions(model, X)
    assert_allclose(base + terms.sum(axis=2), _jll(model, X), rtol=1e-10,
                    atol=1e-9)
    return True


PATH_CHECKS = {
    "local": lambda name, feature: LOCAL_CHECKS[feature](name, feature),
    "dask": check_dask,
    "onnx": check_onnx,
    "inspection": check_inspection,
}


def _refused(name, feature, path):
    """What running a refused cell does: the path's own entry point."""
    fits = {"local": _local_fit, "dask": _dask_fit}
    if path in fits:
        return MAKERS[feature](name, fits[path])
    return PATH_CHECKS[path](name, feature)


CELLS = [(name, feature, path) for name in sorted(ESTIMATORS) for feature in FEATURES
         for path in LOCAL_PATHS]


def test_every_feature_and_path_has_a_check():
    assert set(MAKERS) == set(FEATURES), "a feature without a maker"
    assert set(LOCAL_CHECKS) == set(FEATURES), "a feature without a local check"
    assert set(LOCAL_PATHS) | {"spark"} == set(PATHS), "a path without checks"
    for name in ESTIMATORS:
        for feature in FEATURES:
            for path in PATHS:
                decision(ESTIMATORS[name].cls, feature, path)  # decided, or KeyError


@pytest.mark.parametrize("name, feature, path", CELLS)
def test_cell(name, feature, path, record_property):
    cell = decision(ESTIMATORS[name].cls, feature, path)
    # tests/conftest.py counts the cells checked as supported and as refused
    record_property("common_check", "supported" if cell.supported else "refused")
    if cell.supported:
        assert PATH_CHECKS[path](name, feature) is True
    else:
        with pytest.raises((ValueError, TypeError), match=cell.match):
            _refused(name, feature, path)



def test_a_model_class_must_declare_its_capabilities_and_hooks():
    from fastnb._base import _BaseNB
    from fastnb._capabilities import Capabilities, registered_models

    before = registered_models()
    with pytest.raises(TypeError, match="must declare its capabilities"):
        class UndeclaredNB(_BaseNB):
            def __init__(self, priors=None):
                self.priors = priors
    with pytest.raises(TypeError, match="must define fit, partial_fit"):
        class HooklessNB(_BaseNB):
            _capabilities = Capabilities(reads="continuous", terms="gaussian",
                                         prior_param="priors")

            def __init__(self, priors=None):
                self.priors = priors
    with pytest.raises(ValueError, match="terms='quantum' is not one of"):
        Capabilities(reads="continuous", terms="quantum", prior_param="priors")
    assert registered_models() == before
