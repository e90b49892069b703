"""The fitted tables: counts and log probabilities of every category, and what the
predict kernel reads.

Both are computed from the features' counts by one kernel (``refresh_log_probs``),
for the (feature, class) pairs a call touched, so a call costs what it changed
(the log probabilities of a class change wherever its total does).
"""

from dataclasses import dataclass
from typing import Optional

import numpy as np

from ._columns import NumericBlock, ObjectBlock, raise_unhashable
from ._kernels import (
    LOOKUP, keys as key_kernels, tables as table_kernels, predict as predict_kernels,
)

__all__ = ["CountTable", "PredictTables", "build_tables", "refresh", "row_width_for",
           "table_rows"]

_LOOKUP_OF_KIND = {"code": LOOKUP["code"], "value": LOOKUP["hash"],
                   "bucket": LOOKUP["bucket"]}
KIND_OF_LOOKUP = {lookup: kind for kind, lookup in _LOOKUP_OF_KIND.items()}


# The small-call path of partial_fit (``SmallBatches``) looks up log(c + alpha) of
# whole counts c below this (128 KB, made once a model) rather than calling log:
# the counts of a stream's cells are mostly whole numbers of a few hundred
WHOLE_LOGS = 1 << 14


@dataclass(eq=False)
class CountTable:
    """Every feature's counts and log probabilities, side by side.

    Feature j's categories are the columns ``starts[j]:starts[j + 1]`` of the
    (k, C) arrays ``category_count`` and ``feature_log_prob``; the estimator's
    ``category_count_[j]`` and ``feature_log_prob_[j]`` are views of them. This is
    the layout of ``fastnb.cython_kernels``' categorical_accumulate/_jll.
    ``alpha`` is the smoothing the log probabilities were computed with.
    """

    starts: np.ndarray
    category_count: np.ndarray
    feature_log_prob: np.ndarray
    alpha: float
    # what the small-call path of partial_fit keeps between batches (a
    # ``SmallBatches``: the logs of every cell, the smoothed totals), made at its
    # first small call; None where a change of the counts or of alpha by another
    # path has made it stale. Never pickled: it holds views of the arrays above.
    small_batches: Optional[object] = None

    def __post_init__(self):
        # every feature flagged, read-only: what partial_fit's small-call path
        # refreshes (one array a model, not one a call)
        self.all_features = np.ones(self.starts.shape[0] - 1, dtype=np.uint8)
        self.all_features.flags.writeable = False

    def __getstate__(self):
        state = self.__dict__.copy()
        state["small_batches"] = None
        return state

    @property
    def n_categories(self):
        return np.diff(self.starts)

    def per_feature(self, array):
        """The (k, n_categories[j]) views of ``array``, one per feature."""
        starts = self.starts.tolist()
        return [array[:, a:b] for a, b in zip(starts[:-1], starts[1:])]


@dataclass(eq=False)
class PredictTables:
    """What ``categorical_predict`` reads, for d features and k classes.

    log_prob        float64: feature j's block starts at ``block_start[j]`` and has
                    n_categories[j] + 1 rows of ``row_width`` values: row r holds
                    log P(category r | class c) in column c, the last row the
                    smoothed probability of an unseen category; columns k and up
                    are zero padding
    block_start     intp (d,)
    row_width       k rounded up to 4 or 8 when k <= 8 (whole vector registers)
    lookup          int32 (d,): how a value finds its row, LOOKUP["code" | "hash" |
                    "bucket"] for an integer-code, value or hashed feature
    n_categories    intp (d,)
    hash_keys, hash_tags, hash_rows
                    the frozen open-addressing tables of the value features side
                    by side: a key (tag, key) in slot s has category index
                    hash_rows[s]; slot 0 is an empty one-slot table, which the other
                    features point at
    hash_start      intp (d,): where feature j's table starts
    hash_mask       intp (d,): its number of slots - 1 (a power of two - 1)
    class_log_prior float64 (k,)
    """

    log_prob: np.ndarray
    block_start: np.ndarray
    row_width: int
    lookup: np.ndarray
    n_categories: np.ndarray
    hash_keys: np.ndarray
    hash_tags: np.ndarray
    hash_rows: np.ndarray
    hash_start: np.ndarray
    hash_mask: np.ndarray
    class_log_prior: np.ndarray

    def __post_init__(self):
        # whether every feature is an integer-code feature (the small-call path of
        # partial_fit asks on every call; ``lookup`` is never changed in place)
        self.all_codes = bool(np.all(self.lookup == LOOKUP["code"]))

    def kind(self, j):
        """'code', 'value' or 'bucket': how feature j was fitted."""
        return KIND_OF_LOOKUP[int(self.lookup[j])]

    def feature_table(self, j):
        """Feature j's frozen table (keys, tags, rows), views; None if it has none."""
        if self.lookup[j] != LOOKUP["hash"]:
            return None
        start, stop = self.hash_start[j], self.hash_start[j] + self.hash_mask[j] + 1
        return (self.hash_keys[start:stop], self.hash_tags[start:stop],
                self.hash_rows[start:stop])

    def kernel_arguments(self):
        """The tables, in the order of categorical_predict's arguments."""
        return (self.lookup, self.n_categories, self.log_prob, self.block_start,
                self.row_width, self.hash_keys, self.hash_tags, self.hash_rows,
                self.hash_start, self.hash_mask, self.class_log_prior)


def row_width_for(k):
    return 4 if k <= 4 else 8 if k <= 8 else k


def build_tables(features, class_log_prior, alpha, n_threads):
    """Both tables for a list of ``FeatureState`` (every log probability computed)."""
    k, d = class_log_prior.shape[0], len(features)
    n_categories = np.array([f.counts.shape[1] for f in features], dtype=np.intp)
    starts = np.zeros(d + 1, dtype=np.intp)
    np.cumsum(n_categories, out=starts[1:])
    category_count = np.ascontiguousarray(
        np.concatenate([f.counts for f in features], axis=1), dtype=np.float64)
    counts = CountTable(starts, category_count, np.empty_like(category_count), alpha)

    row_width = row_width_for(k)
    block_size = (n_categories + 1) * row_width
    block_start = np.zeros(d, dtype=np.intp)
    np.cumsum(block_size[:-1], out=block_start[1:])
    tables = [(np.zeros(1, np.uint64), np.zeros(1, np.uint8), np.full(1, -1, np.int64))]
    hash_start = np.zeros(d, dtype=np.intp)
    hash_mask = np.zeros(d, dtype=np.intp)
    next_start = 1
    for j, feature in enumerate(features):
        if feature.kind == "value":
            tables.append(feature.table)
            hash_start[j], hash_mask[j] = next_start, feature.table[0].size - 1
            next_start += feature.table[0].size
    predict = PredictTables(
        log_prob=np.zeros(int(block_size.sum())),
        block_start=block_start,
        row_width=row_width,
        lookup=np.array([_LOOKUP_OF_KIND[f.kind] for f in features], dtype=np.int32),
        n_categories=n_categories,
        hash_keys=np.concatenate([t[0] for t in tables]),
        hash_tags=np.concatenate([t[1] for t in tables]),
        hash_rows=np.concatenate([t[2] for t in tables]),
        hash_start=hash_start,
        hash_mask=hash_mask,
        class_log_prior=np.ascontiguousarray(class_log_prior, dtype=np.float64),
    )
    refresh(counts, predict, alpha, np.ones(d, np.uint8), np.ones(k, np.uint8), n_threads)
    return counts, predict


def refresh(counts, predict, alpha, features, classes, n_threads):
    """Recompute, in place, the log probabilities of the features and classes
    flagged in ``features`` (d,) and ``classes`` (k,) (uint8)."""
    table_kernels.refresh_log_probs(
        counts.category_count, counts.starts, alpha, features, classes,
        counts.feature_log_prob, predict.log_prob, predict.block_start,
        predict.row_width, n_threads)


def table_rows(tables, columns, categories, names):
    """The table row of every value of X (``Columns`` of other than one numeric
    array): (n, d) int32, -1 missing, n_categories unseen."""
    rows = np.empty((columns.n_samples, columns.n_features), dtype=np.int32)
    for block in columns.blocks:
        if isinstance(block, NumericBlock):
            for col, j in enumerate(block.features):
                predict_kernels.resolve_numeric(
                    block.values, col, tables.lookup[j], tables.n_categories[j],
                    tables.hash_keys, tables.hash_tags, tables.hash_rows,
                    tables.hash_start[j], tables.hash_mask[j], rows, j)
        elif isinstance(block, ObjectBlock):
            if block.features.size == columns.n_features:  # all of X, in order
                _object_rows(tables, block.values, block.features, categories, names,
                             rows)
            else:
                rows[:, block.features] = _object_rows(
                    tables, block.values, block.features, categories, names)
        else:  # a pandas Categorical: the rows of its categories, then gathered
            j = block.feature
            lut = _object_rows(tables, block.categories.reshape(-1, 1),
                               np.array([j], dtype=np.intp), categories, names)[:, 0]
            positions = block.positions
            rows[:, j] = (np.where(positions < 0, -1, lut[np.maximum(positions, 0)])
                          if lut.size else -1)
    return rows


def _object_rows(tables, values, features, categories, names, out=None):
    if out is None:
        out = np.empty(values.shape, dtype=np.int32)
    try:
        key_kernels.resolve_object_rows(
            values, features, tables.lookup, tables.n_categories, tables.hash_keys,
            tables.hash_tags, tables.hash_rows, tables.hash_start, tables.hash_mask,
            categories, out)
    except TypeError as error:
        jj = int(error.args[1]) if len(error.args) > 1 else 0
        raise_unhashable(values[:, jj], int(features[jj]), names)
    return out
