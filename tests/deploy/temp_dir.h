// A fresh directory under the system's temporary directory, removed with everything in it when
// the test is done.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <string>

namespace ttune::deploy::testing {

struct TempDir {
  std::filesystem::path path;
  TempDir() {
    std::string t = (std::filesystem::temp_directory_path() / "ttune-deploy-XXXXXX").string();
    path = mkdtemp(t.data());
  }
  ~TempDir() { std::filesystem::remove_all(path); }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
};

}  // namespace ttune::deploy::testing
