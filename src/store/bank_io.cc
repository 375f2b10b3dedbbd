// Bank: records as JSON lines (docs/record-format.md) in and out.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "store/bank_impl.h"

namespace ttune::store {

namespace {

constexpr size_t kImportBatch = 4000;  // records per transaction
constexpr size_t kMaxProblems = 100;

}  // namespace

Expected<ImportReport> Bank::importJsonl(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    return Unexpected("cannot read the records file " + path + ": it is a folder");
  std::ifstream in(path, std::ios::binary);
  if (!in) return Unexpected("cannot read the records file " + path + ": " + std::strerror(errno));
  ImportReport rep;
  rep.path = path;
  std::string line;
  int64_t lineno = 0;
  std::vector<schedule::Record> batch;
  auto flush = [&]() -> Status {
    if (batch.empty()) return okStatus();
    size_t n = 0;
    Status s = writeGuard(*impl_, [&] { n = impl_->insertRecords(batch); });
    if (!s.ok()) return Unexpected("importing " + path + " (before line " + std::to_string(lineno) + "): " + s.error());
    rep.imported += static_cast<int64_t>(n);
    rep.duplicates += static_cast<int64_t>(batch.size() - n);
    batch.clear();
    return okStatus();
  };
  bool first_content = true;
  while (std::getline(in, line)) {
    ++lineno;
    size_t b = line.find_first_not_of(" \t\r");
    if (b == std::string::npos || line[b] == '#') continue;
    if (first_content && line[b] == '[')
      return Unexpected(path +
                        " holds a bare list of steps (a hand-written schedule), not records: it has no workload key to "
                        "store them under");
    first_content = false;
    ++rep.lines;
    auto r = schedule::recordFromLine(line);
    std::string problem;
    if (!r.ok())
      problem = r.error();
    else if (r->workload_key.empty())
      problem = "the record has an empty workload key";
    if (!problem.empty()) {
      std::string msg = path + ":" + std::to_string(lineno) + ": " + problem;
      logWarning(msg, " (line skipped)");
      ++rep.skipped;
      if (rep.problems.size() < kMaxProblems) rep.problems.push_back(msg);
      continue;
    }
    batch.push_back(std::move(*r));
    if (batch.size() >= kImportBatch) TT_TRY_STATUS(flush());
  }
  if (in.bad()) return Unexpected("cannot read the records file " + path + ": " + std::strerror(errno));
  TT_TRY_STATUS(flush());
  return rep;
}

Status writeRecordsFile(const std::string& path, const std::vector<schedule::Record>& records) {
  // Write a sibling file, then rename it over the target: readers never see half a file.
  std::string tmp = path + ".tmp-" + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) return Unexpected("cannot write the records file " + path + ": " + std::strerror(errno));
    try {
      for (const schedule::Record& r : records) out << schedule::recordToLine(r) << '\n';
    } catch (const std::exception& e) {
      std::remove(tmp.c_str());
      return Unexpected("cannot write the records file " + path + ": " + e.what());
    }
    out.flush();
    if (!out) {
      std::remove(tmp.c_str());
      return Unexpected("cannot write the records file " + path + ": " + std::strerror(errno));
    }
  }
  // On disk before the rename: a crash right after must not leave an empty file under the name.
  int fd = ::open(tmp.c_str(), O_RDONLY);
  if (fd < 0 || ::fsync(fd) != 0) {
    int err = errno;
    if (fd >= 0) ::close(fd);
    std::remove(tmp.c_str());
    return Unexpected("cannot write the records file " + path + ": " + std::strerror(err));
  }
  ::close(fd);
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    int err = errno;
    std::remove(tmp.c_str());
    return Unexpected("cannot write the records file " + path + ": " + std::strerror(err));
  }
  // The directory entry too (the rename).
  std::string dir = std::filesystem::path(path).parent_path().string();
  int dfd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY);
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
  return okStatus();
}

Status Bank::exportJsonl(const std::string& path, const RecordQuery& q, size_t* written) const {
  if (written) *written = 0;
  std::vector<StoredRecord> rs;
  Status s = writeGuard(*impl_, [&] { rs = impl_->queryRecords(q); });
  if (!s.ok()) return s;
  std::vector<schedule::Record> records;
  for (StoredRecord& r : rs) records.push_back(std::move(r.record));
  s = writeRecordsFile(path, records);
  if (!s.ok()) return s;
  if (written) *written = rs.size();
  return okStatus();
}

}  // namespace ttune::store
