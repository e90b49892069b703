"""Type stubs of fastnb._categorical_tables_avx2, the AVX2+FMA build of
fastnb._categorical_tables: the same functions."""

from ._categorical_tables import *
