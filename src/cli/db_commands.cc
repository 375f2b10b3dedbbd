// `ttune db stats|export|import|runs|check` (and `refresh`, refresh_command.cc): the schedule bank. Without --db the
// default bank is used (store/seed.h: $TTUNE_DB, else $XDG_DATA_HOME/ttune/bank.db), seeded from the shipped bank; an
// explicit --db that does not exist is an error except for `import`, which creates it.
#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>

#include "cli/bank_access.h"
#include "cli/cli.h"
#include "cli/output.h"
#include "cli/target_option.h"
#include "runtime/thread_pool.h"
#include "store/bank.h"
#include "store/seed.h"
#include "support/error.h"
#include "support/strings.h"
#include "transfer/compare.h"

namespace ttune::cli {

namespace {

store::Bank openDb(const std::string& db, bool create) {
  store::OpenOptions opts;
  opts.create = create || db.empty();
  auto bank = store::openBank(db, opts);
  if (!bank.ok()) fail(bank.error());
  return std::move(bank).value();
}

std::string formatBytes(int64_t b) {
  if (b >= (int64_t{1} << 30)) return strFormat("%.1f GiB", static_cast<double>(b) / (1 << 30));
  if (b >= (int64_t{1} << 20)) return strFormat("%.1f MiB", static_cast<double>(b) / (1 << 20));
  if (b >= (int64_t{1} << 10)) return strFormat("%.1f KiB", static_cast<double>(b) / (1 << 10));
  return strFormat("%lld B", static_cast<long long>(b));
}

void showStats(const std::string& db, bool json) {
  store::Bank bank = openDb(db, false);
  store::Stats s = bank.stats();
  Json failed = Json::object();
  int64_t n_failed = 0;
  for (const auto& [kind, n] : s.failed_by_error) {
    failed[kind] = n;
    n_failed += n;
  }
  if (json) {
    printJson({{"path", s.path},
               {"schema_version", s.schema_version},
               {"file_bytes", s.file_bytes},
               {"wal_bytes", s.wal_bytes},
               {"workloads", s.workloads},
               {"classes", s.classes},
               {"records", s.records},
               {"ok_records", s.ok_records},
               {"failed_records", failed},
               {"models", s.models},
               {"runs", s.runs},
               {"seeded_files", s.seeded_files}});
    return;
  }
  std::cout << "bank       " << s.path << " (" << formatBytes(s.file_bytes + s.wal_bytes) << ", schema version "
            << s.schema_version << ")\n";
  std::cout << "workloads  " << s.workloads << " in " << s.classes << " kernel classes\n";
  std::cout << "records    " << s.records << ": " << s.ok_records << " ok, " << n_failed << " failed";
  if (n_failed)
    std::cout << " (" << join(s.failed_by_error, ", ", [](const auto& kv) {
      return std::to_string(kv.second) + " " + kv.first;
    }) << ")";
  std::cout << "\nmodels     " << s.models << "\nruns       " << s.runs << "\n";
}

struct ExportArgs {
  std::string file, db, workload, model, run, target = "host";
  bool ok_only = false, best = false, chosen = false, json = false;
  int threads = 0;
};

// The records of the model's in-model choice made here (`db refresh`, `tune`, `transfer
// --refine`): what `ttune run MODEL --db` runs, defaults included -- the shipped bank's files.
void exportChosen(const ExportArgs& a, const store::Bank& bank) {
  if (a.model.empty()) fail("--chosen needs --model (the model whose choice to export)");
  if (!a.workload.empty() || !a.run.empty() || a.best)
    fail("--chosen exports one model's choice; drop --workload, --run and --best");
  if (a.threads > 0) runtime::ThreadPool::global().setNumThreads(a.threads);
  schedule::TargetInfo here = currentTarget(resolveTargetOption(a.target, TargetUse::Compile));
  std::vector<schedule::Record> recs =
      transfer::inModelChoice(bank, a.model, here).value_or(std::vector<schedule::Record>{});
  if (recs.empty())
    fail("the bank ", bank.path(), " holds no in-model choice for ", a.model, " measured like this (", here.cpu, ", ",
         schedule::isaName(here.isa), ", ", here.threads, " threads); make one with `ttune db refresh ", a.model, "`");
  if (a.file == "-") {
    for (const schedule::Record& r : recs) std::cout << schedule::recordToLine(r) << "\n";
    std::cout.flush();
    return;
  }
  Status s = store::writeRecordsFile(a.file, recs);
  if (!s.ok()) fail(s.error());
  if (a.json)
    printJson({{"file", a.file}, {"records", recs.size()}});
  else
    std::cout << "wrote " << recs.size() << " records to " << a.file << "\n";
}

void exportRecords(const ExportArgs& a) {
  store::Bank bank = openDb(a.db, false);
  if (a.chosen) return exportChosen(a, bank);
  store::RecordQuery q;
  q.workload_key = a.workload;
  q.model = a.model;
  q.run_id = a.run;
  q.ok_only = a.ok_only;
  q.best_per_workload = a.best;
  if (a.file == "-") {
    for (const auto& r : bank.records(q)) std::cout << schedule::recordToLine(r) << "\n";
    std::cout.flush();
    return;
  }
  size_t n = 0;
  Status s = bank.exportJsonl(a.file, q, &n);
  if (!s.ok()) fail(s.error());
  if (a.json)
    printJson({{"file", a.file}, {"records", n}});
  else
    std::cout << "wrote " << n << " records to " << a.file << "\n";
}

void importFiles(const std::vector<std::string>& files, const std::string& db, bool json) {
  store::Bank bank = openDb(db, true);
  Json reports = Json::array();
  std::vector<std::string> errors;
  for (const std::string& f : files) {
    // `ttune db export - --db A | ttune db import - --db B` copies records between banks.
    auto rep = bank.importJsonl(f == "-" ? "/dev/stdin" : f);
    if (!rep.ok()) {
      errors.push_back(rep.error());
      reports.push_back({{"file", f}, {"error", rep.error()}});
      if (!json) std::cerr << "ttune: " << rep.error() << std::endl;
      continue;
    }
    reports.push_back({{"file", f},
                       {"lines", rep->lines},
                       {"imported", rep->imported},
                       {"duplicates", rep->duplicates},
                       {"skipped", rep->skipped},
                       {"problems", rep->problems}});
    if (!json)
      std::cout << f << ": " << rep->imported << " imported, " << rep->duplicates << " already present, "
                << rep->skipped << " invalid lines skipped\n";
  }
  if (json) printJson({{"bank", bank.path()}, {"files", reports}});
  if (!errors.empty()) fail(errors.size(), " of ", files.size(), " files could not be imported");
}

void listRuns(const std::string& db, bool json) {
  store::Bank bank = openDb(db, false);
  auto runs = bank.runs();
  if (json) {
    Json arr = Json::array();
    for (const auto& r : runs)
      arr.push_back({{"run_id", r.run_id},
                     {"kind", store::runKindName(r.kind)},
                     {"model", r.model},
                     {"status", store::runStatusName(r.status)},
                     {"started", r.started},
                     {"finished", r.finished ? Json(*r.finished) : Json(nullptr)},
                     {"trials_done", r.trials_done},
                     {"records", r.records},
                     {"wall_s", r.wall_s},
                     {"settings", r.settings}});
    printJson(arr);
    return;
  }
  if (runs.empty()) std::cout << "no runs in " << bank.path() << "\n";
  for (const auto& r : runs)
    std::cout << r.run_id << "  " << r.model << "  " << store::runStatusName(r.status) << "  " << r.records
              << " records, " << formatSeconds(r.wall_s) << "\n";
}

void checkBank(const std::string& db, bool json) {
  store::Bank bank = openDb(db, false);
  Status s = bank.integrityCheck();
  if (json) printJson({{"path", bank.path()}, {"ok", s.ok()}, {"problem", s.ok() ? "" : s.error()}});
  if (!s.ok()) fail(s.error());
  if (!json) std::cout << bank.path() << ": ok\n";
}

}  // namespace

void addDbCommands(CLI::App& app) {
  auto* dbc = app.add_subcommand("db", "The schedule bank: statistics, import and export of records");
  dbc->require_subcommand(1);

  auto* stats = dbc->add_subcommand("stats", "Count the bank's workloads, records, models and runs");
  auto st_db = std::make_shared<std::string>();
  auto st_json = std::make_shared<bool>(false);
  stats->add_option("--db", *st_db, kBankOptionHelp);
  stats->add_flag("--json", *st_json, "Print JSON");
  stats->callback([=] { showStats(*st_db, *st_json); });

  auto* exp = dbc->add_subcommand("export", "Write records as JSON lines (docs/record-format.md)");
  auto ea = std::make_shared<ExportArgs>();
  exp->add_option("file", ea->file, "Output file (- for standard output)")->required();
  exp->add_option("--db", ea->db, kBankOptionHelp);
  exp->add_option("--workload", ea->workload, "Only this workload key");
  exp->add_option("--model", ea->model, "Only records produced for this model");
  exp->add_option("--run", ea->run, "Only records of this tuning or transfer run");
  exp->add_flag("--ok-only", ea->ok_only, "Only successful measurements");
  exp->add_flag("--best", ea->best, "Only the fastest record of each workload");
  exp->add_flag(
      "--chosen", ea->chosen,
      "The model's in-model choice made on this host (db refresh, tune, transfer --refine): what `run --db` uses");
  exp->add_option("--threads", ea->threads,
                  "With --chosen: the thread count the choice was made with (default: all cores)");
  addTargetOption(exp, ea->target);
  exp->add_flag("--json", ea->json, "Print a JSON summary");
  exp->callback([=] { exportRecords(*ea); });

  auto* imp =
      dbc->add_subcommand("import", "Add records from JSON-lines files; invalid lines are skipped with a warning");
  auto files = std::make_shared<std::vector<std::string>>();
  auto im_db = std::make_shared<std::string>();
  auto im_json = std::make_shared<bool>(false);
  imp->add_option("files", *files, "Records files (- for standard input)")->required();
  imp->add_option("--db", *im_db, kBankOptionHelp + std::string(" (created if missing)"));
  imp->add_flag("--json", *im_json, "Print JSON");
  imp->callback([=] { importFiles(*files, *im_db, *im_json); });

  auto* runs = dbc->add_subcommand("runs", "List tuning, transfer and refresh runs");
  auto ru_db = std::make_shared<std::string>();
  auto ru_json = std::make_shared<bool>(false);
  runs->add_option("--db", *ru_db, kBankOptionHelp);
  runs->add_flag("--json", *ru_json, "Print JSON");
  runs->callback([=] { listRuns(*ru_db, *ru_json); });

  auto* check = dbc->add_subcommand(
      "check", "Check the bank's integrity (SQLite's integrity check; PostgreSQL: every row of every table read)");
  auto ch_db = std::make_shared<std::string>();
  auto ch_json = std::make_shared<bool>(false);
  check->add_option("--db", *ch_db, kBankOptionHelp);
  check->add_flag("--json", *ch_json, "Print JSON");
  check->callback([=] { checkBank(*ch_db, *ch_json); });

  addDbRefreshCommand(dbc);
  addDbWorkersCommand(dbc);
}

}  // namespace ttune::cli
