"""Render the newest published benchmark run: the README's summary table, the
docs' full benchmarks page and the chart.

Usage::

    python -P benchmarks/render.py            # rewrite README table, docs page, chart
    python -P benchmarks/render.py --check    # exit 1, with a diff, if README.md or
                                              # docs/benchmarks.rst differ from a render
    python -P benchmarks/render.py --results benchmarks/results/RUN.json

Runs are published by ``side_by_side.py --json benchmarks/results/<date>-<commit>.json``
(see that script). Every benchmark figure in README.md and docs/benchmarks.rst comes
from here: nobody types one by hand, and ``tests/test_readme_benchmarks.py`` fails
when the README's table is not what this renders.
"""

import argparse
import difflib
import json
import pathlib
import re
import sys

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent
RESULTS = HERE / "results"
README = ROOT / "README.md"
DOCS_PAGE = ROOT / "docs" / "benchmarks.rst"
CHART = ROOT / "docs" / "benchmarks.png"
BEGIN = "<!-- BEGIN BENCHMARK TABLE -->"
END = "<!-- END BENCHMARK TABLE -->"

# The README's summary: one row per workload and operation that a user asks about,
# as (workload id, operation, what the row says). The workload id is the first
# word of the side-by-side workload name (its sizes follow it there).
SUMMARY = [
    ("G1", "fit", "GaussianNB fit, 1,000,000 x 100, 10 classes"),
    ("G1", "predict", "GaussianNB predict, same data"),
    ("G3", "predict 1 row", "GaussianNB predict, one row (latency)"),
    ("B1", "fit", "BernoulliNB fit, 1,000,000 x 200, float64"),
    ("B1", "predict", "BernoulliNB predict, same data"),
    ("M1", "fit", "MultinomialNB fit, CSR, 2^18 features"),
    ("M1", "predict", "MultinomialNB predict, CSR"),
    ("T1", "fit", "MultinomialNB fit, 100,000 hashed docs, 2^20 features"),
    ("T1", "predict", "MultinomialNB predict, same docs"),
    ("S1", "partial_fit", "MultinomialNB partial_fit, 1,000-doc batches"),
    ("C1", "fit", "CategoricalNB fit, 1,000,000 x 20 codes"),
    ("C1", "predict", "CategoricalNB predict, codes"),
    ("C1s", "fit", "CategoricalNB fit on strings (peer: encoder + CategoricalNB)"),
    ("C3", "partial_fit", "CategoricalNB partial_fit, 100-row batches"),
    ("X1", "fit", "ColumnwiseNB fit, mixed 1,000,000-row DataFrame"),
    ("V1", "fit_transform", "HashingVectorizer, raw text to CSR"),
]


def newest_results(folder=RESULTS):
    """The newest run in ``folder`` by its recorded date (file names break ties)."""
    runs = []
    for path in sorted(folder.glob("*.json")):
        record = json.loads(path.read_text())
        if record.get("format") == "fastnb-benchmark-run":
            runs.append((record["date"], path.name, record))
    if not runs:
        raise SystemExit(f"no published run in {folder}")
    return max(runs, key=lambda run: run[:2])[2]


def format_time(seconds):
    if seconds is None:
        return ""
    if seconds < 1e-3:
        return f"{seconds * 1e6:.1f} µs"
    if seconds < 1:
        return f"{seconds * 1e3:.1f} ms"
    return f"{seconds:.2f} s"


def workload_id(row):
    return row["workload"].split()[0]


def _matches(row, workload, operation):
    """A summary entry names a workload id and the start of an operation (S1's and
    C3's operations carry their batch size after the word)."""
    return (workload_id(row) == workload and
            (row["operation"] == operation or
             row["operation"].startswith(operation + " ")))


def summary_rows(record):
    """The rows of the README's table: for each SUMMARY entry, the run's first row
    that matches it and has a peer to compare with (rows absent from the run, as in
    a partial ``--only`` run, are left out)."""
    rows = []
    for workload, operation, label in SUMMARY:
        for row in record["timings"]:
            if _matches(row, workload, operation) and row["speedup"] is not None:
                rows.append((label, row))
                break
    return rows


def _target(row):
    if row["max_seconds"] is not None:
        return f"<= {format_time(row['max_seconds'])}"
    if row["target"] is not None:
        return f">= {row['target']:g}x"
    return ""


def _met(row):
    return {None: "", True: "yes", False: "no"}[row["ok"]]


def _spread(row):
    ratios = row["pair_ratios"]
    return f"{min(ratios):.1f}-{max(ratios):.1f}x" if ratios else ""


def _run_line(record):
    machine = record["machine"]
    versions = machine["versions"]
    return (f"{record['date'][:10]}, commit {record['commit'][:10]}, "
            f"{machine['cpu']}, {machine['usable_cores']} cores, "
            f"scikit-learn {versions.get('scikit-learn', '?')}")


def readme_table(record):
    """The README's block between its markers (markers included)."""
    lines = [
        BEGIN,
        "| workload | fastnb | peer | peer's time | speedup |",
        "|---|---|---|---|---|",
    ]
    for label, row in summary_rows(record):
        lines.append(f"| {label} | {format_time(row['fastnb_s'])} | {row['baseline']} "
                     f"| {format_time(row['baseline_s'])} | {row['speedup']:.1f}x |")
    lines += [
        "",
        f"Medians of {record['repeats']} runs, same process, speedup = median of "
        f"per-pair ratios; {_run_line(record)}. Every workload, target and the "
        "machine: [the benchmarks page](docs/benchmarks.rst).",
        END,
    ]
    return "\n".join(lines)


def _rst_table(header, rows):
    """A grid-free RST list-table."""
    out = [".. list-table::", "   :header-rows: 1", ""]
    for cells in [header] + rows:
        out.append(f"   * - {cells[0]}")
        out.extend(f"     - {cell}" for cell in cells[1:])
    return out


def docs_page(record):
    """docs/benchmarks.rst: every row of the run, the machine, how to reproduce."""
    machine = record["machine"]
    versions = ", ".join(f"{name} {version}"
                         for name, version in sorted(machine["versions"].items()))
    lines = [
        ".. This page is rendered by benchmarks/render.py from the newest run in",
        "   benchmarks/results/: do not edit it by hand.",
        "",
        "Benchmarks",
        "==========",
        "",
        "fastnb against scikit-learn (and, where named, River, wnb or another fastnb "
        "path), both called alternately in one process after a warm-up. Times are "
        f"medians of {record['repeats']} repeats; the speedup is the median of the "
        "per-pair ratios, and *pairs* gives their lowest and highest, so a noisy "
        "moment shows as spread rather than as a false ratio.",
        "",
        "The run",
        "-------",
        "",
        f"- date: {record['date']}",
        f"- commit: ``{record['commit']}``",
        f"- machine: {machine['cpu']}, {machine['cores']} cores "
        f"({machine['usable_cores']} usable), memory copy bandwidth "
        f"{machine['memory_bandwidth_gbs']} GB/s, {machine['platform']}",
        f"- versions: {versions}",
        f"- fastnb: OpenMP {record['config']['openmp']}, "
        f"{record['config']['threads']} threads, {record['config']['simd']} kernels",
        f"- command: ``{record['command']}``",
    ]
    if record.get("note"):
        lines.append(f"- note: {record['note']}")
    met = [row["ok"] for row in record["timings"] if row["ok"] is not None]
    met += [row["ok"] for row in record["memory"]]
    lines += [
        f"- targets met: {sum(met)} of {len(met)}",
        "",
        ".. image:: benchmarks.png",
        "   :alt: speedups over scikit-learn per workload, and time against n",
        "",
        "Timings",
        "-------",
        "",
    ]
    rows = [[row["workload"], row["operation"], format_time(row["fastnb_s"]),
             row["baseline"], format_time(row["baseline_s"]),
             f"{row['speedup']:.1f}x" if row["speedup"] is not None else "",
             _spread(row), _target(row), _met(row)]
            for row in record["timings"]]
    lines += _rst_table(["workload", "operation", "fastnb", "peer", "peer's time",
                         "speedup", "pairs", "target", "met"], rows)
    if record["memory"]:
        lines += ["", "Peak extra memory", "-----------------", "",
                  "Traced by ``tracemalloc`` during one call, against the array the "
                  "call returns; *allowed* is the model-sized slack on top of it.", ""]
        rows = [[row["workload"], row["operation"],
                 f"{row['peak_bytes'] / 2**20:.2f} MiB",
                 f"{row['output_bytes'] / 2**20:.2f} MiB",
                 f"+{row['allowance_bytes'] / 2**20:.2f} MiB",
                 "yes" if row["ok"] else "no"] for row in record["memory"]]
        lines += _rst_table(["workload", "operation", "peak extra", "returned array",
                             "allowed", "met"], rows)
    lines += [
        "",
        "Reproduce",
        "---------",
        "",
        "From a clone, with the ``bench`` extra installed "
        "(``python -m pip install \".[bench]\"``):",
        "",
        ".. code-block:: bash",
        "",
        "   python -P benchmarks/side_by_side.py --repeats 5 \\",
        "       --json benchmarks/results/$(date -u +%Y-%m-%dT%H%MZ).json \\",
        "       --chart docs/benchmarks.png",
        "   python -P benchmarks/render.py",
        "",
        "``--only G1,T1`` runs some workloads; ``--quick`` runs small sizes as a "
        "smoke test. The asv suite in ``benchmarks/benchmarks/`` tracks the same "
        "operations over commits (``cd benchmarks && asv run --python=same``).",
        "",
    ]
    return "\n".join(lines)


def render_readme(text, record):
    pattern = re.compile(re.escape(BEGIN) + r".*?" + re.escape(END), re.S)
    if not pattern.search(text):
        raise SystemExit(f"README.md has no {BEGIN} ... {END} block")
    return pattern.sub(lambda _: readme_table(record), text)


def check(readme_text, docs_text, record):
    """The differences between the files and what the record renders, as unified
    diff lines (empty when both are up to date)."""
    diff = []
    for name, current, rendered in (
            ("README.md", readme_text, render_readme(readme_text, record)),
            ("docs/benchmarks.rst", docs_text, docs_page(record))):
        diff += difflib.unified_diff(current.splitlines(), rendered.splitlines(),
                                     f"{name} (as it is)", f"{name} (rendered)",
                                     lineterm="")
    return diff


def draw(record, path=CHART):
    sys.path.insert(0, str(HERE))
    from chart import draw_chart

    draw_chart(record["timings"], record["sweep"], str(path), record["config"])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", default="", help="a run file (default: newest)")
    parser.add_argument("--check", action="store_true",
                        help="only compare; exit 1 with a diff when out of date")
    parser.add_argument("--no-chart", action="store_true",
                        help="leave docs/benchmarks.png as it is")
    args = parser.parse_args(argv)
    record = (json.loads(pathlib.Path(args.results).read_text()) if args.results
              else newest_results())
    readme = README.read_text()
    docs = DOCS_PAGE.read_text() if DOCS_PAGE.exists() else ""
    if args.check:
        diff = check(readme, docs, record)
        print("\n".join(diff) if diff else "README.md and docs/benchmarks.rst are "
              "what benchmarks/render.py renders")
        return 1 if diff else 0
    README.write_text(render_readme(readme, record))
    DOCS_PAGE.write_text(docs_page(record))
    if not args.no_chart and record.get("sweep"):
        draw(record)
    return 0


if __name__ == "__main__":
    sys.exit(main())
