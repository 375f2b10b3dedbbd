// Options with a closed set of values: each enum value's spelling in one table, parsed once at
// the command line (CLI11's IsMember check and message) and written back by the same table.
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

namespace ttune::cli {

template <class E>
struct Spelling {
  E value;
  const char* name;
};

// The spelling of `value` (every value of the enum is in its table).
template <class E, size_t N>
std::string spellingOf(const Spelling<E> (&table)[N], E value) {
  for (const Spelling<E>& s : table)
    if (s.value == value) return s.name;
  return "?";
}

template <class E, size_t N>
std::optional<E> spelledValue(const Spelling<E> (&table)[N], const std::string& name) {
  for (const Spelling<E>& s : table)
    if (name == s.name) return s.value;
  return std::nullopt;
}

// An option `flag` taking one of the table's spellings into `var` ("--flag: x not in {a,b}").
template <class E, size_t N>
CLI::Option* addSpelledOption(CLI::App* cmd, const std::string& flag, E& var, const Spelling<E> (&table)[N],
                              const std::string& help) {
  std::vector<std::string> names;
  for (const Spelling<E>& s : table) names.push_back(s.name);
  return cmd
      ->add_option_function<std::string>(
          flag, [&var, &table](const std::string& s) { var = *spelledValue(table, s); }, help)
      ->check(CLI::IsMember(names));
}

}  // namespace ttune::cli
