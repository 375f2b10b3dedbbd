// The built-in model zoo: the eleven models of the transfer-tuning paper (PACT 2022) at batch 1,
// then two grouped-convolution networks (resnext50_32x4d, regnet_y_400mf: a kernel class the
// paper's models do not have, which the main job transfer-tunes), built in code as graph::Graph
// with deterministic seeded weights. CNNs follow torchvision
// (NCHW input [1, 3, 224, 224] float32, output logits [1, 1000]); the two BERTs follow
// HuggingFace sequence classification (input token ids [1, 256] int64, output logits [1, 2]).
//
// Invariants: buildModel(name, seed) is a pure function of its arguments — two builds with one
// seed have identical structure and bit-identical weights; zoo() lists the models in the paper's
// order; the graphs use only the operator conventions documented in models/builder.h.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "graph/graph.h"

namespace ttune::models {

struct ModelInfo {
  std::string name;     // zoo key, e.g. "resnet50"
  std::string summary;  // one line: source definition and architecture
  // The single graph input.
  std::string input_name;
  te::Shape input_shape;
  te::DType input_dtype = te::DType::Float32;
  // Meaningful input values: uniform floats in [lo, hi), or integer ids in [lo, hi).
  double input_lo = -1.0, input_hi = 1.0;
  te::Shape output_shape;
  bool paper = true;  // one of the transfer-tuning paper's eleven models
};

// Every model: the paper's eleven in its order, then the others.
const std::vector<ModelInfo>& zoo();
// The paper's eleven models, in its order (the experiment's default set).
std::vector<std::string> paperModels();
bool isZooModel(const std::string& name);
// Throws Error("unknown model 'x'; run `ttune models` ...") for a name not in the zoo.
const ModelInfo& modelInfo(const std::string& name);
graph::Graph buildModel(const std::string& name, uint64_t seed = 0);

// ---- statistics (listings and tests) -----------------------------------------------------------

// Trainable parameters as PyTorch / HuggingFace count them: elements of float constants, except
// batch-norm running statistics (inputs 3 and 4 of a batch_norm node, buffers in PyTorch) and
// one-element constants (scalars such as the attention scale). Integer constants (position ids)
// are not parameters either.
int64_t parameterCount(const graph::Graph& g);
// Number of nodes per operator name (graph::opName, e.g. "conv2d_nchw", "dense").
std::map<std::string, int> opHistogram(const graph::Graph& g);
// Convolution nodes of any kind (dense, grouped, depthwise).
int convCount(const graph::Graph& g);
// Floating-point operations of one inference (te op FLOPs summed over all nodes; a multiply-add
// counts 2).
double graphFlops(const graph::Graph& g);

}  // namespace ttune::models
