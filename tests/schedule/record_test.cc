#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

#include "schedule/record.h"

namespace ttune::schedule {
namespace {

std::vector<Step> everyStep() {
  return {SplitStep{"C", "i", 64, {4, std::nullopt}, true},
          SplitStep{"C", "j", std::nullopt, {2}, false},
          FollowSplitStep{"D", "i", 0, 2},
          FollowFusedSplitStep{"D", "j", {0, 1}, 1, false},
          FuseStep{"D", {"i.0", "j.0"}},
          ReorderStep{"C", {"i.0", "j.0", "k"}},
          AnnotationStep{"D", "i.0@j.0@", IterAnnotation::Parallel},
          AutoUnrollStep{"C", 64},
          ComputeAtStep{"C", "D", "j.1"},
          ComputeInlineStep{"P"},
          ComputeRootStep{"P"},
          CacheReadStep{"A", "shared", {"C"}},
          CacheWriteStep{"C", "local"},
          RfactorStep{"S", "k.1", 1},
          LayoutRewriteStep{"C", "B"}};
}

Record sample() {
  Record r;
  r.workload_key = "0123456789abcdef-fedcba9876543210";
  r.kernel_class = "dense+add";
  r.target = TargetInfo{"sapphirerapids", 512, 2, Isa::Avx512};
  r.steps = everyStep();
  r.result.costs_s = {0.001234, 0.0012};
  r.result.build_s = 0.05;
  r.result.measure_s = 0.4;
  r.result.timestamp = 1700000000;
  r.provenance = Provenance{"resnet50", "run-1", "tune", 17, 3.25, ""};
  return r;
}

TEST(Record, RoundTripsExactly) {
  Record r = sample();
  std::string line = recordToLine(r);
  auto back = recordFromLine(line);
  ASSERT_TRUE(back.ok()) << back.error();
  EXPECT_EQ(recordToLine(*back), line);
  EXPECT_TRUE(stepsEqual(back->steps, r.steps));
  EXPECT_EQ(back->result, r.result);
  EXPECT_EQ(back->provenance, r.provenance);
  EXPECT_EQ(back->target, r.target);
  EXPECT_NE(line.find("\"kind\":\"follow_fused_split\""), std::string::npos);
}

TEST(Record, TargetIsaRoundTripsAndOlderRecordsDeriveIt) {
  Record r = sample();
  r.target = TargetInfo{"znver4", 256, 2, Isa::Avx2};  // AVX2 code measured on an AVX-512 machine
  auto back = recordFromLine(recordToLine(r));
  ASSERT_TRUE(back.ok()) << back.error();
  EXPECT_EQ(back->target, r.target);
  // Records written before the field existed: the ISA level follows the vector width.
  Json j = recordToJson(sample());
  j["target"].erase("isa");
  auto old = recordFromJson(j);
  ASSERT_TRUE(old.ok()) << old.error();
  EXPECT_EQ(old->target.isa, Isa::Avx512);
  j["target"]["isa"] = "mmx";
  EXPECT_EQ(recordFromJson(j).error(), "record target has an unknown isa \"mmx\"");
}

TEST(Record, ErrorKindsRoundTrip) {
  for (int i = 0; i <= static_cast<int>(ErrorKind::Unknown); ++i) {
    Record r = sample();
    r.result.error = static_cast<ErrorKind>(i);
    r.result.error_msg = "boom";
    auto back = recordFromLine(recordToLine(r));
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(back->result.error, r.result.error);
  }
}

TEST(Record, RejectsBadInputWithReason) {
  EXPECT_EQ(recordFromLine("{").error(), "not valid JSON");
  Json j = recordToJson(sample());
  j["version"] = 99;
  EXPECT_EQ(recordFromJson(j).error(), "record format version 99 is not supported (this ttune reads version 1)");
  j = recordToJson(sample());
  j["steps"][2]["kind"] = "teleport";
  EXPECT_EQ(recordFromJson(j).error(), "record step 2: unknown step kind \"teleport\"");
  j = recordToJson(sample());
  j["steps"][0].erase("lengths");
  EXPECT_EQ(recordFromJson(j).error(), "record step 0: split step needs a list field \"lengths\"");
  j = recordToJson(sample());
  j["result"]["error"] = "oops";
  EXPECT_EQ(recordFromJson(j).error(), "record result has unknown error kind \"oops\"");
}

TEST(Record, FilesOfLinesAndBareStepLists) {
  std::string path = ::testing::TempDir() + "/records.jsonl";
  std::remove(path.c_str());
  ASSERT_TRUE(appendRecordsFile(path, {sample(), sample()}).ok());
  auto recs = readRecordsFile(path);
  ASSERT_TRUE(recs.ok()) << recs.error();
  EXPECT_EQ(recs->size(), 2u);
  {
    std::ofstream out(path, std::ios::app);
    out << "# a comment\n\n{\"version\": 1}\n";
  }
  auto bad = readRecordsFile(path);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().find(":5: record needs a string field \"workload_key\""), std::string::npos) << bad.error();

  std::string steps_path = ::testing::TempDir() + "/steps.json";
  {
    std::ofstream out(steps_path);
    out << "[{\"kind\": \"split\", \"stage\": \"C\", \"iter\": \"i\", \"lengths\": [8], \"inner_to_outer\": true},"
           " {\"kind\": \"annotate\", \"stage\": \"C\", \"iter\": \"i.1\", \"annotation\": \"vectorize\"}]";
  }
  auto manual = readRecordsFile(steps_path);
  ASSERT_TRUE(manual.ok()) << manual.error();
  ASSERT_EQ(manual->size(), 1u);
  EXPECT_EQ((*manual)[0].steps.size(), 2u);
}

}  // namespace
}  // namespace ttune::schedule
