#include "support/install_layout.h"

#include <link.h>

#include <cstdint>
#include <string>
#include <system_error>

namespace ttune::support {

namespace fs = std::filesystem;

namespace {

struct Lookup {
  std::uintptr_t address = 0;
  std::string file;
  bool found = false;
};

// dl_iterate_phdr names the object whose loaded segments contain the address; the main program
// comes with an empty name, and /proc/self/exe names it then (dladdr would give argv[0]).
int visitObject(dl_phdr_info* info, size_t, void* data) {
  Lookup* l = static_cast<Lookup*>(data);
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_LOAD) continue;
    const std::uintptr_t begin = info->dlpi_addr + ph.p_vaddr;
    if (l->address >= begin && l->address < begin + ph.p_memsz) {
      l->file = info->dlpi_name ? info->dlpi_name : "";
      l->found = true;
      return 1;
    }
  }
  return 0;
}

}  // namespace

fs::path codeDirectory() {
  static const fs::path dir = [] {
    Lookup l;
    l.address = reinterpret_cast<std::uintptr_t>(&codeDirectory);
    dl_iterate_phdr(visitObject, &l);
    if (!l.found) return fs::path();
    std::error_code ec;
    fs::path file = fs::canonical(l.file.empty() ? fs::path("/proc/self/exe") : fs::path(l.file), ec);
    return ec ? fs::path() : file.parent_path();
  }();
  return dir;
}

std::vector<fs::path> prefixesFrom(const fs::path& dir) {
  std::vector<fs::path> out;
  fs::path d = dir;
  for (int level = 0; level <= 4 && !d.empty(); ++level) {
    out.push_back(d);
    if (d == d.root_path()) break;
    d = d.parent_path();
  }
  return out;
}

std::vector<fs::path> searchPrefixes() { return prefixesFrom(codeDirectory()); }

fs::path findIn(const std::vector<fs::path>& prefixes, const fs::path& relative) {
  std::error_code ec;
  for (const fs::path& p : prefixes)
    if (fs::exists(p / relative, ec)) return p / relative;
  return {};
}

fs::path findInPrefixes(const fs::path& relative) { return findIn(searchPrefixes(), relative); }

fs::path installedFile(const fs::path& relative) {
  fs::path found = findInPrefixes(relative);
  return found.empty() ? codeDirectory().parent_path() / relative : found;
}

}  // namespace ttune::support
