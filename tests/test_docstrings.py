"""Every public name has a numpydoc docstring with examples, and the examples run."""

import doctest
import importlib
import inspect

import pytest

import fastnb

MODULES = ["fastnb", "fastnb._threads", "fastnb._validation", "fastnb._persist",
           "fastnb._base", "fastnb._gaussian", "fastnb.datasets", "fastnb._demos",
           "fastnb.text", "fastnb._text_demo"]


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
    module = importlib.import_module(module_name)
    failures, _ = doctest.testmod(module, optionflags=doctest.ELLIPSIS
                                  | doctest.NORMALIZE_WHITESPACE, verbose=False)
    assert failures == 0
