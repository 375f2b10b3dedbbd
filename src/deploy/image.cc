#include "deploy/image.h"

#include "runtime/bytes.h"

namespace ttune::deploy {

namespace {
constexpr uint32_t kImageMagic = 0x474d4954;  // "TIMG"
constexpr uint32_t kImageVersion = 3;         // 2: precision; 3: ranges
}  // namespace

std::string serializeImage(const ModelImage& m) {
  std::string out;
  runtime::ByteWriter w(out);
  w.u32(kImageMagic);
  w.u32(kImageVersion);
  w.str(m.name);
  w.str(m.target);
  w.str(m.precision);
  w.u32(static_cast<uint32_t>(m.cpu_features.size()));
  for (const std::string& f : m.cpu_features) w.str(f);
  w.u64(m.weights_digest);
  runtime::serializePlan(m.plan, out);
  runtime::serializeRangePlan(m.ranges, out);
  return out;
}

bool parseImage(const char* data, size_t size, ModelImage& m, std::string& error) {
  const char* end = data + size;
  runtime::ByteReader r(data, end);
  if (r.u32() != kImageMagic) return error = "the library's model image is damaged", false;
  uint32_t version = r.u32();
  if (version != kImageVersion)
    return error = "the library's model image has version " + std::to_string(version) + ", its runtime reads version " +
                   std::to_string(kImageVersion),
           false;
  m.name = r.str();
  m.target = r.str();
  m.precision = r.str();
  m.cpu_features.resize(r.count(4));
  for (std::string& f : m.cpu_features) f = r.str();
  m.weights_digest = r.u64();
  if (!r.ok()) return error = "the library's model image is truncated", false;
  const char* p = r.position();
  if (!runtime::parsePlan(p, end, m.plan, error)) return false;
  if (!runtime::parseRangePlan(p, end, m.ranges, error)) return false;
  error = runtime::validateRangePlan(m.ranges, m.plan.inputs, m.plan.outputs);
  if (!error.empty()) return error = "the model's ranges are invalid: " + error, false;
  for (const runtime::RangeBucket& b : m.ranges.buckets)
    if (b.plan.num_kernels != m.plan.num_kernels || b.plan.weight_bytes != m.plan.weight_bytes ||
        b.plan.workspace_bytes > m.plan.workspace_bytes)
      return error = "the model's ranges are invalid: a bucket's kernels, weights or workspace are not the model's",
             false;
  if (p != end) return error = "the library's model image has trailing bytes", false;
  return true;
}

}  // namespace ttune::deploy
