"""The API reference lists every public name, without building Sphinx.

Public means: the names in ``fastnb.__all__`` (dunder names aside), the public
names of every public submodule (``fastnb.dask``, ``fastnb.datasets``,
``fastnb.text`` once it exists, ...: every module of the package whose name has
no leading underscore), and the C declarations of the cimport API
(``fastnb/cython_kernels.pxd``). A name is listed when a reStructuredText source
under docs/api/ names it in an ``autosummary`` list or documents it with a
directive (``autoclass``, ``autofunction``, ``py:data``, ``c:function``, ...).
A new public name without an entry fails here, with the file to add it to.
"""

import importlib
import importlib.machinery
import importlib.util
import inspect
import pathlib
import pkgutil
import re

import pytest

import fastnb

ROOT = pathlib.Path(__file__).resolve().parent.parent
API = ROOT / "docs" / "api"
PXD = ROOT / "src_cython" / "cython_kernels.pxd"

_DIRECTIVE = re.compile(
    r"^\s*\.\. (?:py:)?(?:auto)?(?:class|exception|function|method|data|attribute)"
    r"::\s*([\w.]+)")
_MODULE = re.compile(r"^\s*\.\. (?:py:)?(?:auto|current)?module::\s*([\w.]+)")
_C_DECLARATION = re.compile(
    r"^\s*(?:\.\. c:(?:function|enumerator|macro|type)::)?\s*[\w\s*]*?\b(\w+)\s*(?:\(|=|$)")


def _api_sources():
    return sorted(path for path in API.rglob("*.rst") if "generated" not in path.parts)


def documented_python_names():
    """Fully qualified names that the API reference sources document."""
    names = set()
    for path in _api_sources():
        module, in_autosummary = "fastnb", False
        for line in path.read_text().splitlines():
            stripped = line.strip()
            if in_autosummary:
                if line and not line[0].isspace():
                    in_autosummary = False
                elif not stripped or stripped.startswith(":"):
                    continue
                else:
                    name = stripped.lstrip("~")
                    names.add(name if name.startswith("fastnb.") else f"{module}.{name}")
                    continue
            match = _MODULE.match(line)
            if match:
                module = match.group(1)
                names.add(module)
                continue
            if re.match(r"^\s*\.\. autosummary::", line):
                in_autosummary = True
                continue
            match = _DIRECTIVE.match(line)
            if match:
                name = match.group(1)
                names.add(name if name.startswith("fastnb.") else f"{module}.{name}")
    return names


def documented_c_names():
    """Names declared with c:function/c:enumerator/... directives in docs/api/."""
    names = set()
    for path in _api_sources():
        in_c_directive = False
        for line in path.read_text().splitlines():
            if re.match(r"^\s*\.\. c:(function|enumerator|macro|type)::", line):
                in_c_directive = True
            elif in_c_directive and not (line.startswith(" " * 16) and line.strip()):
                in_c_directive = False
            if in_c_directive:
                match = _C_DECLARATION.match(line.split("::", 1)[-1] if "::" in line
                                             else line)
                if match:
                    names.add(match.group(1))
    return names


def _is_compiled(spec):
    return spec is not None and spec.origin is not None and spec.origin.endswith(
        tuple(importlib.machinery.EXTENSION_SUFFIXES))


def public_submodules():
    """Every submodule of fastnb with no leading underscore in its name."""
    return sorted(
        info.name for info in pkgutil.walk_packages(fastnb.__path__, "fastnb.")
        if not any(part.startswith("_") for part in info.name.split(".")[1:])
    )


def public_names(module):
    """A module's ``__all__``, or its public names defined in it."""
    if hasattr(module, "__all__"):
        return [name for name in module.__all__ if not name.startswith("__")]
    return sorted(
        name for name, value in vars(module).items()
        if not name.startswith("_") and not inspect.ismodule(value)
        and getattr(value, "__module__", module.__name__) == module.__name__
    )


def test_the_parser_sees_the_reference():
    names = documented_python_names()
    assert {"fastnb.GaussianNB", "fastnb.dask.fit", "fastnb.datasets.load_iris"} <= names
    assert {"gaussian_jll_f64", "gaussian_jll_f32", "Py_ssize_t"} <= documented_c_names()


@pytest.mark.parametrize("name", [n for n in fastnb.__all__ if not n.startswith("__")])
def test_every_name_in_fastnb_all_is_documented(name):
    assert f"fastnb.{name}" in documented_python_names(), (
        f"fastnb.{name} is public (in fastnb.__all__) but has no entry in the API "
        "reference: add it to an autosummary list in docs/api/index.rst")


def test_public_submodules_are_found():
    found = public_submodules()
    assert {"fastnb.dask", "fastnb.datasets", "fastnb.cython_kernels"} <= set(found)


@pytest.mark.parametrize("module_name", public_submodules())
def test_every_public_name_of_a_public_submodule_is_documented(module_name):
    try:
        module = importlib.import_module(module_name)
    except ImportError as error:  # an optional dependency of the module is missing
        pytest.skip(f"{module_name} cannot be imported here: {error}")
    documented = documented_python_names()
    assert module_name in documented, (
        f"{module_name} is a public module without a section in the API reference: "
        "add one to docs/api/index.rst (an automodule, a currentmodule and an "
        "autosummary of its names, as for fastnb.dask)")
    missing = [name for name in public_names(module)
               if f"{module_name}.{name}" not in documented]
    assert not missing, (
        f"public names of {module_name} without an entry in the API reference: "
        f"{missing}; add them to its section in docs/api/")


def test_fastnb_text_is_documented_once_it_exists():
    """Named in the issue: fastnb.text is covered as soon as it lands."""
    spec = importlib.util.find_spec("fastnb.text")
    if spec is None:
        pytest.skip("fastnb.text does not exist yet")
    assert "fastnb.text" in public_submodules()


def _pxd_declarations():
    text = PXD.read_text()
    functions = re.findall(r"^cdef\s+[\w\s*]+?\b(\w+)\s*\(", text, re.M)
    constants = re.findall(r"^\s+([A-Z][A-Z0-9_]+)\s*=", text, re.M)
    return functions + constants


def test_the_pxd_is_found():
    declarations = _pxd_declarations()
    assert "api_version" in declarations and "FASTNB_CYTHON_API_VERSION" in declarations
    assert "gaussian_accumulate_f64" in declarations


@pytest.mark.parametrize("name", _pxd_declarations())
def test_every_cimport_declaration_is_documented(name):
    assert name in documented_c_names(), (
        f"{name} is declared in src_cython/cython_kernels.pxd but not described in "
        "docs/api/cython_kernels.rst: add a c:function (or c:enumerator) entry")
