#!/usr/bin/env python3
"""Per-kernel A/B of two ttune builds on one model, inside the model.

Each round runs `ttune run MODEL --profile --json` with build A, then with build B (the order
alternates per round), so a drift in the machine's load meets both; per kernel (by workload key)
it prints the median in-model time of each build, the difference and the ratio, then the
models' kernel totals. Meant for changes to default schedules or code generation: on a shared VM
whole-model latencies move 10-50% between minutes, while a kernel's share of one profile is far
more stable, and the interleaved medians of a few rounds separate a 5% change from noise that
a single before/after run cannot.

  bench/models/ab_builds.py OLD/ttune NEW/ttune MODEL [--target T] [--threads 2] [--rounds 3]
      [--repeat 30] [--db PATH] [--class PATTERN] [--json]

MODEL: a zoo name or an .onnx file. Kernels present in only one build (a change that alters the
graph or fusion) are listed apart. Exit status 1 if a build fails to run the model.
"""
import argparse
import json
import math
import statistics
import subprocess
import sys


def profile(binary, args):
    cmd = [binary, "run", args.model, "--profile", "--repeat", str(args.repeat), "--threads", str(args.threads),
           "--json", "--target", args.target]
    if args.db is not None:
        cmd += ["--db", args.db]
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"ab_builds: {binary} failed on {args.model}: {out.stderr.strip().splitlines()[-1:]}")
    return json.loads(out.stdout)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("a", help="build A's ttune binary")
    p.add_argument("b", help="build B's ttune binary")
    p.add_argument("model")
    p.add_argument("--target", default="host")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--repeat", type=int, default=30, help="profiled runs per profile")
    p.add_argument("--db", default=None, help="bank for both builds (--db of ttune run; default: none)")
    p.add_argument("--class", dest="pattern", default="", help="only kernels whose class contains this")
    p.add_argument("--json", action="store_true")
    args = p.parse_args()

    times = {"a": {}, "b": {}}
    totals = {"a": [], "b": []}
    kinfo = {}
    for r in range(args.rounds):
        order = ("a", "b") if r % 2 == 0 else ("b", "a")
        for side in order:
            d = profile(getattr(args, side), args)
            totals[side].append(d["profile_total_ms"])
            for k in d["profile"]:
                times[side].setdefault(k["workload_key"], []).append(k["ms"])
                kinfo[k["workload_key"]] = (k["class"], k["occurrences"])

    rows, only = [], []
    for key, (cls, occ) in kinfo.items():
        if args.pattern not in cls:
            continue
        if key not in times["a"] or key not in times["b"]:
            only.append({"workload_key": key, "class": cls, "build": "a" if key in times["a"] else "b"})
            continue
        a, b = statistics.median(times["a"][key]), statistics.median(times["b"][key])
        rows.append({"workload_key": key, "class": cls, "occurrences": occ, "a_ms": a, "b_ms": b, "delta_ms": b - a,
                     "ratio": b / a if a > 0 else math.nan})
    rows.sort(key=lambda x: x["delta_ms"])
    result = {"model": args.model, "target": args.target, "threads": args.threads, "rounds": args.rounds,
              "kernels": rows, "only_in_one_build": only,
              "kernel_total_ms": {"a": statistics.median(totals["a"]), "b": statistics.median(totals["b"])},
              "delta_ms": sum(x["delta_ms"] for x in rows)}
    if args.json:
        print(json.dumps(result))
        return
    print(f"{args.model}: build A {args.a}, build B {args.b}; target {args.target}, {args.threads} threads, "
          f"{args.rounds} interleaved rounds (median in-model time per kernel, all instances)")
    print(f"{'B-A ms':>8} {'B/A':>6}  {'kernel':<46} {'occ':>3} {'A ms':>8} {'B ms':>8}")
    for x in rows:
        print(f"{x['delta_ms']:8.3f} {x['ratio']:6.2f}  {x['class'][:46]:<46} {x['occurrences']:3d} {x['a_ms']:8.3f} "
              f"{x['b_ms']:8.3f}")
    for x in only:
        print(f"  only in build {x['build'].upper()}: {x['class']} ({x['workload_key']})")
    t = result["kernel_total_ms"]
    print(f"listed kernels B-A {result['delta_ms']:.3f} ms; all kernels, median per build: A {t['a']:.3f} ms, "
          f"B {t['b']:.3f} ms (per profile A {' '.join('%.2f' % v for v in totals['a'])}; "
          f"B {' '.join('%.2f' % v for v in totals['b'])})")


if __name__ == "__main__":
    main()
