#include "models/mobilebert.h"

#include <string>

#include "models/attention.h"
#include "models/builder.h"

namespace ttune::models {

namespace {

// Gain of the linear that projects a layer's result back onto the 512-wide stream.
constexpr double kMobileBertOutputGain = 0.15;

// NoNorm does not normalize, so the residual streams are kept in range by the gains of the
// linears whose outputs are added to them.
int residualNoNorm(Builder& b, const std::string& prefix, int x, int64_t out, int residual, double gain) {
  int y = b.linear(prefix + ".dense", x, out, true, gain);
  y = b.add(prefix + ".residual", y, residual);
  return b.noNorm(prefix + ".LayerNorm", y);
}

int ffn(Builder& b, const std::string& prefix, int x, const MobileBertConfig& c) {
  int t = b.linear(prefix + ".intermediate.dense", x, c.intermediate, true, kReluGain);
  t = b.relu(prefix + ".intermediate.relu", t);
  return residualNoNorm(b, prefix + ".output", t, c.bottleneck, x, kResidualGain);
}

int encoderLayer(Builder& b, const std::string& p, int h, const MobileBertConfig& c) {
  int layer_input =
      b.noNorm(p + ".bottleneck.input.LayerNorm", b.linear(p + ".bottleneck.input.dense", h, c.bottleneck));
  int shared =
      b.noNorm(p + ".bottleneck.attention.LayerNorm", b.linear(p + ".bottleneck.attention.dense", h, c.bottleneck));
  const std::string s = p + ".attention.self";
  int q = b.linear(s + ".query", shared, c.bottleneck);
  int k = b.linear(s + ".key", shared, c.bottleneck);
  int v = b.linear(s + ".value", h, c.bottleneck);
  int ctx = multiHeadAttention(b, s, q, k, v, c.heads);
  int a = residualNoNorm(b, p + ".attention.output", ctx, c.bottleneck, layer_input, kResidualGain);
  for (int64_t f = 0; f + 1 < c.feedforward_networks; ++f) a = ffn(b, p + ".ffn." + std::to_string(f), a, c);
  int t = b.relu(p + ".intermediate.relu", b.linear(p + ".intermediate.dense", a, c.intermediate, true, kReluGain));
  int o = residualNoNorm(b, p + ".output", t, c.bottleneck, a, kResidualGain);
  return residualNoNorm(b, p + ".output.bottleneck", o, c.hidden, h, kMobileBertOutputGain);
}

}  // namespace

graph::Graph buildMobileBert(const MobileBertConfig& c, uint64_t seed) {
  Builder b(seed);
  int ids = b.input("input_ids", {1, c.seq}, te::DType::Int64);
  ids = b.reshape("embeddings.input_ids.reshape", ids, {c.seq});
  int pos_ids = idsConstant(b, "embeddings.position_ids", c.seq, 1);
  int type_ids = idsConstant(b, "embeddings.token_type_ids", c.seq, 0);
  int e = b.embedding("embeddings.word_embeddings", ids, c.vocab, c.embedding, 1.0);
  // Trigram input: [e[i+1], e[i], e[i-1]] with zero rows past the ends.
  int next = b.pad("embeddings.trigram.next.pad", b.slice("embeddings.trigram.next", e, 0, 1, c.seq), {0, 0}, {1, 0});
  int prev =
      b.pad("embeddings.trigram.prev.pad", b.slice("embeddings.trigram.prev", e, 0, 0, c.seq - 1), {1, 0}, {0, 0});
  int x = b.concat("embeddings.trigram", {next, e, prev}, 1);
  x = b.linear("embeddings.embedding_transformation", x, c.hidden);
  int pos = b.embedding("embeddings.position_embeddings", pos_ids, c.max_positions, c.hidden, 0.5);
  int type = b.embedding("embeddings.token_type_embeddings", type_ids, c.type_vocab, c.hidden, 0.5);
  x = b.add("embeddings.add_position", x, pos);
  x = b.add("embeddings.add_token_type", x, type);
  x = b.noNorm("embeddings.LayerNorm", x);
  for (int64_t i = 0; i < c.layers; ++i) x = encoderLayer(b, "encoder.layer." + std::to_string(i), x, c);
  int first = b.slice("pooler.first_token", x, 0, 0, 1);  // [1, hidden]
  int logits = b.linear("classifier", first, c.num_labels);
  return b.finish({logits});
}

}  // namespace ttune::models
