ttune_module(ops SOURCES ops/op_utils.cc ops/transform.cc ops/elementwise.cc ops/nn.cc ops/pool.cc
             ops/reduce.cc ops/recurrent.cc ops/indexing.cc ops/sample.cc ops/registry.cc ops/registry_ops.cc ops/registry_ops_indexing.cc ops/winograd.cc DEPS ttune_te)
