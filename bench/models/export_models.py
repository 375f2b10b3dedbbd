#!/usr/bin/python3
"""Exports the whole-model peer benchmark's models: for each, NAME.onnx (static shapes, batch 1 -- the
_dyn files have symbolic batch and sequence axes instead --,
input "input", output "output") for ttune and ONNX Runtime, and NAME.pt (frozen TorchScript) for
PyTorch, from the same module with the same seeded random weights, so the three runtimes run
the same model. Weights are never downloaded: torchvision builds the nets with weights=None and
its own initialisation under torch.manual_seed; batch-norm statistics and affine parameters are
then drawn at random too (the initial mean 0 / variance 1 / weight 1 / bias 0 would make every
batch norm an identity, which checks nothing when the runtimes' outputs are compared).

Usage: /usr/bin/python3 bench/models/export_models.py OUT_DIR [--models NAME ...] [--opset N]
Files already in OUT_DIR are kept (delete them to re-export)."""

import argparse
import os
import sys

import torch
import torch.nn as nn
import torchvision.models as tvm

SEED = 0
OPSET = 17


def bert_base(seq):
    """A BERT-base-sized encoder: 12 post-norm layers, d_model 768, 12 heads, FFN 3072 (ReLU),
    input [1, seq, 768]."""
    layer = nn.TransformerEncoderLayer(d_model=768, nhead=12, dim_feedforward=3072, batch_first=True)
    encoder = nn.TransformerEncoder(layer, num_layers=12, enable_nested_tensor=False)
    # TransformerEncoder deep-copies one layer, so all twelve would hold the same weights (and
    # the exporters would store them once): draw every layer's anew. Layer norms get random
    # affine parameters (initially 1 and 0), as batch norms do.
    for m in encoder.modules():
        if isinstance(m, nn.MultiheadAttention):
            m._reset_parameters()
        elif isinstance(m, nn.Linear):
            m.reset_parameters()
        elif isinstance(m, nn.LayerNorm):
            m.weight.data.uniform_(0.5, 1.5)
            m.bias.data.normal_(0, 0.1)
    return encoder, [1, seq, 768]


class MainOutput(nn.Module):
    """torchvision's segmentation models return a dict; the benchmark's models have one output."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, x):
        return self.model(x)["out"]


def segmentation(builder, size=224, **kw):
    def make():
        return MainOutput(builder(weights=None, weights_backbone=None, **kw)), [1, 3, size, size]
    return make


class Detections(nn.Module):
    """torchvision's detection models take a list of images and return a list of dicts; the
    benchmark's models have one input and one output: one image in, its detections out as one
    [N, 6] tensor (box x1 y1 x2 y2, score, label). N depends on the image (score threshold,
    non-maximum suppression), so these graphs have shapes known only at run time."""

    def __init__(self, model, extra=None):
        super().__init__()
        self.model = model
        self.extra = extra

    def forward(self, x):
        d = self.model([x[0]])[0]
        rows = torch.cat([d["boxes"], d["scores"].unsqueeze(1), d["labels"].unsqueeze(1).to(torch.float32)], 1)
        # Mask R-CNN's masks and Keypoint R-CNN's keypoints, row by row with the detections: the
        # ONNX graph keeps their post-processing (Loops over the detections) only if they are
        # outputs.
        return rows if self.extra is None else (rows, d[self.extra])


def detection(builder, size, extra=None, sharpen=6, **kw):
    def make():
        model = builder(weights=None, weights_backbone=None, **kw)
        # Random weights score every box and class alike (all scores within 1e-3 of 1/91), so
        # the top-k and NMS decisions would turn on rounding and no two runtimes would agree on
        # the boxes kept. Sharper classifiers separate the scores as trained ones do.
        for name, m in model.named_modules():
            if ("cls" in name or "classification" in name) and isinstance(m, (nn.Conv2d, nn.Linear)):
                m.weight.data *= sharpen
        return Detections(model, extra), [1, 3, size, size]
    return make


class UNet(nn.Module):
    """The U-Net of Ronneberger et al. (2015) at a quarter of its width, with padded convolutions and
    batch norm: four 2x2 max-pool downsamplings, four 2x2 stride-2 up-convolutions
    (ConvTranspose) whose outputs are concatenated with the skip connections."""

    def __init__(self, classes=2, width=16):
        super().__init__()

        def block(cin, cout):
            return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(),
                                 nn.Conv2d(cout, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU())
        w = [width * 2 ** i for i in range(5)]
        self.down = nn.ModuleList([block(3, w[0])] + [block(w[i], w[i + 1]) for i in range(4)])
        self.up = nn.ModuleList([nn.ConvTranspose2d(w[i + 1], w[i], 2, stride=2) for i in reversed(range(4))])
        self.merge = nn.ModuleList([block(2 * w[i], w[i]) for i in reversed(range(4))])
        self.head = nn.Conv2d(w[0], classes, 1)

    def forward(self, x):
        skips = []
        for i, b in enumerate(self.down):
            x = b(x if i == 0 else nn.functional.max_pool2d(x, 2))
            skips.append(x)
        for up, merge, skip in zip(self.up, self.merge, reversed(skips[:-1])):
            x = merge(torch.cat([up(x), skip], 1))
        return self.head(x)


class DcganGenerator(nn.Module):
    """DCGAN's generator (Radford et al., 2016): a 100-d code to a 64x64 image through 4x4
    stride-2 transposed convolutions with batch norm."""

    def __init__(self, nz=100, ngf=64):
        super().__init__()
        layers, cin = [], nz
        for i, cout in enumerate([ngf * 8, ngf * 4, ngf * 2, ngf]):
            layers += [nn.ConvTranspose2d(cin, cout, 4, 1 if i == 0 else 2, 0 if i == 0 else 1, bias=False),
                       nn.BatchNorm2d(cout), nn.ReLU()]
            cin = cout
        layers += [nn.ConvTranspose2d(cin, 3, 4, 2, 1, bias=False), nn.Tanh()]
        self.net = nn.Sequential(*layers)

    def forward(self, z):
        return self.net(z)


class CausalDecoder(nn.Module):
    """A GPT-style decoder-only transformer: token and position embeddings, pre-norm blocks with
    causally masked self-attention (the mask a lower-triangular where), GELU MLP, tied-free LM head."""

    def __init__(self, vocab=8192, seq=128, d=512, heads=8, layers=6):
        super().__init__()
        self.tok, self.pos = nn.Embedding(vocab, d), nn.Parameter(torch.randn(seq, d) * 0.02)
        self.blocks = nn.ModuleList()
        for _ in range(layers):
            self.blocks.append(nn.ModuleDict({"ln1": nn.LayerNorm(d), "qkv": nn.Linear(d, 3 * d), "proj": nn.Linear(d, d),
                                              "ln2": nn.LayerNorm(d), "fc": nn.Linear(d, 4 * d), "out": nn.Linear(4 * d, d)}))
        self.ln, self.head, self.heads = nn.LayerNorm(d), nn.Linear(d, vocab, bias=False), heads
        self.register_buffer("mask", torch.tril(torch.ones(seq, seq, dtype=torch.bool)))

    def forward(self, ids):
        b, t = ids.shape
        x = self.tok(ids) + self.pos[:t]
        for blk in self.blocks:
            q, k, v = blk["qkv"](blk["ln1"](x)).split(x.shape[-1], dim=-1)
            q, k, v = (z.view(b, t, self.heads, -1).transpose(1, 2) for z in (q, k, v))
            att = (q @ k.transpose(-2, -1)) / (q.shape[-1] ** 0.5)
            att = att.masked_fill(~self.mask[:t, :t], float("-inf")).softmax(-1)
            x = x + blk["proj"]((att @ v).transpose(1, 2).reshape(b, t, -1))
            x = x + blk["out"](nn.functional.gelu(blk["fc"](blk["ln2"](x))))
        return self.head(self.ln(x))


class RecurrentTagger(nn.Module):
    """A recurrent sequence model: a projection, a 2-layer bidirectional LSTM (256 per direction),
    a GRU (128) over its outputs and a classifier on the last step; input [1, 50, 64]."""

    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(64, 128)
        self.lstm = nn.LSTM(128, 256, num_layers=2, batch_first=True, bidirectional=True)
        self.gru = nn.GRU(512, 128, batch_first=True)
        self.head = nn.Linear(128, 10)

    def forward(self, x):
        y, _ = self.lstm(torch.relu(self.proj(x)))
        z, _ = self.gru(y)
        return self.head(z[:, -1])


class StyleTransfer(nn.Module):
    """Fast neural style transfer (Johnson et al., 2016, as in PyTorch's examples): reflection-padded
    convolutions with instance norm, 5 residual blocks, nearest-neighbour 2x upsampling + conv."""

    @staticmethod
    def conv(cin, cout, k, stride=1, up=False, norm=True, relu=True):
        layers = [nn.Upsample(scale_factor=2, mode="nearest")] if up else []
        layers += [nn.ReflectionPad2d(k // 2), nn.Conv2d(cin, cout, k, stride)]
        if norm:
            layers.append(nn.InstanceNorm2d(cout, affine=True))
        if relu:
            layers.append(nn.ReLU())
        return nn.Sequential(*layers)

    def __init__(self):
        super().__init__()
        c = StyleTransfer.conv
        self.down = nn.Sequential(c(3, 32, 9), c(32, 64, 3, 2), c(64, 128, 3, 2))
        self.res = nn.ModuleList(nn.Sequential(c(128, 128, 3), c(128, 128, 3, relu=False)) for _ in range(5))
        self.up = nn.Sequential(c(128, 64, 3, up=True), c(64, 32, 3, up=True), c(32, 3, 9, norm=False, relu=False))

    def forward(self, x):
        y = self.down(x)
        for r in self.res:
            y = y + r(y)
        return self.up(y)


def vision(builder, size=224, **kw):
    def make():
        return builder(weights=None, **kw), [1, 3, size, size]
    return make


MODELS = {
    "resnet18": vision(tvm.resnet18),
    "resnet50": vision(tvm.resnet50),
    "mobilenet_v2": vision(tvm.mobilenet_v2),
    "efficientnet_b0": vision(tvm.efficientnet_b0),
    "googlenet": vision(tvm.googlenet, aux_logits=False, init_weights=True),
    "densenet121": vision(tvm.densenet121),
    "inception_v3": vision(tvm.inception_v3, size=299, aux_logits=False, init_weights=True),
    "vgg16": vision(tvm.vgg16),
    "mobilenet_v3_large": vision(tvm.mobilenet_v3_large),
    "resnext50_32x4d": vision(tvm.resnext50_32x4d),
    "regnet_y_400mf": vision(tvm.regnet_y_400mf),
    "shufflenet_v2_x1_0": vision(tvm.shufflenet_v2_x1_0),
    "vit_b_16": vision(tvm.vit_b_16),
    "convnext_tiny": vision(tvm.convnext_tiny),
    "swin_t": vision(tvm.swin_t),
    "fcn_resnet50": segmentation(tvm.segmentation.fcn_resnet50, aux_loss=False),
    "lraspp_mobilenet_v3_large": segmentation(tvm.segmentation.lraspp_mobilenet_v3_large),
    # ASPP's atrous 3x3 convolutions (rates 12, 24, 36) on a 28x28 (resnet50, output stride 8) and
    # a 14x14 map (mobilenet_v3, stride 16): the larger rates' outer taps read only padding.
    "deeplabv3_resnet50": segmentation(tvm.segmentation.deeplabv3_resnet50, aux_loss=False),
    "deeplabv3_mobilenet_v3_large": segmentation(tvm.segmentation.deeplabv3_mobilenet_v3_large, aux_loss=False),
    # Random weights score every box near 1/91: thresholds low enough that detections remain.
    "ssdlite320_mobilenet_v3_large": detection(tvm.detection.ssdlite320_mobilenet_v3_large, 320),
    "fasterrcnn_mobilenet_v3_large_320_fpn": detection(tvm.detection.fasterrcnn_mobilenet_v3_large_320_fpn, 320,
                                                       box_score_thresh=0.005),
    # A one-stage detector whose per-level TopK takes K = min(passing anchors, 1000): with the
    # default score threshold few or no anchors of a level pass, so K is often 0 at run time.
    "retinanet_resnet50_fpn": detection(tvm.detection.retinanet_resnet50_fpn, 320),
    # Two-stage detectors with per-detection post-processing in ONNX Loops whose bodies need
    # run-time values (each mask resized to its box; each keypoint heatmap to its box). Keypoint
    # R-CNN's two-class head keeps no box with its random classifier (scores below 0.06, and none
    # survives): a softer one (x 0.1) keeps about 50.
    "maskrcnn_resnet50_fpn": detection(tvm.detection.maskrcnn_resnet50_fpn, 320, extra="masks", min_size=320,
                                       max_size=320, box_score_thresh=0.005),
    "keypointrcnn_resnet50_fpn": detection(tvm.detection.keypointrcnn_resnet50_fpn, 320, extra="keypoints", sharpen=0.1,
                                           min_size=320, max_size=320, box_score_thresh=0.005),
    "unet": lambda: (UNet(), [1, 3, 256, 256]),
    "dcgan_generator": lambda: (DcganGenerator(), [1, 100, 1, 1]),
    "style_transfer": lambda: (StyleTransfer(), [1, 3, 256, 256]),
    "r3d_18": lambda: (tvm.video.r3d_18(weights=None), [1, 3, 8, 112, 112]),
    "gpt_decoder_128": lambda: (CausalDecoder(), [1, 128]),
    "lstm_gru_tagger": lambda: (RecurrentTagger(), [1, 50, 64]),
    "bert_base_128": lambda: bert_base(128),
    "bert_base_256": lambda: bert_base(256),
    # Dynamic axes (DYNAMIC_AXES): one file for every size; ttune binds the sizes with --dim.
    "bert_base_dyn": lambda: bert_base(128),
    "resnet50_dyn": vision(tvm.resnet50),
    # The decoder with positions and causal mask for up to 512 tokens, dynamic batch and sequence.
    "gpt_decoder_dyn": lambda: (CausalDecoder(seq=512), [1, 128]),
}
# Batch norms left at their initial statistics: randomized ones leave the two-stage detectors'
# heads with no box above the score threshold on random images, and nothing to post-process.
DEFAULT_BATCH_NORMS = {"maskrcnn_resnet50_fpn", "keypointrcnn_resnet50_fpn"}
# The symbolic axes of the dynamic exports' input and output.
DYNAMIC_AXES = {
    "bert_base_dyn": ({0: "batch", 1: "seq"}, {0: "batch", 1: "seq"}),
    "resnet50_dyn": ({0: "batch"}, {0: "batch"}),
    "gpt_decoder_dyn": ({0: "batch", 1: "seq"}, {0: "batch", 1: "seq"}),
}


# Quantized models (int8). Static: torchvision's quantizable nets through PyTorch's fbgemm flow
# (fuse, observe on seeded random calibration images, convert), exported at opset 13 as QDQ
# (DequantizeLinear -> Conv / Gemm -> QuantizeLinear, per-channel int8 weights, uint8
# activations); PyTorch runs the converted module itself (fbgemm's int8 kernels). Dynamic: the
# BERT-base encoder with its linear layers quantized the way ONNX Runtime's dynamic quantizer
# writes them (quantize_dynamic_onnx below), PyTorch's side being quantize_dynamic of the same
# module.
QUANT_OPSET = 13
CALIBRATION_BATCHES = 4


def static_int8(builder, size=224, **kw):
    def make():
        import torch.ao.quantization as tq
        model = builder(weights=None, quantize=False, **kw)
        model.eval()
        randomize_batch_norms(model)
        model.fuse_model()
        model.qconfig = tq.get_default_qconfig("fbgemm")
        tq.prepare(model, inplace=True)
        with torch.no_grad():
            for _ in range(CALIBRATION_BATCHES):
                model(torch.randn(1, 3, size, size))
        tq.convert(model, inplace=True)
        return model, [1, 3, size, size]
    return make


def quantize_dynamic_onnx(path):
    """Rewrites every MatMul with a constant float32 [K, N] weight of the ONNX file at `path` as
    ONNX Runtime's dynamic quantizer does: DynamicQuantizeLinear of the activation (uint8, scale
    and zero point computed at run time), MatMulInteger with the weight quantized per tensor to
    symmetric int8, the int32 result cast to float32 and multiplied by the product of the scales."""
    import numpy as np
    import onnx
    from onnx import helper, numpy_helper
    model = onnx.load(path)
    g = model.graph
    inits = {t.name: t for t in g.initializer}
    nodes = []
    for n in g.node:
        w = inits.get(n.input[1]) if n.op_type == "MatMul" and len(n.input) == 2 else None
        if w is None or w.data_type != onnx.TensorProto.FLOAT or len(w.dims) != 2:
            nodes.append(n)
            continue
        wf = numpy_helper.to_array(w)
        scale = float(np.abs(wf).max()) / 127.0 or 1.0
        wq = np.clip(np.round(wf / scale), -127, 127).astype(np.int8)
        p = n.output[0] + "_dq"
        g.initializer.extend([numpy_helper.from_array(wq, p + "_w"),
                              numpy_helper.from_array(np.array(scale, dtype=np.float32), p + "_w_scale"),
                              numpy_helper.from_array(np.array(0, dtype=np.int8), p + "_w_zp")])
        nodes += [helper.make_node("DynamicQuantizeLinear", [n.input[0]], [p + "_x", p + "_x_scale", p + "_x_zp"]),
                  helper.make_node("MatMulInteger", [p + "_x", p + "_w", p + "_x_zp", p + "_w_zp"], [p + "_i32"]),
                  helper.make_node("Cast", [p + "_i32"], [p + "_f"], to=onnx.TensorProto.FLOAT),
                  helper.make_node("Mul", [p + "_x_scale", p + "_w_scale"], [p + "_scale"]),
                  helper.make_node("Mul", [p + "_f", p + "_scale"], [n.output[0]])]
    del g.node[:]
    g.node.extend(nodes)
    used = {i for n in g.node for i in n.input}
    kept = [t for t in g.initializer if t.name in used]
    del g.initializer[:]
    g.initializer.extend(kept)
    onnx.checker.check_model(model)
    onnx.save(model, path)


def dynamic_int8(base):
    def make():
        model, shape = base()
        model.eval()
        return model, shape
    return make


QUANTIZED_MODELS = {
    "resnet18_int8": static_int8(tvm.quantization.resnet18),
    "resnet50_int8": static_int8(tvm.quantization.resnet50),
    "mobilenet_v2_int8": static_int8(tvm.quantization.mobilenet_v2),
    "mobilenet_v3_large_int8": static_int8(tvm.quantization.mobilenet_v3_large),
    "googlenet_int8": static_int8(tvm.quantization.googlenet, aux_logits=False, init_weights=True),
    "inception_v3_int8": static_int8(tvm.quantization.inception_v3, 299, aux_logits=False, init_weights=True),
    "bert_base_128_dynint8": dynamic_int8(lambda: bert_base(128)),
}
MODELS.update(QUANTIZED_MODELS)
# Float models also exported for PyTorch's bf16 autocast (NAME.bf16.pt).
BF16_MODELS = ["bert_base_128", "bert_base_256", "resnet50"]


def randomize_batch_norms(model):
    for m in model.modules():
        if isinstance(m, (nn.BatchNorm2d, nn.BatchNorm3d)):
            m.running_mean.normal_(0, 0.1)
            m.running_var.uniform_(0.5, 1.5)
            m.weight.data.uniform_(0.5, 1.5)
            m.bias.data.normal_(0, 0.1)


def export(name, out_dir, opset):
    onnx_path = os.path.join(out_dir, name + ".onnx")
    pt_path = os.path.join(out_dir, name + ".pt")
    if os.path.exists(onnx_path) and os.path.exists(pt_path) and (
            name not in BF16_MODELS or os.path.exists(os.path.join(out_dir, name + ".bf16.pt"))):
        print(f"{name}: present in {out_dir}")
        return
    torch.manual_seed(SEED)
    model, shape = MODELS[name]()
    model.eval()
    if name not in QUANTIZED_MODELS and name not in DEFAULT_BATCH_NORMS:
        randomize_batch_norms(model)  # the quantized ones did before calibration
    dynamic = name.endswith("_dynint8")
    if name in QUANTIZED_MODELS and not dynamic:
        opset = QUANT_OPSET
    # Token ids for the decoder, images and codes otherwise.
    x = torch.randint(0, 8192, shape) if name.startswith("gpt") else torch.randn(*shape)
    if not os.path.exists(onnx_path):
        # In eval mode without gradients nn.TransformerEncoderLayer runs a fused fast path
        # (aten::_transformer_encoder_layer_fwd) that the ONNX exporter cannot export; with
        # gradients enabled it takes its plain path (the same math), which exports.
        with torch.enable_grad():
            tmp = onnx_path + ".tmp"
            axes = DYNAMIC_AXES.get(name)
            torch.onnx.export(model, (x,), tmp, input_names=["input"], output_names=["output"],
                              opset_version=opset, do_constant_folding=True,
                              dynamic_axes={"input": axes[0], "output": axes[1]} if axes else None)
            if dynamic:
                quantize_dynamic_onnx(tmp)
            os.replace(tmp, onnx_path)
    if not os.path.exists(pt_path):
        if dynamic:
            model = torch.ao.quantization.quantize_dynamic(model, {nn.Linear}, dtype=torch.qint8)
            # The encoder layers' fused fast path inspects the linear weights as tensors, which
            # dynamic quantization turns into methods: the layers take their plain path (the same math).
            for m in model.modules():
                if isinstance(m, nn.TransformerEncoderLayer):
                    m.activation_relu_or_gelu = False
        # Traced without gradients, so PyTorch runs its own fastest inference path.
        with torch.no_grad():
            frozen = torch.jit.freeze(torch.jit.trace(model, (x,)))
            tmp = pt_path + ".tmp"
            torch.jit.save(frozen, tmp)
            os.replace(tmp, pt_path)
    bf16_path = os.path.join(out_dir, name + ".bf16.pt")
    if name in BF16_MODELS and not os.path.exists(bf16_path):
        # PyTorch's bfloat16 side (bench_models.py --precision bf16): traced under CPU autocast,
        # so the frozen graph holds autocast's casts around its convolutions and matrix products.
        # The encoder layers' fused fast path fails under autocast in PyTorch 1.13 ("expected
        # scalar type BFloat16 but found Float"): they take their plain path, which autocast covers.
        for m in model.modules():
            if isinstance(m, nn.TransformerEncoderLayer):
                m.activation_relu_or_gelu = False
        with torch.no_grad(), torch.cpu.amp.autocast(dtype=torch.bfloat16, cache_enabled=False):
            frozen = torch.jit.freeze(torch.jit.trace(model, (x,)))
            tmp = bf16_path + ".tmp"
            torch.jit.save(frozen, tmp)
            os.replace(tmp, bf16_path)
    print(f"{name}: wrote {onnx_path} (opset {opset}) and {pt_path}, input {'x'.join(map(str, shape))}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out_dir")
    ap.add_argument("--models", nargs="+", default=list(MODELS), choices=list(MODELS), metavar="NAME")
    ap.add_argument("--opset", type=int, default=OPSET, choices=range(7, 18))
    a = ap.parse_args()
    os.makedirs(a.out_dir, exist_ok=True)
    torch.set_num_threads(1)  # the machine may be busy with a benchmark; export is not timed
    failed = 0
    for name in a.models:
        try:
            export(name, a.out_dir, a.opset)
        except Exception as e:  # one model's failure must not hide the others
            print(f"export_models: exporting {name} failed: {type(e).__name__}: {e}", file=sys.stderr)
            failed += 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
