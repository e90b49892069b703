"""Type stubs of fastnb._sparse_predict, compiled from src_cython/_sparse_predict.pyx:
predict over the sparse per-class count table of the count models on text-scale
data (also the stubs of its AVX2+FMA build, fastnb._sparse_predict_avx2)."""

import numpy as np
from numpy.typing import NDArray

_Float64 = NDArray[np.float64]
_Values = NDArray[np.float32] | NDArray[np.float64]
_Index = NDArray[np.int32] | NDArray[np.int64]

SLOT_ROW_WIDTHS: tuple[int, ...]

def slot_bytes() -> int: ...
def slot_dense_rows(feat_len: NDArray[np.int32]) -> int: ...
def fill_slots(feat_start: NDArray[np.int64], feat_len: NDArray[np.int32],
               ent_class: NDArray[np.int32], ent_weight: _Float64, feat_base: _Float64,
               slots: NDArray[np.uint8], rows: _Float64) -> int: ...
def patch_slots(features: NDArray[np.int64], feat_start: NDArray[np.int64],
                feat_len: NDArray[np.int32], ent_class: NDArray[np.int32],
                ent_weight: _Float64, feat_base: _Float64, slots: NDArray[np.uint8],
                rows: _Float64, n_rows: int) -> int: ...

class TablePredictor:
    def __init__(self, feat_start: NDArray[np.int64], feat_len: NDArray[np.int32],
                 ent_class: NDArray[np.int32], ent_weight: _Float64,
                 feat_base: _Float64, bias: _Float64, scale: _Float64,
                 mult: _Float64, slots: NDArray[np.uint8] | None = None,
                 rows: _Float64 | None = None) -> None: ...
    def predict(self, data: _Values, indices: _Index, indptr: _Index, binarize: bool,
                threshold: float, mode: int, labels_out: NDArray[np.intp] | None,
                out: _Float64 | None, n_threads: int) -> tuple[int, int]: ...
    def predict_row(self, data: _Values, indices: _Index, indptr: _Index, binarize: bool,
                    threshold: float) -> int: ...
    def slot_arrays(self) -> tuple[NDArray[np.uint8], _Float64] | None: ...
