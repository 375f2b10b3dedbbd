// The schedules shipped in bank/ (what `transfer` starts from on a fresh machine) import without a
// skipped line and still fit the kernels the zoo models partition into today: every record's
// workload exists in its model and its steps replay on that kernel. Fails when an operator,
// fusion or layout change makes the shipped bank stale (re-export it then, see bank/README.md).
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <set>

#include "graph/fusion.h"
#include "graph/passes.h"
#include "models/zoo.h"
#include "schedule/state.h"
#include "store/seed.h"

namespace ttune::store {
namespace {

TEST(ShippedBank, ImportsCleanlyAndFitsTheZooKernels) {
  std::filesystem::path dir = std::filesystem::temp_directory_path() / ("ttune-shipped-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  {
    auto bank = Bank::open((dir / "bank.db").string());
    ASSERT_TRUE(bank.ok()) << bank.error();
    SeedReport rep;
    Status st = seedFromDirectory(*bank, shippedBankDir(), &rep);
    ASSERT_TRUE(st.ok()) << st.error();
    EXPECT_GE(rep.files_imported, 3);
    EXPECT_EQ(rep.skipped, 0);
    std::vector<schedule::Record> records = bank->records({});
    ASSERT_GT(records.size(), 50u);

    // model -> key -> dag; a basic-baseline record's model as the paper's conditions load it
    // (direct convolutions).
    std::map<std::string, std::map<std::string, std::shared_ptr<const te::ComputeDAG>>> kernels;
    std::set<std::pair<std::string, bool>> models;
    for (const schedule::Record& r : records)
      models.insert({r.provenance.model, r.provenance.baseline == schedule::Baseline::Basic});
    for (const auto& [m, basic] : models) {
      graph::Graph g = models::buildModel(m);
      graph::optimizeGraph(g, {.winograd = !basic});
      for (const graph::Kernel& k : graph::partition(g)) kernels[m][k.workload_key] = k.dag;
    }
    for (const schedule::Record& r : records) {
      SCOPED_TRACE(r.provenance.model + " " + r.workload_key + " " + r.kernel_class);
      auto it = kernels[r.provenance.model].find(r.workload_key);
      ASSERT_NE(it, kernels[r.provenance.model].end()) << "no such kernel in the model any more";
      auto state = schedule::State::replay(it->second, r.steps);
      EXPECT_TRUE(state.ok()) << (state.ok() ? "" : state.error());
      EXPECT_TRUE(r.result.ok());
    }
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace ttune::store
