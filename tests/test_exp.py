"""The kernels' exp (src_cython/_exp_simd.h), which a search's fused alpha
sweep takes of every score less its row's top: within one ulp of NumPy's exp
over x <= 0 (and beyond), its special values, and the same bits from the scalar
function, the block loop (AVX2 in that build), either build and any split of the
values into blocks."""

import importlib
import importlib.util
import pathlib

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from numpy.testing import assert_array_equal

import fastnb  # noqa: F401  (the build, before the kernel modules)

PORTABLE = importlib.import_module("fastnb._alpha_sweep_kernels")
try:
    AVX2 = importlib.import_module("fastnb._alpha_sweep_kernels_avx2")
except ImportError:  # a build without the variant (non-x86 or old compiler)
    AVX2 = None
BUILDS = [PORTABLE] if AVX2 is None else [PORTABLE, AVX2]
ROOT = pathlib.Path(__file__).resolve().parent.parent
# An x87 long double (64-bit significand) gives the reference 11 bits past a
# double's: an error in ulps is then measured to within 2**-11 ulp.
EXTENDED = np.finfo(np.longdouble).nmant >= 63


def sweep(rng):
    """1e6 values x <= 0 (soft-max terms: most near 0, a long tail), then the
    hard places: the reduction's steps (multiples of ln 2 / 2), the subnormal
    results, tiny |x|, and some x > 0."""
    steps = np.arange(-2152, 1) * (np.log(2.0) / 2)
    return np.concatenate([
        -rng.exponential(20.0, 600_000),
        rng.uniform(-746.0, 0.0, 200_000),
        rng.uniform(-1.0, 0.0, 100_000),
        -np.exp2(rng.uniform(-60.0, 0.0, 50_000)),
        rng.uniform(-745.2, -708.0, 50_000),
        steps, np.nextafter(steps, -np.inf), np.nextafter(steps, np.inf),
        -np.arange(1, 1000) * 2.0**-53, np.arange(1, 1000) * 2.0**-53,
        rng.uniform(0.0, 709.0, 20_000),
    ])


@pytest.mark.parametrize("kernels", BUILDS, ids=lambda m: m.__name__)
def test_exp_within_one_ulp_of_numpy(kernels):
    x = sweep(np.random.default_rng(0))
    ours, numpy_exp = kernels.exp_values(x), np.exp(x)
    steps = np.abs(ours.view(np.int64) - numpy_exp.view(np.int64))
    assert steps.max() <= 1, x[steps.argmax()]
    assert np.mean(ours == numpy_exp) > 0.8


@pytest.mark.skipif(not EXTENDED, reason="needs an 80-bit long double reference")
@pytest.mark.parametrize("kernels", BUILDS, ids=lambda m: m.__name__)
def test_exp_error_against_extended_reference(kernels):
    """Within 0.52 ulp of exp x where the result is normal (measured: 0.509,
    one rounding of the table's H (1 + tmp)), and within one step of the
    correctly rounded exp everywhere (the subnormals round twice: < 0.75 ulp)."""
    x = sweep(np.random.default_rng(0))
    x = x[x <= 709.0]
    ours = kernels.exp_values(x)
    reference = np.exp(x.astype(np.longdouble))
    nearest = reference.astype(np.float64)
    normal = nearest >= np.finfo(np.float64).tiny
    error = np.abs((ours.astype(np.longdouble) - reference)
                   / np.spacing(nearest)).astype(np.float64)
    assert error[normal].max() < 0.52, (error[normal].max(), x[normal][error[normal].argmax()])
    assert error.max() < 0.76
    assert np.abs(ours.view(np.int64) - nearest.view(np.int64)).max() <= 1


@pytest.mark.parametrize("kernels", BUILDS, ids=lambda m: m.__name__)
@pytest.mark.parametrize("scalar", [False, True], ids=["block", "scalar"])
def test_exp_special_values(kernels, scalar):
    x = np.array([0.0, -0.0, -np.inf, -745.2, -746.0, -800.0, -1e300, np.nan,
                  np.inf, 710.0, -745.0, 1.0])
    exp = kernels.exp_values_scalar if scalar else kernels.exp_values
    ours = exp(x)
    assert_array_equal(ours[:2], [1.0, 1.0])
    assert_array_equal(ours[2:7].view(np.int64), 0)        # +0.0
    assert np.isnan(ours[7])
    assert_array_equal(ours[8:10], [np.inf, np.inf])
    assert ours[10] == 5e-324
    assert abs(ours[11] - np.e) <= np.spacing(np.e)


def test_exp_same_bits_on_every_path():
    """Scalar function, block loop, both builds, and any split into blocks
    (block loops leave remainders to the scalar function): the same bits."""
    x = sweep(np.random.default_rng(2))
    expected = PORTABLE.exp_values_scalar(x).view(np.int64)
    for kernels in BUILDS:
        assert_array_equal(kernels.exp_values(x).view(np.int64), expected)
        assert_array_equal(kernels.exp_values_scalar(x).view(np.int64), expected)
        cuts = [0, 1, 3, 4, 9, 17, 512, 1001, x.size]
        pieces = [kernels.exp_values(x[a:b]) for a, b in zip(cuts[:-1], cuts[1:])]
        assert_array_equal(np.concatenate(pieces).view(np.int64), expected)


@given(st.lists(st.floats(allow_nan=True, allow_infinity=True, allow_subnormal=True),
                min_size=1, max_size=40))
def test_exp_monotonic_and_path_free(values):
    """exp is non-decreasing; block == scalar; within an ulp of NumPy's."""
    x = np.array(values, dtype=np.float64)
    for kernels in BUILDS:
        block, scalar = kernels.exp_values(x), kernels.exp_values_scalar(x)
        assert_array_equal(block.view(np.int64), scalar.view(np.int64))
    ordered = np.sort(x[~np.isnan(x)])
    increasing = PORTABLE.exp_values(ordered)
    assert np.all(increasing[1:] >= increasing[:-1])
    with np.errstate(over="ignore"):
        numpy_exp = np.exp(x)
    ours = PORTABLE.exp_values(x)
    assert_array_equal(np.isnan(ours), np.isnan(x))
    finite = ~np.isnan(x)
    steps = np.abs(ours[finite].view(np.int64) - numpy_exp[finite].view(np.int64))
    assert np.all(steps <= 1)


@pytest.mark.parametrize("top", [0.0, -3.5, 12.25, 800.0])
def test_soft_max_loop_same_bits(top):
    """The soft-max loop's exp(x - top), whose AVX2 lanes take a shorter path
    where all four results are normal: the bits of exp of x - top."""
    rng = np.random.default_rng(3)
    x = top + np.concatenate([sweep(rng)[:300_000], [np.nan, -np.inf, np.inf, 1.0]])
    rng.shuffle(x)
    expected = PORTABLE.exp_values_scalar(x - top).view(np.int64)
    for kernels in BUILDS:
        for cut in (0, 1, 3):
            assert_array_equal(kernels.exp_values_below(x[cut:], top).view(np.int64),
                               expected[cut:])


def test_table_is_the_generator_output():
    """src_cython/_exp_simd.h holds tools/gen_exp_table.py's table verbatim."""
    spec = importlib.util.spec_from_file_location(
        "gen_exp_table", ROOT / "tools" / "gen_exp_table.py")
    if spec is None or not (ROOT / "src_cython" / "_exp_simd.h").exists():
        pytest.skip("not a source checkout")
    generator = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(generator)
    header = (ROOT / "src_cython" / "_exp_simd.h").read_text()
    lines = generator.table_lines()
    assert all(line in header for line in lines[:3])       # 128 / ln 2, ln 2 / 128
    assert "\n".join(lines[3:]) + "\n};" in header          # the 128 rows
