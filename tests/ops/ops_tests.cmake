ttune_test(ops SOURCES ops/test_util.cc ops/nn_test.cc ops/pool_test.cc ops/elementwise_test.cc
           ops/reduce_test.cc ops/indexing_test.cc ops/sample_test.cc ops/transform_test.cc ops/registry_test.cc ops/winograd_test.cc ops/int8_test.cc DEPS ttune_ops)
