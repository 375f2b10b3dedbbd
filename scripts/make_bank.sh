#!/usr/bin/env bash
# Produces shipped-bank files (bank/*.jsonl): the fastest successful record per kernel of one
# from-scratch tuning run per model, named MODEL.CPU-ISA.jsonl after the target the records were
# measured for (e.g. resnet18.znver4-avx512.jsonl, resnet18.x86-64-v3-avx2.jsonl).
#
# Usage: scripts/make_bank.sh [--target T] [--trials N] [--db FILE] [--out DIR] MODEL...
#        scripts/make_bank.sh --from-experiment DIR [--out DIR]
#   --target   host (default), x86-64-v3 (AVX2 code, runs on any AVX2 host), x86-64-v4, a CPU name
#   --trials   tuning trials per model (default 2000)
#   --db       the bank the tuning runs go to (default: a fresh one under build/make-bank/)
#   --out      where the files go (default: bank/)
#   --from-experiment DIR: tune nothing; export the tuning runs of `ttune experiment --out DIR`
#              (its DIR/results.json names them, DIR/bank.db holds them)
# An interrupted run of a model in --db is resumed; a finished one is not reused (the model is tuned
# again). Update bank/README.md with the command.
set -euo pipefail
cd "$(dirname "$0")/.."
TTUNE=${TTUNE:-build/bin/ttune}
target=host trials=2000 db="" out=bank experiment=""
models=()
while [ $# -gt 0 ]; do
  case "$1" in
    --target) target=$2; shift 2 ;;
    --trials) trials=$2; shift 2 ;;
    --db) db=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --from-experiment) experiment=$2; shift 2 ;;
    -*) echo "make_bank: unknown option $1" >&2; exit 2 ;;
    *) models+=("$1"); shift ;;
  esac
done
[ -x "$TTUNE" ] || { echo "make_bank: $TTUNE is not built (run scripts/build.sh)" >&2; exit 1; }
mkdir -p "$out"

# "znver4 (avx512, 16 lanes, ...)" -> "znver4-avx512"
suffix_of() { sed -E 's/^([^ ]+) \(([a-z0-9]+),.*/\1-\2/' <<<"$1"; }
json_field() { sed -nE "s/.*\"$1\": *\"([^\"]*)\".*/\1/p" | head -1; }

export_run() {  # MODEL RUN_ID TARGET_DESCRIPTION DB
  local file="$out/$1.$(suffix_of "$3").jsonl"
  "$TTUNE" db export "$file" --db "$4" --run "$2" --best --ok-only >/dev/null
  echo "make_bank: $file ($(wc -l <"$file") records, run $2)"
}

if [ -n "$experiment" ]; then
  [ -f "$experiment/results.json" ] || { echo "make_bank: $experiment/results.json not found" >&2; exit 1; }
  # One line per tuned model: name, run id, target description.
  /usr/bin/env python3 - "$experiment/results.json" <<'EOF' |
import json, sys
d = json.load(open(sys.argv[1]))
for name, m in d["models"].items():
    t = m.get("tune")
    if t: print(name, t["run_id"], t["target"], sep="\t")
EOF
  while IFS=$'\t' read -r model run desc; do
    export_run "$model" "$run" "$desc" "$experiment/bank.db"
  done
  exit 0
fi

[ ${#models[@]} -gt 0 ] || { echo "make_bank: name at least one model" >&2; exit 2; }
if [ -z "$db" ]; then
  mkdir -p build/make-bank
  db=build/make-bank/$target.db
fi
for m in "${models[@]}"; do
  echo "make_bank: tuning $m for $target ($trials trials) into $db"
  summary=$("$TTUNE" tune "$m" --trials "$trials" --target "$target" --db "$db" --json)
  export_run "$m" "$(json_field run_id <<<"$summary")" "$(json_field target <<<"$summary")" "$db"
done
