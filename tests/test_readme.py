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
