// ModelImage: what an exported library knows about its model besides the kernels' machine code
// -- its name, the target its kernels were compiled for and the CPU features they need, the
// digest of the weights it must be given, and the execution plan (for a model compiled for
// ranges of sizes, the plan holds its inputs and outputs at the largest sizes, every bucket's
// weights and kernels and the largest workspace, and `ranges` the buckets' plans). `ttune export` serializes it
// into the library (deploy/embedded.h); the library's runtime parses and checks it at load.
// Standard library only (compiled into exported runtimes).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/plan.h"
#include "runtime/range_plan.h"

namespace ttune::deploy {

struct ModelImage {
  std::string name;
  std::string target;                     // codegen::describe() of the target
  std::string precision = "fp32";         // what its convolutions and products compute in: fp32, bf16
  std::vector<std::string> cpu_features;  // instruction-set features the kernels may use
  uint64_t weights_digest = 0;            // weightsDigest() of the weights, in plan order
  runtime::Plan plan;
  runtime::RangePlan ranges;  // empty for a model of one size
};

std::string serializeImage(const ModelImage& image);
// False with the reason when the bytes are not a complete, valid image.
bool parseImage(const char* data, size_t size, ModelImage& image, std::string& error);

}  // namespace ttune::deploy
