// Names of the stages, iterators and tensors that steps derive.
//
// Steps refer to stages and iterators by name, and records store those names, so the names a
// step derives are part of the bank format: a schedule found on one kernel replays on another of
// its class only because both derive the same names. This is the one place that spells them and
// the one place that reads them back; nothing else builds or parses a derived name.
//
//   split `i` into n + 1 parts      i.0 (outermost) .. i.n
//   fuse `a`, `b`                   a@b@
//   cache_read / cache_write        <stage>.<scope>     (cache_write's scope is "local")
//   rfactor                         <stage>.rf
//   layout rewrite of weight `w`    w.packed
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ttune::schedule::names {

// The scope cache_write stages are made in (a register- or L1-resident accumulator).
inline constexpr const char* kLocalScope = "local";

// Part `index` of iterator `parent` split into parts (0 is the outermost).
std::string splitPart(std::string_view parent, size_t index);

// Which split made an iterator: its parent and the part's index. nullopt for a name that is not
// a split part (a root axis, a fused iterator).
struct SplitPart {
  std::string parent;
  size_t index = 0;
  bool operator==(const SplitPart&) const = default;
};
std::optional<SplitPart> parseSplitPart(std::string_view name);

// The iterator that fusing `parts` (outermost first) leaves: a new one for two or more, the part
// itself for one (a fuse of one iterator changes nothing).
std::string fused(const std::vector<std::string>& parts);

// The stage cache_read / cache_write add for `stage` in `scope`.
std::string cacheStage(std::string_view stage, std::string_view scope);
// The stage rfactor adds for reduction `stage`.
std::string rfactorStage(std::string_view stage);
// The tensor a layout rewrite packs weight `placeholder` into.
std::string packedWeight(std::string_view placeholder);

}  // namespace ttune::schedule::names
