import subprocess
import sys


def test_import_does_not_import_sklearn(tmp_path):
    code = (
        "import sys, fastnb\n"
        "assert 'sklearn' not in sys.modules, 'sklearn imported'\n"
        "assert 'scipy' not in sys.modules, 'scipy imported'\n"
        "assert 'pandas' not in sys.modules, 'pandas imported'\n"
        "print(fastnb.__version__)\n"
    )
    # Run outside the source tree, so the installed package is the one imported.
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip()


def test_show_config_reports_openmp_and_threads():
    import fastnb

    config = fastnb.show_config()
    assert isinstance(config["openmp"], bool)
    assert config["openmp"] == fastnb.openmp_enabled()
    assert config["threads"] == fastnb.effective_n_threads()
    assert config["threads"] >= 1
    assert config["simd"] in ("avx2", "baseline")


def test_import_from_the_source_tree_says_what_to_do(tmp_path):
    # What `import fastnb` meets inside a clone without -P: the source folder,
    # which has no fastnb/_version.py (meson writes it into a build). A copy under
    # another name stands for it, so that no installed fastnb is found instead.
    import pathlib
    import shutil

    import fastnb

    source = pathlib.Path(fastnb.__file__).parent
    copy = tmp_path / "fastnb_source_copy"
    shutil.copytree(source, copy, ignore=shutil.ignore_patterns("_version.py", "*.so"))
    # The folder is put on sys.path by hand rather than left to the current
    # directory, which PYTHONSAFEPATH=1 in the caller's environment would drop.
    code = f"import sys; sys.path.insert(0, {str(tmp_path)!r}); import fastnb_source_copy"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path,
    )
    assert result.returncode != 0
    last_line = result.stderr.strip().splitlines()[-1]
    assert last_line.startswith("ImportError: fastnb was imported from its source tree")
    assert "python -P" in last_line and "-e ." in last_line
