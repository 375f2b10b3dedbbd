// KeyedMemo (support/keyed_memo.h): one make per (anchor, fields), failures never cached, the memo
// cleared when full, and each entry keeping its anchor alive.
#include <gtest/gtest.h>

#include <memory>

#include "support/keyed_memo.h"

namespace ttune {
namespace {

TEST(KeyedMemo, MakesOncePerKeyDoesNotCacheFailuresAndStaysBounded) {
  KeyedMemo<int> memo(2);
  auto a = std::make_shared<const int>(1), b = std::make_shared<const int>(2);
  int made = 0;
  auto make = [&](int v) {
    return [&made, v]() -> Expected<int> {
      ++made;
      return v;
    };
  };
  EXPECT_EQ(*memo.get(a, "x", make(10)), 10);
  EXPECT_EQ(*memo.get(a, "x", make(99)), 10);  // cached: make not called
  EXPECT_EQ(made, 1);
  EXPECT_EQ(*memo.get(b, "x", make(20)), 20);  // another anchor, same fields: another entry
  EXPECT_EQ(made, 2);
  auto failing = [&]() -> Expected<int> {
    ++made;
    return Unexpected("no");
  };
  EXPECT_FALSE(memo.get(a, "y", failing).ok());
  EXPECT_FALSE(memo.get(a, "y", failing).ok());
  EXPECT_EQ(made, 4);                          // failures are made again
  EXPECT_EQ(*memo.get(a, "z", make(30)), 30);  // a third entry clears the full memo
  EXPECT_EQ(*memo.get(a, "x", make(11)), 11);
  EXPECT_EQ(made, 6);
}

TEST(KeyedMemo, AnEntryKeepsItsAnchorAlive) {
  KeyedMemo<int> memo(4);
  auto a = std::make_shared<const int>(1);
  std::weak_ptr<const int> watch = a;
  EXPECT_EQ(*memo.get(a, "x", [] { return Expected<int>(1); }), 1);
  a.reset();
  EXPECT_FALSE(watch.expired());  // so its address cannot be reused by another object
}

}  // namespace
}  // namespace ttune
