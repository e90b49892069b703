"""Type stubs of fastnb._inspection_kernels_avx2, the AVX2+FMA build of
fastnb._inspection_kernels: the same functions."""

from ._inspection_kernels import *
