#!/usr/bin/env bash
# Tuning runs and other processes: (1) a second `ttune tune` of the same model and bank is refused
# while the first one runs (no trial measured twice); (2) a tuning run killed with SIGKILL at
# random moments loses no committed record, and each restart resumes it (never measuring a
# schedule twice) until it finishes with exactly the requested trials.
# Usage: tune_processes_test.sh TTUNE_BINARY [KILLS] [postgres]   (CI: 3 kills; the issue's check: 20)
# With `postgres` the bank is a database on the suite's PostgreSQL server ($TTUNE_TEST_PG_DIR, or
# one started here with scripts/pg_server.sh); exits 77 (skipped) when PostgreSQL is not installed.
set -euo pipefail
TTUNE=$1
KILLS=${2:-3}
BACKEND=${3:-sqlite}
DIR=$(mktemp -d /tmp/ttune-tune-processes-XXXXXX)
chmod 755 "$DIR"  # a PostgreSQL server started here runs as the postgres user
SRC=$(cd "$(dirname "$0")/../.." && pwd)
source "$SRC/tests/cli/pg_test_bank.sh"
cleanup() {
  kill $(jobs -p) 2>/dev/null || true
  pg_test_bank_stop
  rm -rf "$DIR"
}
trap cleanup EXIT
fail() { echo "tune processes test: $1"; exit 1; }
if [ "$BACKEND" = postgres ]; then
  pg_test_bank "tune_processes_$$"
  sql() { psql "$DB" -qtAc "$1"; }
  ORDER=seq
else
  DB="$DIR/bank.db"
  command -v sqlite3 >/dev/null || fail "sqlite3 is not installed (scripts/setup.sh installs it)"
  sql() { sqlite3 "$DB" "$1"; }
  ORDER=rowid
fi
count() { sql "SELECT count(*) FROM records" 2>/dev/null || echo 0; }

# (1) Two tuners, one run.
"$TTUNE" tune alexnet --trials 400 --db "$DB" --seed 1 >"$DIR/first.out" 2>&1 &
first=$!
for _ in $(seq 1 300); do [ "$(count)" -gt 0 ] && break; sleep 0.1; done
[ "$(count)" -gt 0 ] || fail "the first tuner committed nothing"
set +e
"$TTUNE" tune alexnet --trials 400 --db "$DB" --seed 1 >"$DIR/second.out" 2>&1
status=$?
set -e
[ $status -ne 0 ] || fail "a second tuner of the same run was not refused"
grep -q "is being worked on by process $first" "$DIR/second.out" || { cat "$DIR/second.out"; fail "the refusal does not name the owner"; }
kill -KILL $first; wait $first 2>/dev/null || true

# (2) SIGKILL at random moments, then resume.
TRIALS=120
before=$(count)
for k in $(seq 1 "$KILLS"); do
  "$TTUNE" tune alexnet --trials $TRIALS --db "$DB" --seed 1 >"$DIR/run.out" 2>&1 &
  pid=$!
  sleep "$(awk -v s=$RANDOM 'BEGIN{srand(s); printf "%.2f", 1 + 5 * rand()}')"
  kill -KILL $pid 2>/dev/null || true
  wait $pid 2>/dev/null || true
  now=$(count)
  [ "$now" -ge "$before" ] || fail "kill $k lost committed records ($before -> $now)"
  before=$now
done
"$TTUNE" tune alexnet --trials $TRIALS --db "$DB" --seed 1 --json >"$DIR/final.json" 2>"$DIR/final.err" || { cat "$DIR/final.err"; fail "the last resume failed"; }
run=$(sql "SELECT run_id FROM runs WHERE kind = 'tune' ORDER BY started DESC, $ORDER DESC LIMIT 1")
status=$(sql "SELECT status FROM runs WHERE run_id = '$run'")
[ "$status" = finished ] || fail "run $run is $status, not finished"
n=$(sql "SELECT count(*) FROM records WHERE run_id = '$run'")
[ "$n" -eq $TRIALS ] || fail "run $run holds $n records, not $TRIALS"
dups=$(sql "SELECT count(*) FROM (SELECT workload_key, steps FROM records WHERE run_id = '$run' GROUP BY workload_key, steps HAVING count(*) > 1) AS d")
[ "$dups" -eq 0 ] || fail "run $run measured $dups schedules more than once"
echo "tune processes test: ok ($BACKEND, $KILLS kills, $n records)"
