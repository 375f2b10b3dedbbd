// The `ttune` command line. Commands are registered by area (op_commands.cc, later model and
// tuning commands); main() in tools/ttune only calls run(). Every command can print JSON
// (--json); user errors print one line "ttune: <what is wrong>" and exit with status 1, bad
// command-line usage exits with status 2.
#pragma once

namespace CLI {
class App;
}

namespace ttune::cli {

int run(int argc, char** argv);

// Registration hooks, one per command area.
void addOpCommands(CLI::App& app);
void addModelCommands(CLI::App& app);
void addTuneCommand(CLI::App& app);
void addDbCommands(CLI::App& app);
void addTransferCommands(CLI::App& app);
void addCompareCommand(CLI::App& app);

}  // namespace ttune::cli
