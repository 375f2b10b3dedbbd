#include "cli/cli.h"

#include <CLI/CLI.hpp>
#include <iostream>

#include "cli/output.h"
#include "cli/version.h"
#include "support/error.h"
#include "support/log.h"

namespace ttune::cli {

namespace {
std::string g_command_line;
}

const std::string& commandLine() { return g_command_line; }

int run(int argc, char** argv) {
  g_command_line = "ttune";
  for (int i = 1; i < argc; ++i) g_command_line += std::string(" ") + argv[i];
  CLI::App app{"ttune: a tensor compiler for CPU inference with transfer-tuning"};
  // At most one command; none only with --version (checked after parsing).
  app.require_subcommand(0, 1);
  app.set_help_all_flag("--help-all", "Show help for every command");
  bool verbose = false, version = false, version_json = false;
  app.add_flag("-v,--verbose", verbose, "Print progress details to stderr");
  app.add_flag(
      "-V,--version", version,
      "Print the version, commit, build, LLVM and XGBoost versions, the detected host target and the default bank");
  app.add_flag("--json", version_json, "With --version: print it as one JSON object");
  addOpCommands(app);
  addModelCommands(app);
  addTuneCommand(app);
  addDbCommands(app);
  addTransferCommands(app);
  addCompareCommand(app);
  addExperimentCommand(app);
  addExportCommand(app);
  addWorkerCommand(app);
  try {
    app.parse(argc, argv);
    if (version) {
      const Json v = versionJson();
      if (version_json)
        printJson(v);
      else
        std::cout << versionText(v);
      return 0;
    }
    if (version_json) throw CLI::ValidationError("--json", "given before any command it needs --version");
    if (app.get_subcommands().empty()) throw CLI::RequiredError("A subcommand");
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "ttune: " << e.what() << " (see `ttune --help`)" << std::endl;
    return 2;
  } catch (const Error& e) {
    std::cerr << "ttune: " << e.what() << std::endl;
    return 1;
  }
  return 0;
}

}  // namespace ttune::cli
