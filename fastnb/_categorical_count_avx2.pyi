"""The AVX2+FMA build of fastnb._categorical_count: the same functions."""

from fastnb._categorical_count import *  # noqa: F401,F403
from fastnb._categorical_count import _refuse_allocations_after as _refuse_allocations_after
