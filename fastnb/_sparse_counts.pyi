"""Type stubs of fastnb._sparse_counts, compiled from src_cython/_sparse_counts.pyx
(also the stubs of its AVX2+FMA build, fastnb._sparse_counts_avx2): a batch checked and partitioned."""

import enum

import numpy as np
from numpy.typing import NDArray

_Float64 = NDArray[np.float64]
_Values = NDArray[np.float32] | NDArray[np.float64]
_Index = NDArray[np.int32] | NDArray[np.int64]

def csr_check(data: _Values, indices: _Index, indptr: _Index, n_features: int,
              codes: NDArray[np.intp], sample_weight: _Float64 | None,
              row_total: _Float64, batch_total: _Float64, binarize: bool,
              threshold: float, n_threads: int) -> tuple[int, ...]: ...
def add_row_totals(codes: NDArray[np.intp], row_total: _Float64,
                   class_total: _Float64) -> None: ...
def add_class_counts(codes: NDArray[np.intp], sample_weight: _Float64 | None,
                     class_count: _Float64) -> None: ...
def table_partition(data: _Values, indices: _Index, indptr: _Index, n_features: int,
                    codes: NDArray[np.intp], sample_weight: _Float64 | None,
                    binarize: bool, threshold: float, part_shift: int,
                    part_start: NDArray[np.int64], rec_value: _Float64,
                    rec_key: NDArray[np.int32],
                    fill: NDArray[np.int64], row_total: _Float64, batch_total: _Float64,
                    stop_on_negative: bool,
                    compact_keys: bool = ...,
                    rows: NDArray[np.intp] | None = ...) -> tuple[int, int, int, int, int, bool]: ...
def check_table_entries(features: NDArray[np.int64], classes: NDArray[np.int64],
                        counts: _Float64, n_features: int, class_mark: NDArray[np.int64],
                        class_sum: _Float64, class_max: _Float64,
                        live: NDArray[np.int64],
                        lengths: NDArray[np.int64]) -> tuple[int, int, bool]: ...
