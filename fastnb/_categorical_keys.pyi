"""CategoricalNB keys of Python objects, with the GIL (src_cython/_categorical_keys.pyx).

An unhashable value raises TypeError whose ``args[1]`` is its column's position.
"""

from typing import Any

import numpy as np
from numpy.typing import NDArray

TAGS: dict[str, int]
LOOKUPS: dict[str, int]

def value_key(value: object) -> tuple[int, int] | None: ...
def encode_object_rows(
    X: NDArray[np.object_], cols: NDArray[np.intp], ids_out: NDArray[np.int32]
) -> list[tuple[list[Any], NDArray[np.uint8], NDArray[np.uint64]]]: ...
def bucket_object_rows(
    X: NDArray[np.object_], cols: NDArray[np.intp], n_buckets: int, ids_out: NDArray[np.int32]
) -> None: ...
def resolve_object_rows(
    X: NDArray[np.object_],
    features: NDArray[np.intp],
    lookup: NDArray[np.int32],
    n_categories: NDArray[np.intp],
    hash_keys: NDArray[np.uint64],
    hash_tags: NDArray[np.uint8],
    hash_rows: NDArray[np.int64],
    hash_start: NDArray[np.intp],
    hash_mask: NDArray[np.intp],
    categories: list[Any],
    out: NDArray[np.int32],
) -> None: ...
