// Running a `ttune` command line in the test process (cli::run), optionally capturing what it
// prints on stdout.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cli/cli.h"

namespace ttune::cli::testing {

inline int runCli(std::vector<std::string> args, std::string* out = nullptr) {
  args.insert(args.begin(), "ttune");
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  if (out) ::testing::internal::CaptureStdout();
  int rc = run(static_cast<int>(argv.size()), argv.data());
  if (out) *out = ::testing::internal::GetCapturedStdout();
  return rc;
}

}  // namespace ttune::cli::testing
