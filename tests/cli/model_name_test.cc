// The name a model's runs go under in the bank (cli/model_loader.h): the sizes a command binds
// are part of it, so one model tuned at two sizes keeps two runs and choices, and one is a
// transfer source for the other.
#include <gtest/gtest.h>

#include "cli/model_loader.h"

namespace ttune::cli {
namespace {

TEST(ModelName, NamesTheBoundSizesInOneOrder) {
  ModelSource src;
  src.spec = "/models/bert.onnx";
  EXPECT_EQ(modelName(src), "bert");
  src.dims = {"seq=384", "batch=8"};
  EXPECT_EQ(modelName(src), "bert@batch=8,seq=384");
  ModelSource other = src;
  other.dims = {"batch=8", "seq=384"};
  EXPECT_EQ(modelName(other), modelName(src));  // the order given does not matter
  other.dims = {"batch=8", "seq=128"};
  EXPECT_NE(modelName(other), modelName(src));
  src.dims.clear();
  src.input_shapes = {"input=1x3x320x320"};
  src.precision = Precision::Bf16;
  EXPECT_EQ(modelName(src), "bert_bf16@input=1x3x320x320");
  EXPECT_EQ(modelName(src.spec), "bert");  // the display name of the spec alone
}

}  // namespace
}  // namespace ttune::cli
