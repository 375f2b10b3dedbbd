"""Bad input raises a clear exception, never crashes the interpreter: ttune's own errors are
ttune.Error with the command line's sentence, argument mistakes ValueError / TypeError."""
import os
import struct

import numpy as np
import pytest

import ttune
from conftest import dense_model, ttune_cli


@pytest.fixture(scope="module")
def dense(tmp_path_factory):
    d = tmp_path_factory.mktemp("dense")
    m = ttune.compile(dense_model(d / "dense.onnx", 8, 3, seed=1))
    m.export(d / "out", name="dense")
    return m, ttune.load(d / "out"), d


def both(dense):
    return dense[0], dense[1]


def test_wrong_dtype_shape_or_count_is_a_clear_exception(dense):
    for m in both(dense):
        with pytest.raises(TypeError, match=r"input 0 \(x\) of model .* must be float32, got float64"):
            m.run(np.zeros((4, 8)))
        with pytest.raises(ValueError, match=r"must have shape \(4, 8\), got \(4, 9\)"):
            m.run(np.zeros((4, 9), np.float32))
        with pytest.raises(ValueError, match="takes 1 inputs"):
            m.run()
        with pytest.raises(ValueError, match="takes 1 inputs"):
            m.run(np.zeros((4, 8), np.float32), np.zeros((4, 8), np.float32))
        with pytest.raises(TypeError):
            m.run(None)
        assert m.run(np.zeros((4, 8), np.float32))[0].shape == (4, 3)  # still usable


def test_native_layer_checks_buffers_itself(dense):
    m = dense[0]._m
    with pytest.raises(ValueError, match="C-contiguous float32 array of 128 bytes"):
        m.run_into([np.zeros((4, 4), np.float32)], [np.zeros((4, 3), np.float32)])
    with pytest.raises(ValueError, match="read-only"):
        out = np.zeros((4, 3), np.float32)
        out.setflags(write=False)
        m.run_into([np.zeros((4, 8), np.float32)], [out])


def same_sentence(exc, *cli_args):
    rc, out, err = ttune_cli(*cli_args)
    assert rc == 1
    assert err == f"ttune: {exc.value}\n"


def test_errors_carry_the_command_lines_sentence(tmp_path):
    with pytest.raises(ttune.Error) as e:
        ttune.compile(str(tmp_path / "missing.onnx"))
    assert "missing.onnx" in str(e.value)
    same_sentence(e, "run", tmp_path / "missing.onnx")
    with pytest.raises(ttune.Error) as e:
        ttune.compile("no_such_model")
    same_sentence(e, "run", "no_such_model")
    with pytest.raises(ttune.Error) as e:
        ttune.compile("mobilenet_v2", records=str(tmp_path / "none.jsonl"))
    same_sentence(e, "run", "mobilenet_v2", "--records", tmp_path / "none.jsonl")
    with pytest.raises(ttune.Error) as e:
        ttune.compile("mobilenet_v2", target="no-such-cpu")
    same_sentence(e, "run", "mobilenet_v2", "--target", "no-such-cpu")
    with pytest.raises(ttune.Error, match="layout"):
        ttune.compile("mobilenet_v2", layout="nwhc")
    with pytest.raises(ttune.Error, match="threads"):
        ttune.compile("mobilenet_v2", threads=-2)


def test_export_and_load_errors(dense, tmp_path):
    m, e, d = dense
    with pytest.raises(ttune.Error) as exc:
        m.export(tmp_path / "x", name="9lives")
    assert str(exc.value).startswith("--name must be a C identifier")
    with pytest.raises(ttune.Error, match="does not exist"):
        ttune.load(tmp_path / "nowhere")
    with pytest.raises(ttune.Error, match="no exported library"):
        ttune.load(tmp_path)
    with pytest.raises(ttune.Error, match="has no library libother.so"):
        ttune.load(d / "out", name="other")
    with pytest.raises(ttune.Error, match="thread count"):
        ttune.load(d / "out", threads=-1)
    # A damaged weights file is refused with the file's name.
    bad = tmp_path / "bad"
    bad.mkdir()
    os.symlink(d / "out" / "libdense.so", bad / "libdense.so")
    data = bytearray((d / "out" / "dense.weights").read_bytes())
    first_weight = struct.unpack_from("<q", data, 32)[0]  # the offset in the first table entry
    data[first_weight] ^= 0xFF
    (bad / "dense.weights").write_bytes(bytes(data))
    with pytest.raises(ttune.Error, match=r"weights file .*dense.weights is corrupt"):
        ttune.load(bad)
    (bad / "dense.weights").unlink()
    with pytest.raises(ttune.Error, match="cannot open weights file"):
        ttune.load(bad)
    # A closed model says so.
    e2 = ttune.load(d / "out")
    e2.close()
    with pytest.raises(ttune.Error, match="closed"):
        e2.run(np.zeros((4, 8), np.float32))
