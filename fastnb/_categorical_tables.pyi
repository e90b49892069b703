"""CategoricalNB's hash and log-probability tables
(src_cython/_categorical_tables.pyx)."""

import numpy as np
from numpy.typing import NDArray

def _refuse_allocations_after(allowed: int) -> None: ...
def build_table(
    tags: NDArray[np.uint8], keys: NDArray[np.uint64]
) -> tuple[NDArray[np.uint64], NDArray[np.uint8], NDArray[np.int64], tuple[int, int] | None]: ...
def lookup_table(
    table_keys: NDArray[np.uint64],
    table_tags: NDArray[np.uint8],
    table_rows: NDArray[np.int64],
    tags: NDArray[np.uint8],
    keys: NDArray[np.uint64],
) -> NDArray[np.intp]: ...
def refresh_log_probs(
    category_count: NDArray[np.float64],
    starts: NDArray[np.intp],
    alpha: float,
    features: NDArray[np.uint8],
    classes: NDArray[np.uint8],
    feature_log_prob: NDArray[np.float64],
    table: NDArray[np.float64],
    block_start: NDArray[np.intp],
    row_width: int,
    n_threads: int,
) -> None: ...
def class_log_prior(
    class_count: NDArray[np.float64], out: NDArray[np.float64]
) -> None: ...

class SmallBatches:
    log_count: NDArray[np.float64]
    whole_logs: NDArray[np.float64]
    totals: NDArray[np.float64]
    labels: NDArray[np.int64] | None
    class_count: NDArray[np.float64] | None
    class_log_prior: NDArray[np.float64] | None
    alpha: float
    whole_counts: bool
    exact_totals: bool
    params_key: object
    max_rows: int
    def __init__(
        self,
        category_count: NDArray[np.float64],
        starts: NDArray[np.intp],
        alpha: float,
        feature_log_prob: NDArray[np.float64],
        table: NDArray[np.float64],
        block_start: NDArray[np.intp],
        row_width: int,
        labels: NDArray[np.generic],
        n_whole: int,
        max_rows: int,
    ) -> None: ...
    def bind(
        self, class_count: NDArray[np.float64], class_log_prior: NDArray[np.float64]
    ) -> None: ...
    def add(
        self,
        X: NDArray[np.generic],
        y: NDArray[np.int64],
        classes: NDArray[np.int64] | None,
        update_prior: bool,
        half_life: float = ...,
    ) -> bool: ...

def refresh_batch_cells(
    state: SmallBatches,
    X: NDArray[np.generic],
    y: NDArray[np.intp],
    batch_class_count: NDArray[np.float64],
) -> None: ...
