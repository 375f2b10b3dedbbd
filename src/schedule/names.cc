#include "schedule/names.h"

#include <charconv>

namespace ttune::schedule::names {

std::string splitPart(std::string_view parent, size_t index) {
  return std::string(parent) + "." + std::to_string(index);
}

std::optional<SplitPart> parseSplitPart(std::string_view name) {
  size_t dot = name.rfind('.');
  if (dot == std::string_view::npos || dot == 0 || dot + 1 == name.size()) return std::nullopt;
  std::string_view digits = name.substr(dot + 1);
  // splitPart never writes a sign or a leading zero (other than "0" itself).
  if (digits.size() > 1 && digits[0] == '0') return std::nullopt;
  size_t index = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), index);
  if (ec != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
  return SplitPart{std::string(name.substr(0, dot)), index};
}

std::string fused(const std::vector<std::string>& parts) {
  if (parts.size() == 1) return parts[0];
  std::string out;
  for (const std::string& p : parts) out += p + "@";
  return out;
}

std::string cacheStage(std::string_view stage, std::string_view scope) {
  return std::string(stage) + "." + std::string(scope);
}

std::string rfactorStage(std::string_view stage) { return std::string(stage) + ".rf"; }

std::string packedWeight(std::string_view placeholder) { return std::string(placeholder) + ".packed"; }

}  // namespace ttune::schedule::names
