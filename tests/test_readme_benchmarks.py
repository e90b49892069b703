"""The README's benchmark table and the docs' benchmarks page are what
benchmarks/render.py renders from the newest run in benchmarks/results/: nobody
types a benchmark number by hand."""

import importlib.util
import json
import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
RENDER = ROOT / "benchmarks" / "render.py"

pytestmark = pytest.mark.skipif(
    not RENDER.exists() or not (ROOT / "README.md").exists(),
    reason="needs the source tree (benchmarks/render.py and README.md), not an "
           "installed wheel alone")


@pytest.fixture(scope="module")
def render():
    spec = importlib.util.spec_from_file_location("fastnb_bench_render", RENDER)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def record(render):
    """The newest published run, or None while none is published (the README and
    the docs page must then say so, and show no figure)."""
    try:
        return render.newest_results()
    except render.NoPublishedRun:
        return None


@pytest.fixture(scope="module")
def published(record):
    if record is None:
        pytest.skip("no run is published in benchmarks/results/ yet")
    return record


def _row(workload, operation, fastnb_s, baseline, baseline_s, target=None, load=1.2):
    ratios = [baseline_s / fastnb_s * scale for scale in (0.9, 1.0, 1.1)]
    return {"workload": workload, "operation": operation, "baseline": baseline,
            "fastnb_s": fastnb_s, "baseline_s": baseline_s, "speedup": ratios[1],
            "pair_ratios": ratios, "fastnb_times_s": [fastnb_s] * 3,
            "baseline_times_s": [baseline_s] * 3, "target": target,
            "max_seconds": None, "ok": None if target is None else True,
            "load": {"start": [load, 0.8, 0.5], "end": [load, 0.9, 0.5], "cpus": 2}}


@pytest.fixture
def run_file(tmp_path):
    """A small run, written as side_by_side.py --json writes one."""
    run = {
        "format": "fastnb-benchmark-run", "format_version": 1,
        "commit": "0123456789abcdef", "date": "2026-01-02T03:04:05Z",
        "command": "python -P benchmarks/side_by_side.py --only G1 --repeats 3",
        "quick": False, "repeats": 3, "note": "",
        "machine": {"cpu": "a CPU", "cores": 2, "usable_cores": 2,
                    "memory_bandwidth_gbs": 10.0, "platform": "Linux",
                    "versions": {"python": "3.11", "fastnb": "0.1",
                                 "numpy": "2.0", "scikit-learn": "1.6"}},
        "config": {"openmp": True, "threads": 2, "simd": "avx2"},
        "timings": [_row("G1 n=1e+06 d=100 k=10", "fit", 0.05, "scikit-learn", 1.5, 30),
                    _row("G1 n=1e+06 d=100 k=10", "predict", 0.1, "scikit-learn", 6.5)],
        "memory": [], "sweep": [],
        "load_at_start": {"start": [0.2, 0.3, 0.4], "cpus": 2},
    }
    path = tmp_path / "2026-01-02T0304Z-0123456.json"
    path.write_text(json.dumps(run))
    return path


def _texts():
    return ((ROOT / "README.md").read_text(),
            (ROOT / "docs" / "benchmarks.rst").read_text())


def _hand_edit(render, readme):
    """The README with the first speedup of its table raised by 1.0, as a hand
    edit would, and the number typed."""
    match = re.compile(r"\| (\d+\.\d)x \|").search(readme, readme.index(render.BEGIN))
    assert match is not None, "the README's table shows no speedup"
    typed = f"{float(match.group(1)) + 1.0:.1f}"
    return readme[:match.start(1)] + typed + readme[match.end(1):], typed


def test_readme_and_docs_page_are_rendered(render, record):
    readme, docs = _texts()
    diff = render.check(readme, docs, record, render.targeted_after(record))
    assert not diff, ("README.md or docs/benchmarks.rst is not what "
                      "`python -P benchmarks/render.py` renders:\n" + "\n".join(diff))


def test_a_hand_edited_number_fails_the_check(render, run_file):
    run = json.loads(run_file.read_text())
    readme = render.render_readme((ROOT / "README.md").read_text(), run)
    docs = render.docs_page(run)
    assert not render.check(readme, docs, run)
    edited, typed = _hand_edit(render, readme)
    diff = render.check(edited, docs, run)
    assert any(line.startswith("-") and f"| {typed}x |" in line for line in diff), diff
    assert render.check(readme, docs + "\nA typed figure: 3.0x\n", run)


def test_check_command_exits_non_zero_with_a_diff(render, run_file, tmp_path, capsys):
    paths = ["--results", str(run_file), "--no-chart",
             "--readme", str(tmp_path / "README.md"),
             "--docs-page", str(tmp_path / "benchmarks.rst")]
    (tmp_path / "README.md").write_text((ROOT / "README.md").read_text())
    assert render.main(paths) == 0
    rendered = (tmp_path / "README.md").read_text()
    assert render.main(["--check", *paths]) == 0
    edited, typed = _hand_edit(render, rendered)
    (tmp_path / "README.md").write_text(edited)
    capsys.readouterr()
    assert render.main(["--check", *paths]) == 1
    out = capsys.readouterr().out
    assert any(line.startswith("-|") and f"| {typed}x |" in line
               for line in out.splitlines()), out
    # Rendering puts the run's figure back.
    assert render.main(paths) == 0
    assert (tmp_path / "README.md").read_text() == rendered


def test_no_published_run_shows_no_figure(render):
    block = render.readme_table(None)
    assert "yet" in block and not re.search(r"\d", block.replace(render.BEGIN, "")
                                            .replace(render.END, ""))
    assert "Reproduce" in render.docs_page(None)


def test_summary_rows_come_from_the_run(render, published):
    record = published
    rows = render.summary_rows(record)
    assert 1 <= len(rows) <= 20
    table = render.readme_table(record)
    for model, row in rows:
        assert row in record["timings"]
        assert not row["baseline"].startswith("fastnb")
        assert (f"| {row['workload']} | {row['operation']} |" in table and
                f"| {row['speedup']:.1f}x |" in table)
    if not record["quick"] and "--only" not in record["command"]:
        # A full run has a row for every entry: a renamed workload or operation
        # must be renamed in render.SUMMARY too.
        assert len(rows) == len(render.SUMMARY)


def test_summary_shows_the_fastest_peer(render):
    def row(baseline, baseline_s, speedup):
        return {"workload": "S1 batch=1000 V=2^20 k=35 MultinomialNB",
                "operation": "partial_fit per batch", "baseline": baseline,
                "fastnb_s": 1e-3, "baseline_s": baseline_s, "speedup": speedup}

    slow, fast = row("scikit-learn", 0.1, 100.0), row("River", 0.01, 10.0)
    itself = row("fastnb float64", 0.001, 1.0)
    rows = render.summary_rows({"timings": [slow, itself, fast]})
    assert rows == [("MultinomialNB", fast)]


def test_newest_run_is_picked_by_date(render, run_file, tmp_path):
    record = json.loads(run_file.read_text())
    folder = tmp_path / "results"
    folder.mkdir()
    with pytest.raises(render.NoPublishedRun):
        render.newest_results(folder)
    old = dict(record, date="2000-01-01T00:00:00Z", commit="old")
    new = dict(record, date="2100-01-01T00:00:00Z", commit="new")
    (folder / "b.json").write_text(json.dumps(old))
    (folder / "a.json").write_text(json.dumps(new))
    (folder / "other.json").write_text(json.dumps({"format": "something else"}))
    assert render.newest_results(folder)["commit"] == "new"


def test_published_runs_are_complete(published):
    record = published
    machine = record["machine"]
    for key in ("cpu", "cores", "usable_cores", "memory_bandwidth_gbs", "versions"):
        assert machine[key], key
    assert {"python", "fastnb", "numpy", "scikit-learn"} <= set(machine["versions"])
    assert record["commit"] and record["date"]
    for row in record["timings"]:
        assert len(row["fastnb_times_s"]) == record["repeats"]
        if row["baseline_s"] is not None:
            assert len(row["pair_ratios"]) == record["repeats"]
            assert min(row["pair_ratios"]) <= row["speedup"] <= max(row["pair_ratios"])


# A speedup ("12.4x") or a time ("45 ms", "8.3 µs", "1.46 s") typed into prose.
FIGURE = re.compile(r"\b\d+(?:\.\d+)?\s?(?:x|ms|µs)\b|\b\d+\.\d+\s?s\b")
GENERATED = {"_build", "auto_examples", "generated", "gen_modules"}


def test_no_benchmark_figure_is_typed_by_hand(render):
    readme = (ROOT / "README.md").read_text()
    start, end = readme.index(render.BEGIN), readme.index(render.END)
    texts = {"README.md": readme[:start] + readme[end:]}
    for page in sorted((ROOT / "docs").rglob("*.rst")):
        parts = set(page.relative_to(ROOT / "docs").parts)
        if page.name != "benchmarks.rst" and not GENERATED & parts:
            texts[str(page.relative_to(ROOT))] = page.read_text()
    typed = [f"{name}: {match.group()!r}" for name, text in texts.items()
             for match in FIGURE.finditer(text)]
    assert not typed, ("benchmark figures typed by hand (publish a run and let "
                       "benchmarks/render.py show them):\n" + "\n".join(typed))
    assert FIGURE.search("fit in 45.5 ms, 32.0x scikit-learn, 1.46 s")


def _paths(run_file, tmp_path):
    (tmp_path / "README.md").write_text((ROOT / "README.md").read_text())
    return ["--results", str(run_file), "--no-chart",
            "--readme", str(tmp_path / "README.md"),
            "--docs-page", str(tmp_path / "benchmarks.rst")]


@pytest.mark.parametrize("where, load", [("row", 2.5), ("start", 1.3)])
def test_a_run_under_load_is_refused(render, run_file, tmp_path, capsys, where, load):
    """Over 1 per usable core at a row's start, or over 0.5 when the run starts:
    nothing is written, and the message gives the rule and the rows."""
    run = json.loads(run_file.read_text())
    if where == "row":
        run["timings"][1]["load"]["start"][0] = load
    else:
        run["load_at_start"]["start"][0] = load
    run_file.write_text(json.dumps(run))
    paths = _paths(run_file, tmp_path)
    readme = (tmp_path / "README.md").read_text()
    for extra in ([], ["--check"], ["--allow-unrecorded-load"]):
        capsys.readouterr()
        assert render.main([*extra, *paths]) == 2
        message = capsys.readouterr().err
        assert render.LOAD_RULE in message and "under load" in message
        offending = ("G1 n=1e+06 d=100 k=10 / predict: 1-minute load 2.50"
                     if where == "row" else "the run's start: 1-minute load 1.30")
        assert offending in message
        assert "/ fit:" not in message  # within the rule, so not named
    assert (tmp_path / "README.md").read_text() == readme
    assert not (tmp_path / "benchmarks.rst").exists()


def test_the_load_limits_scale_with_the_cores(render, run_file):
    run = json.loads(run_file.read_text())
    assert render.load_problems(run) == []
    for row in run["timings"]:
        row["load"].update(start=[3.9, 1, 1], cpus=4)
    run["load_at_start"].update(start=[1.9, 1, 1], cpus=4)
    assert render.load_problems(run) == []
    run["timings"][0]["load"]["start"][0] = 4.1
    assert len(render.load_problems(run)) == 1


def test_a_run_without_load_needs_the_flag(render, run_file, tmp_path, capsys):
    run = json.loads(run_file.read_text())
    del run["load_at_start"]
    for row in run["timings"]:
        del row["load"]
    run_file.write_text(json.dumps(run))
    paths = _paths(run_file, tmp_path)
    assert render.main(paths) == 2
    assert "recorded no load" in capsys.readouterr().err
    assert render.main(["--allow-unrecorded-load", *paths]) == 0
    assert "load not recorded" in (tmp_path / "README.md").read_text()
    assert "- load: not recorded" in (tmp_path / "benchmarks.rst").read_text()


def test_the_page_shows_each_rows_load(render, run_file):
    page = render.docs_page(json.loads(run_file.read_text()))
    assert "     - load" in page and "     - 1.20" in page
    assert "- load: 1-minute load average 0.20 when the run started" in page
    assert render.LOAD_RULE in page


def test_the_published_run_keeps_the_load_rule(render, published):
    """The newest run meets the rule on load; only a run from before the load
    was recorded may lack it, and its pages then say so."""
    if render.load_recorded(published):
        assert render.load_problems(published) == []
    else:
        assert "- load: not recorded" in render.docs_page(published)
        assert "load not recorded" in render.readme_table(published)


def test_side_by_side_records_the_load(render, tmp_path, monkeypatch, capsys):
    """Every timed and memory row carries the load at its start and end, and
    the run the load before it began (side_by_side.main on one tiny workload)."""
    import types

    import harness
    import side_by_side  # on sys.path since render imports it

    tiny = types.SimpleNamespace(
        cases=lambda quick: [harness.Case("Z1 tiny", "sum", lambda: sum(range(10)),
                                          lambda: sum(range(20)))],
        memory_cases=lambda quick: [harness.MemoryCase(
            "Z1 tiny", "list", lambda: list(range(10)), allowance_bytes=1 << 20)])
    monkeypatch.setattr(side_by_side, "_workload_modules", lambda *names: [tiny])
    monkeypatch.setattr(side_by_side, "_machine", lambda: {"cpu": "a CPU"})
    out = tmp_path / "run.json"
    assert side_by_side.main(["--repeats", "2", "--json", str(out)]) == 0
    run = json.loads(out.read_text())
    assert len(run["timings"]) == len(run["memory"]) == 1
    loads = [run["load_at_start"]] + [row["load"] for row in run["timings"] + run["memory"]]
    for load in loads:
        assert load["cpus"] >= 1
        assert len(load["start"]) == 3 and all(value >= 0 for value in load["start"])
    for load in loads[1:]:
        assert len(load["end"]) == 3


def test_own_processes_rows_are_judged_by_the_load_before_them(render, run_file):
    """A workload that starts processes of its own (K1's Spark JVM and workers)
    is judged by the load recorded before it started them: its own threads at
    a row's start do not refuse the run, anything running before them does."""
    run = json.loads(run_file.read_text())
    row = run["timings"][1]
    row["load"].update(start=[3.1, 2, 1], own_processes="a Spark JVM",
                       before_own_processes=[0.9, 1, 1])
    assert render.load_problems(run) == []
    assert ("0.90 before the run started a Spark JVM, and at most 3.10 at the "
            "start of one of those rows") in render.docs_page(run)
    row["load"]["before_own_processes"][0] = 2.4
    problems = render.load_problems(run)
    assert len(problems) == 1
    assert "2.40 before it started a Spark JVM, over 2" in problems[0]
    # the same start load without the declaration is a row under load
    del row["load"]["own_processes"], row["load"]["before_own_processes"]
    assert "3.10 at its start" in render.load_problems(run)[0]


def test_a_targeted_run_goes_after_the_full_run(render, run_file, tmp_path, capsys):
    full = json.loads(run_file.read_text())
    full["command"] = "python -P benchmarks/side_by_side.py --repeats 3"
    targeted = dict(full, date="2026-01-03T00:00:00Z", commit="fedcba9876543210",
                    command="python -P benchmarks/side_by_side.py --only H1 --repeats 3",
                    timings=[_row("H1 text n=1e+05", "GridSearchCV", 0.5,
                                  "sklearn search", 12.5, 20)])
    older = dict(targeted, date="2026-01-01T00:00:00Z", commit="0ld")
    folder = tmp_path / "results"
    folder.mkdir()
    for name, run in (("a", full), ("b", targeted), ("c", older)):
        (folder / f"{name}.json").write_text(json.dumps(run))
    assert render.is_targeted(targeted) and not render.is_targeted(full)
    # the newest full run is the record, though a targeted run is newer
    record = render.newest_results(folder)
    assert record["commit"] == full["commit"]
    since = render.targeted_after(record, folder)
    assert [run["commit"] for run in since] == [targeted["commit"]]
    page = render.docs_page(record, since)
    assert page.index("Timings") < page.index("Targeted run of 2026-01-03, commit fedcba9876")
    assert "H1 text n=1e+05" in page and "25.0x" in page
    assert "--only H1" in page
    # the README's table is the full run's alone
    assert "H1" not in render.readme_table(record)
    # a targeted run is held to the rule on load too
    loaded = dict(targeted, timings=[_row("H1 text n=1e+05", "GridSearchCV", 0.5,
                                          "sklearn search", 12.5, 20, load=9.0)])
    (folder / "b.json").write_text(json.dumps(loaded))
    assert render.publish_refusal(render.targeted_after(record, folder)[0])
    # a folder of targeted runs alone renders the newest of them
    (folder / "a.json").unlink()
    assert render.newest_results(folder)["commit"] == targeted["commit"]
    assert render.targeted_after(render.newest_results(folder), folder) == []
