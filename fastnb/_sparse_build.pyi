"""Type stubs of fastnb._sparse_build, compiled from src_cython/_sparse_build.pyx
(also the stubs of its AVX2+FMA build, fastnb._sparse_build_avx2): a fresh table reduced and filled."""

import enum

import numpy as np
from numpy.typing import NDArray

_Float64 = NDArray[np.float64]
_Values = NDArray[np.float32] | NDArray[np.float64]
_Index = NDArray[np.int32] | NDArray[np.int64]

def table_reduce(rec_value: _Float64, rec_key: NDArray[np.int32],
                 part_start: NDArray[np.int64], part_shift: int,
                 feat_len: NDArray[np.int32], part_room: NDArray[np.int64],
                 part_compact: NDArray[np.uint8], index: NDArray[np.int64],
                 entries: NDArray[np.uint8], starts: NDArray[np.int64],
                 n_threads: int, compact: bool = ...,
                 feature_all: _Float64 | None = ...) -> None: ...
class FillWeights(enum.IntEnum):
    FILL_COUNTS = 0
    FILL_MULTINOMIAL = 1
    FILL_COMPLEMENT = 2
def table_fill(rec_value: _Float64, rec_key: NDArray[np.int32],
               part_start: NDArray[np.int64], part_compact: NDArray[np.uint8],
               part_pool: NDArray[np.int64], part_shift: int,
               feat_start: NDArray[np.int64], feat_len: NDArray[np.int32],
               ent_class: NDArray[np.int32], ent_count: _Float64, n_threads: int,
               fill_weights: int = ..., ent_weight: _Float64 | None = ...,
               alpha: _Float64 | None = ..., feature_all: _Float64 | None = ...,
               feat_base: _Float64 | None = ...,
               dead_base: float = ...) -> None: ...
def balanced_runs(part_start: NDArray[np.int64], width: int, cells: int,
                  n_runs: int) -> NDArray[np.intp]: ...
