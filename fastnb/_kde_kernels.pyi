"""Type stubs of fastnb._kde_kernels, compiled from src_cython/_kde_kernels.pyx
(also the stubs of its AVX2+FMA build, fastnb._kde_kernels_avx2)."""

import numpy as np
from numpy.typing import NDArray

_Float64 = NDArray[np.float64]
_Floating = NDArray[np.float32] | NDArray[np.float64]

LOG_DENSITY_FLOOR: float

def feature_ranges(
    X: _Floating,
    codes: NDArray[np.intp],
    sample_weight: _Float64 | None,
    n_classes: int,
) -> tuple[_Float64, _Float64, _Float64, int]: ...
def kde_fit(
    X: _Floating,
    codes: NDArray[np.intp],
    sample_weight: _Float64 | None,
    n_classes: int,
    inv_width: _Float64,
    origin: _Float64,
    n_bins: int,
    n_chunks: int,
    n_threads: int,
) -> tuple[_Float64, _Float64, _Float64, _Float64, _Float64]: ...
def kde_log_density(
    hist: _Float64,
    width: _Float64,
    bandwidth: _Float64,
    first_point: _Float64,
    point_step: _Float64,
    n_points: int,
    n_threads: int,
) -> tuple[_Float64, _Float64, _Float64]: ...
def kde_predict(
    X: _Floating,
    fast: _Float64,
    table: _Float64,
    class_inv_width: _Float64,
    class_origin: _Float64,
    class_base: NDArray[np.int64],
    inv_width: _Float64,
    origin: _Float64,
    start: _Float64,
    stop: _Float64,
    grid: _Float64,
    slope_low: _Float64,
    slope_high: _Float64,
    curvature: _Float64,
    pairs: _Float64,
    by_class: bool,
    log_prior: _Float64,
    mode: int,
    labels_out: NDArray[np.intp] | None,
    out: _Float64 | None,
    n_threads: int,
) -> int: ...
def kde_dense_terms(
    X: _Floating,
    inv_width: _Float64,
    origin: _Float64,
    start: _Float64,
    stop: _Float64,
    grid: _Float64,
    slope_low: _Float64,
    slope_high: _Float64,
    curvature: _Float64,
    out: _Float64,
    n_threads: int,
) -> None: ...
