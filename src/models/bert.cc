#include "models/bert.h"

#include <string>

#include "models/attention.h"
#include "models/builder.h"

namespace ttune::models {

namespace {

int encoderLayer(Builder& b, const std::string& p, int x, const BertConfig& c) {
  const std::string a = p + ".attention";
  int q = b.linear(a + ".self.query", x, c.hidden);
  int k = b.linear(a + ".self.key", x, c.hidden);
  int v = b.linear(a + ".self.value", x, c.hidden);
  int ctx = multiHeadAttention(b, a + ".self", q, k, v, c.heads);
  int y = b.linear(a + ".output.dense", ctx, c.hidden);
  y = b.add(a + ".output.residual", y, x);
  int attn = b.layerNorm(a + ".output.LayerNorm", y, c.layer_norm_eps);
  int h = b.linear(p + ".intermediate.dense", attn, c.intermediate, true, kReluGain);
  h = b.gelu(p + ".intermediate.gelu", h);
  h = b.linear(p + ".output.dense", h, c.hidden);
  h = b.add(p + ".output.residual", h, attn);
  return b.layerNorm(p + ".output.LayerNorm", h, c.layer_norm_eps);
}

}  // namespace

graph::Graph buildBert(const BertConfig& c, uint64_t seed) {
  Builder b(seed);
  int ids = b.input("input_ids", {1, c.seq}, te::DType::Int64);
  ids = b.reshape("embeddings.input_ids.reshape", ids, {c.seq});
  int pos_ids = idsConstant(b, "embeddings.position_ids", c.seq, 1);
  int type_ids = idsConstant(b, "embeddings.token_type_ids", c.seq, 0);
  int x = b.embedding("embeddings.word_embeddings", ids, c.vocab, c.hidden, 1.0);
  int pos = b.embedding("embeddings.position_embeddings", pos_ids, c.max_positions, c.hidden, 0.5);
  int type = b.embedding("embeddings.token_type_embeddings", type_ids, c.type_vocab, c.hidden, 0.5);
  x = b.add("embeddings.add_position", x, pos);
  x = b.add("embeddings.add_token_type", x, type);
  x = b.layerNorm("embeddings.LayerNorm", x, c.layer_norm_eps);
  for (int64_t i = 0; i < c.layers; ++i) x = encoderLayer(b, "encoder.layer." + std::to_string(i), x, c);
  int first = b.slice("pooler.first_token", x, 0, 0, 1);  // [1, hidden]
  int pooled = b.tanh("pooler.activation", b.linear("pooler.dense", first, c.hidden));
  int logits = b.linear("classifier", pooled, c.num_labels);
  return b.finish({logits});
}

}  // namespace ttune::models
