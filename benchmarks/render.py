"""Render the newest published benchmark run: the README's summary table, the
docs' full benchmarks page and the chart.

Usage::

    python -P benchmarks/render.py            # rewrite README table, docs page, chart
    python -P benchmarks/render.py --check    # exit 1, with a diff, if README.md or
                                              # docs/benchmarks.rst differ from a render
    python -P benchmarks/render.py --results benchmarks/results/RUN.json

The rule on load: a run is rendered only if the machine was quiet, read from the
1-minute load average that ``side_by_side.py`` records before the run and at the
start of every row: at most 0.5 per usable core when the run starts (1.0 on a
2-core machine: nothing else was running), and at most 1 per usable core at the
start of every timed row (2.0 on 2 cores: the benchmark keeps at most one thread
per core busy, fastnb's threads defaulting to the usable cores, so more means
other work was waiting for the same cores). A workload that starts processes of
its own (K1: a local[2] Spark JVM and its Python workers, whose threads count in
the load average while they run) declares them, and its rows are judged by the
load recorded before it started them. A run that breaks it is refused
(exit 2, naming the rule and the rows); so is one that recorded no load (runs
taken before the load was recorded), unless ``--allow-unrecorded-load`` is given:
it is then rendered and marked "load not recorded".

Runs are published by ``side_by_side.py --json benchmarks/results/<date>-<commit>.json``
(see that script). The README's table and the docs page's main table come from the
newest full run; a targeted run (``--only``: H1, which runs only when named, or a few
workloads timed again) taken after it is shown on the docs page after it, with its
own date, commit and load, and is held to the same rule on load. Every benchmark figure in README.md and docs/benchmarks.rst comes
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
sys.path.insert(0, str(HERE))
from side_by_side import format_time  # noqa: E402  (the side-by-side table's format)

ROOT = HERE.parent
RESULTS = HERE / "results"
README = ROOT / "README.md"
DOCS_PAGE = ROOT / "docs" / "benchmarks.rst"
CHART = ROOT / "docs" / "benchmarks.png"
BEGIN = "<!-- BEGIN BENCHMARK TABLE -->"
END = "<!-- END BENCHMARK TABLE -->"

# The README's summary: the rows a user asks about, as (model, workload, operation).
# The workload is a regular expression matched at the start of the run's workload
# name (its sizes follow the id there, and ``--quick`` changes them); the operation
# is matched exactly. Each entry shows the matching row whose peer was fastest.
SUMMARY = [
    ("GaussianNB", r"G1 ", "fit"),
    ("GaussianNB", r"G1 ", "predict"),
    ("GaussianNB", r"G3 ", "predict 1 row"),
    ("BernoulliNB", r"B1 .* float64$", "fit"),
    ("BernoulliNB", r"B1 .* float64$", "predict"),
    ("MultinomialNB", r"M1 .* MultinomialNB$", "fit"),
    ("MultinomialNB", r"M1 .* MultinomialNB$", "predict"),
    ("ComplementNB", r"M1 .* ComplementNB$", "fit"),
    ("MultinomialNB", r"T1 .* MultinomialNB$", "fit"),
    ("MultinomialNB", r"T1 .* MultinomialNB$", "predict"),
    ("MultinomialNB", r"S1 .* MultinomialNB$", "partial_fit per batch"),
    ("MultinomialNB", r"S1 .* MultinomialNB$", "stream (partial_fit per 1,000)"),
    ("CategoricalNB", r"C1 ", "fit"),
    ("CategoricalNB", r"C1 ", "predict"),
    ("CategoricalNB", r"C1s ", "fit"),
    ("CategoricalNB", r"C3 ", "partial_fit per batch"),
    ("ColumnwiseNB", r"X1 .* slice$", "predict"),
    ("fastnb.text", r"V1 .* HashingVectorizer$", "fit_transform, 2 threads"),
    ("fastnb.text", r"V1 .* CountVectorizer$", "fit_transform, 2 threads"),
    ("fastnb.text + MultinomialNB", r"V1 .* HashingVectorizer\+MultinomialNB$",
     "raw text to predictions"),
]

# Baselines that are fastnb itself (another input type, a memory-bound floor, its
# sub-models called by hand): the benchmarks page shows them, the summary does not.
NOT_PEERS = ("fastnb", "X.sum()", "sum of sub-models")


# The rule on load (see the module's docstring): the 1-minute load average per
# usable core, at most this when the run starts, and at the start of each row.
RUN_START_LOAD_PER_CORE = 0.5
ROW_LOAD_PER_CORE = 1.0
LOAD_RULE = (
    "a run is published only if the machine was quiet, its 1-minute load average "
    f"at most {RUN_START_LOAD_PER_CORE:g} per usable core when the run starts, and at "
    f"most {ROW_LOAD_PER_CORE:g} per usable core at the start of every timed row "
    "(for a workload that starts processes of its own, such as K1's Spark JVM and "
    "Python workers, whose threads count in the load average: before it started them)")


class NoPublishedRun(LookupError):
    """benchmarks/results/ holds no run to render."""


def is_targeted(record):
    """Whether the run timed some workloads only (``side_by_side.py --only``): a
    targeted run, shown on the docs page after the newest full run, never as the
    README's table."""
    return re.search(r"\s--only(?:=|\s)", _command(record)) is not None


def _runs(folder):
    runs = []
    for path in sorted(pathlib.Path(folder).glob("*.json")):
        record = json.loads(path.read_text())
        if record.get("format") == "fastnb-benchmark-run":
            runs.append((record["date"], path.name, record))
    return runs


def newest_results(folder=RESULTS):
    """The newest full run in ``folder`` by its recorded date (file names break
    ties); the newest targeted run (``is_targeted``) if the folder holds no full
    run."""
    runs = _runs(folder)
    if not runs:
        raise NoPublishedRun(
            f"no published run in {folder}: publish one with "
            "`python -P benchmarks/side_by_side.py --repeats 5 --json "
            "benchmarks/results/<date>-<commit>.json --chart docs/benchmarks.png`")
    full = [run for run in runs if not is_targeted(run[2])]
    return max(full or runs, key=lambda run: run[:2])[2]


def targeted_after(record, folder=RESULTS):
    """The targeted runs in ``folder`` taken after the full run ``record``,
    oldest first: the docs page shows their rows after the full run's (a workload
    that runs only when named, such as H1, or a few workloads timed again
    after a change, without the hour of a full run)."""
    if record is None or is_targeted(record):
        return []
    return [run for _, _, run in sorted(_runs(folder), key=lambda run: run[:2])
            if is_targeted(run) and run["date"] > record["date"]]


def load_recorded(record):
    """Whether the run recorded the machine's load (runs taken before
    side_by_side.py did, or on a platform without load averages, did not)."""
    return (record.get("load_at_start", {}).get("start") is not None and
            all(row.get("load", {}).get("start") is not None
                for row in record["timings"]))


def load_problems(record):
    """The ways a run that recorded its load breaks the rule on load, one line
    each (empty when it keeps it)."""
    problems = []
    start = record["load_at_start"]
    limit = RUN_START_LOAD_PER_CORE * start["cpus"]
    if start["start"][0] > limit:
        problems.append(f"the run's start: 1-minute load {start['start'][0]:.2f}, "
                        f"over {limit:g} ({start['cpus']} usable cores)")
    for row in record["timings"]:
        load = row["load"]
        limit = ROW_LOAD_PER_CORE * load["cpus"]
        if "before_own_processes" in load:
            # its own JVM and workers are in load["start"]: what was running
            # besides them shows in the load before it started them
            if load["before_own_processes"][0] > limit:
                problems.append(
                    f"{row['workload']} / {row['operation']}: 1-minute load "
                    f"{load['before_own_processes'][0]:.2f} before it started "
                    f"{load['own_processes']}, over {limit:g} "
                    f"({load['cpus']} usable cores)")
        elif load["start"][0] > limit:
            problems.append(f"{row['workload']} / {row['operation']}: 1-minute load "
                            f"{load['start'][0]:.2f} at its start, over {limit:g} "
                            f"({load['cpus']} usable cores)")
    return problems


def publish_refusal(record, allow_unrecorded_load=False):
    """Why the run may not be published ("" when it may): it broke the rule on
    load, or recorded no load and ``allow_unrecorded_load`` is False."""
    if not load_recorded(record):
        if allow_unrecorded_load:
            return ""
        return ("refused: this run recorded no load, so the rule on load ("
                f"{LOAD_RULE}) cannot be checked; take a new run with "
                "benchmarks/side_by_side.py, or pass --allow-unrecorded-load to "
                "render it marked \"load not recorded\"")
    problems = load_problems(record)
    if not problems:
        return ""
    return "\n".join([f"refused: the run was measured under load. The rule: "
                      f"{LOAD_RULE}. Measured under load:"]
                     + [f"  {problem}" for problem in problems]
                     + ["Take the run again on a quiet machine."])


def _is_peer(row):
    return (row["speedup"] is not None and
            not any(row["baseline"].startswith(name) for name in NOT_PEERS))


def summary_rows(record):
    """The README's rows: for each SUMMARY entry, (model, row) for the run's row
    of that workload and operation whose peer was fastest. Entries the run lacks
    (a partial ``--only`` run) are left out."""
    rows = []
    for model, workload, operation in SUMMARY:
        pattern = re.compile(workload)
        candidates = [row for row in record["timings"]
                      if pattern.match(row["workload"]) and
                      row["operation"] == operation and _is_peer(row)]
        if candidates:
            rows.append((model, min(candidates, key=lambda row: row["baseline_s"])))
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
    commit, _, dirty = record["commit"].partition("+")
    return (f"{record['date'][:10]}, commit {commit[:10]}"
            f"{' with uncommitted changes' if dirty else ''}, "
            f"{machine['cpu']}, {machine['usable_cores']} cores, "
            f"scikit-learn {versions.get('scikit-learn', '?')}"
            f"{'' if load_recorded(record) else ', load not recorded'}")


def readme_table(record):
    """The README's block between its markers (markers included); while no run is
    published (``record`` is None), a line that says so."""
    if record is None:
        return "\n".join([BEGIN, NO_RUN.replace("``", "`") + " [The benchmarks "
                           "page](docs/benchmarks.rst) says how to publish one.", END])
    lines = [
        BEGIN,
        "| model | workload | operation | fastnb | best peer | peer's time | speedup |",
        "|---|---|---|---|---|---|---|",
    ]
    for model, row in summary_rows(record):
        lines.append(f"| {model} | {row['workload']} | {row['operation']} "
                     f"| {format_time(row['fastnb_s'])} | {row['baseline']} "
                     f"| {format_time(row['baseline_s'])} | {row['speedup']:.1f}x |")
    lines += [
        "",
        f"Medians of {record['repeats']} repeats in one process; speedup: the median "
        f"of the per-pair ratios. Run of {_run_line(record)}. Every workload, its "
        "target, the pair spread and the machine the run measured: "
        "[the benchmarks page](docs/benchmarks.rst).",
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


_PAGE_HEAD = [
    ".. This page is rendered by benchmarks/render.py from the newest run in",
    "   benchmarks/results/: do not edit it by hand.",
    "",
    "Benchmarks",
    "==========",
    "",
    "How fast fastnb is next to the libraries it replaces, on workloads a user "
    "meets. Every figure on this page, in the README's table and in the chart is "
    "rendered by ``benchmarks/render.py`` from the newest full run published in "
    "``benchmarks/results/`` (and, after its rows, the targeted runs taken since "
    "it); none is typed by hand.",
    "",
    "What is measured",
    "----------------",
    "",
    "Each row times one operation (``fit``, ``predict``, a stream of "
    "``partial_fit`` batches, ...) of one workload: an id (G for GaussianNB, B "
    "BernoulliNB, M and T MultinomialNB and ComplementNB on counts and text, S "
    "streams, D streams that drift, C CategoricalNB, X ColumnwiseNB, V "
    "fastnb.text's vectorizers, E fastnb.inspection, O ONNX, K fastnb.spark) "
    "followed by its sizes. The *peer* is what fastnb is "
    "timed against: scikit-learn's estimator of the same name, or where named "
    "River, wnb, MLlib, or fastnb itself on another path (another input type, or "
    "a memory-bound floor such as ``X.sum()``). A *target* is the speedup (or "
    "the time) the project holds itself to; *met* says whether the run met it.",
    "",
    "How",
    "---",
    "",
    "fastnb and its peer are called alternately in one process, on the same "
    "data, after a warm-up call each. Times are medians of the run's repeats; the "
    "speedup is the median of the per-pair ratios (peer time over fastnb time, "
    "pair by pair), and *pairs* gives their lowest and highest, so a noisy moment "
    "shows as spread rather than as a false ratio. The peak extra memory of a "
    "call is traced by ``tracemalloc``.",
    "",
    "The machine's load",
    "------------------",
    "",
    "Times taken while other work shares the cores are that work's as much as "
    "fastnb's, so the rule is: " + LOAD_RULE + ". ``side_by_side.py`` records "
    "the 1, 5 and 15-minute load averages (``os.getloadavg()``) and the usable "
    "cores before the run and at the start and end of every row, and "
    "``render.py`` refuses to publish a run that breaks the rule, naming the rows. "
    f"On a 2-core machine that is a load of at most "
    f"{2 * RUN_START_LOAD_PER_CORE:g} when the run starts (nothing else running) "
    f"and at most {2 * ROW_LOAD_PER_CORE:g} at each row's start: the benchmark "
    "itself keeps at most one thread per usable core busy (fastnb's threads "
    "default to the usable cores), so more than that means other work was "
    "waiting for the same cores. The *load* column (where the run recorded it) "
    "gives each row's 1-minute load average at its start.",
    "",
]

_REPRODUCE = [
    "Reproduce",
    "---------",
    "",
    "From a clone, with the ``bench`` extra installed "
    "(``python -m pip install \".[bench]\"``), on a quiet machine:",
    "",
    ".. code-block:: bash",
    "",
    "   stamp=$(date -u +%Y-%m-%dT%H%MZ)-$(git rev-parse --short HEAD)",
    "   python -P benchmarks/side_by_side.py --repeats 5 --with K1 \\",
    "       --json benchmarks/results/$stamp.json --chart docs/benchmarks.png",
    "   python -P benchmarks/render.py",
    "",
    "``--with K1`` adds the Spark workload, which starts a JVM (it needs the "
    "``spark`` extra and Java 17; leave it out to time the rest). "
    "``--only G1,T1`` runs some workloads: published, such a targeted run is "
    "shown after the full run's rows, never in the README's table. "
    "``--quick`` runs small sizes as a "
    "smoke test. The asv suite in ``benchmarks/benchmarks/`` tracks the same "
    "operations over commits (``cd benchmarks && asv run --python=same``).",
    "",
]

NO_RUN = "No benchmark run is published in ``benchmarks/results/`` yet."


def _command(record):
    """The run's command, without its ``--note`` (a remark for whoever publishes
    the run, kept in the file; older runs recorded it unquoted, up to the next
    option)."""
    return re.sub(r" --note(?:=| ).*?(?= --|$)", "", record["command"])


def _load_line(record):
    if not load_recorded(record):
        return ("not recorded: the run predates side_by_side.py's record of the "
                "load, so the rule on load was not checked")
    start = record["load_at_start"]
    plain = [row["load"] for row in record["timings"]
             if "before_own_processes" not in row["load"]]
    own = [row["load"] for row in record["timings"]
           if "before_own_processes" in row["load"]]
    line = f"1-minute load average {start['start'][0]:.2f} when the run started"
    if plain:
        line += (f", at most {max(load['start'][0] for load in plain):.2f} at the "
                 "start of a timed row")
    for what in sorted({load["own_processes"] for load in own}):
        loads = [load for load in own if load["own_processes"] == what]
        line += (f"; {max(load['before_own_processes'][0] for load in loads):.2f} "
                 f"before the run started {what}, and at most "
                 f"{max(load['start'][0] for load in loads):.2f} at the start of "
                 "one of those rows, with them running")
    return line + f", on {start['cpus']} usable cores"


def docs_page(record, targeted=()):
    """docs/benchmarks.rst: what is measured and how, the machine, every row of
    the run, the rows of the ``targeted`` runs taken since, how to reproduce
    (only how to reproduce while no run is published: ``record`` is None)."""
    if record is None:
        return "\n".join(_PAGE_HEAD + [NO_RUN, ""] + _REPRODUCE)
    machine = record["machine"]
    versions = ", ".join(f"{name} {version}"
                         for name, version in sorted(machine["versions"].items()))
    lines = _PAGE_HEAD + [
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
        f"- command: ``{_command(record)}``",
        f"- repeats: {record['repeats']}",
        f"- load: {_load_line(record)}",
    ]
    if record["quick"]:
        lines.append("- sizes: ``--quick``, small ones for a smoke test, not the "
                     "workloads' own")
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
    lines += _timing_rows(record)
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
    for run in targeted:
        lines += _targeted_section(run)
    lines += [""] + _REPRODUCE
    return "\n".join(lines)


def _timing_rows(record):
    recorded = load_recorded(record)
    rows = [[row["workload"], row["operation"], format_time(row["fastnb_s"]),
             row["baseline"], format_time(row["baseline_s"]),
             f"{row['speedup']:.1f}x" if row["speedup"] is not None else "",
             _spread(row), _target(row), _met(row)]
            + ([f"{row['load']['start'][0]:.2f}"] if recorded else [])
            for row in record["timings"]]
    return _rst_table(["workload", "operation", "fastnb", "peer", "peer's time",
                       "speedup", "pairs", "target", "met"]
                      + (["load"] if recorded else []), rows)


def _targeted_section(run):
    """A targeted run's rows, with its own date, commit, command and load."""
    title = f"Targeted run of {run['date'][:10]}, commit {run['commit'][:10]}"
    met = [row["ok"] for row in run["timings"] if row["ok"] is not None]
    met += [row["ok"] for row in run["memory"]]
    lines = ["", title, "-" * len(title), "",
             f"- date: {run['date']}",
             f"- commit: ``{run['commit']}``",
             f"- command: ``{_command(run)}``",
             f"- repeats: {run['repeats']}",
             f"- load: {_load_line(run)}"]
    if run["quick"]:
        lines.append("- sizes: ``--quick``, small ones for a smoke test, not the "
                     "workloads' own")
    lines += [f"- targets met: {sum(met)} of {len(met)}", ""]
    return lines + _timing_rows(run)


def render_readme(text, record):
    pattern = re.compile(re.escape(BEGIN) + r".*?" + re.escape(END), re.S)
    if not pattern.search(text):
        raise ValueError(f"README.md has no {BEGIN} ... {END} block")
    return pattern.sub(lambda _: readme_table(record), text)


def check(readme_text, docs_text, record, targeted=()):
    """The differences between the files and what the record (and the targeted
    runs since) renders, as unified diff lines (empty when both are up to date)."""
    diff = []
    for name, current, rendered in (
            ("README.md", readme_text, render_readme(readme_text, record)),
            ("docs/benchmarks.rst", docs_text, docs_page(record, targeted))):
        diff += difflib.unified_diff(current.splitlines(), rendered.splitlines(),
                                     f"{name} (as it is)", f"{name} (rendered)",
                                     lineterm="")
    return diff


def draw(record, path=CHART):
    from chart import draw_chart

    draw_chart(record["timings"], record["sweep"], str(path), record["config"])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", default="", help="a run file (default: newest)")
    parser.add_argument("--check", action="store_true",
                        help="only compare; exit 1 with a diff when out of date")
    parser.add_argument("--no-chart", action="store_true",
                        help="leave docs/benchmarks.png as it is")
    parser.add_argument("--allow-unrecorded-load", action="store_true",
                        help="render a run that recorded no load (one taken before "
                             "side_by_side.py recorded it), marked 'load not "
                             "recorded'; a run over the rule on load is refused "
                             "all the same")
    parser.add_argument("--readme", default=str(README), help=argparse.SUPPRESS)
    parser.add_argument("--docs-page", default=str(DOCS_PAGE), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    try:
        record = (json.loads(pathlib.Path(args.results).read_text()) if args.results
                  else newest_results())
    except NoPublishedRun as error:
        print(error, file=sys.stderr)
        record = None
    targeted = [] if args.results else targeted_after(record)
    for run in ([] if record is None else [record]) + targeted:
        refusal = publish_refusal(run, args.allow_unrecorded_load)
        if refusal:
            print(f"{run['date']} {run['commit'][:10]}: {refusal}", file=sys.stderr)
            return 2
    readme_path, docs_path = pathlib.Path(args.readme), pathlib.Path(args.docs_page)
    readme = readme_path.read_text()
    docs = docs_path.read_text() if docs_path.exists() else ""
    if args.check:
        diff = check(readme, docs, record, targeted)
        print("\n".join(diff) if diff else "README.md and docs/benchmarks.rst are "
              "what benchmarks/render.py renders")
        return 1 if diff else 0
    readme_path.write_text(render_readme(readme, record))
    docs_path.write_text(docs_page(record, targeted))
    if not args.no_chart and record is not None and record.get("sweep"):
        draw(record)
    return 0


if __name__ == "__main__":
    sys.exit(main())
