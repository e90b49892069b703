"""Type stubs of fastnb._sparse_update, compiled from src_cython/_sparse_update.pyx
(also the stubs of its AVX2+FMA build, fastnb._sparse_update_avx2): the stream's adds and refreshes."""

import enum

import numpy as np
from numpy.typing import NDArray

_Float64 = NDArray[np.float64]
_Values = NDArray[np.float32] | NDArray[np.float64]
_Index = NDArray[np.int32] | NDArray[np.int64]

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
                      alpha: _Float64, n_threads: int,
                      count_scale: float = ...) -> None: ...
def pending_features(pend_feat: NDArray[np.int64], pend_off: NDArray[np.int32],
                     feat_start: NDArray[np.int64], feat_len: NDArray[np.int32],
                     ent_stale: NDArray[np.uint8]) -> int: ...
def live_features(feat_len: NDArray[np.int32]) -> NDArray[np.int64]: ...
def refresh_multinomial(features: NDArray[np.int64], feat_start: NDArray[np.int64],
                        feat_len: NDArray[np.int32], ent_count: _Float64,
                        ent_weight: _Float64, alpha: _Float64, n_threads: int,
                        count_scale: float = ...) -> None: ...
def refresh_complement(features: NDArray[np.int64], feat_start: NDArray[np.int64],
                       feat_len: NDArray[np.int32], ent_count: _Float64,
                       ent_weight: _Float64, feature_all: _Float64, feat_base: _Float64,
                       alpha: _Float64, n_threads: int,
                       count_scale: float = ...) -> None: ...
def bernoulli_entry_terms(feat_start: NDArray[np.int64], feat_len: NDArray[np.int32],
                          ent_class: NDArray[np.int32], ent_count: _Float64,
                          miss_start: NDArray[np.int64], miss_len: NDArray[np.int32],
                          miss_class: NDArray[np.int32], miss_count: _Float64,
                          class_count: _Float64, alpha: float, w0: _Float64,
                          ln0: _Float64, ent_weight: _Float64, const_delta: _Float64,
                          scratch: _Float64, n_threads: int,
                          count_scale: float = ...) -> None: ...
def stale_weights(indices: _Index, every_feature: bool, feat_len: NDArray[np.int32],
                  weight_epoch: NDArray[np.int64], epoch: int,
                  listed: NDArray[np.int64]) -> int: ...
