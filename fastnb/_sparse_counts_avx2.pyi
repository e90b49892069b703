"""Type stubs of fastnb._sparse_counts_avx2, the AVX2+FMA build of
fastnb._sparse_counts: the same functions."""

from ._sparse_counts import *
