"""The public cimport API: signatures pinned, and an outside project built on it."""

import ctypes
import os
import pathlib
import shutil
import subprocess
import sys

import numpy as np
import pytest

import fastnb
import fastnb.cython_kernels as kernels

# Version 1 of the API. Adding functions is allowed; changing these is not.
PINNED_SIGNATURES = {
    "api_version": "int (void)",
    "gaussian_accumulate_f64": "int (double const *, Py_ssize_t, Py_ssize_t, "
    "Py_ssize_t const *, double const *, Py_ssize_t, double *, double *, double *)",
    "gaussian_accumulate_f32": "int (float const *, Py_ssize_t, Py_ssize_t, "
    "Py_ssize_t const *, double const *, Py_ssize_t, double *, double *, double *)",
    "gaussian_jll_f64": "int (double const *, Py_ssize_t, Py_ssize_t, double const *, "
    "double const *, double const *, Py_ssize_t, double *)",
    "gaussian_jll_f32": "int (float const *, Py_ssize_t, Py_ssize_t, double const *, "
    "double const *, double const *, Py_ssize_t, double *)",
    "count_accumulate_f64": "int (double const *, Py_ssize_t, Py_ssize_t, "
    "Py_ssize_t const *, double const *, Py_ssize_t, int, double, double *, double *)",
    "count_accumulate_f32": "int (float const *, Py_ssize_t, Py_ssize_t, "
    "Py_ssize_t const *, double const *, Py_ssize_t, int, double, double *, double *)",
    "linear_jll_f64": "int (double const *, Py_ssize_t, Py_ssize_t, int, double, "
    "double const *, double const *, Py_ssize_t, double *)",
    "linear_jll_f32": "int (float const *, Py_ssize_t, Py_ssize_t, int, double, "
    "double const *, double const *, Py_ssize_t, double *)",
    "linear_jll_csr_f64": "int (double const *, Py_ssize_t const *, Py_ssize_t const *, "
    "Py_ssize_t, int, double, double const *, double const *, Py_ssize_t, Py_ssize_t, "
    "double *)",
    "categorical_accumulate": "int (PY_LONG_LONG const *, Py_ssize_t, Py_ssize_t, "
    "Py_ssize_t const *, double const *, Py_ssize_t, Py_ssize_t const *, "
    "Py_ssize_t const *, Py_ssize_t, double *, double *)",
    "categorical_jll": "int (PY_LONG_LONG const *, Py_ssize_t, Py_ssize_t, "
    "Py_ssize_t const *, Py_ssize_t const *, Py_ssize_t, double const *, "
    "double const *, Py_ssize_t, double *)",
}

CONSUMER = pathlib.Path(__file__).resolve().parent / "cython_consumer"


def _capsule_signature(capsule):
    get_name = ctypes.pythonapi.PyCapsule_GetName
    get_name.restype = ctypes.c_char_p
    get_name.argtypes = [ctypes.py_object]
    return get_name(capsule).decode()


def test_exported_signatures_are_pinned():
    exported = {name: _capsule_signature(c) for name, c in kernels.__pyx_capi__.items()}
    for name, signature in PINNED_SIGNATURES.items():
        assert exported.get(name) == signature, name
    assert kernels.API_VERSION == 1


def test_public_pxd_ships_with_the_package():
    pxd = pathlib.Path(kernels.__file__).with_name("cython_kernels.pxd")
    if not pxd.exists():
        pytest.skip("an editable install: the .pxd lives in src_cython/")
    text = pxd.read_text()
    assert "Usable from Cython via" in text
    for name in PINNED_SIGNATURES:
        assert name in text


def _installed_for_real():
    return pathlib.Path(kernels.__file__).with_name("cython_kernels.pxd").exists()


@pytest.fixture(scope="module", params=["c", "cpp"])
def consumer(request, tmp_path_factory):
    if not _installed_for_real():
        pytest.skip("builds against an installed fastnb only (not an editable one)")
    import importlib.util

    for module in ("mesonbuild", "Cython"):
        if importlib.util.find_spec(module) is None:
            pytest.skip(f"{module} is not installed in this environment")
    if shutil.which("ninja", path=os.path.dirname(sys.executable)) is None and \
            shutil.which("ninja") is None:
        pytest.skip("ninja is not installed")
    if request.param == "cpp" and shutil.which("c++") is None:
        pytest.skip("no C++ compiler")
    build = tmp_path_factory.mktemp(f"consumer-{request.param}")
    bin_dir = os.path.dirname(sys.executable)
    env = {**os.environ, "PATH": bin_dir + os.pathsep + os.environ.get("PATH", "")}
    setup = [sys.executable, "-m", "mesonbuild.mesonmain", "setup", str(build),
             str(CONSUMER), f"-Dlanguage={request.param}",
             "-Dpython.install_env=auto", "--native-file", str(_native_file(build))]
    for command in (setup, [sys.executable, "-m", "mesonbuild.mesonmain", "compile",
                            "-C", str(build)]):
        result = subprocess.run(command, capture_output=True, text=True, env=env,
                                timeout=600)
        assert result.returncode == 0, result.stdout + result.stderr
    sys.path.insert(0, str(build))
    try:
        import importlib

        module = importlib.import_module("fastnb_consumer")
        module = importlib.reload(module)
        yield module
    finally:
        sys.path.remove(str(build))
        sys.modules.pop("fastnb_consumer", None)


def _native_file(build):
    bin_dir = os.path.dirname(sys.executable)
    cython = shutil.which("cython", path=bin_dir) or shutil.which("cython") or "cython"
    path = build.parent / f"{build.name}-native.ini"
    path.write_text(f"[binaries]\npython = '{sys.executable}'\ncython = '{cython}'\n")
    return path


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_consumer_gaussian_matches_the_estimator(consumer, dtype):
    rng = np.random.default_rng(0)
    y = rng.integers(0, 3, 5000)
    X = (rng.normal(size=(5000, 6)) + y[:, None] + 1e4).astype(dtype)
    model = fastnb.GaussianNB(var_smoothing=0.0).fit(X, y)
    assert consumer.version() == 1
    count, mean, ssd = consumer.gaussian_fit(X, y.astype(np.intp), 3, batches=4)
    np.testing.assert_allclose(count, model.class_count_)
    np.testing.assert_allclose(mean, model.theta_, rtol=1e-12)
    np.testing.assert_allclose(ssd / count[:, None], model.var_, rtol=1e-10)
    jll = consumer.gaussian_jll(X, model.theta_, model.var_, np.log(model.class_prior_))
    np.testing.assert_allclose(jll, model.predict_joint_log_proba(X), rtol=1e-12)


def _count_data(rng, n=3000, d=12, k=4):
    y = rng.integers(0, k, n)
    X = rng.poisson(1.0 + y[:, None] * np.linspace(0, 1, d), size=(n, d)).astype(float)
    return X, y


def test_consumer_multinomial_and_complement_match(consumer):
    from sklearn.naive_bayes import ComplementNB, MultinomialNB

    rng = np.random.default_rng(1)
    X, y = _count_data(rng)
    class_count, feature_count = consumer.count_fit(X, y.astype(np.intp), 4)
    for reference in (MultinomialNB().fit(X, y), ComplementNB().fit(X, y)):
        np.testing.assert_allclose(class_count, reference.class_count_)
        np.testing.assert_allclose(feature_count, reference.feature_count_)
    multinomial = _estimator("MultinomialNB").fit(X, y)
    jll = consumer.linear_jll(X, multinomial.feature_log_prob_,
                              multinomial.class_log_prior_)
    np.testing.assert_allclose(jll, multinomial.predict_joint_log_proba(X), rtol=1e-12)
    jll32 = consumer.linear_jll(X.astype(np.float32), multinomial.feature_log_prob_,
                                multinomial.class_log_prior_)
    np.testing.assert_allclose(jll32, jll, rtol=1e-12)
    sparse = pytest.importorskip("scipy.sparse")
    csr = sparse.csr_matrix(X)
    jll_csr = consumer.linear_jll_csr(csr.data, csr.indices.astype(np.intp),
                                      csr.indptr.astype(np.intp),
                                      multinomial.feature_log_prob_,
                                      multinomial.class_log_prior_)
    np.testing.assert_allclose(jll_csr, jll, rtol=1e-12)
    complement = _estimator("ComplementNB").fit(X, y)
    jll = consumer.linear_jll(X, complement.feature_log_prob_, np.zeros(4))
    np.testing.assert_allclose(jll, complement.predict_joint_log_proba(X), rtol=1e-12)


def test_consumer_bernoulli_matches(consumer):
    rng = np.random.default_rng(2)
    X, y = _count_data(rng)
    bernoulli = _estimator("BernoulliNB", binarize=1.0).fit(X, y)
    class_count, feature_count = consumer.count_fit(X, y.astype(np.intp), 4, True, 1.0)
    np.testing.assert_allclose(class_count, bernoulli.class_count_)
    np.testing.assert_allclose(feature_count, bernoulli.feature_count_)
    log_p = bernoulli.feature_log_prob_
    log_not_p = np.log1p(-np.exp(log_p))
    jll = consumer.linear_jll(X, np.ascontiguousarray(log_p - log_not_p),
                              bernoulli.class_log_prior_ + log_not_p.sum(1), True, 1.0)
    np.testing.assert_allclose(jll, bernoulli.predict_joint_log_proba(X), rtol=1e-10)


def test_consumer_categorical_matches(consumer):
    rng = np.random.default_rng(3)
    n_categories = np.array([3, 5, 2, 7], dtype=np.intp)
    y = rng.integers(0, 3, 2000)
    codes_X = np.stack([rng.integers(0, m, 2000) for m in n_categories], axis=1)
    model = _estimator("CategoricalNB").fit(codes_X, y)
    class_count, table = consumer.categorical_fit(codes_X.astype(np.int64),
                                                  y.astype(np.intp), 3, n_categories)
    np.testing.assert_allclose(class_count, model.class_count_)
    np.testing.assert_allclose(table, np.concatenate(model.category_count_, axis=1))
    log_prob = np.ascontiguousarray(np.concatenate(model.feature_log_prob_, axis=1))
    jll = consumer.categorical_scores(codes_X.astype(np.int64), n_categories, log_prob,
                                      model.class_log_prior_)
    np.testing.assert_allclose(jll, model.predict_joint_log_proba(codes_X), rtol=1e-12)


def _estimator(name, **params):
    """fastnb's estimator when this build has it, else scikit-learn's (the oracle)."""
    if hasattr(fastnb, name):
        return getattr(fastnb, name)(**params)
    from sklearn import naive_bayes

    return getattr(naive_bayes, name)(**params)
