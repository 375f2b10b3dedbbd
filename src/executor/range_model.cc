#include "executor/range_model.h"

#include <cstring>
#include <map>

#include "support/error.h"
#include "support/hash.h"
#include "te/expr_functor.h"

namespace ttune::executor {

namespace {

// An extent of the sizes as a formula. The range check fits every extent as a constant, a*n + b
// or a*n*m (graph/size_ranges.h), which the formula holds exactly.
runtime::DimFormula formulaOf(const te::Expr& e, const std::vector<te::Var>& vars) {
  std::vector<int32_t> used;
  for (size_t r = 0; r < vars.size(); ++r)
    if (te::usesVar(e, vars[r].get())) used.push_back(static_cast<int32_t>(r));
  TT_ASSERT(used.size() <= 2, "an extent of more than two sizes");
  runtime::DimFormula f;
  std::vector<int64_t> s(vars.size(), 0);
  f.offset = graph::extentAt(e, vars, s);
  for (int32_t r : used) s[static_cast<size_t>(r)] = 1;
  f.scale = graph::extentAt(e, vars, s) - f.offset;
  if (!used.empty()) f.a = used[0];
  if (used.size() == 2) f.b = used[1];
  for (int64_t t : {2, 5, 11}) {
    for (size_t k = 0; k < used.size(); ++k) s[static_cast<size_t>(used[k])] = t + static_cast<int64_t>(k);
    TT_ASSERT(f.at(s) == graph::extentAt(e, vars, s), "an extent that is not scale * sizes + offset");
  }
  return f;
}

std::vector<std::vector<runtime::DimFormula>> formulasOf(const graph::RangeModel& m, const std::vector<int>& values) {
  std::vector<std::vector<runtime::DimFormula>> out;
  for (int v : values) {
    out.emplace_back();
    for (const te::Expr& e : m.value_extents[v]) out.back().push_back(formulaOf(e, m.vars));
  }
  return out;
}

// The two sets of dimensions agree on the bucket's sizes: checked at its corners, which decide
// for a*n + b and a*n*m (a bucket of one size binds it, and its dimensions are constants there).
bool sameInBucket(const std::vector<std::vector<runtime::DimFormula>>& a,
                  const std::vector<std::vector<runtime::DimFormula>>& b, const runtime::RangeBucket& rb) {
  for (const std::vector<int64_t>& sizes : runtime::bucketCorners(rb))
    for (size_t t = 0; t < a.size(); ++t)
      if (runtime::shapeAt(a[t], sizes) != runtime::shapeAt(b[t], sizes)) return false;
  return true;
}

// The sizes, the inputs' and outputs' dimensions and the buckets' ranges of a model (the buckets'
// plans are left to the caller). Throws Error when a size is the length of no input axis or the
// buckets disagree on a dimension.
runtime::RangePlan rangeShapes(const std::vector<graph::RangeModel>& buckets) {
  const graph::RangeModel& first = buckets[0];
  const graph::Graph& g = first.graph;
  runtime::RangePlan rp;
  rp.input_dims = formulasOf(first, g.inputs());
  rp.output_dims = formulasOf(first, g.outputs());
  for (size_t r = 0; r < first.ranges.size(); ++r) {
    runtime::SizeParam p{first.ranges[r].name, first.ranges[r].min, first.ranges[r].max, 0, 0};
    const runtime::DimFormula length{1, 0, static_cast<int32_t>(r), -1};
    bool found = false;
    for (size_t i = 0; i < rp.input_dims.size() && !found; ++i)
      for (size_t d = 0; d < rp.input_dims[i].size() && !found; ++d)
        if (rp.input_dims[i][d] == length) {
          p.input = static_cast<uint32_t>(i);
          p.axis = static_cast<uint32_t>(d);
          found = true;
        }
    if (!found) fail("size ", p.name, " is not the length of any input axis, so a run cannot tell it");
    rp.sizes.push_back(p);
  }
  for (const graph::RangeModel& b : buckets) {
    runtime::RangeBucket rb;
    for (size_t r = 0; r < b.ranges.size(); ++r) {
      rp.sizes[r].min = std::min(rp.sizes[r].min, b.ranges[r].min);
      rp.sizes[r].max = std::max(rp.sizes[r].max, b.ranges[r].max);
      rb.min.push_back(b.ranges[r].min);
      rb.max.push_back(b.ranges[r].max);
    }
    if (!sameInBucket(formulasOf(b, b.graph.inputs()), rp.input_dims, rb) ||
        !sameInBucket(formulasOf(b, b.graph.outputs()), rp.output_dims, rb))
      fail("the inputs' or outputs' shapes follow the sizes differently at ", graph::sizesText(first.ranges, rb.max),
           " than at ", graph::sizesText(first.ranges, rp.buckets[0].max), ": declare narrower ranges");
    rp.buckets.push_back(std::move(rb));
  }
  return rp;
}

ModelOptions bucketOptions(ModelOptions options, const graph::RangeModel& m,
                           const std::vector<ScheduleProvider>& bucket_schedules, size_t b) {
  if (!bucket_schedules.empty()) options.schedules = bucket_schedules[b];
  options.kernels = m.kernels;
  options.size_names.clear();
  for (const graph::SizeRange& r : m.ranges) options.size_names.push_back(r.name);
  return options;
}

// Weights of several buckets, each distinct content once: the same array (shared through the
// kernel cache) or equal bytes (packed again by each bucket's compilation).
class WeightSet {
 public:
  uint32_t add(const runtime::NDArray& w, std::vector<runtime::NDArray>& out) {
    auto by_address = address_.find(w.data());
    if (by_address != address_.end()) return by_address->second;
    std::vector<uint32_t>& same = content_[sampleHash(w)];
    for (uint32_t i : same)
      if (out[i].bytes() == w.bytes() && std::memcmp(out[i].data(), w.data(), static_cast<size_t>(w.bytes())) == 0)
        return address_[w.data()] = i;
    uint32_t i = static_cast<uint32_t>(out.size());
    out.push_back(w);
    same.push_back(i);
    return address_[w.data()] = i;
  }

 private:
  // Size, type and a strided sample of the bytes: equal weights collide, others rarely (memcmp decides).
  static uint64_t sampleHash(const runtime::NDArray& w) {
    Hasher h;
    h.add(w.bytes()).add(static_cast<int>(w.dtype()));
    const auto* p = static_cast<const unsigned char*>(w.data());
    int64_t n = w.bytes(), step = std::max<int64_t>(1, n / 4096);
    for (int64_t i = 0; i < n; i += step) h.add(static_cast<uint64_t>(p[i]));
    return h.value();
  }
  std::map<const void*, uint32_t> address_;
  std::map<uint64_t, std::vector<uint32_t>> content_;
};

// One set of artifacts from each bucket's: kernels (by entry symbol) and weights shared, each
// bucket's plan renumbered into them. `shapes` gets the plans.
ModelArtifacts mergeBuckets(std::vector<ModelArtifacts> parts, runtime::RangePlan shapes) {
  ModelArtifacts out;
  out.target = parts[0].target;
  std::map<std::string, uint32_t> kernel_of;
  WeightSet weights;
  for (size_t b = 0; b < parts.size(); ++b) {
    ModelArtifacts& p = parts[b];
    std::vector<uint32_t> kmap, wmap;
    for (size_t k = 0; k < p.kernels.size(); ++k) {
      auto [it, fresh] = kernel_of.emplace(p.kernels[k].entry, static_cast<uint32_t>(out.kernels.size()));
      if (fresh) {
        out.kernels.push_back(std::move(p.kernels[k]));
        out.stats.push_back(p.stats[k]);
      }
      kmap.push_back(it->second);
    }
    for (const runtime::NDArray& w : p.weights) wmap.push_back(weights.add(w, out.weights));
    runtime::Plan& plan = shapes.buckets[b].plan;
    plan = std::move(p.plan);
    for (runtime::KernelCall& c : plan.calls) c.kernel = kmap[c.kernel];
    for (runtime::BufferRef& r : plan.args)
      if (r.kind == runtime::BufferKind::Weight) r.index = wmap[r.index];
    for (runtime::OutputCopy& c : plan.copies)
      if (c.source.kind == runtime::BufferKind::Weight) c.source.index = wmap[c.source.index];
    out.plan.workspace_bytes = std::max(out.plan.workspace_bytes, plan.workspace_bytes);
  }
  std::vector<int64_t> weight_bytes;
  for (const runtime::NDArray& w : out.weights) weight_bytes.push_back(w.bytes());
  out.plan.inputs = shapes.buckets[0].plan.inputs;
  out.plan.outputs = shapes.buckets[0].plan.outputs;
  for (runtime::RangeBucket& b : shapes.buckets) {
    b.plan.num_kernels = static_cast<uint32_t>(out.kernels.size());
    b.plan.weight_bytes = weight_bytes;
    // The model's tensors at the largest sizes: the largest of each dimension over the buckets.
    for (auto [mine, all] :
         {std::pair{&b.plan.inputs, &out.plan.inputs}, std::pair{&b.plan.outputs, &out.plan.outputs}})
      for (size_t t = 0; t < mine->size(); ++t)
        for (size_t d = 0; d < (*mine)[t].shape.size(); ++d)
          (*all)[t].shape[d] = std::max((*all)[t].shape[d], (*mine)[t].shape[d]);
  }
  out.plan.weight_bytes = std::move(weight_bytes);
  out.plan.num_kernels = static_cast<uint32_t>(out.kernels.size());
  out.ranges = std::move(shapes);
  return out;
}

}  // namespace

std::unique_ptr<RangeCompiledModel> RangeCompiledModel::compile(std::vector<graph::RangeModel> buckets,
                                                                ModelOptions options,
                                                                const std::vector<ScheduleProvider>& bucket_schedules) {
  TT_ASSERT(!buckets.empty(), "a range model without buckets");
  TT_ASSERT(bucket_schedules.empty() || bucket_schedules.size() == buckets.size(), "schedules for other buckets");
  std::unique_ptr<RangeCompiledModel> m(new RangeCompiledModel());
  if (!options.cache) options.cache = makeKernelCache();  // the buckets' packed weights are shared
  m->shapes_ = rangeShapes(buckets);
  for (const runtime::SizeParam& s : m->shapes_.sizes) m->ranges_.push_back({s.name, s.min, s.max});
  for (size_t bi = 0; bi < buckets.size(); ++bi) {
    CompiledModel compiled =
        CompiledModel::compile(buckets[bi].graph, bucketOptions(options, buckets[bi], bucket_schedules, bi));
    auto b = std::make_unique<Bucket>(std::move(buckets[bi]), std::move(compiled));
    const graph::Graph& g = b->model.graph;
    for (int v : g.inputs()) b->in_stage.emplace_back(g.value(v).shape, g.value(v).dtype);
    for (int v : g.outputs()) b->out_stage.emplace_back(g.value(v).shape, g.value(v).dtype);
    m->buckets_.push_back(std::move(b));
  }
  m->input_specs_ = m->buckets_[0]->compiled.plan().inputs;
  return m;
}

ModelArtifacts compileRangeArtifacts(std::vector<graph::RangeModel> buckets, ModelOptions options,
                                     const std::vector<ScheduleProvider>& bucket_schedules) {
  TT_ASSERT(!buckets.empty(), "a range model without buckets");
  runtime::RangePlan shapes = rangeShapes(buckets);
  std::vector<ModelArtifacts> parts;
  for (size_t b = 0; b < buckets.size(); ++b)
    parts.push_back(compileArtifacts(buckets[b].graph, bucketOptions(options, buckets[b], bucket_schedules, b)));
  return mergeBuckets(std::move(parts), std::move(shapes));
}

ModelArtifacts RangeCompiledModel::artifacts() const {
  std::vector<ModelArtifacts> parts;
  for (const auto& b : buckets_) parts.push_back(b->compiled.artifacts());
  return mergeBuckets(std::move(parts), shapes_);
}

size_t RangeCompiledModel::bucketOf(const std::vector<int64_t>& sizes) const {
  size_t b = runtime::bucketOf(shapes_, sizes);
  TT_ASSERT(b < buckets_.size(), "sizes in the ranges that no bucket covers");
  return b;
}

te::Shape RangeCompiledModel::inputShape(size_t i, const std::vector<int64_t>& sizes) const {
  return runtime::shapeAt(shapes_.input_dims[i], sizes);
}

te::Shape RangeCompiledModel::outputShape(size_t o, const std::vector<int64_t>& sizes) const {
  return runtime::shapeAt(shapes_.output_dims[o], sizes);
}

std::vector<int64_t> RangeCompiledModel::sizesOf(const std::vector<te::Shape>& shapes) const {
  std::vector<int64_t> sizes;
  std::string error = runtime::readSizes(shapes_, input_specs_, shapes, sizes);
  if (!error.empty()) fail(error);
  return sizes;
}

std::vector<runtime::NDArray> RangeCompiledModel::run(const std::vector<runtime::NDArray>& inputs) {
  std::vector<te::Shape> shapes;
  for (const runtime::NDArray& a : inputs) shapes.push_back(a.shape());
  std::vector<int64_t> sizes = sizesOf(shapes);
  Bucket& b = *buckets_[bucketOf(sizes)];
  const graph::Graph& g = b.model.graph;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const graph::Value& v = g.value(g.inputs()[i]);
    TT_CHECK_ARG(inputs[i].dtype() == v.dtype, "input ", v.name, " must be ", te::dtypeName(v.dtype), ", got ",
                 te::dtypeName(inputs[i].dtype()));
  }
  std::vector<runtime::NDArray> outs;
  for (size_t o = 0; o < g.outputs().size(); ++o)
    outs.push_back(runtime::NDArray::empty(outputShape(o, sizes), g.value(g.outputs()[o]).dtype));
  std::lock_guard<std::mutex> lock(b.mu);
  std::vector<const void*> in;
  std::vector<void*> out;
  for (size_t i = 0; i < inputs.size(); ++i)
    in.push_back(runtime::stageInput(inputs[i].data(), b.in_stage[i].data(), inputs[i].shape(), b.in_stage[i].shape(),
                                     te::dtypeBytes(inputs[i].dtype())));
  for (size_t o = 0; o < outs.size(); ++o)
    out.push_back(
        runtime::outputBuffer(outs[o].data(), b.out_stage[o].data(), outs[o].shape(), b.out_stage[o].shape()));
  b.compiled.runInto(in, out, sizes);
  for (size_t o = 0; o < outs.size(); ++o)
    runtime::unstageOutput(out[o], outs[o].data(), outs[o].shape(), b.out_stage[o].shape(),
                           te::dtypeBytes(outs[o].dtype()));
  return outs;
}

}  // namespace ttune::executor
