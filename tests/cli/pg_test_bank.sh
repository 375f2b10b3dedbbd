# Sourced by the shell tests that need a PostgreSQL bank (needs SRC, DIR and a `fail` function).
#   pg_test_bank NAME   sets DB to a new database NAME on the suite's server ($TTUNE_TEST_PG_DIR,
#                       tests/CMakeLists.txt) or on one started in $DIR/pg; exits 77 (skipped),
#                       saying why, when PostgreSQL is not installed
#   pg_test_bank_stop   stops the server pg_test_bank started, if any (for the EXIT trap)
pg_test_bank() {
  local server status
  if [ -n "${TTUNE_TEST_PG_DIR:-}" ] && [ -f "$TTUNE_TEST_PG_DIR/url" ]; then
    server=$(cat "$TTUNE_TEST_PG_DIR/url")
  else
    set +e
    server=$("$SRC/scripts/pg_server.sh" start "$DIR/pg" 2>"$DIR/pg.err")
    status=$?
    set -e
    [ $status -ne 77 ] || { echo "skipped: $(cat "$DIR/pg.err")"; exit 77; }
    [ $status -eq 0 ] || fail "the test PostgreSQL server did not start: $(cat "$DIR/pg.err")"
    touch "$DIR/own-server"
  fi
  psql "$server" -qtAc "CREATE DATABASE $1" >/dev/null
  DB="${server%/*}/$1"
}
pg_test_bank_stop() {
  if [ -f "$DIR/own-server" ]; then "$SRC/scripts/pg_server.sh" stop "$DIR/pg" || true; fi
}
