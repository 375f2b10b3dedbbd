// Length-prefixed binary messages between the measurement parent and its worker process (pipes).
// Little-endian PODs, strings and byte vectors; a short read means the peer died.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace ttune::measure::wire {

class Writer {
 public:
  // Room up front (also keeps GCC 12 from a false -Wstringop-overflow on the first insert).
  Writer() { buf_.reserve(256); }
  template <class T>
  void pod(const T& v) {
    const char* p = reinterpret_cast<const char*>(&v);
    buf_.insert(buf_.end(), p, p + sizeof(T));
  }
  void bytes(const void* data, size_t n) {
    pod<uint64_t>(n);
    const char* p = static_cast<const char*>(data);
    buf_.insert(buf_.end(), p, p + n);
  }
  void str(const std::string& s) { bytes(s.data(), s.size()); }
  const std::vector<char>& buffer() const { return buf_; }

 private:
  std::vector<char> buf_;
};

class Reader {
 public:
  explicit Reader(const std::vector<char>& buf) : buf_(buf) {}
  template <class T>
  bool pod(T* v) {
    if (sizeof(T) > buf_.size() - pos_) return false;
    std::memcpy(v, buf_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return true;
  }
  bool bytes(std::vector<char>* out) {
    uint64_t n;
    // Compared as what is left, so that a huge length cannot wrap the sum around.
    if (!pod(&n) || n > buf_.size() - pos_) return false;
    out->assign(buf_.data() + pos_, buf_.data() + pos_ + n);
    pos_ += n;
    return true;
  }
  bool str(std::string* s) {
    std::vector<char> b;
    if (!bytes(&b)) return false;
    s->assign(b.begin(), b.end());
    return true;
  }

 private:
  const std::vector<char>& buf_;
  size_t pos_ = 0;
};

// Whole-message I/O on file descriptors: a 64-bit length then the payload.
bool writeMessage(int fd, const std::vector<char>& payload);
// Waits at most timeout_ms (negative: forever). Returns 1 on success, 0 on timeout, -1 on EOF/error.
int readMessage(int fd, std::vector<char>* payload, int timeout_ms);

}  // namespace ttune::measure::wire
