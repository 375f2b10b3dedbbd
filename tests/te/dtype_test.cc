// The element types of te/dtype.h: names round-trip, the classification every lowering and
// simplifier decision reads, sizes, and integer wrap-around at each type's range.
#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "te/dtype.h"

namespace ttune::te {
namespace {

std::vector<DType> allTypes() {
  std::vector<DType> out;
  for (int i = 0; i <= static_cast<int>(kLastDType); ++i) out.push_back(static_cast<DType>(i));
  return out;
}

TEST(DType, EveryNameIsDistinctAndParsesBack) {
  std::set<std::string> names;
  for (DType t : allTypes()) {
    EXPECT_EQ(parseDType(dtypeName(t)), t) << dtypeName(t);
    names.insert(dtypeName(t));
  }
  EXPECT_EQ(names.size(), allTypes().size());
  for (const char* bad : {"", "float", "Float32", "int", "?", "float32 "})
    EXPECT_FALSE(parseDType(bad).has_value()) << bad;
}

TEST(DType, ClassificationAndSizes) {
  struct Case {
    DType t;
    int bytes;
    bool is_float, is_int, is_unsigned, wraps;
  };
  for (const Case& c :
       {Case{DType::Float32, 4, true, false, false, false}, Case{DType::Float64, 8, true, false, false, false},
        Case{DType::Float16, 2, true, false, false, false}, Case{DType::BFloat16, 2, true, false, false, false},
        Case{DType::Bool, 1, false, false, false, false}, Case{DType::Int64, 8, false, true, false, false},
        Case{DType::Int32, 4, false, true, false, false}, Case{DType::Int16, 2, false, true, false, true},
        Case{DType::Int8, 1, false, true, false, true}, Case{DType::UInt8, 1, false, true, true, true},
        Case{DType::UInt16, 2, false, true, true, true}, Case{DType::UInt32, 4, false, true, true, true},
        Case{DType::UInt64, 8, false, true, true, true}}) {
    SCOPED_TRACE(dtypeName(c.t));
    EXPECT_EQ(dtypeBytes(c.t), c.bytes);
    EXPECT_EQ(isFloat(c.t), c.is_float);
    EXPECT_EQ(isInt(c.t), c.is_int);
    EXPECT_EQ(isUnsigned(c.t), c.is_unsigned);
    EXPECT_EQ(wrapsInAnalysis(c.t), c.wraps);
    EXPECT_EQ(isHalfFloat(c.t), c.is_float && c.bytes == 2);
    EXPECT_EQ(isComputeFloat(c.t), c.is_float && c.bytes >= 4);
    EXPECT_EQ(is8BitInt(c.t), c.is_int && c.bytes == 1);
  }
}

TEST(DType, IntegersWrapAroundAtTheirTypesRange) {
  for (DType t : {DType::Int8, DType::UInt8, DType::Int16, DType::UInt16, DType::Int32, DType::UInt32}) {
    SCOPED_TRACE(dtypeName(t));
    EXPECT_EQ(wrapInt(t, intTypeMax(t)), intTypeMax(t));
    EXPECT_EQ(wrapInt(t, intTypeMin(t)), intTypeMin(t));
    EXPECT_EQ(wrapInt(t, intTypeMax(t) + 1), intTypeMin(t));
    EXPECT_EQ(wrapInt(t, intTypeMin(t) - 1), intTypeMax(t));
  }
  EXPECT_EQ(wrapInt(DType::Int8, 200), -56);
  EXPECT_EQ(wrapInt(DType::UInt8, -1), 255);
  EXPECT_EQ(wrapInt(DType::Int64, INT64_MIN), INT64_MIN);
  EXPECT_EQ(wrapInt(DType::UInt64, -1), -1);  // the bit pattern of UINT64_MAX, unchanged
  EXPECT_EQ(intTypeMin(DType::Bool), 0);
  EXPECT_EQ(intTypeMax(DType::Bool), 1);
  EXPECT_EQ(intTypeMax(DType::UInt64), INT64_MAX);  // the largest value int64 holds
}

}  // namespace
}  // namespace ttune::te
