#!/usr/bin/env bash
# Screenshot test of `ttune tune`'s live view: runs a short tuning of alexnet inside a detached
# tmux terminal (100x40), captures the screen while it runs and after it ends, and checks what a
# user must see: a progress bar with ETA, trials and trials/s, a finite estimated latency against
# untuned, the time shares, and per-kernel lines (trials, default, best, speedup) with the kernel
# being tuned marked. Usage: live_view_test.sh TTUNE_BINARY
set -euo pipefail
TTUNE=$1
command -v tmux >/dev/null || { echo "tmux is not installed (scripts/setup.sh installs it)"; exit 1; }
DIR=$(mktemp -d)
SESSION="ttune-live-$$"
cleanup() { tmux kill-session -t "$SESSION" 2>/dev/null || true; rm -rf "$DIR"; }
trap cleanup EXIT
tmux new-session -d -s "$SESSION" -x 110 -y 40 \
  "$TTUNE tune alexnet --trials 40 --db $DIR/bank.db --seed 3; echo TTUNE-EXIT=\$?; sleep 60"
mid=""
for _ in $(seq 1 600); do
  sleep 0.1
  screen=$(tmux capture-pane -p -t "$SESSION")
  # A view during the search phase: the estimate is known and a kernel is being tuned.
  if grep -q "est\. " <<<"$screen" && grep -Eq "^ *> " <<<"$screen"; then mid=$screen; fi
  grep -q "TTUNE-EXIT=" <<<"$screen" && break
done
final=$(tmux capture-pane -p -t "$SESSION")
fail() { echo "live view test: $1"; echo "--- while running ---"; echo "$mid"; echo "--- at the end ---"; echo "$final"; exit 1; }
grep -q "TTUNE-EXIT=0" <<<"$final" || fail "ttune tune did not finish successfully"
[ -n "$mid" ] || fail "no screen showed an estimated latency with a kernel marked as being tuned"
grep -Eq '^\[[#.]{30}\] +[0-9]+%' <<<"$mid" || fail "no progress bar"
grep -q "ETA" <<<"$mid" || fail "no ETA"
grep -Eq '[0-9]+/40 trials, [0-9.]+ trials/s' <<<"$mid" || fail "no trial count and rate"
grep -Eq 'est\. [0-9.]+ [mu]?s \(untuned [0-9.]+ [mu]?s, [0-9.]+x\)' <<<"$mid" || fail "no finite estimated latency against untuned"
grep -Eq 'time: measuring [0-9]+%, compiling [0-9]+%, searching [0-9]+%' <<<"$mid" || fail "no time shares"
grep -Eq 'kernel \(share of est. latency\) +occ +trials +default +best +speedup' <<<"$mid" || fail "no kernel table header"
grep -Eq '^ *> .*\([0-9.]+%\) +[0-9]+ +[0-9]+ +[0-9.]+ [mu]?s +[0-9.]+ [mu]?s +[0-9.]+x' <<<"$mid" || fail "no kernel line with share, trials, default, best, speedup"
[ "$(grep -Ec '^ *[> ] .*\([0-9.]+%\)' <<<"$final")" -ge 5 ] || fail "the final view lists fewer than 5 kernels"
grep -Eq 'alexnet: 40 trials over [0-9]+ kernels' <<<"$final" || fail "no summary line"
echo "live view test: ok"
