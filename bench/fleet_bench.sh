#!/usr/bin/env bash
# Tuning throughput with 1, 2, 4 and 8 measurement workers when measurement dominates (docs/fleet.md).
#
# SIMULATION: every worker adds --latency-ms of device latency to each measurement (`ttune worker
# --latency-ms`), standing in for slow edge boards; all workers run on this host next to a
# throw-away PostgreSQL server (scripts/pg_server.sh). For each worker count a new tuning run of
# MODEL measures TRIALS candidates and is then stopped (SIGTERM);
# trials/s is TRIALS over the run's search time (the elapsed time of its last record: searching,
# compiling here and measuring there; the side-by-side re-timing at the end of a run is left out);
# measuring_s is the part of it the tuner spent waiting for the workers (each record is charged
# its share of the wait for its round). The tuner keeps several rounds in flight and searches and
# compiles the next while the workers measure (autotune/tuner.h), so what does not shrink with
# more workers is the first round's compilation and the last round's wait; the device latency
# must dominate for the workers' parallelism to show (the default: 3 s per measurement), and the
# search runs with a population of 256 (of 2048) and its cost model started empty, as Ansor's.
# Usage: bench/fleet_bench.sh [TTUNE_BINARY] [--model M] [--trials N] [--latency-ms MS] [--workers "1 2 4 8"] [--population P]
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
TTUNE=$ROOT/build/bin/ttune
if [ $# -gt 0 ] && [ "${1#--}" = "$1" ]; then TTUNE=$1; shift; fi
MODEL=alexnet
TRIALS=48
LATENCY=3000
POPULATION=256
COUNTS="1 2 4 8"
while [ $# -gt 0 ]; do
  case "$1" in
    --model) MODEL=$2; shift 2 ;;
    --trials) TRIALS=$2; shift 2 ;;
    --latency-ms) LATENCY=$2; shift 2 ;;
    --workers) COUNTS=$2; shift 2 ;;
    --population) POPULATION=$2; shift 2 ;;
    *) echo "usage: $0 [TTUNE_BINARY] [--model M] [--trials N] [--latency-ms MS] [--workers \"1 2 4\"]" >&2; exit 2 ;;
  esac
done
# (Builds before the option had no other cost model: they can be compared with this script too.)
SCRATCH=""
"$TTUNE" tune --help 2>/dev/null | grep -q -- --cost-model && SCRATCH="--cost-model scratch"
DIR=$(mktemp -d /tmp/ttune-fleet-bench-XXXXXX)
chmod 755 "$DIR"
declare -a PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
  "$ROOT/scripts/pg_server.sh" stop "$DIR/pg" >/dev/null 2>&1 || true
  rm -rf "$DIR"
}
trap cleanup EXIT
URL=$("$ROOT/scripts/pg_server.sh" start "$DIR/pg")
sql() { psql "$URL" -qtAc "$1"; }
"$TTUNE" db import /dev/null --db "$URL" >/dev/null

echo "fleet bench: $MODEL, $TRIALS trials per run (population $POPULATION), SIMULATED device latency $LATENCY ms per measurement, $(nproc) cores here"
printf "%-8s %-10s %-10s %-9s %-12s %-9s\n" workers search_s trials/s speedup measuring_s speedup
base=""
mbase=""
for n in $COUNTS; do
  PIDS=()
  for i in $(seq 1 "$n"); do
    "$TTUNE" worker --db "$URL" --target "bench-$n" --latency-ms "$LATENCY" --threads 1 >"$DIR/worker-$n-$i.log" 2>&1 &
    PIDS+=($!)
  done
  for _ in $(seq 1 100); do
    [ "$(sql "SELECT count(*) FROM measure_workers WHERE target = 'bench-$n' AND state <> 'stopped'" 2>/dev/null || echo 0)" -eq "$n" ] && break
    sleep 0.1
  done
  seq_before=$(sql "SELECT coalesce(max(seq), 0) FROM runs")
  "$TTUNE" tune "$MODEL" --trials "$TRIALS" --new-run --no-refine --population "$POPULATION" $SCRATCH --db "$URL" --workers "bench-$n" --seed 1 --json \
    >"$DIR/tune-$n.json" 2>"$DIR/tune-$n.err" &
  tuner=$!
  run=""
  while kill -0 $tuner 2>/dev/null; do
    # This run's id: the first run started after the previous count's.
    [ -n "$run" ] || run=$(sql "SELECT run_id FROM runs WHERE seq > $seq_before ORDER BY seq LIMIT 1" | grep -v "^$" || true)
    if [ -n "$run" ] && [ "$(sql "SELECT count(*) FROM records WHERE run_id = '$run'")" -ge "$TRIALS" ]; then
      kill -TERM $tuner  # (a background job ignores SIGINT)
      break
    fi
    sleep 0.5
  done
  wait $tuner 2>/dev/null || true
  [ -n "$run" ] && [ "$(sql "SELECT count(*) FROM records WHERE run_id = '$run'")" -ge "$TRIALS" ] ||
    { cat "$DIR/tune-$n.err"; exit 1; }
  search=$(sql "SELECT max(elapsed_s) FROM records WHERE run_id = '$run'")
  # The wall time of the measurement rounds (each record is charged its share of its round).
  measuring=$(sql "SELECT sum(measure_s) FROM records WHERE run_id = '$run'")
  for p in "${PIDS[@]}"; do kill -TERM "$p"; wait "$p" || true; done
  PIDS=()
  rate=$(python3 -c "print(f'{$TRIALS / $search:.2f}')")
  [ -n "$base" ] || base=$rate
  [ -n "$mbase" ] || mbase=$measuring
  printf "%-8s %-10.1f %-10s %-9s %-12.1f %-9s\n" "$n" "$search" "$rate" "$(python3 -c "print(f'{$rate / $base:.2f}x')")" \
    "$measuring" "$(python3 -c "print(f'{$mbase / $measuring:.2f}x')")"
done
