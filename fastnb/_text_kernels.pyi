"""Type stub of the compiled module fastnb._text_kernels (src_cython/_text_kernels.pyx)."""

from collections.abc import Iterable

import numpy as np
from numpy.typing import NDArray

MODE_HASH: int
MODE_FIT: int
MODE_FIXED: int
ANALYZER_WORD: int
ANALYZER_CHAR: int
ANALYZER_CHAR_WB: int
FLAG_WORD: int
FLAG_SPACE: int
FLAG_SPECIAL: int
FLAG_LOWER_WORD: int
SIGMA_IGNORABLE: int
SIGMA_CASED: int
STATUS_NEED_SIGMA: int
STATUS_SURROGATE: int

class TermSet:
    max_value: int
    def __init__(self, terms: Iterable[object], values: Iterable[int] | None = ...) -> None: ...
    def __len__(self) -> int: ...

def exact_str_chars(docs: Iterable[object]) -> int: ...
def char_classes() -> NDArray[np.uint8]: ...
def analyze(
    docs: list[str],
    mode: int,
    analyzer: int,
    min_n: int,
    max_n: int,
    min_token_len: int,
    lower: bool,
    skip_combining: bool,
    info: NDArray[np.uint32],
    sigma: NDArray[np.uint8],
    combining: NDArray[np.uint8],
    expand: NDArray[np.uint32],
    stop: TermSet | None,
    fixed: TermSet | None,
    n_features: int,
    alternate_sign: bool,
    n_threads: int,
    wide_counts: bool = ...,
) -> tuple[int, object]: ...
def hash_features(
    rows: Iterable[Iterable[object]], n_features: int, alternate_sign: bool
) -> tuple[NDArray[np.int64], NDArray[np.int32], NDArray[np.int32], int]: ...
def finish_values(
    counts: NDArray[np.int32] | None,
    indptr: NDArray[np.int64],
    out: NDArray[np.float32] | NDArray[np.float64],
    binary: bool,
    norm: int,
    n_threads: int,
) -> None: ...
