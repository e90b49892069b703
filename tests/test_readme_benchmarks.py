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


def _row(workload, operation, fastnb_s, baseline, baseline_s, target=None):
    ratios = [baseline_s / fastnb_s * scale for scale in (0.9, 1.0, 1.1)]
    return {"workload": workload, "operation": operation, "baseline": baseline,
            "fastnb_s": fastnb_s, "baseline_s": baseline_s, "speedup": ratios[1],
            "pair_ratios": ratios, "fastnb_times_s": [fastnb_s] * 3,
            "baseline_times_s": [baseline_s] * 3, "target": target,
            "max_seconds": None, "ok": None if target is None else True}


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
    diff = render.check(readme, docs, record)
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
