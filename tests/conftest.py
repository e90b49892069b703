import contextlib
import os
import sys

import numpy as np
import pytest

# Test modules import the estimator registry (tests/_registry.py) as `_registry`;
# pytest's importlib mode does not put this folder on sys.path itself.
sys.path.insert(0, os.path.dirname(__file__))

# Property tests must be reproducible in CI and bounded in time.
try:
    from hypothesis import HealthCheck, settings

    settings.register_profile(
        "ci",
        max_examples=60,
        deadline=None,
        derandomize=True,
        suppress_health_check=[HealthCheck.too_slow],
    )
    settings.register_profile(
        "dev", max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow]
    )
    settings.load_profile("ci" if os.environ.get("CI") else "dev")
except ImportError:  # pragma: no cover - hypothesis is a test extra
    pass


@pytest.fixture
def rng():
    return np.random.default_rng(20261130)


class force_parallel_kernels:
    """Run every kernel call on the parallel path, however small (for tests that
    compare thread counts on small data). A context manager, usable inside
    hypothesis tests, unlike the function-scoped monkeypatch fixture."""

    def __enter__(self):
        from fastnb._threads import PARALLEL_MIN_WORK

        self._saved = dict(PARALLEL_MIN_WORK)
        for kind in PARALLEL_MIN_WORK:
            PARALLEL_MIN_WORK[kind] = 0
        return self

    def __exit__(self, *exc):
        from fastnb._threads import PARALLEL_MIN_WORK

        PARALLEL_MIN_WORK.update(self._saved)


@pytest.fixture(scope="session")
def parallel_kernels():
    """The force_parallel_kernels context manager class."""
    return force_parallel_kernels


# FASTNB_TEST_SPARSE_TABLE=1 runs the whole suite with every CSR fit of the count
# models going to the sparse count table (fastnb/_count_table.py), however small:
# the table is then held to every test the dense representation passes.
# Tests of what happens to a model whose first fit kept dense counts (the move
# into the table) ask for the default thresholds back: ``dense_first_fits``.
from fastnb import _count_table as _count_table_module  # noqa: E402

_DEFAULT_TABLE_THRESHOLDS = {
    "TABLE_MIN_CELLS": _count_table_module.TABLE_MIN_CELLS,
    "TABLE_MIN_CELLS_PER_NONZERO": _count_table_module.TABLE_MIN_CELLS_PER_NONZERO,
}
if os.environ.get("FASTNB_TEST_SPARSE_TABLE", "") not in ("", "0"):
    _count_table_module.TABLE_MIN_CELLS = 0
    _count_table_module.TABLE_MIN_CELLS_PER_NONZERO = 0


@pytest.fixture
def dense_first_fits(monkeypatch):
    """The table thresholds as shipped, whatever FASTNB_TEST_SPARSE_TABLE says:
    for tests whose first fit must keep dense counts."""
    for name, value in _DEFAULT_TABLE_THRESHOLDS.items():
        monkeypatch.setattr(_count_table_module, name, value)


@contextlib.contextmanager
def _table_fits(on=True):
    """Every CSR fit of the count models into the sparse count table (``on``),
    for a block of a test (a hypothesis test's examples too)."""
    saved = (_count_table_module.TABLE_MIN_CELLS,
             _count_table_module.TABLE_MIN_CELLS_PER_NONZERO)
    if on:
        _count_table_module.TABLE_MIN_CELLS = 0
        _count_table_module.TABLE_MIN_CELLS_PER_NONZERO = 0
    try:
        yield
    finally:
        (_count_table_module.TABLE_MIN_CELLS,
         _count_table_module.TABLE_MIN_CELLS_PER_NONZERO) = saved


@pytest.fixture(scope="session")
def table_fits():
    """The ``_table_fits(on)`` context manager."""
    return _table_fits


# -- the common checks' count (tests/test_common_checks*.py) ---------------------------
_COMMON_CHECKS = {"supported": 0, "refused": 0}


def pytest_runtest_logreport(report):
    if report.when != "call" or not report.passed:
        return
    for key, value in report.user_properties:
        if key == "common_check":
            _COMMON_CHECKS[value] += 1


def pytest_terminal_summary(terminalreporter):
    if any(_COMMON_CHECKS.values()):
        terminalreporter.write_line(
            f"common checks: {sum(_COMMON_CHECKS.values())} cells passed, "
            f"{_COMMON_CHECKS['supported']} checked as supported, "
            f"{_COMMON_CHECKS['refused']} as refused")
