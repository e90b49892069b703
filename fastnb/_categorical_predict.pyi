"""CategoricalNB's predict kernel (src_cython/_categorical_predict.pyx)."""

import numpy as np
from numpy.typing import NDArray

def _refuse_allocations_after(allowed: int) -> None: ...
def exp_nonpositive(x: NDArray[np.float64]) -> NDArray[np.float64]: ...
def categorical_predict(
    X: NDArray[np.generic],
    lookup: NDArray[np.int32],
    n_categories: NDArray[np.intp],
    log_prob: NDArray[np.float64],
    block_start: NDArray[np.intp],
    row_width: int,
    hash_keys: NDArray[np.uint64],
    hash_tags: NDArray[np.uint8],
    hash_rows: NDArray[np.int64],
    hash_start: NDArray[np.intp],
    hash_mask: NDArray[np.intp],
    class_log_prior: NDArray[np.float64],
    mode: int,
    labels_out: NDArray[np.intp] | None,
    out: NDArray[np.float64] | None,
    n_threads: int,
) -> None: ...
def resolve_numeric(
    X: NDArray[np.generic],
    col: int,
    lookup: int,
    n_categories: int,
    hash_keys: NDArray[np.uint64],
    hash_tags: NDArray[np.uint8],
    hash_rows: NDArray[np.int64],
    hash_start: int,
    hash_mask: int,
    out: NDArray[np.int32],
    out_col: int,
) -> None: ...
