"""The kernels' natural log (src_cython/_log_simd.h), which GammaNB and
LogNormalNB take of every value: its error against an extended-precision
reference over every binade, its special values, and the same bits from the
scalar function, the block loop (AVX2 in that build), either build and any
split of the values into blocks."""

import importlib
import importlib.util
import pathlib

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from numpy.testing import assert_array_equal

import fastnb  # noqa: F401  (the build, before the kernel modules)

ROOT = pathlib.Path(__file__).resolve().parent.parent
PORTABLE = importlib.import_module("fastnb._parametric_kernels")
try:
    AVX2 = importlib.import_module("fastnb._parametric_kernels_avx2")
except ImportError:  # a build without the variant (non-x86 or old compiler)
    AVX2 = None
BUILDS = [PORTABLE] if AVX2 is None else [PORTABLE, AVX2]
# An x87 long double (64-bit significand) gives the reference 11 bits past a
# double's: an error in ulps is then measured to within 2**-11 ulp.
EXTENDED = np.finfo(np.longdouble).nmant >= 63


def sweep(rng):
    """1e6 random values over all binades, then the hard places: near 1 (where
    log x is small), the table's subinterval edges and centres, every power of
    two, subnormals, the extremes."""
    offsets = (-(1 << 43), -(1 << 43) + 1, -1, 0, 1, (1 << 43) - 1)
    edges = np.array([0x3FE6000000000000 + (i << 44) + offset for i in range(256)
                      for offset in offsets], dtype=np.uint64).view(np.float64)
    return np.concatenate([
        np.exp2(rng.uniform(-1022.0, 1024.0, 600_000)),
        rng.uniform(0.5, 2.0, 200_000),
        1.0 + rng.uniform(-2.0**-6, 2.0**-6, 150_000),
        1.0 + rng.uniform(-2.0**-30, 2.0**-30, 10_000),
        1.0 + np.arange(1, 1000) * 2.0**-52, 1.0 - np.arange(1, 1000) * 2.0**-53,
        np.exp2(np.arange(-1074, 1024).astype(np.float64)),
        rng.integers(1, 2**52, 40_000) * 2.0**-1074,
        edges,
        [5e-324, np.finfo(np.float64).tiny, np.finfo(np.float64).max, np.sqrt(2.0)],
    ])


@pytest.mark.skipif(not EXTENDED, reason="needs an 80-bit long double reference")
@pytest.mark.parametrize("kernels", BUILDS, ids=lambda m: m.__name__)
def test_log_error_below_one_ulp(kernels):
    """Within 0.75 ulp of log x (measured: 0.57) everywhere, hence within one
    ulp of the correctly rounded log, and 1 -> 0 exactly."""
    x = sweep(np.random.default_rng(0))
    ours = kernels.log_values(x)
    reference = np.log(x.astype(np.longdouble))
    nearest = reference.astype(np.float64)
    ulp = np.spacing(np.abs(nearest))
    error = np.abs((ours.astype(np.longdouble) - reference) / ulp).astype(np.float64)
    assert error.max() < 0.75, (error.max(), x[error.argmax()])
    steps = np.abs(ours.view(np.int64) - nearest.view(np.int64))
    assert steps.max() <= 1
    assert kernels.log_values(np.array([1.0]))[0] == 0.0


def test_log_close_to_numpy():
    """Without the extended reference: within one ulp of NumPy's log (itself
    within about 0.6 ulp), 99% of these values equal to it."""
    x = sweep(np.random.default_rng(1))
    ours, numpy_log = PORTABLE.log_values(x), np.log(x)
    assert np.all(np.abs(ours - numpy_log) <= np.spacing(np.abs(numpy_log)))
    assert np.mean(ours == numpy_log) > 0.98


@pytest.mark.parametrize("kernels", BUILDS, ids=lambda m: m.__name__)
@pytest.mark.parametrize("scalar", [False, True], ids=["block", "scalar"])
def test_log_special_values(kernels, scalar):
    x = np.array([0.0, -0.0, -1.0, -5e-324, -np.inf, np.inf, np.nan, 1.0, 5e-324])
    log = kernels.log_values_scalar if scalar else kernels.log_values
    ours = log(x)
    assert_array_equal(ours[:7], [-np.inf, -np.inf, np.nan, np.nan, np.nan, np.inf,
                                  np.nan])
    assert ours[7] == 0.0
    assert ours[8] == np.log(5e-324)


def test_log_same_bits_on_every_path():
    """Scalar function, block loop, both builds, and any split into blocks
    (block loops leave remainders to the scalar function): the same bits."""
    x = sweep(np.random.default_rng(2))
    expected = PORTABLE.log_values_scalar(x).view(np.int64)
    for kernels in BUILDS:
        assert_array_equal(kernels.log_values(x).view(np.int64), expected)
        assert_array_equal(kernels.log_values_scalar(x).view(np.int64), expected)
        cuts = [0, 1, 3, 4, 9, 17, 512, 1001, x.size]
        pieces = [kernels.log_values(x[a:b]) for a, b in zip(cuts[:-1], cuts[1:])]
        assert_array_equal(np.concatenate(pieces).view(np.int64), expected)


@given(st.lists(st.floats(allow_nan=True, allow_infinity=True, allow_subnormal=True),
                min_size=1, max_size=40))
@example([np.inf, np.inf])   # (hypothesis found it: the check was a NaN difference)
def test_log_monotonic_and_path_free(values):
    """log is non-decreasing over the positive values; block == scalar."""
    x = np.array(values, dtype=np.float64)
    for kernels in BUILDS:
        block, scalar = kernels.log_values(x), kernels.log_values_scalar(x)
        assert_array_equal(block.view(np.int64), scalar.view(np.int64))
    positive = np.sort(x[x > 0])
    logs = PORTABLE.log_values(positive)
    # (neighbours compared, not differenced: log(inf) - log(inf) is NaN)
    assert np.all(logs[1:] >= logs[:-1])


def test_table_is_the_generator_output():
    """src_cython/_log_simd.h holds tools/gen_log_table.py's table verbatim."""
    spec = importlib.util.spec_from_file_location(
        "gen_log_table", ROOT / "tools" / "gen_log_table.py")
    if spec is None or not (ROOT / "src_cython" / "_log_simd.h").exists():
        pytest.skip("not a source checkout")
    generator = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(generator)
    header = (ROOT / "src_cython" / "_log_simd.h").read_text()
    lines = generator.table_lines()
    assert lines[0] in header and lines[1] in header       # ln 2, head and tail
    assert "\n".join(lines[2:]) + "\n};" in header          # the 256 rows
