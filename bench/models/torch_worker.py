#!/usr/bin/python3
"""PyTorch's side of the whole-model peer benchmark (bench_models.py): loads the frozen
TorchScript module (NAME.pt, written by export_models.py next to NAME.onnx) once, with
torch.set_num_threads(T), reads the shared input, then answers the same line commands as ttune's
bench_model_worker under torch.inference_mode(), one JSON line per reply:
  run N -> {"ms": [...]},  output PATH -> {"ok": true} (output as .npy),  quit
The first line is {"ready": true, ...}, or {"error": ..., "step": ...} with exit status 1.

  /usr/bin/python3 torch_worker.py MODEL.pt INPUT.npy THREADS"""

import json
import os
import sys
import time


def reply(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def fail_at(step, model, err):
    msg = f"PyTorch could not {step} {model}: {type(err).__name__}: {err}"
    reply({"error": msg, "step": step})
    print(f"torch_worker: {msg}", file=sys.stderr)
    sys.exit(1)


def main():
    if len(sys.argv) != 4:
        fail_at("start for", "(no model)", ValueError("usage: torch_worker.py MODEL.pt INPUT.npy THREADS"))
    model_path, input_path, threads = sys.argv[1], sys.argv[2], int(sys.argv[3])
    t0 = time.perf_counter()
    try:
        import numpy as np
        import torch
        import torchvision  # noqa: F401  (registers torchvision::nms and roi_align for the detection models)
        torch.set_num_threads(threads)
        model = torch.jit.load(model_path).eval()
    except Exception as e:
        fail_at("load", model_path, e)
    try:
        x = torch.from_numpy(np.load(input_path))
        with torch.inference_mode():
            model(x)  # fails here rather than in the first timed block
    except Exception as e:
        fail_at("run", model_path, e)
    reply({"ready": True, "runtime": "pytorch", "version": torch.__version__,
           "model": os.path.splitext(os.path.basename(model_path))[0], "threads": torch.get_num_threads(),
           "load_s": time.perf_counter() - t0})

    for line in sys.stdin:
        verb, _, arg = line.strip().partition(" ")
        try:
            if verb == "run":
                n = int(arg) if arg.strip().isdigit() else 0
                if n < 1:
                    raise ValueError(f"run takes a positive count, got '{line.strip()}'")
                ms = []
                with torch.inference_mode():
                    for _ in range(n):
                        s = time.perf_counter()
                        model(x)
                        ms.append((time.perf_counter() - s) * 1e3)
                reply({"ms": ms})
            elif verb == "output":
                if not arg.strip():
                    raise ValueError(f"output takes a path, got '{line.strip()}'")
                with torch.inference_mode():
                    y = model(x)
                    # The first output, as the other runtimes' workers write (a two-stage
                    # detector's rows, before its masks or keypoints).
                    np.save(arg.strip(), (y[0] if isinstance(y, (tuple, list)) else y).numpy())
                reply({"ok": True})
            elif verb == "quit":
                break
            else:
                raise ValueError(f"unknown command '{line.strip()}' (run N, output PATH, quit)")
        except Exception as e:
            reply({"error": f"{os.path.basename(model_path)}: {type(e).__name__}: {e}"})


if __name__ == "__main__":
    main()
