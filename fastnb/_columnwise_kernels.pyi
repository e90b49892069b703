"""Type stubs of fastnb._columnwise_kernels: ColumnwiseNB's block combiner and
Arrow string factoriser."""

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

def string_codes(
    offsets: NDArray[np.int32] | NDArray[np.int64],
    data: NDArray[np.uint8],
    validity: NDArray[np.uint8] | None,
    bit_offset: int,
    codes: NDArray[np.int32],
    slots: NDArray[np.int32],
    first_rows: NDArray[np.int64],
) -> int: ...

def add_table_rows(
    total: NDArray[np.float64],
    table: NDArray[np.float64],
    codes: NDArray[np.int32],
    first_row: NDArray[np.intp],
    overwrite: bool,
    bias: NDArray[np.float64],
    finish: bool,
    mode: int,
    labels_out: NDArray[np.intp] | None,
    n_threads: int,
) -> None: ...

def stack_columns(
    columns: list[NDArray[np.float32] | NDArray[np.float64] | NDArray[np.uint8]],
    out: NDArray[np.float32] | NDArray[np.float64] | NDArray[np.uint8],
    start: int,
) -> None: ...
