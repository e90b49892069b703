"""The README's quick start is what CI runs, word for word."""

import pathlib
import re

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
