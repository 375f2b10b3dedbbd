#include "models/attention.h"

#include <cmath>

namespace ttune::models {

int idsConstant(Builder& b, const std::string& name, int64_t n, int64_t step) {
  runtime::NDArray ids({n}, te::DType::Int64);
  for (int64_t i = 0; i < n; ++i) ids.as<int64_t>()[i] = i * step;
  return b.constant(name, std::move(ids));
}

int multiHeadAttention(Builder& b, const std::string& prefix, int q, int k, int v, int64_t heads) {
  int64_t seq = b.shape(q)[0];
  int64_t all = b.shape(q)[1];
  int64_t head_dim = all / heads;
  auto split = [&](const std::string& name, int x) {
    int y = b.reshape(prefix + "." + name + ".reshape", x, {seq, heads, head_dim});
    return b.transpose(prefix + "." + name + ".transpose", y, {1, 0, 2});
  };
  int qh = split("query", q), kh = split("key", k), vh = split("value", v);
  int scores = b.matmul(prefix + ".scores", qh, kh, false, true);
  int scale = b.scalar(prefix + ".sqrt_head_dim", std::sqrt(static_cast<double>(head_dim)));
  scores = b.div(prefix + ".scores_scaled", scores, scale);
  int probs = b.softmax(prefix + ".probs", scores, -1);
  int ctx = b.matmul(prefix + ".context", probs, vh);
  ctx = b.transpose(prefix + ".context.transpose", ctx, {1, 0, 2});
  return b.reshape(prefix + ".context.reshape", ctx, {seq, all});
}

}  // namespace ttune::models
