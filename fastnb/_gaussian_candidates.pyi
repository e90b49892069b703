"""Type stubs of fastnb._gaussian_candidates, compiled from
src_cython/_gaussian_candidates.pyx (also the stubs of its AVX2+FMA build,
fastnb._gaussian_candidates_avx2)."""

import numpy as np
from numpy.typing import NDArray

_Float64 = NDArray[np.float64]
_Floating = NDArray[np.float32] | NDArray[np.float64]

CANDIDATES_AT_ONCE: int

def derivation_slack(d: int) -> float: ...
def gaussian_predict_candidates(
    X: _Floating,
    theta: _Float64,
    half_inv_var: _Float64,
    half_log_2pi_var: _Float64,
    log_norm: _Float64,
    log_prior: _Float64,
    mode: int,
    labels_out: NDArray[np.intp] | None,
    out: _Float64 | None,
    n_threads: int,
    anchor_of: NDArray[np.intp] | None = None,
    ratio_lo: _Float64 | None = None,
    ratio_hi: _Float64 | None = None,
) -> NDArray[np.intp]: ...
