"""Every public name has a numpydoc docstring with examples, and the examples run."""

import doctest
import importlib
import importlib.machinery
import importlib.util
import inspect
import pkgutil

import pytest

import fastnb


def _python_modules():
    """Every Python module of the package, found by walking it (so that a new
    module is covered without editing a list); compiled modules are skipped."""
    suffixes = tuple(importlib.machinery.EXTENSION_SUFFIXES)
    names = ["fastnb"]
    for info in pkgutil.walk_packages(fastnb.__path__, "fastnb."):
        spec = importlib.util.find_spec(info.name)
        if spec is not None and spec.origin and spec.origin.endswith(suffixes):
            continue
        names.append(info.name)
    return names


MODULES = _python_modules()


def test_the_walk_finds_the_modules():
    assert {"fastnb", "fastnb._gaussian", "fastnb._persist", "fastnb.dask",
            "fastnb.datasets"} <= set(MODULES)
    assert "fastnb._gaussian_kernels" not in MODULES   # compiled


def _public_names():
    for name in fastnb.__all__:
        if name.startswith("__"):
            continue
        yield name, getattr(fastnb, name)


@pytest.mark.parametrize("name, obj", list(_public_names()), ids=lambda x: str(x)[:30])
def test_public_names_have_examples(name, obj):
    doc = inspect.getdoc(obj) or ""
    assert doc, f"{name} has no docstring"
    assert "Examples\n--------" in doc, f"{name} has no Examples section"


@pytest.mark.parametrize("name, obj", [(n, o) for n, o in _public_names()
                                       if inspect.isclass(o) and hasattr(o, "fit")])
def test_estimator_methods_are_documented(name, obj):
    for method in ("fit", "partial_fit", "predict", "predict_proba", "predict_log_proba",
                   "predict_joint_log_proba", "score", "save", "get_params", "set_params"):
        doc = inspect.getdoc(getattr(obj, method)) or ""
        assert "Parameters\n----------" in doc or method == "get_params", (name, method)
        assert "Returns\n-------" in doc or method in ("save",), (name, method)


@pytest.mark.parametrize("module_name", MODULES)
def test_docstring_examples_run(module_name):
    try:
        module = importlib.import_module(module_name)
    except ImportError as error:
        if (error.name or "fastnb").split(".")[0] == "fastnb":
            raise
        pytest.skip(f"{module_name} needs {error.name}, which is not installed")
    failures, _ = doctest.testmod(module, optionflags=doctest.ELLIPSIS
                                  | doctest.NORMALIZE_WHITESPACE, verbose=False)
    assert failures == 0
