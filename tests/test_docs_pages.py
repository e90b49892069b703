"""The documentation's code runs, and its user guide keeps its shape.

Every ``>>>`` example of the reStructuredText pages under docs/ is a doctest,
run here without building Sphinx. A page whose examples import an optional
third-party module (scikit-learn, dask, ...) is skipped when it is missing.
"""

import doctest
import os
import pathlib
import re
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
# Folders that Sphinx or sphinx-gallery generate, and the templates.
GENERATED = {"_build", "auto_examples", "generated", "gen_modules", "_templates"}
USER_GUIDE = DOCS / "user_guide"


def _pages():
    return sorted(
        path for path in DOCS.rglob("*.rst")
        if not GENERATED & set(path.relative_to(DOCS).parts)
    )


def _imported_modules(text):
    """Top-level modules that the page's examples import."""
    return set(re.findall(r"^\s*(?:>>>|\.\.\.) +(?:import|from) +(\w+)", text, re.M))


@pytest.mark.parametrize("page", _pages(), ids=lambda p: str(p.relative_to(DOCS)))
def test_page_examples_run(page, tmp_path, monkeypatch):
    text = page.read_text()
    for module in sorted(_imported_modules(text) - set(sys.stdlib_module_names)):
        if module != "fastnb":
            pytest.importorskip(module)
    monkeypatch.chdir(tmp_path)  # files the examples write land here
    result = doctest.testfile(
        str(page), module_relative=False, globs={}, verbose=False,
        optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE,
    )
    assert result.failed == 0, f"{result.failed} failing example(s) in {page.name}"


GUIDE_PAGES = sorted(USER_GUIDE.glob("*.rst"))


def test_user_guide_pages_are_listed():
    expected = {"choosing_a_model", "missing_values", "categories", "streaming",
                "merging_and_dask", "saving_and_loading", "performance",
                "cython_api", "from_sklearn", "mixed_columns", "text", "tuning"}
    assert expected <= {page.stem for page in GUIDE_PAGES}


@pytest.mark.parametrize("page", [p for p in GUIDE_PAGES if p.stem != "index"],
                         ids=lambda p: p.stem)
def test_user_guide_page_shows_tested_code_and_links_the_api(page):
    text = page.read_text()
    tested = ">>> " in text or ".. literalinclude::" in text
    assert tested, f"{page.name} shows no doctest and no literalinclude of tested code"
    assert re.search(r":(class|func|data|c:func|mod):`~?fastnb", text), (
        f"{page.name} links no API reference entry")


EXAMPLES = sorted((ROOT / "examples").rglob("plot_*.py"))


def test_the_gallery_has_its_examples():
    names = {path.stem for path in EXAMPLES}
    assert len(names) >= 8
    # The seed articles' worked examples, and the topics the gallery must show.
    assert {"plot_iris_confusion", "plot_iris_decision_regions",
            "plot_census_categorical", "plot_bernoulli_nationality",
            "plot_calibration", "plot_streaming", "plot_dask_localcluster",
            "plot_benchmark"} <= names


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.stem)
def test_example_uses_the_public_api_and_draws(example):
    text = example.read_text()
    private = re.findall(r"fastnb(?:\.\w+)*\._\w+", text)
    assert not private, f"{example.name} uses private fastnb names: {private}"
    assert "plt.show()" in text, f"{example.name} draws no figure"


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.stem)
def test_example_runs(example, tmp_path):
    """What the docs build does with each example (needs the docs extras). Not
    timed: the Spark example's time is benchmark K1g; the timeout only stops a
    hang."""
    for module in sorted(_imported_modules_of_script(example.read_text())
                         - set(sys.stdlib_module_names) - {"fastnb"}):
        pytest.importorskip(module)
    env = {**os.environ, "MPLBACKEND": "Agg"}
    result = subprocess.run([sys.executable, "-P", str(example)], cwd=tmp_path, env=env,
                            capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stderr[-3000:]


def _imported_modules_of_script(text):
    return set(re.findall(r"^(?:import|from) +(\w+)", text, re.M))


def test_the_build_is_strict_and_offline():
    """-W comes from the command (tests/test_readme.py); the rest from conf.py."""
    conf = (DOCS / "conf.py").read_text()
    assert re.search(r"^nitpicky = True$", conf, re.M)
    assert "intersphinx" not in re.sub(r"#.*", "", conf), "intersphinx fetches at build time"
    assert '"abort_on_example_error": True' in conf
