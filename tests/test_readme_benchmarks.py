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
    return render.newest_results()


def test_readme_and_docs_page_are_rendered(render, record):
    readme = (ROOT / "README.md").read_text()
    docs = (ROOT / "docs" / "benchmarks.rst").read_text()
    diff = render.check(readme, docs, record)
    assert not diff, ("README.md or docs/benchmarks.rst is not what "
                      "`python -P benchmarks/render.py` renders:\n" + "\n".join(diff))


def test_a_hand_edited_number_fails_the_check(render, record):
    readme = (ROOT / "README.md").read_text()
    docs = (ROOT / "docs" / "benchmarks.rst").read_text()
    start = readme.index(render.BEGIN)
    # Change the first speedup of the table, as a hand edit would.
    match = re.compile(r"\| (\d+\.\d)x \|").search(readme, start)
    assert match is not None, "the README's table shows no speedup"
    typed = f"{float(match.group(1)) + 1.0:.1f}"
    edited = readme[:match.start(1)] + typed + readme[match.end(1):]
    diff = render.check(edited, docs, record)
    assert any(line.startswith("-") and f"| {typed}x |" in line for line in diff), diff
    assert render.check(readme, docs + "\nA typed figure: 3.0x\n", record)


def test_summary_rows_come_from_the_run(render, record):
    rows = render.summary_rows(record)
    assert 1 <= len(rows) <= 20
    for label, row in rows:
        assert row in record["timings"]
        assert f"{row['speedup']:.1f}x" in render.readme_table(record)


def test_newest_run_is_picked_by_date(render, record, tmp_path):
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
