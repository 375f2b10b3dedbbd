#!/usr/bin/env bash
# `cmake --install` into a temporary prefix, then the installed tree alone: `ttune --version`,
# a zoo model and an ONNX file run and checked, a short tuning run (the installed worker measures),
# an export, and the installed Python package — with the source and build trees hidden (an empty
# file system mounted over each in a private mount namespace), so that nothing installed can
# read them. Where mount namespaces are not allowed (no root, a locked-down container) the trees
# stay visible and the test says so; the paths checked below still have to lie in the prefix.
# Usage: install_test.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
BUILD=$(cd "$1" && pwd)
SRC=$(cd "$2" && pwd)
DIR=$(mktemp -d /tmp/ttune-install-test-XXXXXX)
trap 'rm -rf "$DIR"' EXIT
fail() { echo "install test: $1"; exit 1; }
PY=/usr/bin/python3
P="$DIR/prefix"

cmake --install "$BUILD" --prefix "$P" > "$DIR/install.log" || { cat "$DIR/install.log"; fail "cmake --install failed"; }
for f in bin/ttune libexec/ttune/ttune-worker include/ttune/ttune_model.h lib/ttune/libttune_rt.a \
         lib/cmake/ttune/ttuneConfig.cmake share/ttune/bank share/man/man1/ttune.1 share/doc/ttune/README.md \
         lib/python3/dist-packages/ttune/__init__.py; do
  [ -e "$P/$f" ] || fail "cmake --install did not install $f"
done
cp "$SRC/tests/fuzz/corpus/onnx/conv_relu_pool.onnx" "$DIR/model.onnx"

# The checks, run with the trees hidden; HOME is scratch, so no user bank or setting leaks in.
cat > "$DIR/checks.sh" <<CHECKS
set -euo pipefail
export HOME="$DIR/home" PYTHONPATH="$P/lib/python3/dist-packages"
unset TTUNE_DB TTUNE_WORKER TTUNE_WORKER_AARCH64 TTUNE_SHIPPED_BANK TTUNE_WORKER_COMMAND
cd "$DIR"
"$P/bin/ttune" --version
"$P/bin/ttune" --version --json > version.json
"$P/bin/ttune" run resnet18 --check --json > run_zoo.json
"$P/bin/ttune" run model.onnx --check --json > run_onnx.json
"$P/bin/ttune" tune model.onnx --trials 8 --db bank.db --json > tune.json
"$P/bin/ttune" export model.onnx -o export --name net > export.txt
$PY -c 'import ttune, json; json.dump(ttune.version(), open("py_version.json", "w"))'
$PY "$P/share/doc/ttune/examples/python/quickstart.py" model.onnx --trials 4 > quickstart.txt
CHECKS
hidden=no
if unshare --mount --propagation private true 2>/dev/null; then
  # The build tree may lie inside the source tree: cover it first.
  unshare --mount --propagation private bash -c "mount -t tmpfs tmpfs '$BUILD' && mount -t tmpfs tmpfs '$SRC' && bash '$DIR/checks.sh'" \
      > "$DIR/checks.log" 2>&1 || { cat "$DIR/checks.log"; fail "the installed tree failed with the source and build trees hidden"; }
  hidden=yes
else
  echo "install test: no mount namespaces here; the source and build trees stay visible"
  bash "$DIR/checks.sh" > "$DIR/checks.log" 2>&1 || { cat "$DIR/checks.log"; fail "the installed tree failed"; }
fi
cat "$DIR/checks.log"

# Everything the installed programs found must be inside the prefix.
$PY - "$DIR" "$P" <<'PYCHECK'
import json, os, sys
d, p = sys.argv[1], os.path.realpath(sys.argv[2])
def inside(path, what):
    if not os.path.realpath(path).startswith(p + "/"):
        sys.exit(f"install test: {what} is {path}, outside the prefix {p}")
for f in ("version.json", "py_version.json"):
    v = json.load(open(os.path.join(d, f)))
    inside(v["shipped_bank"], f + ": the shipped bank")
    inside(v["measurement_worker"], f + ": the measurement worker")
tune = json.load(open(os.path.join(d, "tune.json")))
inside(tune["worker"], "the tuning run's worker")
if tune["trials"] < 1:
    sys.exit("install test: the tuning run measured no trial")
for f in ("run_zoo.json", "run_onnx.json"):
    run = json.load(open(os.path.join(d, f)))
    if run["check"] != "ok" or run["kernels_checked"] < 1:
        sys.exit(f"install test: {f}: the check did not pass: {run}")
if "agrees with the compiled model bit for bit: True" not in open(os.path.join(d, "quickstart.txt")).read():
    sys.exit("install test: the Python quickstart's export disagreed")
PYCHECK
for f in libnet.so net.weights net-config.cmake net.pc; do
  [ -e "$DIR/export/$f" ] || fail "the installed ttune's export has no $f"
done
echo "install test: passed (source and build trees hidden: $hidden)"
