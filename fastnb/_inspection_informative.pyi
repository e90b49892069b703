"""Type stubs of fastnb._inspection_informative, compiled from
src_cython/_inspection_informative.pyx (also the stubs of its AVX2+FMA build,
fastnb._inspection_informative_avx2)."""

import numpy as np
from numpy.typing import NDArray

from ._discrete_kernels import _Float64

_Int64 = NDArray[np.int64]
_Intp = NDArray[np.intp]

def table_informative(
    feat_start: _Int64,
    feat_len: NDArray[np.int32],
    ent_class: NDArray[np.int32],
    ent_weight: _Float64,
    ent_count: _Float64,
    alpha: _Float64,
    from_counts: bool,
    feat_base: _Float64,
    scale: _Float64,
    mult: _Float64,
    prior: _Float64,
    log_mixture: bool,
    features: _Int64,
    values: _Float64,
    scratch: _Float64,
    sizes: _Intp,
    active: _Int64,
    bounds: _Int64,
    n_threads: int,
) -> None: ...
def dense_informative(
    weights: _Float64,
    counted: NDArray[np.uint8],
    prior: _Float64,
    log_mixture: bool,
    features: _Int64,
    values: _Float64,
    scratch: _Float64,
    sizes: _Intp,
    n_threads: int,
) -> None: ...
