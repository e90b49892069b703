"""Type stubs of fastnb._discrete_kernels_avx2, the AVX2+FMA build of
fastnb._discrete_kernels: the same functions."""

from ._discrete_kernels import *
