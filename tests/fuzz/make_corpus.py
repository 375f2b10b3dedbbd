#!/usr/bin/env python3
"""Writes the fuzz targets' seed corpora into tests/fuzz/corpus (committed; re-run to refresh).

Seeds are small valid inputs of every shape the readers accept, so that mutations start close
to the interesting paths: tiny ONNX models (initializers, attributes, several ops), record
lines from the shipped bank, .npy files of several dtypes, orders and header versions, and
measurement-worker requests in the wire format of src/measure/runner.cc.
Needs Debian's python3-onnx and python3-numpy (scripts/setup.sh installs them).
"""
import io
import os
import struct
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
CORPUS = os.path.join(HERE, "corpus")


def put(target, name, data):
    d = os.path.join(CORPUS, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def model(nodes, inputs, outputs, inits=(), opset=17):
    g = helper.make_graph(nodes, "g", inputs, outputs, initializer=list(inits))
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)], producer_name="ttune-fuzz")
    m.ir_version = 8
    return m.SerializeToString()


def onnx_seeds():
    rng = np.random.default_rng(1)
    f = lambda *s: rng.standard_normal(s).astype(np.float32)
    vi = helper.make_tensor_value_info
    x4 = vi("x", TensorProto.FLOAT, [1, 3, 8, 8])
    put("onnx", "conv_relu_pool.onnx", model(
        [helper.make_node("Conv", ["x", "w", "b"], ["c"], kernel_shape=[3, 3], pads=[1, 1, 1, 1], strides=[1, 1]),
         helper.make_node("Relu", ["c"], ["r"]),
         helper.make_node("MaxPool", ["r"], ["y"], kernel_shape=[2, 2], strides=[2, 2])],
        [x4], [vi("y", TensorProto.FLOAT, [1, 4, 4, 4])],
        [numpy_helper.from_array(f(4, 3, 3, 3), "w"), numpy_helper.from_array(f(4), "b")]))
    x2 = vi("x", TensorProto.FLOAT, [2, 8])
    put("onnx", "gemm_softmax.onnx", model(
        [helper.make_node("Gemm", ["x", "w", "b"], ["g"], transB=1),
         helper.make_node("Softmax", ["g"], ["y"], axis=-1)],
        [x2], [vi("y", TensorProto.FLOAT, [2, 5])],
        [numpy_helper.from_array(f(5, 8), "w"), numpy_helper.from_array(f(5), "b")]))
    x3 = vi("x", TensorProto.FLOAT, [1, 4, 6])
    put("onnx", "reshape_concat_matmul.onnx", model(
        [helper.make_node("Reshape", ["x", "shape"], ["r"]),
         helper.make_node("Concat", ["r", "r"], ["c"], axis=1),
         helper.make_node("MatMul", ["c", "m"], ["mm"]),
         helper.make_node("Add", ["mm", "a"], ["y"])],
        [x3], [vi("y", TensorProto.FLOAT, [4, 3])],
        [numpy_helper.from_array(np.array([4, 6], dtype=np.int64), "shape"),
         numpy_helper.from_array(f(12, 3), "m"), numpy_helper.from_array(f(3), "a")]))
    put("onnx", "layernorm_gelu.onnx", model(
        [helper.make_node("ReduceMean", ["x"], ["mu"], axes=[-1]),
         helper.make_node("Sub", ["x", "mu"], ["d"]),
         helper.make_node("Mul", ["d", "d"], ["d2"]),
         helper.make_node("Erf", ["d2"], ["e"]),
         helper.make_node("Transpose", ["e"], ["y"], perm=[0, 2, 1])],
        [x3], [vi("y", TensorProto.FLOAT, [1, 6, 4])], opset=13))
    put("onnx", "constant_gather.onnx", model(
        [helper.make_node("Constant", [], ["idx"], value=numpy_helper.from_array(np.array([0, 2], dtype=np.int64))),
         helper.make_node("Gather", ["x", "idx"], ["y"], axis=1)],
        [x2], [vi("y", TensorProto.FLOAT, [2, 2])]))
    # Opset 9: the importer's upgrade (ONNX's checker and version converter) sees it first.
    put("onnx", "opset9_slice_upsample_clip.onnx", model(
        [helper.make_node("Slice", ["x"], ["s"], starts=[1], ends=[7], axes=[2]),
         helper.make_node("Upsample", ["s", "scales"], ["u"], mode="linear"),
         helper.make_node("Clip", ["u"], ["y"], min=-0.5, max=0.5)],
        [x4], [vi("y", TensorProto.FLOAT, [1, 3, 12, 16])],
        [numpy_helper.from_array(np.array([1, 1, 2, 2], dtype=np.float32), "scales")], opset=9))


def record_seeds():
    bank = os.path.join(ROOT, "bank")
    for name in sorted(os.listdir(bank)):
        if not name.endswith(".jsonl"):
            continue
        with open(os.path.join(bank, name), "rb") as f:
            lines = f.read().splitlines()
        if not lines:
            continue
        shortest = min(lines, key=len)
        put("records", name.replace(".jsonl", ".line"), shortest + b"\n")
        put("bank_import", name, b"\n".join(sorted(lines, key=len)[:3]) + b"\n")
    put("records", "steps.json", b'[{"kind":"split","stage":"C","iter":"i","extent":64,"lengths":[4,4],"inner_to_outer":true},'
        b'{"kind":"reorder","stage":"C","order":[0,2,1]},{"kind":"parallel","stage":"C","iter":0}]\n')


def npy_seeds():
    def npy(a, **kw):
        b = io.BytesIO()
        np.lib.format.write_array(b, a, **kw)
        return b.getvalue()
    put("npy", "f32_2x3.npy", npy(np.arange(6, dtype=np.float32).reshape(2, 3)))
    put("npy", "i64_scalar.npy", npy(np.array(7, dtype=np.int64)))
    put("npy", "bool_4.npy", npy(np.array([True, False, True, True])))
    put("npy", "f32_fortran.npy", npy(np.asfortranarray(np.arange(12, dtype=np.float32).reshape(3, 4))))
    put("npy", "f32_big_endian.npy", npy(np.arange(4, dtype=">f4")))
    put("npy", "i32_v2.npy", npy(np.arange(5, dtype=np.int32), version=(2, 0)))


def worker_seeds():
    def blob(b):
        return struct.pack("<Q", len(b)) + b
    def request(args, expected, code=b"\x7fELF", threads=1):
        m = blob(b"default_function") + blob(code)
        m += struct.pack("<iiiidBdQ", threads, 1, 2, 3, 0.5, 1, 10.0, 42)
        m += struct.pack("<I", len(args))
        for dtype, shape, is_out, data in args:
            m += struct.pack("<BI", dtype, len(shape)) + b"".join(struct.pack("<q", d) for d in shape)
            m += struct.pack("<BB", is_out, data is not None)
            if data is not None:
                m += blob(data)
        m += struct.pack("<I", len(expected)) + b"".join(blob(e) for e in expected)
        m += struct.pack("<dd", 1e-4, 1e-4)
        return m
    f32 = 0  # te::DType::Float32 is the first enumerator
    put("worker_request", "random_inputs", request([(f32, [4, 4], 0, None), (f32, [4, 4], 0, None), (f32, [4, 4], 1, None)], []))
    x = np.arange(6, dtype=np.float32).tobytes()
    put("worker_request", "given_and_expected", request([(f32, [2, 3], 0, x), (f32, [2, 3], 1, None)], [x], threads=2))


if __name__ == "__main__":
    onnx_seeds()
    record_seeds()
    npy_seeds()
    worker_seeds()
    print("corpus written to", CORPUS, file=sys.stderr)
