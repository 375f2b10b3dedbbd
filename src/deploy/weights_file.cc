#include "deploy/weights_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "runtime/bytes.h"

namespace ttune::deploy {

namespace {

constexpr char kMagic[8] = {'T', 'T', 'U', 'N', 'E', 'W', 'T', 'S'};
constexpr uint32_t kFormatVersion = 1;
constexpr size_t kHeaderBytes = 32;  // magic, version, count, digest, file size
constexpr size_t kEntryBytes = 16;   // offset, size

int64_t align64(int64_t n) { return (n + 63) / 64 * 64; }

// read(2) until n bytes or the end; false on an error (errno set).
bool readFully(int fd, char* p, size_t n, size_t& got) {
  got = 0;
  while (got < n) {
    ssize_t r = ::read(fd, p + got, n - got);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return false;
    if (r == 0) return true;
    got += static_cast<size_t>(r);
  }
  return true;
}

bool writeFully(int fd, const char* p, size_t n) {
  while (n > 0) {
    ssize_t r = ::write(fd, p, n);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return false;
    p += r;
    n -= static_cast<size_t>(r);
  }
  return true;
}

struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

void WeightsDigest::add(const void* data, size_t bytes) {
  // FNV-1a over 8-byte words: one multiply per word keeps a 100 MB model's check at ~20 ms.
  const unsigned char* p = static_cast<const unsigned char*>(data);
  uint64_t h = h_;
  size_t i = 0;
  for (; i + 8 <= bytes; i += 8) {
    uint64_t w;
    std::memcpy(&w, p + i, 8);
    h = (h ^ w) * 0x100000001b3ULL;
  }
  for (; i < bytes; ++i) h = (h ^ p[i]) * 0x100000001b3ULL;
  h_ = (h ^ bytes) * 0x100000001b3ULL;
}

uint64_t weightsDigest(const std::vector<WeightSpan>& weights) {
  WeightsDigest d;
  for (const WeightSpan& w : weights) d.add(w.data, static_cast<size_t>(w.bytes));
  return d.value();
}

bool writeWeightsFile(const std::string& path, const std::vector<WeightSpan>& weights, uint64_t digest,
                      std::string& error) {
  int64_t data_start = align64(static_cast<int64_t>(kHeaderBytes + kEntryBytes * weights.size()));
  std::vector<int64_t> offsets;
  int64_t end = data_start;
  for (const WeightSpan& w : weights) {
    offsets.push_back(end);
    end = align64(end + w.bytes);
  }
  std::string head;
  runtime::ByteWriter bw(head);
  head.append(kMagic, 8);
  bw.u32(kFormatVersion);
  bw.u32(static_cast<uint32_t>(weights.size()));
  bw.u64(digest);
  bw.i64(end);
  for (size_t i = 0; i < weights.size(); ++i) {
    bw.i64(offsets[i]);
    bw.i64(weights[i].bytes);
  }
  Fd f{::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)};
  if (f.fd < 0) return error = "cannot write weights file " + path + ": " + std::strerror(errno), false;
  static const char zeros[64] = {};
  bool ok = writeFully(f.fd, head.data(), head.size()) &&
            writeFully(f.fd, zeros, static_cast<size_t>(data_start) - head.size());
  for (size_t i = 0; ok && i < weights.size(); ++i) {
    int64_t pad = (i + 1 < weights.size() ? offsets[i + 1] : end) - offsets[i] - weights[i].bytes;
    ok = writeFully(f.fd, static_cast<const char*>(weights[i].data), static_cast<size_t>(weights[i].bytes)) &&
         writeFully(f.fd, zeros, static_cast<size_t>(pad));
  }
  if (!ok) return error = "cannot write weights file " + path + ": " + std::strerror(errno), false;
  return true;
}

LoadStatus loadWeightsFile(const std::string& path, const std::vector<int64_t>& expected_bytes,
                           uint64_t expected_digest, LoadedWeights& out, std::string& error) {
  Fd f{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  if (f.fd < 0) return error = "cannot open weights file " + path + ": " + std::strerror(errno), LoadStatus::IoError;
  struct stat st;
  if (::fstat(f.fd, &st) != 0)
    return error = "cannot read weights file " + path + ": " + std::strerror(errno), LoadStatus::IoError;
  if (!S_ISREG(st.st_mode)) return error = "weights file " + path + " is not a regular file", LoadStatus::IoError;
  int64_t size = static_cast<int64_t>(st.st_size);
  size_t table = kHeaderBytes + kEntryBytes * expected_bytes.size();
  if (size < static_cast<int64_t>(kHeaderBytes))
    return error = "weights file " + path + " is not a ttune weights file (too short)", LoadStatus::Corrupt;
  void* raw = nullptr;
  if (posix_memalign(&raw, 64, static_cast<size_t>(align64(size))) != 0)
    return error = "cannot allocate " + std::to_string(size) + " bytes for weights file " + path,
           LoadStatus::OutOfMemory;
  out.data.reset(static_cast<char*>(raw));
  size_t got = 0;
  if (!readFully(f.fd, out.data.get(), static_cast<size_t>(size), got))
    return error = "cannot read weights file " + path + ": " + std::strerror(errno), LoadStatus::IoError;
  if (got != static_cast<size_t>(size))
    return error = "weights file " + path + " changed while it was read", LoadStatus::IoError;

  const char* p = out.data.get();
  if (std::memcmp(p, kMagic, 8) != 0)
    return error = "weights file " + path + " is not a ttune weights file", LoadStatus::Corrupt;
  runtime::ByteReader r(p + 8, p + size);
  uint32_t version = r.u32();
  uint32_t count = r.u32();
  uint64_t digest = r.u64();
  int64_t file_bytes = r.i64();
  if (version != kFormatVersion)
    return error = "weights file " + path + " has format version " + std::to_string(version) +
                   ", this library reads version " + std::to_string(kFormatVersion),
           LoadStatus::Corrupt;
  if (count != expected_bytes.size() || digest != expected_digest)
    return error =
               "weights file " + path +
               " belongs to another export (it does not match this library's weights; use the file exported with it)",
           LoadStatus::Corrupt;
  if (file_bytes != size || size < static_cast<int64_t>(table))
    return error = "weights file " + path + " is truncated or padded (" + std::to_string(size) +
                   " bytes, its header says " + std::to_string(file_bytes) + ")",
           LoadStatus::Corrupt;
  out.ptrs.clear();
  WeightsDigest d;
  for (size_t i = 0; i < count; ++i) {
    int64_t offset = r.i64(), bytes = r.i64();
    if (!r.ok() || offset % 64 != 0 || bytes != expected_bytes[i] || offset < static_cast<int64_t>(table) ||
        offset > size - bytes)
      return error = "weights file " + path + " is corrupt (entry " + std::to_string(i) + " is out of range)",
             LoadStatus::Corrupt;
    out.ptrs.push_back(out.data.get() + offset);
    d.add(out.ptrs.back(), static_cast<size_t>(bytes));
  }
  if (d.value() != expected_digest)
    return error = "weights file " + path + " is corrupt (its data does not match its digest)", LoadStatus::Corrupt;
  return LoadStatus::Ok;
}

}  // namespace ttune::deploy
