"""Pick the fastest build of a kernel module that this CPU can run.

On x86-64 every floating-point kernel module is built twice: portably, and with
AVX2+FMA. Both round identically (the build forbids FMA contraction), so the choice
changes speed only. Set ``FASTNB_DISABLE_SIMD=1`` to force the portable builds.
"""

import importlib
import os

from . import _runtime

__all__ = ["load_kernels", "simd_level"]


def _use_avx2():
    if os.environ.get("FASTNB_DISABLE_SIMD", "") not in ("", "0"):
        return False
    return _runtime.cpu_has_avx2_fma()


def load_kernels(name):
    """Import ``fastnb.<name>_avx2`` when usable, else ``fastnb.<name>``."""
    if _use_avx2():
        try:
            return importlib.import_module(f"fastnb.{name}_avx2")
        except ImportError:  # a build without the variant (non-x86 or old compiler)
            pass
    return importlib.import_module(f"fastnb.{name}")


def simd_level():
    """'avx2' when the AVX2+FMA kernels are in use, else 'baseline'."""
    module = load_kernels("_gaussian_kernels")
    return "avx2" if module.__name__.endswith("_avx2") else "baseline"
