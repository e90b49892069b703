"""KernelDensityNB against scikit-learn's KernelDensity: the log density of each
class and feature within the documented bound of the unbinned estimate; the
bandwidth rules; batch splits, merge and forgetting against one fit; weights,
NaN, float32, threads, out-of-grid values, bad input and saved state."""

import io
import itertools
import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal

import fastnb
from conftest import force_parallel_kernels

neighbors = pytest.importorskip("sklearn.neighbors")


def sample(rng, n=400, d=3, k=2):
    y = rng.integers(0, k, n)
    y[:k] = np.arange(k)
    X = rng.normal(size=(n, d)) * (1.0 + 0.5 * y[:, None]) + 2.0 * y[:, None]
    X[:, -1] = rng.exponential(size=n) * 3.0 + 1e3 * (1 + y)   # skewed, far from 0
    return X, y


def bound(model, c, j, x, values, weights):
    """The docstring's bound of |log f_model - log f_unbinned| at the points x
    (all within the grid) of class c and feature j: the linear binning term,
    a relative error of the density, plus the interpolation term, (w**2 / 8)
    times |(log f)''| = |V - h**2| / h**4 at most, V the posterior variance of
    the nodes, taken at its largest over 17 points of each node interval."""
    h = model.bandwidth_[c, j]
    w = model.bin_width_[c, j]
    dist = np.abs(x[:, None] - values[None, :])
    log_post = np.log(weights)[None, :] - dist ** 2 / (2 * h * h)
    post = np.exp(log_post - log_post.max(axis=1, keepdims=True))
    post /= post.sum(axis=1, keepdims=True)
    ratio = (1 + (dist + w) ** 2 / h ** 2) * np.exp(w * (dist + w) / h ** 2)
    eps = w * w / (8 * h * h) * (post * ratio).sum(axis=1)
    assert np.all(eps < 0.5)
    binning = -np.log1p(-eps)
    nodes = model.grid_start_[c, j] + w * np.arange(model.n_bins)
    mass = model._stat_histogram[c, j]
    keep = mass > 0
    start = np.floor((x - model.grid_start_[c, j]) / w)
    ys = model.grid_start_[c, j] + w * (start[:, None] + np.linspace(0, 1, 17)[None, :])
    d2 = (ys[..., None] - nodes[keep]) ** 2
    lp = np.log(mass[keep]) - d2 / (2 * h * h)
    p = np.exp(lp - lp.max(axis=-1, keepdims=True))
    p /= p.sum(axis=-1, keepdims=True)
    mean = (p * nodes[keep]).sum(axis=-1)
    var = (p * (nodes[keep] - mean[..., None]) ** 2).sum(axis=-1)
    curvature = np.maximum(1 / h ** 2, var / h ** 4).max(axis=1)
    return binning + w * w / 8 * curvature


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("bandwidth", ["scott", "silverman", 0.7])
@pytest.mark.parametrize("weighted", [False, True])
def test_log_density_within_the_bound_of_sklearn(rng, dtype, bandwidth, weighted):
    X, y = sample(rng)
    X = X.astype(dtype)
    w = rng.random(X.shape[0]) + 0.5 if weighted else None
    model = fastnb.KernelDensityNB(bandwidth=bandwidth).fit(X, y, sample_weight=w)
    jll = model.predict_joint_log_proba(X)
    typical = []
    for c in range(2):
        rows = y == c
        for j in range(X.shape[1]):
            values = X[rows, j].astype(np.float64)
            weights = np.ones(values.shape[0]) if w is None else w[rows]
            lo, hi = values.min(), values.max()
            points = np.linspace(lo - 0.1 * (hi - lo), hi + 0.1 * (hi - lo), 97)
            first = model.grid_start_[c, j]
            last = first + (model.n_bins - 1) * model.bin_width_[c, j]
            points = points[(points >= first) & (points <= last)]
            probe = np.tile(np.median(X, axis=0), (points.shape[0], 1)).astype(dtype)
            probe[:, j] = points
            points = probe[:, j].astype(np.float64)
            others = np.delete(np.arange(X.shape[1]), j)
            probe[:, others] = np.nan                    # only feature j counts
            ours = model.predict_joint_log_proba(probe)[:, c] - np.log(
                model.class_prior_[c])
            kde = neighbors.KernelDensity(bandwidth=float(model.bandwidth_[c, j]))
            kde.fit(values[:, None], sample_weight=weights)
            exact = kde.score_samples(points[:, None])
            limit = bound(model, c, j, points, values, weights)
            assert np.all(np.abs(ours - exact) <= limit + 1e-9)
            typical.append(np.median(limit))
    # the bound is not vacuous: a few thousandths of a nat where the data are
    assert np.median(typical) < 0.02
    assert np.all(np.isfinite(jll))


def test_bandwidth_rules(rng):
    X, y = sample(rng)
    w = rng.random(X.shape[0]) + 0.5
    for rule, factor in (("scott", 1.0), ("silverman", 0.75)):
        model = fastnb.KernelDensityNB(bandwidth=rule).fit(X, y, sample_weight=w)
        for c in range(2):
            rows = y == c
            n = w[rows].sum()
            mean = np.average(X[rows], axis=0, weights=w[rows])
            sigma = np.sqrt(np.average((X[rows] - mean) ** 2, axis=0, weights=w[rows]))
            assert_allclose(model.bandwidth_[c], sigma * (factor * n) ** -0.2, rtol=1e-10)
    fixed = fastnb.KernelDensityNB(bandwidth=0.25).fit(X, y)
    assert_allclose(fixed.bandwidth_, np.maximum(0.25, fixed.bin_width_))
    # a feature constant within a class: at least the node spacing, finite scores
    X[y == 0, 0] = 3.0
    model = fastnb.KernelDensityNB().fit(X, y)
    assert model.bandwidth_[0, 0] == model.bin_width_[0, 0]
    assert np.all(np.isfinite(model.predict_joint_log_proba(X)))


def test_with_params_equals_refit(rng):
    X, y = sample(rng)
    model = fastnb.KernelDensityNB().fit(X, y)
    for params in ({"bandwidth": "silverman"}, {"bandwidth": 0.3},
                   {"priors": [0.2, 0.8]}):
        refit = fastnb.KernelDensityNB(**params).fit(X, y)
        assert_array_equal(model.with_params(**params).predict_joint_log_proba(X),
                           refit.predict_joint_log_proba(X))
    with pytest.raises(ValueError, match="n_bins"):
        model.with_params(n_bins=64)


@given(seed=st.integers(0, 2**32 - 1), n_batches=st.integers(2, 4),
       with_nan=st.booleans(), grow=st.floats(1.0, 1e4))
@settings(max_examples=30, deadline=None)
def test_batches_and_merge_equal_one_fit(seed, n_batches, with_nan, grow):
    rng = np.random.default_rng(seed)
    X, y = sample(rng, n=int(rng.integers(20, 200)))
    # later rows spread wider: the batches widen the grid
    X = X * np.linspace(1.0, grow, X.shape[0])[:, None]
    if with_nan:
        X[rng.random(X.shape) < 0.1] = np.nan
    w = rng.random(X.shape[0]) + 0.1
    whole = fastnb.KernelDensityNB(n_bins=64).fit(X, y, sample_weight=w)
    cuts = np.sort(rng.choice(np.arange(1, X.shape[0]), n_batches - 1, replace=False))
    stream = fastnb.KernelDensityNB(n_bins=64)
    parts = []
    for rows in np.split(np.arange(X.shape[0]), cuts):
        stream.partial_fit(X[rows], y[rows], classes=[0, 1], sample_weight=w[rows])
        parts.append(fastnb.KernelDensityNB(n_bins=64).fit(
            X[rows], y[rows], sample_weight=w[rows]))
    merged = fastnb.merge(*parts[::-1])
    expected = whole.predict_joint_log_proba(X)
    for model in (stream, merged):
        assert_array_equal(model.bin_width_, whole.bin_width_)
        assert_array_equal(model.grid_start_, whole.grid_start_)
        for name, value in whole._stats.items():
            assert_allclose(model._stats[name], value, rtol=1e-9, atol=1e-9)
        assert_allclose(model.predict_joint_log_proba(X), expected, rtol=1e-9,
                        atol=1e-9)


def test_half_life_stream_equals_weighted_fit(rng):
    X, y = sample(rng, n=300)
    whole = fastnb.KernelDensityNB(half_life=50.0).fit(X, y)
    stream = fastnb.KernelDensityNB(half_life=50.0)
    for rows in np.array_split(np.arange(300), 5):
        stream.partial_fit(X[rows], y[rows], classes=[0, 1])
    assert_allclose(stream.predict_joint_log_proba(X), whole.predict_joint_log_proba(X),
                    rtol=1e-9)
    weighted = fastnb.KernelDensityNB().fit(X, y, sample_weight=2.0 ** (-np.arange(
        299, -1, -1) / 50.0))
    assert_allclose(whole.predict_joint_log_proba(X), weighted.predict_joint_log_proba(X),
                    rtol=1e-9)


def test_weight_two_is_the_row_twice(rng):
    X, y = sample(rng, n=100)
    w = rng.integers(0, 3, 100).astype(float)
    w[:2] = 1.0
    weighted = fastnb.KernelDensityNB().fit(X, y, sample_weight=w)
    repeated = fastnb.KernelDensityNB().fit(np.repeat(X, w.astype(int), axis=0),
                                            np.repeat(y, w.astype(int)))
    # (a row of weight 0 is left out: it does not widen the grid either)
    assert_array_equal(weighted.grid_start_, repeated.grid_start_)
    assert_allclose(weighted.predict_joint_log_proba(X),
                    repeated.predict_joint_log_proba(X), rtol=1e-9)


def test_missing_values_are_marginalised(rng):
    X, y = sample(rng, n=300)
    holes = rng.random(300) < 0.2
    X[holes, 0] = np.nan
    model = fastnb.KernelDensityNB().fit(X, y)
    rest = fastnb.KernelDensityNB().fit(X[:, 1:], y)
    first = fastnb.KernelDensityNB().fit(X[~holes, :1], y[~holes])
    assert_allclose(model._stat_histogram[:, 0], first._stat_histogram[:, 0], rtol=1e-12)
    probe = X.copy()
    probe[:, 0] = np.nan
    assert_allclose(model.predict_joint_log_proba(probe),
                    rest.predict_joint_log_proba(X[:, 1:]), rtol=1e-12)
    # a class that never saw feature 0 takes the density of all classes
    X[y == 1, 0] = np.nan
    model = fastnb.KernelDensityNB().fit(X, y)
    assert np.all(np.isfinite(model.predict_joint_log_proba(np.nan_to_num(X))))
    assert model.bandwidth_[1, 0] > 0


def test_threads_give_the_same_bits(rng):
    X, y = sample(rng, n=20000, d=5)
    with force_parallel_kernels():
        one = fastnb.KernelDensityNB(n_threads=1).fit(X, y)
        two = fastnb.KernelDensityNB(n_threads=2).fit(X, y)
        for name, value in one._stats.items():
            assert_array_equal(value, two._stats[name])
        assert_array_equal(one.predict_joint_log_proba(X), two.predict_joint_log_proba(X))
        assert_array_equal(one.predict(X), two.predict(X))


def test_float32_and_float64_agree(rng):
    X, y = sample(rng)
    X32 = X.astype(np.float32)
    a = fastnb.KernelDensityNB().fit(X32, y)
    b = fastnb.KernelDensityNB().fit(X32.astype(np.float64), y)
    for name, value in a._stats.items():
        assert_allclose(value, b._stats[name], rtol=1e-12)
    assert_allclose(a.predict_joint_log_proba(X32), b.predict_joint_log_proba(X32),
                    rtol=1e-12)


def test_out_of_grid_values_are_finite(rng):
    X, y = sample(rng)
    model = fastnb.KernelDensityNB().fit(X, y)
    probe = np.array([[1e300, -1e300, 1e10], [-50.0, 50.0, -1e5],
                      [np.finfo(np.float64).max, np.finfo(np.float64).min, 0.0]])
    jll = model.predict_joint_log_proba(probe)
    assert np.all(np.isfinite(jll))
    assert np.all(np.isfinite(model.predict_proba(probe)))
    # just past the grid the tail joins the grid: continuous at the end node
    last = model.grid_start_[0] + (model.n_bins - 1) * model.bin_width_[0]
    near = np.tile(last, (2, 1))
    near[1] = np.nextafter(last, np.inf)
    scores = model.predict_joint_log_proba(near)[:, 0]
    assert_allclose(scores[0], scores[1], rtol=1e-9)
    # far past it the density falls: a lower bound of the Gaussian tail
    far = model.predict_joint_log_proba((last + 100.0)[None, :])[:, 0]
    assert far[0] < scores[0]


def test_inspection_terms_sum_to_the_joint_log_likelihood(rng):
    import fastnb.inspection

    X, y = sample(rng, n=200)
    model = fastnb.KernelDensityNB().fit(X, y)
    probe = X[:20].copy()
    probe[0, 1] = np.nan
    probe[1, 0] = 1e6                       # past every grid
    probe[2, 2] = -1e6
    for dtype in (np.float64, np.float32):
        base, terms = fastnb.inspection.contributions(model, probe.astype(dtype))
        assert terms[0, :, 1].tolist() == [0.0, 0.0]
        assert_allclose(base + terms.sum(axis=2),
                        model.predict_joint_log_proba(probe.astype(dtype)), rtol=1e-12)
    with pytest.raises(ValueError, match="infinity"):
        fastnb.inspection.contributions(model, np.full((1, 3), np.inf))


def test_onnx_graph_computes_predict(rng):
    ort = pytest.importorskip("onnxruntime")
    import fastnb.onnx

    X, y = sample(rng, n=300)
    X[rng.random(X.shape) < 0.05] = np.nan
    model = fastnb.KernelDensityNB().fit(X, y)
    probe = X[:40].copy()
    probe[0, 0], probe[1, 1], probe[2, 2] = 1e6, -1e6, np.nan
    for dtype, tolerance in ((np.float64, 1e-12), (np.float32, 1e-5)):
        graph = fastnb.onnx.to_onnx(model, dtype=dtype, zipmap=False)
        session = ort.InferenceSession(graph.SerializeToString())
        labels, proba = session.run(None, {"X": probe.astype(dtype)})
        assert_allclose(proba, model.predict_proba(probe.astype(dtype)), atol=tolerance)
        assert_array_equal(labels, model.predict(probe.astype(dtype)))


def test_values_of_extreme_size():
    y = np.array([0, 0, 1, 1])
    tiny = fastnb.KernelDensityNB().fit(np.array([[1e-310], [0.0], [5e-324], [2e-310]]), y)
    assert np.all(np.isfinite(tiny.predict_joint_log_proba([[0.0], [1.0], [-1e300]])))
    with pytest.raises(ValueError, match="not finite"):
        fastnb.KernelDensityNB().fit(np.array([[1e308], [-1e308], [0.0], [1.0]]), y)


def test_bad_input(rng):
    X, y = sample(rng, n=50)
    bad = X.copy()
    bad[3, 1] = np.inf
    with pytest.raises(ValueError, match="infinity"):
        fastnb.KernelDensityNB().fit(bad, y)
    model = fastnb.KernelDensityNB().fit(X, y)
    before = {name: value.copy() for name, value in model._stats.items()}
    with pytest.raises(ValueError, match="infinity"):
        model.partial_fit(bad, y)
    for name, value in before.items():
        assert_array_equal(model._stats[name], value)
    with pytest.raises(ValueError, match="infinity"):
        model.predict(bad)
    for n_bins, error in ((1, ValueError), (15, ValueError), (5000, ValueError),
                          (32.0, TypeError), (True, TypeError)):
        with pytest.raises(error, match="n_bins"):
            fastnb.KernelDensityNB(n_bins=n_bins).fit(X, y)
    for bandwidth, error in (("foo", ValueError), (-1.0, ValueError), (0.0, ValueError),
                             (np.nan, ValueError), (np.inf, ValueError),
                             (True, TypeError), (None, TypeError)):
        with pytest.raises(error, match="bandwidth"):
            fastnb.KernelDensityNB(bandwidth=bandwidth).fit(X, y)


def test_save_load_and_untrusted_state(rng):
    X, y = sample(rng)
    X[rng.random(X.shape) < 0.05] = np.nan
    model = fastnb.KernelDensityNB(n_bins=32).fit(X, y)
    buffer = io.BytesIO()
    model.save(buffer)
    buffer.seek(0)
    loaded = fastnb.load(buffer)
    assert_array_equal(loaded.predict_joint_log_proba(X), model.predict_joint_log_proba(X))
    state = {name: np.array(value) for name, value in model._sufficient_state().items()}
    cls = fastnb.KernelDensityNB
    breaks = {
        "value_low": lambda s: s["value_low"].__setitem__((0, 0), 1e9),
        "value_seen": lambda s: s["value_seen"].__setitem__((0, 0), 0.5),
        "histogram": lambda s: s["histogram"].__setitem__((0, 0, 0), 1e12),
    }
    for member, corrupt in breaks.items():
        arrays = {name: value.copy() for name, value in state.items()}
        corrupt(arrays)
        with pytest.raises(ValueError, match=member):
            cls._check_state_invariants(model.classes_, arrays, X.shape[1])
    arrays = {name: value.copy() for name, value in state.items()}
    arrays["value_seen"][:, 1] = 0.0
    arrays["value_low"][:, 1] = arrays["value_high"][:, 1] = 0.0
    with pytest.raises(ValueError, match="histogram"):
        cls._check_state_invariants(model.classes_, arrays, X.shape[1])
    with pytest.raises(ValueError, match="n_bins"):
        cls(n_bins=64)._restore(model.classes_, state, X.shape[1], None)


def test_the_grid_is_computed_on_first_use_only(rng, monkeypatch):
    # partial_fit's cost follows its batch: it updates the histograms and
    # moments, and the log-density grid (k * d * n_bins**2 exponentials) is
    # derived again on the first prediction after a change, once.
    from fastnb._kde import _estimator

    calls = []
    compute = _estimator._log_density_grid
    monkeypatch.setattr(_estimator, "_log_density_grid",
                        lambda *args: calls.append(1) or compute(*args))
    X, y = sample(rng, n=2000)
    model = fastnb.KernelDensityNB().fit(X[:1000], y[:1000])
    for start in range(1000, 2000, 100):
        model.partial_fit(X[start:start + 100], y[start:start + 100])
    assert calls == []
    first = model.predict_joint_log_proba(X)
    model.predict_proba(X)
    model.predict(X)
    assert len(calls) == 1
    model.partial_fit(X[:100], y[:100])
    assert len(calls) == 1
    assert not np.array_equal(model.predict_joint_log_proba(X), first)
    assert len(calls) == 2
    # computing it is not a change of the model's state
    fresh = fastnb.KernelDensityNB().fit(X, y)
    computed = fastnb.KernelDensityNB().fit(X, y)
    computed.predict(X)
    assert pickle.dumps(vars(fresh)) == pickle.dumps(vars(computed))
    assert_array_equal(pickle.loads(pickle.dumps(computed)).predict_joint_log_proba(X),
                       computed.predict_joint_log_proba(X))


def test_threads_predicting_on_a_new_model_agree(rng):
    from concurrent.futures import ThreadPoolExecutor

    X, y = sample(rng, n=3000, d=8, k=3)
    expected = fastnb.KernelDensityNB(n_bins=1024).fit(X, y).predict_joint_log_proba(X)
    for _ in range(5):
        model = fastnb.KernelDensityNB(n_bins=1024).fit(X, y)
        with ThreadPoolExecutor(4) as pool:
            results = list(pool.map(lambda _: model.predict_joint_log_proba(X), range(4)))
        for result in results:
            assert_array_equal(result, expected)


def _kernel_builds():
    """The compiled builds of _kde_kernels this CPU runs (portable, AVX2)."""
    import importlib

    from fastnb._dispatch import load_kernels

    builds = [importlib.import_module("fastnb._kde_kernels")]
    fastest = load_kernels("_kde_kernels")
    return builds + ([fastest] if fastest is not builds[0] else [])


@pytest.mark.parametrize("k", [3, 5, 11, 14, 19])
def test_predict_sums_the_inspection_terms_bit_for_bit(rng, k):
    # predict scores a row at a time: a feature whose classes share a grid
    # reads every class's (value, step) pair at one index, the classes in
    # vector lanes (4 to 16 in the AVX2 build, a loop past 16); the others, and
    # values past the grid, take each class's term as kde_dense_terms
    # (inspection) computes it; or class by class, a block of rows at a time:
    # the same bits, both paths, in both builds, for 1 and 2 threads, with NaN
    # and values past the grid, float32 and float64.
    from fastnb._base import MODE_JLL

    X, y = sample(rng, n=100 * k, d=4, k=k)
    X[:, :3] = rng.normal(size=(100 * k, 3)) * (1.0 + y[:, None] / k) + y[:, None] / k
    model = fastnb.KernelDensityNB(n_threads=1).fit(X, y)
    grid = model._density.arrays()
    assert grid.fast[:3, 0].any() and not grid.fast[3, 0]   # shared; own grids
    Z = X[:131] * rng.choice([1.0, 1.0, 3.0, -2.0], size=(131, 4))
    Z[rng.random(Z.shape) < 0.1] = np.nan
    for dtype in (np.float64, np.float32):
        Zd = Z.astype(dtype)
        terms = np.zeros((131, k, 4))
        model._dense_terms(Zd, terms, 1)
        total = np.zeros((131, k))
        for j in range(4):
            total = total + terms[:, :, j]
        expected = model._log_prior + total
        assert_array_equal(model.predict_joint_log_proba(Zd), expected)
        for build, n_threads, by_class in itertools.product(
                _kernel_builds(), (1, 2), (False, True)):
            out = np.empty((131, k))
            build.kde_predict(
                Zd, grid.fast, grid.table, grid.class_inv_width, grid.class_origin,
                grid.class_base, grid.inv_width, grid.origin, grid.start, grid.stop,
                grid.grid, grid.slope_low, grid.slope_high, model._curvature,
                grid.pairs, by_class, model._log_prior, MODE_JLL, None, out, n_threads)
            assert_array_equal(out, expected)


def test_predict_grid_is_shared_where_the_classes_allow(rng):
    # one grid per feature for all classes, no coarser than any class's own
    # (the docstring's interpolation bound holds) and covering every class's
    # grid; classes too far apart for their spacings keep their own grids
    X, y = sample(rng, n=600, d=3, k=3)
    model = fastnb.KernelDensityNB(n_bins=64).fit(X, y)
    grid = model._density.arrays()
    n_nodes = grid.grid.shape[2]
    assert 64 <= n_nodes <= 4 * 64
    width = 1 / grid.inv_width
    shared = grid.fast[:, 0] > 0
    assert_array_equal(shared, [True, True, False])
    assert_array_equal(width[:, ~shared], model.bin_width_[:, ~shared])
    for j in np.flatnonzero(shared):
        assert_array_equal(width[:, j], model.bin_width_[:, j].min())
        assert_array_equal(grid.start[:, j], grid.start[0, j])
    assert np.all(width <= model.bin_width_)
    last = model.grid_start_ + (model.n_bins - 1) * model.bin_width_
    assert np.all(grid.start <= model.grid_start_)
    assert np.all(grid.stop >= last)
    # most features on their classes' own grids: predict goes class by class
    assert not grid.by_class
    assert fastnb.KernelDensityNB(n_bins=64).fit(X[:, 2:], y)._density.arrays().by_class


@pytest.mark.parametrize("n_bins", [16, 256, 2048])
def test_truncated_kernel_sum_equals_the_full_sum(rng, n_bins):
    # kde_log_density sums each node's kernel over the nodes within
    # TRUNCATION of its largest term (and searches that term outwards):
    # against the full sum over every node in numpy, the same to rounding,
    # with modes far apart (long empty stretches) and a narrow fixed
    # bandwidth. Predict's grid (shared by the classes) holds at each of its
    # nodes the function the class's own grid gives: its node's sum, the
    # line between two of its nodes, past its ends the Gaussian tail.
    n = 3000
    y = rng.integers(0, 2, n)
    y[:2] = [0, 1]
    X = np.column_stack([rng.normal(size=n) + 40.0 * rng.integers(0, 2, n),
                         rng.exponential(size=n) * (1 + y)])
    for bandwidth in ("scott", 0.05):
        model = fastnb.KernelDensityNB(n_bins=n_bins, bandwidth=bandwidth).fit(X, y)
        rows, level, origin, h, todo, _ = model._density._inputs
        predict = model._density.arrays()
        nodes = np.arange(n_bins)
        r2 = (nodes[None, :] - nodes[:, None]).astype(float) ** 2
        with np.errstate(divide="ignore"):
            log_hist = np.log(rows)
        between = []
        for row, log_row, c, j in zip(rows, log_hist, *np.nonzero(todo)):
            w, bw = np.ldexp(1.0, level[c, j]), h[c, j]
            terms = log_row[None, :] - w * w / (2 * bw * bw) * r2
            top = terms.max(axis=1)
            post = np.exp(terms - top[:, None])
            full = (top + np.log(post.sum(axis=1))
                    - np.log(row.sum() * bw * np.sqrt(2 * np.pi)))
            slope = (post @ nodes / post.sum(axis=1) - nodes) * w / bw ** 2
            # predict's nodes in the class's node units
            points = (predict.start[c, j] + np.arange(predict.grid.shape[2])
                      / predict.inv_width[c, j]) / w - origin[c, j]
            inside = np.interp(points, nodes, full)
            u = w * np.where(points < 0, points, points - (n_bins - 1))
            end = np.where(points < 0, 0, n_bins - 1)
            tail = full[end] + slope[end] * u - u * u / (2 * bw * bw)
            expected = np.where((points >= 0) & (points <= n_bins - 1), inside, tail)
            assert_allclose(predict.grid[c, j], expected, rtol=1e-13, atol=1e-13)
            # past predict's grid, the same tail: its slope at the end points
            assert_allclose([predict.slope_low[c, j], predict.slope_high[c, j]],
                            [slope[0] - w * points[0] / bw ** 2,
                             slope[-1] - w * (points[-1] - (n_bins - 1)) / bw ** 2],
                            rtol=1e-12, atol=1e-12)
            between.append(np.any(points != np.round(points)))
        assert any(between)
