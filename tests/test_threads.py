"""Threads, processes and thread-count settings."""

import multiprocessing
import os
import subprocess
import sys
import threading

import numpy as np
import pytest
from numpy.testing import assert_array_equal

import fastnb
from _registry import ESTIMATORS as REGISTRY, mixed_data, positive_data


def _data(n=60_000, d=20, k=4, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    return rng.normal(size=(n, d)) + y[:, None] * 0.3, y


def _counts(n=60_000, d=20, k=4, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    return rng.poisson(1.0 + 0.3 * y[:, None], size=(n, d)).astype(np.float64), y


def _categorical_data(n=120_000, d=20, k=4, seed=0):
    """Integer codes, and a column of negative ints (the hashed-value path); the
    default size is above the parallel predict threshold."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    X = (rng.integers(0, 6, (n, d)) + y[:, None]) % 9
    X[:, 0] = -X[:, 0] - 1
    return X, y


# name -> (factory, data maker), for every registered estimator.
_DATA = {"continuous": _data, "counts": _counts, "categories": _categorical_data,
         "mixed": lambda n=60_000, d=None, k=4, seed=0: mixed_data(None, n, k, seed),
         "positive": lambda n=60_000, d=20, k=4, seed=0: positive_data(None, n, d, k, seed)}
ESTIMATORS = {name: (spec.make, _DATA[spec.data_kind]) for name, spec in REGISTRY.items()}
# Rows for the process tests: above every work threshold, so that the parallel
# paths would run, were it not for the fork fallback.
_PROCESS_ROWS = {"CategoricalNB": 300_000, "GaussianNB": 150_000}


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_eight_python_threads_share_one_model(name):
    factory, make = ESTIMATORS[name]
    X, y = make()
    model = factory(n_threads=2).fit(X, y)
    expected = {
        "predict": model.predict(X),
        "predict_proba": model.predict_proba(X),
        "predict_log_proba": model.predict_log_proba(X),
    }
    results, errors = [], []
    barrier = threading.Barrier(8)

    def work(index):
        try:
            barrier.wait()
            method = sorted(expected)[index % 3]
            for _ in range(3):
                results.append((method, getattr(model, method)(X)))
        except Exception as error:  # pragma: no cover - reported below
            errors.append(error)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not errors
    assert len(results) == 24
    for method, value in results:
        assert_array_equal(value, expected[method])


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
@pytest.mark.parametrize("method", ["fork", "forkserver", "spawn"])
def test_processes_after_openmp_has_run_do_not_hang(name, method):
    if method not in multiprocessing.get_all_start_methods():
        pytest.skip(f"{method} is not available here")
    factory, make = ESTIMATORS[name]
    X, y = make(_PROCESS_ROWS.get(name, 150_000), 10, 3)  # above the work thresholds
    # Run the OpenMP kernels in this process first: GNU libgomp's thread pool does
    # not survive fork, so forked children must fall back to serial kernels. The
    # children run fastnb's own (picklable) methods: big enough to take the
    # parallel path, were it not for that fallback.
    model = factory().fit(X, y)
    expected = model.predict(X)
    context = multiprocessing.get_context(method)
    with context.Pool(2) as pool:
        fits = pool.starmap_async(factory().fit, [(X, y)] * 2)
        predictions = pool.map_async(model.predict, [X] * 3)
        for fitted in fits.get(timeout=120):
            assert_array_equal(fitted.predict(X), expected)
        for predicted in predictions.get(timeout=120):
            assert_array_equal(predicted, expected)


def test_forked_child_runs_serially():
    if not hasattr(os, "fork"):
        pytest.skip("no fork here")
    X, y = _data(150_000, 10, 3)
    fastnb.GaussianNB().fit(X, y).predict(X)
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        os.close(read)
        os.write(write, str(fastnb.effective_n_threads()).encode())
        os._exit(0)
    os.close(write)
    threads_in_child = int(os.read(read, 16))
    os.waitpid(pid, 0)
    assert threads_in_child == 1


def test_cross_val_score_with_two_jobs():
    from sklearn.model_selection import cross_val_score

    X, y = _data(20_000, 10, 3)
    fastnb.GaussianNB().fit(X, y)  # OpenMP has run in the parent
    scores = cross_val_score(fastnb.GaussianNB(), X, y, cv=4, n_jobs=2)
    expected = cross_val_score(fastnb.GaussianNB(), X, y, cv=4, n_jobs=1)
    assert_array_equal(scores, expected)


def _threads_in_subprocess(env_update, code="print(fastnb.effective_n_threads())"):
    env = {**os.environ, **env_update}
    result = subprocess.run(
        [sys.executable, "-c", "import fastnb\n" + code],
        capture_output=True, text=True, env=env, timeout=60, cwd=os.path.dirname(__file__),
    )
    assert result.returncode == 0, result.stderr
    return int(result.stdout.strip().splitlines()[-1])


@pytest.mark.skipif(not fastnb.openmp_enabled(), reason="a serial build")
def test_omp_num_threads_is_honoured():
    assert _threads_in_subprocess({"OMP_NUM_THREADS": "1"}) == 1


@pytest.mark.skipif(not fastnb.openmp_enabled(), reason="a serial build")
def test_threadpoolctl_limits_are_honoured():
    threadpoolctl = pytest.importorskip("threadpoolctl")
    with threadpoolctl.threadpool_limits(limits=1, user_api="openmp"):
        assert fastnb.effective_n_threads() == 1
    assert fastnb.effective_n_threads() == fastnb.effective_n_threads(None)


def test_thread_count_meanings():
    cores = fastnb.show_config()["cpus"]
    # A positive count is used as given, up to the usable cores.
    assert fastnb.effective_n_threads(1) == 1
    assert fastnb.effective_n_threads(3) == (min(3, cores) if fastnb.openmp_enabled()
                                             else 1)
    assert fastnb.effective_n_threads(cores) == (cores if fastnb.openmp_enabled()
                                                 else 1)
    if fastnb.openmp_enabled():
        assert fastnb.effective_n_threads(-1) == fastnb.effective_n_threads(None)
        assert fastnb.effective_n_threads(-cores - 5) == 1
    with pytest.raises(ValueError, match="'n_threads' parameter"):
        fastnb.effective_n_threads(0)
    with pytest.raises(TypeError, match="n_threads"):
        fastnb.effective_n_threads(2.0)
