"""The file layout of a fitted CategoricalNB (``fastnb.save``; see fastnb/_persist.py).

d features, k classes, C = sum of n_categories_ count columns, V category values of
value features, T bytes of text:

- ``class_count_`` (k,);
- ``feature_kind`` (d,): 0 integer codes (categories 0..n-1), 1 values (sorted
  distinct values, listed in the value_* arrays, feature after feature), 2 hash
  buckets;
- ``n_categories_`` (d,) and ``category_count`` (k, C): each feature's counts,
  side by side;
- a category value i is (``value_kind[i]``, ``value_int[i]``, ``value_float[i]``,
  text ``value_text[value_text_end[i-1]:value_text_end[i]]``): kind 0 an int64 in
  value_int, 1 a float64 in value_float, 2 str (UTF-8), 3 bytes, 4 an int beyond
  int64 (decimal text).

Hash keys and lookup tables are recomputed on load, by the same code as fit, and
the categories are checked sorted, distinct and consistent with the counts; the
rules the kernels rely on (each n_categories_ in [0, min(C, 2**31 - 2)], their
sum exactly C, ...) are listed in ``check_state_invariants``.

Pickles of fastnb 0.1 (whose fitted state had other private attributes) are
turned into today's state by ``state_of_fastnb_0_1``.
"""

import math
import warnings

import numpy as np

from .. import _invariants as rules
from .._params import resolve_alpha
from ._features import FeatureState, value_feature
from ._tables import build_tables

__all__ = ["STATE_SPEC", "check_state_invariants", "features_from_state", "state_arrays", "state_of_fastnb_0_1"]

STATE_SPEC = {
    "class_count_": (("k",), ("finite", "nonneg")),
    "feature_kind": (("d",), ("nonneg",)),
    "n_categories_": (("d",), ("nonneg",)),
    "category_count": (("k", "c"), ("finite", "nonneg")),
    "value_kind": (("v",), ("nonneg",)),
    "value_int": (("v",), ()),
    "value_float": (("v",), ()),
    "value_text_end": (("v",), ("nonneg",)),
    "value_text": (("t",), ("uint8",)),
}

_KIND_NAMES = ("code", "value", "bucket")
_KIND_CODES = {name: code for code, name in enumerate(_KIND_NAMES)}
# How one category value of a value feature is written.
_VALUE_INT, _VALUE_FLOAT, _VALUE_STR, _VALUE_BYTES, _VALUE_BIGINT = range(5)
_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1


def _value_to_file(value, j):
    """(kind, int64, float64, bytes) of one category value, or a ValueError."""
    if isinstance(value, (bool, np.bool_)):
        value = int(value)
    if isinstance(value, (int, np.integer)):
        value = int(value)
        if _INT64_MIN <= value <= _INT64_MAX:
            return _VALUE_INT, value, 0.0, b""
        return _VALUE_BIGINT, 0, 0.0, str(value).encode("ascii")
    if isinstance(value, (float, np.floating)):
        return _VALUE_FLOAT, 0, float(value), b""
    if isinstance(value, str):
        return _VALUE_STR, 0, 0.0, str(value).encode("utf-8", "surrogatepass")
    if isinstance(value, bytes):
        return _VALUE_BYTES, 0, 0.0, bytes(value)
    raise ValueError(
        f"Cannot save a CategoricalNB whose feature {j} has the category {value!r} "
        f"of type {type(value).__name__}: only ints, floats, str and bytes "
        "categories can be saved without pickle."
    )


def state_arrays(kinds, categories, category_count, class_count):
    """The model as plain arrays: ``kinds`` (d,) 'code'/'value'/'bucket', the
    categories_ and category_count_ lists and class_count_."""
    value_kind, value_int, value_float, text_end, text = [], [], [], [], []
    end = 0
    for j, kind in enumerate(kinds):
        if kind != "value":
            continue
        for value in categories[j]:
            code, as_int, as_float, blob = _value_to_file(value, j)
            value_kind.append(code)
            value_int.append(as_int)
            value_float.append(as_float)
            text.append(blob)
            end += len(blob)
            text_end.append(end)
    counts = [np.asarray(c, dtype=np.float64) for c in category_count]
    return {
        "class_count_": np.asarray(class_count, dtype=np.float64),
        "feature_kind": np.array([_KIND_CODES[kind] for kind in kinds], dtype=np.int64),
        "n_categories_": np.array([c.shape[1] for c in counts], dtype=np.int64),
        "category_count": np.ascontiguousarray(np.concatenate(counts, axis=1)),
        "value_kind": np.array(value_kind, dtype=np.int64),
        "value_int": np.array(value_int, dtype=np.int64),
        "value_float": np.array(value_float, dtype=np.float64),
        "value_text_end": np.array(text_end, dtype=np.int64),
        "value_text": np.frombuffer(b"".join(text), dtype=np.uint8).copy(),
    }


def _values_from_file(arrays):
    """The category values of the value features, in file order, as a list."""
    kind, as_int, as_float = arrays["value_kind"], arrays["value_int"], arrays[
        "value_float"]
    ends, text = arrays["value_text_end"], arrays["value_text"].tobytes()
    m = kind.shape[0]
    if not (as_int.shape[0] == as_float.shape[0] == ends.shape[0] == m):
        raise ValueError("the value_* arrays have different lengths")
    starts = np.concatenate([[0], ends[:-1]]) if m else ends
    if m and (np.any(ends < starts) or ends[-1] != len(text)):
        raise ValueError("value_text_end is not a valid offset table")
    if not m and len(text):
        raise ValueError("value_text holds bytes of no value")
    values = []
    for i in range(m):
        code, blob = int(kind[i]), text[starts[i]:ends[i]]
        if code not in (_VALUE_STR, _VALUE_BYTES, _VALUE_BIGINT) and blob:
            raise ValueError("a numeric category value has text")
        if code == _VALUE_INT:
            values.append(int(as_int[i]))
        elif code == _VALUE_FLOAT:
            value = float(as_float[i])
            # Integral floats in [-2**63, 2**64) are int categories, NaN is
            # missing: neither is a float category.
            if value != value or (-(2.0**63) <= value < 2.0**64
                                  and value == math.floor(value)):
                raise ValueError(f"{value!r} is not a float category")
            values.append(value)
        elif code == _VALUE_STR:
            values.append(blob.decode("utf-8", "surrogatepass"))
        elif code == _VALUE_BYTES:
            values.append(blob)
        elif code == _VALUE_BIGINT:
            decoded = blob.decode("ascii")
            value = int(decoded)
            if str(value) != decoded or _INT64_MIN <= value <= _INT64_MAX:
                raise ValueError(f"{decoded!r} is not a big integer category")
            values.append(value)
        else:
            raise ValueError(f"unknown category value kind {code}")
        if (code != _VALUE_INT and as_int[i] != 0) or (
                code != _VALUE_FLOAT and as_float[i] != 0):
            raise ValueError("a category value has stray fields")
    return values


def check_state_invariants(arrays, n_features):
    """The rules of a saved CategoricalNB state that its kernels rely on (a
    ValueError names the member and the rule), and each feature's first count
    column (d + 1,), exact:

    - class_count_ sums to a positive finite total;
    - feature_kind in {0, 1, 2};
    - every n_categories_ in [0, min(C, 2**31 - 2)] (C: the count columns; the
      predict tables index a feature's rows, n_categories_ + 1 of them, by
      int32), and their sum exactly C: the bounds are checked before anything
      is summed, so the int64 cumulative sum is exact (at most d * C < 2**63;
      summed in wrapping int64 before, values such as [2**63-1-V, V, 2**63-1,
      C+2] passed and gave a feature zero columns but V categories);
    - the value features' n_categories_ sum to the number of category values;
    - category_count's total finite.

    The counts of each feature within class_count_ of their class, and the
    category values sorted and distinct, are checked as the features are
    rebuilt (``features_from_state``)."""
    rules.positive_total("class_count_", arrays["class_count_"])
    kinds, n_categories = arrays["feature_kind"], arrays["n_categories_"]
    rules.check(not np.any((kinds < 0) | (kinds >= len(_KIND_NAMES))), "feature_kind",
                "must be 0 (codes), 1 (values) or 2 (hash buckets)")
    all_counts = arrays["category_count"]
    n_columns = all_counts.shape[1]
    largest = min(n_columns, rules.INT32_MAX - 1)
    rules.check(not np.any((n_categories < 0) | (n_categories > largest)),
                "n_categories_", f"must lie in [0, {largest}] (the count columns)")
    rules.check(n_features * max(1, n_columns) <= rules.INT64_MAX, "n_categories_",
                "too many features and columns")
    bounds = np.zeros(n_features + 1, dtype=np.int64)
    np.cumsum(n_categories, out=bounds[1:])
    rules.check(int(bounds[-1]) == n_columns, "n_categories_",
                "must sum to the columns of category_count")
    n_values = arrays["value_kind"].shape[0]
    is_value = kinds == _KIND_CODES["value"]
    rules.check(int(np.sum(n_categories[is_value])) == n_values, "n_categories_",
                "of the value features must sum to the number of category values")
    rules.finite_sum("category_count", all_counts)
    return bounds


def features_from_state(arrays, n_features, *, hash_buckets, min_categories):
    """The features of a saved model, every field checked (ValueError names the
    problem); ``min_categories`` is the resolved (d,) array or None."""
    bounds = check_state_invariants(arrays, n_features)
    class_count = arrays["class_count_"]
    kinds, n_categories = arrays["feature_kind"], arrays["n_categories_"]
    if hash_buckets is not None:
        if np.any(kinds != _KIND_CODES["bucket"]) or np.any(n_categories != hash_buckets):
            raise ValueError("hash_buckets is set: every feature must have "
                             "hash_buckets buckets")
    elif np.any(kinds == _KIND_CODES["bucket"]):
        raise ValueError("a bucket feature without hash_buckets")
    if min_categories is not None and (np.any(kinds != _KIND_CODES["code"])
                                       or np.any(n_categories < min_categories)):
        raise ValueError("min_categories is set: every feature must be integer "
                         "codes with at least min_categories categories")
    all_counts = arrays["category_count"]
    values = _values_from_file(arrays)
    is_value = kinds == _KIND_CODES["value"]
    value_bounds = np.zeros(n_features + 1, dtype=np.int64)
    np.cumsum(np.where(is_value, n_categories, 0), out=value_bounds[1:])
    features = []
    for j in range(n_features):
        counts = np.ascontiguousarray(all_counts[:, bounds[j]:bounds[j + 1]])
        if np.any(counts.sum(axis=1) > class_count * (1 + 1e-9) + 1e-9):
            raise ValueError(f"category_count of feature {j} exceeds class_count_")
        kind = _KIND_NAMES[int(kinds[j])]
        if kind == "code":
            features.append(FeatureState(
                "code", np.arange(counts.shape[1], dtype=np.int64), counts))
        elif kind == "bucket":
            features.append(FeatureState("bucket", None, counts))
        else:
            features.append(value_feature(
                values[value_bounds[j]:value_bounds[j + 1]], counts, j))
    return class_count, features


def state_of_fastnb_0_1(state):
    """The pickled state of a fastnb 0.1 CategoricalNB in today's layout: its
    features as they were, the tables rebuilt from them."""
    state = dict(state)
    kinds = state.pop("_kinds")
    tags, keys, tables = state.pop("_cat_tags"), state.pop("_cat_keys"), state.pop(
        "_tables")
    for name in ("_lp", "_lp_off", "_kp", "_modes", "_n_cat", "_tkeys", "_ttags",
                 "_tvals", "_toff", "_tmask", "_log_prior"):
        state.pop(name, None)
    features = [
        FeatureState(kind, categories, np.ascontiguousarray(counts), tags[j], keys[j],
                     tables[j] if kind == "value" else None)
        for j, (kind, categories, counts) in enumerate(
            zip(kinds, state["categories_"], state["category_count_"]))
    ]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # alpha was checked at fit
        alpha = resolve_alpha(state["alpha"], state["force_alpha"])
    count_table, predict_tables = build_tables(features, state["class_log_prior_"],
                                               alpha, 1)
    state.update(_count_table=count_table, _predict_tables=predict_tables,
                 _category_keys=[(f.tags, f.keys) if f.kind == "value" else None
                                 for f in features])
    return state
