// dump_kernels: a refactoring check, not a benchmark. Prints, for each model and target given,
// every kernel's class, workload key, default schedule (its steps as JSON), the loop IR that
// schedule lowers to and the same with the full-tile versions code generation adds, in
// partition order. Two builds that must not differ in behaviour (a change that only
// restructures code) print byte-identical dumps:
//
//   dump_kernels --models resnet18,bert_base --targets x86-64-v3,x86-64-v4,aarch64 > before.txt
//   (rebuild)  ... > after.txt; cmp before.txt after.txt
//
// Both baselines (strong, basic) are dumped; zoo models load without running anything.
#include <CLI/CLI.hpp>
#include <iostream>
#include <sstream>

#include "cli/model_loader.h"
#include "codegen/target.h"
#include "graph/fusion.h"
#include "lower/lower.h"
#include "lower/version_tiles.h"
#include "models/zoo.h"
#include "schedule/default_schedule.h"
#include "schedule/record.h"
#include "schedule/state.h"
#include "support/error.h"

using namespace ttune;

namespace {

std::vector<std::string> splitList(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

void dumpModel(const std::string& model, const std::string& target_name, schedule::Baseline baseline) {
  auto target = codegen::resolveTarget(target_name);
  if (!target) fail(target.error());
  cli::ModelSource src;
  src.spec = model;
  src.defaults = baseline;
  const graph::Graph g = cli::loadModel(src, *target);
  const std::vector<graph::Kernel> kernels = graph::partition(g);
  const auto options = schedule::defaultScheduleOptions(*target, baseline);
  const lower::LowerOptions lower_options = lower::lowerOptionsFor(*target);
  std::cout << "=== " << model << " " << target_name << " " << schedule::baselineName(baseline) << " kernels "
            << kernels.size() << "\n";
  for (const graph::Kernel& k : kernels) {
    std::cout << "--- " << k.class_name << " " << k.workload_key << (k.alias_only ? " alias" : "") << "\n";
    if (k.alias_only) continue;
    const std::vector<schedule::Step> steps = schedule::defaultSchedule(*k.dag, options);
    Json list = Json::array();
    for (const schedule::Step& s : steps) list.push_back(schedule::stepToJson(s));
    std::cout << list.dump() << "\n";
    auto state = schedule::State::replay(k.dag, steps);
    if (!state) {
      std::cout << "replay failed: " << state.error() << "\n";
      continue;
    }
    auto lowered = lower::lower(*state, "kernel", lower_options);
    if (!lowered) {
      std::cout << "lower failed: " << lowered.error() << "\n";
      continue;
    }
    std::cout << lower::toString(*lowered);
    // What codegen::compile emits: the loop IR with full-tile versions.
    lower::LoweredFunc versioned = *lowered;
    versioned.body = lower::versionTiles(lowered->body);
    std::cout << "versioned:\n" << lower::toString(versioned);
  }
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Print every kernel's default schedule and loop IR (diff two builds of a refactoring)"};
  std::string models, targets = "x86-64-v3,x86-64-v4,aarch64";
  app.add_option("--models", models, "Comma-separated zoo models or .onnx files (default: the whole zoo)");
  app.add_option("--targets", targets, "Comma-separated targets");
  CLI11_PARSE(app, argc, argv);
  try {
    std::vector<std::string> model_list = splitList(models);
    if (model_list.empty())
      for (const models::ModelInfo& e : models::zoo()) model_list.push_back(e.name);
    for (const std::string& t : splitList(targets))
      for (const std::string& m : model_list)
        for (schedule::Baseline b : {schedule::Baseline::Strong, schedule::Baseline::Basic}) dumpModel(m, t, b);
  } catch (const Error& e) {
    std::cerr << "dump_kernels: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
