"""Every compiled module has a .pyi stub that names exactly its public functions,
with the runtime parameter names; the package is marked typed (py.typed)."""

import ast
import importlib
import inspect
import pathlib
import re

import pytest

import fastnb

PACKAGE = pathlib.Path(fastnb.__file__).resolve().parent
BUILD = pathlib.Path(__file__).resolve().parent.parent / "src_cython" / "meson.build"


def _meson_list(name):
    """The module names of the list ``name = [...]`` in src_cython/meson.build:
    the build is the one place a compiled module is listed."""
    match = re.search(rf"^{name} = \[(.*?)\]", BUILD.read_text(), re.M | re.S)
    return re.findall(r"'(\w+)'", match.group(1))


KERNELS = _meson_list("kernel_modules")
# The kernel modules also have an AVX2+FMA build on x86-64 (fastnb/_dispatch.py).
COMPILED = KERNELS + [f"{name}_avx2" for name in KERNELS] + _meson_list(
    "plain_modules") + ["cython_kernels"]


def _stub_names(name, seen=None):
    """{public name: parameter names, or None for a variable} declared by a stub,
    following ``from .other import *``."""
    tree = ast.parse((PACKAGE / f"{name}.pyi").read_text())
    names = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            args = node.args
            names[node.name] = [a.arg for a in args.posonlyargs + args.args
                                + args.kwonlyargs]
        elif isinstance(node, ast.ClassDef):
            names[node.name] = None
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names[node.target.id] = None
        elif isinstance(node, ast.ImportFrom) and node.level == 1 and \
                [alias.name for alias in node.names] == ["*"]:
            names.update(_stub_names(node.module))
    return {key: value for key, value in names.items()
            if not key.startswith("_") or key == "__pyx_capi__"}


def _runtime_names(module):
    return {
        key for key, value in vars(module).items()
        if (not key.startswith("_") or key == "__pyx_capi__")
        and not inspect.ismodule(value)
    }


@pytest.mark.parametrize("name", COMPILED)
def test_compiled_module_matches_its_stub(name):
    try:
        module = importlib.import_module(f"fastnb.{name}")
    except ImportError:
        pytest.skip(f"this build has no fastnb.{name} (not x86-64)")
    declared = _stub_names(name)
    assert set(declared) == _runtime_names(module)
    for function, parameters in declared.items():
        if parameters is not None:
            runtime = list(inspect.signature(getattr(module, function)).parameters)
            assert parameters == runtime, function


def test_package_is_marked_typed():
    assert (PACKAGE / "py.typed").exists()


def test_every_stub_is_checked():
    """A stub for a module that is not listed above (or was removed) fails here."""
    assert {path.stem for path in PACKAGE.glob("*.pyi")} == set(COMPILED)
