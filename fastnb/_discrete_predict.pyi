"""Type stubs of fastnb._discrete_predict, compiled from src_cython/_discrete_predict.pyx
(also the stubs of its AVX2+FMA build, fastnb._discrete_predict_avx2)."""

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

def dense_predict(
    X: _Dense,
    W: _Float64,
    bias: _Float64,
    binarize: bool,
    threshold: float,
    mode: int,
    labels_out: NDArray[np.intp] | None,
    out: _Float64 | None,
    n_threads: int,
) -> int: ...
def csr_predict(
    data: _Floating,
    indices: _Index,
    indptr: _Index,
    WT: _Float64,
    bias: _Float64,
    binarize: bool,
    threshold: float,
    mode: int,
    labels_out: NDArray[np.intp] | None,
    out: _Float64 | None,
    n_threads: int,
) -> tuple[int, int]: ...
def bool_table_supported() -> bool: ...
def build_bool_table(W: _Float64, table: _Float64) -> None: ...
def bool_predict(
    X: NDArray[np.uint8],
    table: _Float64,
    bias: _Float64,
    mode: int,
    labels_out: NDArray[np.intp] | None,
    out: _Float64 | None,
    n_threads: int,
) -> int: ...
def dense_threshold_predict(
    X: _Dense,
    table: _Float64,
    bias: _Float64,
    threshold: float,
    mode: int,
    labels_out: NDArray[np.intp] | None,
    out: _Float64 | None,
    n_threads: int,
) -> int: ...
