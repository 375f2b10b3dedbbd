// Failure handling of support/: Expected and TT_TRY / TT_TRY_STATUS propagate the first failure's
// reason and stop there; Error, TT_CHECK_ARG and cat build the user-facing sentence; TT_ASSERT
// aborts; the log level decides which messages reach stderr.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/error.h"
#include "support/expected.h"
#include "support/log.h"

namespace ttune {
namespace {

Expected<int> half(int v) {
  if (v % 2) return Unexpected(cat(v, " is odd"));
  return v / 2;
}

// Halves twice; `steps` records how far it got.
Expected<int> quarter(int v, std::vector<std::string>& steps) {
  TT_TRY(int h, half(v));
  steps.push_back("first");
  TT_TRY(int q, half(h));
  steps.push_back("second");
  return q;
}

Status checkEven(int v) {
  if (v % 2) return Unexpected(Reason{"odd"});
  return okStatus();
}

Expected<std::string> describe(int v) {
  TT_TRY_STATUS(checkEven(v));
  return std::string("even");
}

TEST(Expected, HoldsAValueOrAReason) {
  Expected<int> good = half(8);
  ASSERT_TRUE(good.ok());
  EXPECT_TRUE(static_cast<bool>(good));
  EXPECT_EQ(*good, 4);
  Expected<int> bad = half(3);
  ASSERT_FALSE(bad.ok());
  EXPECT_FALSE(static_cast<bool>(bad));
  EXPECT_EQ(bad.error(), "3 is odd");
  EXPECT_EQ(bad.reason().message, "3 is odd");
}

TEST(Expected, TryBindsOnSuccessAndReturnsTheFirstFailureUnchanged) {
  std::vector<std::string> steps;
  auto ok = quarter(12, steps);
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(*ok, 3);
  EXPECT_EQ(steps, (std::vector<std::string>{"first", "second"}));
  steps.clear();
  auto second = quarter(6, steps);  // 6 -> 3, then 3 is odd
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.error(), "3 is odd");
  EXPECT_EQ(steps, (std::vector<std::string>{"first"}));
  steps.clear();
  auto first = quarter(5, steps);
  ASSERT_FALSE(first.ok());
  EXPECT_EQ(first.error(), "5 is odd");
  EXPECT_TRUE(steps.empty());
}

TEST(Expected, TryStatusPropagatesIntoAnotherValueType) {
  EXPECT_EQ(*describe(4), "even");
  auto odd = describe(3);
  ASSERT_FALSE(odd.ok());
  EXPECT_EQ(odd.error(), "odd");
}

TEST(ExpectedDeathTest, ValueOfAFailureAndReasonOfASuccessAreBugs) {
  EXPECT_DEATH((void)half(3).value(), "Expected::value\\(\\) on a failure: 3 is odd");
  EXPECT_DEATH((void)half(2).reason(), "Expected::reason\\(\\) on a success");
}

TEST(Error, CheckArgThrowsTheConcatenatedSentenceOnlyWhenTheConditionFails) {
  auto check = [](int rank) { TT_CHECK_ARG(rank <= 4, "rank ", rank, " is above ", 4); };
  EXPECT_NO_THROW(check(4));
  try {
    check(5);
    FAIL() << "no Error thrown";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "rank 5 is above 4");
  }
  EXPECT_EQ(cat("a", 1, '-', 2.5), "a1-2.5");
}

TEST(Log, TheLevelDecidesWhichMessagesAreWritten) {
  LogLevel before = logLevel();
  setLogLevel(LogLevel::Warning);
  testing::internal::CaptureStderr();
  logDebug("d ", 1);
  logInfo("i ", 2);
  logWarning("w ", 3);
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "ttune warning: w 3\n");
  setLogLevel(LogLevel::Debug);
  testing::internal::CaptureStderr();
  logDebug("d");
  logInfo("i");
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "ttune debug: d\nttune info: i\n");
  setLogLevel(LogLevel::Silent);
  testing::internal::CaptureStderr();
  logWarning("w");
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
  setLogLevel(before);
}

}  // namespace
}  // namespace ttune
