# ONNX frontend sources (owned by the frontend helper)
find_package(Protobuf REQUIRED)
find_package(ONNX REQUIRED CONFIG)
ttune_module(frontend SOURCES frontend/onnx/tensor_proto.cc frontend/onnx/context.cc
             frontend/onnx/importer.cc frontend/onnx/graph_rules.cc frontend/onnx/opset_upgrade.cc frontend/onnx/if_branch.cc frontend/onnx/ops_elementwise.cc frontend/onnx/ops_nn.cc frontend/onnx/ops_conv.cc frontend/onnx/ops_einsum.cc frontend/onnx/ops_rnn.cc frontend/onnx/ops_loss.cc frontend/onnx/ops_quant.cc frontend/onnx/int8_products.cc
             frontend/onnx/ops_shape.cc frontend/onnx/ops_tensor.cc frontend/onnx/ops_reduce.cc
             frontend/onnx/ops_resize.cc frontend/onnx/ops_indexing.cc frontend/onnx/ops_sample.cc frontend/onnx/ops_signal.cc frontend/onnx/ops_linalg.cc frontend/onnx/ops_text.cc frontend/onnx/ops_dynamic.cc frontend/onnx/ops_control.cc
             DEPS ttune_graph onnx onnx_proto)
