"""ttune.compile and Model: numpy round trips against `ttune run`, the reference evaluator and
outputs PyTorch exported with its ONNX models."""
import numpy as np
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


def test_the_zoo_is_listed():
    names = [m["name"] for m in ttune.models()]
    assert "mobilenet_v2" in names and "bert_base" in names and "resnext50_32x4d" in names and len(names) == 13


def test_runs_from_several_python_threads_agree(mobilenet, image):
    from concurrent.futures import ThreadPoolExecutor
    (want,) = mobilenet.run(image)
    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda _: mobilenet.run(image)[0], range(12)))
    assert all(np.array_equal(r, want) for r in results)
