#include "measure/builder.h"

#include <atomic>
#include <thread>

#include "lower/lower.h"
#include "runtime/thread_pool.h"
#include "schedule/default_schedule.h"
#include "support/timer.h"

namespace ttune::measure {

using schedule::ErrorKind;

std::vector<schedule::Step> defaultScheduleFor(const te::ComputeDAG& dag, const schedule::Target& target) {
  return schedule::defaultSchedule(dag, schedule::defaultScheduleOptions(target));
}

BuildResult buildOne(const MeasureInput& input, const std::string& name, const schedule::Target& target) {
  BuildResult r;
  Timer timer;
  auto state = schedule::State::replay(input.dag, input.steps);
  if (!state.ok()) {
    r.error = ErrorKind::Instantiation;
    r.message = state.error();
    r.build_s = timer.seconds();
    return r;
  }
  lower::LowerOptions lo;
  lo.vector_lanes = target.lanes();
  auto func = lower::lower(*state, name, lo);
  if (!func.ok()) {
    r.error = ErrorKind::Instantiation;
    r.message = func.error();
    r.build_s = timer.seconds();
    return r;
  }
  codegen::CompileOptions co;
  co.target = target;
  auto obj = codegen::compile(*func, co);
  r.build_s = timer.seconds();
  if (!obj.ok()) {
    r.error = ErrorKind::CompileError;
    r.message = obj.error();
    return r;
  }
  r.code = std::move(*obj);
  r.scheduled = state->dagPtr();
  r.layouts = state->weightLayouts();
  return r;
}

Builder::Builder(int threads, double timeout_s, schedule::Target target)
    : threads_(threads > 0 ? threads : runtime::defaultNumThreads()), timeout_s_(timeout_s), target_(std::move(target)) {}

std::vector<BuildResult> Builder::build(const std::vector<MeasureInput>& inputs) {
  std::vector<BuildResult> out(inputs.size());
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i = next++; i < inputs.size(); i = next++) {
      out[i] = buildOne(inputs[i], "kernel", target_);
      if (out[i].ok() && out[i].build_s > timeout_s_) {
        out[i].error = ErrorKind::CompileTimeout;
        out[i].message = "compiling took " + std::to_string(out[i].build_s) + " s, over the " + std::to_string(timeout_s_) + " s limit";
        out[i].code = {};
      }
    }
  };
  int n = std::min<int>(threads_, static_cast<int>(inputs.size()));
  std::vector<std::thread> pool;
  for (int t = 1; t < n; ++t) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
  return out;
}

}  // namespace ttune::measure
