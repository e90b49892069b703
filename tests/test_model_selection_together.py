"""A search's GaussianNB candidates that differ in var_smoothing and priors only
are scored from one pass over a split's test rows (``_predict_candidates``):
each candidate's scores are those of its own predict, and ``cv_results_`` are
scikit-learn's."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_array_equal

import fastnb
import fastnb._gaussian
from conftest import force_parallel_kernels
from fastnb.model_selection import GridSearchCV
from test_model_selection import both


def data(rng, n, d, dtype=np.float64, nan=False, k=3):
    y = rng.integers(0, k, n)
    X = (rng.normal(size=(n, d)) * 2 + 50 + 0.3 * y[:, None]).astype(dtype)
    if nan:
        X[rng.random(X.shape) < 0.05] = np.nan
    return X, y


def candidates(model, k):
    priors = np.arange(1, k + 1) / (k * (k + 1) / 2)
    return [model.with_params(var_smoothing=v, priors=p)
            for v in (0.0, 1e-9, 1e-4, 1e-2, 0.5) for p in (None, priors)]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("nan", [False, True])
@pytest.mark.parametrize("n_threads", [1, 2])
@pytest.mark.parametrize("d", [1, 8, 12, 13, 35])
def test_predict_candidates_equals_each_predict(dtype, nan, n_threads, d, rng):
    X, y = data(rng, 3_000, d, dtype, nan)
    model = fastnb.GaussianNB(n_threads=n_threads).fit(X, y)
    models = candidates(model, 3)
    # 701 rows: blocks of four rows and a shorter last one
    for X_test in (X[:701], np.asfortranarray(X[:701])):
        jll, suspect = model._predict_candidates(models, X_test, False)
        labels, suspect_of_labels = model._predict_candidates(models, X_test, True)
        assert jll.shape == (len(models), 701, 3) and labels.shape == (len(models), 701)
        assert_array_equal(suspect, 0)
        assert_array_equal(suspect_of_labels, 0)
        for v, candidate in enumerate(models):
            # the same terms summed in the same order (and no FMA contraction:
            # src_cython/meson.build): the same bits
            assert_array_equal(jll[v], candidate.predict_joint_log_proba(X_test))
            assert_array_equal(labels[v], np.searchsorted(candidate.classes_,
                                                           candidate.predict(X_test)))
    other_threads = fastnb.GaussianNB(n_threads=3 - n_threads).fit(X, y)
    assert_array_equal(other_threads._predict_candidates(candidates(other_threads, 3),
                                                         X[:701], False)[0],
                       model._predict_candidates(models, X[:701], False)[0])


def test_predict_candidates_counts_rows_without_a_finite_score(rng):
    X, y = data(rng, 500, 4)
    model = fastnb.GaussianNB().fit(X, y)
    X_test = X[:50].copy()
    X_test[[3, 7], 1] = np.inf
    for labels_only in (False, True):
        _, suspect = model._predict_candidates(candidates(model, 3), X_test, labels_only)
        assert_array_equal(suspect, 2)
    other = fastnb.GaussianNB().fit(X + 1, y)
    with pytest.raises(ValueError, match="means"):
        model._predict_candidates([other], X, True)


@pytest.mark.parametrize("scoring", [None, "balanced_accuracy", "neg_log_loss",
                                     ["accuracy", "neg_log_loss"]])
@pytest.mark.parametrize("nan", [False, True])
def test_search_scores_a_group_in_one_pass(scoring, nan, rng, monkeypatch):
    X, y = data(rng, 2_000, 6, nan=nan, k=4)
    passes, predicts = [], []
    together = fastnb.GaussianNB._predict_candidates
    one = fastnb.GaussianNB.predict_joint_log_proba

    def counted_together(self, models, X, labels_only):
        passes.append((len(models), labels_only))
        return together(self, models, X, labels_only)

    def counted_one(self, X):
        predicts.append(len(X))
        return one(self, X)

    monkeypatch.setattr(fastnb.GaussianNB, "_predict_candidates", counted_together)
    monkeypatch.setattr(fastnb.GaussianNB, "predict_joint_log_proba", counted_one)
    grid = {"var_smoothing": list(np.logspace(-9, 0, 7)),
            "priors": [None, [0.1, 0.2, 0.3, 0.4]]}
    ours = GridSearchCV(fastnb.GaussianNB(), grid, cv=3, scoring=scoring,
                        refit=False).fit(X, y)
    labels_only = scoring in (None, "balanced_accuracy")
    assert passes == [(14, labels_only)] * 3 and predicts == []
    monkeypatch.undo()
    # labels derived from anchors however small the folds (the logspace grid's
    # low end is close)
    monkeypatch.setattr(fastnb._gaussian, "_DERIVE_MIN_WORK", 0)
    refit = "accuracy" if isinstance(scoring, list) else True
    both(GridSearchCV, fastnb.GaussianNB(), grid, X, y, cv=3, scoring=scoring,
         refit=refit)
    assert ours.cv_results_["mean_test_" + ("accuracy" if isinstance(scoring, list)
                                            else "score")].shape == (14,)


def test_candidates_the_pass_cannot_score_take_the_ordinary_path(rng):
    X, y = data(rng, 600, 4)
    X[5, 2] = np.inf            # a test row of the first split only
    grid = {"var_smoothing": [1e-9, 1e-3, -1.0, 0.1]}
    with pytest.warns(Warning):
        both(GridSearchCV, fastnb.GaussianNB(), grid, X, y, cv=3, error_score=-1.0,
             refit=False)
    grid = {"var_smoothing": [1e-9, 1e-3], "priors": [None, [0.5, 0.6, -0.1]]}
    with pytest.warns(Warning):
        both(GridSearchCV, fastnb.GaussianNB(), grid, X[10:], y[10:], cv=3,
             error_score=-1.0, scoring="neg_log_loss", refit=False)


def test_the_portable_and_avx2_builds_give_the_same_bits(rng):
    import importlib

    from fastnb import _runtime
    from fastnb._base import MODE_ARGMAX, MODE_JLL
    from fastnb._gaussian import _label_anchors

    if not _runtime.cpu_has_avx2_fma():
        pytest.skip("no AVX2+FMA on this CPU")
    try:
        avx2 = importlib.import_module("fastnb._gaussian_candidates_avx2")
    except ImportError:
        pytest.skip("a build without the AVX2 variant")
    portable = importlib.import_module("fastnb._gaussian_candidates")
    for d in (3, 12, 21):
        X, y = data(rng, 400, d)
        model = fastnb.GaussianNB().fit(X, y)
        models = candidates(model, 3)

        def stacked(name):
            return np.ascontiguousarray(np.stack([getattr(m, name) for m in models]))

        terms = (stacked("_half_inv_var"), stacked("_half_log_2pi_var"),
                 stacked("_log_norm"), stacked("_log_prior"))
        outputs = []
        for module in (portable, avx2):
            out = np.empty((len(models), len(X), 3))
            module.gaussian_predict_candidates(X, model.theta_, *terms, MODE_JLL, None,
                                               out, 1)
            outputs.append(out)
        assert_array_equal(outputs[0], outputs[1])
        # and labels derived from anchors, on close calls
        X, y = close_calls(rng, 2_000, d)
        model = fastnb.GaussianNB().fit(X, y)
        terms = kernel_terms(derived_grid(model))
        derivation = _label_anchors(terms[0])
        labels = []
        for module in (portable, avx2):
            out = np.empty((len(terms[0]), len(X)), dtype=np.intp)
            module.gaussian_predict_candidates(X, model.theta_, *terms, MODE_ARGMAX,
                                               out, None, 1, *derivation)
            labels.append(out)
        assert_array_equal(labels[0], labels[1])


@pytest.mark.parametrize("n_threads", [1, 2])
def test_ties_and_impossible_classes_as_predict_takes_them(n_threads, rng):
    # classes 0 and 1 have the same rows: every score ties, and the first
    # class wins, as in predict; a zero prior makes a class's scores -inf
    X = np.round(rng.normal(size=(60, 5)), 1)
    X = np.vstack([X, X, X + 3.0])
    y = np.repeat([0, 1, 2], 60)
    model = fastnb.GaussianNB(n_threads=n_threads).fit(X, y)
    models = [model.with_params(var_smoothing=v, priors=p)
              for v in (1e-9, 0.1) for p in (None, [0.5, 0.5, 0.0], [0.0, 0.5, 0.5])]
    labels, suspect = model._predict_candidates(models, X, True)
    jll, _ = model._predict_candidates(models, X, False)
    assert_array_equal(suspect, 0)
    for v, candidate in enumerate(models):
        assert_array_equal(labels[v], candidate.predict(X))
        assert_array_equal(jll[v], candidate.predict_joint_log_proba(X))


# -- labels derived from an anchor's scores ----------------------------------------------

def close_calls(rng, n, d, dtype=np.float64, k=4):
    """Classes whose means differ little and features of unequal variances:
    many rows near a tie, so that candidates whose variances differ a little
    disagree on some rows."""
    y = rng.integers(0, k, n)
    X = rng.normal(size=(n, d)) * rng.uniform(0.9, 1.1, d) + 0.03 * y[:, None]
    return X.astype(dtype), y


def kernel_terms(models):
    def stacked(name):
        return np.ascontiguousarray(np.stack([getattr(m, name) for m in models]))

    return (stacked("_half_inv_var"), stacked("_half_log_2pi_var"),
            stacked("_log_norm"), stacked("_log_prior"))


@pytest.fixture
def derive_always(monkeypatch):
    """Labels derived however small the pass (tests' data are small)."""
    monkeypatch.setattr(fastnb._gaussian, "_DERIVE_MIN_WORK", 0)


def derived_grid(model):
    """var_smoothing values whose neighbours' weights are within the spread
    that derives labels (a logspace grid's low end is such a run), and far
    enough apart that their labels differ on a few close calls."""
    return [model.with_params(var_smoothing=v) for v in np.linspace(0.0, 1e-2, 10)]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n_threads", [1, 2])
@pytest.mark.parametrize("nan", [False, True])
@pytest.mark.parametrize("d", [3, 12, 40])
def test_derived_labels_are_each_candidates_own(dtype, n_threads, nan, d, rng,
                                                parallel_kernels, derive_always,
                                                monkeypatch):
    from fastnb._gaussian import _label_anchors

    derivations = []

    def recorded(weights):
        derivation = _label_anchors(weights)
        derivations.append(derivation[0])
        return derivation

    monkeypatch.setattr(fastnb._gaussian, "_label_anchors", recorded)
    X, y = close_calls(rng, 4_000, d, dtype)
    if nan:
        X[rng.random(X.shape) < 0.02] = np.nan
    model = fastnb.GaussianNB(n_threads=n_threads).fit(X, y)
    models = derived_grid(model)
    anchor_of, _, _ = _label_anchors(kernel_terms(models)[0])
    derived = np.flatnonzero(anchor_of >= 0)
    assert derived.size >= 3
    for X_test in (X[:1_501], np.asfortranarray(X[:1_501])):
        with parallel_kernels():
            labels, suspect = model._predict_candidates(models, X_test, True)
        assert_array_equal(suspect, 0)
        for v, candidate in enumerate(models):
            assert_array_equal(labels[v], np.searchsorted(candidate.classes_,
                                                           candidate.predict(X_test)))
    # the pass derived labels, and the proofs had work to do: some derived
    # candidates' labels differ from their anchors' on some rows (those rows
    # were summed for them)
    assert len(derivations) == 2
    assert all(np.array_equal(of, anchor_of) for of in derivations)
    differ = [np.sum(labels[v] != labels[anchor_of[v]]) for v in derived]
    assert max(differ) > 0


def test_a_wrong_ratio_bound_gives_wrong_labels(rng):
    # the equality above is sensitive to the bounds: bounds that claim the
    # derived candidates' weights equal their anchor's (ratio 1) give labels
    # that are not their own predict's
    from fastnb._base import MODE_ARGMAX
    from fastnb._gaussian import _candidate_kernels as _kernels, _label_anchors

    X, y = close_calls(rng, 4_000, 12)
    model = fastnb.GaussianNB().fit(X, y)
    models = derived_grid(model)
    terms = kernel_terms(models)
    anchor_of, lo, hi = _label_anchors(terms[0])
    right = np.empty((len(models), len(X)), dtype=np.intp)
    _kernels.gaussian_predict_candidates(X, model.theta_, *terms, MODE_ARGMAX, right,
                                         None, 1, anchor_of, lo, hi)
    ones = np.ones_like(lo)
    wrong = np.empty_like(right)
    _kernels.gaussian_predict_candidates(X, model.theta_, *terms, MODE_ARGMAX, wrong,
                                         None, 1, anchor_of, ones, ones)
    own = np.array([np.searchsorted(m.classes_, m.predict(X)) for m in models])
    assert_array_equal(right, own)
    assert np.any(wrong != own)


def test_derivation_refuses_bad_anchors_and_bounds(rng):
    from fastnb._base import MODE_ARGMAX, MODE_JLL
    from fastnb._gaussian import _candidate_kernels as _kernels

    X, y = close_calls(rng, 300, 5)
    model = fastnb.GaussianNB().fit(X, y)
    models = derived_grid(model)[:4]
    terms = kernel_terms(models)
    g, k = 4, 4
    labels = np.empty((g, len(X)), dtype=np.intp)
    ones = np.ones((g, k))

    def call(anchor_of, lo=ones, hi=ones, mode=MODE_ARGMAX):
        out = np.empty((g, len(X), k)) if mode == MODE_JLL else None
        _kernels.gaussian_predict_candidates(
            X, model.theta_, *terms, mode, labels if mode == MODE_ARGMAX else None,
            out, 1, np.asarray(anchor_of, dtype=np.intp), lo, hi)

    call([-1, 0, 0, -1])
    for anchor_of in ([-1, 0, 1, -1], [-1, 4, 0, -1], [-1, 0, 0], [-2, -1, -1, -1]):
        with pytest.raises(ValueError, match="anchor"):
            call(anchor_of)
    for lo, hi in ((ones * 2, ones), (-ones, ones), (ones, ones * np.inf),
                   (ones, ones * np.nan)):
        with pytest.raises(ValueError, match="ratio"):
            call([-1, 0, 0, -1], lo, hi)
    with pytest.raises(ValueError, match="labels"):
        call([-1, 0, 0, -1], mode=MODE_JLL)
    with pytest.raises(ValueError, match="ratio_lo"):
        call([-1, 0, 0, -1], None, None)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), d=st.integers(1, 20), k=st.integers(2, 5),
       steps=st.lists(st.floats(0.0, 0.02), min_size=2, max_size=9),
       n_threads=st.sampled_from([1, 2]))
def test_derived_labels_property(seed, d, k, steps, n_threads):
    # any run of close var_smoothing values: every candidate's labels are its
    # own predict's, whether derived, proved or summed
    rng = np.random.default_rng(seed)
    X, y = close_calls(rng, 600, d, k=k)
    if len(np.unique(y)) < 2:
        return
    model = fastnb.GaussianNB(n_threads=n_threads).fit(X, y)
    models = [model.with_params(var_smoothing=v) for v in np.cumsum(steps)]
    saved = fastnb._gaussian._DERIVE_MIN_WORK
    fastnb._gaussian._DERIVE_MIN_WORK = 0   # (a fixture would span every example)
    try:
        with force_parallel_kernels():
            labels, suspect = model._predict_candidates(models, X, True)
    finally:
        fastnb._gaussian._DERIVE_MIN_WORK = saved
    assert_array_equal(suspect, 0)
    for v, candidate in enumerate(models):
        assert_array_equal(labels[v], np.searchsorted(candidate.classes_,
                                                       candidate.predict(X)))
