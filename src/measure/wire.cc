#include "measure/wire.h"

#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>

namespace ttune::measure::wire {

namespace {
bool writeAll(int fd, const char* p, size_t n) {
  while (n > 0) {
    ssize_t w = ::write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

// Reads exactly n bytes before the deadline. 1 ok, 0 timeout, -1 EOF/error.
int readAll(int fd, char* p, size_t n, std::chrono::steady_clock::time_point deadline, bool has_deadline) {
  while (n > 0) {
    int wait = -1;
    if (has_deadline) {
      auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
      if (left <= 0) return 0;
      wait = static_cast<int>(left);
    }
    pollfd pfd{fd, POLLIN, 0};
    int pr = ::poll(&pfd, 1, wait);
    if (pr < 0 && errno == EINTR) continue;
    if (pr < 0) return -1;
    if (pr == 0) return 0;
    ssize_t r = ::read(fd, p, n);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return -1;
    p += r;
    n -= static_cast<size_t>(r);
  }
  return 1;
}
}  // namespace

bool writeMessage(int fd, const std::vector<char>& payload) {
  uint64_t n = payload.size();
  return writeAll(fd, reinterpret_cast<const char*>(&n), sizeof n) && writeAll(fd, payload.data(), payload.size());
}

int readMessage(int fd, std::vector<char>* payload, int timeout_ms) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  bool has = timeout_ms >= 0;
  uint64_t n;
  int r = readAll(fd, reinterpret_cast<char*>(&n), sizeof n, deadline, has);
  if (r != 1) return r;
  if (n > (uint64_t(1) << 36)) return -1;
  payload->resize(n);
  return readAll(fd, payload->data(), n, deadline, has);
}

}  // namespace ttune::measure::wire
