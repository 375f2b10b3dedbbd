#!/usr/bin/env bash
# Fuzzes ttune's input readers with libFuzzer under AddressSanitizer and UBSan.
# Usage: scripts/fuzz.sh [MINUTES_PER_TARGET=10] [TARGET...]
#   targets: onnx records bank_import npy worker_request (all by default)
# Installs clang-19 if missing, builds build-fuzz (TTUNE_FUZZ=ON), then runs each target for the
# given time on a working copy of its seed corpus (tests/fuzz/corpus/<target>, never modified).
# Findings go to build-fuzz/findings/<target>/ (crash-*, leak-*, timeout-*, oom-*); the script
# exits non-zero if there are any. Replay one with: build-fuzz/bin/fuzz_<target> FILE
# A fixed finding belongs in tests/fuzz/corpus/<target>/ so that the test suite replays it.
set -euo pipefail
cd "$(dirname "$0")/.."
minutes=${1:-10}
shift || true
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(onnx records bank_import npy worker_request)

scripts/setup.sh
if ! command -v clang++-19 >/dev/null; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -q
  $SUDO apt-get install -y -q --no-install-recommends clang-19
fi

cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTTUNE_FUZZ=ON \
  -DCMAKE_C_COMPILER=clang-19 -DCMAKE_CXX_COMPILER=clang++-19 >/dev/null
cmake --build build-fuzz --target $(printf 'fuzz_%s ' "${targets[@]}")

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
status=0
for t in "${targets[@]}"; do
  work=build-fuzz/corpus/$t findings=build-fuzz/findings/$t
  mkdir -p "$work" "$findings"
  echo "fuzz: $t for $minutes min (corpus $work, findings $findings)"
  # -rss_limit_mb: a reader that allocates what an input merely claims is a finding too.
  # -fork=1 with -ignore_*: one child process fuzzes at a time and a finding does not end the
  # campaign, so one run reports every distinct fault it meets.
  build-fuzz/bin/fuzz_"$t" "$work" tests/fuzz/corpus/"$t" -max_total_time=$((minutes * 60)) \
      -fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 \
      -timeout=20 -rss_limit_mb=3072 -malloc_limit_mb=2048 -artifact_prefix="$findings/" -print_final_stats=1 \
      2> "build-fuzz/fuzz_$t.log" || true
  [ -n "$(ls -A "$findings")" ] && status=1
  tail -n 12 "build-fuzz/fuzz_$t.log" | grep -E "stat::number_of_executed_units|stat::peak_rss|cov:|ERROR|SUMMARY" || true
  ls "$findings" | sed "s|^|fuzz: $t finding: |" || true
done
exit $status
