// In-model refinement of schedule choices. A schedule picked by its isolated time (warm caches,
// inputs it just read) can lose its edge inside the model, where a kernel reads what the previous
// kernel left in the caches. Among each kernel's few best candidates (by isolated time) and its
// default schedule, refineInModel picks the one that is fastest inside the compiled model:
// variant j of the model runs every kernel's j-th candidate (its last one when it has fewer),
// all variants are profiled in interleaved rounds (CompiledModel::runProfiled: each kernel's time
// within the model), and each kernel keeps the variant it was fastest in. Per-kernel times inside
// a model are noisy and interact (a kernel's pick changes what the next one finds in cache), so
// the combined choice is then timed as a whole model against the isolated picks, interleaved
// (measure/speedup.h), and replaces them only when faster beyond the spread. The check of the
// result against the default schedules is model_check.h's, which every caller runs after.
// Used after transfer (`ttune transfer --refine`), tuning (`ttune tune`, unless `--no-refine`)
// and refresh.
#pragma once

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "codegen/target.h"
#include "graph/graph.h"
#include "measure/speedup.h"
#include "schedule/record.h"
#include "support/json.h"

namespace ttune::transfer {

struct RefineOptions {
  int candidates = 3;  // best by isolated time per kernel, plus the default schedule
  int rounds = 5;      // profiled runs of each variant, interleaved
  measure::RoundsProtocol protocol = measure::decided(measure::modelRounds());  // in-model picks vs isolated ones
  schedule::Target target = codegen::hostTarget();
  schedule::Baseline baseline = schedule::Baseline::Strong;  // kernels without candidates run these defaults
};

struct RefineResult {
  std::vector<schedule::Record> chosen;  // one per workload that has candidates (may be a default record)
  int changed = 0;                       // kernels whose kept pick differs from the isolated pick
  int variants = 0;
  enum class Choice { Isolated, InModel };
  Choice choice = Choice::Isolated;
  measure::Speedup in_model_speedup;  // the in-model picks over the isolated ones (no rounds: none differ)
};

// The summary fields of a refinement for a command's JSON output (refined_kernels_changed,
// refine_variants, refine_choice, refine_in_model_speedup with its interval).
Json refineJson(const RefineResult& r);

// `records`: measured records of the model's workloads (ok ones are candidates; records with
// provenance.source "default" are the defaults).
RefineResult refineInModel(const graph::Graph& g, const std::vector<schedule::Record>& records,
                           const RefineOptions& options);

}  // namespace ttune::transfer
