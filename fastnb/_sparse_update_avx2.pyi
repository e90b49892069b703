"""Type stubs of fastnb._sparse_update_avx2, the AVX2+FMA build of
fastnb._sparse_update: the same functions."""

from ._sparse_update import *
