"""Type stubs of fastnb._gaussian_candidates_avx2, the AVX2+FMA build of
fastnb._gaussian_candidates: the same functions."""

from ._gaussian_candidates import *
