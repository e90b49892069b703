"""Type stubs of fastnb._gaussian_kernels, compiled from src_cython/_gaussian_kernels.pyx
(also the stubs of its AVX2+FMA build, fastnb._gaussian_kernels_avx2)."""

import numpy as np
from numpy.typing import NDArray

_Float64 = NDArray[np.float64]
_Floating = NDArray[np.float32] | NDArray[np.float64]

def gaussian_fit(
    X: _Floating,
    codes: NDArray[np.intp],
    sample_weight: _Float64 | None,
    n_classes: int,
    track_unweighted: bool,
    missing: bool,
    n_chunks: int,
    n_threads: int,
    rows: NDArray[np.intp] | None = None,
) -> tuple[_Float64, _Float64, _Float64, _Float64]: ...
def merge_moments(
    count_a: _Float64,
    mean_a: _Float64,
    ssd_a: _Float64,
    count_b: _Float64,
    mean_b: _Float64,
    ssd_b: _Float64,
) -> None: ...
def merge_all_slots(
    count: _Float64, mean: _Float64, ssd: _Float64
) -> tuple[_Float64, _Float64, _Float64]: ...
def gaussian_predict(
    X: _Floating,
    theta: _Float64,
    half_inv_var: _Float64,
    half_log_2pi_var: _Float64,
    log_norm: _Float64,
    log_prior: _Float64,
    mode: int,
    labels_out: NDArray[np.intp] | None,
    out: _Float64 | None,
    n_threads: int,
) -> int: ...
