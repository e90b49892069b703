"""Type stubs of fastnb._sparse_counts, compiled from src_cython/_sparse_counts.pyx:
the sparse per-class count table of the count models on text-scale data
(also the stubs of its AVX2+FMA build, fastnb._sparse_counts_avx2)."""

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
def table_add(data: _Values, indices: _Index, indptr: _Index, codes: NDArray[np.intp],
              sample_weight: _Float64 | None, binarize: bool, threshold: float,
              feat_start: NDArray[np.int64], feat_len: NDArray[np.int32],
              ent_class: NDArray[np.int32], ent_count: _Float64, ent_weight: _Float64,
              ent_stale: NDArray[np.uint8], pend_feat: NDArray[np.int64],
              pend_off: NDArray[np.int32], sizes: NDArray[np.int64],
              undo_block: NDArray[np.int64], undo_entry: NDArray[np.int64],
              undo_value: _Float64, undo_sizes: NDArray[np.int64], pending: bool,
              zero_entries: bool = ...) -> int: ...
def table_undo(feat_start: NDArray[np.int64], feat_len: NDArray[np.int32],
               ent_count: _Float64, ent_stale: NDArray[np.uint8],
               undo_block: NDArray[np.int64],
               undo_entry: NDArray[np.int64], undo_value: _Float64,
               undo_sizes: NDArray[np.int64]) -> None: ...
def flush_multinomial(pend_feat: NDArray[np.int64], pend_off: NDArray[np.int32],
                      feat_start: NDArray[np.int64], ent_count: _Float64,
                      ent_weight: _Float64, ent_stale: NDArray[np.uint8],
                      alpha: _Float64, n_threads: int) -> None: ...
def pending_features(pend_feat: NDArray[np.int64], pend_off: NDArray[np.int32],
                     feat_start: NDArray[np.int64], feat_len: NDArray[np.int32],
                     ent_stale: NDArray[np.uint8]) -> int: ...
def table_partition(data: _Values, indices: _Index, indptr: _Index, n_features: int,
                    codes: NDArray[np.intp], sample_weight: _Float64 | None,
                    binarize: bool, threshold: float, part_shift: int,
                    part_start: NDArray[np.int64], rec_value: _Float64,
                    rec_key: NDArray[np.int32],
                    fill: NDArray[np.int64], row_total: _Float64, batch_total: _Float64,
                    stop_on_negative: bool,
                    compact_keys: bool = ...) -> tuple[int, int, int, int, int, bool]: ...
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
def live_features(feat_len: NDArray[np.int32]) -> NDArray[np.int64]: ...
def refresh_multinomial(features: NDArray[np.int64], feat_start: NDArray[np.int64],
                        feat_len: NDArray[np.int32], ent_count: _Float64,
                        ent_weight: _Float64, alpha: _Float64, n_threads: int) -> None: ...
def refresh_complement(features: NDArray[np.int64], feat_start: NDArray[np.int64],
                       feat_len: NDArray[np.int32], ent_count: _Float64,
                       ent_weight: _Float64, feature_all: _Float64, feat_base: _Float64,
                       alpha: _Float64, n_threads: int) -> None: ...
def bernoulli_entry_terms(feat_start: NDArray[np.int64], feat_len: NDArray[np.int32],
                          ent_class: NDArray[np.int32], ent_count: _Float64,
                          miss_start: NDArray[np.int64], miss_len: NDArray[np.int32],
                          miss_class: NDArray[np.int32], miss_count: _Float64,
                          class_count: _Float64, alpha: float, w0: _Float64,
                          ln0: _Float64, ent_weight: _Float64, const_delta: _Float64,
                          scratch: _Float64, n_threads: int) -> None: ...
def check_table_entries(features: NDArray[np.int64], classes: NDArray[np.int64],
                        counts: _Float64, n_features: int, class_mark: NDArray[np.int64],
                        class_sum: _Float64, class_max: _Float64,
                        live: NDArray[np.int64],
                        lengths: NDArray[np.int64]) -> tuple[int, int, bool]: ...
