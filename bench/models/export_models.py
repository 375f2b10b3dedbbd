#!/usr/bin/python3
"""Exports the whole-model peer benchmark's models: for each, NAME.onnx (static shapes, batch 1,
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
    "bert_base_128": lambda: bert_base(128),
    "bert_base_256": lambda: bert_base(256),
}


def randomize_batch_norms(model):
    for m in model.modules():
        if isinstance(m, nn.BatchNorm2d):
            m.running_mean.normal_(0, 0.1)
            m.running_var.uniform_(0.5, 1.5)
            m.weight.data.uniform_(0.5, 1.5)
            m.bias.data.normal_(0, 0.1)


def export(name, out_dir, opset):
    onnx_path = os.path.join(out_dir, name + ".onnx")
    pt_path = os.path.join(out_dir, name + ".pt")
    if os.path.exists(onnx_path) and os.path.exists(pt_path):
        print(f"{name}: present in {out_dir}")
        return
    torch.manual_seed(SEED)
    model, shape = MODELS[name]()
    model.eval()
    randomize_batch_norms(model)
    x = torch.randn(*shape)
    if not os.path.exists(onnx_path):
        # In eval mode without gradients nn.TransformerEncoderLayer runs a fused fast path
        # (aten::_transformer_encoder_layer_fwd) that the ONNX exporter cannot export; with
        # gradients enabled it takes its plain path (the same math), which exports.
        with torch.enable_grad():
            tmp = onnx_path + ".tmp"
            torch.onnx.export(model, (x,), tmp, input_names=["input"], output_names=["output"],
                              opset_version=opset, do_constant_folding=True)
            os.replace(tmp, onnx_path)
    if not os.path.exists(pt_path):
        # Traced without gradients, so PyTorch runs its own fastest inference path.
        with torch.no_grad():
            frozen = torch.jit.freeze(torch.jit.trace(model, (x,)))
            tmp = pt_path + ".tmp"
            torch.jit.save(frozen, tmp)
            os.replace(tmp, pt_path)
    print(f"{name}: wrote {onnx_path} (opset {opset}) and {pt_path}, input {'x'.join(map(str, shape))}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out_dir")
    ap.add_argument("--models", nargs="+", default=list(MODELS), choices=list(MODELS), metavar="NAME")
    ap.add_argument("--opset", type=int, default=OPSET, choices=range(13, 18))
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
