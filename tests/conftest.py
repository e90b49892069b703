import os

import numpy as np
import pytest

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
        import fastnb._base
        import fastnb._discrete
        import fastnb._gaussian

        self._saved = [(module, name, getattr(module, name))
                       for module in (fastnb._base, fastnb._gaussian, fastnb._discrete)
                       for name in dir(module) if name.startswith("_PARALLEL_")]
        for module, name, _ in self._saved:
            setattr(module, name, 0)
        return self

    def __exit__(self, *exc):
        for module, name, value in self._saved:
            setattr(module, name, value)


@pytest.fixture(scope="session")
def parallel_kernels():
    """The force_parallel_kernels context manager class."""
    return force_parallel_kernels
