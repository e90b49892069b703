"""PoissonNB, ExponentialNB, GammaNB and LogNormalNB against scipy.stats: the
fitted parameters against its maximum-likelihood fits per class, the joint log
likelihood against ``log prior + sum of logpdf/logpmf``; weights, NaN, float32,
threads, batch splits, merge, forgetting, grown classes, out-of-support values
and saved files."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal

import fastnb
from conftest import force_parallel_kernels

stats = pytest.importorskip("scipy.stats")
special = pytest.importorskip("scipy.special")

MODELS = {
    "poisson": (fastnb.PoissonNB, "alpha"),
    "exponential": (fastnb.ExponentialNB, "var_smoothing"),
    "gamma": (fastnb.GammaNB, "var_smoothing"),
    "lognormal": (fastnb.LogNormalNB, "var_smoothing"),
}
FAMILIES = sorted(MODELS)


def make(family, smoothing=0.0, **params):
    cls, name = MODELS[family]
    return cls(**{name: smoothing, **params})


def sample(family, rng, n=600, d=4, k=3):
    """X in the family's support, y with every class; each class its own law."""
    y = rng.integers(0, k, n)
    y[:k] = np.arange(k)
    scale = 1.0 + y[:, None] + 0.5 * np.arange(d)[None, :]
    if family == "poisson":
        X = rng.poisson(scale, (n, d)).astype(float)
    elif family == "exponential":
        X = rng.exponential(scale, (n, d))
    elif family == "gamma":
        X = rng.gamma(1.0 + 2.0 * (y[:, None] % 2) + 0.3 * np.arange(d), scale, (n, d))
    else:
        X = rng.lognormal(0.3 * y[:, None] - 0.2 * np.arange(d), 0.5 + 0.2 * y[:, None],
                          (n, d))
    return X, y


def scipy_log_densities(family, model, X):
    """(n, k, d) scipy's log density (mass) of each value under each class's
    fitted distribution (NaN where X is)."""
    out = np.empty((X.shape[0], model.classes_.shape[0], X.shape[1]))
    for c in range(model.classes_.shape[0]):
        if family == "poisson":
            out[:, c] = stats.poisson.logpmf(X, model.lambda_[c])
        elif family == "exponential":
            out[:, c] = stats.expon.logpdf(X, scale=model.scale_[c])
        elif family == "gamma":
            out[:, c] = stats.gamma.logpdf(X, model.shape_[c], scale=model.scale_[c])
        else:
            out[:, c] = stats.lognorm.logpdf(X, model.sigma_[c],
                                             scale=np.exp(model.mu_[c]))
    return out


def scipy_logpdf(family, model, X):
    """(n, k) log prior + sum over the features of scipy's log density (the
    NaN features left out)."""
    return (np.log(model.class_prior_)
            + np.nansum(scipy_log_densities(family, model, X), axis=2))


def check_params_against_scipy(family, model, X, y):
    for c, label in enumerate(model.classes_):
        for j in range(X.shape[1]):
            x = X[y == label, j]
            x = x[~np.isnan(x)]
            if family == "poisson":
                assert_allclose(model.lambda_[c, j], x.mean(), rtol=1e-12)
            elif family == "exponential":
                assert_allclose(model.scale_[c, j], stats.expon.fit(x, floc=0)[1],
                                rtol=1e-12)
            elif family == "gamma":
                shape, _, scale = stats.gamma.fit(x, floc=0)
                assert_allclose(model.shape_[c, j], shape, rtol=1e-8)
                assert_allclose(model.scale_[c, j], scale, rtol=1e-8)
            else:
                sigma, _, scale = stats.lognorm.fit(x, floc=0)
                assert_allclose(model.sigma_[c, j], sigma, rtol=1e-8)
                assert_allclose(np.exp(model.mu_[c, j]), scale, rtol=1e-8)


@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_fit_and_jll_match_scipy(family, dtype, rng):
    X, y = sample(family, rng)
    X = X.astype(dtype)
    model = make(family).fit(X, y)
    X64 = X.astype(np.float64)
    check_params_against_scipy(family, model, X64, y)
    assert_allclose(model.predict_joint_log_proba(X), scipy_logpdf(family, model, X64),
                    rtol=1e-10)
    # float32 input is read as float32 and accumulated in float64: the same bits
    # as its float64 copy
    other = make(family).fit(X64, y)
    assert_array_equal(model.predict_joint_log_proba(X),
                       other.predict_joint_log_proba(X64))
    proba = model.predict_proba(X)
    assert_allclose(proba.sum(axis=1), 1.0, rtol=1e-12)
    # (the posterior leaves out the class-independent terms, log(x!) and the
    # log-normal's -log x, which cancel in it)
    jll = model.predict_joint_log_proba(X)
    assert_allclose(proba, special.softmax(jll, axis=1), rtol=1e-9, atol=1e-15)
    assert_allclose(model.predict_log_proba(X), special.log_softmax(jll, axis=1),
                    rtol=1e-9, atol=1e-12)
    assert_allclose(model.predict_log_proba(X), np.log(proba), rtol=1e-9, atol=1e-12)
    assert_array_equal(model.predict(X), model.classes_[np.argmax(proba, axis=1)])


@pytest.mark.parametrize("family", FAMILIES)
def test_sample_weight_is_repetition(family, rng):
    X, y = sample(family, rng, n=200)
    w = rng.integers(0, 4, X.shape[0])
    w[:3] = 1
    weighted = make(family).fit(X, y, sample_weight=w.astype(float))
    repeated = make(family).fit(np.repeat(X, w, axis=0), np.repeat(y, w))
    check_params_against_scipy(family, weighted, np.repeat(X, w, axis=0),
                               np.repeat(y, w))
    assert_allclose(weighted.predict_joint_log_proba(X),
                    repeated.predict_joint_log_proba(X), rtol=1e-11)


@pytest.mark.parametrize("family", FAMILIES)
def test_nan_is_marginalised(family, rng):
    X, y = sample(family, rng)
    X[rng.random(X.shape) < 0.1] = np.nan
    model = make(family).fit(X, y)
    check_params_against_scipy(family, model, X, y)
    observed = ~np.isnan(X)
    for c, label in enumerate(model.classes_):
        assert_allclose(model._stats["feature_count"][c],
                        observed[y == label].sum(axis=0))
    assert_allclose(model.predict_joint_log_proba(X), scipy_logpdf(family, model, X),
                    rtol=1e-10)
    assert np.all(np.isfinite(model.predict_proba(X)))


@pytest.mark.parametrize("family", FAMILIES)
def test_threads_give_the_same_bits(family, rng):
    X, y = sample(family, rng, n=20000, d=6)
    with force_parallel_kernels():
        one = make(family, 1e-9, n_threads=1).fit(X, y)
        two = make(family, 1e-9, n_threads=2).fit(X, y)
        for name, value in one._stats.items():
            assert_array_equal(value, two._stats[name])
        assert_array_equal(one.predict_joint_log_proba(X),
                           two.predict_joint_log_proba(X))
        assert_array_equal(one.predict(X), two.predict(X))


@pytest.mark.parametrize("family", FAMILIES)
@given(seed=st.integers(0, 2**32 - 1), n_batches=st.integers(2, 4),
       with_nan=st.booleans())
def test_batches_and_merge_equal_one_fit(family, seed, n_batches, with_nan):
    rng = np.random.default_rng(seed)
    X, y = sample(family, rng, n=int(rng.integers(20, 200)))
    if with_nan:
        X[rng.random(X.shape) < 0.1] = np.nan
    w = rng.random(X.shape[0]) + 0.1
    whole = make(family, 1e-9).fit(X, y, sample_weight=w)
    cuts = np.sort(rng.choice(np.arange(1, X.shape[0]), n_batches - 1, replace=False))
    stream = make(family, 1e-9)
    parts = []
    for rows in np.split(np.arange(X.shape[0]), cuts):
        stream.partial_fit(X[rows], y[rows], classes=np.unique(y), sample_weight=w[rows])
        parts.append(make(family, 1e-9).fit(X[rows], y[rows], sample_weight=w[rows]))
    merged = fastnb.merge(*parts)
    expected = whole.predict_joint_log_proba(X)
    for model in (stream, merged):
        assert_array_equal(model.classes_, whole.classes_)
        for name, value in whole._stats.items():
            assert_allclose(model._stats[name], value, rtol=1e-9, atol=1e-12)
        assert_allclose(model.predict_joint_log_proba(X), expected, rtol=1e-9)


@pytest.mark.parametrize("family", FAMILIES)
def test_half_life_stream_equals_fit(family, rng):
    X, y = sample(family, rng, n=300)
    whole = make(family, 1e-9, half_life=50.0).fit(X, y)
    stream = make(family, 1e-9, half_life=50.0)
    for rows in np.array_split(np.arange(300), 5):
        stream.partial_fit(X[rows], y[rows], classes=np.unique(y))
    assert_allclose(stream.class_count_, whole.class_count_, rtol=1e-12)
    assert_allclose(stream.predict_joint_log_proba(X), whole.predict_joint_log_proba(X),
                    rtol=1e-9)
    # the decayed model is the weighted one
    ages = np.arange(299, -1, -1)
    weighted = make(family, 1e-9).fit(X, y, sample_weight=2.0 ** (-ages / 50.0))
    assert_allclose(whole.predict_joint_log_proba(X),
                    weighted.predict_joint_log_proba(X), rtol=1e-9)


@pytest.mark.parametrize("family", FAMILIES)
def test_grow_classes(family, rng):
    X, y = sample(family, rng, n=300)
    grown = make(family, 1e-9, grow_classes=True)
    grown.partial_fit(X[y < 2], y[y < 2])
    grown.partial_fit(X[y == 2], y[y == 2])
    whole = make(family, 1e-9).fit(X, y)
    assert_array_equal(grown.classes_, whole.classes_)
    assert_allclose(grown.predict_joint_log_proba(X), whole.predict_joint_log_proba(X),
                    rtol=1e-9)


OUT_OF_SUPPORT = {
    "poisson": [-1.0, 0.5],
    "exponential": [-0.5],
    "gamma": [0.0, -2.0],
    "lognormal": [0.0, -2.0],
}


@pytest.mark.parametrize("family", FAMILIES)
def test_out_of_support_values_are_refused_at_fit(family, rng):
    X, y = sample(family, rng, n=50)
    model = make(family, 1e-9).fit(X, y)
    before = model.predict_joint_log_proba(X)
    for value in OUT_OF_SUPPORT[family] + [np.inf]:
        bad = X.copy()
        bad[7, 1] = value
        with pytest.raises(ValueError, match="support|integers|infinity"):
            make(family).fit(bad, y)
        with pytest.raises(ValueError):
            model.partial_fit(bad, y)
        assert_array_equal(model.predict_joint_log_proba(X), before)


@pytest.mark.parametrize("family", FAMILIES)
def test_out_of_support_values_count_as_missing_at_predict(family, rng):
    X, y = sample(family, rng, n=200)
    model = make(family, 1e-9).fit(X, y)
    for value in OUT_OF_SUPPORT[family]:
        bad = X[:10].copy()
        bad[:, 1] = value
        missing = X[:10].copy()
        missing[:, 1] = np.nan
        for method in ("predict_joint_log_proba", "predict_proba", "predict_log_proba"):
            got = getattr(model, method)(bad)
            assert np.all(np.isfinite(got))
            if family == "poisson" and value == 0.5:
                continue   # scored by lgamma(x + 1), below
            assert_array_equal(got, getattr(model, method)(missing))
    if family == "poisson":
        X_half = X[:10].copy()
        X_half[:, 1] = 0.5
        expected = model.predict_joint_log_proba(X[:10]) + (
            0.5 - X[:10, 1:2]) * np.log(model.lambda_[:, 1]) - (
            special.gammaln(1.5) - special.gammaln(X[:10, 1:2] + 1))
        assert_allclose(model.predict_joint_log_proba(X_half), expected, rtol=1e-10)
    with pytest.raises(ValueError, match="infinity"):
        model.predict(np.full((1, X.shape[1]), np.inf))


def test_poisson_alpha_keeps_unseen_counts_finite():
    X = np.array([[0.0, 1.0], [0.0, 2.0], [3.0, 1.0], [4.0, 2.0]])
    y = np.array([0, 0, 1, 1])
    model = fastnb.PoissonNB(alpha=1e-3).fit(X, y)
    assert_allclose(model.lambda_[0, 0], 1e-3)
    assert np.all(np.isfinite(model.predict_joint_log_proba([[5.0, 1.0]])))
    # no smoothing: a count the class never saw is impossible, its zero is not
    exact = fastnb.PoissonNB(alpha=0.0).fit(X, y)
    jll = exact.predict_joint_log_proba([[5.0, 1.0], [0.0, 1.0]])
    assert jll[0, 0] == -np.inf and np.isfinite(jll[1]).all()


@pytest.mark.parametrize("family", ["gamma", "lognormal", "exponential"])
def test_constant_feature_is_smoothed(family, rng):
    X, y = sample(family, rng, n=100)
    X[y == 0, 1] = 2.0
    model = make(family, 1e-9).fit(X, y)
    assert np.all(np.isfinite(model.predict_proba(X)))
    assert model.epsilon_ > 0


def test_gamma_shape_solver_to_machine_precision():
    kernels = fastnb._parametric._base.kernels
    shape = np.geomspace(1e-3, 1e9, 400)
    ours = kernels.log_minus_digamma_values(shape)
    # scipy's log(a) - digamma(a) is a difference of two values near log(a):
    # it is exact to a few ulps of log(a), ours (a series for g itself) to a few
    # ulps of g
    reference = np.log(shape) - special.digamma(shape)
    bound = 4 * np.finfo(np.float64).eps * np.maximum(1.0, np.abs(np.log(shape)))
    assert np.all(np.abs(ours - reference) <= bound + 1e-14 * np.abs(reference))
    # where g(a) is far from log(a), scipy's is exact to rounding
    small = shape < 2.0
    assert_allclose(ours[small], reference[small], rtol=1e-14)
    # large a: the asymptotic series 1/(2a) + 1/(12 a^2) - 1/(120 a^4)
    large = shape > 1e4
    a = shape[large]
    assert_allclose(ours[large], 0.5 / a + 1 / (12 * a * a) - 1 / (120 * a**4),
                    rtol=1e-15)
    solved = kernels.gamma_shapes(ours)
    assert_allclose(solved, shape, rtol=1e-13)


def test_kernel_log_within_one_ulp():
    """GammaNB and LogNormalNB take log x from the kernels' own branch-free log
    (it vectorises): within one ulp of NumPy's, subnormals included."""
    kernels = fastnb._parametric._base.kernels
    rng = np.random.default_rng(0)
    x = np.concatenate([np.exp(rng.uniform(-745.0, 709.0, 100_000)),
                        rng.uniform(0.5, 2.0, 100_000), 1.0 + rng.uniform(-1e-6, 1e-6, 1000),
                        [5e-324, 1e-310, np.finfo(np.float64).tiny, 0.5, 1.0, 2.0,
                         np.sqrt(2.0), np.finfo(np.float64).max]])
    ours, reference = kernels.log_values(x), np.log(x)
    assert np.all(np.abs(ours - reference) <= np.spacing(np.abs(reference)))
    assert kernels.log_values(np.array([1.0]))[0] == 0.0


@pytest.mark.parametrize("family", FAMILIES)
def test_save_load_round_trip(family, rng, tmp_path):
    X, y = sample(family, rng)
    X[::7, 2] = np.nan
    model = make(family, 1e-9).fit(X, y.astype(str))
    path = tmp_path / "model.npz"
    model.save(path)
    loaded = fastnb.load(path)
    assert type(loaded) is type(model)
    assert_array_equal(loaded.predict_joint_log_proba(X), model.predict_joint_log_proba(X))
    assert_array_equal(loaded.predict(X), model.predict(X))


CORRUPTIONS = {
    "poisson": [("mean_x", -1.0, "negative"), ("feature_count", 1e9, "class_count_"),
                ("mean_x", 1e200, "at most")],
    "exponential": [("mean_x", np.nan, "non-finite"), ("class_count_", -1.0, "negative")],
    "gamma": [("mean_x", 0.0, "positive"), ("mean_log_x", np.inf, "non-finite")],
    "lognormal": [("ssd_log_x", -1.0, "negative"), ("mean_log_x", 1e300, "at most")],
}


@pytest.mark.parametrize("family", FAMILIES)
def test_corrupted_file_is_refused(family, rng, tmp_path):
    X, y = sample(family, rng, n=100)
    model = make(family, 1e-9).fit(X, y)
    path = tmp_path / "model.npz"
    model.save(path)
    with np.load(path) as archive:
        members = {name: archive[name] for name in archive.files}
    for member, value, rule in CORRUPTIONS[family]:
        changed = dict(members)
        array = members[member].copy()
        array.flat[0] = value
        changed[member] = array
        np.savez(path, **changed)
        with pytest.raises(ValueError, match=rule):
            fastnb.load(path)


def test_file_whose_parameters_derive_infinity_is_refused(rng, tmp_path):
    """Each member in range, but var_smoothing=0 and a mean of 0 give a scale of
    0 (an infinite inverse scale): refused at load, never a NaN prediction."""
    import json

    X, y = sample("exponential", rng, n=100)
    model = fastnb.ExponentialNB().fit(X, y)
    path = tmp_path / "model.npz"
    model.save(path)
    with np.load(path) as archive:
        members = {name: archive[name] for name in archive.files}
    header = json.loads(members["header"].tobytes())
    header["params"]["var_smoothing"] = 0.0
    members["header"] = np.frombuffer(json.dumps(header).encode(), dtype=np.uint8)
    members["mean_x"] = members["mean_x"].copy()
    members["mean_x"][0, 0] = 0.0
    np.savez(path, **members)
    with pytest.raises(ValueError, match="not a valid fastnb model"):
        fastnb.load(path)
    # and such a model is not fitted either
    X[y == 0, 0] = 0.0
    with pytest.raises(ValueError, match="not finite.*var_smoothing=0"):
        fastnb.ExponentialNB(var_smoothing=0.0).fit(X, y)


def test_lognormal_chunks_with_and_without_missing_values(rng):
    """LogNormalNB's fit updates a chunk with no missing value a row at a time
    (one count a class) and one with NaN a value at a time: a fit over chunks
    of both kinds (NaN in the first rows only) has the moments of log x of the
    values seen, per class and feature, on 1 and 2 threads."""
    n, d = 40_000, 3
    y = rng.integers(0, 3, n)
    X = rng.lognormal(0.2 * y[:, None], 0.7, (n, d))
    X[:50, 1] = np.nan
    X[60, 2] = np.nan
    fits = [fastnb.LogNormalNB(var_smoothing=0.0, n_threads=t).fit(X, y) for t in (1, 2)]
    assert_array_equal(fits[0].mu_, fits[1].mu_)
    assert_array_equal(fits[0].sigma_, fits[1].sigma_)
    for c in range(3):
        logs = np.log(X[y == c])
        assert_allclose(fits[0].mu_[c], np.nanmean(logs, axis=0), rtol=1e-12)
        assert_allclose(fits[0].sigma_[c], np.nanstd(logs, axis=0), rtol=1e-10)
