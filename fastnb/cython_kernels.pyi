"""Type stubs of fastnb.cython_kernels, compiled from src_cython/cython_kernels.pyx.

Its functions are C-level (``from fastnb.cython_kernels cimport ...``, declared in
cython_kernels.pxd); from Python only the version and the exported capsules show.
"""

from typing import Any

API_VERSION: int
__pyx_capi__: dict[str, Any]
