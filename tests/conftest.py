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
