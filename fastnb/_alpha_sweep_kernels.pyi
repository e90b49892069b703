"""Type stubs of fastnb._alpha_sweep_kernels, compiled from
src_cython/_alpha_sweep_kernels.pyx: a parameter search's sweep of MultinomialNB's
alphas over the sparse count table (also the stubs of its AVX2+FMA build,
fastnb._alpha_sweep_kernels_avx2)."""

import numpy as np
from numpy.typing import NDArray

_Float64 = NDArray[np.float64]
_Values = NDArray[np.float32] | NDArray[np.float64]
_Index = NDArray[np.int32] | NDArray[np.int64]

def alpha_sweep_scores(data: _Values, indices: _Index, indptr: _Index,
                       feat_start: NDArray[np.int64], feat_len: NDArray[np.int32],
                       ent_class: NDArray[np.int32], ent_count: _Float64,
                       alpha: _Float64, base: _Float64, scale: _Float64,
                       out: _Float64, n_threads: int) -> int: ...
def alpha_sweep_rows(data: _Values, indices: _Index, indptr: _Index,
                     feat_start: NDArray[np.int64], feat_len: NDArray[np.int32],
                     ent_class: NDArray[np.int32], ent_count: _Float64,
                     alpha: _Float64, base: _Float64, scale: _Float64,
                     cand_alpha: NDArray[np.intp], priors: _Float64,
                     weights: _Float64, codes: NDArray[np.intp], predicted: NDArray[np.intp],
                     loss: _Float64, n_threads: int) -> int: ...
def exp_values(x: _Float64) -> _Float64: ...
def exp_values_scalar(x: _Float64) -> _Float64: ...
def exp_values_below(x: _Float64, top: float) -> _Float64: ...
def argmax_of_sums(scores: _Float64, prior: _Float64) -> tuple[NDArray[np.intp], _Float64]: ...
