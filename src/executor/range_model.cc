#include "executor/range_model.h"

#include <cstring>

#include "support/error.h"

namespace ttune::executor {

namespace {

// Copies the leading corner `small` of a tensor laid out at `big` between the two layouts, a
// contiguous innermost row at a time.
void copyCorner(const char* src, char* dst, const te::Shape& small, const te::Shape& big, int64_t elem, bool into_big) {
  if (te::shapeElements(small) == 0) return;
  size_t rank = small.size();
  int64_t row = (rank ? small.back() : 1) * elem;
  std::vector<int64_t> idx(rank ? rank - 1 : 0, 0);
  int64_t rows = rank ? te::shapeElements(small) / small.back() : 1;
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

}  // namespace

std::unique_ptr<RangeCompiledModel> RangeCompiledModel::compile(std::vector<graph::RangeModel> buckets,
                                                                ModelOptions options,
                                                                const std::vector<ScheduleProvider>& bucket_schedules) {
  TT_ASSERT(!buckets.empty(), "a range model without buckets");
  TT_ASSERT(bucket_schedules.empty() || bucket_schedules.size() == buckets.size(), "schedules for other buckets");
  std::unique_ptr<RangeCompiledModel> m(new RangeCompiledModel());
  if (!options.cache) options.cache = makeKernelCache();  // the buckets' packed weights are shared
  m->ranges_ = buckets[0].ranges;
  for (size_t bi = 0; bi < buckets.size(); ++bi) {
    graph::RangeModel& rm = buckets[bi];
    for (size_t r = 0; r < rm.ranges.size(); ++r) {
      m->ranges_[r].min = std::min(m->ranges_[r].min, rm.ranges[r].min);
      m->ranges_[r].max = std::max(m->ranges_[r].max, rm.ranges[r].max);
    }
    ModelOptions opt = options;
    if (!bucket_schedules.empty()) opt.schedules = bucket_schedules[bi];
    opt.kernels = rm.kernels;
    opt.size_names.clear();
    for (const graph::SizeRange& r : rm.ranges) opt.size_names.push_back(r.name);
    CompiledModel compiled = CompiledModel::compile(rm.graph, opt);
    auto b = std::make_unique<Bucket>(std::move(rm), std::move(compiled));
    const graph::Graph& g = b->model.graph;
    for (int v : g.inputs()) b->in_stage.emplace_back(g.value(v).shape, g.value(v).dtype);
    for (int v : g.outputs()) b->out_stage.emplace_back(g.value(v).shape, g.value(v).dtype);
    m->buckets_.push_back(std::move(b));
  }
  const graph::RangeModel& first = m->buckets_[0]->model;
  const graph::Graph& g = first.graph;
  for (size_t r = 0; r < first.ranges.size(); ++r) {
    std::optional<std::pair<size_t, size_t>> found;
    for (size_t i = 0; i < g.inputs().size() && !found; ++i) {
      const auto& ext = first.value_extents[g.inputs()[i]];
      for (size_t d = 0; d < ext.size() && !found; ++d) {
        const te::VarRef* v = ext[d].as<te::VarRef>();
        if (v && v->var.same(first.vars[r])) found = std::make_pair(i, d);
      }
    }
    if (!found) fail("size ", first.ranges[r].name, " is not the length of any input axis, so a run cannot tell it");
    m->size_axis_.push_back(*found);
  }
  return m;
}

te::Shape RangeCompiledModel::shapeAt(const Bucket& b, int value, const std::vector<int64_t>& sizes) const {
  te::Shape s;
  for (const te::Expr& e : b.model.value_extents[value]) s.push_back(graph::extentAt(e, b.model.vars, sizes));
  return s;
}

size_t RangeCompiledModel::bucketOf(const std::vector<int64_t>& sizes) const {
  for (size_t b = 0; b < buckets_.size(); ++b) {
    bool in = true;
    for (size_t r = 0; r < sizes.size(); ++r)
      in &= sizes[r] >= buckets_[b]->model.ranges[r].min && sizes[r] <= buckets_[b]->model.ranges[r].max;
    if (in) return b;
  }
  TT_UNREACHABLE("sizes in the ranges that no bucket covers");
}

te::Shape RangeCompiledModel::inputShape(size_t i, const std::vector<int64_t>& sizes) const {
  const Bucket& b = *buckets_[bucketOf(sizes)];
  return shapeAt(b, b.model.graph.inputs()[i], sizes);
}

te::Shape RangeCompiledModel::outputShape(size_t o, const std::vector<int64_t>& sizes) const {
  const Bucket& b = *buckets_[bucketOf(sizes)];
  return shapeAt(b, b.model.graph.outputs()[o], sizes);
}

std::vector<int64_t> RangeCompiledModel::sizesOf(const std::vector<te::Shape>& shapes) const {
  const graph::Graph& g = buckets_[0]->model.graph;
  TT_CHECK_ARG(shapes.size() == g.inputs().size(), "the model takes ", g.inputs().size(), " inputs, got ",
               shapes.size());
  std::vector<int64_t> sizes;
  for (size_t r = 0; r < ranges_.size(); ++r) {
    const graph::SizeRange& range = ranges_[r];
    auto [i, d] = size_axis_[r];
    const std::string& input = g.value(g.inputs()[i]).name;
    TT_CHECK_ARG(shapes[i].size() > d, "input ", input, " must have rank ", g.value(g.inputs()[i]).shape.size(),
                 ", got ", te::shapeToString(shapes[i]));
    int64_t n = shapes[i][d];
    TT_CHECK_ARG(n >= range.min && n <= range.max, "size ", range.name, " = ", n, " (axis ", d, " of input ", input,
                 ") is outside its range ", range.min, "..", range.max);
    sizes.push_back(n);
  }
  for (size_t i = 0; i < shapes.size(); ++i) {
    te::Shape want = inputShape(i, sizes);
    TT_CHECK_ARG(shapes[i] == want, "input ", g.value(g.inputs()[i]).name, " must be ", te::shapeToString(want),
                 " at these sizes, got ", te::shapeToString(shapes[i]));
  }
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
    outs.push_back(runtime::NDArray::empty(shapeAt(b, g.outputs()[o], sizes), g.value(g.outputs()[o]).dtype));
  std::lock_guard<std::mutex> lock(b.mu);
  std::vector<const void*> in;
  std::vector<void*> out;
  for (size_t i = 0; i < inputs.size(); ++i) {
    copyCorner(static_cast<const char*>(inputs[i].data()), static_cast<char*>(b.in_stage[i].data()), inputs[i].shape(),
               b.in_stage[i].shape(), te::dtypeBytes(inputs[i].dtype()), true);
    in.push_back(b.in_stage[i].data());
  }
  for (runtime::NDArray& s : b.out_stage) out.push_back(s.data());
  b.compiled.runInto(in, out, sizes);
  for (size_t o = 0; o < outs.size(); ++o)
    copyCorner(static_cast<const char*>(b.out_stage[o].data()), static_cast<char*>(outs[o].data()), outs[o].shape(),
               b.out_stage[o].shape(), te::dtypeBytes(outs[o].dtype()), false);
  return outs;
}

}  // namespace ttune::executor
