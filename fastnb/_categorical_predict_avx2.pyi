"""The AVX2+FMA build of fastnb._categorical_predict: the same functions."""

from fastnb._categorical_predict import *  # noqa: F401,F403
from fastnb._categorical_predict import _refuse_allocations_after as _refuse_allocations_after
