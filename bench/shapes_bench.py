#!/usr/bin/env python3
"""Transfer-tuning across shapes: a model with dynamic axes tuned at one size, then transfer-tuned
to other sizes from that run, against tuning each other size from scratch.

For each (model, source size, target sizes): `ttune tune MODEL --dim ...` at the source size (the
bank's only run), then per target size `ttune transfer` (its sources are the source size's
records: the sizes are part of the model's name in the bank, cli/model_loader.h), `ttune tune`
from scratch (cost model started empty, no records of the transfer), and `ttune compare`, which
times untuned, transferred and tuned interleaved and reads the tuning run's time to match the
transfer. Models: bench-models/bert_base_dyn.onnx and resnet50_dyn.onnx (bench/models/export_models.py).
Usage: bench/shapes_bench.py [--ttune BIN] [--models-dir DIR] [--trials N] [--out DIR] [--only bert|resnet50]
       [--defaults strong|basic]
"""
import argparse
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CASES = {
    "bert": ("bert_base_dyn.onnx", ["batch=1", "seq=128"], [["batch=1", "seq=32"], ["batch=1", "seq=384"]]),
    "resnet50": ("resnet50_dyn.onnx", ["batch=1"], [["batch=8"]]),
}


def ttune(args, cmd, log):
    full = [args.ttune] + cmd + ["--json"]
    with open(log, "w") as err:
        out = subprocess.run(full, stdout=subprocess.PIPE, stderr=err, text=True, check=False)
    if out.returncode != 0:
        sys.exit(f"shapes bench: {' '.join(full)} failed (exit {out.returncode}); see {log}")
    return json.loads(out.stdout)


def dims(sizes):
    out = []
    for s in sizes:
        out += ["--dim", s]
    return out


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--ttune", default=os.path.join(ROOT, "build", "bin", "ttune"))
    p.add_argument("--models-dir", default=os.path.join(ROOT, "build", "bench-models"))
    p.add_argument("--trials", type=int, default=300)
    p.add_argument("--out", default="/tmp/ttune-shapes-bench")
    p.add_argument("--only", choices=list(CASES))
    p.add_argument("--defaults", choices=["strong", "basic"], default="strong")
    args = p.parse_args()
    os.makedirs(args.out, exist_ok=True)
    state_path = os.path.join(args.out, "results.json")
    state = json.load(open(state_path)) if os.path.exists(state_path) else {}
    for case, (fname, source, targets) in CASES.items():
        if args.only and case != args.only:
            continue
        model = os.path.join(args.models_dir, fname)
        db = os.path.join(args.out, case + ".db")
        log = lambda what: os.path.join(args.out, f"{case}.{what}.log")
        st = state.setdefault(case, {})
        base = ["--defaults", args.defaults]
        trials = ["--trials", str(args.trials), "--new-run", "--cost-model", "scratch", "--db", db] + base
        if "source" not in st:
            print(f"shapes bench: tuning {fname} at {','.join(source)}", file=sys.stderr)
            st["source"] = ttune(args, ["tune", model] + dims(source) + trials, log("source"))
            json.dump(state, open(state_path, "w"), indent=1)
        for t in targets:
            key = ",".join(t)
            r = st.setdefault(key, {})
            steps = [("transfer", ["transfer", model] + dims(t) + ["--db", db] + base),
                     ("tune", ["tune", model] + dims(t) + trials),
                     ("compare", ["compare", model] + dims(t) + ["--db", db] + base)]
            for what, cmd in steps:
                if what not in r:
                    print(f"shapes bench: {what} {fname} at {key}", file=sys.stderr)
                    r[what] = ttune(args, cmd, log(f"{key}.{what}"))
                    json.dump(state, open(state_path, "w"), indent=1)

    print(f"Transfer-tuning across shapes (--defaults {args.defaults}): tuned at the source size ({args.trials} "
          f"trials), transferred to the others, against tuning each from scratch ({args.trials} trials); "
          f"compare's interleaved timing")
    print(f"{'model':<10} {'from':<16} {'to':<16} {'S transfer':>22} {'search':>7} {'S tuned':>22} {'tuning':>7} "
          f"{'to match':>8}")
    for case, res in state.items():
        source = ",".join(CASES[case][1])
        for key, r in res.items():
            if key == "source" or "compare" not in r:
                continue
            c = r["compare"]

            def s(prefix):
                return (f"{c[prefix + '_speedup']:.2f}x ({c[prefix + '_speedup_lo']:.2f}-"
                        f"{c[prefix + '_speedup_hi']:.2f})")
            match = c.get("tune_s_to_match_transfer")
            print(f"{case:<10} {source:<16} {key:<16} {s('transfer'):>22} {c['transfer_s']:>6.0f}s {s('tuned'):>22} "
                  f"{c['tune_s']:>6.0f}s {(f'{match:.0f}s' if match is not None else 'never'):>8}")


if __name__ == "__main__":
    main()
