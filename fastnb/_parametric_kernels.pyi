"""Type stubs of fastnb._parametric_kernels, compiled from
src_cython/_parametric_kernels.pyx (also the stubs of its AVX2+FMA build,
fastnb._parametric_kernels_avx2)."""

import numpy as np
from numpy.typing import NDArray

_Float64 = NDArray[np.float64]
_Floating = NDArray[np.float32] | NDArray[np.float64]

FAMILIES: dict[str, int]
STATUS_BITS: dict[str, int]

def parametric_fit(
    X: _Floating,
    codes: NDArray[np.intp],
    sample_weight: _Float64 | None,
    n_classes: int,
    family: int,
    n_chunks: int,
    n_threads: int,
) -> tuple[_Float64, _Float64, _Float64, _Float64, int]: ...
def gamma_shapes(s: _Float64) -> _Float64: ...
def log_minus_digamma_values(a: _Float64) -> _Float64: ...
def log_gamma_values(a: _Float64) -> _Float64: ...
def log_values(x: _Float64) -> _Float64: ...
def log_values_scalar(x: _Float64) -> _Float64: ...
def parametric_predict(
    X: _Floating,
    family: int,
    a: _Float64,
    b: _Float64,
    const_: _Float64,
    log_norm: _Float64,
    log_prior: _Float64,
    mode: int,
    labels_out: NDArray[np.intp] | None,
    out: _Float64 | None,
    n_threads: int,
) -> int: ...
