#!/usr/bin/env bash
# Installs what is missing, builds, and runs the main job on the built-in default: transfer-tunes
# ResNet-50 from the shipped schedule bank (bank/*.jsonl; only the other models' tuned schedules
# are candidates), measuring every candidate on this machine, and prints the untuned and
# transferred latency and the search time. A fresh bank in the build folder is used each time,
# so the job is the same on every run and leaves the user's own bank alone.
# Extra arguments go to `ttune transfer` (e.g. another zoo model is `ttune transfer MODEL`:
# MODEL=mobilenet_v2 scripts/run.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh
build=${BUILD_DIR:-build}
mkdir -p "$build/main-job"
rm -f "$build/main-job/bank.db" "$build/main-job/bank.db-wal" "$build/main-job/bank.db-shm"
export TTUNE_DB="$PWD/$build/main-job/bank.db"
exec "$build"/bin/ttune transfer "${MODEL:-resnet50}" "$@"
