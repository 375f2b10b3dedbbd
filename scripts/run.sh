#!/usr/bin/env bash
# Installs what is missing, builds, and runs the main job on the built-in default: transfer-tuning
# from the shipped schedule bank (bank/*.jsonl) into a fresh bank, measuring every candidate on
# this machine, in two parts that show where transfer-tuning has little left to do and what it is
# for:
#   1. resnet50 with ttune's own (strong) default schedules: candidates from the other models'
#      tuned schedules, then the whole model against its defaults. It prints the untuned
#      throughput against this machine's measured FMA peak and keeps the transferred choice only
#      when the model is faster beyond the spread of the timing rounds (else "defaults kept").
#   2. resnet50 under the transfer-tuning paper's conditions (--defaults basic: the schedules TVM
#      falls back to without tuning logs, direct convolutions), transfer-tuned from the schedules
#      an Ansor-style search found for resnet18 from the same basic defaults (shipped in bank/):
#      the gain transfer-tuning exists for, in about a minute instead of a tuning run's hours.
# Every speedup is the whole model's, with its interval over interleaved rounds
# (docs/measurement.md). A fresh bank in the build folder is used each time, so the job is the
# same on every run and leaves the user's own bank alone.
# MODEL=mobilenet_v2 scripts/run.sh [ARGS] transfer-tunes that one model instead (ARGS go to
# `ttune transfer`).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh
build=${BUILD_DIR:-build}
mkdir -p "$build/main-job"
rm -f "$build/main-job/bank.db" "$build/main-job/bank.db-wal" "$build/main-job/bank.db-shm"
export TTUNE_DB="$PWD/$build/main-job/bank.db"
ttune="$build/bin/ttune"
if [ -n "${MODEL:-}" ]; then
  exec "$ttune" transfer "$MODEL" "$@"
fi
echo "== 1/2: resnet50, strong default schedules, from the other models' shipped schedules =="
"$ttune" transfer resnet50 "$@"
echo
echo "== 2/2: resnet50, the paper's basic default schedules, from resnet18's shipped basic-baseline schedules =="
"$ttune" transfer resnet50 --defaults basic --from resnet18 "$@"
