"""Type stubs of fastnb._kde_kernels_avx2, the AVX2+FMA build of
fastnb._kde_kernels: the same functions."""

from ._kde_kernels import *
