"""CategoricalNB fit kernels (src_cython/_categorical_count.pyx), without the GIL.

X is read as it is in any of the kernel dtypes (int8..uint64, float32, float64);
class indices ``y`` are intp; counts are float64, class-major (k, ...).
"""

import numpy as np
from numpy.typing import NDArray

def _refuse_allocations_after(allowed: int) -> None: ...
def column_ranges(
    X: NDArray[np.generic],
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.bool_]]: ...
def int_umax(X: NDArray[np.integer], n_chunks: int, n_threads: int) -> NDArray[np.uint64]: ...
def count_codes_capped(
    X: NDArray[np.integer],
    cap: int,
    y: NDArray[np.intp],
    sample_weight: NDArray[np.float64] | None,
    k: int,
    n_chunks: int,
    n_threads: int,
) -> tuple[NDArray[np.float64], NDArray[np.intp], NDArray[np.bool_]]: ...
def count_codes(
    X: NDArray[np.generic],
    n_categories: NDArray[np.intp],
    starts: NDArray[np.intp],
    total: int,
    y: NDArray[np.intp],
    sample_weight: NDArray[np.float64] | None,
    k: int,
    n_chunks: int,
    n_threads: int,
) -> NDArray[np.float64]: ...
def accumulate_codes(
    X: NDArray[np.generic],
    y: NDArray[np.intp],
    sample_weight: NDArray[np.float64] | None,
    n_categories: NDArray[np.intp],
    starts: NDArray[np.intp],
    category_count: NDArray[np.float64],
    decay: float = ...,
) -> bool: ...
def hash_count(
    X: NDArray[np.generic],
    cols: NDArray[np.intp],
    y: NDArray[np.intp],
    sample_weight: NDArray[np.float64] | None,
    k: int,
    n_threads: int,
) -> list[tuple[NDArray[np.uint8], NDArray[np.uint64], NDArray[np.float64]]]: ...
def bucket_count(
    X: NDArray[np.generic],
    y: NDArray[np.intp],
    sample_weight: NDArray[np.float64] | None,
    k: int,
    n_buckets: int,
    n_threads: int,
) -> NDArray[np.float64]: ...
def count_ids(
    ids: NDArray[np.int32],
    n_ids: int,
    y: NDArray[np.intp],
    sample_weight: NDArray[np.float64] | None,
    k: int,
) -> NDArray[np.float64]: ...
def gather_ids(
    lut: NDArray[np.int32], positions: NDArray[np.int64], ids_out: NDArray[np.int32]
) -> None: ...
def add_columns(
    category_count: NDArray[np.float64],
    start: int,
    columns: NDArray[np.intp],
    batch: NDArray[np.float64],
) -> None: ...
