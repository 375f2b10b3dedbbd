// Class distance and the nearest classes: which other classes' schedules a kernel without a
// source of its own class may borrow (transfer/nearest.h).
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "transfer/nearest.h"

namespace ttune::transfer {
namespace {

TEST(ClassDistance, NeighboursShareTheAnchorAndDifferInTheEpilogue) {
  EXPECT_EQ(classDistance("conv2d_nhwc+add+relu", "conv2d_nhwc+add+add+relu"), 1);
  EXPECT_EQ(classDistance("conv2d_nhwc+add", "conv2d_nhwc+add+relu"), 1);
  EXPECT_EQ(classDistance("conv2d_nhwc", "conv2d_nhwc+add+relu"), 2);
  EXPECT_EQ(classDistance("pad+conv2d_nhwc+add", "pad+conv2d_nhwc+add+relu"), 1);
  EXPECT_EQ(classDistance("pad+conv2d_nhwc+add", "conv2d_nhwc+add"), 0);  // padding is no part of a class
  EXPECT_EQ(classDistance("pad+conv2d_nhwc+add+add+relu", "conv2d_nhwc+add+relu"), 1);
  EXPECT_EQ(classDistance("pad+pool_max", "pad+conv2d_nhwc"), -1);  // another anchor
  EXPECT_EQ(classDistance("pad", "pad"), -1);
  EXPECT_EQ(classDistance("dense+add", "conv2d_nhwc+add"), -1);
  EXPECT_EQ(classDistance("dense+add", "dense+add"), -1);  // the same class is no neighbour
  std::map<std::string, std::string> known{
      {"a", "conv2d_nhwc+add+relu"}, {"b", "conv2d_nhwc"}, {"c", "dense+add+relu"}, {"d", "conv2d_nhwc+add"}};
  EXPECT_EQ(nearestClasses("conv2d_nhwc+add+add+relu", known), (std::vector<std::string>{"a"}));
  EXPECT_EQ(nearestClasses("conv2d_nhwc+relu", known), (std::vector<std::string>{"a", "b", "d"}));  // all at distance 1
  EXPECT_TRUE(nearestClasses("matmul", known).empty());
  // The nearest at whatever distance, unless capped.
  EXPECT_EQ(nearestClasses("dense+add+mul+add+add+mul+add", known), (std::vector<std::string>{"c"}));  // 5 edits
  EXPECT_TRUE(nearestClasses("dense+add+mul+add+add+mul+add", known, 4).empty());
  EXPECT_EQ(nearestClasses("conv2d_nhwc+mul+add+mul+add+relu", known, 3), (std::vector<std::string>{"a"}));  // 3 edits
  EXPECT_TRUE(nearestClasses("conv2d_nhwc+mul+add+mul+add+relu", known, 2).empty());
  known["e"] = "pad+conv2d_nhwc+add";
  EXPECT_EQ(paddingVariants("d", "conv2d_nhwc+add", known), (std::vector<std::string>{"e"}));
  EXPECT_EQ(paddingVariants("x", "pad+conv2d_nhwc+add", known), (std::vector<std::string>{"d", "e"}));
  EXPECT_TRUE(paddingVariants("a", "conv2d_nhwc+add+relu", known).empty());
}

}  // namespace
}  // namespace ttune::transfer
