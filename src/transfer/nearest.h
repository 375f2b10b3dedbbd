// Transfer across neighbouring kernel classes, for kernels no same-class source covers (e.g. a
// convolution with a residual add and relu when the bank only holds convolutions with relu).
//
// Two classes are neighbours when they share the anchor -- the class name up to and including
// its first operator other than padding, e.g. "pad+conv2d_nhwc" -- and differ only in the
// epilogue after it; their distance is the edit distance of the epilogues' operator lists.
// A schedule of a neighbour class is remapped onto the target kernel by stage: inlining steps of
// stages the target lacks are dropped, the source's output stage (when the target lacks it)
// becomes the target's output stage, the target's extra element-wise stages are inlined, and
// step references (follow splits) are renumbered. The result must replay on the target.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "schedule/step.h"
#include "support/expected.h"
#include "te/compute_dag.h"

namespace ttune::transfer {

// Edit distance between the epilogues of two neighbour classes (class names), or -1 when they
// are not neighbours (another anchor) or are the same class.
int classDistance(const std::string& a, const std::string& b);

// The classes of `known` (class id -> name) nearest to `class_name` within max_distance, nearest
// first (ties in id order); empty when none.
std::vector<std::string> nearestClasses(const std::string& class_name, const std::map<std::string, std::string>& known,
                                        int max_distance = 2);

// Steps of a neighbour class's schedule remapped onto `dag` (above); fails with the reason when
// they cannot be.
Expected<std::vector<schedule::Step>> remapStages(const std::vector<schedule::Step>& steps,
                                                  const std::shared_ptr<const te::ComputeDAG>& dag);

}  // namespace ttune::transfer
