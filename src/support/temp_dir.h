// TempDir: a private directory under $TMPDIR (else /tmp), removed with everything in it when the
// object goes away, however the scope ends.
#pragma once

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>

#include "support/error.h"

namespace ttune {

struct TempDir {
  std::string path;
  explicit TempDir(const std::string& prefix) {
    const char* dir = std::getenv("TMPDIR");
    std::string templ = std::string(dir && *dir ? dir : "/tmp") + "/" + prefix + "-XXXXXX";
    if (!mkdtemp(templ.data()))
      throw Error("cannot create a temporary directory " + templ + ": " + std::strerror(errno));
    path = templ;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
};

}  // namespace ttune
