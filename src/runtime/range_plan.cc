#include "runtime/range_plan.h"

#include <cstring>

#include "runtime/bytes.h"

namespace ttune::runtime {

namespace {

std::string shapeText(const std::vector<int64_t>& s) {
  std::string t = "[";
  for (size_t d = 0; d < s.size(); ++d) t += (d ? ", " : "") + std::to_string(s[d]);
  return t + "]";
}

constexpr int64_t kMaxLength = int64_t(1) << 40;

}  // namespace

int64_t DimFormula::at(const std::vector<int64_t>& sizes) const {
  int64_t v = scale;
  if (a >= 0) v *= sizes[static_cast<size_t>(a)];
  if (b >= 0) v *= sizes[static_cast<size_t>(b)];
  return v + offset;
}

std::vector<int64_t> shapeAt(const std::vector<DimFormula>& dims, const std::vector<int64_t>& sizes) {
  std::vector<int64_t> s;
  s.reserve(dims.size());
  for (const DimFormula& f : dims) s.push_back(f.at(sizes));
  return s;
}

std::string readSizes(const RangePlan& rp, const std::vector<TensorSpec>& inputs,
                      const std::vector<std::vector<int64_t>>& shapes, std::vector<int64_t>& sizes) {
  if (shapes.size() != inputs.size())
    return "the model takes " + std::to_string(inputs.size()) + " inputs, got " + std::to_string(shapes.size());
  for (size_t i = 0; i < inputs.size(); ++i)
    if (shapes[i].size() != rp.input_dims[i].size())
      return "input " + inputs[i].name + " must have rank " + std::to_string(rp.input_dims[i].size()) + ", got " +
             shapeText(shapes[i]);
  sizes.clear();
  for (const SizeParam& s : rp.sizes) {
    int64_t n = shapes[s.input][s.axis];
    if (n < s.min || n > s.max)
      return "size " + s.name + " = " + std::to_string(n) + " (axis " + std::to_string(s.axis) + " of input " +
             inputs[s.input].name + ") is outside its range " + std::to_string(s.min) + ".." + std::to_string(s.max);
    sizes.push_back(n);
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    std::vector<int64_t> want = shapeAt(rp.input_dims[i], sizes);
    if (shapes[i] != want)
      return "input " + inputs[i].name + " must be " + shapeText(want) + " at these sizes, got " + shapeText(shapes[i]);
  }
  return "";
}

std::vector<std::vector<int64_t>> bucketCorners(const RangeBucket& b) {
  size_t n = b.min.size();
  std::vector<std::vector<int64_t>> out;
  for (uint32_t corner = 0; corner < (1u << n); ++corner) {
    std::vector<int64_t> sizes(n);
    for (size_t s = 0; s < n; ++s) sizes[s] = (corner >> s) & 1 ? b.max[s] : b.min[s];
    out.push_back(std::move(sizes));
  }
  return out;
}

size_t bucketOf(const RangePlan& rp, const std::vector<int64_t>& sizes) {
  for (size_t b = 0; b < rp.buckets.size(); ++b) {
    bool in = true;
    for (size_t s = 0; s < sizes.size(); ++s)
      in = in && sizes[s] >= rp.buckets[b].min[s] && sizes[s] <= rp.buckets[b].max[s];
    if (in) return b;
  }
  return rp.buckets.size();
}

void copyCorner(const void* src_v, void* dst_v, const std::vector<int64_t>& small, const std::vector<int64_t>& big,
                int64_t elem, bool into_big) {
  const char* src = static_cast<const char*>(src_v);
  char* dst = static_cast<char*>(dst_v);
  int64_t total = 1;
  for (int64_t d : small) total *= d;
  if (total == 0) return;
  size_t rank = small.size();
  int64_t row_len = rank ? small.back() : 1;
  int64_t row = row_len * elem;
  std::vector<int64_t> idx(rank ? rank - 1 : 0, 0);
  int64_t rows = total / row_len;
  for (int64_t n = 0; n < rows; ++n) {
    int64_t off = 0;
    for (size_t d = 0; d + 1 < rank; ++d) off = off * big[d] + idx[d];
    off = off * (rank ? big.back() : 1) * elem;
    if (into_big)
      std::memcpy(dst + off, src + n * row, static_cast<size_t>(row));
    else
      std::memcpy(dst + n * row, src + off, static_cast<size_t>(row));
    for (size_t d = idx.size(); d-- > 0;) {
      if (++idx[d] < small[d]) break;
      idx[d] = 0;
    }
  }
}

const void* stageInput(const void* data, void* stage, const std::vector<int64_t>& shape,
                       const std::vector<int64_t>& big, int64_t elem_bytes) {
  if (shape == big) return data;
  copyCorner(data, stage, shape, big, elem_bytes, true);
  return stage;
}

void* outputBuffer(void* data, void* stage, const std::vector<int64_t>& shape, const std::vector<int64_t>& big) {
  return shape == big ? data : stage;
}

void unstageOutput(const void* buffer, void* data, const std::vector<int64_t>& shape, const std::vector<int64_t>& big,
                   int64_t elem_bytes) {
  if (buffer != data) copyCorner(buffer, data, shape, big, elem_bytes, false);
}

namespace {

std::string checkFormulas(const std::vector<std::vector<DimFormula>>& dims, const std::vector<TensorSpec>& tensors,
                          size_t num_sizes) {
  if (dims.size() != tensors.size()) return "the dimensions do not match the model's tensors";
  for (size_t t = 0; t < dims.size(); ++t) {
    if (dims[t].size() != tensors[t].shape.size())
      return "tensor " + tensors[t].name + " has dimensions of another rank";
    for (const DimFormula& f : dims[t])
      if (f.a >= static_cast<int64_t>(num_sizes) || f.b >= static_cast<int64_t>(num_sizes) || f.a < -1 || f.b < -1 ||
          f.scale < -kMaxLength || f.scale > kMaxLength || f.offset < -kMaxLength || f.offset > kMaxLength)
        return "a dimension of tensor " + tensors[t].name + " names an unknown size";
  }
  return "";
}

bool sameSpecs(const std::vector<TensorSpec>& a, const std::vector<TensorSpec>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].dtype != b[i].dtype || a[i].shape.size() != b[i].shape.size()) return false;
  return true;
}

// Every size of the bucket gives each tensor a shape inside the bucket plan's buffer: checked at
// the corners of the bucket's ranges (a formula is monotone in each size).
std::string checkCorners(const RangeBucket& b, const std::vector<std::vector<DimFormula>>& dims,
                         const std::vector<TensorSpec>& specs) {
  if (b.min.size() > 16) return "the model has too many sizes";
  for (const std::vector<int64_t>& sizes : bucketCorners(b))
    for (size_t t = 0; t < dims.size(); ++t)
      for (size_t d = 0; d < dims[t].size(); ++d) {
        int64_t v = dims[t][d].at(sizes);
        if (v < 0 || v > specs[t].shape[d])
          return "a bucket's buffer of " + specs[t].name + " is too small for its sizes";
      }
  return "";
}

}  // namespace

std::string validateRangePlan(const RangePlan& rp, const std::vector<TensorSpec>& inputs,
                              const std::vector<TensorSpec>& outputs) {
  if (rp.empty()) return rp.buckets.empty() ? "" : "a range plan without sizes has buckets";
  std::string e = checkFormulas(rp.input_dims, inputs, rp.sizes.size());
  if (e.empty()) e = checkFormulas(rp.output_dims, outputs, rp.sizes.size());
  if (!e.empty()) return e;
  for (size_t s = 0; s < rp.sizes.size(); ++s) {
    const SizeParam& p = rp.sizes[s];
    if (p.min < 0 || p.min > p.max || p.max > kMaxLength) return "size " + p.name + " has a bad range";
    if (p.input >= inputs.size() || p.axis >= inputs[p.input].shape.size() ||
        rp.input_dims[p.input][p.axis] != DimFormula{1, 0, static_cast<int32_t>(s), -1})
      return "size " + p.name + " is not the length of the input axis it names";
  }
  if (rp.buckets.empty()) return "a range plan has no buckets";
  for (const RangeBucket& b : rp.buckets) {
    if (b.min.size() != rp.sizes.size() || b.max.size() != rp.sizes.size()) return "a bucket has other sizes";
    for (size_t s = 0; s < rp.sizes.size(); ++s)
      if (b.min[s] < rp.sizes[s].min || b.min[s] > b.max[s] || b.max[s] > rp.sizes[s].max)
        return "a bucket's sizes are outside the model's ranges";
    if (!sameSpecs(b.plan.inputs, inputs) || !sameSpecs(b.plan.outputs, outputs))
      return "a bucket's inputs or outputs are not the model's";
    if (b.plan.num_sizes != rp.sizes.size()) return "a bucket's plan takes other sizes";
    e = validatePlan(b.plan);
    if (e.empty()) e = checkCorners(b, rp.input_dims, b.plan.inputs);
    if (e.empty()) e = checkCorners(b, rp.output_dims, b.plan.outputs);
    if (!e.empty()) return e;
  }
  return "";
}

namespace {

constexpr uint32_t kRangeMagic = 0x4e475254;  // "TRGN"
constexpr uint32_t kRangeVersion = 1;

void writeDims(ByteWriter& w, const std::vector<std::vector<DimFormula>>& dims) {
  w.u32(static_cast<uint32_t>(dims.size()));
  for (const auto& t : dims) {
    w.u32(static_cast<uint32_t>(t.size()));
    for (const DimFormula& f : t) {
      w.i64(f.scale);
      w.i64(f.offset);
      w.u32(static_cast<uint32_t>(f.a));
      w.u32(static_cast<uint32_t>(f.b));
    }
  }
}

std::vector<std::vector<DimFormula>> readDims(ByteReader& r) {
  std::vector<std::vector<DimFormula>> dims(r.count(4));
  for (auto& t : dims) {
    t.resize(r.count(24));
    for (DimFormula& f : t) {
      f.scale = r.i64();
      f.offset = r.i64();
      f.a = static_cast<int32_t>(r.u32());
      f.b = static_cast<int32_t>(r.u32());
    }
  }
  return dims;
}

}  // namespace

void serializeRangePlan(const RangePlan& rp, std::string& out) {
  ByteWriter w(out);
  w.u32(kRangeMagic);
  w.u32(kRangeVersion);
  w.u32(static_cast<uint32_t>(rp.sizes.size()));
  for (const SizeParam& s : rp.sizes) {
    w.str(s.name);
    w.i64(s.min);
    w.i64(s.max);
    w.u32(s.input);
    w.u32(s.axis);
  }
  writeDims(w, rp.input_dims);
  writeDims(w, rp.output_dims);
  w.u32(static_cast<uint32_t>(rp.buckets.size()));
  for (const RangeBucket& b : rp.buckets) {
    for (size_t s = 0; s < rp.sizes.size(); ++s) {
      w.i64(b.min[s]);
      w.i64(b.max[s]);
    }
    serializePlan(b.plan, out);
  }
}

bool parseRangePlan(const char*& data, const char* end, RangePlan& rp, std::string& error) {
  ByteReader r(data, end);
  if (r.u32() != kRangeMagic) return error = "the model's ranges are damaged", false;
  uint32_t version = r.u32();
  if (version != kRangeVersion)
    return error = "the model's ranges have format version " + std::to_string(version) +
                   ", this runtime reads version " + std::to_string(kRangeVersion),
           false;
  rp.sizes.resize(r.count(28));
  for (SizeParam& s : rp.sizes) {
    s.name = r.str();
    s.min = r.i64();
    s.max = r.i64();
    s.input = r.u32();
    s.axis = r.u32();
  }
  rp.input_dims = readDims(r);
  rp.output_dims = readDims(r);
  rp.buckets.resize(r.count(8));
  const char* p = nullptr;
  for (RangeBucket& b : rp.buckets) {
    b.min.resize(rp.sizes.size());
    b.max.resize(rp.sizes.size());
    for (size_t s = 0; s < rp.sizes.size(); ++s) {
      b.min[s] = r.i64();
      b.max[s] = r.i64();
    }
    if (!r.ok()) break;
    p = r.position();
    if (!parsePlan(p, end, b.plan, error)) return error = "a bucket of the model's ranges: " + error, false;
    r = ByteReader(p, end);
  }
  if (!r.ok()) return error = "the model's ranges are truncated", false;
  data = r.position();
  return true;
}

}  // namespace ttune::runtime
