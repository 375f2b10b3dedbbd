"""Shared pieces of the ttune Python tests: the ttune binary, small ONNX models, ONNX test data."""
import glob
import os
import subprocess

import numpy as np
import onnx
import onnx.helper as oh
import onnx.numpy_helper as nh
import onnx.version_converter
import pytest

import ttune

TTUNE_BIN = os.environ.get("TTUNE_BIN", "ttune")
ONNX_DATA = "/usr/share/libonnx-testdata/data"


def ttune_cli(*args):
    """Runs the ttune command; returns (exit status, stdout, stderr)."""
    p = subprocess.run([TTUNE_BIN, *map(str, args)], capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def dense_model(path, features_in, features_out, seed, symbolic_batch=False):
    """An ONNX model: x [batch, features_in] -> relu(x W^T + b) -> softmax."""
    rng = np.random.default_rng(seed)
    w = rng.uniform(-0.5, 0.5, (features_out, features_in)).astype(np.float32)
    b = rng.uniform(-0.5, 0.5, (features_out,)).astype(np.float32)
    batch = "batch" if symbolic_batch else 4
    graph = oh.make_graph(
        [oh.make_node("Gemm", ["x", "w", "b"], ["g"], transB=1), oh.make_node("Relu", ["g"], ["r"]),
         oh.make_node("Softmax", ["r"], ["y"], axis=1)],
        "dense", [oh.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [batch, features_in])],
        [oh.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [batch, features_out])],
        [nh.from_array(w, "w"), nh.from_array(b, "b")])
    model = oh.make_model(graph, opset_imports=[oh.make_opsetid("", 13)])
    onnx.save(model, str(path))
    return str(path)


def onnx_case(case, tmp_path):
    """A PyTorch-exported case of ONNX's test data converted to opset 13: (model path, inputs,
    expected outputs)."""
    d = os.path.join(ONNX_DATA, case)
    model = onnx.version_converter.convert_version(onnx.load(os.path.join(d, "model.onnx")), 13)
    path = tmp_path / (os.path.basename(case) + ".onnx")
    onnx.save(model, str(path))
    load = lambda pattern: [nh.to_array(onnx.load_tensor(f)) for f in sorted(glob.glob(os.path.join(d, "test_data_set_0", pattern)))]
    return str(path), load("input_*.pb"), load("output_*.pb")


@pytest.fixture(scope="session")
def mobilenet():
    return ttune.compile("mobilenet_v2", threads=2)


@pytest.fixture(scope="session")
def image():
    return np.random.default_rng(3).uniform(-1, 1, (1, 3, 224, 224)).astype(np.float32)
