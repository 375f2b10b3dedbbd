"""ttune from Python, end to end: compile a model (a zoo name or an .onnx file), run it, check its
kernels against the reference evaluator, profile it, optionally tune it into a fresh bank and
compile with what the tuning chose, export it as a C library and run the export.

    python3 examples/python/quickstart.py [MODEL] [--trials N] [--threads T]

MODEL defaults to mobilenet_v2 (the zoo); --trials N > 0 tunes N trials (a scratch bank in a
temporary folder, so nothing is left behind). Exits non-zero if any output disagrees.
"""

import argparse
import tempfile

import numpy as np

import ttune


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("model", nargs="?", default="mobilenet_v2")
    p.add_argument("--trials", type=int, default=0)
    p.add_argument("--threads", type=int, default=0)
    a = p.parse_args()

    v = ttune.version()
    print(f"ttune {ttune.__version__} (commit {v['commit']}) on {v['host']['description']}")

    m = ttune.compile(a.model, threads=a.threads)
    print(m, f"compiled in {m.compile_seconds:.2f} s")
    rng = np.random.default_rng(0)
    inputs = [rng.standard_normal(i.shape).astype(i.dtype) for i in m.inputs]
    outputs = m.run(*inputs)
    for info, y in zip(m.outputs, outputs):
        print(f"  output {info.name} {y.shape} {y.dtype}")

    report = m.check(*inputs)
    print(f"  check against the reference evaluator: {'ok' if report['ok'] else 'FAILED'}")
    for k in m.profile(*inputs, repeat=5)[:3]:
        print(f"  {k['share'] * 100:5.1f}%  {k['ms']:.3f} ms  {k['class']}")

    with tempfile.TemporaryDirectory() as tmp:
        if a.trials > 0:
            bank = f"{tmp}/bank.db"
            s = ttune.tune(a.model, trials=a.trials, db=bank, threads=a.threads)
            print(f"  tuned {s['trials']} trials in {s['wall_s']:.1f} s, measured by {s['worker']}")
            m = ttune.compile(a.model, db=bank, threads=a.threads)
        m.export(f"{tmp}/out", name="net")
        e = ttune.load(f"{tmp}/out", threads=a.threads)
        exported = e.run(*inputs)
        e.close()
        tuned = m.run(*inputs)
        agree = all(np.array_equal(x, y) for x, y in zip(exported, tuned))
        print(f"  exported library agrees with the compiled model bit for bit: {agree}")
    close = all(np.allclose(x, y, rtol=1e-3, atol=1e-3) for x, y in zip(outputs, tuned))
    if not (report["ok"] and agree and close):
        raise SystemExit("quickstart: outputs disagree")


if __name__ == "__main__":
    main()
