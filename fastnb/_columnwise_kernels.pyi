"""Type stubs of fastnb._columnwise_kernels: ColumnwiseNB's block combiner."""

import numpy as np
from numpy.typing import NDArray

def add_block(
    total: NDArray[np.float64],
    jll: NDArray[np.float64] | None,
    bias: NDArray[np.float64],
    finish: bool,
    mode: int,
    labels_out: NDArray[np.intp] | None,
    n_threads: int,
) -> None: ...
