// ONNX Runtime's side of the whole-model peer benchmark (bench_models.py): loads the .onnx file
// once in an onnxruntime-node session (CPU, intraOpNumThreads T, one inter-op thread, sequential
// execution, all graph optimizations), reads the shared input, then answers the same line
// commands as ttune's bench_model_worker, one JSON line per reply:
//   run N -> {"ms": [...]},  output PATH -> {"ok": true} (first output as .npy),
//   input PATH -> {"ok": true} (later runs take this input),  quit
// The first line is {"ready": true, ...}, or {"error": ..., "step": ...} with exit status 1.
// onnxruntime-node is found through NODE_PATH (bench/models/setup.sh installs it).
//
//   node ort_worker.js MODEL.onnx INPUT.npy THREADS
'use strict';
const path = require('path');
const readline = require('readline');
const { readNpy, writeNpy } = require('./npy');

const reply = (obj) => process.stdout.write(JSON.stringify(obj) + '\n');

function failAt(step, model, err) {
  const msg = `ONNX Runtime could not ${step} ${model}: ${err.message || err}`;
  reply({ error: msg, step });
  process.stderr.write(`ort_worker: ${msg}\n`);
  process.exit(1);
}

async function main() {
  const [modelPath, inputPath, threadsArg] = process.argv.slice(2);
  if (!modelPath || !inputPath || !threadsArg) failAt('start for', '(no model)', 'usage: node ort_worker.js MODEL.onnx INPUT.npy THREADS');
  const threads = Number(threadsArg);
  let ort;
  try {
    ort = require('onnxruntime-node');
  } catch (e) {
    failAt('load', modelPath, new Error(`onnxruntime-node is not installed (run bench/models/setup.sh): ${e.message}`));
  }

  const t0 = process.hrtime.bigint();
  let session;
  try {
    session = await ort.InferenceSession.create(modelPath, {
      executionProviders: ['cpu'],
      intraOpNumThreads: threads,
      interOpNumThreads: 1,
      executionMode: 'sequential',
      graphOptimizationLevel: 'all',
    });
  } catch (e) {
    failAt('load', modelPath, e);
  }
  let feeds;
  try {
    if (session.inputNames.length !== 1) throw new Error(`the model takes ${session.inputNames.length} inputs; the benchmark gives one`);
    const x = readNpy(inputPath);
    feeds = { [session.inputNames[0]]: new ort.Tensor(x.type, x.data, x.dims) };
    await session.run(feeds);  // fails here rather than in the first timed block
  } catch (e) {
    failAt('run', modelPath, e);
  }
  const loadS = Number(process.hrtime.bigint() - t0) / 1e9;
  reply({ ready: true, runtime: 'onnxruntime', version: ort.env.versions.common, model: path.basename(modelPath, '.onnx'), threads, load_s: loadS });

  const rl = readline.createInterface({ input: process.stdin, terminal: false });
  for await (const line of rl) {
    const [verb, arg] = line.trim().split(/\s+/, 2);
    try {
      if (verb === 'run') {
        const n = Number(arg);
        if (!Number.isInteger(n) || n < 1) throw new Error(`run takes a positive count, got '${line}'`);
        const ms = [];
        for (let i = 0; i < n; i++) {
          const s = process.hrtime.bigint();
          await session.run(feeds);
          ms.push(Number(process.hrtime.bigint() - s) / 1e6);
        }
        reply({ ms });
      } else if (verb === 'output') {
        if (!arg) throw new Error(`output takes a path, got '${line}'`);
        const out = (await session.run(feeds))[session.outputNames[0]];
        writeNpy(arg, out.dims, out.data);
        reply({ ok: true });
      } else if (verb === 'input') {
        // Another input (of another size, for a model with dynamic axes): later runs take it.
        if (!arg) throw new Error(`input takes a path, got '${line}'`);
        const x = readNpy(arg);
        feeds = { [session.inputNames[0]]: new ort.Tensor(x.type, x.data, x.dims) };
        await session.run(feeds);
        reply({ ok: true });
      } else if (verb === 'quit') {
        break;
      } else {
        throw new Error(`unknown command '${line}' (run N, output PATH, input PATH, quit)`);
      }
    } catch (e) {
      reply({ error: `${path.basename(modelPath)}: ${e.message}` });
    }
  }
  process.exit(0);
}

main();
