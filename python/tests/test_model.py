"""ttune.compile and Model: numpy round trips against `ttune run`, the reference evaluator and
outputs PyTorch exported with its ONNX models."""
import numpy as np
import onnx
import onnx.helper as oh
import pytest

import ttune
from conftest import dense_model, onnx_case, ttune_cli

ONNX_CASES = ["pytorch-converted/test_Conv2d_strided", "pytorch-converted/test_Conv2d_depthwise_padded",
              "pytorch-converted/test_Conv2d_groups", "pytorch-converted/test_Linear", "pytorch-converted/test_BatchNorm2d_eval",
              "pytorch-converted/test_MaxPool2d", "pytorch-converted/test_AvgPool2d", "pytorch-converted/test_Softmax",
              "pytorch-converted/test_LogSoftmax", "pytorch-converted/test_PReLU_2d", "pytorch-operator/test_operator_addmm",
              "pytorch-operator/test_operator_conv"]


def test_inputs_and_outputs_describe_the_model(mobilenet):
    assert mobilenet.name == "mobilenet_v2"
    assert mobilenet.inputs == [ttune.TensorInfo("input0", (1, 3, 224, 224), np.dtype(np.float32))]
    assert [o.shape for o in mobilenet.outputs] == [(1, 1000)]
    assert mobilenet.threads == 2
    assert len(mobilenet.kernels) == 33 and all(k["schedule"] == "default" for k in mobilenet.kernels)


def test_run_is_bit_identical_to_ttune_run(mobilenet, image, tmp_path):
    (y,) = mobilenet.run(image)
    assert y.dtype == np.float32 and y.shape == (1, 1000) and np.isfinite(y).all()
    np.save(tmp_path / "x.npy", image)
    rc, out, err = ttune_cli("run", "mobilenet_v2", "--threads", 2, "--inputs", tmp_path / "x.npy", "--outputs", tmp_path / "y.npy")
    assert rc == 0, err
    assert np.array_equal(y, np.load(tmp_path / "y.npy"))
    # Non-contiguous input views are accepted (copied to C order).
    (y2,) = mobilenet.run(np.asfortranarray(image))
    assert np.array_equal(y, y2)


def test_every_kernel_agrees_with_the_reference_evaluator(mobilenet, image):
    report = mobilenet.check(image)
    assert report["ok"], report
    assert report["kernels_checked"] == len(mobilenet.kernels)
    assert report["max_abs_err"] < 1e-3


def test_profile_times_every_kernel_like_ttune_run_profile(mobilenet, image):
    prof = mobilenet.profile(image, repeat=2)
    assert len(prof) == len(mobilenet.kernels)
    assert sum(p["occurrences"] for p in prof) == sum(k["occurrences"] for k in mobilenet.kernels)
    times = [p["ms"] for p in prof]
    assert all(t > 0 for t in times) and times == sorted(times, reverse=True)
    assert abs(sum(p["share"] for p in prof) - 1) < 1e-9
    assert len(mobilenet.profile(repeat=1)) == len(prof)  # seeded random inputs without arrays


@pytest.mark.parametrize("case", ONNX_CASES)
def test_onnx_models_match_the_outputs_pytorch_exported(case, tmp_path):
    path, inputs, expected = onnx_case(case, tmp_path)
    m = ttune.compile(path)
    got = m.run(*inputs)
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-5)
    assert m.check(*inputs)["ok"]


def test_symbolic_dimensions_are_fixed_by_input_shapes(tmp_path):
    path = dense_model(tmp_path / "dense.onnx", 16, 8, seed=1, symbolic_batch=True)
    m = ttune.compile(path, input_shapes={"x": (3, 16)})
    assert m.inputs[0].shape == (3, 16)
    (y,) = m.run(np.ones((3, 16), np.float32))
    np.testing.assert_allclose(y.sum(axis=1), 1, rtol=1e-6)
    assert ttune.compile(path, dims={"batch": 5}).inputs[0].shape == (5, 16)


def test_one_model_serves_every_batch_in_its_range(tmp_path):
    path = dense_model(tmp_path / "dense.onnx", 16, 8, seed=1, symbolic_batch=True)
    m = ttune.compile(path, dims={"batch": (1, 12)})
    assert m.ranges == {"batch": (1, 12)}
    assert m.inputs[0].shape == (None, 16)
    rng = np.random.default_rng(3)
    for n in (1, 5, 12):
        x = rng.uniform(-1, 1, (n, 16)).astype(np.float32)
        (y,) = m.run(x)
        (want,) = ttune.compile(path, dims={"batch": n}).run(x)
        assert y.shape == (n, 8)
        np.testing.assert_allclose(y, want, rtol=1e-5, atol=1e-6)
    with pytest.raises(ttune.Error, match="outside its range 1..12"):
        m.run(np.zeros((13, 16), np.float32))
    x = np.ones((2, 16), np.float32)
    (y,) = m.run(x)  # still usable
    np.testing.assert_allclose(y, ttune.compile(path, dims={"batch": 2}).run(x)[0], rtol=1e-5, atol=1e-6)


def test_a_range_model_takes_each_buckets_schedules_from_the_bank(tmp_path):
    path = dense_model(tmp_path / "dense.onnx", 16, 8, seed=3, symbolic_batch=True)
    db = tmp_path / "bank.db"
    ttune.tune(path, trials=8, db=db, dims={"batch": 12})
    m = ttune.compile(path, dims={"batch": (1, 12)}, db=db)
    x = np.random.default_rng(5).uniform(-1, 1, (9, 16)).astype(np.float32)
    np.testing.assert_allclose(m.run(x)[0], ttune.compile(path, dims={"batch": 9}).run(x)[0], rtol=1e-5, atol=1e-6)


def test_the_zoo_is_listed():
    names = [m["name"] for m in ttune.models()]
    assert "mobilenet_v2" in names and "bert_base" in names and "resnext50_32x4d" in names and len(names) == 13


def test_runs_from_several_python_threads_agree(mobilenet, image):
    from concurrent.futures import ThreadPoolExecutor
    (want,) = mobilenet.run(image)
    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda _: mobilenet.run(image)[0], range(12)))
    assert all(np.array_equal(r, want) for r in results)


def test_every_element_type_passes_through_numpy(tmp_path):
    """float16, float64, uint64 and int16 tensors in and out, as numpy computes them (bfloat16,
    which numpy lacks, as uint16 bits)."""
    T = onnx.TensorProto
    graph = oh.make_graph(
        [oh.make_node("Mul", ["h", "h"], ["h2"]), oh.make_node("Exp", ["d"], ["de"]),
         oh.make_node("Add", ["u", "u"], ["u2"]), oh.make_node("Neg", ["s"], ["sn"]),
         oh.make_node("Cast", ["h"], ["hb"], to=T.BFLOAT16)],
        "dtypes",
        [oh.make_tensor_value_info("h", T.FLOAT16, [2, 5]), oh.make_tensor_value_info("d", T.DOUBLE, [2, 5]),
         oh.make_tensor_value_info("u", T.UINT64, [2, 5]), oh.make_tensor_value_info("s", T.INT16, [2, 5])],
        [oh.make_tensor_value_info(n, t, [2, 5]) for n, t in
         [("h2", T.FLOAT16), ("de", T.DOUBLE), ("u2", T.UINT64), ("sn", T.INT16), ("hb", T.BFLOAT16)]])
    path = tmp_path / "dtypes.onnx"
    onnx.save(oh.make_model(graph, opset_imports=[oh.make_opsetid("", 13)]), str(path))
    m = ttune.compile(str(path))
    assert [i.dtype for i in m.inputs] == [np.float16, np.float64, np.uint64, np.int16]
    assert [o.dtype for o in m.outputs] == [np.float16, np.float64, np.uint64, np.int16, np.uint16]
    rng = np.random.default_rng(5)
    h = rng.uniform(-4, 4, (2, 5)).astype(np.float16)
    d = rng.uniform(-4, 4, (2, 5))
    u = np.array([[0, 1, 2**63, 2**64 - 1, 7]] * 2, np.uint64)
    s = np.array([[-32768, -1, 0, 1, 32767]] * 2, np.int16)
    h2, de, u2, sn, hb = m.run(h, d, u, s)
    np.testing.assert_array_equal(h2, h * h)  # float16 products rounded once from float32
    np.testing.assert_allclose(de, np.exp(d), rtol=1e-15)
    np.testing.assert_array_equal(u2, u + u)  # wraps
    np.testing.assert_array_equal(sn, -s)  # -(-32768) wraps to itself
    np.testing.assert_array_equal(hb, (h.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16))
    m.export(tmp_path / "out", name="dtypes")
    e = ttune.load(tmp_path / "out")
    assert [o.dtype for o in e.outputs] == [o.dtype for o in m.outputs]
    for g, w in zip(e.run(h, d, u, s), (h2, de, u2, sn, hb)):
        np.testing.assert_array_equal(g, w)
