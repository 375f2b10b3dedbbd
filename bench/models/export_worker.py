#!/usr/bin/python3
"""ttune's side of the ranges benchmark (ranges_bench.py): loads an exported library through its
C API (ttune.load, ctypes) once, reads the input, then answers the line commands of
ort_worker.js, one JSON line per reply:
  run N -> {"ms": [...]},  output PATH -> {"ok": true},  input PATH -> {"ok": true},  quit
The first line is {"ready": true, ...}, or {"error": ...} with exit status 1.

  PYTHONPATH=build/python python3 export_worker.py EXPORT_DIR INPUT.npy THREADS"""
import json
import sys
import time

import numpy as np


def reply(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def main():
    export_dir, input_path, threads = sys.argv[1], sys.argv[2], int(sys.argv[3])
    t0 = time.perf_counter()
    try:
        import ttune
        model = ttune.load(export_dir, threads=threads)
        x = np.load(input_path)
        model.run(x)
    except Exception as e:  # the driver reports the sentence
        reply({"error": f"ttune could not load or run {export_dir}: {e}"})
        sys.exit(1)
    reply({"ready": True, "runtime": "ttune", "model": model.name, "threads": model.threads,
           "load_s": time.perf_counter() - t0, "ranges": model.ranges})
    for line in sys.stdin:
        verb, _, arg = line.strip().partition(" ")
        try:
            if verb == "run":
                ms = []
                for _ in range(int(arg)):
                    s = time.perf_counter()
                    model.run(x)
                    ms.append((time.perf_counter() - s) * 1e3)
                reply({"ms": ms})
            elif verb == "input":
                x = np.load(arg)
                model.run(x)
                reply({"ok": True})
            elif verb == "output":
                np.save(arg, model.run(x)[0])
                reply({"ok": True})
            elif verb == "quit":
                break
            else:
                raise ValueError(f"unknown command '{line.strip()}' (run N, output PATH, input PATH, quit)")
        except Exception as e:
            reply({"error": f"{export_dir}: {e}"})


if __name__ == "__main__":
    main()
