"""Type stubs of fastnb._categorical_predict_avx2, the AVX2+FMA build of
fastnb._categorical_predict: the same functions."""

from ._categorical_predict import *
