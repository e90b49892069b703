"""Counting: what one fit or partial_fit call learns about each feature (a batch).

The kernels run once per block of columns (fastnb/_categorical/_columns.py) and
give one batch per feature, its counts class-major like ``category_count_``:

- ``CodeBatch``: an integer-code feature's counts of codes 0..n_codes-1;
- ``ValueBatch``: the distinct keys seen, in first-seen order, and their counts;
- ``BucketBatch``: feature hashing's counts of buckets 0..B-1.
"""

from dataclasses import dataclass

import numpy as np

from .._validation import plain
from ._columns import NumericBlock, ObjectBlock, column_label, raise_unhashable
from ._kernels import TAG, count as count_kernels, keys as key_kernels

__all__ = ["CODE_LIMIT", "BucketBatch", "CodeBatch", "ValueBatch", "chunk_count",
           "count_batches"]

# A feature whose values are all integers in [0, CODE_LIMIT) is an integer-code
# feature: its categories are 0..n-1, laid out exactly as scikit-learn's. The limit
# is a constant (never a function of the data), so that any split of the data into
# partial_fit batches gives the same layout.
CODE_LIMIT = 1 << 16
# Integer columns whose values all lie in [0, FUSED_CODE_CAP) are checked and
# counted in a single pass over X (the buffers stay cache-sized); others take a
# range pass, then a count.
FUSED_CODE_CAP = 64

# Fit chunks for the dense code counts: at least this many rows each, at most this
# many chunks, and at most this much scratch memory. Depends on the data only.
FIT_MIN_ROWS_PER_CHUNK = 8192
FIT_MAX_CHUNKS = 64
FIT_SCRATCH_BYTES = 32 << 20


def chunk_count(n_samples, n_cells):
    """Row chunks of a dense count of n_cells counters (one buffer per chunk)."""
    by_rows = n_samples // FIT_MIN_ROWS_PER_CHUNK
    by_memory = FIT_SCRATCH_BYTES // max(1, 8 * n_cells)
    return int(max(1, min(FIT_MAX_CHUNKS, by_rows, by_memory)))


@dataclass
class CodeBatch:
    """Counts (k, n_codes) of the codes 0..n_codes-1 of an integer-code feature."""

    counts: np.ndarray

    def as_values(self):
        """The codes that carry weight, as values."""
        index = np.flatnonzero(self.counts.sum(axis=0) > 0)
        return ValueBatch(np.full(index.size, TAG["int"], np.uint8),
                          index.astype(np.uint64), None, self.counts[:, index])


@dataclass
class ValueBatch:
    """Distinct keys (tags, keys) in first-seen order and their counts (k, m).

    ``values`` holds the Python objects the keys came from (object input), or is
    None (numeric input: a key gives its value back). ``values_only``: the feature
    was a value feature of a model being merged, so it never turns into codes.
    """

    tags: np.ndarray
    keys: np.ndarray
    values: object
    counts: np.ndarray
    values_only: bool = False

    def code_capable(self, codes_required):
        """Whether every value is an integer code (< CODE_LIMIT unless required)."""
        if self.values_only or not np.all(self.tags == TAG["int"]):
            return False
        if self.keys.size == 0:
            return True
        as_int = self.keys.view(np.int64)
        if as_int.min() < 0:
            return False
        return codes_required or as_int.max() < CODE_LIMIT

    def as_codes(self):
        codes = self.keys.view(np.int64)
        n_codes = int(codes.max()) + 1 if codes.size else 0
        counts = np.zeros((self.counts.shape[0], n_codes))
        counts[:, codes] = self.counts
        return CodeBatch(counts)


@dataclass
class BucketBatch:
    """Counts (k, B) of the buckets of a hashed feature."""

    counts: np.ndarray


def count_batches(columns, class_index, weights, k, *, code_allowed, min_categories,
                  hash_buckets, names, n_threads):
    """Run the counting kernels over every block: one batch per feature.

    ``code_allowed`` (d,) says which features may be counted as codes (those that
    are not value features already, nor asked to be read by value: their batches
    are ``values_only``); ``min_categories`` declares that every
    feature must be codes.
    """
    if hash_buckets is not None:
        return _count_buckets(columns, class_index, weights, k, int(hash_buckets),
                              names, n_threads)
    batches = [None] * columns.n_features
    for block in columns.blocks:
        if isinstance(block, NumericBlock):
            _count_numeric(block, class_index, weights, k, code_allowed, min_categories,
                           names, n_threads, batches)
            continue
        for j, ids, (values, tags, keys) in _keyed_objects(block, columns.n_samples,
                                                           names):
            counts = count_kernels.count_ids(ids, len(values), class_index, weights, k)
            batches[j] = ValueBatch(tags, keys, values, counts)
    for j in np.flatnonzero(~code_allowed):
        # a feature that may not be codes stays values, even if its values fit
        if isinstance(batches[j], ValueBatch):
            batches[j].values_only = True
    if min_categories is not None:
        for j, batch in enumerate(batches):
            if isinstance(batch, ValueBatch) and not batch.code_capable(True):
                _raise_not_codes(j, names, batch=batch)
    return batches


def _count_numeric(block, y, weights, k, code_allowed, min_categories, names,
                   n_threads, batches):
    X, features = block.values, block.features
    n, m = X.shape
    allowed = code_allowed[features]
    todo = np.arange(m)
    if X.dtype.kind in "iu" and allowed.any():
        # Small codes are checked and counted in one pass; columns with other values
        # take the two-pass route below.
        counts, n_codes, over = count_kernels.count_codes_capped(
            X, FUSED_CODE_CAP, y, weights, k, chunk_count(n, m * FUSED_CODE_CAP * k),
            n_threads)
        done = allowed & ~over
        for col in np.flatnonzero(done):
            batches[features[col]] = CodeBatch(counts[:, col, :n_codes[col]])
        todo = np.flatnonzero(~done)
        if todo.size == 0:
            return
    if X.dtype.kind in "iu":
        umax = count_kernels.int_umax(X, chunk_count(n, m), n_threads)
        lo = np.where(umax < np.uint64(1 << 63), 0.0, -1.0)
        hi = np.where(lo < 0, np.inf, umax.astype(np.float64))
        integral = np.ones(m, dtype=bool)
    else:
        lo, hi, integral = count_kernels.column_ranges(X)
    is_code = integral & (lo >= 0) & ((hi < CODE_LIMIT) | (min_categories is not None))
    is_code |= lo > hi  # no value at all: an empty code feature
    if min_categories is not None and not is_code.all():
        bad = int(np.flatnonzero(~is_code)[0])
        _raise_not_codes(features[bad], names, lowest=float(np.nanmin(X[:, bad])),
                         integral=integral[bad])
    is_code = (is_code & allowed)[todo]
    code_cols, hash_cols = todo[is_code], todo[~is_code].astype(np.intp)
    if code_cols.size:
        n_categories = np.zeros(m, dtype=np.intp)
        n_categories[code_cols] = np.where(lo[code_cols] > hi[code_cols], 0,
                                           hi[code_cols] + 1)
        starts = np.concatenate([[0], np.cumsum(n_categories)[:-1]]).astype(np.intp)
        total = int(n_categories.sum())
        counts = count_kernels.count_codes(X, n_categories, starts, total, y, weights,
                                           k, chunk_count(n, total * k), n_threads)
        for col in code_cols:
            start = starts[col]
            batches[features[col]] = CodeBatch(counts[:, start:start + n_categories[col]])
    if hash_cols.size:
        found = count_kernels.hash_count(X, hash_cols, y, weights, k, n_threads)
        for col, (tags, keys, counts) in zip(hash_cols, found):
            batches[features[col]] = ValueBatch(tags, keys, None, counts)


def _keyed_objects(block, n_samples, names):
    """(feature, ids (n,), (values, tags, keys)) of each column of an object block or
    pandas Categorical: the id of each row's value among the column's distinct
    values (-1 missing), keyed with the GIL."""
    if isinstance(block, ObjectBlock):
        ids = np.empty((block.features.size, n_samples), dtype=np.int32)
        found = _encode(block.values, block.features, ids, names)
        return [(int(j), ids[jj], found[jj]) for jj, j in enumerate(block.features)]
    # A pandas Categorical: key each category once, then gather the rows' ids.
    category_ids = np.empty((1, block.categories.size), dtype=np.int32)
    found = _encode(block.categories.reshape(-1, 1), [block.feature], category_ids,
                    names)
    ids = np.empty(n_samples, dtype=np.int32)
    count_kernels.gather_ids(category_ids[0], block.positions, ids)
    return [(block.feature, ids, found[0])]


def _encode(values, features, ids, names):
    try:
        return key_kernels.encode_object_rows(
            values, np.arange(values.shape[1], dtype=np.intp), ids)
    except TypeError as error:
        jj = int(error.args[1]) if len(error.args) > 1 else 0
        raise_unhashable(values[:, jj], int(features[jj]), names)


def _count_buckets(columns, y, weights, k, n_buckets, names, n_threads):
    """Feature hashing: (k, n_buckets) counts per feature, no per-value state."""
    n = columns.n_samples
    batches = [None] * columns.n_features
    for block in columns.blocks:
        if isinstance(block, NumericBlock):
            counts = count_kernels.bucket_count(block.values, y, weights, k, n_buckets,
                                                n_threads)
            for col, j in enumerate(block.features):
                batches[int(j)] = BucketBatch(counts[col])
            continue
        if isinstance(block, ObjectBlock):
            values, features = block.values, block.features
        else:
            values, features = block.categories.reshape(-1, 1), [block.feature]
        ids = np.empty((len(features), values.shape[0]), dtype=np.int32)
        try:
            key_kernels.bucket_object_rows(
                values, np.arange(len(features), dtype=np.intp), n_buckets, ids)
        except TypeError as error:
            jj = int(error.args[1]) if len(error.args) > 1 else 0
            raise_unhashable(values[:, jj], int(features[jj]), names)
        if not isinstance(block, ObjectBlock):
            rows = np.empty(n, dtype=np.int32)
            count_kernels.gather_ids(ids[0], block.positions, rows)
            ids = rows.reshape(1, -1)
        for jj, j in enumerate(features):
            batches[int(j)] = BucketBatch(
                count_kernels.count_ids(ids[jj], n_buckets, y, weights, k))
    return batches


def _raise_not_codes(j, names, *, lowest=None, integral=True, batch=None):
    if batch is not None:
        as_int = batch.keys.view(np.int64)
        bad = [i for i in range(batch.tags.size)
               if batch.tags[i] != TAG["int"] or as_int[i] < 0]
        value = batch.values[bad[0]] if batch.values is not None else as_int[bad[0]]
        what = f"the value {plain(value)!r}"
    elif not integral:
        what = "a non-integer value"
    else:
        what = f"the negative code {lowest:g}"
    raise ValueError(
        f"min_categories is set, so X must hold integer category codes 0..n-1, "
        f"but feature {column_label(names, j)} has {what}. Negative codes and "
        "non-integer values are only accepted with min_categories=None."
    )
