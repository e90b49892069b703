"""Type stubs of fastnb._inspection_kernels, compiled from
src_cython/_inspection_kernels.pyx (also the stubs of its AVX2+FMA build,
fastnb._inspection_kernels_avx2)."""

import numpy as np
from numpy.typing import NDArray

from ._discrete_kernels import _Float64, _Floating, _Index

_Int64 = NDArray[np.int64]
_Intp = NDArray[np.intp]

def linear_dense_values(
    X: _Floating,
    weights: _Float64,
    binarize: bool,
    threshold: float,
    out: _Float64,
    n_threads: int,
) -> None: ...
def gaussian_dense_values(
    X: _Floating,
    theta: _Float64,
    half_inv_var: _Float64,
    half_log_2pi_var: _Float64,
    out: _Float64,
    n_threads: int,
) -> None: ...
def categorical_dense_values(
    X: NDArray[np.generic],
    lookup: NDArray[np.int32],
    n_categories: _Intp,
    log_prob: _Float64,
    block_start_: _Intp,
    row_width: int,
    hash_keys: _Int64,
    hash_tags: NDArray[np.uint8],
    hash_rows: _Int64,
    hash_start: _Intp,
    hash_mask: _Intp,
    out: _Float64,
    n_threads: int,
) -> None: ...
def linear_csr_values(
    data: _Floating,
    indices: _Index,
    indptr: _Index,
    weights_fm: _Float64,
    binarize: bool,
    threshold: float,
    out: _Float64,
    n_threads: int,
) -> None: ...
def table_csr_values(
    data: _Floating,
    indices: _Index,
    indptr: _Index,
    feat_start: _Int64,
    feat_len: NDArray[np.int32],
    ent_class: NDArray[np.int32],
    ent_weight: _Float64,
    feat_base: _Float64,
    scale: _Float64,
    mult: _Float64,
    binarize: bool,
    threshold: float,
    out: _Float64,
    n_threads: int,
) -> None: ...
def top_of_rows(
    diff: _Float64,
    features: _Int64,
    values: _Float64,
    n_threads: int,
) -> None: ...
def top_of_csr_rows(
    diff: _Float64,
    indices: _Index,
    indptr: _Index,
    features: _Int64,
    values: _Float64,
    n_threads: int,
) -> None: ...
def top_linear_csr(
    data: _Floating,
    indices: _Index,
    indptr: _Index,
    weights_fm: _Float64,
    binarize: bool,
    threshold: float,
    first: _Intp,
    second: _Intp,
    features: _Int64,
    values: _Float64,
    n_threads: int,
) -> None: ...
def top_table_csr(
    data: _Floating,
    indices: _Index,
    indptr: _Index,
    feat_start: _Int64,
    feat_len: NDArray[np.int32],
    ent_class: NDArray[np.int32],
    ent_weight: _Float64,
    feat_base: _Float64,
    scale: _Float64,
    mult: _Float64,
    binarize: bool,
    threshold: float,
    first: _Intp,
    second: _Intp,
    features: _Int64,
    values: _Float64,
    n_threads: int,
) -> None: ...
def top_slots_scratch_widths(k: int) -> tuple[int, int]: ...
def top_slots_scored(
    data: _Floating,
    indices: _Index,
    indptr: _Index,
    slots: NDArray[np.uint8],
    rows: _Float64,
    bias: _Float64,
    scale: _Float64,
    mult: _Float64,
    binarize: bool,
    threshold: float,
    pair_first: int,
    pair_second: int,
    first: _Intp,
    second: _Intp,
    log_odds: _Float64,
    features: _Int64,
    values: _Float64,
    scratch: _Float64,
    chunk_features: _Int64,
) -> tuple[int, int]: ...
def top_two(
    jll: _Float64,
    first: _Intp,
    second: _Intp,
    n_threads: int,
) -> None: ...
