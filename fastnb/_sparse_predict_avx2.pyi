"""Type stubs of fastnb._sparse_predict_avx2, the AVX2+FMA build of
fastnb._sparse_predict: the same functions."""

from ._sparse_predict import *
