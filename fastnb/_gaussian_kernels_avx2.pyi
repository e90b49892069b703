"""Type stubs of fastnb._gaussian_kernels_avx2, the AVX2+FMA build of
fastnb._gaussian_kernels: the same functions."""

from ._gaussian_kernels import *
