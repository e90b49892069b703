"""Type stubs of fastnb._alpha_sweep_kernels_avx2, the AVX2+FMA build of
fastnb._alpha_sweep_kernels: the same functions."""

from ._alpha_sweep_kernels import *
