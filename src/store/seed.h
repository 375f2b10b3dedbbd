// Where banks live, and the shipped bank.
//
// The default bank is $TTUNE_DB if set, else $XDG_DATA_HOME/ttune/bank.db, else
// ~/.local/share/ttune/bank.db. The project ships schedules as JSON lines in its bank/ folder
// (overridable with $TTUNE_SHIPPED_BANK); seeding imports every *.jsonl file there once: a file
// is remembered by name and content hash, so seeding again is a no-op and a changed file is
// imported again (its records that are already present are deduplicated).
#pragma once

#include <string>

#include "store/bank.h"
#include "support/expected.h"

namespace ttune::store {

std::string defaultBankPath();
// $TTUNE_SHIPPED_BANK if set, else the repository's bank/ folder (fixed at build time).
std::string shippedBankDir();

struct SeedReport {
  int files_imported = 0;  // files imported by this call
  int files_known = 0;     // files imported by an earlier call
  int64_t records = 0;     // new records
  int64_t skipped = 0;     // invalid lines
};

// Imports every *.jsonl file of `dir` not imported before (in name order). Fails when the folder
// cannot be listed or a file cannot be read; invalid lines only warn.
Status seedFromDirectory(Bank& bank, const std::string& dir, SeedReport* report = nullptr);

// The bank for a command's --db option: `db_option` when given (opened as is), otherwise the
// default bank, seeded from the shipped bank when its folder exists.
Expected<Bank> openBank(const std::string& db_option, const OpenOptions& opts = {});

// FNV-1a-based content hash of a file, 16 hex digits.
Expected<std::string> fileContentHash(const std::string& path);

}  // namespace ttune::store
