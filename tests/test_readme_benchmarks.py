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
    try:
        return render.newest_results()
    except render.NoPublishedRun as error:
        pytest.fail(str(error))


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


def test_a_hand_edited_number_fails_the_check(render, record):
    readme, docs = _texts()
    edited, typed = _hand_edit(render, readme)
    diff = render.check(edited, docs, record)
    assert any(line.startswith("-") and f"| {typed}x |" in line for line in diff), diff
    assert render.check(readme, docs + "\nA typed figure: 3.0x\n", record)


def test_check_command_exits_non_zero_with_a_diff(render, record, tmp_path, capsys):
    readme, docs = _texts()
    (tmp_path / "README.md").write_text(readme)
    (tmp_path / "benchmarks.rst").write_text(docs)
    paths = ["--readme", str(tmp_path / "README.md"),
             "--docs-page", str(tmp_path / "benchmarks.rst")]
    assert render.main(["--check", *paths]) == 0
    edited, typed = _hand_edit(render, readme)
    (tmp_path / "README.md").write_text(edited)
    capsys.readouterr()
    assert render.main(["--check", *paths]) == 1
    out = capsys.readouterr().out
    assert any(line.startswith("-|") and f"| {typed}x |" in line
               for line in out.splitlines()), out
    # Rendering puts the run's figure back.
    assert render.main(["--no-chart", *paths]) == 0
    assert (tmp_path / "README.md").read_text() == readme


def test_summary_rows_come_from_the_run(render, record):
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


def test_newest_run_is_picked_by_date(render, record, tmp_path):
    with pytest.raises(render.NoPublishedRun):
        render.newest_results(tmp_path)
    old = dict(record, date="2000-01-01T00:00:00Z", commit="old")
    new = dict(record, date="2100-01-01T00:00:00Z", commit="new")
    (tmp_path / "b.json").write_text(json.dumps(old))
    (tmp_path / "a.json").write_text(json.dumps(new))
    (tmp_path / "other.json").write_text(json.dumps({"format": "something else"}))
    assert render.newest_results(tmp_path)["commit"] == "new"


def test_published_runs_are_complete(record):
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
