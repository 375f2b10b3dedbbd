// Small string helpers shared by printers and parsers.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ttune {

std::vector<std::string> split(std::string_view s, char sep);
std::string trim(std::string_view s);
bool startsWith(std::string_view s, std::string_view prefix);
bool endsWith(std::string_view s, std::string_view suffix);
std::optional<int64_t> parseInt(std::string_view s);
std::optional<double> parseDouble(std::string_view s);
// Shortest decimal that reads back to the same double ("%.17g" trimmed).
std::string formatDouble(double v);
// s cut to at most `width` characters, ending in "..." when cut (for table columns).
std::string ellipsize(std::string_view s, size_t width);
// printf-style formatting into a std::string.
std::string strFormat(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

template <class Range, class Fn>
std::string join(const Range& items, std::string_view sep, Fn&& fn) {
  std::string out;
  bool first = true;
  for (const auto& it : items) {
    if (!first) out += sep;
    first = false;
    out += fn(it);
  }
  return out;
}

}  // namespace ttune
