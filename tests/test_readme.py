"""The README's quick start is what CI runs, word for word."""

import pathlib
import re
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent


def _ci_commands():
    text = (ROOT / ".ci" / "run").read_text()
    return re.findall(r"# BEGIN README COMMAND \d\n(.*?)\n# END README COMMAND", text)


def test_ci_runs_the_readme_quick_start():
    readme = (ROOT / "README.md").read_text()
    commands = _ci_commands()
    assert len(commands) == 2
    for command in commands:
        assert command.strip() in readme, command


def test_ci_builds_the_docs_with_the_readme_command():
    ci = (ROOT / ".ci" / "run").read_text()
    in_ci = re.findall(r"# BEGIN README DOCS COMMAND\n(.*?)\n# END README DOCS COMMAND", ci)
    assert len(in_ci) == 1
    readme = (ROOT / "README.md").read_text()
    in_readme = [block.strip() for block in re.findall(r"```bash\n(.*?)```", readme, re.S)
                 if "sphinx" in block]
    assert in_readme == [in_ci[0].strip()]
    # Warnings are errors, and the site is built from docs/ into docs/_build/html.
    assert in_ci[0].startswith('python -m pip install ".[docs]" && python -m sphinx -W ')
    assert in_ci[0].endswith(" docs docs/_build/html")


def test_readme_links_point_to_files():
    readme = (ROOT / "README.md").read_text()
    targets = re.findall(r"\]\(((?!https?://|#)[^)\s]+)\)", readme)
    assert any(target.startswith("docs/") for target in targets)
    missing = [t for t in targets if not (ROOT / t.split("#")[0]).exists()]
    assert not missing, f"README links to files that do not exist: {missing}"


def _python_blocks():
    readme = (ROOT / "README.md").read_text()
    return re.findall(r"```python\n(.*?)```", readme, re.S)


def test_the_readme_shows_its_tour():
    assert len(_python_blocks()) >= 6


@pytest.mark.parametrize("index", range(len(_python_blocks())))
def test_each_readme_snippet_runs_on_its_own(index, tmp_path, monkeypatch):
    """A reader copies one snippet of the tour into a fresh interpreter: every
    name it uses is defined in it (a fresh namespace each, run in an empty
    folder). A snippet whose optional dependency is missing is skipped."""
    code = _python_blocks()[index]
    imported = set(re.findall(r"^(?:import|from) +(\w+)", code, re.M))
    for module in sorted(imported - set(sys.stdlib_module_names) - {"fastnb"}):
        pytest.importorskip(module)
    if "fastnb.text" in code:
        pytest.importorskip("scipy")
    if "as_frame=True" in code:
        pytest.importorskip("pandas")
    monkeypatch.chdir(tmp_path)  # files the snippets write land here
    exec(compile(code, f"README.md python block {index}", "exec"), {})


def test_install_lines_name_every_extra():
    """README.md and the docs' front page list the extras pyproject.toml defines."""
    import tomllib

    extras = set(tomllib.loads((ROOT / "pyproject.toml").read_text())
                 ["project"]["optional-dependencies"])
    for page in ("README.md", "docs/index.rst"):
        text = " ".join((ROOT / page).read_text().split())
        sentence = re.search(r"the extras are (.*?)[):]", text)
        assert sentence, f"{page} does not list the extras"
        named = set(re.findall(r"`+(\w+)`+", sentence.group(1)))
        assert named == extras, f"{page} lists the extras {sorted(named)}, " \
                                f"pyproject.toml defines {sorted(extras)}"
