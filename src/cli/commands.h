// Commands that other commands drive (the experiment runs tuning, transfer and comparisons):
// their arguments and a function each that does the work and returns the JSON summary the command
// prints with --json. Throw ttune::Error with one sentence on user errors.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cli/enum_option.h"
#include "cli/model_loader.h"
#include "deploy/exporter.h"
#include "executor/executor.h"
#include "support/json.h"
#include "transfer/transfer.h"

namespace ttune::transfer {
struct Comparison;
}

namespace ttune::cli {

// Where the tuner's cost model starts (--cost-model): empty, as Ansor's (the experiment's
// from-scratch baseline), or trained first on the bank's records of other models (cost_prior.h).
enum class CostModelStart { Scratch, Bank };
constexpr Spelling<CostModelStart> kCostModelStarts[] = {{CostModelStart::Scratch, "scratch"},
                                                         {CostModelStart::Bank, "bank"}};

struct TuneArgs {
  ModelSource src;
  int64_t trials = 1000;
  double time_budget_min = 0;
  std::string db, target = "host";
  uint64_t seed = 0;
  bool json = false, new_run = false, verbose = false, warm_start = false, refine = false;
  std::string warm_start_run;  // seed the search with one run's records (transfer then tune)
  std::string label;           // free text stored in the run's settings (the experiment's tag)
  std::string workers;         // measure on the bank's workers of this target (cli/fleet.h)
  int threads = 0;
  int measures_per_round = 64;
  int population = 2048;
  int64_t early_stopping = -1;
  CostModelStart cost_model = CostModelStart::Scratch;  // the `tune` command's default is Bank
};
Json tuneModel(const TuneArgs& a);

struct TransferArgs {
  ModelSource src;
  std::string db;
  std::vector<std::string> from;
  transfer::SourceMode sources = transfer::SourceMode::Pool;  // --sources pool | auto
  int64_t budget = 0;
  bool refine = false;
  bool nearest_classes = true;   // kernels without a same-class source try their nearest class
  bool allow_no_source = false;  // run (measuring only defaults) when the bank has no source at all
  int top_k = 0;
  transfer::Rank rank = transfer::Rank::CostModel;  // what ranks the top k: --rank model | prior
  transfer::Adapt adapt = transfer::Adapt::Both;    // --adapt verbatim | adapted | both
  std::string target = "host";
  std::string workers;  // measure on the bank's workers of this target (cli/fleet.h)
  std::string label;
  int threads = 0;
  bool json = false, verbose = false;
};
Json transferModel(const TransferArgs& a);
// The spellings of --sources (pool, auto), --rank (model, prior) and --adapt (verbatim, adapted,
// both); each throws Error naming the option and its spellings.
transfer::SourceMode parseSourceMode(const std::string& name);
transfer::Rank parseRank(const std::string& name);
transfer::Adapt parseAdapt(const std::string& name);

// Seeded random inputs for a model as `ttune run` feeds it without --inputs (token ids in the zoo
// model's vocabulary range).
std::vector<runtime::NDArray> sampleInputs(const ModelSource& src, const graph::Graph& g, uint64_t seed);

// `ttune run --profile`: per distinct kernel (slowest first) the median over `repeat` runs of the
// time spent in all its instances, with its schedule source, share and GFLOP/s:
// {"kernels": [...], "total_ms": ..., "runs": ...}.
Json profileModel(executor::CompiledModel& m, const std::vector<runtime::NDArray>& inputs, int repeat);

// `ttune export`: compiles the model for the target and writes the deployable library, header
// and weights (deploy/exporter.h); returns the summary the command prints.
struct ExportArgs {
  ModelSource src;
  std::string out, name, records, target = "host", compiler;
  std::optional<std::string> db;
  bool static_archive = true, json = false, validate = true;
};
Json exportCommand(const ExportArgs& a);
// Writes an export of compiled artifacts; the summary `ttune export --json` prints.
Json exportArtifacts(const executor::ModelArtifacts& art, const deploy::ExportOptions& options,
                     const std::string& model);

Json comparisonJson(const std::string& model, const transfer::Comparison& c);

}  // namespace ttune::cli
