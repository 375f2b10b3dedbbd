// BERT-base for sequence classification as HuggingFace defines it (BertForSequenceClassification,
// bert-base-uncased: 12 layers, hidden 768, 12 heads, FFN 3072, GELU (erf), vocab 30522, 512
// positions, 2 token types, LayerNorm eps 1e-12), batch 1, sequence 256.
//
// Graph: input token ids [1, S] int64 -> reshape [S]; embeddings = gather(word) + gather(position,
// constant ids 0..S-1) + gather(token_type, constant zeros), LayerNorm. Activations are 2-D
// [S, hidden]; a linear layer is Dense(x, W [N, K]) + Add(bias [N]). Attention per layer: Q, K, V
// linears, reshape [S, H, D] and transpose to [H, S, D], scores = MatMul(Q, K, transpose_b)
// [H, S, S], Div by sqrt(D), softmax (last axis), MatMul with V, transpose back and reshape to
// [S, hidden], output linear + residual + LayerNorm; FFN linear + GELU + linear + residual +
// LayerNorm. No attention mask (HF's all-ones default mask adds zero and is folded away). Head:
// pooler = tanh(linear(token 0)), classifier Linear(hidden, 2) -> logits [1, 2].
#pragma once

#include <cstdint>

#include "graph/graph.h"

namespace ttune::models {

struct BertConfig {
  int64_t layers = 12;
  int64_t hidden = 768;
  int64_t heads = 12;
  int64_t intermediate = 3072;
  int64_t seq = 256;
  int64_t vocab = 30522;
  int64_t max_positions = 512;
  int64_t type_vocab = 2;
  int64_t num_labels = 2;
  double layer_norm_eps = 1e-12;
};

graph::Graph buildBert(const BertConfig& cfg, uint64_t seed);

}  // namespace ttune::models
