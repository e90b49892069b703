"""Per-feature state, and merging a batch into it.

A fitted feature is one of three kinds:

- ``"code"``: an integer-code feature; its categories are 0..n-1;
- ``"value"``: its categories are the distinct values seen with positive weight,
  sorted (numbers, then str, then bytes, then other objects), with their keys and
  the frozen hash table that finds a key's category index;
- ``"bucket"``: feature hashing; categories are buckets 0..B-1 (``categories_`` None).

``merge_feature`` adds a batch to a feature: either in place, when the batch's
categories are all known (``InPlace``: which columns get which counts), or as a new
``FeatureState`` whose categories are the union. A code feature that meets a value
which is not a code turns into a value feature, for good. Nothing here changes the
model: the estimator commits the results once every feature has merged.
"""

from dataclasses import dataclass

import numpy as np

from .._validation import plain
from ._columns import column_label
from ._counting import BucketBatch, CodeBatch, ValueBatch
from ._kernels import TAG, keys as key_kernels, tables as table_kernels

__all__ = ["FeatureState", "InPlace", "applied", "canonical_values", "merge_feature",
           "sorted_order", "value_feature"]


@dataclass
class FeatureState:
    """One feature of a model: its kind, categories and counts (k, n_categories).

    Value features also have the keys of their categories (``tags``, ``keys``) and
    their frozen table (``table``: keys, tags, rows), else these are None.
    """

    kind: str
    categories: object
    counts: np.ndarray
    tags: object = None
    keys: object = None
    table: object = None


@dataclass
class InPlace:
    """Add ``counts`` (k, m) to the columns ``columns`` (m,) of the feature's
    counts: its categories do not change."""

    columns: np.ndarray
    counts: np.ndarray


def merge_feature(old, batch, k, min_categories, j, names):
    """Feature j after one batch: ``InPlace`` or a new ``FeatureState``.

    ``old`` is the feature's state (None on a first fit); ``min_categories`` is this
    feature's minimum (None when unset).
    """
    if isinstance(batch, BucketBatch):
        if old is not None:
            return InPlace(np.arange(batch.counts.shape[1], dtype=np.intp), batch.counts)
        return FeatureState("bucket", None, batch.counts.copy())
    codes_required = min_categories is not None
    if (old is None or old.kind == "code") and (
            isinstance(batch, CodeBatch) or batch.code_capable(codes_required)):
        return _merge_codes(old, batch if isinstance(batch, CodeBatch) else batch.as_codes(),
                            k, min_categories or 0)
    return _merge_values(old, batch if isinstance(batch, ValueBatch) else batch.as_values(),
                         k, j, names)


def _merge_codes(old, batch, k, min_categories):
    n_old = 0 if old is None else old.counts.shape[1]
    n_batch = batch.counts.shape[1]
    if old is not None and max(n_batch, min_categories) <= n_old:
        return InPlace(np.arange(n_batch, dtype=np.intp), batch.counts)
    n_new = max(n_old, n_batch, min_categories)
    counts = np.zeros((k, n_new))
    if old is not None:
        counts[:, :n_old] = old.counts
    counts[:, :n_batch] += batch.counts
    return FeatureState("code", np.arange(n_new, dtype=np.int64), counts)


def _merge_values(old, batch, k, j, names):
    if old is None:
        old = FeatureState("value", np.empty(0, dtype=np.int64), np.zeros((k, 0)),
                           np.empty(0, dtype=np.uint8), np.empty(0, dtype=np.uint64))
    elif old.kind == "code":
        index = np.flatnonzero(old.counts.sum(axis=0) > 0)
        old = FeatureState("value", index.astype(np.int64), old.counts[:, index],
                           np.full(index.size, TAG["int"], dtype=np.uint8),
                           index.astype(np.uint64))
    table = old.table
    if table is None:
        table = table_kernels.build_table(old.tags, old.keys)[:3]
    position = table_kernels.lookup_table(*table, batch.tags, batch.keys)
    known = position >= 0
    # str/bytes/other keys are 64-bit hashes: compare the values themselves.
    if batch.values is not None:
        for i in np.flatnonzero(known & (batch.tags >= TAG["str"])):
            if not bool(old.categories[position[i]] == batch.values[i]):
                raise ValueError(
                    f"64-bit key collision in feature {column_label(names, j)} "
                    f"between {plain(old.categories[position[i]])!r} and "
                    f"{plain(batch.values[i])!r}."
                )
    # A value is a category once it has carried weight: zero-weight samples are as
    # if absent (scikit-learn's sample-weight equivalence).
    new = np.flatnonzero(~known & (batch.counts.sum(axis=0) > 0))
    if new.size == 0 and old.table is not None:
        return InPlace(position[known], batch.counts[:, known])
    n_old = old.categories.size
    new_values = canonical_values(
        batch.tags[new], batch.keys[new],
        None if batch.values is None else [batch.values[i] for i in new])
    categories = _concatenate(old.categories, new_values)
    tags = np.concatenate([old.tags, batch.tags[new]])
    keys = np.concatenate([old.keys, batch.keys[new]])
    counts = np.zeros((k, categories.size))
    counts[:, :n_old] = old.counts
    counts[:, n_old:] = batch.counts[:, new]
    counts[:, position[known]] += batch.counts[:, known]
    if new.size:
        order = sorted_order(categories, tags)
        categories, tags, keys = categories[order], tags[order], keys[order]
        counts = counts[:, order]
    table_keys, table_tags, table_rows, duplicate = table_kernels.build_table(tags, keys)
    if duplicate is not None:
        a, b = duplicate
        raise ValueError(
            f"64-bit key collision in feature {column_label(names, j)} "
            f"between {plain(categories[a])!r} and {plain(categories[b])!r}."
        )
    return FeatureState("value", categories, np.ascontiguousarray(counts), tags, keys,
                        (table_keys, table_tags, table_rows))


def _concatenate(old, new):
    if old.size == 0:
        return new
    if new.size == 0:
        return old
    if old.dtype == new.dtype and old.dtype != object:
        return np.concatenate([old, new])
    values = np.empty(old.size + new.size, dtype=object)
    values[:old.size] = old.tolist() if old.dtype != object else old
    values[old.size:] = new.tolist() if new.dtype != object else new
    return values


def canonical_values(tags, keys, objects):
    """The category values for (tag, key) pairs, canonical for numbers.

    Integers (and bools and integral floats) become int, other floats float; strings
    str and bytes (subclasses such as np.str_ included); other objects are kept. All
    ints: an int64 array; all non-integral floats: float64; anything else: object.
    """
    m = tags.shape[0]
    if m == 0:
        return np.empty(0, dtype=np.int64)
    if np.all(tags == TAG["int"]):
        return keys.view(np.int64).copy()
    if np.all(tags == TAG["float"]):
        return keys.view(np.float64).copy()
    out = np.empty(m, dtype=object)
    as_int = keys.view(np.int64)
    as_float = keys.view(np.float64)
    for i in range(m):
        tag = tags[i]
        if tag == TAG["int"]:
            out[i] = int(as_int[i])
        elif tag == TAG["uint"]:
            out[i] = int(keys[i])
        elif tag == TAG["float"]:
            out[i] = float(as_float[i])
        elif tag == TAG["str"]:
            out[i] = str(objects[i])  # np.str_ and other str subclasses: plain str
        elif tag == TAG["bytes"]:
            out[i] = bytes(objects[i])
        else:
            out[i] = objects[i]
    return out


def _sort_key(tag, value):
    if tag <= TAG["float"] or tag == TAG["bigint"]:
        return (0, value)
    if tag == TAG["str"]:
        return (1, str(value))
    if tag == TAG["bytes"]:
        return (2, bytes(value))
    return (3, type(value).__module__, type(value).__qualname__, repr(value))


def sorted_order(values, tags):
    """The order that sorts categories: numbers, then str, then bytes, then others."""
    if values.dtype != object:
        return np.argsort(values, kind="stable")
    keys = [_sort_key(tags[i], values[i]) for i in range(values.shape[0])]
    return np.array(sorted(range(len(keys)), key=keys.__getitem__), dtype=np.intp)


def value_feature(values, counts, j):
    """A value feature from its category values (as a saved file lists them): keys
    recomputed, categories checked distinct and sorted."""
    objects = np.empty(len(values), dtype=object)
    objects[:] = values
    ids = np.empty((1, len(values)), dtype=np.int32)
    distinct, tags, keys = key_kernels.encode_object_rows(
        objects.reshape(-1, 1), np.zeros(1, dtype=np.intp), ids)[0]
    if len(distinct) != len(values):
        raise ValueError(f"the categories of feature {j} are not distinct")
    categories = canonical_values(tags, keys, objects)
    if not np.array_equal(sorted_order(categories, tags), np.arange(len(values))):
        raise ValueError(f"the categories of feature {j} are not sorted")
    table_keys, table_tags, table_rows, duplicate = table_kernels.build_table(tags, keys)
    if duplicate is not None:
        raise ValueError(f"64-bit key collision in feature {j}")
    return FeatureState("value", categories, counts, tags, keys,
                        (table_keys, table_tags, table_rows))


def applied(old, update):
    """The FeatureState of ``old`` after an ``InPlace`` update (on a copy), or the
    update itself when it already is a FeatureState."""
    if not isinstance(update, InPlace):
        return update
    counts = np.array(old.counts, dtype=np.float64, order="C")
    counts[:, update.columns] += update.counts
    return FeatureState(old.kind, old.categories, counts, old.tags, old.keys, old.table)


def _at(min_categories, j):
    return None if min_categories is None else int(min_categories[j])
