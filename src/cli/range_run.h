// `ttune run` of a model with ranges of sizes (`--dim seq=1..512`): compiles one model for the
// ranges (executor/range_model.h) and runs it at sizes in them -- those of --at, or by default
// each range's smallest size, two between and its largest -- against the model compiled for each
// size alone: the outputs must agree, and with --bench both are timed interleaved (the cost of
// serving every size from one model). With --db or --records each bucket's kernels take the
// schedules of the model at the bucket's largest sizes, the single-size models their own.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cli/bank_access.h"
#include "cli/model_loader.h"
#include "executor/executor.h"

namespace ttune::cli {

struct RangeRunArgs {
  ModelSource src;
  std::string target = "host";
  std::string records;
  std::optional<std::string> db;
  std::vector<std::string> at;  // "seq=16,batch=2": one point each; ranges not named at their largest
  bool bench = false, json = false;
  uint64_t seed = 1;
};

// The schedules of each bucket's kernels (`ttune run` and `ttune export` of ranges): those the
// bank or records hold for the model at the bucket's largest sizes (a tuning or transfer run at
// that size; transfer across shapes fills them). None without --records or --db.
std::vector<executor::ScheduleProvider> bucketSchedules(const std::string& records,
                                                        const std::optional<std::string>& db, const ModelSource& src,
                                                        const std::vector<graph::RangeModel>& buckets,
                                                        const schedule::Target& target, const BankUse& use);

// Throws Error (one sentence) when the model cannot be compiled for its ranges, a point is
// outside them, or an output differs from the single-size model's.
void runRanges(const RangeRunArgs& a);

}  // namespace ttune::cli
