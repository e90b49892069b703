#!/usr/bin/env bash
# Build fastnb's wheel and test it (tools/build_and_test_wheel.sh) on each CPython
# that pyproject.toml promises (requires-python, cibuildwheel's build list:
# 3.11-3.14) and that this machine has, on PATH as python3.X or under pyenv.
# An absent version is skipped with a line that says so; a failure on any found
# version fails the whole run. The first argument (default python3) is the
# interpreter on which the whole suite already ran: its wheel runs the contents
# tests only (WHEEL_TESTS=contents); every other version runs the suite but its
# three slowest files (WHEEL_TESTS=most, see build_and_test_wheel.sh), or the
# whole of it with OTHER_PYTHONS_TESTS=all.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
MAIN_PYTHON=${1:-python3}
MAIN_VERSION=$("$MAIN_PYTHON" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
PYENV_ROOT=${PYENV_ROOT:-$HOME/.pyenv}

find_python() {  # the newest CPython $1 (e.g. 3.12) found, or nothing
    local version=$1 candidate
    for candidate in "$(command -v "python$version" 2>/dev/null || true)" \
                     $(ls -d "$PYENV_ROOT"/versions/"$version".*/bin/"python$version" \
                          2>/dev/null | sort -V -r); do
        if [ -n "$candidate" ] && "$candidate" -c \
            "import sys; assert sys.implementation.name == 'cpython' and \
'%d.%d' % sys.version_info[:2] == '$version'" 2>/dev/null; then
            echo "$candidate"; return
        fi
    done
}

tested=()
for version in 3.11 3.12 3.13 3.14; do
    if [ "$version" = "$MAIN_VERSION" ]; then
        python=$(command -v "$MAIN_PYTHON")
    else
        python=$(find_python "$version")
    fi
    if [ -z "$python" ]; then
        echo "-- CPython $version: not found on this machine (PATH, $PYENV_ROOT): skipped"
        continue
    fi
    if [ "$version" = "$MAIN_VERSION" ]; then
        tests=contents
    else
        tests=${OTHER_PYTHONS_TESTS:-most}
    fi
    start=$SECONDS
    echo "-- CPython $version ($python): wheel built and tested ($tests)"
    PYTHON="$python" WHEEL_TESTS="$tests" bash "$ROOT/tools/build_and_test_wheel.sh"
    echo "-- CPython $version: wheel built and tested ($tests) in $((SECONDS - start)) s"
    tested+=("$version")
done
if [ ${#tested[@]} -eq 0 ]; then
    echo "no CPython 3.11-3.14 found: no wheel was tested" >&2; exit 1
fi
echo "-- wheels tested on CPython ${tested[*]}"
