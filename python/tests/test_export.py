"""Model.export, ttune.load (the exported library through its C API, with ctypes), and ttune.tune /
ttune.transfer summaries."""
import os

import numpy as np
import pytest

import ttune
from conftest import dense_model, onnx_case, ttune_cli


def test_export_then_load_is_bit_identical_to_the_compiled_model(mobilenet, image, tmp_path):
    summary = mobilenet.export(tmp_path / "out", name="mnv2")
    assert summary["kernels"] == len(mobilenet.kernels) and summary["name"] == "mnv2"
    for f in ("libmnv2.so", "libmnv2.a", "mnv2.weights", "mnv2.h", "ttune_model.h"):
        assert os.path.isfile(tmp_path / "out" / f), f
    e = ttune.load(tmp_path / "out", threads=2)
    assert e.name == "mnv2" and e.threads == 2
    assert e.inputs == mobilenet.inputs and e.outputs == mobilenet.outputs
    assert e.target == summary["target"]
    (want,) = mobilenet.run(image)
    for _ in range(3):
        (got,) = e.run(image)
        assert np.array_equal(got, want)
    e.close()


def test_a_cli_export_of_an_onnx_model_loads_and_matches_pytorch(tmp_path):
    path, inputs, expected = onnx_case("pytorch-converted/test_Conv2d_depthwise_padded", tmp_path)
    rc, out, err = ttune_cli("export", path, "-o", tmp_path / "cli", "--name", "dw", "--no-static")
    assert rc == 0, err
    assert not os.path.exists(tmp_path / "cli" / "libdw.a")
    e = ttune.load(tmp_path / "cli")
    got = e.run(*inputs)
    np.testing.assert_allclose(got[0], expected[0], rtol=1e-5, atol=1e-5)
    assert np.array_equal(got[0], ttune.compile(path).run(*inputs)[0])


def test_an_export_for_a_range_of_batches_serves_every_batch_as_the_range_model_does(tmp_path):
    path = dense_model(tmp_path / "dense.onnx", 16, 8, seed=2, symbolic_batch=True)
    m = ttune.compile(path, dims={"batch": (1, 12)})
    summary = m.export(tmp_path / "out", name="dense")
    assert summary["sizes"] == [{"name": "batch", "min": 1, "max": 12, "input": 0, "axis": 0}]
    e = ttune.load(tmp_path / "out")
    assert e.ranges == {"batch": (1, 12)}
    assert e.inputs[0].shape == (None, 16) and e.outputs[0].shape == (None, 8)
    rng = np.random.default_rng(4)
    for n in (12, 1, 7):
        x = rng.uniform(-1, 1, (n, 16)).astype(np.float32)
        (got,) = e.run(x)
        assert got.shape == (n, 8)
        assert np.array_equal(got, m.run(x)[0])
    with pytest.raises(ttune.Error, match="outside its range 1..12"):
        e.run(np.zeros((13, 16), np.float32))
    with pytest.raises(ValueError, match="must have rank 2"):
        e.run(np.zeros((16,), np.float32))
    x = np.ones((3, 16), np.float32)
    assert np.array_equal(e.run(x)[0], m.run(x)[0])  # still usable


def test_two_exports_live_in_one_process(tmp_path):
    a = ttune.compile(dense_model(tmp_path / "a.onnx", 32, 10, seed=1))
    b = ttune.compile(dense_model(tmp_path / "b.onnx", 32, 10, seed=2))  # same shapes, other weights
    a.export(tmp_path / "a", name="m")
    b.export(tmp_path / "b", name="m")  # the same library name and symbols
    ea, eb = ttune.load(tmp_path / "a"), ttune.load(tmp_path / "b")
    x = np.random.default_rng(0).uniform(-1, 1, (4, 32)).astype(np.float32)
    for _ in range(2):
        assert np.array_equal(ea.run(x)[0], a.run(x)[0])
        assert np.array_equal(eb.run(x)[0], b.run(x)[0])
    assert not np.array_equal(a.run(x)[0], b.run(x)[0])


def test_tune_and_transfer_return_their_summaries(tmp_path):
    bank = str(tmp_path / "bank.db")
    source = dense_model(tmp_path / "source.onnx", 64, 48, seed=1)
    target = dense_model(tmp_path / "target.onnx", 96, 40, seed=2)
    tuned = ttune.tune(source, trials=12, db=bank, threads=2)
    assert tuned["model"] == "source" and tuned["db"] == bank
    assert tuned["trials"] >= 12 and tuned["tasks"] == 2 and tuned["tuned_ms"] > 0  # the dense layer and the softmax
    assert tuned["kernel_speedup"] >= 1  # the tuned kernels are never slower than their defaults, as measured
    assert tuned["cost_model"] == "bank"  # started from the bank's other models (none yet here)
    with pytest.raises(ValueError, match="cost_model must be 'bank' or 'scratch'"):
        ttune.tune(source, trials=1, db=bank, cost_model="warm")
    moved = ttune.transfer(target, db=bank, threads=2)
    assert moved["model"] == "target" and moved["sources"] == ["source"]
    assert len(moved["kernels"]) == 2 and all(k["default_ms"] > 0 for k in moved["kernels"])
    assert "dense+add+relu" in [k["class"] for k in moved["kernels"]]
    # The bank's schedules compile and compute the same function.
    m = ttune.compile(target, db=bank, threads=2)
    x = np.random.default_rng(1).uniform(-1, 1, (4, 96)).astype(np.float32)
    np.testing.assert_allclose(m.run(x)[0], ttune.compile(target).run(x)[0], rtol=1e-5, atol=1e-6)
