#!/usr/bin/env bash
# Measurement workers (docs/fleet.md) on a PostgreSQL bank: three local `ttune worker` processes
# measure tuning runs of `ttune tune --workers`. (1) One worker is killed with SIGKILL while it
# measures: its job is re-queued when its lease runs out and measured by another worker, and the
# run finishes with every trial recorded exactly once. (2) One worker hangs (SIGSTOP) while it
# measures: its lease runs out, `db workers` shows its heartbeat stale, another worker measures the
# job, the run finishes with every trial once, and when the hung worker resumes its late result is
# dropped. (3) `db refresh --workers` re-measures the bank's schedules on the workers, each kernel
# deciding alone. (4) `experiment --workers` refuses workers that are not this host's twins. (5)
# SIGTERM stops the workers cleanly.
# Usage: fleet_test.sh TTUNE_BINARY   (exits 77, skipped, when PostgreSQL is not installed)
set -euo pipefail
TTUNE=$1
SRC=$(cd "$(dirname "$0")/../.." && pwd)
source "$SRC/tests/cli/pg_test_bank.sh"
DIR=$(mktemp -d /tmp/ttune-fleet-test-XXXXXX)
chmod 755 "$DIR"  # the PostgreSQL server runs as the postgres user
declare -a WORKERS=()
cleanup() {
  for p in "${WORKERS[@]}"; do kill -CONT "$p" 2>/dev/null || true; kill -KILL "$p" 2>/dev/null || true; done
  kill $(jobs -p) 2>/dev/null || true
  pg_test_bank_stop
  rm -rf "$DIR"
}
trap cleanup EXIT
fail() {
  echo "fleet test: $1"
  for f in "$DIR"/*.log "$DIR"/*.err; do [ -f "$f" ] && { echo "--- $f"; tail -20 "$f"; }; done
  exit 1
}

pg_test_bank "fleet_$$"
sql() { psql "$DB" -qtAc "$1"; }
"$TTUNE" db stats --db "$DB" >/dev/null 2>&1 || "$TTUNE" db import /dev/null --db "$DB" >/dev/null  # creates the bank

# Three workers of one target, each measurement 100 ms longer (simulated device latency), 3 s leases.
LEASE=3
for i in 0 1 2; do
  "$TTUNE" worker --db "$DB" --target fleet-test --latency-ms 100 --lease $LEASE --progress >"$DIR/worker$i.log" 2>&1 &
  WORKERS[$i]=$!
done
for _ in $(seq 1 100); do
  [ "$(sql "SELECT count(*) FROM measure_workers WHERE target = 'fleet-test' AND state = 'idle'" 2>/dev/null || echo 0)" -eq 3 ] && break
  sleep 0.1
done
[ "$(sql "SELECT count(*) FROM measure_workers WHERE target = 'fleet-test'")" -eq 3 ] || fail "the three workers did not announce themselves"

# Waits until worker $1 (a pid) holds a running job; prints the job's id.
running_job_of() {
  for _ in $(seq 1 600); do
    job=$(sql "SELECT id FROM measure_jobs WHERE state = 'running' AND worker LIKE '%:$1:%' LIMIT 1")
    [ -n "$job" ] && { echo "$job"; return 0; }
    sleep 0.05
  done
  return 1
}

# Checks that the newest tuning run finished with exactly $1 records, none measured twice.
check_run() {
  run=$(sql "SELECT run_id FROM runs WHERE kind = 'tune' ORDER BY started DESC, seq DESC LIMIT 1")
  [ "$(sql "SELECT status FROM runs WHERE run_id = '$run'")" = finished ] || fail "run $run did not finish"
  n=$(sql "SELECT count(*) FROM records WHERE run_id = '$run'")
  [ "$n" -eq "$1" ] || fail "run $run holds $n records, not $1"
  dups=$(sql "SELECT count(*) FROM (SELECT workload_key, steps FROM records WHERE run_id = '$run' GROUP BY workload_key, steps HAVING count(*) > 1) AS d")
  [ "$dups" -eq 0 ] || fail "run $run recorded $dups schedules more than once"
  [ "$(sql "SELECT count(*) FROM measure_jobs")" -eq 0 ] || fail "jobs were left in the queue after run $run"
}

# (1) SIGKILL one worker while it measures.
TRIALS=36
"$TTUNE" tune alexnet --trials $TRIALS --db "$DB" --workers fleet-test --seed 1 --json >"$DIR/tune1.json" 2>"$DIR/tune1.err" &
tuner=$!
job=$(running_job_of "${WORKERS[1]}") || fail "worker 1 never took a job"
kill -KILL "${WORKERS[1]}"
# Only the holder of a job can finish it: once the job leaves the queue, another worker measured it.
for _ in $(seq 1 600); do
  [ -z "$(sql "SELECT id FROM measure_jobs WHERE id = $job")" ] && break
  sleep 0.1
done
[ -z "$(sql "SELECT id FROM measure_jobs WHERE id = $job")" ] || fail "job $job of the killed worker was never measured by another"
wait $tuner || fail "the tuning run with a killed worker failed"
check_run $TRIALS

# (2) A worker that hangs: SIGSTOP it while it measures.
"$TTUNE" tune alexnet --trials 16 --new-run --db "$DB" --workers fleet-test --seed 2 --json >"$DIR/tune2.json" 2>"$DIR/tune2.err" &
tuner=$!
job=$(running_job_of "${WORKERS[2]}") || fail "worker 2 never took a job"
kill -STOP "${WORKERS[2]}"
sleep $((LEASE + 2))
age=$("$TTUNE" db workers --db "$DB" --json | python3 -c "import json, sys
ws = json.load(sys.stdin)['workers']
print(int(next(w['heartbeat_age_s'] for w in ws if ':${WORKERS[2]}:' in w['worker'])))")
[ "$age" -ge "$LEASE" ] || fail "the hung worker's heartbeat is only $age s old"
wait $tuner || fail "the tuning run with a hung worker failed"
check_run 16
kill -CONT "${WORKERS[2]}"
for _ in $(seq 1 100); do
  grep -q "was given to another worker while this one measured it" "$DIR/worker2.log" && break
  sleep 0.1
done
grep -q "job $job was given to another worker while this one measured it" "$DIR/worker2.log" ||
  fail "the hung worker's late result for job $job was not dropped"

# (3) db refresh --workers: the tuned runs' schedules re-measured on the workers against today's
# defaults; each kernel decides alone (the model is not timed there), stored as a refresh run.
"$TTUNE" db refresh alexnet --db "$DB" --workers fleet-test --candidates 1 --json >"$DIR/refresh.json" 2>"$DIR/refresh.err" ||
  fail "db refresh --workers failed"
python3 - "$DIR/refresh.json" <<'PY' || fail "db refresh --workers did not decide per kernel on the workers"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["check"]["whole_model"] is False, j["check"]
assert j["measured"] > 0 and len(j["kernels"]) > 0, j
assert any(k["bank_schedules"] > 0 for k in j["kernels"]), j["kernels"]
PY
[ "$(sql "SELECT count(*) FROM runs WHERE kind = 'refresh' AND status = 'finished'")" -ge 1 ] || fail "the refresh run was not stored"
[ "$(sql "SELECT count(*) FROM measure_jobs")" -eq 0 ] || fail "jobs were left in the queue after db refresh"

# (4) experiment --workers compares whole models here: workers with another thread count are refused.
other=$(( $(sql "SELECT max(threads) FROM measure_workers WHERE target = 'fleet-test'") + 1 ))
if "$TTUNE" experiment --models alexnet --trials 8 --db "$DB" --out "$DIR/exp" --threads "$other" --workers fleet-test \
  >"$DIR/exp.out" 2>"$DIR/exp.err"; then
  fail "experiment --workers accepted workers whose thread count is not this host's"
fi
grep -q "must have this host's CPU and thread count" "$DIR/exp.err" || fail "experiment --workers: $(cat "$DIR/exp.err")"

# (5) SIGTERM: the live workers stop cleanly and say so in the bank.
for i in 0 2; do kill -TERM "${WORKERS[$i]}"; done
for i in 0 2; do wait "${WORKERS[$i]}" || fail "worker $i did not exit cleanly on SIGTERM"; done
[ "$(sql "SELECT count(*) FROM measure_workers WHERE state = 'stopped'")" -eq 2 ] || fail "the stopped workers are not marked stopped"
WORKERS=()
echo "fleet test: ok (a killed and a hung worker; every trial recorded once)"
