"""No source file over 700 lines (a project rule): a longer one is split along
its seams, as the kernel modules were (git log -- src_cython). Data files
(benchmark runs, test fixtures) are not source and are not counted."""

import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
FOLDERS = ("fastnb", "src_cython", "tests", "benchmarks")
SOURCE_SUFFIXES = {".py", ".pyx", ".pxd", ".pyi", ".c", ".h", ".build"}
MAX_LINES = 700

pytestmark = pytest.mark.skipif(
    not (ROOT / "src_cython").is_dir(),
    reason="needs the source tree, not an installed wheel alone")


def _source_files():
    for folder in FOLDERS:
        for path in sorted((ROOT / folder).rglob("*")):
            if (path.is_file() and path.suffix in SOURCE_SUFFIXES
                    and "__pycache__" not in path.parts):
                yield path


def test_the_rule_sees_the_source():
    names = {path.relative_to(ROOT).as_posix() for path in _source_files()}
    assert {"fastnb/__init__.py", "src_cython/meson.build", "tests/conftest.py",
            "benchmarks/side_by_side.py"} <= names
    assert any(name.endswith(".pyx") for name in names)


def test_no_source_file_is_over_700_lines():
    long = {}
    for path in _source_files():
        with open(path, "rb") as handle:
            n_lines = sum(1 for _ in handle)
        if n_lines > MAX_LINES:
            long[path.relative_to(ROOT).as_posix()] = n_lines
    assert not long, (f"files over {MAX_LINES} lines (split them along their "
                      f"seams): {long}")
