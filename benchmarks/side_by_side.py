"""Print fastnb's speed next to scikit-learn's, as a markdown table.

Usage::

    python benchmarks/side_by_side.py            # the full workloads (a few minutes)
    python benchmarks/side_by_side.py --quick    # small sizes, a smoke test
    python benchmarks/side_by_side.py --only G1,B1 --repeats 7 --json out.json
    python benchmarks/side_by_side.py --chart docs/benchmarks.png  # also draw it
    python benchmarks/side_by_side.py --json benchmarks/results/RUN.json  # publish

``--json`` writes the run as data (commit, date, machine, library versions, every
repeat time of every row, the machine's load before the run and at the start and
end of every row, memory rows, the scaling sweep when ``--chart`` is given); ``benchmarks/render.py`` turns the newest file of ``benchmarks/results/``
into the README's table, the chart and the docs' benchmarks page.

Each row is the median of ``--repeats`` (>= 5) timings after a warm-up, and the
speedup is the median of per-pair ratios measured alternately in this process;
"pairs" gives the lowest and highest of those ratios.
Workloads live in ``workloads_*.py`` beside this file; each defines ``cases()``
and optionally ``memory_cases()`` and ``accuracy_tables()`` (figures that are
not timings, printed after the tables). A module that sets ``ONLY_WHEN_NAMED`` (a
workload prefix) runs only when ``--only`` or ``--with`` names it: K1 starts a
Spark JVM, so ``--only K1`` runs it alone and ``--with K1`` adds it to the full
run (as a published run does).
"""

import argparse
import datetime
import importlib
import json
import os
import pathlib
import platform
import shlex
import subprocess
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from harness import run_case, run_memory_case  # noqa: E402


def format_time(seconds):
    if seconds is None:
        return ""
    if seconds < 1e-3:
        return f"{seconds * 1e6:.1f} µs"
    if seconds < 1:
        return f"{seconds * 1e3:.1f} ms"
    return f"{seconds:.2f} s"


def _workload_modules(prefixes=(), extra=()):
    """The workload modules to run: all of them, or those ``--only`` names
    (``prefixes``); a module that runs only when named joins when ``--only`` or
    ``--with`` (``extra``) names it."""
    named = tuple(prefixes) + tuple(extra)
    modules = []
    for path in sorted(HERE.glob("workloads_*.py")):
        module = importlib.import_module(path.stem)
        only = getattr(module, "ONLY_WHEN_NAMED", None)
        if only and not any(only.startswith(p) or p.startswith(only) for p in named):
            continue
        modules.append(module)
    # A module that starts processes of its own (K1's Spark JVM) runs last: its
    # threads stay in the 1-minute load average for minutes after it, where they
    # would count against the rows of the modules after it.
    modules.sort(key=lambda module: hasattr(module, "OWN_PROCESSES"))
    yield from modules


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--only", default="", help="comma-separated workload prefixes")
    parser.add_argument("--with", dest="with_", default="",
                        help="comma-separated workloads that run only when named "
                             "(K1, Spark), added to the full run")
    parser.add_argument("--json", default="", help="also write the results here")
    parser.add_argument("--note", default="",
                        help="a remark kept in the --json record (say, the machine "
                             "was shared)")
    parser.add_argument("--chart", default="",
                        help="also draw the table (and a scaling sweep) to this image; "
                             "needs matplotlib")
    args = parser.parse_args(argv)
    # The machine's load before this run adds its own (benchmarks/render.py
    # refuses to publish a run that starts or runs under load).
    load_at_start = machine_load()
    # Read before the run writes anything (the chart is a tracked file) and before
    # anyone can commit during it: the record names the code that was measured.
    commit = _commit()
    started = datetime.datetime.now(datetime.timezone.utc).strftime(
        "%Y-%m-%dT%H:%M:%SZ")
    if args.repeats < 1:
        parser.error("--repeats must be >= 1")
    prefixes = tuple(p.strip() for p in args.only.split(",") if p.strip())
    extra = tuple(p.strip() for p in args.with_.split(",") if p.strip())
    if prefixes:
        prefixes += extra  # --only G1 --with K1: both

    import fastnb

    config = fastnb.show_config()
    print(f"fastnb {config['version']} | OpenMP {config['openmp']} | "
          f"{config['threads']} threads | {config['simd']} kernels | "
          f"median of {args.repeats} after a warm-up\n")
    print("| workload | operation | fastnb | baseline | baseline time | speedup | "
          "pairs | target | met |")
    print("|---|---|---|---|---|---|---|---|---|")
    results, memory = [], []
    for module in _workload_modules(prefixes, extra):
        # A workload that starts processes of its own (K1: a Spark JVM and its
        # Python workers) raises the load average by itself; the load before it
        # started them is what tells whether anything else was running
        # (benchmarks/render.py judges its rows by it).
        own = _own_processes_load(module)
        for case in module.cases(quick=args.quick):
            if prefixes and not case.workload.startswith(prefixes):
                continue
            load = machine_load()
            row = run_case(case, args.repeats)
            row["load"] = dict(load, end=machine_load()["start"], **own)
            results.append(row)
            target = ""
            if row["target"] is not None:
                target = f">= {row['target']:g}x"
            if row["max_seconds"] is not None:
                target = f"<= {format_time(row['max_seconds'])}"
            speedup = f"{row['speedup']:.1f}x" if row["speedup"] is not None else ""
            pairs = ""
            if row["pair_ratios"]:
                pairs = (f"{min(row['pair_ratios']):.1f}x-"
                         f"{max(row['pair_ratios']):.1f}x")
            met = {None: "", True: "yes", False: "**no**"}[row["ok"]]
            print(f"| {row['workload']} | {row['operation']} | "
                  f"{format_time(row['fastnb_s'])} | {row['baseline']} | "
                  f"{format_time(row['baseline_s'])} | {speedup} | {pairs} | {target} | "
                  f"{met} |", flush=True)
        if hasattr(module, "memory_cases"):
            for case in module.memory_cases(quick=args.quick):
                if prefixes and not case.workload.startswith(prefixes):
                    continue
                load = machine_load()
                row = run_memory_case(case)
                row["load"] = dict(load, end=machine_load()["start"], **own)
                memory.append(row)
    if memory:
        print("\n| workload | operation | peak extra memory | returned array | "
              "allowed | met |")
        print("|---|---|---|---|---|---|")
        for row in memory:
            print(f"| {row['workload']} | {row['operation']} | "
                  f"{row['peak_bytes'] / 2**20:.2f} MiB | "
                  f"{row['output_bytes'] / 2**20:.2f} MiB | "
                  f"+{row['allowance_bytes'] / 2**20:.2f} MiB | "
                  f"{'yes' if row['ok'] else '**no**'} |")
    accuracy = []
    for module in _workload_modules():
        # a workload whose figures are accuracies, not timings (D1's streams)
        if hasattr(module, "accuracy_tables"):
            for title, lines, records in module.accuracy_tables(quick=args.quick,
                                                                prefixes=prefixes):
                print(f"\n{title}\n")
                print("\n".join(lines), flush=True)
                accuracy.append({"title": title, "rows": records})
    sweep = []
    if args.chart:
        from chart import draw_chart, scaling_sweep

        sweep = scaling_sweep(quick=args.quick, repeats=args.repeats)
        draw_chart(results, sweep, args.chart, config)
        print(f"\nchart written to {args.chart}")
    if args.json:
        record = {
            "format": "fastnb-benchmark-run",
            "format_version": 1,
            "commit": commit,
            "date": started,
            "command": "python -P benchmarks/side_by_side.py "
                       + shlex.join(argv if argv is not None else sys.argv[1:]),
            "quick": args.quick,
            "repeats": args.repeats,
            "note": args.note,
            "machine": _machine(),
            "load_at_start": load_at_start,
            "config": config,
            "timings": results,
            "memory": memory,
            "accuracy": accuracy,
            "sweep": sweep,
        }
        pathlib.Path(args.json).write_text(json.dumps(record, indent=1) + "\n")
        print(f"\nresults written to {args.json}")
    return 0


def _usable_cores():
    return (len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
            else os.cpu_count())


def machine_load():
    """The machine's load now, as ``{"start": [1, 5, 15-minute load averages],
    "cpus": usable cores}``: ``os.getloadavg()`` (null where the platform has
    none) and the cores it is to be read against. Recorded as the run's
    ``load_at_start`` and, with ``end`` (the averages after it), as every row's
    ``load``."""
    try:
        averages = [round(value, 2) for value in os.getloadavg()]
    except (AttributeError, OSError):
        averages = None
    return {"start": averages, "cpus": _usable_cores()}


def _own_processes_load(module):
    """For a workload module that declares ``OWN_PROCESSES`` (what it starts),
    ``{"own_processes": that, "before_own_processes": the 1, 5, 15-minute load
    averages now}``, taken before its ``cases()`` start them; ``{}`` otherwise."""
    what = getattr(module, "OWN_PROCESSES", None)
    if what is None:
        return {}
    return {"own_processes": what, "before_own_processes": machine_load()["start"]}


def _commit():
    """The checkout's commit (with "+dirty" when it has uncommitted changes to
    tracked files), or "unknown" outside a git checkout."""
    try:
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=HERE, check=True,
                              capture_output=True, text=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "-uno"], cwd=HERE,
                               check=True, capture_output=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head + ("+dirty" if dirty.strip() else "")


def _memory_bandwidth_gbs():
    """Copy bandwidth of this machine now: the best of 5 copies of 256 MiB,
    counting the bytes read and written. A shared or throttled machine shows here
    first, so the record keeps it beside the timings."""
    import numpy as np

    source = np.ones(1 << 25)
    target = np.empty_like(source)
    best = float("inf")
    for _ in range(5):
        start = time.perf_counter()
        np.copyto(target, source)
        best = min(best, time.perf_counter() - start)
    return round(2 * source.nbytes / best / 1e9, 2)


def _cpu_model():
    try:
        for line in pathlib.Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _machine():
    versions = {"python": platform.python_version()}
    for name in ("fastnb", "numpy", "sklearn", "scipy", "river", "wnb", "pandas"):
        try:
            module = importlib.import_module(name)
        except ImportError:
            continue
        versions["scikit-learn" if name == "sklearn" else name] = getattr(
            module, "__version__", "unknown")
    usable = _usable_cores()
    return {
        "cpu": _cpu_model(),
        "cores": os.cpu_count(),
        "usable_cores": usable,
        "memory_bandwidth_gbs": _memory_bandwidth_gbs(),
        "platform": platform.platform(),
        "versions": versions,
    }


if __name__ == "__main__":
    sys.exit(main())
