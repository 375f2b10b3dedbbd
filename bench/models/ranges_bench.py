#!/usr/bin/python3
"""Serving one model for ranges of sizes: ttune's export against ONNX Runtime on one dynamic ONNX file.

ttune exports the model once for the declared ranges (`ttune export MODEL --dim batch=1..8
--dim seq=1..512`; the time it took is reported). One worker loads that library through its C API
(export_worker.py: ttune.load, ctypes), one loads the same file in an ONNX Runtime session
(ort_worker.js); neither loads or compiles anything afterwards. At each --at point both get the
same seeded input of that size and are timed as bench_models.py times runtimes: interleaved
rounds of blocks, the order balanced over rounds, the ratio the median of per-round ratios of
block medians with its distribution-free interval. The outputs are compared at every point.

  PYTHONPATH=build/python /usr/bin/python3 bench/models/ranges_bench.py [--model bert_base_dyn]
      [--dim batch=1..8 --dim seq=1..512] [--at batch=1,seq=16 ...] [--threads 2] [--rounds 10]
      [--db PATH] [--export-dir DIR] [--json]

Set-up: bench/models/setup.sh (onnxruntime-node, the dynamic exports of export_models.py).
Exit status 1 if a runtime failed or the outputs disagree."""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import bench_models as bm

DEFAULT_AT = ["batch=1,seq=16", "batch=1,seq=64", "batch=1,seq=128", "batch=1,seq=384", "batch=8,seq=128"]


def parse_point(text):
    point = {}
    for item in text.split(","):
        name, _, value = item.partition("=")
        point[name.strip()] = int(value)
    return point


def input_spec(onnx_path):
    """The single input's dimensions (an int, or the name of a symbolic one) and whether it is int64."""
    import onnx
    graph = onnx.load(onnx_path, load_external_data=False).graph
    initializers = {t.name for t in graph.initializer}
    inputs = [i for i in graph.input if i.name not in initializers]
    if len(inputs) != 1:
        raise bm.WorkerError(f"{onnx_path} has {len(inputs)} inputs; the benchmark feeds one")
    dims = [d.dim_param if d.dim_param else d.dim_value for d in inputs[0].type.tensor_type.shape.dim]
    return dims, inputs[0].type.tensor_type.elem_type == onnx.TensorProto.INT64


def export(a, tmp):
    out = a.export_dir or os.path.join(tmp, "export")
    cmd = [os.path.join(a.build_dir, "bin", "ttune"), "export", a.onnx, "-o", out, "--name", "served", "--no-static",
           "--json"] + [x for d in a.dim for x in ("--dim", d)]
    if a.db is not None:
        cmd += ["--db", a.db]
    t0 = time.monotonic()
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise bm.WorkerError(f"ttune export failed: {p.stderr.strip()}")
    summary = json.loads(p.stdout)
    summary["export_s"] = time.monotonic() - t0
    return out, summary


def time_point(workers, a):
    blocks = {rt: bm.runs_per_block(w, a) for rt, w in workers.items()}
    medians = {rt: [] for rt in workers}
    everything = {rt: [] for rt in workers}
    names = list(workers)
    for r in range(a.rounds):
        for rt in bm.balanced_order(names, r):
            ms = workers[rt].ask(f"run {blocks[rt]}", a.run_timeout)["ms"]
            everything[rt] += ms
            medians[rt].append(statistics.median(ms))
            time.sleep(a.gap_ms / 1e3)
    ratios = [t / o for t, o in zip(medians["ttune"], medians["onnxruntime"])]
    return {"median_ms": {rt: statistics.median(v) for rt, v in everything.items()},
            "ratio": statistics.median(ratios), "interval": bm.median_interval(ratios)}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", default="bert_base_dyn", help="a dynamic ONNX file of --models-dir (NAME.onnx) or a path")
    ap.add_argument("--dim", action="append", help="a range, name=min..max (default batch=1..8, seq=1..512)")
    ap.add_argument("--at", action="append", help="a point, name=size,... (default: " + " ".join(DEFAULT_AT) + ")")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--db", help="ttune schedule bank: each bucket takes the schedules of the model at its largest sizes")
    ap.add_argument("--export-dir", help="where the export goes (default: a temporary directory)")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--models-dir", default=os.path.join(bm.REPO, "build", "bench-models"))
    ap.add_argument("--build-dir", default=os.path.join(bm.REPO, "build"))
    ap.add_argument("--block-ms", type=float, default=200)
    ap.add_argument("--warmup-ms", type=float, default=1000)
    ap.add_argument("--gap-ms", type=float, default=50)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--tolerance", type=float, default=1e-3, help="max error relative to the largest ORT magnitude")
    ap.add_argument("--load-timeout", type=float, default=1800)
    ap.add_argument("--run-timeout", type=float, default=600)
    a = ap.parse_args()
    a.dim = a.dim or ["batch=1..8", "seq=1..512"]
    a.at = a.at or DEFAULT_AT
    a.onnx = a.model if a.model.endswith(".onnx") else os.path.join(a.models_dir, a.model + ".onnx")
    import numpy as np

    result = {"model": a.model, "ranges": a.dim, "threads": a.threads, "rounds": a.rounds,
              "host": bm.host_description(), "points": []}
    tmp = tempfile.mkdtemp(prefix="ttune-ranges-")
    workers = {}
    try:
        out, summary = export(a, tmp)
        result["export"] = {k: summary.get(k) for k in ("export_s", "kernels", "calls", "buckets", "library_bytes",
                                                        "weights_bytes", "scheduled_kernels")}
        dims, token_ids = input_spec(a.onnx)
        rng = np.random.default_rng(a.seed)
        inputs = []
        for text in a.at:
            point = parse_point(text)
            shape = [point[d] if isinstance(d, str) else d for d in dims]
            x = rng.integers(0, 100, shape).astype(np.int64) if token_ids else rng.uniform(-1, 1, shape).astype(np.float32)
            path = os.path.join(tmp, f"in{len(inputs)}.npy")
            np.save(path, x)
            inputs.append((text, path))
        env = dict(os.environ, TTUNE_NUM_THREADS=str(a.threads), OMP_NUM_THREADS=str(a.threads),
                   PYTHONPATH=os.path.join(a.build_dir, "python"),
                   NODE_PATH=os.path.join(a.build_dir, "bench-peers", "node_modules"))
        argv = {"ttune": [bm.PYTHON, os.path.join(bm.HERE, "export_worker.py"), out, inputs[0][1], str(a.threads)],
                "onnxruntime": ["node", os.path.join(bm.HERE, "ort_worker.js"), a.onnx, inputs[0][1], str(a.threads)]}
        for rt, cmd in argv.items():
            workers[rt] = bm.Worker(rt, cmd, env, os.path.join(tmp, f"{rt}.log"))
            result.setdefault("workers", {})[rt] = workers[rt].ready(a.load_timeout)
        ok = True
        for text, path in inputs:
            for w in workers.values():
                w.ask(f"input {path}", a.run_timeout)
            r = {"at": text, **(time_point(workers, a) if a.rounds > 0 else {})}
            outs = {}
            for rt, w in workers.items():
                o = os.path.join(tmp, f"out.{rt}.npy")
                w.ask(f"output {o}", a.run_timeout)
                outs[rt] = np.load(o)
            r["agreement"] = bm.compare(outs["ttune"], outs["onnxruntime"].astype(np.float64), a.tolerance)
            ok &= r["agreement"]["ok"]
            result["points"].append(r)
            if not a.json:
                line = f"{text:>18}  outputs {'agree' if r['agreement']['ok'] else 'DIFFER'}"
                if "ratio" in r:
                    m = r["median_ms"]
                    line += (f"  ttune {m['ttune']:8.2f} ms  ORT {m['onnxruntime']:8.2f} ms  "
                             f"ttune/ORT {r['ratio']:.2f} [{r['interval'][0]:.2f}, {r['interval'][1]:.2f}]")
                print(line, flush=True)
        ratios = [p["ratio"] for p in result["points"] if "ratio" in p]
        result["geomean_ratio"] = bm.geomean(ratios)
        result["outputs_agree"] = ok
    except bm.WorkerError as e:
        result["error"] = str(e)
        ok = False
    finally:
        for w in workers.values():
            w.close()
        shutil.rmtree(tmp, ignore_errors=True)
    if a.json:
        print(json.dumps(result))
    else:
        h, e = result["host"], result.get("export", {})
        print(f"host: {h['cpu']}, {h['isa']}, {h['cores']} cores; {a.threads} threads; {a.rounds} rounds")
        if e:
            print(f"export of {a.model} for {' '.join(a.dim)}: {e['buckets']} buckets, {e['kernels']} kernels "
                  f"in {e['export_s']:.0f} s")
        if result.get("geomean_ratio"):
            print(f"geomean ttune/ORT: {result['geomean_ratio']:.2f}")
        if "error" in result:
            print("error: " + result["error"], file=sys.stderr)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
