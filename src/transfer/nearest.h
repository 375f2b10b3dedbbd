// Transfer across neighbouring kernel classes, for kernels no same-class source covers (e.g. a
// convolution with a residual add and relu when the bank only holds convolutions with relu).
//
// Padding is no part of a class here: TVM's convolutions and pools carry their padding, so the
// paper's kernel classes are ttune's with the padding stages taken out, and "pad+conv2d_nhwc+add"
// and "conv2d_nhwc+add" are one class for transfer (distance 0; every mode takes them).
// Two classes are neighbours when they share the anchor -- the class's first operator other than
// padding, e.g. "conv2d_nhwc" -- and differ only in the epilogue after it; their distance is the
// edit distance of the epilogues' operator lists.
// A schedule of a neighbour class is remapped onto the target kernel by stage: inlining steps of
// stages the target lacks are dropped, the source's output stage (when the target lacks it)
// becomes the target's output stage, the target's extra element-wise stages are inlined, and
// step references (follow splits) are renumbered; steps of a padding stage the target lacks are
// dropped. The result must replay on the target.
#pragma once

#include <limits>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "schedule/step.h"
#include "support/expected.h"
#include "te/compute_dag.h"

namespace ttune::transfer {

// Edit distance between the epilogues of two neighbour classes (class names): 0 when they differ
// only in padding, -1 when they are not neighbours (another anchor) or are the same class.
int classDistance(const std::string& a, const std::string& b);

// The ids of `known` (class id -> name) other than `class_id` whose classes differ from
// `class_name` only in padding, in id order.
std::vector<std::string> paddingVariants(const std::string& class_id, const std::string& class_name,
                                         const std::map<std::string, std::string>& known);

// The classes of `known` (class id -> name) at the smallest distance from `class_name` that is at
// most max_distance, in id order; empty when none. By default any distance: the epilogue's
// element-wise stages are inlined into the anchor, whose schedule is what carries over, and every
// candidate is measured and kept only when it beats the default (mobilebert's
// dense+add+mul+add+add+mul+add is 4 edits from bert_base's dense+add+add, and with a cap of 2 its
// 24 instances stayed at the basic default, 50x slower than tuned).
std::vector<std::string> nearestClasses(const std::string& class_name, const std::map<std::string, std::string>& known,
                                        int max_distance = std::numeric_limits<int>::max());

// Steps of a neighbour class's schedule remapped onto `dag` (above); fails with the reason when
// they cannot be.
Expected<std::vector<schedule::Step>> remapStages(const std::vector<schedule::Step>& steps,
                                                  const std::shared_ptr<const te::ComputeDAG>& dag);

}  // namespace ttune::transfer
