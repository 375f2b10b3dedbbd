// The `ttune` command line. Commands are registered by area (op_commands.cc, later model and
// tuning commands); main() in tools/ttune only calls run(). Every command can print JSON
// (--json); user errors print one line "ttune: <what is wrong>" and exit with status 1, bad
// command-line usage exits with status 2.
#pragma once

#include <string>

namespace CLI {
class App;
}

namespace ttune::cli {

int run(int argc, char** argv);
// The command line run() was given ("ttune experiment --trials 2000"), for reports.
const std::string& commandLine();

// Registration hooks, one per command area.
void addOpCommands(CLI::App& app);
void addModelCommands(CLI::App& app);
void addTuneCommand(CLI::App& app);
void addDbCommands(CLI::App& app);
// `ttune db refresh` (refresh_command.cc), added by addDbCommands.
void addDbRefreshCommand(CLI::App* db);
void addTransferCommands(CLI::App& app);
void addCompareCommand(CLI::App& app);
void addExperimentCommand(CLI::App& app);
void addExportCommand(CLI::App& app);
// `ttune worker` and `ttune db workers` (worker_commands.cc; the latter added by addDbCommands).
void addWorkerCommand(CLI::App& app);
void addDbWorkersCommand(CLI::App* db);

}  // namespace ttune::cli
