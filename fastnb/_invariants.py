"""The rules a saved model's state must meet before any kernel reads it.

A model file is untrusted input. ``fastnb.load`` checks the members' names,
dtypes and shapes (``_persist.check_state``); each estimator then checks what
its kernels rely on in ``_check_state_invariants(classes, arrays, n_features)``
(a classmethod, called by its ``_restore`` and, on the state it is about to
write, by ``save``), and after deriving its log probabilities checks that they
are finite where the kernels need them (``_check_derived_state``). Every rule
raises a ValueError naming the member and the rule. The helpers here are the
rules shared by several models; docs/user_guide/saving_and_loading.rst lists
every rule, per model ("What load checks, per model").

Index arithmetic is exact: bounds are compared before anything is summed or
multiplied, or computed with Python ints, so no int64 sum can wrap around.
"""

from typing import NamedTuple

import numpy as np

__all__ = ["check", "counts_within", "derived_finite", "finite_sum", "int32_classes",
           "pair_keys", "positive_total", "table_entries", "table_totals", "TableSums"]

INT32_MAX = 2**31 - 1
INT64_MAX = 2**63 - 1
# A table-backed model's n_features_in * n_classes at most (its (feature, class)
# keys are exact int64; its (d,) index alone would take 12 * 2**62 / k bytes)
TABLE_MAX_CELLS = 2**62

# Sums the fit made in another order than the check (a class's total of its
# entries, summed at fit time row by row) agree to this relative tolerance: the
# rounding of a sum of n float64 values is at most n * 2**-53 of its magnitude,
# and a total that differs by more was not made from these entries.
SUM_RTOL = 1e-6
# A count made of a subset of the rows of a total (a feature's count within its
# class count) exceeds it by rounding at most by this relative amount.
SUBSET_RTOL = 1e-9



def check(ok, member, rule):
    """Raise the ValueError of a broken rule: ``member`` must satisfy ``rule``."""
    if not ok:
        raise ValueError(f"{member}: {rule}")


def positive_total(member, values):
    """A non-negative count array whose total is positive and finite."""
    with np.errstate(over="ignore", invalid="ignore"):
        total = float(np.sum(values))
    check(np.isfinite(total), member, "its total overflows float64")
    check(total > 0, member, "must sum to more than zero")


def finite_sum(member, values, axis=None):
    """The sums of ``values`` (absolute values) along ``axis`` are finite: the
    derived quantities that add them up (totals, complements) cannot overflow."""
    with np.errstate(over="ignore", invalid="ignore"):
        sums = np.sum(np.abs(values), axis=axis)
    check(np.all(np.isfinite(sums)), member,
          "its values are too large: their sums overflow float64")


def counts_within(member, counts, limit, limit_name):
    """``counts <= limit`` elementwise (broadcast), up to the rounding of sums
    made in different orders (SUBSET_RTOL of the limit)."""
    check(np.all(counts <= limit + np.abs(limit) * SUBSET_RTOL), member,
          f"must not exceed {limit_name}")


def int32_classes(member, n_classes):
    """Kernels keep a class index in an int32."""
    check(n_classes <= INT32_MAX, member, f"{n_classes} classes do not fit an int32")


def table_entries(prefix, features, classes, counts, n_classes, n_features):
    """The entries of a sparse count table as saved: ``{prefix}_feature`` and
    ``{prefix}_class`` int64, of one length, features in [0, n_features) and
    non-decreasing (grouped by feature), classes in [0, n_classes), and no
    (feature, class) pair twice (so a feature has at most n_classes entries),
    one count per entry. Returns the features that have entries (ascending),
    their numbers of entries, the counts as float64, and their ``TableSums``,
    from one O(entries + classes) pass (``check_table_entries``)."""
    from ._dispatch import load_kernels

    for name, array in ((f"{prefix}_feature", features), (f"{prefix}_class", classes)):
        check(array.dtype == np.int64 and array.ndim == 1, name, "must be 1-d int64")
    check(features.shape == classes.shape, f"{prefix}_class",
          f"must have as many entries as {prefix}_feature")
    count_name = "table_count" if prefix == "table" else f"{prefix}_count"
    check(counts.shape == features.shape, count_name,
          f"must have one value per entry of {prefix}_feature")
    int32_classes(f"{prefix}_class", n_classes)
    # pair_keys below are exact: feature * k + class < d * k
    check(n_features * n_classes <= TABLE_MAX_CELLS, "n_features_in",
          f"times the {n_classes} classes exceeds 2**62 (a table's cells)")
    n = features.shape[0]
    counts = np.ascontiguousarray(counts, dtype=np.float64)
    live, lengths = np.empty(n, dtype=np.int64), np.empty(n, dtype=np.int64)
    sums, largest = np.empty(n_classes), np.empty(n_classes)
    status, n_runs, negative = load_kernels("_sparse_counts").check_table_entries(
        np.ascontiguousarray(features), np.ascontiguousarray(classes), counts,
        n_features, np.empty(n_classes, dtype=np.int64), sums, largest, live, lengths)
    check(status != 1, f"{prefix}_feature", "must be grouped by feature (non-decreasing)")
    check(status != 2, f"{prefix}_feature", f"must lie in [0, n_features_in={n_features})")
    check(status != 3, f"{prefix}_class", f"must lie in [0, {n_classes}) (the classes)")
    check(status != 4, f"{prefix}_class", "a (feature, class) pair repeats")
    # (views: the restore uses them once, then lets them go)
    return live[:n_runs], lengths[:n_runs], counts, TableSums(sums, largest, negative)


def pair_keys(features, classes, n_classes):
    """Each entry's key ``feature * n_classes + class``, int64 (exact for the
    entries ``table_entries`` accepted)."""
    return features * n_classes + classes


class TableSums(NamedTuple):
    """Per class: the sum of a table's counts (np.bincount's bits) and the
    largest; and whether any count is negative."""

    sums: np.ndarray
    largest: np.ndarray
    negative: bool


def table_totals(member, stated, classes, counts, sums):
    """A table's per-class totals, checked against ``sums``, those of its
    entries (``table_entries``): the file's ``stated`` totals are kept (the
    fit's sums, so that a loaded model predicts the saved one's bits) only
    where they agree to SUM_RTOL of the class's absolute total."""
    magnitude = sums.sums
    if sums.negative:
        with np.errstate(over="ignore", invalid="ignore"):
            magnitude = np.bincount(classes, np.abs(counts), minlength=magnitude.shape[0])
    check(np.all(np.isfinite(magnitude)), "table_count",
          "the counts of a class overflow float64 when summed")
    check(np.all(np.abs(stated - sums.sums) <= SUM_RTOL * magnitude), member,
          "must equal the sum of each class's table_count entries")


def derived_finite(member, values, allow=()):
    """After a restore: a derived array the kernels read is finite (``allow``:
    ``"-inf"`` lets log(0) through, the log prior of a class never seen)."""
    if "-inf" in allow:
        ok = not np.any(np.isnan(values)) and not np.any(values == np.inf)
    else:
        ok = bool(np.all(np.isfinite(values)))
    check(ok, member, "derives non-finite values (NaN or infinite log probabilities)"
          " from this state")
