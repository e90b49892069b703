"""Type stubs of fastnb._sparse_build_avx2, the AVX2+FMA build of
fastnb._sparse_build: the same functions."""

from ._sparse_build import *
