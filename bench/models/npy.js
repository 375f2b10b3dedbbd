// Minimal NumPy .npy reading and writing (format 1.0-3.0, little-endian, C order; float32, int32,
// int64) for the ONNX Runtime worker, which shares its input with ttune and PyTorch and hands its
// output back to the driver as .npy files. Node has no .npy support of its own.
'use strict';
const fs = require('fs');

const TYPES = {
  '<f4': { ort: 'float32', array: Float32Array },
  '<i4': { ort: 'int32', array: Int32Array },
  '<i8': { ort: 'int64', array: BigInt64Array },
};

function readNpy(path) {
  const buf = fs.readFileSync(path);
  if (buf.toString('latin1', 0, 6) !== '\x93NUMPY') throw new Error(`${path} is not a .npy file`);
  const major = buf[6];
  const headerLen = major === 1 ? buf.readUInt16LE(8) : buf.readUInt32LE(8);
  const start = major === 1 ? 10 : 12;
  const header = buf.toString('latin1', start, start + headerLen);
  const descr = /'descr':\s*'([^']+)'/.exec(header);
  const shape = /'shape':\s*\(([^)]*)\)/.exec(header);
  if (!descr || !shape || /'fortran_order':\s*True/.test(header)) throw new Error(`${path} has an unsupported .npy header: ${header.trim()}`);
  const type = TYPES[descr[1]];
  if (!type) throw new Error(`${path} holds ${descr[1]} data; supported: ${Object.keys(TYPES).join(', ')}`);
  const dims = shape[1].split(',').map((s) => s.trim()).filter((s) => s.length).map(Number);
  const count = dims.reduce((a, b) => a * b, 1);
  const offset = start + headerLen;
  // Copy into an aligned buffer: typed arrays need their element alignment.
  const bytes = buf.subarray(offset, offset + count * type.array.BYTES_PER_ELEMENT);
  const data = new type.array(new Uint8Array(bytes).buffer);
  return { type: type.ort, dims, data };
}

function writeNpy(path, dims, data) {
  const descr = Object.keys(TYPES).find((k) => data instanceof TYPES[k].array);
  if (!descr) throw new Error(`cannot write ${data.constructor.name} to ${path}`);
  const shape = dims.length === 1 ? `(${dims[0]},)` : `(${dims.join(', ')})`;
  let header = `{'descr': '${descr}', 'fortran_order': False, 'shape': ${shape}, }`;
  header += ' '.repeat(63 - ((10 + header.length) % 64)) + '\n';  // total header a multiple of 64
  const pre = Buffer.alloc(10);
  pre.write('\x93NUMPY', 0, 'latin1');
  pre[6] = 1;
  pre[7] = 0;
  pre.writeUInt16LE(header.length, 8);
  fs.writeFileSync(path, Buffer.concat([pre, Buffer.from(header, 'latin1'), Buffer.from(data.buffer, data.byteOffset, data.byteLength)]));
}

module.exports = { readNpy, writeNpy };
