// The string helpers of support/strings.h at their edges: empty fields and inputs, numbers that
// do not parse or overflow, the shortest round-tripping decimal, and cutting to a column width.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "support/strings.h"

namespace ttune {
namespace {

using Parts = std::vector<std::string>;

TEST(Split, KeepsEmptyFieldsAtTheEndsAndBetweenSeparators) {
  EXPECT_EQ(split("a,b", ','), (Parts{"a", "b"}));
  EXPECT_EQ(split("a,,b", ','), (Parts{"a", "", "b"}));
  EXPECT_EQ(split(",a,", ','), (Parts{"", "a", ""}));
  EXPECT_EQ(split("", ','), (Parts{""}));
  EXPECT_EQ(split("abc", ','), (Parts{"abc"}));
}

TEST(Trim, RemovesBlanksAtBothEndsOnly) {
  EXPECT_EQ(trim(" \t a b \r\n"), "a b");
  EXPECT_EQ(trim(" \t\r\n"), "");
  EXPECT_EQ(trim(""), "");
  EXPECT_EQ(trim("x"), "x");
}

TEST(StartsEndsWith, ComparePrefixAndSuffixIncludingLongerAndEmptyOnes) {
  EXPECT_TRUE(startsWith("conv2d", "conv"));
  EXPECT_FALSE(startsWith("conv2d", "2d"));
  EXPECT_FALSE(startsWith("co", "conv"));
  EXPECT_TRUE(startsWith("", ""));
  EXPECT_TRUE(endsWith("conv2d", "2d"));
  EXPECT_FALSE(endsWith("conv2d", "conv"));
  EXPECT_FALSE(endsWith("2d", "x2d"));
  EXPECT_TRUE(endsWith("abc", ""));
}

TEST(ParseInt, AcceptsOnlyAWholeInRangeDecimal) {
  EXPECT_EQ(parseInt("42"), 42);
  EXPECT_EQ(parseInt(" -7\n"), -7);
  EXPECT_EQ(parseInt("+3"), 3);
  EXPECT_EQ(parseInt("9223372036854775807"), std::numeric_limits<int64_t>::max());
  for (const char* bad : {"", "  ", "4x", "x4", "4 5", "1.5", "0x10", "9223372036854775808", "-9223372036854775809"})
    EXPECT_FALSE(parseInt(bad).has_value()) << bad;
}

TEST(ParseDouble, AcceptsOnlyAWholeFiniteRangeNumber) {
  EXPECT_EQ(parseDouble("1.5"), 1.5);
  EXPECT_EQ(parseDouble(" -2e3 "), -2000.0);
  EXPECT_EQ(parseDouble("7"), 7.0);
  for (const char* bad : {"", "1.5x", "x", "1e400", "1,5"}) EXPECT_FALSE(parseDouble(bad).has_value()) << bad;
}

TEST(FormatDouble, ShortestDecimalThatReadsBack) {
  EXPECT_EQ(formatDouble(0.1), "0.1");
  EXPECT_EQ(formatDouble(100.0), "100");
  EXPECT_EQ(formatDouble(-2.5), "-2.5");
  EXPECT_EQ(formatDouble(0.1 + 0.2), "0.30000000000000004");  // needs all 17 digits
  EXPECT_EQ(formatDouble(1e-300), "1e-300");
  for (double v : {1.0 / 3.0, 123456.789, 6.02214076e23, std::nextafter(1.0, 2.0)})
    EXPECT_EQ(*parseDouble(formatDouble(v)), v) << formatDouble(v);
}

TEST(Ellipsize, CutsToTheWidthAndMarksTheCut) {
  EXPECT_EQ(ellipsize("abcdef", 6), "abcdef");
  EXPECT_EQ(ellipsize("abcdef", 10), "abcdef");
  EXPECT_EQ(ellipsize("abcdef", 5), "ab...");
  EXPECT_EQ(ellipsize("abcdef", 3), "...");
  // No room for the dots: still at most `width` characters.
  EXPECT_EQ(ellipsize("abcdef", 2), "ab");
  EXPECT_EQ(ellipsize("abcdef", 0), "");
}

TEST(StrFormat, FormatsLikePrintfWithoutATruncatingBuffer) {
  EXPECT_EQ(strFormat("%d-%s|%5.1f", 3, "a", 2.25), "3-a|  2.2");
  EXPECT_EQ(strFormat("%s", ""), "");
  std::string long_text(5000, 'x');
  EXPECT_EQ(strFormat("<%s>", long_text.c_str()), "<" + long_text + ">");
}

TEST(Join, SeparatesItemsOnlyBetweenThem) {
  auto num = [](int v) { return std::to_string(v); };
  EXPECT_EQ(join(std::vector<int>{}, ", ", num), "");
  EXPECT_EQ(join(std::vector<int>{1}, ", ", num), "1");
  EXPECT_EQ(join(std::vector<int>{1, 2, 3}, ", ", num), "1, 2, 3");
}

}  // namespace
}  // namespace ttune
