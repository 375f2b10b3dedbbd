#!/usr/bin/env bash
# The Python package as users install it, each into a fresh virtual environment (with the system's
# site packages, for numpy), offline (pip's isolated build environment takes setuptools and wheel
# from Debian's /usr/share/python-wheels):
#   1. `pip install SOURCE_DIR`
#   2. `python3 -m build --wheel --no-isolation`, then `pip install` of the wheel
# and in each, from a folder outside both trees, `import ttune` must come from the environment and
# the Python quickstart (examples/python/quickstart.py: compile, run, check, profile, a short tuning
# run measured by the package's own worker, export and load) must pass.
# The CMake build is reused through TTUNE_BUILD_DIR (setup.py brings it up to date: a no-op here).
# Usage: pip_install_test.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
export TTUNE_BUILD_DIR=$(cd "$1" && pwd)
SRC=$(cd "$2" && pwd)
DIR=$(mktemp -d /tmp/ttune-pip-test-XXXXXX)
trap 'rm -rf "$DIR"' EXIT
fail() { echo "pip install test: $1"; exit 1; }
PY=/usr/bin/python3
OFFLINE=(--no-index --find-links /usr/share/python-wheels)
cp "$SRC/tests/fuzz/corpus/onnx/conv_relu_pool.onnx" "$DIR/model.onnx"
unset TTUNE_DB TTUNE_WORKER TTUNE_SHIPPED_BANK TTUNE_WORKER_COMMAND PYTHONPATH
export HOME="$DIR/home" PIP_DISABLE_PIP_VERSION_CHECK=1

# Runs the quickstart in the environment $1 and checks where ttune and its worker came from.
check_env() {
  local venv=$1 site
  site=$(cd "$DIR" && "$venv/bin/python" -c 'import os, ttune; print(os.path.dirname(ttune.__file__))') ||
    fail "$venv: import ttune failed"
  case "$site" in "$venv"/*) ;; *) fail "$venv: ttune was imported from $site, not from the environment" ;; esac
  (cd "$DIR" && "$venv/bin/python" "$SRC/examples/python/quickstart.py" model.onnx --trials 4) > "$DIR/quickstart.txt" 2>&1 ||
    { cat "$DIR/quickstart.txt"; fail "$venv: the quickstart failed"; }
  cat "$DIR/quickstart.txt"
  grep -q "measured by $site/libexec/ttune/ttune-worker" "$DIR/quickstart.txt" ||
    fail "$venv: the tuning run's worker is not the package's own"
  grep -q "agrees with the compiled model bit for bit: True" "$DIR/quickstart.txt" || fail "$venv: the export disagreed"
}

$PY -m venv --system-site-packages "$DIR/venv-pip"
"$DIR/venv-pip/bin/pip" install -q "${OFFLINE[@]}" "$SRC" > "$DIR/pip.log" 2>&1 || { cat "$DIR/pip.log"; fail "pip install failed"; }
check_env "$DIR/venv-pip"

(cd "$SRC" && $PY -m build --wheel --no-isolation --outdir "$DIR/dist") > "$DIR/build.log" 2>&1 ||
  { cat "$DIR/build.log"; fail "python3 -m build --wheel failed"; }
wheels=("$DIR"/dist/ttune-*.whl)
[ ${#wheels[@]} -eq 1 ] && [ -f "${wheels[0]}" ] || fail "python3 -m build made no single wheel: $(ls "$DIR/dist")"
$PY -m venv --system-site-packages "$DIR/venv-wheel"
"$DIR/venv-wheel/bin/pip" install -q "${OFFLINE[@]}" "${wheels[0]}" > "$DIR/pip.log" 2>&1 ||
  { cat "$DIR/pip.log"; fail "pip install of the wheel failed"; }
check_env "$DIR/venv-wheel"
echo "pip install test: passed ($(basename "${wheels[0]}"))"
