// MobileBERT for sequence classification as HuggingFace defines it for google/mobilebert-uncased
// (MobileBertForSequenceClassification): 24 layers, hidden 512, bottleneck (true hidden) 128, 4
// heads, intermediate 512 with num_feedforward_networks = 4, embedding size 128 with the trigram
// input, NoNorm (x * weight + bias, no statistics), ReLU, key/query shared bottleneck, no
// bottleneck attention, classifier_activation = False (the pooler is token 0 without a dense),
// batch 1, sequence 256.
//
// Graph (activations 2-D [S, features]; linear = Dense + Add bias):
//   embeddings: e = gather(word [V, 128], ids); trigram = concat(pad(e[1:], after 1 row), e,
//     pad(e[:-1], before 1 row)) on features -> [S, 384]; linear to 512; + gather(position) +
//     gather(token_type); NoNorm.
//   layer (input h [S, 512]): layer_input = NoNorm(linear(h, 128)); shared = NoNorm(linear(h, 128));
//     attention with Q = linear(shared), K = linear(shared), V = linear(h) (all 128 wide, 4 heads,
//     scores / sqrt(32)); a = NoNorm(linear(ctx, 128) + layer_input); three FFNs
//     a = NoNorm(linear(relu(linear(a, 512)), 128) + a); then o = NoNorm(linear(relu(linear(a, 512)),
//     128) + a); output h' = NoNorm(linear(o, 512) + h).
//   head: token 0 [1, 512] -> classifier Linear(512, 2) -> logits [1, 2].
#pragma once

#include <cstdint>

#include "graph/graph.h"

namespace ttune::models {

struct MobileBertConfig {
  int64_t layers = 24;
  int64_t hidden = 512;
  int64_t embedding = 128;
  int64_t bottleneck = 128;  // intra_bottleneck_size = true_hidden_size
  int64_t heads = 4;
  int64_t intermediate = 512;
  int64_t feedforward_networks = 4;
  int64_t seq = 256;
  int64_t vocab = 30522;
  int64_t max_positions = 512;
  int64_t type_vocab = 2;
  int64_t num_labels = 2;
};

graph::Graph buildMobileBert(const MobileBertConfig& cfg, uint64_t seed);

}  // namespace ttune::models
