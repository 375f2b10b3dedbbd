// The plain types of store/types.h: run kinds and statuses as the bank spells them (unknown
// spellings refused), the two target filters, and the signature stored for a kernel.
#include <gtest/gtest.h>

#include <memory>

#include "store/types.h"
#include "te/compute_dag.h"
#include "te/tensor.h"

namespace ttune::store {
namespace {

TEST(RunKind, NamesParseBackAndUnknownOnesAreRefused) {
  for (RunKind k : {RunKind::Tune, RunKind::Transfer, RunKind::Refresh}) EXPECT_EQ(parseRunKind(runKindName(k)), k);
  EXPECT_STREQ(runKindName(RunKind::Refresh), "refresh");
  for (RunStatus s : {RunStatus::Running, RunStatus::Finished, RunStatus::Interrupted})
    EXPECT_EQ(parseRunStatus(runStatusName(s)), s);
  EXPECT_STREQ(runStatusName(RunStatus::Interrupted), "interrupted");
  for (const char* bad : {"", "Tune", "tuning", "finished "}) {
    EXPECT_FALSE(parseRunKind(bad).has_value()) << bad;
    EXPECT_FALSE(parseRunStatus(bad).has_value()) << bad;
  }
  EXPECT_FALSE(parseRunKind("finished").has_value());  // a status is no kind
  EXPECT_FALSE(parseRunStatus("tune").has_value());
}

TEST(TargetFilter, ExactlyKeepsEveryFieldSameIsaOnlyTheCodesLevel) {
  schedule::TargetInfo t{"znver4", 512, 8, schedule::Isa::Avx512};
  TargetFilter e = TargetFilter::exactly(t);
  EXPECT_EQ(e.cpu, "znver4");
  EXPECT_EQ(e.vector_bits, 512);
  EXPECT_EQ(e.threads, 8);
  EXPECT_EQ(e.isa, schedule::Isa::Avx512);
  TargetFilter s = TargetFilter::sameIsa(t);
  EXPECT_EQ(s.cpu, "");     // any CPU
  EXPECT_EQ(s.threads, 0);  // any thread count
  EXPECT_EQ(s.vector_bits, 512);
  EXPECT_EQ(s.isa, schedule::Isa::Avx512);
  TargetFilter any;
  EXPECT_FALSE(any.isa.has_value());
}

TEST(WorkloadInfo, SignatureListsShapesAndTypesOfInputsAndOutputs) {
  te::Tensor a = te::placeholder("A", {2, 3}, te::DType::Int8);
  te::Tensor b =
      te::compute("B", {2, 3}, [&](const std::vector<te::Var>& v) { return te::cast(te::DType::Float32, a(v)) * 2.0; });
  te::ComputeDAG dag({a}, {b});
  Json sig = dagSignature(dag);
  EXPECT_EQ(sig.dump(), R"({"inputs":[{"shape":[2,3],"dtype":"int8"}],"outputs":[{"shape":[2,3],"dtype":"float32"}]})");
  WorkloadInfo w = workloadInfo(dag, "cls", "cast+mul");
  EXPECT_EQ(w.workload_key, dag.workloadKey());
  EXPECT_EQ(w.class_id, "cls");
  EXPECT_EQ(w.class_name, "cast+mul");
  ASSERT_TRUE(w.flops.has_value());
  EXPECT_EQ(*w.flops, dag.flops());
  EXPECT_EQ(w.signature, sig);
}

}  // namespace
}  // namespace ttune::store
