#include "cli/bank_access.h"

#include <map>

#include "codegen/codegen.h"
#include "runtime/thread_pool.h"
#include "store/seed.h"
#include "transfer/compare.h"
#include "support/error.h"

namespace ttune::cli {

store::Bank openBank(const std::string& path) {
  auto bank = store::openBank(path);
  if (!bank.ok()) fail(bank.error());
  return std::move(*bank);
}

schedule::TargetInfo currentTarget(const schedule::Target& code) {
  return schedule::targetInfo(code, codegen::hostTarget().cpu, runtime::ThreadPool::global().numThreads());
}

void registerModel(store::Bank& bank, const std::string& name, const std::string& spec, const std::vector<graph::Kernel>& kernels) {
  std::vector<store::ModelKernel> mk;
  std::map<std::string, size_t> pos;
  for (const graph::Kernel& k : kernels) {
    auto it = pos.find(k.workload_key);
    if (it != pos.end()) {
      mk[it->second].occurrences++;
      continue;
    }
    pos[k.workload_key] = mk.size();
    mk.push_back({store::workloadInfo(*k.dag, k.class_id, k.class_name), 1});
  }
  Status st = bank.addModel(name, spec, mk);
  if (!st.ok()) fail(st.error());
}

executor::ScheduleProvider bankProvider(const store::Bank& bank, const std::string& model,
                                        const std::vector<graph::Kernel>& kernels, const schedule::Target& code) {
  std::vector<std::string> keys;
  for (const graph::Kernel& k : kernels) keys.push_back(k.workload_key);
  schedule::TargetInfo here = currentTarget(code);
  std::map<std::string, schedule::Record> best = bank.bestRecordsFor(keys, here);
  for (schedule::Record& r : transfer::inModelChoice(bank, model, here)) best[r.workload_key] = std::move(r);
  std::vector<schedule::Record> recs;
  for (auto& [k, r] : best) recs.push_back(r);
  return executor::recordsProvider(recs);
}

executor::ScheduleProvider scheduleOption(const std::string& records, const std::optional<std::string>& db,
                                          const std::string& model, const graph::Graph& g, const schedule::Target& code) {
  if (db) {
    if (!records.empty()) fail("--records and --db both give schedules; use one");
    store::Bank bank = openBank(*db);
    return bankProvider(bank, model, graph::partition(g), code);
  }
  if (records.empty()) return nullptr;
  auto recs = schedule::readRecordsFile(records);
  if (!recs.ok()) fail(recs.error());
  return executor::recordsProvider(*recs);
}

}  // namespace ttune::cli
