// Little-endian byte images of plain data (plans, exported model images, weights-file headers).
// The reader never reads past its end: a short or corrupt image makes it fail (ok() false) and
// every later read return zeros, so parsers check ok() once at the end instead of after every
// field. Standard library only (compiled into exported runtimes).
#pragma once

#include <cstdint>
#include <cstring>
#include <string>

namespace ttune::runtime {

class ByteWriter {
 public:
  explicit ByteWriter(std::string& out) : out_(out) {}
  void u8(uint8_t v) { out_.push_back(static_cast<char>(v)); }
  void u32(uint32_t v) { raw(&v, 4); }
  void u64(uint64_t v) { raw(&v, 8); }
  void i64(int64_t v) { raw(&v, 8); }
  void str(const std::string& s) {
    u32(static_cast<uint32_t>(s.size()));
    out_.append(s);
  }

 private:
  static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "byte images are little-endian");
  void raw(const void* p, size_t n) { out_.append(static_cast<const char*>(p), n); }
  std::string& out_;
};

class ByteReader {
 public:
  ByteReader(const char* data, const char* end) : p_(data), end_(end) {}
  uint8_t u8() { return get<uint8_t>(); }
  uint32_t u32() { return get<uint32_t>(); }
  uint64_t u64() { return get<uint64_t>(); }
  int64_t i64() { return get<int64_t>(); }
  std::string str() {
    uint32_t n = u32();
    if (!ok_ || static_cast<size_t>(end_ - p_) < n) return fail(), std::string();
    std::string s(p_, n);
    p_ += n;
    return s;
  }
  // A count of items of at least `min_item_bytes` each, rejected when the rest cannot hold them
  // (so a corrupt count never makes the parser allocate gigabytes).
  uint32_t count(size_t min_item_bytes) {
    uint32_t n = u32();
    if (ok_ && static_cast<uint64_t>(n) * min_item_bytes > static_cast<uint64_t>(end_ - p_)) fail();
    return ok_ ? n : 0;
  }
  bool ok() const { return ok_; }
  const char* position() const { return p_; }

 private:
  void fail() { ok_ = false; }
  template <class T>
  T get() {
    T v{};
    if (!ok_ || static_cast<size_t>(end_ - p_) < sizeof v) return fail(), v;
    std::memcpy(&v, p_, sizeof v);
    p_ += sizeof v;
    return v;
  }
  const char* p_;
  const char* end_;
  bool ok_ = true;
};

}  // namespace ttune::runtime
