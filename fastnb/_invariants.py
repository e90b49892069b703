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

import numpy as np

__all__ = ["check", "counts_within", "derived_finite", "finite_sum", "int32_classes",
           "pair_keys", "positive_total", "table_entries", "table_totals"]

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



def _popcount(words):
    """Bits set in each uint64 (NumPy >= 2.0 counts them in one ufunc)."""
    if hasattr(np, "bitwise_count"):
        return np.bitwise_count(words)
    table = np.array([bin(i).count("1") for i in range(256)], dtype=np.int64)
    return table[words.view(np.uint8)].reshape(-1, 8).sum(axis=1)


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


def table_entries(prefix, features, classes, n_classes, n_features):
    """The entries of a sparse count table as saved: ``{prefix}_feature`` and
    ``{prefix}_class`` int64, of one length, features in [0, n_features) and
    non-decreasing (grouped by feature), classes in [0, n_classes), and no
    (feature, class) pair twice (so a feature has at most n_classes entries).
    Returns the features that have entries (ascending) and their numbers of
    entries. O(entries) for up to 64 classes (a bitmap of each feature's
    classes), else a sort of the pairs' keys."""
    for name, array in ((f"{prefix}_feature", features), (f"{prefix}_class", classes)):
        check(array.dtype == np.int64 and array.ndim == 1, name, "must be 1-d int64")
    check(features.shape == classes.shape, f"{prefix}_class",
          f"must have as many entries as {prefix}_feature")
    int32_classes(f"{prefix}_class", n_classes)
    # pair_keys below are exact: feature * k + class < d * k
    check(n_features * n_classes <= TABLE_MAX_CELLS, "n_features_in",
          f"times the {n_classes} classes exceeds 2**62 (a table's cells)")
    n = features.shape[0]
    if n == 0:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty
    check(not np.any(features[1:] < features[:-1]), f"{prefix}_feature",
          "must be grouped by feature (non-decreasing)")
    check(int(features[0]) >= 0 and int(features[-1]) < n_features,
          f"{prefix}_feature", f"must lie in [0, n_features_in={n_features})")
    check(int(classes.min()) >= 0 and int(classes.max()) < n_classes,
          f"{prefix}_class", f"must lie in [0, {n_classes}) (the classes)")
    starts = np.flatnonzero(np.concatenate(([True], features[1:] != features[:-1])))
    lengths = np.diff(np.append(starts, n))
    if n_classes <= 64:
        # a feature's entries are distinct classes iff its bitmap of them has as
        # many bits set as it has entries
        bits = np.left_shift(np.uint64(1), classes.astype(np.uint64))
        seen = np.bitwise_or.reduceat(bits, starts)
        n_set = _popcount(seen)
        repeats = not np.array_equal(n_set, lengths)
    else:
        # the blocks are in feature order: the keys are sorted but for the order
        # of the classes within a block
        ordered = np.sort(pair_keys(features, classes, n_classes), kind="stable")
        repeats = bool(np.any(ordered[1:] == ordered[:-1]))
    check(not repeats, f"{prefix}_class", "a (feature, class) pair repeats")
    return features[starts], lengths


def pair_keys(features, classes, n_classes):
    """Each entry's key ``feature * n_classes + class``, int64 (exact for the
    entries ``table_entries`` accepted)."""
    return features * n_classes + classes


def table_totals(member, stated, classes, counts, n_classes):
    """A table's per-class totals, recomputed from its entries: the file's
    ``stated`` totals are kept (the fit's sums, so that a loaded model predicts
    the saved one's bits) only where they agree with the recomputed ones to
    SUM_RTOL of the class's absolute total."""
    with np.errstate(over="ignore", invalid="ignore"):
        totals = np.bincount(classes, counts, minlength=n_classes)
        magnitude = (totals if counts.shape[0] == 0 or counts.min() >= 0
                     else np.bincount(classes, np.abs(counts), minlength=n_classes))
    check(np.all(np.isfinite(magnitude)), "table_count",
          "the counts of a class overflow float64 when summed")
    check(np.all(np.abs(stated - totals) <= SUM_RTOL * magnitude), member,
          "must equal the sum of each class's table_count entries")
    return totals


def derived_finite(member, values, allow=()):
    """After a restore: a derived array the kernels read is finite (``allow``:
    ``"-inf"`` lets log(0) through, the log prior of a class never seen)."""
    if "-inf" in allow:
        ok = not np.any(np.isnan(values)) and not np.any(values == np.inf)
    else:
        ok = bool(np.all(np.isfinite(values)))
    check(ok, member, "derives non-finite values (NaN or infinite log probabilities)"
          " from this state")
