"""Type stubs of fastnb._discrete_predict, compiled from src_cython/_discrete_predict.pyx
(also the stubs of its AVX2+FMA build, fastnb._discrete_predict_avx2)."""

import numpy as np
from numpy.typing import NDArray

# The array aliases of the fit kernels' stubs: the same dtypes are read here.
from ._discrete_kernels import _Dense, _Float64, _Floating, _Index

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

def fold_row_scores(
    jll: _Float64,
    offset: _Float64,
    predicted: NDArray[np.intp],
    top: _Float64,
    shifted: _Float64,
    n_threads: int,
) -> int: ...
