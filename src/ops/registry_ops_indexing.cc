// The indexing, search and sampling operators of the registry (see registry_ops.cc).
#include <initializer_list>
#include <string>

#include "ops/ops.h"
#include "ops/registry.h"
#include "ops/registry_ops_internal.h"
#include "support/error.h"

namespace ttune::ops::registry_detail {

namespace {

using te::DType;

// The integer parameter `name` as the enumerator it numbers: values lists E's enumerators in the
// order of their numbers, so an integer outside them is the user's error, never an unchecked cast.
template <class E>
E enumParam(const Params& p, const std::string& name, std::initializer_list<E> values) {
  int64_t i = p.integer(name);
  TT_CHECK_ARG(i >= 0 && i < static_cast<int64_t>(values.size()), p.opName(), ": parameter '", name, "' must be 0 .. ",
               values.size() - 1, ", got ", i);
  return values.begin()[i];
}

}  // namespace

// Indexing, argument reductions and searches (indexing.h), sampling (sample.h). The examples'
// reductions are long enough for the default schedule's row (rfactor) and tiled reduction forms.
void addIndexingOps(std::vector<OpEntry>& ops) {
  ops.push_back({"argmax",
                 "index of the largest element along an axis (int64)",
                 {S("shape", "64x1000", "input shape"), I("axis", -1, "reduced axis"), I("keepdims", 1, "0 or 1"),
                  I("select_last_index", 0, "0: first maximum, 1: last")},
                 [](const Params& p) -> OpInstance {
                   te::Tensor x = activation(p, "x", p.shape("shape"));
                   return {{x}, {argmax(x, p.integer("axis"), p.flag("keepdims"), p.flag("select_last_index"))}};
                 },
                 {"shape=3x40", "select_last_index=1"}});
  ops.push_back({"cumsum",
                 "running sum along an axis",
                 {S("shape", "8x1024", "input shape"), I("axis", -1, "summed axis"), I("exclusive", 0, "0 or 1"),
                  I("reverse", 0, "0 or 1")},
                 [](const Params& p) -> OpInstance {
                   te::Tensor x = activation(p, "x", p.shape("shape"));
                   return {{x}, {cumsum(x, p.integer("axis"), p.flag("exclusive"), p.flag("reverse"))}};
                 },
                 {"shape=4x33", "exclusive=1"}});
  ops.push_back({"topk",
                 "indices of the k largest (smallest) elements along an axis, sorted (int64)",
                 {S("shape", "16x1000", "input shape"), I("k", 5, "how many"), I("axis", -1, "searched axis"),
                  I("largest", 1, "1: largest, 0: smallest")},
                 [](const Params& p) -> OpInstance {
                   te::Tensor x = activation(p, "x", p.shape("shape"));
                   return {{x}, {topk_indices(x, p.integer("k"), p.integer("axis"), p.flag("largest"))}};
                 },
                 {"shape=5x20", "k=3"}});
  ops.push_back({"gather_elements",
                 "ONNX GatherElements",
                 {S("data_shape", "64x256", "data shape"), S("indices_shape", "64x32", "indices shape"),
                  I("axis", 1, "indexed axis")},
                 [](const Params& p) -> OpInstance {
                   te::Tensor data = activation(p, "data", p.shape("data_shape"));
                   te::Tensor ids = activation(p, "indices", p.shape("indices_shape"), DType::Int64);
                   return {{data, ids}, {gather_elements(data, ids, p.integer("axis"))}};
                 },
                 {"data_shape=6x5", "indices_shape=4x5", "axis=0"}});
  ops.push_back({"scatter_elements",
                 "ONNX ScatterElements (reduction 0: none, 1: add, 2: mul)",
                 {S("data_shape", "64x256", "data shape"), S("indices_shape", "64x32", "indices (and updates) shape"),
                  I("axis", 1, "indexed axis"), I("reduction", 0, "0 none, 1 add, 2 mul")},
                 [](const Params& p) -> OpInstance {
                   ScatterReduction red = enumParam(
                       p, "reduction", {ScatterReduction::None, ScatterReduction::Add, ScatterReduction::Mul});
                   te::Tensor data = activation(p, "data", p.shape("data_shape"));
                   te::Tensor ids = activation(p, "indices", p.shape("indices_shape"), DType::Int64);
                   te::Tensor up = activation(p, "updates", p.shape("indices_shape"));
                   return {{data, ids, up}, {scatter_elements(data, ids, up, p.integer("axis"), red)}};
                 },
                 {"data_shape=5x20", "indices_shape=5x17", "reduction=1"}});
  ops.push_back({"one_hot",
                 "ONNX OneHot with values [off, on]",
                 {S("shape", "64x128", "indices shape"), I("depth", 16, "depth"), I("axis", -1, "new axis")},
                 [](const Params& p) -> OpInstance {
                   te::Tensor ids = activation(p, "indices", p.shape("shape"), DType::Int64);
                   te::Tensor vals = constant(p, "values", {2});
                   return {{ids, vals}, {one_hot(ids, vals, p.integer("depth"), p.integer("axis"))}};
                 },
                 {"shape=3x5", "depth=4", "axis=1"}});
  ops.push_back(
      {"grid_sample",
       "ONNX GridSample (mode 0 bilinear, 1 nearest, 2 bicubic; padding 0 zeros, 1 border, 2 reflection)",
       {S("shape", "1x32x64x64", "input shape NxCxHxW"), S("out", "64x64", "output height x width"),
        I("mode", 0, "0 bilinear, 1 nearest, 2 bicubic"), I("padding", 0, "0 zeros, 1 border, 2 reflection"),
        I("align_corners", 0, "map -1 and 1 to the corner pixels' centers")},
       [](const Params& p) -> OpInstance {
         Shape s = p.shape("shape"), o = p.shape("out");
         TT_CHECK_ARG(s.size() == 4 && o.size() == 2, p.opName(), ": shape must be NxCxHxW and out HxW");
         GridSampleMode mode =
             enumParam(p, "mode", {GridSampleMode::Bilinear, GridSampleMode::Nearest, GridSampleMode::Bicubic});
         GridPadding pad = enumParam(p, "padding", {GridPadding::Zeros, GridPadding::Border, GridPadding::Reflection});
         te::Tensor x = activation(p, "x", s);
         te::Tensor g = activation(p, "grid", {s[0], o[0], o[1], 2});
         return {{x, g}, {grid_sample(x, g, mode, pad, p.integer("align_corners") != 0)}};
       },
       {"shape=1x3x9x7", "out=5x6", "mode=2", "padding=2"}});
  ops.push_back({"roi_align",
                 "ONNX RoiAlign (avg or max over sampling x sampling bilinear samples per bin)",
                 {S("shape", "1x256x50x50", "feature map NxCxHxW"), I("rois", 64, "number of boxes"),
                  S("out", "7x7", "output height x width"), I("sampling", 2, "samples per bin and axis"),
                  F("spatial_scale", 1.0, "box to feature-map scale"), I("max", 0, "1: max mode")},
                 [](const Params& p) -> OpInstance {
                   Shape s = p.shape("shape"), o = p.shape("out");
                   TT_CHECK_ARG(s.size() == 4 && o.size() == 2, p.opName(), ": shape must be NxCxHxW and out HxW");
                   int64_t r = p.integer("rois");
                   te::Tensor x = activation(p, "x", s);
                   te::Tensor boxes = activation(p, "rois", {r, 4});
                   te::Tensor ids = activation(p, "batch_indices", {r}, DType::Int64);
                   RoiAlignParams rp;
                   rp.out_h = o[0], rp.out_w = o[1], rp.sampling_h = rp.sampling_w = p.integer("sampling");
                   rp.spatial_scale = p.real("spatial_scale");
                   rp.max_mode = p.integer("max") != 0;
                   return {{x, boxes, ids}, {roi_align(x, boxes, ids, rp)}};
                 },
                 {"shape=2x3x10x9", "rois=4", "out=3x2", "spatial_scale=4"}});
}

}  // namespace ttune::ops::registry_detail
