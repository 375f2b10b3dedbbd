#!/usr/bin/python3
"""Whole-model peer benchmark: ttune against ONNX Runtime and PyTorch on the same ONNX files.

Per model, three worker processes load the model once and stay alive: ttune
(build/bin/bench_model_worker, as `ttune run model.onnx`), ONNX Runtime (ort_worker.js,
onnxruntime-node) and PyTorch (torch_worker.py, the frozen TorchScript export of the same
module). All read one seeded input. After a warm-up the driver times them interleaved: each
round runs one block (about --block-ms of runs) of each runtime in turn, the order balanced over
rounds (rows of a Williams design: each runtime follows each other equally often, since what ran
just before slows a block's first tens of milliseconds; docs/measurement.md), with a short idle
gap between blocks (so the previous block's spinning threads do not
steal the next one's cores). Load from other processes that drifts between rounds thus meets
all three, though not by the same factor (runtimes cope differently with a core taken away), so
the share of the CPU that other processes took while timing is measured (/proc) and reported.
The ratios are the medians of the per-round ratios of block medians. Finally all three outputs
are compared (max abs error and max error relative to the largest reference magnitude).

  /usr/bin/python3 bench/models/bench_models.py [--models NAME ...] [--threads 2] [--rounds 10]
      [--db PATH] [--json] [--models-dir build/bench-models] [--build-dir build]

Missing model files are exported first (export_models.py). Set-up: bench/models/setup.sh.
Exit status 1 if a runtime failed on a model or the outputs disagree."""

import argparse
import json
import math
import os
import select
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
PYTHON = "/usr/bin/python3"  # Debian's, which has python3-torch
MODELS = ["resnet18", "resnet50", "mobilenet_v2", "efficientnet_b0", "googlenet", "densenet121",
          "inception_v3", "vgg16", "bert_base_128", "bert_base_256"]
# Exported on request (--models) but not in the default set: grouped-convolution networks and
# held-out families outside the zoo (segmentation, U-Net, GAN generator, video 3-D convolutions,
# a causal decoder, windowed attention).
EXTRA_MODELS = ["mobilenet_v3_large", "resnext50_32x4d", "regnet_y_400mf", "shufflenet_v2_x1_0", "vit_b_16",
                "convnext_tiny", "swin_t", "fcn_resnet50", "lraspp_mobilenet_v3_large", "unet", "dcgan_generator", "style_transfer",
                "r3d_18", "gpt_decoder_128", "lstm_gru_tagger"]
# Detection models (one image in, [N, 6] rows of box, score, label out): rows are compared as
# sets, since boxes of tied scores come out in any order and a tie at a cut-off (top-k, the
# detection limit) can keep either box, in every runtime.
DETECTION_MODELS = ["ssdlite320_mobilenet_v3_large", "fasterrcnn_mobilenet_v3_large_320_fpn", "retinanet_resnet50_fpn",
                    "maskrcnn_resnet50_fpn", "keypointrcnn_resnet50_fpn"]
EXTRA_MODELS += DETECTION_MODELS
# int8 models (export_models.py): static QDQ from PyTorch's fbgemm flow, and a BERT-base encoder
# dynamically quantized as ONNX Runtime's quantizer writes it. Their outputs are compared in
# quantization steps of the output (QUANT_STEP_TOLERANCE).
INT8_MODELS = ["resnet18_int8", "resnet50_int8", "mobilenet_v2_int8", "mobilenet_v3_large_int8", "googlenet_int8",
               "inception_v3_int8", "bert_base_128_dynint8"]
EXTRA_MODELS += INT8_MODELS
RUNTIMES = ["ttune", "onnxruntime", "pytorch"]
# --precision bf16: ttune's bfloat16 build, its float32 build beside it (the speedup bf16 buys),
# ONNX Runtime in float32 (it has no bfloat16 CPU kernels) and PyTorch under bf16 autocast.
BF16_RUNTIMES = ["ttune", "ttune_fp32", "onnxruntime", "pytorch"]
OTHER_LOAD_WARNING = 0.05  # share of the machine's CPU time taken by other processes while timing
LABEL = {"ttune": "ttune", "ttune_fp32": "ttune float32", "onnxruntime": "ORT", "pytorch": "PyTorch", "all": "every runtime"}


class WorkerError(Exception):
    pass


class Worker:
    """One runtime's worker process: line commands in, one JSON line per reply out."""

    def __init__(self, runtime, argv, env, log_path):
        self.runtime, self.log_path, self.buf = runtime, log_path, b""
        self.log = open(log_path, "wb")
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log,
                                     env=env, cwd=REPO)
        self.info = None

    def _line(self, timeout):
        deadline = time.monotonic() + timeout
        while b"\n" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0:
                self.proc.kill()
                raise WorkerError(f"no reply within {timeout:.0f} s")
            ready, _, _ = select.select([self.proc.stdout], [], [], left)
            if ready:
                chunk = os.read(self.proc.stdout.fileno(), 1 << 16)
                if not chunk:
                    self.proc.wait()
                    raise WorkerError(f"the worker exited with status {self.proc.returncode}{self._stderr_tail()}")
                self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        try:
            reply = json.loads(line)
        except ValueError:
            raise WorkerError(f"the worker printed a line that is not JSON: {line[:200]!r}")
        if "error" in reply:
            raise WorkerError(reply["error"])
        return reply

    def _stderr_tail(self):
        self.log.flush()
        with open(self.log_path, "rb") as f:
            tail = f.read().decode(errors="replace").strip().splitlines()[-5:]
        return (": " + " | ".join(tail)) if tail else ""

    def ready(self, timeout):
        self.info = self._line(timeout)
        return self.info

    def ask(self, command, timeout):
        try:
            self.proc.stdin.write((command + "\n").encode())
            self.proc.stdin.flush()
        except BrokenPipeError:
            self.proc.wait()
            raise WorkerError(f"the worker exited with status {self.proc.returncode}{self._stderr_tail()}")
        return self._line(timeout)

    def close(self):
        if self.proc.poll() is None:
            try:
                self.proc.stdin.write(b"quit\n")
                self.proc.stdin.close()
                self.proc.wait(timeout=30)
            except (BrokenPipeError, subprocess.TimeoutExpired):
                self.proc.kill()
                self.proc.wait()
        self.log.close()


def host_description():
    """CPU model name and vector ISA from /proc/cpuinfo, and the core count."""
    name, flags = "unknown CPU", set()
    with open("/proc/cpuinfo") as f:
        for line in f:
            key, _, value = line.partition(":")
            if key.strip() == "model name" and name == "unknown CPU":
                name = value.strip()
            elif key.strip() == "flags" and not flags:
                flags = set(value.split())
    if "avx512f" in flags:
        isa = "AVX-512 (" + " ".join(sorted(f for f in flags if f.startswith("avx512"))) + ")"
    elif "avx2" in flags:
        isa = "AVX2" + (" + FMA" if "fma" in flags else "")
    elif "avx" in flags:
        isa = "AVX"
    else:
        isa = "SSE"
    if "amx_tile" in flags:
        isa += ", AMX"
    return {"cpu": name, "isa": isa, "cores": os.cpu_count()}


def cpu_snapshot(pids):
    """(busy ticks of the whole machine, total ticks, ticks used by `pids` and this driver), from
    /proc: the difference between two snapshots tells how much CPU other processes took."""
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:9]]  # user nice system idle iowait irq softirq steal
    busy, total = v[0] + v[1] + v[2] + v[5] + v[6] + v[7], sum(v)
    ours = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            ours += int(fields[11]) + int(fields[12])  # utime, stime
        except (OSError, IndexError, ValueError):
            pass
    t = os.times()
    ours += round((t.user + t.system) * os.sysconf("SC_CLK_TCK"))
    return busy, total, ours


def other_cpu_share(before, after):
    busy, total, ours = (b - a for a, b in zip(before, after))
    return max(0.0, (busy - ours) / total) if total > 0 else 0.0


def input_shape(onnx_path):
    import onnx  # here rather than at the top: only needed once the models exist
    graph = onnx.load(onnx_path, load_external_data=False).graph
    initializers = {t.name for t in graph.initializer}
    inputs = [i for i in graph.input if i.name not in initializers]
    if len(inputs) != 1:
        raise WorkerError(f"{onnx_path} has {len(inputs)} inputs; the benchmark feeds one")
    dims = [d.dim_value for d in inputs[0].type.tensor_type.shape.dim]
    if any(d <= 0 for d in dims):
        raise WorkerError(f"{onnx_path} has a symbolic input dimension; export static shapes")
    return dims, inputs[0].type.tensor_type.elem_type == onnx.TensorProto.INT64


def start_workers(model, a, input_path, tmp):
    onnx_path = os.path.join(a.models_dir, model + ".onnx")
    pt_path = os.path.join(a.models_dir, model + ".pt")
    env = dict(os.environ, OMP_NUM_THREADS=str(a.threads), OPENBLAS_NUM_THREADS=str(a.threads),
               NODE_PATH=os.path.join(a.build_dir, "bench-peers", "node_modules"))
    if a.peer_isa == "avx2":
        # PyTorch's own kernels (ATen) and its convolutions (oneDNN) restricted to AVX2, for a
        # like-for-like peer of ttune's AVX2 code on an AVX-512 host. ONNX Runtime has no such
        # switch: its column runs the copy ort_avx2.py makes, whose XCR0 reads show no AVX-512 state.
        env.update(ATEN_CPU_CAPABILITY="avx2", DNNL_MAX_CPU_ISA="AVX2", ONEDNN_MAX_CPU_ISA="AVX2",
                   NODE_PATH=os.path.join(a.build_dir, "bench-peers-avx2", "node_modules"))
    ttune = [os.path.join(a.build_dir, "bin", "bench_model_worker"), onnx_path, "--input", input_path,
             "--threads", str(a.threads), "--target", a.ttune_target]
    if a.db is not None:
        ttune += ["--db", a.db]
    if a.precision == "bf16":
        pt_path = os.path.join(a.models_dir, model + ".bf16.pt")
    fp32_ttune = list(ttune)
    if a.versus_fp32 and model in INT8_MODELS:
        # The float32 model of the same network (NAME without its int8 suffix), same input.
        fp32_ttune[1] = os.path.join(a.models_dir, float_counterpart(model) + ".onnx")
    argv = {"ttune": ttune + ["--precision", a.precision], "ttune_fp32": fp32_ttune,
            "onnxruntime": ["node", os.path.join(HERE, "ort_worker.js"), onnx_path, input_path, str(a.threads)],
            "pytorch": [PYTHON, os.path.join(HERE, "torch_worker.py"), pt_path, input_path, str(a.threads)]}
    workers, errors = {}, {}
    for rt in a.runtimes:
        try:
            workers[rt] = Worker(rt, argv[rt], env, os.path.join(tmp, f"{model}.{rt}.log"))
        except OSError as e:
            errors[rt] = f"could not start the {LABEL[rt]} worker ({argv[rt][0]}): {e}"
    for rt, w in list(workers.items()):
        try:
            w.ready(a.load_timeout)
        except WorkerError as e:
            errors[rt] = str(e)
            w.close()
            del workers[rt]
    return workers, errors


def runs_per_block(worker, a):
    """Warm-up (at least 3 runs and --warmup-ms), then the runs that fill about --block-ms."""
    ms = worker.ask("run 3", a.run_timeout)["ms"]
    spent = sum(ms)
    while spent < a.warmup_ms:
        more = worker.ask(f"run {max(1, math.ceil((a.warmup_ms - spent) / ms[-1]))}", a.run_timeout)["ms"]
        spent += sum(more)
        ms = more
    return max(1, round(a.block_ms / statistics.median(ms[-3:])))


def balanced_order(items, r):
    """Round r's order: a row of a Williams design (src/measure/round_order.cc does the same)."""
    n = len(items)
    if n < 2:
        return list(items)
    cycle = n if n % 2 == 0 else 2 * n
    r %= cycle
    row = []
    for j in range(n):
        k = (j + 1) // 2
        first = k if j % 2 == 1 else (n - k) % n
        row.append(items[(first + r) % n])
    return row[::-1] if r >= n else row


def compare(x, ref, tolerance):
    import numpy as np
    if x.shape != ref.shape:
        return {"ok": False, "why": f"shape {list(x.shape)} against {list(ref.shape)}"}
    if not np.isfinite(x).all():
        return {"ok": False, "why": "NaN or infinity in the output"}
    abs_err = float(np.max(np.abs(x.astype(np.float64) - ref)))
    scale = float(np.max(np.abs(ref))) or 1.0
    return {"ok": abs_err <= tolerance * scale, "max_abs_err": abs_err, "max_rel_err": abs_err / scale}


def compare_rows(x, ref, tolerance):
    """Detections as sets of rows: each row of ref is matched to a distinct row of x within
    tolerance * max |ref|; the rows left over on either side are the disagreement."""
    import numpy as np
    if x.ndim != 2 or ref.ndim != 2 or x.shape[1] != ref.shape[1]:
        return {"ok": False, "why": f"shape {list(x.shape)} against {list(ref.shape)}"}
    if not np.isfinite(x).all():
        return {"ok": False, "why": "NaN or infinity in the output"}
    scale = float(np.max(np.abs(ref))) if ref.size else 1.0
    free = np.ones(len(x), dtype=bool)
    matched = 0
    for row in ref:
        err = np.max(np.abs(x.astype(np.float64) - row), axis=1) if len(x) else np.zeros(0)
        err[~free] = np.inf
        if len(err) and err.min() <= tolerance * scale:
            free[int(np.argmin(err))] = False
            matched += 1
    unmatched = (len(ref) - matched) + int(free.sum())
    return {"ok": unmatched == 0, "rows": int(len(ref)), "unmatched_rows": unmatched, "max_rel_err": 0.0}


def quant_step(onnx_path):
    """The quantization step of a model's output when a DequantizeLinear with a constant scalar
    scale produces it (the static int8 models), else None."""
    import onnx
    from onnx import numpy_helper
    m = onnx.load(onnx_path, load_external_data=False)
    consts = {t.name: numpy_helper.to_array(t) for t in m.graph.initializer}
    consts.update({n.output[0]: numpy_helper.to_array(n.attribute[0].t) for n in m.graph.node
                   if n.op_type == "Constant" and n.attribute and n.attribute[0].name == "value"})
    out = m.graph.output[0].name
    for n in m.graph.node:
        if out in n.output and n.op_type == "DequantizeLinear" and n.input[1] in consts and consts[n.input[1]].size == 1:
            return float(consts[n.input[1]].reshape(()))
    return None


def compare_steps(x, ref, step):
    """Quantized outputs: every element within one quantization step of the reference, with the
    share of elements that differ at all and the largest difference in steps."""
    import numpy as np
    if x.shape != ref.shape:
        return {"ok": False, "why": f"shape {list(x.shape)} against {list(ref.shape)}"}
    steps = np.abs(x.astype(np.float64) - ref) / step
    worst = float(steps.max()) if steps.size else 0.0
    scale = float(np.max(np.abs(ref))) or 1.0
    return {"ok": worst <= 1.0 + 1e-3, "max_steps": worst, "differing_share": float(np.mean(steps > 1e-3)),
            "max_abs_err": worst * step, "max_rel_err": worst * step / scale}


def bench_model(model, a, tmp):
    import numpy as np
    result = {"model": model, "threads": a.threads, "rounds": a.rounds, "errors": {}}
    onnx_path = os.path.join(a.models_dir, model + ".onnx")
    shape, token_ids = input_shape(onnx_path)
    input_path = os.path.join(tmp, model + ".input.npy")
    rng = np.random.default_rng(a.seed)
    # An int64 input is token ids (the decoders): ids below 100 are valid for any vocabulary.
    x = rng.integers(0, 100, shape).astype(np.int64) if token_ids else rng.uniform(-1, 1, shape).astype(np.float32)
    np.save(input_path, x)
    result["input_shape"] = shape

    workers, result["errors"] = start_workers(model, a, input_path, tmp)
    try:
        result["workers"] = {rt: w.info for rt, w in workers.items()}
        blocks = {}
        for rt, w in list(workers.items()) if a.rounds > 0 else []:
            try:
                blocks[rt] = runs_per_block(w, a)
            except WorkerError as e:
                result["errors"][rt] = f"{LABEL[rt]} failed while warming up on {model}: {e}"
                w.close()
                del workers[rt]
        result["runs_per_block"] = blocks

        live = [rt for rt in a.runtimes if rt in workers]
        times = {rt: [] for rt in live}          # every run
        block_medians = {rt: [] for rt in live}  # one per round
        snapshot = cpu_snapshot([w.proc.pid for w in workers.values()])
        for r in range(a.rounds):
            order = balanced_order(live, r)
            for rt in order:
                if rt not in workers:
                    continue
                try:
                    ms = workers[rt].ask(f"run {blocks[rt]}", a.run_timeout)["ms"]
                except WorkerError as e:
                    result["errors"][rt] = f"{LABEL[rt]} failed while timing {model}: {e}"
                    workers.pop(rt).close()
                    continue
                times[rt] += ms
                block_medians[rt].append(statistics.median(ms))
                time.sleep(a.gap_ms / 1e3)

        timed = [rt for rt in live if rt in workers and len(block_medians[rt]) == a.rounds]
        if a.rounds > 0:
            # Exited workers' ticks are lost from the count; they ran only until they failed.
            result["other_cpu_share"] = other_cpu_share(snapshot, cpu_snapshot([workers[rt].proc.pid for rt in timed]))
            result["median_ms"] = {rt: statistics.median(times[rt]) for rt in timed}
            result["min_ms"] = {rt: min(times[rt]) for rt in timed}
        for peer, key in (("onnxruntime", "ratio_ttune_ort"), ("pytorch", "ratio_ttune_pytorch"),
                          ("ttune_fp32", "ratio_ttune_fp32")):
            if a.rounds > 0 and "ttune" in timed and peer in timed:
                ratios = [t / p for t, p in zip(block_medians["ttune"], block_medians[peer])]
                result[key] = statistics.median(ratios)
                result[key + "_interval"] = median_interval(ratios)

        outputs = {}
        for rt in timed:  # with --rounds 0: every runtime that loaded the model
            path = os.path.join(tmp, f"{model}.{rt}.output.npy")
            try:
                workers[rt].ask(f"output {path}", a.run_timeout)
                outputs[rt] = np.load(path)
            except (WorkerError, OSError, ValueError) as e:
                result["errors"][rt] = f"{LABEL[rt]} could not write the output of {model}: {e}"
        agreement = {}
        step = quant_step(onnx_path) if model in INT8_MODELS else None
        for i, x in enumerate(a.runtimes):
            for y in a.runtimes[i + 1:]:
                if a.versus_fp32 and "ttune_fp32" in (x, y):
                    continue  # another model's output
                if x in outputs and y in outputs:
                    if step:
                        agreement[f"{x}-{y}"] = compare_steps(outputs[x], outputs[y].astype(np.float64), step)
                        continue
                    cmp = compare_rows if model in DETECTION_MODELS else compare
                    # bfloat16 against float32: operands rounded to 8 bits, reported at --bf16-tolerance.
                    tol = a.bf16_tolerance if a.precision == "bf16" and (x == "ttune" or y == "pytorch") else a.tolerance
                    agreement[f"{x}-{y}"] = cmp(outputs[x], outputs[y].astype(np.float64), tol)
        if model in DETECTION_MODELS and "onnxruntime-pytorch" in agreement:
            # With random weights these models are chaotic (eager PyTorch itself keeps a different
            # set of boxes for 1e-5 of input noise), and the traced PyTorch module keeps control
            # flow of the export's input. So within ORT's own error: ttune may leave as many rows
            # unmatched against ORT as ORT does against PyTorch; the ttune-PyTorch pair is reported only.
            peer = agreement["onnxruntime-pytorch"].get("unmatched_rows", 0)
            for pair, c in agreement.items():
                c["ok"] = pair == "ttune-pytorch" or c.get("unmatched_rows", math.inf) <= peer
        result["agreement"] = agreement
        result["outputs_agree"] = all(c["ok"] for c in agreement.values())
    finally:
        for w in workers.values():
            w.close()
    return result


def float_counterpart(model):
    """The float32 model an int8 one was quantized from: resnet50_int8 -> resnet50."""
    for suffix in ("_dynint8", "_int8"):
        if model.endswith(suffix):
            return model[: -len(suffix)]
    return model


def median_interval(values):
    """A distribution-free confidence interval of the median of `values` (order statistics: the
    k-th smallest and largest, k the largest with P(Binomial(n, 1/2) < k) <= 2.5%); with 10
    rounds it is the 2nd and 9th of the sorted ratios (97.9%)."""
    xs = sorted(values)
    n, k, cdf = len(xs), 0, 0.0
    while k < n:
        cdf_next = cdf + math.comb(n, k) / 2 ** n
        if cdf_next > 0.025:
            break
        cdf, k = cdf_next, k + 1
    return [xs[k], xs[n - 1 - k]] if n and k < n - k else [xs[0], xs[-1]] if n else None


def fmt(v, spec):
    return format(v, spec) if v is not None else format("-", ">" + spec.split(".")[0])


def print_row(r):
    m, ok, share = r.get("median_ms", {}), r.get("agreement", {}), r.get("other_cpu_share")
    other = f"{100 * share:.0f}%" if share is not None else "-"
    worst = max((c.get("max_rel_err", math.inf) for c in ok.values()), default=None)
    if not ok:
        agree = "not compared"
    elif r["outputs_agree"] and "rows" in next(iter(ok.values())):
        rows = {k: f"{c['unmatched_rows']}/{c['rows']}" for k, c in ok.items()}
        agree = f"agree as sets (unmatched rows: ttune-PyTorch {rows.get('ttune-pytorch', '-')}, ORT-PyTorch {rows.get('onnxruntime-pytorch', '-')})"
    elif r["outputs_agree"]:
        agree = f"agree ({worst:.1e})"
    else:
        agree = "MISMATCH"
    print(f"{r['model']:<16} {fmt(m.get('ttune'), '10.2f')} {fmt(m.get('onnxruntime'), '10.2f')} "
          f"{fmt(m.get('pytorch'), '10.2f')} {fmt(r.get('ratio_ttune_ort'), '10.2f')} "
          f"{fmt(r.get('ratio_ttune_pytorch'), '14.2f')} {other:>7}  {agree}", flush=True)
    intervals = [f"ttune/{LABEL[p]} {r[k]:.2f} ({r[k + '_interval'][0]:.2f}-{r[k + '_interval'][1]:.2f})"
                 for p, k in (("onnxruntime", "ratio_ttune_ort"), ("pytorch", "ratio_ttune_pytorch"),
                              ("ttune_fp32", "ratio_ttune_fp32")) if r.get(k + "_interval")]
    if intervals:
        print(f"  {r['model']}: " + ", ".join(intervals) + " (medians and their intervals over the rounds)", flush=True)
    if "ttune_fp32" in m:
        print(f"  {r['model']}: ttune float32 {m['ttune_fp32']:.2f} ms", flush=True)


def report_problems(r, tolerance):
    if r.get("other_cpu_share", 0) > OTHER_LOAD_WARNING:
        print(f"  {r['model']}: other processes used {100 * r['other_cpu_share']:.0f}% of the CPU while it was timed; "
              f"its figures are unreliable", file=sys.stderr, flush=True)
    for rt, msg in r["errors"].items():
        print(f"  {r['model']}: {LABEL[rt]} FAILED: {msg}", file=sys.stderr, flush=True)
    for pair, c in r.get("agreement", {}).items():
        if "max_steps" in c:
            x, y = pair.split("-")
            print(f"  {r['model']}: {LABEL[x]} against {LABEL[y]}: {100 * c['differing_share']:.2f}% of the outputs differ, "
                  f"by at most {c['max_steps']:.2f} quantization steps{'' if c['ok'] else ' (MISMATCH: more than one)'}",
                  file=sys.stderr, flush=True)
            continue
        if not c["ok"]:
            x, y = pair.split("-")
            detail = c.get("why") or (f"{c['unmatched_rows']} of {c['rows']} detections unmatched" if "rows" in c else None) or (f"max abs error {c['max_abs_err']:.3g}, relative {c['max_rel_err']:.3g} "
                                      f"> tolerance {tolerance:g}")
            print(f"  {r['model']}: OUTPUT MISMATCH between {LABEL[x]} and {LABEL[y]}: {detail}",
                  file=sys.stderr, flush=True)


def geomean(values):
    values = [v for v in values if v is not None]
    return math.exp(sum(map(math.log, values)) / len(values)) if values else None


def ensure_exported(models, a):
    # Only the models export_models.py knows; other names must already have their files.
    exts = (".onnx", ".pt", ".bf16.pt") if a.precision == "bf16" else (".onnx", ".pt")
    missing = [m for m in models if m in MODELS + EXTRA_MODELS and not all(os.path.exists(os.path.join(a.models_dir, m + ext))
                                                            for ext in exts)]
    if missing:
        print(f"exporting {' '.join(missing)} into {a.models_dir}", file=sys.stderr, flush=True)
        subprocess.run([PYTHON, os.path.join(HERE, "export_models.py"), a.models_dir, "--models", *missing],
                       stdout=sys.stderr, check=False)



def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--models", nargs="+", default=MODELS, metavar="NAME",
                    help="models (files NAME.onnx and NAME.pt in --models-dir); default: all ten")
    ap.add_argument("--threads", type=int, default=2, help="threads of every runtime")
    ap.add_argument("--ttune-target", default="host",
                    help="ttune's code path, e.g. x86-64-v3 for AVX2 on an AVX-512 host (the peers keep theirs)")
    ap.add_argument("--peer-isa", choices=["native", "avx2"], default="native",
                    help="avx2: restrict PyTorch (ATen and oneDNN) and ONNX Runtime (the copy ort_avx2.py makes) to AVX2, "
                         "e.g. with --ttune-target x86-64-v3 on an AVX-512 host")
    ap.add_argument("--rounds", type=int, default=10, help="interleaved rounds (one block of each runtime); 0: only compare the outputs")
    ap.add_argument("--db", help="ttune schedule bank to take the best records from (\"\": the default bank); "
                                 "default: ttune's default schedules")
    ap.add_argument("--json", action="store_true", help="one JSON object per model, then a summary")
    ap.add_argument("--models-dir", default=os.path.join(REPO, "build", "bench-models"))
    ap.add_argument("--build-dir", default=os.path.join(REPO, "build"),
                    help="ttune's build (bin/bench_model_worker, bench-peers/node_modules)")
    ap.add_argument("--block-ms", type=float, default=200, help="length of a block of runs")
    ap.add_argument("--warmup-ms", type=float, default=1000, help="warm-up per runtime (at least 3 runs)")
    ap.add_argument("--gap-ms", type=float, default=50, help="idle gap after each block")
    ap.add_argument("--seed", type=int, default=1, help="seed of the input")
    ap.add_argument("--tolerance", type=float, default=1e-3,
                    help="outputs agree when max |a - b| <= tolerance * max |b|")
    ap.add_argument("--precision", choices=["fp32", "bf16"], default="fp32",
                    help="bf16: ttune's bfloat16 build (with its float32 build beside it) and PyTorch under bf16 "
                         "autocast (NAME.bf16.pt); ORT stays float32")
    ap.add_argument("--versus-fp32", action="store_true",
                    help="int8 models: also time ttune on the float32 model of the same network (exported as NAME without "
                         "_int8), interleaved: what int8 buys")
    ap.add_argument("--bf16-tolerance", type=float, default=5e-2,
                    help="with --precision bf16: bfloat16 outputs agree with float32 ones within this (relative to max |b|)")
    ap.add_argument("--load-timeout", type=float, default=1800, help="seconds for a worker to load a model")
    ap.add_argument("--run-timeout", type=float, default=600, help="seconds for one command")
    a = ap.parse_args()
    a.models_dir, a.build_dir = os.path.abspath(a.models_dir), os.path.abspath(a.build_dir)
    a.runtimes = BF16_RUNTIMES if a.precision == "bf16" or a.versus_fp32 else RUNTIMES
    if a.threads < 1 or a.rounds < 0:
        ap.error("--threads must be positive and --rounds not negative")

    host = host_description()
    if not a.json:
        print(f"host: {host['cpu']}, {host['cores']} cores, {host['isa']}")
        timing = f"{a.rounds} interleaved rounds of ~{a.block_ms:g} ms blocks" if a.rounds else "outputs only"
        print(f"{a.threads} threads per runtime, {timing}, "
              f"ttune {'bank ' + repr(a.db) if a.db is not None else 'default schedules'}"
              f"{', code for ' + a.ttune_target if a.ttune_target != 'host' else ''}"
              f"{'; ONNX Runtime and PyTorch restricted to AVX2' if a.peer_isa == 'avx2' else ''}")
        print("ratio = ttune latency / peer latency (< 1: ttune faster), median of per-round ratios; "
              "other = share of the CPU that other processes took while timing\n")
        print(f"{'model':<16} {'ttune ms':>10} {'ORT ms':>10} {'PyTorch ms':>10} {'ttune/ORT':>10} "
              f"{'ttune/PyTorch':>14} {'other':>7}  outputs", flush=True)

    ensure_exported(a.models + ([float_counterpart(m) for m in a.models if m in INT8_MODELS] if a.versus_fp32 else []), a)
    if a.peer_isa == "avx2":
        # The AVX2-restricted ONNX Runtime, made once from the installed package.
        made = subprocess.run([sys.executable, os.path.join(HERE, "ort_avx2.py"), os.path.join(a.build_dir, "bench-peers"),
                               os.path.join(a.build_dir, "bench-peers-avx2")], stdout=subprocess.DEVNULL)
        if made.returncode != 0:
            sys.exit(1)  # ort_avx2.py has said why
    results, versions = [], {}
    tmp = tempfile.mkdtemp(prefix="ttune-bench-models-")
    try:
        for model in a.models:
            try:
                r = bench_model(model, a, tmp)
            except (WorkerError, OSError) as e:
                r = {"model": model, "errors": {"all": f"benchmarking {model} failed: {e}"}}
            for rt, info in r.get("workers", {}).items():
                versions[rt] = info.get("version") or info.get("target")
            results.append(r)
            if a.json:
                print(json.dumps(r), flush=True)
            else:
                print_row(r)
                info = r.get("workers", {}).get("ttune")
                if a.db is not None and info:  # a mistyped bank path gives an empty bank
                    print(f"  {model}: ttune used the bank's schedules for {info['scheduled_kernels']} of "
                          f"{info['kernels']} kernels", flush=True)
            report_problems(r, a.tolerance)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    summary = {"summary": True, "host": host, "threads": a.threads, "rounds": a.rounds, "db": a.db,
               "ttune_target": a.ttune_target, "peer_isa": a.peer_isa,
               "versions": versions,
               "geomean_ratio_ttune_ort": geomean([r.get("ratio_ttune_ort") for r in results]),
               "geomean_ratio_ttune_pytorch": geomean([r.get("ratio_ttune_pytorch") for r in results]),
               "precision": a.precision,
               "failed": {r["model"]: r["errors"] for r in results if r["errors"]},
               "mismatched": [r["model"] for r in results if not r.get("outputs_agree", True)]}
    if a.json:
        print(json.dumps(summary))
    else:
        print(f"\ngeomean ttune/ORT {fmt(summary['geomean_ratio_ttune_ort'], '.2f')}, "
              f"ttune/PyTorch {fmt(summary['geomean_ratio_ttune_pytorch'], '.2f')} "
              f"(over the models each pair ran)")
        print("runtimes: " + ", ".join(f"{LABEL[rt]} {v}" for rt, v in versions.items()))
        if summary["failed"] or summary["mismatched"]:
            print(f"problems: {len(summary['failed'])} model(s) with a failed runtime, "
                  f"{len(summary['mismatched'])} with mismatched outputs (details above, on stderr)")
    return 1 if summary["failed"] or summary["mismatched"] else 0


if __name__ == "__main__":
    sys.exit(main())
