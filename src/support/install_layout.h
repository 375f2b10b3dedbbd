// Where ttune finds the files it needs at run time (the measurement workers, the shipped schedule
// bank): relative to the file that holds this code — the `ttune` executable, a test binary, or the
// Python module — never through a path fixed at build time. An installed tree can therefore be
// moved, and it never reads the source or build tree it came from.
//
// The layout is the install layout (`cmake --install`, docs/install.md), searched upwards from the
// code's directory D: D itself, then its parents (up to four levels), each taken as a prefix P with
//   P/libexec/ttune/ttune-worker            the measurement worker for this machine
//   P/libexec/ttune/aarch64/ttune-worker    the AArch64 worker (run under QEMU or on a device)
//   P/share/ttune/bank                      the shipped bank
// The nearest prefix that has the file wins, so a wheel's own copy (site-packages/ttune/libexec/...)
// wins over a system one. The build tree mirrors the layout with links (CMakeLists.txt), so the
// same rule serves build/bin/ttune, build/python/ttune and an installed prefix.
#pragma once

#include <filesystem>
#include <vector>

namespace ttune::support {

// The directory of the executable or shared object that contains this function, symbolic links
// resolved (found once per process); empty when the loader does not say (never seen on Linux).
std::filesystem::path codeDirectory();

// The prefixes searched from `dir`, nearest first: dir itself and its parents, up to four levels
// and never past the root. searchPrefixes() is prefixesFrom(codeDirectory()).
std::vector<std::filesystem::path> prefixesFrom(const std::filesystem::path& dir);
std::vector<std::filesystem::path> searchPrefixes();

// The first existing P/relative over `prefixes` in their order, or an empty path when none has
// it. findInPrefixes(relative) searches searchPrefixes().
std::filesystem::path findIn(const std::vector<std::filesystem::path>& prefixes, const std::filesystem::path& relative);
std::filesystem::path findInPrefixes(const std::filesystem::path& relative);

// findInPrefixes(relative), else where an installed tree keeps it (the parent of codeDirectory()),
// so that the failure to start or open it names the expected place.
std::filesystem::path installedFile(const std::filesystem::path& relative);

}  // namespace ttune::support
