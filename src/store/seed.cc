#include "store/seed.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "support/hash.h"
#include "support/install_layout.h"
#include "support/log.h"

namespace ttune::store {

namespace fs = std::filesystem;

namespace {
std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::string(v) : std::string();
}
}  // namespace

std::string defaultBankPath() {
  if (std::string db = env("TTUNE_DB"); !db.empty()) return db;
  std::string data = env("XDG_DATA_HOME");
  if (data.empty()) {
    std::string home = env("HOME");
    data = (home.empty() ? std::string(".") : home) + "/.local/share";
  }
  return data + "/ttune/bank.db";
}

std::string shippedBankDir() {
  if (std::string dir = env("TTUNE_SHIPPED_BANK"); !dir.empty()) return dir;
  return support::findInPrefixes("share/ttune/bank").string();
}

Expected<std::string> fileContentHash(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Unexpected("cannot read " + path);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) return Unexpected("cannot read " + path);
  return toHex(Hasher().add(std::string_view(text)).value());
}

Status seedFromDirectory(Bank& bank, const std::string& dir, SeedReport* report) {
  SeedReport rep;
  std::error_code ec;
  std::vector<fs::path> files;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code fec;
    if (it->path().extension() == ".jsonl" && it->is_regular_file(fec)) files.push_back(it->path());
  }
  if (ec) return Unexpected("cannot list the shipped bank folder " + dir + ": " + ec.message());
  std::sort(files.begin(), files.end());
  for (const fs::path& f : files) {
    TT_TRY(std::string hash, fileContentHash(f.string()));
    std::string name = f.filename().string();
    if (bank.isSeeded(name, hash)) {
      rep.files_known++;
      continue;
    }
    TT_TRY(ImportReport ir, bank.importJsonl(f.string()));
    TT_TRY_STATUS(bank.markSeeded(name, hash, ir.imported + ir.duplicates));
    logInfo("seeded the bank ", bank.path(), " from ", f.string(), ": ", ir.imported, " records");
    rep.files_imported++;
    rep.records += ir.imported;
    rep.skipped += ir.skipped;
  }
  if (report) *report = rep;
  return okStatus();
}

Expected<Bank> openBank(const std::string& db_option, const OpenOptions& opts) {
  if (!db_option.empty()) return Bank::open(db_option, opts);
  TT_TRY(Bank bank, Bank::open(defaultBankPath(), opts));
  std::string dir = shippedBankDir();
  std::error_code ec;
  if (fs::is_directory(dir, ec)) {
    Status s = seedFromDirectory(bank, dir);
    // A broken shipped file must not make the user's own bank unusable.
    if (!s.ok()) logWarning("could not seed the bank from ", dir, ": ", s.error());
  }
  return bank;
}

}  // namespace ttune::store
