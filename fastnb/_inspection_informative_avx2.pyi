"""Type stubs of fastnb._inspection_informative_avx2, the AVX2+FMA build of
fastnb._inspection_informative: the same functions."""

from ._inspection_informative import *
