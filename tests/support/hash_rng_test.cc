// Hasher and Rng (support/hash.h, support/rng.h): both must give the same values in every run and
// on every machine, since hashes are stored in the bank and seeds reproduce tuning runs. The
// pinned constants below are those values; a change to them invalidates stored banks.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <set>
#include <vector>

#include "support/hash.h"
#include "support/rng.h"

namespace ttune {
namespace {

TEST(Hasher, ValuesArePinnedAcrossRunsAndMachines) {
  EXPECT_EQ(Hasher().value(), 0xfe5361af3ba51714ULL);
  EXPECT_EQ(Hasher().add(1).add(std::string_view("abc")).add(2.5).value(), 0x6f01a3b55ae61403ULL);
  EXPECT_EQ(Hasher::mix(0), 0u);
  EXPECT_EQ(Hasher::mix(1), 0x5692161d100b05e5ULL);
}

TEST(Hasher, DependsOnOrderAndOnWhereStringsEnd) {
  EXPECT_NE(Hasher().add(1).add(2).value(), Hasher().add(2).add(1).value());
  EXPECT_NE(Hasher().add(std::string_view("ab")).add(std::string_view("c")).value(),
            Hasher().add(std::string_view("a")).add(std::string_view("bc")).value());
  EXPECT_NE(Hasher().add(std::string_view("")).value(), Hasher().value());
  EXPECT_NE(Hasher().add(0).value(), Hasher().value());
}

TEST(Hasher, EqualNumbersHashAlikeWhateverTheirIntegerTypeAndZeroSign) {
  EXPECT_EQ(Hasher().add(-3).value(), Hasher().add(int64_t{-3}).value());
  EXPECT_EQ(Hasher().add(7).value(), Hasher().add(uint64_t{7}).value());
  EXPECT_EQ(Hasher().add(0.0).value(), Hasher().add(-0.0).value());
  EXPECT_NE(Hasher().add(1.0).value(), Hasher().add(-1.0).value());
  EXPECT_NE(Hasher().add(1.0).value(), Hasher().add(1).value());  // a double hashes its bits
}

TEST(ToHex, SixteenLowerCaseDigitsWithLeadingZeros) {
  EXPECT_EQ(toHex(0), "0000000000000000");
  EXPECT_EQ(toHex(0xdeadbeefULL), "00000000deadbeef");
  EXPECT_EQ(toHex(UINT64_MAX), "ffffffffffffffff");
  EXPECT_EQ(toHex(0x0123456789abcdefULL), "0123456789abcdef");
}

TEST(Rng, TheRawStreamIsTheStandardMersenneTwister) {
  Rng r(5489);  // the standard's check: the 10000th value of a default-seeded mt19937_64
  uint64_t v = 0;
  for (int i = 0; i < 10000; ++i) v = r.next();
  EXPECT_EQ(v, 9981545732273789042ULL);
}

TEST(Rng, DerivedDrawsArePinnedForASeed) {
  Rng r(42);
  std::vector<int64_t> ints;
  for (int i = 0; i < 6; ++i) ints.push_back(r.uniformInt(0, 9));
  EXPECT_EQ(ints, (std::vector<int64_t>{6, 4, 0, 2, 1, 8}));
  std::vector<int> v{1, 2, 3, 4, 5, 6};
  Rng(7).shuffle(v);
  EXPECT_EQ(v, (std::vector<int>{6, 2, 5, 3, 1, 4}));
}

TEST(Rng, SameSeedSameSequenceOtherSeedOtherSequence) {
  auto draws = [](uint64_t seed) {
    Rng r(seed);
    std::vector<int64_t> out;
    for (int i = 0; i < 20; ++i) out.push_back(r.uniformInt(-1000, 1000));
    return out;
  };
  EXPECT_EQ(draws(3), draws(3));
  EXPECT_NE(draws(3), draws(4));
}

TEST(Rng, UniformIntStaysInItsInclusiveRangeAndReachesBothEnds) {
  Rng r(1);
  std::set<int64_t> seen;
  for (int i = 0; i < 2000; ++i) {
    int64_t x = r.uniformInt(-2, 2);
    ASSERT_GE(x, -2);
    ASSERT_LE(x, 2);
    seen.insert(x);
  }
  EXPECT_EQ(seen.size(), 5u);
  EXPECT_EQ(r.uniformInt(5, 5), 5);
  EXPECT_EQ(r.index(1), 0u);
  // The full int64 range (span overflows to 0) is the raw stream.
  Rng a(9), b(9);
  EXPECT_EQ(a.uniformInt(INT64_MIN, INT64_MAX), static_cast<int64_t>(b.next()));
}

TEST(Rng, UniformDoublesAndBernoulliStayInRange) {
  Rng r(2);
  for (int i = 0; i < 1000; ++i) {
    double u = r.uniform();
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
    double w = r.uniform(-3.0, -1.0);
    ASSERT_GE(w, -3.0);
    ASSERT_LT(w, -1.0);
    ASSERT_FALSE(r.bernoulli(0.0));
    ASSERT_TRUE(r.bernoulli(1.0));
  }
}

TEST(Rng, ForkGivesAReproducibleStreamApartFromTheParent) {
  Rng p1(11), p2(11);
  Rng c1 = p1.fork(), c2 = p2.fork();
  EXPECT_EQ(c1.next(), c2.next());  // forks of equal parents agree
  EXPECT_EQ(p1.next(), p2.next());  // and the parents stay in step
  Rng p3(11);
  Rng c3 = p3.fork();
  EXPECT_NE(c3.next(), p3.next());  // the child is not the parent's continuation
}

TEST(Rng, ShuffleIsAPermutationAndChoicePicksAnElement) {
  std::vector<int> v(50);
  for (int i = 0; i < 50; ++i) v[i] = i;
  std::vector<int> s = v;
  Rng r(5);
  r.shuffle(s);
  EXPECT_NE(s, v);
  std::vector<int> sorted = s;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(sorted, v);
  std::vector<int> one{8};
  r.shuffle(one);
  EXPECT_EQ(one, std::vector<int>{8});
  std::set<int> picked;
  for (int i = 0; i < 200; ++i) picked.insert(r.choice(std::vector<int>{4, 6, 9}));
  EXPECT_EQ(picked, (std::set<int>{4, 6, 9}));
}

}  // namespace
}  // namespace ttune
