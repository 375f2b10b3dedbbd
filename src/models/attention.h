// Shared transformer pieces for the BERT family on 2-D activations [S, features] (batch 1): the
// constant position / token-type id tensors and multi-head scaled dot-product attention.
#pragma once

#include <cstdint>
#include <string>

#include "models/builder.h"

namespace ttune::models {

// Int64 constant [n] holding 0, 1, ..., n-1 (step 1) or all zeros (step 0).
int idsConstant(Builder& b, const std::string& name, int64_t n, int64_t step);

// context = softmax(Q K^T / sqrt(D)) V for already projected q, k [S, H*D] and v [S, H*D]:
// each is reshaped to [S, H, D] and transposed to [H, S, D]; the result is [S, H*D]. Node names
// start with `prefix` (HF's "encoder.layer.N.attention.self").
int multiHeadAttention(Builder& b, const std::string& prefix, int q, int k, int v, int64_t heads);

}  // namespace ttune::models
