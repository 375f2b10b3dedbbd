// The build-system files an export carries, so that applications consume it as they consume any
// installed library: DIR/NAME-config.cmake (CMake: find_package(NAME CONFIG PATHS DIR) gives the
// imported targets NAME::NAME, the shared library, and NAME::NAME_static when the archive was
// written) and DIR/NAME.pc plus DIR/NAME-static.pc (pkg-config). Both locate the directory from
// their own position (CMAKE_CURRENT_LIST_DIR, ${pcfiledir}), so an export can be moved or copied
// as a whole.
#pragma once

#include <string>

namespace ttune::deploy {

struct PackageInfo {
  std::string name;    // the export's name (a C identifier): libNAME.so, NAME.weights
  std::string source;  // what was exported, for the description
  std::string target;  // the target's name, for the description
  bool static_archive = false;
};

std::string cmakeConfigFile(const PackageInfo& info);
std::string pkgConfigFile(const PackageInfo& info);
std::string pkgConfigStaticFile(const PackageInfo& info);

}  // namespace ttune::deploy
