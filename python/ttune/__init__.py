"""ttune from Python: compile, run, profile, tune, transfer-tune and export models.

    import numpy as np, ttune
    m = ttune.compile("mobilenet_v2")                 # a zoo name or an .onnx file
    (y,) = m.run(np.zeros((1, 3, 224, 224), np.float32))
    m.export("out/", name="mnv2")                     # libmnv2.so, mnv2.weights, mnv2.h
    e = ttune.load("out/")                            # the exported library, through its C API
    (y2,) = e.run(np.zeros((1, 3, 224, 224), np.float32))

Errors of ttune itself (a missing file, a bad option, a model it cannot compile) raise
ttune.Error with the same sentence the command line prints; arguments of the wrong count, dtype
or shape raise ValueError or TypeError. See docs/deploy.md for the exported libraries.
"""

import collections
import ctypes
import glob
import os

import numpy as np

from . import _ttune
from ._ttune import Error

__all__ = ["Error", "TensorInfo", "Model", "RangeModel", "ExportedModel", "compile", "load", "tune", "transfer", "models", "version",
           "ABI_VERSION", "__version__"]

ABI_VERSION = _ttune.ABI_VERSION


def version():
    """What `ttune --version --json` prints: version, commit, build, LLVM and XGBoost versions, the
    detected host target and the default bank, as a dict."""
    return _ttune.version()


__version__ = _ttune.VERSION

TensorInfo = collections.namedtuple("TensorInfo", ["name", "shape", "dtype"])
TensorInfo.__doc__ = "An input or output of a model: its name, shape (a tuple) and numpy dtype."

# numpy has no bfloat16: a bfloat16 tensor is passed and returned as its uint16 bits (the upper
# halves of float32 values: (a.view(np.uint32) >> 16).astype(np.uint16) truncates a float32 array).
_DTYPES = {"float32": np.dtype(np.float32), "int32": np.dtype(np.int32), "int64": np.dtype(np.int64),
           "bool": np.dtype(np.bool_), "int8": np.dtype(np.int8), "uint8": np.dtype(np.uint8),
           "int16": np.dtype(np.int16), "uint16": np.dtype(np.uint16), "uint32": np.dtype(np.uint32),
           "uint64": np.dtype(np.uint64), "float64": np.dtype(np.float64), "float16": np.dtype(np.float16),
           "bfloat16": np.dtype(np.uint16)}
# ttune_dtype numbering (ttune_model.h)
_C_DTYPES = ["float32", "int32", "int64", "bool", "int8", "uint8", "int16", "uint16", "uint32", "uint64", "float64",
             "float16", "bfloat16"]


def _infos(triples):
    return [TensorInfo(name, tuple(shape), _DTYPES[dtype]) for name, shape, dtype in triples]


def _check_inputs(model_name, infos, arrays, sized=False):
    """The arrays as C-contiguous numpy arrays of exactly the inputs' dtypes and shapes (with
    sized, of their ranks: the model checks the sizes)."""
    if len(arrays) != len(infos):
        raise ValueError(f"model {model_name} takes {len(infos)} inputs "
                         f"({', '.join(i.name for i in infos)}), got {len(arrays)}")
    out = []
    for i, (info, a) in enumerate(zip(infos, arrays)):
        a = np.asarray(a)
        if a.dtype != info.dtype:
            raise TypeError(f"input {i} ({info.name}) of model {model_name} must be {info.dtype}, got {a.dtype}")
        if sized and a.ndim != len(info.shape):
            raise ValueError(f"input {i} ({info.name}) of model {model_name} must have rank {len(info.shape)}, "
                             f"got shape {a.shape}")
        if not sized and a.shape != info.shape:
            raise ValueError(f"input {i} ({info.name}) of model {model_name} must have shape {info.shape}, got {a.shape}")
        out.append(np.ascontiguousarray(a))
    return out


class Model:
    """A model compiled in this process (ttune.compile)."""

    def __init__(self, native):
        self._m = native
        self.inputs = _infos(native.inputs)
        self.outputs = _infos(native.outputs)

    name = property(lambda self: self._m.name, doc="The model's name.")
    threads = property(lambda self: self._m.threads, doc="Threads its kernels run on.")
    kernels = property(lambda self: self._m.kernels, doc="Distinct kernels: class, workload key, occurrences, schedule source.")
    compile_seconds = property(lambda self: self._m.compile_seconds)
    workspace_bytes = property(lambda self: self._m.workspace_bytes)

    def run(self, *arrays):
        """Runs the model; returns its outputs as a list of new numpy arrays."""
        inputs = _check_inputs(self.name, self.inputs, arrays)
        outputs = [np.empty(o.shape, o.dtype) for o in self.outputs]
        self._m.run_into(inputs, outputs)
        return outputs

    def profile(self, *arrays, repeat=10):
        """Times every distinct kernel inside the model (as `ttune run --profile`): a list of dicts
        (class, workload_key, occurrences, schedule, ms, share, gflops), slowest first. Without
        arrays, runs on seeded random inputs."""
        inputs = _check_inputs(self.name, self.inputs, arrays) if arrays else []
        return self._m.profile(inputs, repeat)["kernels"]

    def check(self, *arrays):
        """Runs the model checking every distinct kernel against the reference evaluator on sampled
        outputs (as `ttune run --check`); returns the report (ok, max_abs_err, ...)."""
        inputs = _check_inputs(self.name, self.inputs, arrays) if arrays else []
        return self._m.check(inputs)

    def export(self, dir, name=None, compiler=None, static=True):
        """Writes the deployable library, header and weights into dir (as `ttune export`); returns
        the summary (paths, sizes, kernels, target)."""
        return self._m.export(os.fspath(dir), name or "", compiler or "", static)

    def __repr__(self):
        return f"<ttune.Model {self.name}: {len(self.kernels)} kernels, {self.threads} threads>"


class RangeModel:
    """A model compiled once for ranges of sizes (ttune.compile with dims={"seq": (1, 512)}): each
    run takes inputs of any size in the ranges, read from the inputs' shapes."""

    def __init__(self, native):
        self._m = native
        self.inputs = [TensorInfo(n, tuple(s), _DTYPES[d]) for n, s, d in native.inputs]   # None: a sized axis
        self.outputs = [TensorInfo(n, tuple(s), _DTYPES[d]) for n, s, d in native.outputs]

    name = property(lambda self: self._m.name, doc="The model's name.")
    threads = property(lambda self: self._m.threads, doc="Threads its kernels run on.")
    ranges = property(lambda self: {n: (lo, hi) for n, lo, hi in self._m.ranges}, doc="Each size's (min, max).")
    buckets = property(lambda self: self._m.buckets, doc="Compiled models the ranges are served by.")

    def run(self, *arrays):
        """Runs the model at the sizes the arrays' shapes give; returns its outputs as new arrays.
        A size outside its range or a shape the sizes do not give raises ttune.Error."""
        return self._m.run(_check_inputs(self.name, self.inputs, arrays, sized=True))

    def export(self, dir, name=None, compiler=None, static=True):
        """Writes one deployable library for every size in the ranges into dir (as `ttune export
        --dim seq=1..512`); returns the summary. ttune.load runs it at any size in them."""
        return self._m.export(os.fspath(dir), name or "", compiler or "", static)

    def __repr__(self):
        r = ", ".join(f"{n}={lo}..{hi}" for n, (lo, hi) in self.ranges.items())
        return f"<ttune.RangeModel {self.name}: {r} in {self.buckets} buckets, {self.threads} threads>"


def _shape_options(input_shapes, dims):
    return ({k: list(v) for k, v in (input_shapes or {}).items()}, dict(dims or {}))


def compile(model, db=None, records=None, target="host", threads=0, layout="nhwc", input_shapes=None, dims=None,
            validate=True, precision="fp32"):
    """Compiles a model: a zoo name (ttune.models()) or an .onnx path.

    Schedules: records (a records file) or db (a schedule bank; "" for the default bank), else the
    default schedule of every kernel. With db, the bank's records are candidates until validated on
    this CPU: the first compile of a model here that has no choice of its own times them against the
    defaults (kernels side by side, then the whole model) and stores what it keeps, as `ttune run
    --db` does; validate=False takes them as they are. input_shapes ({"input": (1, 3, 224, 224)})
    and dims ({"batch": 1}) fix an ONNX model's symbolic dimensions; a (min, max) pair instead
    ({"seq": (1, 512)}) compiles one model for every size in the range (a RangeModel; docs/ranges.md),
    each bucket of it taking db's or records' schedules of the model at the bucket's largest sizes.
    threads=0 uses every core.
    precision="bf16" computes convolutions, dense layers and matrix products with bfloat16 operands
    and float32 sums (CPUs with AVX512-BF16), as `--precision bf16` does."""
    ranges = {k: (int(v[0]), int(v[1])) for k, v in (dims or {}).items() if isinstance(v, (tuple, list, range))}
    if ranges:
        fixed = {k: v for k, v in dims.items() if k not in ranges}
        shapes, fixed = _shape_options(input_shapes, fixed)
        return RangeModel(_ttune.compile_ranges(os.fspath(model), target, threads, layout, shapes, fixed, ranges,
                                                precision, None if db is None else os.fspath(db),
                                                os.fspath(records) if records else "", validate))
    shapes, dims = _shape_options(input_shapes, dims)
    db = None if db is None else os.fspath(db)
    native = _ttune.compile(os.fspath(model), db, os.fspath(records) if records else "", target, threads, layout, shapes, dims,
                            validate, precision)
    return Model(native)


def tune(model, trials=1000, db=None, time_budget_min=0, seed=0, threads=0, target="host", new_run=False,
         warm_start=False, refine=True, layout="nhwc", input_shapes=None, dims=None, precision="fp32",
         cost_model="bank"):
    """Tunes the model's kernels (as `ttune tune`), storing records in the bank (db; None for the
    default bank); returns the summary `ttune tune --json` prints, as a dict. refine=False keeps
    the isolated picks (`--no-refine`); cost_model="scratch" starts the cost model empty instead of
    training it on the bank's records of other models first (`--cost-model`)."""
    shapes, dims = _shape_options(input_shapes, dims)
    return _ttune.tune(os.fspath(model), trials, None if db is None else os.fspath(db), time_budget_min, seed, threads,
                       target, new_run, warm_start, refine, layout, shapes, dims, precision, cost_model)


def transfer(model, db=None, from_models=None, sources="pool", budget=0, top_k=0, adapt="both", refine=False, threads=0,
             target="host", layout="nhwc", input_shapes=None, dims=None, precision="fp32"):
    """Transfer-tunes the model from the bank's other models (as `ttune transfer`); returns the
    summary `ttune transfer --json` prints, as a dict."""
    shapes, dims = _shape_options(input_shapes, dims)
    return _ttune.transfer(os.fspath(model), None if db is None else os.fspath(db), list(from_models or []), sources,
                           budget, top_k, adapt, refine, threads, target, layout, shapes, dims, precision)


def models():
    """The built-in model zoo: name, summary, input name, shape and dtype, output shape."""
    return _ttune.models()


class _TensorInfoC(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("dtype", ctypes.c_int32), ("ndim", ctypes.c_int32),
                ("shape", ctypes.POINTER(ctypes.c_int64)), ("elements", ctypes.c_int64), ("bytes", ctypes.c_int64)]


class _TensorC(ctypes.Structure):  # ttune_tensor
    _fields_ = [("data", ctypes.c_void_p), ("dtype", ctypes.c_int32), ("ndim", ctypes.c_int32),
                ("shape", ctypes.POINTER(ctypes.c_int64)), ("bytes", ctypes.c_int64)]


class _SizeInfoC(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("min", ctypes.c_int64), ("max", ctypes.c_int64), ("input", ctypes.c_int32),
                ("axis", ctypes.c_int32)]


def _bind(lib):
    p, i, c = ctypes.c_void_p, ctypes.c_int, ctypes.c_char_p
    sigs = {
        "ttune_abi_version": (i, []),
        "ttune_model_create": (p, [c, i]),
        "ttune_model_destroy": (None, [p]),
        "ttune_model_name": (c, [p]),
        "ttune_model_target": (c, [p]),
        "ttune_model_precision": (c, [p]),
        "ttune_model_threads": (i, [p]),
        "ttune_model_num_inputs": (i, [p]),
        "ttune_model_num_outputs": (i, [p]),
        "ttune_model_input_info": (i, [p, i, ctypes.POINTER(_TensorInfoC)]),
        "ttune_model_output_info": (i, [p, i, ctypes.POINTER(_TensorInfoC)]),
        "ttune_model_num_sizes": (i, [p]),
        "ttune_model_size_info": (i, [p, i, ctypes.POINTER(_SizeInfoC)]),
        "ttune_model_output_shape": (i, [p, ctypes.POINTER(ctypes.POINTER(ctypes.c_int64)), i,
                                         ctypes.POINTER(ctypes.c_int64)]),
        "ttune_model_run_tensors": (i, [p, i, ctypes.POINTER(_TensorC), i, ctypes.POINTER(_TensorC)]),
        "ttune_last_error": (c, []),
    }
    for name, (res, args) in sigs.items():
        try:
            f = getattr(lib, name)
        except AttributeError:
            raise Error(f"library {lib._name} has no {name}: it was exported by an older ttune; export it again")
        f.restype, f.argtypes = res, args


class ExportedModel:
    """A model exported by `ttune export` / Model.export, loaded through its C API (ttune.load).
    One exported for ranges of sizes has them in `ranges` ({"seq": (1, 512)}; empty otherwise),
    None in its inputs' and outputs' shapes for the axes that follow a size, and runs at any size
    in the ranges."""

    def __init__(self, library, weights, threads):
        self._lib = ctypes.CDLL(library, mode=os.RTLD_LOCAL | os.RTLD_NOW)
        _bind(self._lib)
        if self._lib.ttune_abi_version() != ABI_VERSION:
            raise Error(f"library {library} implements C API version {self._lib.ttune_abi_version()}, "
                        f"this ttune reads version {ABI_VERSION}")
        self._m = self._lib.ttune_model_create(os.fsencode(weights), threads)
        if not self._m:
            raise Error(self._lib.ttune_last_error().decode())
        self.library = library
        ins = [self._info(self._lib.ttune_model_input_info, k) for k in range(self._lib.ttune_model_num_inputs(self._m))]
        outs = [self._info(self._lib.ttune_model_output_info, k)
                for k in range(self._lib.ttune_model_num_outputs(self._m))]
        self.inputs, self._input_dtypes = [i for i, _ in ins], [c for _, c in ins]  # ttune_dtype codes
        self.outputs, self._output_dtypes = [o for o, _ in outs], [c for _, c in outs]
        self.ranges = {}
        for k in range(self._lib.ttune_model_num_sizes(self._m)):
            info = _SizeInfoC()
            if self._lib.ttune_model_size_info(self._m, k, ctypes.byref(info)) != 0:
                raise Error(self._lib.ttune_last_error().decode())
            self.ranges[info.name.decode()] = (info.min, info.max)

    def _info(self, fn, k):
        info = _TensorInfoC()
        if fn(self._m, k, ctypes.byref(info)) != 0:
            raise Error(self._lib.ttune_last_error().decode())
        shape = tuple(None if info.shape[d] < 0 else info.shape[d] for d in range(info.ndim))  # None: follows a size
        return TensorInfo(info.name.decode(), shape, _DTYPES[_C_DTYPES[info.dtype]]), info.dtype

    name = property(lambda self: self._lib.ttune_model_name(self._m).decode())
    target = property(lambda self: self._lib.ttune_model_target(self._m).decode())
    precision = property(lambda self: self._lib.ttune_model_precision(self._m).decode())
    threads = property(lambda self: self._lib.ttune_model_threads(self._m))

    def run(self, *arrays):
        """Runs the model; returns its outputs as a list of new numpy arrays. The library checks
        every tensor again (ttune_model_run_tensors): dtypes, shapes, sizes in their ranges."""
        if not self._m:
            raise Error(f"model {self.library} is closed")
        inputs = _check_inputs(self.name, self.inputs, arrays, sized=bool(self.ranges))
        i64p = ctypes.POINTER(ctypes.c_int64)
        dims = [(ctypes.c_int64 * max(1, a.ndim))(*a.shape) for a in inputs]  # alive until the call returns
        if self.ranges:  # the outputs' shapes follow the sizes the inputs' shapes give
            shapes = (i64p * max(1, len(inputs)))(*[ctypes.cast(d, i64p) for d in dims])
            out_shapes = []
            for k, o in enumerate(self.outputs):
                shape = (ctypes.c_int64 * max(1, len(o.shape)))()
                if self._lib.ttune_model_output_shape(self._m, shapes, k, shape) != 0:
                    raise Error(self._lib.ttune_last_error().decode())
                out_shapes.append(tuple(shape[d] for d in range(len(o.shape))))
        else:
            out_shapes = [o.shape for o in self.outputs]
        outputs = [np.empty(s, o.dtype) for s, o in zip(out_shapes, self.outputs)]
        dims += [(ctypes.c_int64 * max(1, a.ndim))(*a.shape) for a in outputs]

        def tensors(arrays, codes, first):
            return (_TensorC * max(1, len(arrays)))(*[
                _TensorC(a.ctypes.data, code, a.ndim, ctypes.cast(dims[first + k], i64p), a.nbytes)
                for k, (a, code) in enumerate(zip(arrays, codes))])
        ins, outs = tensors(inputs, self._input_dtypes, 0), tensors(outputs, self._output_dtypes, len(inputs))
        if self._lib.ttune_model_run_tensors(self._m, len(inputs), ins, len(outputs), outs) != 0:
            raise Error(self._lib.ttune_last_error().decode())
        return outputs

    def close(self):
        """Frees the model (its weights and workspace); the library stays loaded."""
        if self._m:
            self._lib.ttune_model_destroy(self._m)
            self._m = None

    def __del__(self):
        if getattr(self, "_m", None):
            self.close()

    def __repr__(self):
        return f"<ttune.ExportedModel {self.name} from {self.library}>"


def load(dir, name=None, threads=0):
    """Loads a model exported into dir (libNAME.so and NAME.weights). name is needed only when dir
    holds several exports; threads=0 uses TTUNE_NUM_THREADS, else every core."""
    dir = os.fspath(dir)
    if not os.path.isdir(dir):
        raise Error(f"export directory {dir} does not exist")
    if name is None:
        libs = sorted(glob.glob(os.path.join(glob.escape(dir), "lib*.so")))
        if len(libs) != 1:
            raise Error(f"export directory {dir} holds {len(libs)} libraries (lib*.so); pass name= to choose one"
                        if libs else f"export directory {dir} holds no exported library (lib*.so)")
        library = libs[0]
    else:
        library = os.path.join(dir, f"lib{name}.so")
        if not os.path.isfile(library):
            raise Error(f"export directory {dir} has no library lib{name}.so")
    return ExportedModel(os.path.abspath(library), dir, threads)
