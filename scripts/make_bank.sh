#!/usr/bin/env bash
# Produces shipped-bank files (bank/*.jsonl): the fastest successful record per kernel of one
# from-scratch tuning run per model, named MODEL.CPU-ISA.jsonl after the target the records were
# measured for (e.g. resnet18.znver4-avx512.jsonl, resnet18.x86-64-v3-avx2.jsonl).
#
# Usage: scripts/make_bank.sh [--target T] [--trials N] [--defaults strong|basic] [--db FILE] [--out DIR] MODEL...
#        scripts/make_bank.sh --from-experiment DIR [--out DIR]
#        scripts/make_bank.sh --refresh FILE...
#   --target   host (default), x86-64-v3 (AVX2 code, runs on any AVX2 host), x86-64-v4, a CPU name
#   --trials   tuning trials per model (default 2000)
#   --defaults the runs' baseline (default strong); basic files (the paper's conditions) are named
#              MODEL.CPU-ISA-basic.jsonl and are transfer candidates only for --defaults basic
#   --db       the bank the tuning runs go to (default: a fresh one under build/make-bank/)
#   --out      where the files go (default: bank/)
#   --from-experiment DIR: tune nothing; export the tuning runs of `ttune experiment --out DIR`
#              (its DIR/results.json names them, DIR/bank.db holds them)
#   --refresh FILE...: tune nothing; re-measure each shipped file's schedules against today's default
#              schedules on this host (`ttune db refresh`, for the file's target: MODEL.CPU-ISA.jsonl
#              -> --target CPU) and rewrite the file with that run's records: the default and the
#              file's schedules of each kernel, timed side by side (after the defaults improved).
# An interrupted run of a model in --db is resumed; a finished one is not reused (the model is tuned
# again). Update bank/README.md with the command.
set -euo pipefail
cd "$(dirname "$0")/.."
TTUNE=${TTUNE:-build/bin/ttune}
target=host trials=2000 db="" out=bank experiment="" refresh=0 defaults=strong
models=()
while [ $# -gt 0 ]; do
  case "$1" in
    --target) target=$2; shift 2 ;;
    --trials) trials=$2; shift 2 ;;
    --defaults) defaults=$2; shift 2 ;;
    --db) db=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --from-experiment) experiment=$2; shift 2 ;;
    --refresh) refresh=1; shift ;;
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
  local file="$out/$1.$(suffix_of "$3")$([ "$defaults" = basic ] && echo -basic).jsonl"
  "$TTUNE" db export "$file" --db "$4" --run "$2" --best --ok-only >/dev/null
  echo "make_bank: $file ($(wc -l <"$file") records, run $2)"
}

if [ "$refresh" = 1 ]; then
  [ ${#models[@]} -gt 0 ] || { echo "make_bank: name at least one file to refresh" >&2; exit 2; }
  for file in "${models[@]}"; do
    case "$file" in *-basic.jsonl) echo "make_bank: $file is a basic-baseline file; refresh measures against the strong defaults, skipped" >&2; continue ;; esac
    base=$(basename "$file" .jsonl)           # resnet18.znver4-avx512
    model=${base%%.*}
    cpu=${base#*.}
    cpu=${cpu%-*}                             # znver4, x86-64-v3
    [ "$model" != "$base" ] || { echo "make_bank: $file is not named MODEL.CPU-ISA.jsonl" >&2; exit 2; }
    tmp=$(mktemp -d)
    "$TTUNE" db import "$file" --db "$tmp/bank.db" >/dev/null
    summary=$("$TTUNE" db refresh "$model" --db "$tmp/bank.db" --target "$cpu" --json)
    run=$(json_field run_id <<<"$summary")
    # The file: per kernel the schedule the model kept (what `run --db` then picks by time), and
    # the run's other bank schedules that are slower in isolation (transfer candidates that cannot
    # displace it); a schedule faster alone but not kept in the model is left out.
    "$TTUNE" db export "$tmp/chosen.jsonl" --db "$tmp/bank.db" --model "$model" --chosen --target "$cpu" >/dev/null
    "$TTUNE" db export "$tmp/run.jsonl" --db "$tmp/bank.db" --run "$run" --ok-only >/dev/null
    /usr/bin/env python3 - "$tmp/chosen.jsonl" "$tmp/run.jsonl" >"$tmp/out.jsonl" <<'EOF'
import json, statistics, sys
lines = lambda f: [l for l in open(f) if l.strip()]
median = lambda r: statistics.median(r["result"]["costs_s"])
chosen = {json.loads(l)["workload_key"]: json.loads(l) for l in lines(sys.argv[1])}
out = lines(sys.argv[1])
for l in lines(sys.argv[2]):
    r = json.loads(l)
    c = chosen.get(r["workload_key"])
    if c is None or r["steps"] == c["steps"] or r["provenance"]["source"] == "default":
        continue
    if median(r) > median(c):
        out.append(l)
sys.stdout.write("".join(out))
EOF
    cp "$tmp/out.jsonl" "$file"
    echo "make_bank: $file refreshed ($(wc -l <"$file") records, $(sed -nE 's/.*"kernels_keeping_bank_schedules": *([0-9]+).*/\1/p' <<<"$summary") kernels keep a bank schedule in the model, $(sed -nE 's/.*"speedup": *([0-9.]+).*/\1/p' <<<"$summary" | head -1 | xargs printf "%.2f")x over the defaults)"
    rm -rf "$tmp"
  done
  exit 0
fi

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
  db=build/make-bank/$target-$defaults.db
fi
for m in "${models[@]}"; do
  echo "make_bank: tuning $m for $target ($trials trials, $defaults defaults) into $db"
  summary=$("$TTUNE" tune "$m" --trials "$trials" --target "$target" --defaults "$defaults" --db "$db" --json)
  export_run "$m" "$(json_field run_id <<<"$summary")" "$(json_field target <<<"$summary")" "$db"
done
