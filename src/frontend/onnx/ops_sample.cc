// ONNX operators that sample their input at positions given by data: GridSample (opset 16) and
// RoiAlign (opsets 10 and 16), one graph op each (ops/sample.h).
#include "frontend/onnx/nn_common.h"
#include "frontend/onnx/op_table.h"

namespace ttune::frontend::detail {

namespace {

void importGridSample(Ctx& c) {
  c.checkAttrs({"align_corners", "mode", "padding_mode"});
  requireFloat(c, 0);
  requireFloat(c, 1);
  if (c.rank(0) != 4) c.fail("only 4-D inputs [N, C, H, W] are supported, got rank ", c.rank(0));
  graph::GridSampleAttrs a;
  a.align_corners = c.attrInt("align_corners", 0) != 0;
  std::string mode = c.attrString("mode", "bilinear");
  if (mode == "bilinear")
    a.mode = ops::GridSampleMode::Bilinear;
  else if (mode == "nearest")
    a.mode = ops::GridSampleMode::Nearest;
  else if (mode == "bicubic")
    a.mode = ops::GridSampleMode::Bicubic;
  else
    c.fail("mode \"", mode, "\" is not one of bilinear, nearest, bicubic");
  std::string padding = c.attrString("padding_mode", "zeros");
  if (padding == "zeros")
    a.padding = ops::GridPadding::Zeros;
  else if (padding == "border")
    a.padding = ops::GridPadding::Border;
  else if (padding == "reflection")
    a.padding = ops::GridPadding::Reflection;
  else
    c.fail("padding_mode \"", padding, "\" is not one of zeros, border, reflection");
  te::Shape x = c.shape(0), g = c.shape(1);
  if (g.size() != 4 || g[0] != x[0] || g[3] != 2)
    c.fail("the grid has shape ", te::shapeToString(g), ", but it must be [", x[0], ", H_out, W_out, 2]");
  c.setOutput(0, c.emit(a, {c.in(0), c.in(1)}));
}

void importRoiAlign(Ctx& c) {
  c.checkAttrs(
      {"coordinate_transformation_mode", "mode", "output_height", "output_width", "sampling_ratio", "spatial_scale"});
  requireFloat(c, 0);
  requireFloat(c, 1);
  if (c.rank(0) != 4) c.fail("the input must be [N, C, H, W], got rank ", c.rank(0));
  te::Shape rois = c.shape(1), idx = c.shape(2);
  if (rois.size() != 2 || rois[1] != 4) c.fail("rois must be [num_rois, 4], got ", te::shapeToString(rois));
  if (idx != te::Shape{rois[0]} || !te::isInt(c.dtype(2)))
    c.fail("batch_indices must be [", rois[0], "] integers, got ", te::dtypeName(c.dtype(2)), te::shapeToString(idx));
  ops::RoiAlignParams p;
  p.out_h = c.attrInt("output_height", 1);
  p.out_w = c.attrInt("output_width", 1);
  if (p.out_h <= 0 || p.out_w <= 0) c.fail("output_height and output_width must be positive");
  int64_t ratio = c.attrInt("sampling_ratio", 0);
  if (ratio <= 0)
    c.fail("sampling_ratio ", ratio,
           " (adaptive: a sample count per box that depends on the boxes) is not supported; "
           "export with a positive sampling_ratio, as torchvision's detection heads use");
  p.sampling_h = p.sampling_w = ratio;
  p.spatial_scale = c.attrFloat("spatial_scale", 1.0);
  std::string mode = c.attrString("mode", "avg");
  if (mode != "avg" && mode != "max") c.fail("mode \"", mode, "\" is not one of avg, max");
  p.max_mode = mode == "max";
  // Opset 10 had no attribute and behaved as "output_half_pixel"; opset 16 defaults to half_pixel.
  std::string ct = c.attrString("coordinate_transformation_mode", c.opset() >= 16 ? "half_pixel" : "output_half_pixel");
  if (ct != "half_pixel" && ct != "output_half_pixel")
    c.fail("coordinate_transformation_mode \"", ct, "\" is not one of half_pixel, output_half_pixel");
  p.half_pixel = ct == "half_pixel";
  c.setOutput(0, c.emit(graph::RoiAlignAttrs{p}, {c.in(0), c.in(1), c.in(2)}));
}

}  // namespace

void addSampleOps(OpTable& t) {
  t["GridSample"] = importGridSample;
  t["RoiAlign"] = importRoiAlign;
}

}  // namespace ttune::frontend::detail
