# Over the ~600-line guideline on purpose: a self-contained tool (the seeds,
# every mutation family, the child-process oracle and the CLI) that CI runs as a
# script and the test suite imports; split, it would need a package of its own.
"""Structured fuzzer of fastnb's model files (issue 40): a file is untrusted input.

Seed files are fitted models of every kind fastnb saves (GaussianNB, the three
count models with dense counts and with the sparse count table, CategoricalNB on
integer codes and on strings, ColumnwiseNB), with and without feature names, with
int and str classes. Each mutant is one seed changed by one or two structured
mutations, written with plain zipfile and NumPy so that any file can be made:

- ``value``: elements of one array (bit flips, extremes such as 2**63-1, NaN,
  5e-324, a pair shifted by +-D so that a wrapping int64 sum is unchanged,
  permutations, duplicated elements);
- ``shape``: a dimension dropped or added, a size changed, two members swapped;
- ``dtype``: the member rewritten with another dtype (narrow, big-endian, string,
  structured, object, complex);
- ``npy``: the member's .npy header claiming another shape, order or descr;
- ``member``: a member deleted, duplicated, renamed or added;
- ``header``: one JSON field of the header changed in type or value (NaN and
  Infinity literals, huge and negative ints, deep nesting, strings), deleted or
  added, or the header's bytes made invalid;
- ``zip``: the archive's raw bytes (truncation, flipped bytes in a local header,
  the central directory or compressed data, the compression method, version,
  flags and size fields, a compressed member that inflates far past its size).

The oracle runs each mutant in a child process (one long-lived worker, restarted
after a crash or a hang) under a 4 GiB address-space limit and a timeout: load;
if that worked, predict and predict_proba on the seed's probe X (held to the
probabilities the model's own attributes give), save and load again, partial_fit
on a small batch of known classes, save and load again.
Outcomes are ``rejected`` (ValueError at load) and ``loaded-ok``, or failures:

- ``crash``: the worker died (signal or exit);
- ``hang``: no answer within the timeout;
- ``nan``: predict_proba of a loaded model not finite or rows not summing to 1;
- ``inconsistent``: the probabilities of a loaded count or Gaussian model differ
  from those its own fitted attributes give (``feature_log_prob_``,
  ``class_log_prior_``; ``theta_``, ``var_``, ``class_prior_``), recomputed here
  in NumPy on the probe's complete rows: a file whose kernel state disagrees with
  its attributes (a count table whose totals are not its counts' sums);
- ``wrong-exception``: an exception other than ValueError at load, any exception
  from predict on the valid probe, anything but ValueError from partial_fit;
- ``save-refused``: save refuses a loaded model, or its file does not load back
  predicting the same bits;
- ``memory``: the mutant raised the worker's peak resident memory by more than
  ``MEMORY_LIMIT_BYTES`` (a file must not cost memory out of proportion to it).

Usage::

    python -P tools/fuzz_model_files.py --seconds 120 --seed 7
    python -P tools/fuzz_model_files.py --mutants 2000 --seed 7 --failures out/
    python -P tools/fuzz_model_files.py --replay out/0001-crash.npz  # in-process

The run prints mutants per seed kind and outcome and exits 1 on any failure;
each failing mutant is written to the failures folder with a ``.json`` that
names its seed, mutations, outcome and detail, and its probe (``.probe.pkl``).
The module is importable: ``make_seeds``, ``Mutator``, ``Oracle`` and ``run``.
"""

import argparse
import io
import json
import math
import os
import pickle
import re
import select
import shutil
import struct
import subprocess
import sys
import tempfile
import time
import warnings
import zipfile
import zlib
from collections import Counter, defaultdict

import numpy as np

OUTCOMES = ("rejected", "loaded-ok", "crash", "hang", "nan", "inconsistent",
            "wrong-exception", "save-refused", "memory")
FAILURES = OUTCOMES[2:]
ADDRESS_SPACE_LIMIT = 4 << 30
# A mutant that raises the worker's peak resident memory by more than this is a
# failure: the seeds are a few KiB, so no honest file of theirs needs it.
MEMORY_LIMIT_BYTES = 1 << 30
DEFAULT_TIMEOUT = 30.0
FAMILIES = ("value", "shape", "dtype", "npy", "member", "header", "zip")
# How often each family is drawn: a value or header mutant is the likeliest to
# load and so to reach predict, partial_fit and save.
FAMILY_WEIGHTS = {"value": 4, "shape": 1, "dtype": 1, "npy": 1, "member": 1,
                  "header": 3, "zip": 2}
PARAM_VALUES = [0, -1, 1e-300, 5e-324, 1e308, 100000, 700, 2**31, 2**63, float("nan"),
                float("inf"), float("-inf"), "x", None, True, [], [0.5, 0.5], [1e308, 0],
                {"array": [float("nan"), 1.0], "dtype": "<f8"}]


# -- seeds -----------------------------------------------------------------------------
def _seed_data(rng, n=60, d=5, k=3):
    y = rng.integers(0, k, n)
    y[:k] = np.arange(k)
    return y


def make_seeds(folder):
    """Fit and save one model of each kind and representation into ``folder``.

    Returns ``{label: (model_path, probe_path)}``; the probe (a pickle written
    here, trusted) is ``(X, batch_X, batch_y)``: rows predict must accept (with
    NaN or None rows where the model handles missing values) and a small
    partial_fit batch of the model's classes.
    """
    import pandas as pd
    import scipy.sparse as sp

    import fastnb
    from fastnb import _count_table

    os.makedirs(folder, exist_ok=True)
    rng = np.random.default_rng(20261205)
    seeds = {}

    def add(label, model, X, y, probe, batch_rows=8):
        path = os.path.join(folder, label + ".npz")
        model.save(path)
        rows = probe.iloc[:batch_rows] if hasattr(probe, "iloc") else probe[:batch_rows]
        batch_y = np.asarray(model.classes_)[np.arange(batch_rows) % len(model.classes_)]
        probe_path = os.path.join(folder, label + ".probe.pkl")
        with open(probe_path, "wb") as handle:
            pickle.dump((probe, _without_missing(rows), batch_y), handle)
        seeds[label] = (path, probe_path)

    y = _seed_data(rng)
    str_labels = np.array(["alpha", "beta", "gamma"], dtype=object)

    # GaussianNB: int classes, no names; str classes with feature names.
    X = rng.normal(size=(60, 5)) + y[:, None]
    probe = np.vstack([X[:10], np.full((1, 5), np.nan), X[10:12]])
    probe[11, 2] = np.nan
    add("GaussianNB-int", fastnb.GaussianNB().fit(X, y), X, y, _probe_for(
        fastnb.GaussianNB().fit(X, y), probe))
    frame = pd.DataFrame(X, columns=[f"g{i}" for i in range(5)])
    model = fastnb.GaussianNB(var_smoothing=1e-6).fit(frame, str_labels[y])
    add("GaussianNB-str-names", model, frame, y,
        _probe_for(model, pd.DataFrame(probe, columns=frame.columns)))

    # The likelihood models: positive values with a NaN (integers for PoissonNB),
    # and KernelDensityNB on the Gaussian data (its histograms, grids' ranges).
    positive = rng.gamma(2.0 + y[:, None], 1.0, (60, 4))
    positive[3, 1] = np.nan
    positive_probe = np.vstack([positive[:10], np.full((1, 4), np.nan)])
    add("PoissonNB", fastnb.PoissonNB().fit(np.floor(positive), y), None, y,
        np.floor(positive_probe))
    for cls in (fastnb.ExponentialNB, fastnb.GammaNB, fastnb.LogNormalNB):
        add(cls.__name__, cls().fit(positive, y), None, y, positive_probe)
    add("KernelDensityNB", fastnb.KernelDensityNB(n_bins=32).fit(X, y), None, y,
        probe)

    # The count models: dense counts and the sparse count table (a CSR fit goes
    # to the table when the model is large beside its non-zeros; the thresholds
    # are lowered here so that a small seed is table-backed, as the test suite's
    # FASTNB_TEST_SPARSE_TABLE does). Missing values (NaN) give missing counts.
    counts = rng.poisson(1.0, (60, 6)).astype(np.float64)
    counts[rng.random(counts.shape) < 0.5] = 0.0
    counts[5, 1] = counts[17, 4] = np.nan
    probe = np.vstack([counts[:10], np.full((1, 6), np.nan)])
    saved = _count_table.TABLE_MIN_CELLS, _count_table.TABLE_MIN_CELLS_PER_NONZERO
    for cls, params in ((fastnb.BernoulliNB, {"alpha": 0.5, "binarize": 1.0}),
                        (fastnb.MultinomialNB, {"alpha": 0.5}),
                        (fastnb.ComplementNB, {"norm": True})):
        name = cls.__name__
        model = cls(**params).fit(counts, y)
        add(f"{name}-dense", model, counts, y, _probe_for(model, probe))
        names = pd.DataFrame(counts, columns=[f"w{i}" for i in range(6)])
        model = cls().fit(names, str_labels[y])
        add(f"{name}-dense-str-names", model, names, y,
            _probe_for(model, pd.DataFrame(probe, columns=names.columns)))
        try:
            _count_table.TABLE_MIN_CELLS = _count_table.TABLE_MIN_CELLS_PER_NONZERO = 0
            model = cls(**params).fit(sp.csr_matrix(counts), y)
            str_model = cls().fit(sp.csr_matrix(counts), str_labels[y])
        finally:
            _count_table.TABLE_MIN_CELLS, _count_table.TABLE_MIN_CELLS_PER_NONZERO = saved
        for label, fitted in ((f"{name}-table", model),
                              (f"{name}-table-str", str_model)):
            if fitted.__dict__.get("_table") is None:
                raise RuntimeError(f"{label}: the seed is not table-backed")
            add(label, fitted, counts, y, _probe_for(fitted, probe))

    # CategoricalNB: integer codes; strings (with None missing) and feature names.
    codes = (rng.integers(0, 4, (60, 4)) + y[:, None]) % 5
    model = fastnb.CategoricalNB(alpha=0.5).fit(codes, y)
    add("CategoricalNB-codes", model, codes, y, _probe_for(model, codes[:12]))
    # Integer codes as floats with NaN missing, min_categories, and two features
    # never seen (all missing: their count columns are zero, so that a mutant's
    # category layout can move columns between features and keep every row sum).
    sparse_codes = np.full((60, 4), np.nan)
    sparse_codes[:, 0] = (rng.integers(0, 4, 60) + y) % 5
    sparse_codes[::3, 1] = rng.integers(0, 3, 20)
    model = fastnb.CategoricalNB(min_categories=[5, 3, 3, 2]).fit(sparse_codes, y)
    add("CategoricalNB-codes-missing", model, sparse_codes, y,
        _probe_for(model, sparse_codes[:12]))
    words = np.array(["red", "green", "blue", "\u00e9t\u00e9", "x" * 40], dtype=object)
    strings = words[(rng.integers(0, 3, (60, 3)) + y[:, None]) % 5]
    strings[3, 1] = None
    probe = np.vstack([strings[:10], np.array([[None, "never", "red"]], dtype=object)])
    frame = pd.DataFrame(strings, columns=["colour", "shade", "tone"])
    model = fastnb.CategoricalNB().fit(frame, str_labels[y])
    add("CategoricalNB-strings-names", model, frame, y,
        _probe_for(model, pd.DataFrame(probe, columns=frame.columns)))

    # ColumnwiseNB: "auto" over a float column with NaN, a str column, a bool
    # column and small integer codes (GaussianNB, CategoricalNB, BernoulliNB).
    mixed = np.empty((60, 4), dtype=object)
    mixed[:, 0] = rng.normal(size=60) + y
    mixed[7, 0] = np.nan
    mixed[:, 1] = words[(rng.integers(0, 3, 60) + y) % 5]
    mixed[:, 2] = (rng.random(60) < 0.3 + 0.2 * (y % 2))
    mixed[:, 3] = (rng.integers(0, 4, 60) + y) % 6
    model = fastnb.ColumnwiseNB().fit(mixed, y)
    add("ColumnwiseNB-mixed", model, mixed, y, _probe_for(model, mixed[:12]))
    explicit = fastnb.ColumnwiseNB(
        [("counts", fastnb.MultinomialNB(), [0, 1]),
         ("gauss", fastnb.GaussianNB(), [2])]).fit(
        np.column_stack([counts[:, :2], X[:, :1]]), str_labels[y])
    # ColumnwiseNB choosing a family per numeric column (its selection rows)
    chosen = pd.DataFrame({"amount": positive[:, 0], "count": np.floor(positive[:, 2]),
                           "level": X[:, 0]})
    model = fastnb.ColumnwiseNB(numeric="select").fit(chosen, y)
    add("ColumnwiseNB-select", model, None, y, _probe_for(model, chosen.iloc[:12]))
    add("ColumnwiseNB-explicit-str", explicit, None, y,
        _probe_for(explicit, np.column_stack([counts[:12, :2], X[:12, :1]])))
    return seeds


def _without_missing(rows):
    """The probe rows without missing values, for the partial_fit batch."""
    if hasattr(rows, "iloc"):
        return rows.fillna(rows.iloc[0].fillna(0)) if rows.isna().any().any() else rows
    rows = np.array(rows, dtype=rows.dtype, copy=True)
    if rows.dtype == object:
        bad = np.vectorize(lambda v: v is None or (isinstance(v, float) and v != v))(rows)
    else:
        bad = np.isnan(rows)
    if bad.any():
        fill = rows[~bad.any(axis=1)][0] if (~bad.any(axis=1)).any() else None
        for i, j in zip(*np.nonzero(bad)):
            rows[i, j] = fill[j] if fill is not None else 0
    return rows


def _probe_for(model, probe):
    """The probe, less its rows with missing values if the model refuses them."""
    try:
        model.predict(probe)
        return probe
    except ValueError:
        return _without_missing(probe)


# -- writing any file ------------------------------------------------------------------
def npy_bytes(array=None, *, descr=None, shape=None, fortran=False, data=None,
              header_text=None):
    """An .npy member's bytes: the array's, or any header and data given."""
    if (array is not None and array.dtype.hasobject and data is None
            and header_text is None):
        buffer = io.BytesIO()
        np.lib.format.write_array(buffer, array, allow_pickle=True)
        return buffer.getvalue()
    if array is not None:
        contiguous = np.ascontiguousarray(array)
        descr = np.lib.format.dtype_to_descr(array.dtype) if descr is None else descr
        shape = array.shape if shape is None else shape
        data = contiguous.tobytes() if data is None else data
    if header_text is None:
        header_text = repr({"descr": descr, "fortran_order": fortran,
                            "shape": tuple(shape)})
    body = header_text.encode("latin1", "replace")
    pad = 64 - (10 + len(body) + 1) % 64
    body = body + b" " * (pad % 64) + b"\n"
    if len(body) < 65536:
        head = b"\x93NUMPY\x01\x00" + struct.pack("<H", len(body))
    else:
        head = b"\x93NUMPY\x02\x00" + struct.pack("<I", len(body))
    return head + body + (data or b"")


def zip_bytes(members, compression=zipfile.ZIP_STORED):
    """An archive of ``[(name, bytes)]`` (names may repeat)."""
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with zipfile.ZipFile(buffer, "w", compression=compression) as archive:
            for name, blob in members:
                archive.writestr(name, blob)
    return buffer.getvalue()


def read_seed(path):
    """A seed file as (header dict, {name: array}) in its member order."""
    with np.load(path, allow_pickle=False) as archive:
        arrays = {name: archive[name] for name in archive.files}
    header = json.loads(arrays.pop("header").tobytes())
    return header, arrays


# -- mutations -------------------------------------------------------------------------
FLOAT_EXTREMES = [0.0, -1.0, 1.0, np.nan, np.inf, -np.inf, 5e-324, -5e-324, 1e308,
                  -1e308, 1.7976931348623157e308, 2.0**63, 2.0**64, 1e-300, 0.5, 1e16]
INT_EXTREMES = [0, -1, 1, 2, 2**63 - 1, -2**63, 2**31, 2**31 - 1, -2**31, 2**32,
                2**32 - 1, 2**62, 2**26, 2**20, 255, 256, 65536, 7, 1000003]
DTYPES = ["<f4", "<f2", "<i4", "<i8", "<u8", "<u4", "|u1", "|i1", "|b1", "<c16", ">f8",
          ">i8", "<U5", "|S4", "<M8[s]", "<m8[s]", "|V8", "O"]
HEADER_VALUES = [None, True, False, 0, -1, 1, 2, 2**31, 2**63 - 1, 2**63, 2**64 + 1,
                 -2**63, 10**400, 1e308, -0.0, 0.5, float("nan"), float("inf"),
                 float("-inf"), "", "x", "GaussianNB", "fastnb-model", "object-str",
                 "<i8", "<U5", "|S3", "int64", "\u00e9\x00", "a" * 5000, [], [1], ["x"],
                 {},
                 {"array": [1, 2], "dtype": "<f8"}, {"array": [[1]], "dtype": "<i8"},
                 {"array": [1e308, 1e308], "dtype": "<f8"}, {"array": [], "dtype": "O"},
                 {"array": [1], "dtype": "<M8[s]"}, "__DEEP_LIST__", "__DEEP_DICT__",
                 200000, 100000, 700, 2**26, 2**31 - 1]
RAW_TOKENS = {"__DEEP_LIST__": "[" * 100000 + "]" * 100000,
              "__DEEP_DICT__": '{"a":' * 50000 + "1" + "}" * 50000}
# Every registered model (a mutant may name any of them in its header);
# tests/test_model_file_fuzz.py checks the list against the registry.
ESTIMATOR_NAMES = ["GaussianNB", "BernoulliNB", "MultinomialNB", "ComplementNB",
                   "CategoricalNB", "ColumnwiseNB", "PoissonNB", "ExponentialNB",
                   "GammaNB", "LogNormalNB", "KernelDensityNB"]


class Mutant:
    """A mutant's header, members (ordered ``[name, array-or-bytes]``) and how
    they are written; ``describe`` lists the mutations applied."""

    def __init__(self, header, arrays):
        self.header = header
        self.header_raw = None   # bytes of the header member, once made invalid
        self.header_dtype = None
        self.members = [[name, array] for name, array in arrays.items()]
        self.compression = zipfile.ZIP_STORED
        self.raw_ops = []
        self.describe = []

    def to_bytes(self, rng):
        text = json.dumps(self.header)
        for token, raw in RAW_TOKENS.items():
            text = text.replace(json.dumps(token), raw)
        blob = self.header_raw if self.header_raw is not None else text.encode("utf-8")
        header = np.frombuffer(blob, dtype=np.uint8)
        if self.header_dtype is not None:
            header = _as_dtype(header, self.header_dtype)
        members = [("header.npy", npy_bytes(header))]
        for name, value in self.members:
            blob = value if isinstance(value, bytes) else npy_bytes(value)
            members.append((name if name.endswith("/") else name + ".npy", blob))
        data = zip_bytes(members, self.compression)
        for op in self.raw_ops:
            data = op(data, rng)
        return data


def _as_dtype(array, dtype):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            if dtype == "O":
                return array.astype(object)
            if dtype.startswith("|V"):
                return np.frombuffer(
                    np.ascontiguousarray(array).tobytes()[: array.size * 8 // 8 * 8]
                    .ljust(max(8, array.size * 8), b"\0")[: array.size * 8], "V8")
            return array.astype(dtype)
        except (TypeError, ValueError, OverflowError):
            return np.zeros(array.shape, dtype=dtype)


class Mutator:
    """Makes mutants of seeds from one ``numpy.random.Generator``."""

    def __init__(self, rng):
        self.rng = rng

    def choice(self, items):
        return items[int(self.rng.integers(len(items)))]

    def mutate(self, header, arrays, family=None):
        mutant = Mutant(json.loads(json.dumps(header)),
                        {k: np.array(v, copy=True) for k, v in arrays.items()})
        n_ops = 1 if self.rng.random() < 0.7 else 2
        families = []
        names, weights = zip(*FAMILY_WEIGHTS.items())
        weights = np.array(weights, dtype=float) / sum(weights)
        for _ in range(n_ops):
            chosen = family or names[int(self.rng.choice(len(names), p=weights))]
            families.append(chosen)
            getattr(self, "_" + chosen)(mutant)
        return mutant, families

    def _array_member(self, mutant, numeric=True):
        names = [i for i, (_, v) in enumerate(mutant.members)
                 if isinstance(v, np.ndarray) and (not numeric or v.dtype.kind in "biuf")]
        return self.choice(names) if names else None

    # values
    def _value(self, mutant):
        index = self._array_member(mutant)
        if index is None:
            return self._member(mutant)
        name, array = mutant.members[index]
        flat = np.array(array, copy=True).reshape(-1)
        op = self.choice(["bitflip", "extreme", "extreme-all", "wrap-pair", "permute",
                          "duplicate", "scale", "plus-one", "extreme-many"]
                         + ["wrap-sum"] * 3 * (array.dtype.kind in "iu"))
        if flat.size == 0:
            op = "extreme-all"
        rng = self.rng
        if op == "bitflip" and flat.size:
            raw = bytearray(flat.tobytes())
            for _ in range(int(rng.integers(1, 4))):
                bit = int(rng.integers(len(raw) * 8))
                raw[bit // 8] ^= 1 << (bit % 8)
            flat = np.frombuffer(bytes(raw), dtype=flat.dtype).copy()
        elif op in ("extreme", "extreme-many"):
            count = 1 if op == "extreme" else int(rng.integers(1, flat.size + 1))
            for i in rng.integers(0, flat.size, count):
                flat = self._set(flat, int(i), self._extreme(flat, array))
        elif op == "extreme-all":
            value = self._extreme(flat, array)
            if flat.size == 0:
                flat = self._set(np.zeros(int(rng.integers(1, 4)), flat.dtype), 0, value)
            else:
                for i in range(flat.size):
                    flat = self._set(flat, i, value)
        elif op == "wrap-pair" and flat.size >= 2:
            # +D on one element, -D on another: a wrapping int64 sum (or a float sum,
            # to rounding) is unchanged, while each value is far out of range.
            i, j = rng.choice(flat.size, 2, replace=False)
            if flat.dtype.kind in "iu":
                shift = self.choice([2**62, 2**63 - 1, 2**32, 2**63 - 1 - int(flat[j])])
                wide = flat.astype(object)
                wide[i] = (int(wide[i]) + shift + 2**63) % 2**64 - 2**63
                wide[j] = (int(wide[j]) - shift + 2**63) % 2**64 - 2**63
                flat = wide.astype(np.int64).astype(flat.dtype, casting="unsafe")
            else:
                shift = self.choice([1e300, 1e17, 2.0**53, 1e308])
                flat[i] += shift
                flat[j] -= shift
        elif op == "wrap-sum" and flat.size >= 4 and flat.dtype.kind in "iu":
            # [2**63-1-V, V, 2**63-1, x] with x chosen so that the wrapping int64 sum
            # of the array is unchanged: each value passes a sum check done in int64.
            i, j, l, m = (int(v) for v in rng.choice(flat.size, 4, replace=False))
            wide = [int(v) for v in flat]
            total = sum(wide)
            small = int(rng.integers(1, 9))
            wide[i], wide[j], wide[l] = 2**63 - 1 - small, small, 2**63 - 1
            rest = sum(v for t, v in enumerate(wide) if t not in (i, j, l, m))
            wide[m] = total + 2 - rest
            flat = np.array([(v + 2**63) % 2**64 - 2**63 for v in wide], dtype=np.int64)
        elif op == "permute":
            flat = flat[rng.permutation(flat.size)]
        elif op == "duplicate" and flat.size >= 2:
            i, j = rng.choice(flat.size, 2, replace=False)
            flat[i] = flat[j]
        elif op == "scale" and flat.dtype.kind in "fc":
            flat = flat * self.choice([1e300, -1.0, 0.0, 1e-300, 2.0**60])
        elif op == "plus-one":
            i = int(rng.integers(flat.size))
            flat[i] = flat[i] + 1 if flat.dtype.kind != "b" else not flat[i]
        else:
            i = int(rng.integers(flat.size))
            flat = self._set(flat, i, self._extreme(flat, array))
        mutant.members[index][1] = (flat.reshape(array.shape) if flat.size == array.size
                                    else flat)
        mutant.describe.append(f"value {op} {name}")

    def _extreme(self, flat, array):
        if flat.dtype.kind == "f":
            return self.choice(FLOAT_EXTREMES + [float(array.size), float(-array.size)])
        return self.choice(INT_EXTREMES + [array.size, array.size - 1, array.size + 1,
                                           -array.size])

    @staticmethod
    def _set(flat, i, value):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                flat[i] = value
        except (OverflowError, ValueError):
            flat = flat.astype(np.float64) if isinstance(value, float) else flat.astype(
                np.int64) if value < 2**63 else flat.astype(np.uint64)
            flat[i] = value
        return flat

    # shapes
    def _shape(self, mutant):
        index = self._array_member(mutant, numeric=False)
        if index is None:
            return self._member(mutant)
        name, array = mutant.members[index]
        op = self.choice(["add-dim", "drop-dim", "shrink", "grow", "swap", "transpose",
                          "empty", "scalar", "grow-many"])
        rng = self.rng
        if op == "add-dim":
            array = array[None] if rng.random() < 0.5 else array[..., None]
        elif op == "drop-dim":
            array = array.reshape(-1) if array.ndim > 1 else (
                array.reshape(-1)[0] if array.size else np.float64(0))
            array = np.asarray(array)
        elif op in ("shrink", "grow", "grow-many") and array.ndim:
            axis = int(rng.integers(array.ndim))
            if op == "shrink" and array.shape[axis]:
                array = np.take(array, range(array.shape[axis] - 1), axis=axis)
            else:
                extra = 1 if op == "grow" else int(rng.integers(2, 50))
                idx = list(range(array.shape[axis])) + [0] * extra
                if array.shape[axis]:
                    array = np.take(array, idx, axis=axis)
                else:
                    shape = list(array.shape)
                    shape[axis] = extra
                    array = np.zeros(shape, array.dtype)
        elif op == "swap" and len(mutant.members) > 1:
            other = int(rng.integers(len(mutant.members)))
            other_name, other_array = mutant.members[other]
            mutant.members[other][1] = array
            mutant.members[index][1] = other_array
            mutant.describe.append(f"shape swap {name}<->{other_name}")
            return
        elif op == "transpose" and array.ndim > 1:
            array = np.ascontiguousarray(array.T)
        elif op == "empty":
            array = np.zeros((0,) * max(array.ndim, 1), dtype=array.dtype)
        elif op == "scalar":
            array = np.asarray(array.reshape(-1)[0] if array.size else 0)
        mutant.members[index][1] = array
        mutant.describe.append(f"shape {op} {name} -> {array.shape}")

    # dtypes
    def _dtype(self, mutant):
        if self.rng.random() < 0.1:
            mutant.header_dtype = self.choice(DTYPES)
            mutant.describe.append(f"dtype header -> {mutant.header_dtype}")
            return
        index = self._array_member(mutant, numeric=False)
        if index is None:
            return self._member(mutant)
        name, array = mutant.members[index]
        dtype = self.choice(DTYPES)
        mutant.members[index][1] = _as_dtype(array, dtype)
        mutant.describe.append(f"dtype {name} {array.dtype.str} -> {dtype}")

    # .npy headers
    def _npy(self, mutant):
        index = self._array_member(mutant, numeric=False)
        if index is None:
            return self._member(mutant)
        name, array = mutant.members[index]
        if array.dtype.hasobject:
            return self._member(mutant)
        op = self.choice(["huge-shape", "short-shape", "long-shape", "fortran", "descr",
                          "bad-header", "negative", "overflow-shape"])
        descr = np.lib.format.dtype_to_descr(array.dtype)
        shape = list(array.shape)
        data = np.ascontiguousarray(array).tobytes()
        kwargs = {"descr": descr, "shape": shape, "data": data}
        if op == "huge-shape":
            kwargs["shape"] = [self.choice([2**40, 3 * 2**40, 2**31, 2**28])] + shape[1:]
        elif op == "overflow-shape":
            kwargs["shape"] = [2**62, 2**62] if len(shape) != 1 else [2**70]
        elif op == "short-shape":
            kwargs["shape"] = [max(0, (shape[0] if shape else 1) - 1)] + shape[1:]
        elif op == "long-shape":
            kwargs["shape"] = [(shape[0] if shape else 1) + 1] + shape[1:]
        elif op == "negative":
            kwargs["shape"] = [-1] + shape[1:]
        elif op == "fortran":
            kwargs["fortran"] = True
        elif op == "descr":
            kwargs["descr"] = self.choice(["<f8", "<i8", "|u1", "<f4", ">f8", "<U2",
                                           [("a", "<f8")], "<c16", "|O"])
        else:
            kwargs = {"header_text": self.choice([
                "{'descr': '<f8', 'fortran_order': False, 'shape': (1,)}xx",
                "{'descr': '<f8'}", "[]", "{'descr': '<f8', 'fortran_order': False, "
                "'shape': (" + "(" * 500 + ")" * 500 + ")}", "__import__('os')",
                "{'descr': '<f8', 'fortran_order': 7, 'shape': (1,)}",
                "{'descr': 12, 'fortran_order': False, 'shape': (1,)}"]),
                "data": data}
        mutant.members[index][1] = npy_bytes(**kwargs)
        mutant.describe.append(f"npy {op} {name} {kwargs.get('shape', '')}")

    # members
    def _member(self, mutant):
        op = self.choice(["delete", "duplicate", "rename", "add", "dup-name", "folder"])
        rng = self.rng
        if not mutant.members:
            op = "add"
        index = int(rng.integers(len(mutant.members))) if mutant.members else 0
        if op == "delete":
            name = mutant.members.pop(index)[0]
        elif op == "duplicate":
            name = mutant.members[index][0]
            mutant.members.append([name + "_copy", mutant.members[index][1]])
        elif op == "rename":
            name = mutant.members[index][0]
            others = [m[0] for m in mutant.members]
            mutant.members[index][0] = self.choice(
                others + ["header", "x", "../evil", "classes ", "CLASSES", "", "a/b"])
        elif op == "dup-name":
            name = mutant.members[index][0]
            mutant.members.append([name, self.choice([
                mutant.members[index][1], np.zeros(3), np.array([np.nan])])])
        elif op == "folder":
            name = "dir/"
            mutant.members.append([name, b""])
        else:
            name = self.choice(["payload", "classes2", "header_", "feature_count_"])
            mutant.members.append([name, self.choice([np.zeros(3), np.arange(5),
                                                      np.array(["s"])])])
        mutant.describe.append(f"member {op} {name}")

    # header fields
    def _header(self, mutant):
        rng = self.rng
        if rng.random() < 0.12:
            op = self.choice(["invalid-utf8", "truncate", "bom", "trailing", "dup-key",
                              "empty", "not-object"])
            text = json.dumps(mutant.header).encode()
            mutant.header_raw = {
                "invalid-utf8": text[:5] + b"\xff\xfe" + text[5:],
                "truncate": text[: int(rng.integers(len(text)))],
                "bom": b"\xef\xbb\xbf" + text,
                "trailing": text + b" garbage",
                "dup-key": text[:-1] + b', "format": "fastnb-model", "estimator": "X"}',
                "empty": b"",
                "not-object": b"[1, 2, 3]",
            }[op]
            mutant.describe.append(f"header raw {op}")
            return
        params = mutant.header.get("params")
        if isinstance(params, dict) and params and rng.random() < 0.3:
            # A parameter set to an extreme: each goes to a validator, or to a
            # kernel (n_threads to OpenMP, alpha into logarithms).
            name = self.choice(sorted(params))
            params[name] = self.choice(PARAM_VALUES)
            mutant.describe.append(f"header param {name}={params[name]!r}")
            return
        paths = list(_paths(mutant.header))
        path = self.choice(paths)
        op = self.choice(["replace", "replace", "replace", "delete", "add", "type-swap"])
        parent = _get(mutant.header, path[:-1]) if path else None
        if op == "add" or not path:
            target = _get(mutant.header, path)
            if isinstance(target, dict):
                target[self.choice(["extra", "n_threads", "alpha", "__class__", ""])] = \
                    self.choice(HEADER_VALUES)
            elif isinstance(target, list):
                target.append(self.choice(HEADER_VALUES))
            else:
                parent[path[-1]] = [target, self.choice(HEADER_VALUES)]
        elif op == "delete":
            del parent[path[-1]]
        elif op == "type-swap":
            value = parent[path[-1]]
            parent[path[-1]] = str(value) if not isinstance(value, str) else (
                int(value) if value.isdigit() else [value])
        else:
            value = self.choice(HEADER_VALUES)
            if path[-1] == "estimator" and rng.random() < 0.5:
                value = self.choice(ESTIMATOR_NAMES)
            parent[path[-1]] = value
        shown = "/".join(map(str, path))
        mutant.describe.append(f"header {op} {shown}")

    # raw bytes of the archive
    def _zip(self, mutant):
        op = self.choice(["truncate", "flip-local", "flip-central", "flip-data", "method",
                          "version", "flags", "sizes", "eocd", "deflate-flip", "deflate"]
                         + ["bomb"] * (self.rng.random() < 0.3))
        if op == "bomb" and "zip bomb" in mutant.describe:
            op = "deflate-flip"
        if op in ("deflate", "deflate-flip", "bomb"):
            mutant.compression = zipfile.ZIP_DEFLATED
        if op == "bomb":
            index = self._array_member(mutant)
            if index is None:
                return
            name = mutant.members[index][0]
            inflated = self.choice([5 << 30, 3 << 29])
            mutant.raw_ops.append(
                lambda data, r, n=name + ".npy", size=inflated: _bomb(data, n, size))
        elif op != "deflate":
            mutant.raw_ops.append(lambda data, r, op=op: _raw(op, data, r))
        mutant.describe.append(f"zip {op}")


def _paths(value, prefix=()):
    yield prefix
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _paths(item, prefix + (key,))
    elif isinstance(value, list):
        for i, item in enumerate(value[:8]):
            yield from _paths(item, prefix + (i,))


def _get(value, path):
    for key in path:
        value = value[key]
    return value


def _entries(data):
    """The offsets of the local headers, the central headers and the end record
    (found by their signatures: an earlier mutation may have broken the archive)."""
    def find(signature):
        found, at = [], data.find(signature)
        while at >= 0:
            found.append(at)
            at = data.find(signature, at + 4)
        return found

    return find(b"PK\x03\x04"), find(b"PK\x01\x02"), data.rfind(b"PK\x05\x06")


def _put(data, offset, fmt, value):
    data = bytearray(data)
    struct.pack_into(fmt, data, offset, value)
    return bytes(data)


def _raw(op, data, rng):
    locals_, centrals, eocd = _entries(data)
    pick = lambda items: items[int(rng.integers(len(items)))]  # noqa: E731
    if op == "truncate" or not locals_ or not centrals or eocd < 0 or (
            len(data) < max(max(locals_ + centrals) + 46, eocd + 22)):
        return data[: int(rng.integers(len(data)))]
    if op in ("flip-local", "flip-central", "flip-data", "deflate-flip"):
        if op == "flip-local":
            start, span = pick(locals_), 30
        elif op == "flip-central":
            start, span = pick(centrals), 46
        else:
            start = pick(locals_)
            name_len, extra_len = struct.unpack_from("<HH", data, start + 26)
            start = min(start + 30 + name_len + extra_len, len(data) - 1)
            span = max(1, min(len(data) - start, 400))
        data = bytearray(data)
        for _ in range(int(rng.integers(1, 4))):
            data[start + int(rng.integers(span))] ^= int(rng.integers(1, 256))
        return bytes(data)
    if op == "method":
        method = int(pick([0, 8, 12, 14, 93, 99, 1, 0xFFFF]))
        target = pick(["local", "central", "both"])
        i = int(rng.integers(len(locals_)))
        if target in ("local", "both"):
            data = _put(data, locals_[i] + 8, "<H", method)
        if target in ("central", "both") and i < len(centrals):
            data = _put(data, centrals[i] + 10, "<H", method)
        return data
    if op == "version":
        value = int(pick([63, 0xFFFF, 45, 51, 0]))
        if rng.random() < 0.5:
            return _put(data, pick(locals_) + 4, "<H", value)
        return _put(data, pick(centrals) + 6, "<H", value)
    if op == "flags":
        value = int(pick([1, 8, 0x40, 0x800, 0xFFFF]))
        data = _put(data, pick(locals_) + 6, "<H", value)
        return _put(data, pick(centrals) + 8, "<H", value)
    if op == "sizes":
        value = int(pick([0xFFFFFFFF, 0x7FFFFFFF, 0, 1, 1 << 30]))
        which = pick([20, 24])  # central: compressed / uncompressed size
        data = _put(data, pick(centrals) + which, "<I", value)
        if rng.random() < 0.5:
            data = _put(data, pick(locals_) + which - 2, "<I", value)
        return data
    # eocd: entry counts, directory size and offset, comment length
    field = pick([(8, "<H"), (10, "<H"), (12, "<I"), (16, "<I"), (20, "<H")])
    value = int(pick([0, 1, 0xFFFF, 0xFFFFFFFF if field[1] == "<I" else 0xFFFF, 7]))
    return _put(data, eocd + field[0], field[1], value)


def _bomb(data, name, inflated):
    """Replace member ``name`` by a deflated .npy of ``inflated`` bytes of zeros
    whose header claims the matching float64 shape (about 1/1000 of its inflated
    size on disk; its CRC is left wrong, as a hostile file's may be)."""
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        members = [(info.filename, archive.read(info)) for info in archive.infolist()
                   if info.filename != name]
    out = zip_bytes(members, zipfile.ZIP_DEFLATED)
    header = npy_bytes(descr="<f8", shape=(inflated // 8,), data=b"")
    comp = zlib.compressobj(9, zlib.DEFLATED, -15)
    stream = comp.compress(header) + comp.flush(zlib.Z_FULL_FLUSH) + _zeros_deflated(
        inflated)
    size = len(header) + inflated
    first_cd, eocd = out.find(b"PK\x01\x02"), out.rfind(b"PK\x05\x06")
    body, directory = out[:first_cd], out[first_cd:eocd]
    offset, encoded = len(body), name.encode()
    zip64 = size >= 0xFFFFFFFF
    crc = zlib.crc32(header)
    small = (0xFFFFFFFF, 0xFFFFFFFF) if zip64 else (len(stream), size)
    extra = struct.pack("<HHQQ", 1, 16, size, len(stream)) if zip64 else b""
    local = struct.pack("<4sHHHHHIIIHH", b"PK\x03\x04", 45, 0, 8, 0, 0, crc, *small,
                        len(encoded), len(extra)) + encoded + extra
    cextra = struct.pack("<HHQQQ", 1, 24, size, len(stream), offset) if zip64 else b""
    central = struct.pack("<4sHHHHHHIIIHHHHHII", b"PK\x01\x02", 45, 45, 0, 8, 0, 0, crc,
                          *small, len(encoded), len(cextra), 0, 0, 0, 0,
                          0xFFFFFFFF if zip64 else offset) + encoded + cextra
    body += local + stream
    directory += central
    count = len(members) + 1
    end = struct.pack("<4sHHHHIIH", b"PK\x05\x06", 0, 0, count, count, len(directory),
                      len(body), 0)
    return body + directory + end


_ZEROS_DEFLATED = {}


def _zeros_deflated(size):
    """Non-final raw deflate blocks of ``size`` zero bytes, then the final block:
    one 16 MiB chunk compressed after a full flush, repeated (a full flush clears
    the history, so every chunk compresses to the same bytes)."""
    if size not in _ZEROS_DEFLATED:
        chunk = 1 << 24
        comp = zlib.compressobj(9, zlib.DEFLATED, -15)
        comp.compress(b"x")
        comp.flush(zlib.Z_FULL_FLUSH)
        segment = comp.compress(bytes(chunk)) + comp.flush(zlib.Z_FULL_FLUSH)
        _ZEROS_DEFLATED[size] = segment * (size // chunk) + comp.flush()
    return _ZEROS_DEFLATED[size]


# -- the oracle (child process) --------------------------------------------------------
def _peak_reset():
    try:
        with open("/proc/self/clear_refs", "w") as handle:
            handle.write("5")
        return _status("VmRSS")
    except OSError:
        return None


def _status(field):
    with open("/proc/self/status") as handle:
        for line in handle:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    return None


class _OneWayStream(io.RawIOBase):
    """The file's bytes as a stream without seek (a socket, an object store)."""

    def __init__(self, data):
        self._data, self._at = data, 0

    def readable(self):
        return True

    def readinto(self, buffer):
        n = min(len(buffer), len(self._data) - self._at)
        buffer[:n] = self._data[self._at:self._at + n]
        self._at += n
        return n


def _stream_load_agrees(path, rejected):
    """None when loading the file's bytes from a stream gives what loading the
    path gave (a ValueError, or a model), else the failure."""
    import fastnb

    with open(path, "rb") as handle:
        data = handle.read()
    try:
        fastnb.load(_OneWayStream(data))
    except ValueError:
        return None if rejected else ("inconsistent", "a stream of it is refused")
    except BaseException as error:  # noqa: BLE001 - every other type is the finding
        return "wrong-exception", "load from a stream: " + _short(error)
    return ("inconsistent", "a stream of it loads") if rejected else None


def check_one(path, probe_path, scratch):
    """Run the oracle on one file in this process: ``(outcome, detail)``."""
    import fastnb

    with open(probe_path, "rb") as handle:
        probe, batch_X, batch_y = pickle.load(handle)
    try:
        model = fastnb.load(path)
    except ValueError:
        return _stream_load_agrees(path, rejected=True) or ("rejected", "")
    except BaseException as error:  # noqa: BLE001 - every other type is the finding
        return "wrong-exception", "load: " + _short(error)
    disagreement = _stream_load_agrees(path, rejected=False)
    if disagreement:
        return disagreement
    width = getattr(model, "n_features_in_", None)
    probe_ok = _width(probe) == width
    if not probe_ok:
        probe, batch_X = _tile(probe, width), _tile(batch_X, width)
    names = getattr(model, "feature_names_in_", None)
    if names is not None and hasattr(probe, "columns") and len(names) == _width(probe):
        # The file's feature names (a mutant may have changed them) are valid input.
        probe, batch_X = probe.set_axis(list(names), axis=1), batch_X.set_axis(
            list(names), axis=1)
    try:
        labels = model.predict(probe)
        proba = model.predict_proba(probe)
    except ValueError as error:
        if not probe_ok:
            return "loaded-ok", "probe refused (other width): " + _short(error)
        return "wrong-exception", "predict: " + _short(error)
    except BaseException as error:  # noqa: BLE001
        return "wrong-exception", "predict: " + _short(error)
    bad = _bad_proba(proba, len(model.classes_))
    if bad:
        return "nan", "predict_proba " + bad
    bad = _disagreement(model, probe, proba)
    if bad:
        return "inconsistent", bad
    if not np.all(np.isin(np.asarray(labels, dtype=object),
                          np.asarray(model.classes_, dtype=object))):
        return "wrong-exception", "predict returned labels outside classes_"
    failure = _save_round_trip(model, probe, proba, scratch, "loaded")
    if failure:
        return failure
    try:
        model.partial_fit(batch_X, batch_y)
    except ValueError:
        return "loaded-ok", "partial_fit refused"
    except BaseException as error:  # noqa: BLE001
        return "wrong-exception", "partial_fit: " + _short(error)
    try:
        proba = model.predict_proba(probe)
    except BaseException as error:  # noqa: BLE001
        return "wrong-exception", "predict after partial_fit: " + _short(error)
    bad = _bad_proba(proba, len(model.classes_))
    if bad:
        return "nan", "predict_proba after partial_fit " + bad
    return _save_round_trip(model, probe, proba, scratch, "after partial_fit") or (
        "loaded-ok", "")


def _save_round_trip(model, probe, proba, scratch, when):
    import fastnb

    try:
        model.save(scratch)
    except BaseException as error:  # noqa: BLE001
        return "save-refused", f"save {when}: " + _short(error)
    try:
        again = fastnb.load(scratch)
        same = np.array_equal(again.predict_proba(probe), proba, equal_nan=True)
    except BaseException as error:  # noqa: BLE001
        return "save-refused", f"reload {when}: " + _short(error)
    if not same:
        return "save-refused", f"reload {when} predicts other probabilities"
    return None


_lgamma = np.frompyfunc(math.lgamma, 1, 1)

# The parametric models' log densities from their attributes, per (row, class,
# feature), up to the class-free terms (Poisson's -log x!, log-normal's -log x).
LIKELIHOOD_JLL = {
    "PoissonNB": lambda m, x: x * np.log(m.lambda_) - m.lambda_,
    "ExponentialNB": lambda m, x: -np.log(m.scale_) - x / m.scale_,
    "GammaNB": lambda m, x: ((m.shape_ - 1) * np.log(x) - x / m.scale_
                             - m.shape_ * np.log(m.scale_)
                             - _lgamma(m.shape_).astype(np.float64)),
    "LogNormalNB": lambda m, x: (-np.log(m.sigma_)
                                 - (np.log(x) - m.mu_) ** 2 / (2 * m.sigma_ ** 2)),
}


def _disagreement(model, X, proba, atol=1e-6):
    """How far predict_proba is from the probabilities the model's own attributes
    give on the complete rows of ``X`` (scikit-learn's formulas), or ""."""
    name = type(model).__name__
    if name == "CategoricalNB":
        return _categorical_disagreement(model, X, proba, atol)
    if name not in ("GaussianNB", "MultinomialNB", "ComplementNB", "BernoulliNB",
                    *LIKELIHOOD_JLL):
        return ""  # (KernelDensityNB: its densities are not closed-form attributes)
    X = np.asarray(X, dtype=np.float64)
    rows = ~np.isnan(X).any(axis=1)
    X, proba = X[rows], np.asarray(proba)[rows]
    with np.errstate(all="ignore"):
        if name in LIKELIHOOD_JLL:
            jll = np.log(model.class_prior_) + LIKELIHOOD_JLL[name](
                model, X[:, None, :]).sum(axis=2)
        elif name == "GaussianNB":
            theta, var = np.asarray(model.theta_), np.asarray(model.var_)
            jll = (np.log(model.class_prior_) - 0.5 * np.log(2 * np.pi * var).sum(axis=1)
                   - 0.5 * (((X[:, None, :] - theta) ** 2) / var).sum(axis=2))
        else:
            flp = np.asarray(model.feature_log_prob_)
            prior = np.asarray(model.class_log_prior_)
            if name == "BernoulliNB":
                if model.binarize is not None:
                    X = (X > model.binarize).astype(np.float64)
                neg = np.log1p(-np.exp(flp))
                jll = X @ (flp - neg).T + prior + neg.sum(axis=1)
            elif name == "ComplementNB":
                jll = X @ flp.T + (prior if len(model.classes_) == 1 else 0.0)
            else:
                jll = X @ flp.T + prior
        if not np.all(np.isfinite(jll)):
            return ""  # the attributes themselves are out of range: nothing to compare
        jll = jll - jll.max(axis=1, keepdims=True)
        expected = np.exp(jll) / np.exp(jll).sum(axis=1, keepdims=True)
    gap = float(np.max(np.abs(expected - proba), initial=0.0))
    return f"predict_proba differs from the attributes' by {gap:.3g}" if gap > atol else ""


def _categorical_disagreement(model, X, proba, atol):
    """``_disagreement`` for CategoricalNB: each row's log likelihood is the class
    log prior plus, per feature, the ``feature_log_prob_`` column of its value's
    index in ``categories_``; a missing value's feature adds nothing, and rows with
    a value not in ``categories_`` are left out)."""
    X = np.asarray(X, dtype=object)
    categories, flp = model.categories_, model.feature_log_prob_
    expected, kept = [], []
    for i, row in enumerate(X):
        jll = np.array(model.class_log_prior_, dtype=np.float64)
        for j, value in enumerate(row):
            key = _category_key(value)
            if key is None:
                continue  # a missing value leaves its feature out
            where = [t for t, c in enumerate(categories[j]) if _category_key(c) == key]
            if len(where) != 1 or where[0] >= np.shape(flp[j])[1]:
                break
            jll = jll + np.asarray(flp[j])[:, where[0]]
        else:
            if np.all(np.isfinite(jll)):
                jll = np.exp(jll - jll.max())
                expected.append(jll / jll.sum())
                kept.append(i)
    if not kept:
        return ""
    gap = float(np.max(np.abs(np.array(expected) - np.asarray(proba)[kept])))
    return f"predict_proba differs from the attributes' by {gap:.3g}" if gap > atol else ""


def _category_key(value):
    """A value as CategoricalNB matches it: numbers by value (3.0 is code 3), other
    values by type and value; None for missing (None, NaN)."""
    if value is None or (isinstance(value, (float, np.floating)) and value != value):
        return None
    if isinstance(value, (bool, np.bool_)):
        return ("bool", bool(value))
    if isinstance(value, (int, np.integer, float, np.floating)):
        return ("number", float(value) if float(value) != int(value) else int(value))
    return (type(value).__name__, value)


def _bad_proba(proba, k):
    proba = np.asarray(proba)
    if proba.ndim != 2 or proba.shape[1] != k:
        return f"has shape {proba.shape}"
    if not np.all(np.isfinite(proba)):
        return "is not finite"
    if np.any(proba < 0) or not np.allclose(proba.sum(axis=1), 1.0, atol=1e-6):
        return f"rows sum to {proba.sum(axis=1).tolist()[:4]}"
    return ""


def _width(X):
    return X.shape[1] if getattr(X, "ndim", 0) == 2 else None


def _tile(X, width):
    """The probe with its columns repeated or cut to ``width`` (a mutant whose
    n_features_in loaded differently)."""
    if not isinstance(width, int) or width < 1 or width > 1 << 16:
        return X
    columns = np.arange(width) % X.shape[1]
    if hasattr(X, "iloc"):
        out = X.iloc[:, columns].copy()
        out.columns = [f"c{i}" for i in range(width)]
        return out
    return X[:, columns]


def _short(error):
    text = f"{type(error).__name__}: {error}"
    return text if len(text) < 300 else text[:300] + "..."


def worker_main():
    """Answer one JSON line per request line on stdin, under the memory limit."""
    try:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE_LIMIT, ADDRESS_SPACE_LIMIT))
    except (ImportError, ValueError, OSError):  # pragma: no cover - not Linux
        pass  # the limit is a backstop; the memory check (/proc) is Linux-only too
    warnings.simplefilter("ignore")
    sys.setrecursionlimit(3000)
    from fastnb import _threads

    # Every kernel call on its parallel path, however small the probe: a thread
    # count read from a file must reach OpenMP here as it would on large data.
    for kind in getattr(_threads, "PARALLEL_MIN_WORK", {}):
        _threads.PARALLEL_MIN_WORK[kind] = 0

    out = sys.stdout
    scratch = tempfile.mkdtemp(prefix="fastnb-fuzz-worker-")
    for line in sys.stdin:
        request = json.loads(line)
        before = _peak_reset()
        try:
            outcome, detail = check_one(request["path"], request["probe"],
                                        os.path.join(scratch, "again.npz"))
        except BaseException as error:  # noqa: BLE001
            outcome, detail = "wrong-exception", "oracle: " + _short(error)
        peak = _status("VmHWM") if before is not None else None
        if peak is not None and peak - before > MEMORY_LIMIT_BYTES and (
                outcome not in FAILURES):
            grown = (peak - before) >> 20
            outcome, detail = "memory", f"peak RSS +{grown} MiB ({detail})"
        out.write(json.dumps({"outcome": outcome, "detail": detail}) + "\n")
        out.flush()
    shutil.rmtree(scratch, ignore_errors=True)


class Oracle:
    """One worker process at a time, restarted after a crash or a hang."""

    def __init__(self, timeout=DEFAULT_TIMEOUT):
        self.timeout = timeout
        self.process = None
        self.starts = 0

    def _start(self):
        env = dict(os.environ, OMP_NUM_THREADS=os.environ.get("OMP_NUM_THREADS", "1"))
        # stderr goes to a file, not a pipe: a worker that prints more than a pipe
        # holds would block, and look like a hang.
        self.stderr = tempfile.TemporaryFile(mode="w+")
        self.process = subprocess.Popen(
            [sys.executable, "-P", os.path.abspath(__file__), "--worker"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.stderr,
            env=env, text=True, bufsize=1)
        self.starts += 1

    def check(self, path, probe):
        if self.process is None or self.process.poll() is not None:
            self._start()
        process = self.process
        try:
            process.stdin.write(json.dumps({"path": path, "probe": probe}) + "\n")
            process.stdin.flush()
        except BrokenPipeError:
            pass
        ready, _, _ = select.select([process.stdout], [], [], self.timeout)
        if not ready:
            self.close()
            return "hang", f"no answer in {self.timeout:g} s"
        line = process.stdout.readline()
        if not line:
            code = process.wait()
            self.stderr.seek(0)
            stderr = self.stderr.read()[-400:]
            self.close()
            return "crash", f"worker exit {code}: {stderr.strip()}"
        answer = json.loads(line)
        return answer["outcome"], answer["detail"]

    def close(self):
        if self.process is not None:
            self.process.kill()
            self.process.wait()
            for stream in (self.process.stdin, self.process.stdout, self.stderr):
                try:
                    stream.close()
                except OSError:
                    pass
            self.process = None


# -- the run ---------------------------------------------------------------------------
def run(*, seed=0, mutants=None, seconds=None, failures_dir=None, seeds=None,
        timeout=DEFAULT_TIMEOUT, log=print, families=FAMILIES):
    """Fuzz until ``mutants`` are checked or ``seconds`` have passed.

    ``seeds`` is ``make_seeds``'s dict (made in a temporary folder if None). Returns
    ``(counts, failures, by_family, elapsed)``: ``counts[label][outcome]``, the
    failures as dicts, the counts by mutation family, and the seconds taken.
    """
    own_seeds = None
    if seeds is None:
        own_seeds = tempfile.mkdtemp(prefix="fastnb-fuzz-seeds-")
        seeds = make_seeds(own_seeds)
    work = tempfile.mkdtemp(prefix="fastnb-fuzz-")
    parsed = {label: read_seed(path) for label, (path, _) in seeds.items()}
    labels = sorted(seeds)
    rng = np.random.default_rng(seed)
    mutator = Mutator(rng)
    oracle = Oracle(timeout)
    counts = defaultdict(Counter)
    by_family = defaultdict(Counter)
    failures = []
    start = time.monotonic()
    i = 0
    try:
        # The oracle must pass every seed as it is: a seed it refuses would make
        # each of its mutants look like a finding (or hide one).
        for label in labels:
            outcome, detail = oracle.check(*seeds[label])
            if (outcome, detail) != ("loaded-ok", ""):
                raise RuntimeError(f"seed {label} itself gives {outcome}: {detail}")
        while True:
            if mutants is not None and i >= mutants:
                break
            if seconds is not None and time.monotonic() - start >= seconds:
                break
            label = labels[i % len(labels)]
            header, arrays = parsed[label]
            mutant, used = mutator.mutate(header, arrays,
                                          family=None if families == FAMILIES
                                          else mutator.choice(list(families)))
            try:
                data = mutant.to_bytes(rng)
            except Exception as error:  # noqa: BLE001 - a mutation that cannot be written
                log(f"mutant {i} ({label}: {mutant.describe}) not written: {error!r}")
                i += 1
                continue
            path = os.path.join(work, "mutant.npz")
            with open(path, "wb") as handle:
                handle.write(data)
            outcome, detail = oracle.check(path, seeds[label][1])
            counts[label][outcome] += 1
            for family in set(used):
                by_family[family][outcome] += 1
            if outcome in FAILURES:
                record = {"index": i, "seed": seed, "label": label, "outcome": outcome,
                          "detail": detail, "mutations": mutant.describe}
                failures.append(record)
                log(f"FAIL {outcome} #{i} {label} {mutant.describe}: {detail}")
                if failures_dir:
                    _keep(failures_dir, record, data, seeds[label][1])
            i += 1
    finally:
        oracle.close()
        shutil.rmtree(work, ignore_errors=True)
        if own_seeds:
            shutil.rmtree(own_seeds, ignore_errors=True)
    return counts, failures, by_family, time.monotonic() - start


def _keep(folder, record, data, probe):
    os.makedirs(folder, exist_ok=True)
    stem = os.path.join(folder, f"{record['index']:06d}-{record['label']}-"
                                f"{record['outcome']}")
    with open(stem + ".npz", "wb") as handle:
        handle.write(data)
    shutil.copyfile(probe, stem + ".probe.pkl")
    with open(stem + ".json", "w") as handle:
        json.dump(record, handle, indent=1)


def table(counts):
    """The counts as a text table: one row per seed label, one column per outcome."""
    width = max(len(label) for label in counts) if counts else 10
    lines = [f"{'seed kind':<{width}} " + " ".join(f"{o:>15}" for o in OUTCOMES)
             + f" {'total':>7}"]
    total = Counter()
    for label in sorted(counts):
        row = counts[label]
        total.update(row)
        lines.append(f"{label:<{width}} " + " ".join(f"{row[o]:>15}" for o in OUTCOMES)
                     + f" {sum(row.values()):>7}")
    lines.append(f"{'all':<{width}} " + " ".join(f"{total[o]:>15}" for o in OUTCOMES)
                 + f" {sum(total.values()):>7}")
    return "\n".join(lines)


def distinct(failures):
    """The failures grouped by outcome and detail, with numbers, paths and quoted
    names blanked: ``[(count, signature, model kinds, first failure)]``, most
    frequent first."""
    groups = {}
    for failure in failures:
        detail = re.sub(r"(/[^\s:'\"]+)+", "<path>", failure["detail"])
        detail = re.sub(r"'[^']*'", "'_'", detail)
        detail = re.sub(r"\d+(\.\d+)?(e[-+]?\d+)?", "N", detail)[:110]
        key = f"{failure['outcome']}: {detail}"
        count, kinds, first = groups.get(key, (0, set(), failure))
        kinds.add(failure["label"].split("-")[0])
        groups[key] = (count + 1, kinds, first)
    return sorted(((count, key, sorted(kinds), first)
                   for key, (count, kinds, first) in groups.items()),
                  key=lambda item: -item[0])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, help="stop after this long")
    parser.add_argument("--mutants", type=int, help="stop after this many mutants")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT,
                        help="seconds per mutant before it counts as a hang")
    parser.add_argument("--failures", default="fuzz-failures",
                        help="folder for failing mutants (default: %(default)s)")
    parser.add_argument("--family", action="append", choices=FAMILIES,
                        help="only these mutation families (repeatable)")
    parser.add_argument("--replay", help="run the oracle on one file in this process")
    parser.add_argument("--probe", help="probe pickle for --replay (default: beside it)")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        return worker_main()
    if args.replay:
        probe = args.probe or args.replay[:-len(".npz")] + ".probe.pkl"
        scratch = tempfile.mkdtemp()
        try:
            print(check_one(args.replay, probe, os.path.join(scratch, "again.npz")))
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
        return 0
    if args.seconds is None and args.mutants is None:
        args.seconds = 120.0
    print(f"fastnb model-file fuzz: seed {args.seed}, "
          f"{'%g s' % args.seconds if args.seconds else ''}"
          f"{' ' if args.seconds and args.mutants else ''}"
          f"{'%d mutants' % args.mutants if args.mutants else ''}", flush=True)
    counts, failures, by_family, elapsed = run(
        seed=args.seed, mutants=args.mutants, seconds=args.seconds,
        failures_dir=args.failures, timeout=args.timeout,
        log=lambda text: print(text, flush=True),
        families=tuple(args.family) if args.family else FAMILIES)
    print(table(counts))
    print()
    print(table(by_family).replace("seed kind", "family   ", 1))
    print("(by mutation family: a mutant of two families counts in both)")
    if failures:
        print("\ndistinct failures (count, outcome: detail; models; first mutant):")
        for count, key, kinds, first in distinct(failures):
            print(f"{count:6d}  {key}\n        {', '.join(kinds)}; "
                  f"#{first['index']} {first['label']}: {first['mutations']}")
    total = sum(sum(row.values()) for row in counts.values())
    print(f"{total} mutants in {elapsed:.0f} s (seed {args.seed}); "
          f"{len(failures)} failures" + (f", written to {args.failures}/"
                                         if failures else ""))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
