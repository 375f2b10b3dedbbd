#!/usr/bin/env python3
"""Time to reach 90% of a tuning run's speedup with the cost model started from the bank
(`tune --cost-model bank`) against started empty (`--cost-model scratch`, Ansor's), leave-one-out.

Phase 1 tunes every model from scratch into one bank (those runs are the baselines and, for the
other models, the bank). Phase 2 tunes every model again with the bank-trained cost model, each in
its own copy of the phase-1 bank: its prior holds the other models' records only (ttune leaves out
the model's own records and every workload it has, cli/cost_prior.h). Both phases use the same
seed, trials and defaults. From each run's records (in trial order, with their elapsed time,
which includes building the prior) the estimated latency after each record is the sum over the
tuned kernels of occurrences x best time so far; the target is 90% of the scratch run's final
speedup over its untuned estimate, and each run's time to reach it is read off its curve.
Usage: bench/prior_bench.py [--ttune BIN] [--models a,b,c] [--trials N] [--defaults basic|strong]
       [--threads T] [--out DIR] [--report-only]
"""
import argparse
import json
import math
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def tune(args, model, db, start, log):
    cmd = [args.ttune, "tune", model, "--trials", str(args.trials), "--db", db, "--new-run", "--no-refine",
           "--defaults", args.defaults, "--cost-model", start, "--seed", "1", "--json"]
    if args.threads:
        cmd += ["--threads", str(args.threads)]
    t0 = time.time()
    with open(log, "w") as err:
        out = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=err, text=True, check=False)
    if out.returncode != 0:
        sys.exit(f"prior bench: {' '.join(cmd)} failed (exit {out.returncode}); see {log}")
    j = json.loads(out.stdout)
    j["bench_wall_s"] = time.time() - t0
    return j


def curve(db, run_id, model):
    """(elapsed_s, estimated latency) after each record of the run; inf until every kernel has a time."""
    con = sqlite3.connect(db)
    occ = {}
    for key, n in con.execute("SELECT workload_key, occurrences FROM model_kernels WHERE model = ?", (model,)):
        occ[key] = occ.get(key, 0) + n
    rows = con.execute("SELECT workload_key, median_s, elapsed_s, source FROM records WHERE run_id = ? "
                       "ORDER BY trial", (run_id,)).fetchall()
    con.close()
    tasks = {r[0] for r in rows}
    best = {k: math.inf for k in tasks}
    untuned = {}
    out = []
    for key, med, elapsed, source in rows:
        t = med if med is not None and med > 0 else math.inf
        if source == "default":
            untuned[key] = t
        best[key] = min(best[key], t)
        out.append((elapsed, sum(occ.get(k, 1) * b for k, b in best.items())))
    untuned_s = sum(occ.get(k, 1) * untuned.get(k, math.inf) for k in tasks)
    return out, untuned_s


def time_to(points, latency):
    for elapsed, est in points:
        if est <= latency:
            return elapsed
    return None


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--ttune", default=os.path.join(ROOT, "build", "bin", "ttune"))
    p.add_argument("--models", default="resnet18,mobilenet_v2,mnasnet1_0,googlenet")
    p.add_argument("--trials", type=int, default=300)
    p.add_argument("--defaults", default="basic")
    p.add_argument("--threads", type=int, default=0)
    p.add_argument("--out", default="/tmp/ttune-prior-bench")
    p.add_argument("--report-only", action="store_true")
    args = p.parse_args()
    models = args.models.split(",")
    os.makedirs(args.out, exist_ok=True)
    bank = os.path.join(args.out, "bank.db")
    state_path = os.path.join(args.out, "runs.json")
    state = json.load(open(state_path)) if os.path.exists(state_path) else {}
    if not args.report_only:
        for m in models:  # phase 1: from scratch, one bank
            if m in state.get("scratch", {}):
                continue
            print(f"prior bench: tuning {m} from scratch ({args.trials} trials)", file=sys.stderr)
            state.setdefault("scratch", {})[m] = tune(args, m, bank, "scratch", os.path.join(args.out, m + ".scratch.log"))
            json.dump(state, open(state_path, "w"), indent=1)
        for m in models:  # phase 2: bank-trained cost model, each in a copy of the phase-1 bank
            if m in state.get("bank", {}):
                continue
            db = os.path.join(args.out, f"bank-{m}.db")
            shutil.copyfile(bank, db)
            print(f"prior bench: tuning {m} with the bank-trained cost model", file=sys.stderr)
            j = tune(args, m, db, "bank", os.path.join(args.out, m + ".bank.log"))
            j["db"] = db
            state.setdefault("bank", {})[m] = j
            json.dump(state, open(state_path, "w"), indent=1)

    print(f"Time to 90% of the scratch run's speedup, {args.trials} trials per run, --defaults {args.defaults}, "
          f"leave-one-out over {len(models)} models")
    print(f"{'model':<16} {'S scratch':>9} {'t90 scratch':>11} {'t90 bank':>9} {'ratio':>6} {'prior':>14} "
          f"{'S bank':>7}")
    ratios = []
    for m in models:
        s, b = state["scratch"][m], state["bank"][m]
        pts_s, untuned_s = curve(bank, s["run_id"], m)
        pts_b, untuned_b = curve(b["db"], b["run_id"], m)
        final = pts_s[-1][1]
        target = final / 0.9  # 90% of the scratch run's speedup, against its own untuned estimate
        ts, tb = time_to(pts_s, target), time_to(pts_b, target)
        prior = b.get("cost_model_prior", {})
        ratio = ts / tb if ts and tb else None
        if ratio:
            ratios.append(ratio)
        fmt = lambda t: f"{t:.0f} s" if t is not None else "never"
        print(f"{m:<16} {untuned_s / final:>8.2f}x {fmt(ts):>11} {fmt(tb):>9} "
              f"{(f'{ratio:.2f}x' if ratio else '-'):>6} {prior.get('samples', 0):>6} in {prior.get('seconds', 0):>4.1f} s "
              f"{untuned_b / pts_b[-1][1]:>6.2f}x")
    if ratios:
        print(f"geomean scratch/bank time to 90%: {math.exp(statistics.mean(math.log(r) for r in ratios)):.2f}x "
              f"over {len(ratios)} models (range {min(ratios):.2f}-{max(ratios):.2f}x)")


if __name__ == "__main__":
    main()
