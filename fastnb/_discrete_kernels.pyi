"""Type stubs of fastnb._discrete_kernels, compiled from src_cython/_discrete_kernels.pyx
(also the stubs of its AVX2+FMA build, fastnb._discrete_kernels_avx2)."""

import numpy as np
from numpy.typing import NDArray

_Float64 = NDArray[np.float64]
_Floating = NDArray[np.float32] | NDArray[np.float64]
# The dense dtypes read as they are (bool arrays are passed viewed as uint8).
_Dense = (
    NDArray[np.float32]
    | NDArray[np.float64]
    | NDArray[np.uint8]
    | NDArray[np.int8]
    | NDArray[np.int16]
    | NDArray[np.int32]
    | NDArray[np.int64]
)
_Index = NDArray[np.int32] | NDArray[np.int64]

def dense_fit(
    X: _Dense,
    codes: NDArray[np.intp],
    sample_weight: _Float64 | None,
    fc: _Float64,
    cc: _Float64,
    binarize: bool,
    threshold: float,
    check_neg: bool,
    block_align: int,
    split_rows: bool,
    n_threads: int,
) -> tuple[int, int]: ...
def csr_fit(
    data: _Floating,
    indices: _Index,
    indptr: _Index,
    n_features: int,
    codes: NDArray[np.intp],
    sample_weight: _Float64 | None,
    fc: _Float64,
    cc: _Float64,
    binarize: bool,
    threshold: float,
    check_neg: bool,
    n_threads: int,
    zero_counts: bool = ...,
) -> tuple[int, int, int]: ...
def count_nonfinite(a: _Float64, n_threads: int = ...) -> int: ...

LOG_TABLE_MIN_FEATURES: int

def multinomial_log_prob(
    fc: _Float64,
    alpha: float,
    log_prob: _Float64,
    log_total: _Float64,
    left: NDArray[np.uint8],
    n_threads: int,
) -> None: ...
def complement_log_prob(
    fc: _Float64,
    alpha: float,
    log_prob: _Float64,
    feature_all: _Float64,
    log_total: _Float64,
    left: NDArray[np.uint8],
    sign: float,
    n_threads: int,
) -> None: ...
