// Kernel scratch buffers (ttune_alloc / ttune_free): aligned, usable whole, and a large block a
// kernel frees is kept for its next call instead of being handed back to the system.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <thread>
#include <vector>

#include "runtime/abi.h"

namespace {

TEST(Scratch, BlocksAreAlignedAndUsableWhole) {
  for (int64_t bytes : {int64_t(0), int64_t(1), int64_t(63), int64_t(4096), int64_t(100000), int64_t(3) << 20}) {
    auto* p = static_cast<unsigned char*>(ttune_alloc(bytes));
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 64, 0u) << bytes << " bytes";
    std::memset(p, 0xab, static_cast<size_t>(bytes));
    ttune_free(p);
  }
  ttune_free(nullptr);
}

TEST(Scratch, ALargeBlockIsKeptForTheNextCallOfTheKernel) {
  // Regression: every call mapped its large blocks afresh and faulted their pages in (above
  // 32 MiB glibc always maps them). A kept block comes back with what was written into it; a
  // block mapped again comes back zeroed.
  const int64_t bytes = int64_t(48) << 20;
  auto* p = static_cast<unsigned char*>(ttune_alloc(bytes));
  p[0] = 7;
  p[bytes - 1] = 9;
  ttune_free(p);
  auto* q = static_cast<unsigned char*>(ttune_alloc(bytes));
  EXPECT_EQ(q, p);
  EXPECT_EQ(q[0], 7);
  EXPECT_EQ(q[bytes - 1], 9);
  // A smaller request takes a kept block only up to twice its size.
  ttune_free(q);
  auto* small = static_cast<unsigned char*>(ttune_alloc(int64_t(1) << 20));
  EXPECT_NE(small, q);
  ttune_free(small);
}

TEST(Scratch, ABlockFreedByAnotherThreadAndManyBlocksAreFine) {
  void* p = ttune_alloc(int64_t(1) << 20);
  ASSERT_NE(p, nullptr);
  std::thread([p] { ttune_free(p); }).join();
  // Blocks live at once are distinct and usable end to end, whatever order they were kept in.
  auto fill = [](std::vector<void*>& blocks, auto size_of) {
    for (size_t i = 0; i < blocks.size(); ++i) {
      const int64_t bytes = size_of(static_cast<int64_t>(i));
      auto* b = static_cast<unsigned char*>(ttune_alloc(bytes));
      ASSERT_NE(b, nullptr) << "block " << i;
      b[0] = static_cast<unsigned char>(i);
      b[bytes - 1] = static_cast<unsigned char>(i + 1);
      blocks[i] = b;
    }
    for (size_t i = 0; i < blocks.size(); ++i) {
      const int64_t bytes = size_of(static_cast<int64_t>(i));
      EXPECT_EQ(static_cast<unsigned char*>(blocks[i])[0], i) << "block " << i << " was overwritten";
      EXPECT_EQ(static_cast<unsigned char*>(blocks[i])[bytes - 1], i + 1) << "block " << i << " was overwritten";
    }
    for (void* b : blocks) ttune_free(b);
  };
  std::vector<void*> blocks(12);
  fill(blocks, [](int64_t i) { return (int64_t(1) << 18) * (i + 1); });
  fill(blocks, [](int64_t i) { return (int64_t(1) << 18) * (12 - i); });
}

}  // namespace
