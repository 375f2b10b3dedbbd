#include "cli/range_run.h"

#include <cstdio>
#include <iostream>

#include "cli/bank_access.h"
#include "cli/commands.h"
#include "cli/output.h"
#include "cli/target_option.h"
#include "executor/latency.h"
#include "executor/range_model.h"
#include "runtime/thread_pool.h"
#include "support/error.h"
#include "support/strings.h"
#include "support/timer.h"

namespace ttune::cli {

namespace {

// The sizes to run at: each --at point (ranges it does not name at their largest), or the
// ranges' smallest sizes, two between and their largest, all ranges moving together.
std::vector<std::vector<int64_t>> runPoints(const RangeRunArgs& a, const std::vector<graph::SizeRange>& ranges) {
  std::vector<std::vector<int64_t>> out;
  for (const std::string& at : a.at) {
    std::vector<int64_t> p;
    for (const graph::SizeRange& r : ranges) p.push_back(r.max);
    for (const std::string& item : split(at, ',')) {
      size_t eq = item.find('=');
      auto v = eq == std::string::npos ? std::nullopt : parseInt(item.substr(eq + 1));
      size_t r = 0;
      while (r < ranges.size() && (eq == std::string::npos || ranges[r].name != item.substr(0, eq))) ++r;
      if (!v || r == ranges.size()) fail("--at takes name=size,... over the --dim ranges, got '", at, "'");
      p[r] = *v;
    }
    out.push_back(p);
  }
  if (!out.empty()) return out;
  for (double f : {0.0, 0.25, 0.6, 1.0}) {
    std::vector<int64_t> p;
    for (const graph::SizeRange& r : ranges) p.push_back(r.min + static_cast<int64_t>(f * double(r.max - r.min)));
    if (std::find(out.begin(), out.end(), p) == out.end()) out.push_back(p);
  }
  return out;
}

// The bank's or records' schedules of a bucket's kernels: those of the same kernels at the
// bucket's largest sizes.
executor::ScheduleProvider largestSizeSchedules(executor::ScheduleProvider inner, const graph::RangeModel& m) {
  if (!inner) return inner;
  std::map<std::string, std::string> largest;
  for (size_t k = 0; k < m.kernels.size(); ++k) largest[m.kernels[k].workload_key] = m.largest_keys[k];
  return [inner, largest](const graph::Kernel& k) {
    graph::Kernel at_largest = k;
    auto it = largest.find(k.workload_key);
    if (it != largest.end()) at_largest.workload_key = it->second;
    return inner(at_largest);
  };
}

std::string fmt2(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.2f", v);
  return b;
}

std::string rangesText(const std::vector<graph::SizeRange>& ranges) {
  std::string s;
  for (size_t r = 0; r < ranges.size(); ++r)
    s += (r ? "," : "") + ranges[r].name + "=" + std::to_string(ranges[r].min) + ".." + std::to_string(ranges[r].max);
  return s;
}

}  // namespace

std::vector<executor::ScheduleProvider> bucketSchedules(const std::string& records,
                                                        const std::optional<std::string>& db, const ModelSource& src,
                                                        const std::vector<graph::RangeModel>& buckets,
                                                        const schedule::Target& target, const BankUse& use) {
  std::vector<executor::ScheduleProvider> schedules;
  for (const graph::RangeModel& b : buckets) {
    std::vector<int64_t> top;
    for (const graph::SizeRange& r : b.ranges) top.push_back(r.max);
    schedules.push_back(
        largestSizeSchedules(scheduleOption(records, db, modelName(atSizes(src, top)), b.graph, target, use), b));
  }
  return schedules;
}

void runRanges(const RangeRunArgs& a) {
  std::vector<graph::SizeRange> ranges = sizeRanges(a.src);
  executor::ModelOptions opt;
  opt.target = resolveTargetOption(a.target, TargetUse::RunHere);
  opt.baseline = baselineOf(a.src);
  Timer load;
  std::vector<graph::RangeModel> buckets = loadRangeBuckets(a.src, opt.target);
  double analysis_s = load.seconds();
  auto bankUse = [&] { return BankUse{a.src.spec, true, a.json, nullptr, opt.baseline}; };
  std::vector<executor::ScheduleProvider> schedules =
      bucketSchedules(a.records, a.db, a.src, buckets, opt.target, bankUse());
  std::unique_ptr<executor::RangeCompiledModel> model =
      executor::RangeCompiledModel::compile(std::move(buckets), opt, schedules);
  size_t kernels = 0;
  double compile_s = 0;
  int64_t workspace = 0;
  for (size_t b = 0; b < model->numBuckets(); ++b) {
    kernels += model->bucketCompiled(b).kernels().size();
    compile_s += model->bucketCompiled(b).compileSeconds();
    workspace = std::max(workspace, model->bucketCompiled(b).workspaceBytes());
  }

  Json j{{"model", modelName(a.src)},
         {"ranges", Json::array()},
         {"buckets", Json::array()},
         {"kernels", kernels},
         {"analysis_s", analysis_s},
         {"compile_s", compile_s},
         {"workspace_bytes", workspace},
         {"threads", runtime::ThreadPool::global().numThreads()},
         {"target", codegen::describe(opt.target)},
         {"points", Json::array()}};
  for (const graph::SizeRange& r : ranges) j["ranges"].push_back({{"name", r.name}, {"min", r.min}, {"max", r.max}});
  // Each range's cuts ("batch 5..8|4|3|2|1 x seq 257..512|...|1..8"): the buckets are their combinations.
  std::vector<std::vector<std::string>> cuts(ranges.size());
  int scheduled = 0;
  for (size_t b = 0; b < model->numBuckets(); ++b) {
    const std::vector<graph::SizeRange>& br = model->bucketModel(b).ranges;
    int provided = 0;
    for (const executor::KernelStats& k : model->bucketCompiled(b).kernels())
      provided += k.schedule_source == "provided";
    scheduled += provided;
    j["buckets"].push_back({{"sizes", rangesText(br)},
                            {"kernels", model->bucketCompiled(b).kernels().size()},
                            {"scheduled_kernels", provided}});
    for (size_t r = 0; r < br.size(); ++r) {
      std::string c = br[r].min == br[r].max ? std::to_string(br[r].min)
                                             : std::to_string(br[r].min) + ".." + std::to_string(br[r].max);
      if (std::find(cuts[r].begin(), cuts[r].end(), c) == cuts[r].end()) cuts[r].push_back(c);
    }
  }
  std::string bucket_text;
  for (size_t r = 0; r < ranges.size(); ++r)
    bucket_text += (r ? " x " : "") + ranges[r].name + " " + join(cuts[r], "|", [](const std::string& c) { return c; });
  if (!a.json)
    std::cout << modelName(a.src) << ": one model in " << model->numBuckets() << " buckets (" << bucket_text
              << (scheduled ? ", " + std::to_string(scheduled) + " kernels scheduled" : "") << "), " << kernels
              << " kernels, checked in " << formatSeconds(analysis_s) << ", compiled in " << formatSeconds(compile_s)
              << "\n";
  bool all_ok = true;
  for (const std::vector<int64_t>& sizes : runPoints(a, ranges)) {
    ModelSource src = atSizes(a.src, sizes);
    for (size_t r = 0; r < ranges.size(); ++r)
      if (sizes[r] < ranges[r].min || sizes[r] > ranges[r].max)
        fail("--at ", graph::sizesText(ranges, sizes), ": ", ranges[r].name, " is outside its range ", ranges[r].min,
             "..", ranges[r].max);
    graph::Graph g = loadModel(src, opt.target);
    executor::ModelOptions one = opt;
    one.schedules = scheduleOption(a.records, a.db, modelName(src), g, opt.target, bankUse());
    executor::CompiledModel single = executor::CompiledModel::compile(g, one);
    std::vector<runtime::NDArray> inputs = sampleInputs(src, g, a.seed);
    std::vector<runtime::NDArray> got = model->run(inputs), want = single.run(inputs);
    runtime::Comparison worst;
    for (size_t o = 0; o < want.size(); ++o) {
      runtime::Comparison c = runtime::compare(got[o], want[o], 1e-3, 1e-3);
      worst.max_abs_err = std::max(worst.max_abs_err, c.max_abs_err);
      worst.mismatches += c.mismatches;
      worst.non_finite += c.non_finite;
    }
    Json p{{"sizes", graph::sizesText(ranges, sizes)}, {"max_abs_err", worst.max_abs_err}, {"agrees", worst.ok()}};
    std::string line = "  " + graph::sizesText(ranges, sizes) + ": " + (worst.ok() ? "agrees" : "DIFFERS") +
                       " with the model compiled for this size (max abs error " + formatDouble(worst.max_abs_err) + ")";
    all_ok &= worst.ok();
    if (a.bench) {
      executor::Interleave how;
      how.single_run_from_s = executor::kSingleRunFromS;
      executor::ModelTimings t =
          executor::timeRuns({[&] { single.run(inputs); }, [&] { model->run(inputs); }}, measure::modelRounds(), how);
      // Per round t(single) / t(range): its inverse is the range model's time relative to the single one's.
      const measure::Speedup& s = t.speedup[1];
      double rel = 1 / s.median, rel_lo = 1 / s.hi, rel_hi = 1 / s.lo;
      p["single_size_ms"] = 1e3 * t.median_s[0];
      p["range_ms"] = 1e3 * t.median_s[1];
      p["range_over_single"] = {{"median", rel}, {"lo", rel_lo}, {"hi", rel_hi}, {"rounds", s.rounds()}};
      line += "; " + formatSeconds(t.median_s[1]) + " against " + formatSeconds(t.median_s[0]) +
              " compiled for this size alone: " + fmt2(rel) + "x its time (" + fmt2(rel_lo) + "-" + fmt2(rel_hi) +
              ", " + std::to_string(s.rounds()) + " interleaved rounds)";
    }
    j["points"].push_back(p);
    if (!a.json) std::cout << line << "\n";
  }
  if (a.json) printJson(j);
  if (!all_ok) fail("the model compiled for ranges of sizes differs from the model compiled for one size");
}

}  // namespace ttune::cli
