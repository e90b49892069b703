"""Type stubs of fastnb._categorical_count_avx2, the AVX2+FMA build of
fastnb._categorical_count: the same functions."""

from ._categorical_count import *
