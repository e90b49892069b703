"""Type stubs of fastnb._parametric_kernels_avx2, the AVX2+FMA build of
fastnb._parametric_kernels: the same functions."""

from ._parametric_kernels import *
