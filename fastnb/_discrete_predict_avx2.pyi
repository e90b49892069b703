"""Type stubs of fastnb._discrete_predict_avx2, the AVX2+FMA build of
fastnb._discrete_predict: the same functions."""

from ._discrete_predict import *
