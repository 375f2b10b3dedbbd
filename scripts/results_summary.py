#!/usr/bin/env python3
"""The phase-1 table of a `ttune experiment --out DIR` run, for docs/results.md.

Usage: scripts/results_summary.py DIR

Prints (Markdown) each model's tuning run: latencies and S_max as the run timed them at its end,
throughput and time shares; trials and wall time come from the bank's runs table, which
accumulates them across resumes (results.json keeps the last resumed part's wall time). The
transfer table and its averages are the driver's own DIR/results.md.
"""
import argparse
import json
import sqlite3

ap = argparse.ArgumentParser()
ap.add_argument("dir")
a = ap.parse_args()
res = json.load(open(f"{a.dir}/results.json"))
db = sqlite3.connect(f"file:{a.dir}/bank.db?mode=ro", uri=True)
runs = {r[0]: (r[1], r[2]) for r in db.execute("SELECT run_id, trials_done, wall_s FROM runs")}
models = res["models"]

print(f"Host: {res['host']['description']}, {res['host']['threads']} threads; {res['trials']} trials per model.\n")
print("| model | kernels | untuned (ms) | tuned (ms) | S_max | trials | wall time | trials/s | search | compile | measure |")
print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
for name, m in models.items():
    t = m.get("tune")
    if not t:
        continue
    trials, wall = runs.get(t["run_id"], (t["trials"], t["wall_s"]))
    print(f"| {name} | {t['tasks']} | {t['untuned_ms']:.2f} | {t['tuned_ms']:.2f} | {t['speedup']:.2f}x | {trials} "
          f"| {wall:.0f} s | {trials / wall:.1f} | {100 * t['search_share']:.0f}% | {100 * t['compile_share']:.0f}% "
          f"| {100 * t['measure_share']:.0f}% |")
