"""Type stubs of fastnb._columnwise_kernels_avx2, the AVX2+FMA build of
fastnb._columnwise_kernels: the same functions."""

from ._columnwise_kernels import *
