// KeyedMemo<V>: a bounded, thread-safe memo of values derived from an immutable object that is
// identified by its address (e.g. a ComputeDAG shared by every State of a search task).
//
// Contract: get(anchor, fields, make) returns make()'s value for (anchor's address, fields),
// calling make at most once per entry unless entries were dropped or two threads raced (make must
// therefore be a pure function of the anchored object and the fields). Each entry holds the anchor
// alive, so an address in a key is never reused by another object while its entry exists. When
// the memo reaches its capacity it is cleared (results do not depend on what is cached).
// Failures (Unexpected) are returned and not cached.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "support/expected.h"

namespace ttune {

template <class V>
class KeyedMemo {
 public:
  explicit KeyedMemo(size_t capacity) : capacity_(capacity) {}

  Expected<V> get(const std::shared_ptr<const void>& anchor, const std::string& fields,
                  const std::function<Expected<V>()>& make) {
    std::string key = std::to_string(reinterpret_cast<uintptr_t>(anchor.get())) + '\n' + fields;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (auto it = entries_.find(key); it != entries_.end()) return it->second.value;
    }
    Expected<V> made = make();  // outside the lock: slow, and may use other memos
    if (!made.ok()) return made;
    std::lock_guard<std::mutex> lock(mu_);
    if (entries_.size() >= capacity_) entries_.clear();
    return entries_.try_emplace(std::move(key), Entry{anchor, std::move(*made)}).first->second.value;
  }

 private:
  struct Entry {
    std::shared_ptr<const void> anchor;
    V value;
  };
  const size_t capacity_;
  std::mutex mu_;
  std::unordered_map<std::string, Entry> entries_;
};

}  // namespace ttune
