"""Sphinx configuration of fastnb's documentation.

Build it from the repository root (the command README.md names and .ci/run runs):

    python -m pip install ".[docs]" && python -m sphinx -W --keep-going -b html docs docs/_build/html

``-W --keep-going`` turns every warning into an error (reporting them all), and
``nitpicky = True`` below makes every cross-reference a warning unless it
resolves, so a clean build means: every page is in a toctree, every docstring
parses, every link points somewhere and every gallery example ran.
"""

import os
import pathlib
import re
import shutil
import sys

DOCS = pathlib.Path(__file__).resolve().parent
ROOT = DOCS.parent

# Import the installed, compiled fastnb, never the fastnb/ source folder of the
# checkout (it has no compiled kernels). ``python -m sphinx`` puts the current
# directory first on sys.path, so drop the repository root, as ``python -P``
# does. An editable install (``pip install -e .``) still resolves, through its
# import hook.
sys.path[:] = [p for p in sys.path if pathlib.Path(p or os.curdir).resolve() != ROOT]
# Gallery examples draw with matplotlib's non-interactive backend.
os.environ.setdefault("MPLBACKEND", "Agg")
# The Spark gallery example's Python workers start in the build's folder (a
# clone) without -P, and would import its source tree's fastnb/ (no compiled
# build) instead of the installed one: -P for every Python started from here.
os.environ.setdefault("PYTHONSAFEPATH", "1")

try:
    import fastnb
except ImportError as error:  # pragma: no cover - a setup problem, said plainly
    raise ImportError(
        "The documentation documents the installed fastnb: run "
        "'python -m pip install \".[docs]\"' first."
    ) from error

# -- Project ------------------------------------------------------------------------
project = "fastnb"
author = "The fastnb developers"
copyright = "The fastnb developers, BSD-3-Clause"
version = release = fastnb.__version__

# -- General ------------------------------------------------------------------------
extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "numpydoc",
    "sphinx_gallery.gen_gallery",
]

templates_path = ["_templates"]
exclude_patterns = ["_build", "**/.ipynb_checkpoints"]
root_doc = "index"
default_role = "literal"  # `x` in prose is code, never a guessed cross-reference

# Every cross-reference must resolve. There is deliberately no intersphinx: the
# build must work offline (CI and the project machines have no internet), and
# fetching objects.inv at build time would need it. Names of NumPy, SciPy,
# scikit-learn, Dask and the Python standard library are therefore written as
# literals (``numpy.ndarray``), or as plain links to their pages where a link
# helps, not with :class:/:func: roles; numpydoc's parameter types are not turned
# into cross-references (numpydoc_xref_param_type stays False). Cross-references
# are used only for fastnb's own objects, which this site documents, and for
# CPython's Py_ssize_t in the C declarations of the cimport API, which
# api/cython_kernels.rst declares itself.
nitpicky = True

# -- autodoc / autosummary / numpydoc -------------------------------------------------
autosummary_generate = True
autodoc_typehints = "none"
autodoc_member_order = "alphabetical"
# The class template (_templates/autosummary/class.rst) lists the methods itself.
numpydoc_show_class_members = False
numpydoc_xref_param_type = False
numpydoc_attributes_as_param_list = True

# -- sphinx-gallery -------------------------------------------------------------------
# The Spark example starts a JVM: where Java (or pyspark) is missing, the gallery
# leaves it out instead of failing the build.
_GALLERY_IGNORE = r"__init__\.py"
try:
    import pyspark  # noqa: F401

    _HAS_SPARK = bool(shutil.which("java") or os.environ.get("JAVA_HOME"))
except ImportError:
    _HAS_SPARK = False
if not _HAS_SPARK:
    _GALLERY_IGNORE += r"|plot_spark_"

sphinx_gallery_conf = {
    "examples_dirs": "../examples",
    "gallery_dirs": "auto_examples",
    "subsection_order": ["../examples/articles", "../examples/in_practice"],
    # Every example runs at build time, so each picture comes from the code beside it.
    "filename_pattern": r"/plot_",
    "ignore_pattern": _GALLERY_IGNORE,
    "abort_on_example_error": True,
    "image_scrapers": ("matplotlib",),
    "within_subsection_order": "FileNameSortKey",
    # "Examples using X" on each API page (see the class/function templates).
    "doc_module": ("fastnb",),
    "backreferences_dir": "gen_modules/backreferences",
    "reference_url": {"fastnb": None},
    "remove_config_comments": True,
    "download_all_examples": False,
    "show_memory": False,
    "capture_repr": (),
}

# -- HTML -----------------------------------------------------------------------------
html_theme = "pydata_sphinx_theme"
html_title = f"fastnb {release}"
html_static_path = ["_static"]
html_css_files = ["fastnb.css"]
html_theme_options = {
    "navbar_align": "left",
    "header_links_before_dropdown": 4,
    "show_toc_level": 2,
    "navigation_with_keys": False,
    "footer_start": ["copyright"],
    "footer_end": ["sphinx-version"],
    "secondary_sidebar_items": ["page-toc"],
}
html_sidebars = {"index": [], "auto_examples/index": []}
html_show_sourcelink = False


# -- Docstring fixes --------------------------------------------------------------------
# fastnb's docstrings write shapes as scikit-learn's text does, e.g.
# "ndarray of shape (n_features_in_,)"; in reStructuredText a word ending in "_"
# is a link reference ("n_features_in_" -> an unknown target, an error). Escape
# the trailing underscore of such names inside "shape (...)", so that they print
# as written. (Runs before numpydoc, on the raw docstring.)
_SHAPE = re.compile(r"shape \(([^)]*)\)")
_TRAILING_UNDERSCORE = re.compile(r"\b([A-Za-z]\w*?)_(?=[,)\s]|$)")


def _escape_shape_names(app, what, name, obj, options, lines):
    for i, line in enumerate(lines):
        lines[i] = _SHAPE.sub(
            lambda m: "shape (" + _TRAILING_UNDERSCORE.sub(r"\1\\_", m.group(1)) + ")",
            line,
        )


def setup(app):
    app.connect("autodoc-process-docstring", _escape_shape_names, priority=400)

# fastnb.spark's classes inherit pyspark.ml's documented members (params, copy,
# transform, ...), whose docstrings name pyspark's own classes: the API pages do
# not build pyspark's reference, so those names have no target here.
nitpick_ignore = [*globals().get("nitpick_ignore", []),
                  ("py:class", "pyspark.sql.DataFrame"), ("py:class", "Transformer"),
                  ("py:class", "Params"), ("py:class", "Param"),
                  ("py:func", "dir"), ("py:func", "copy.copy")]
