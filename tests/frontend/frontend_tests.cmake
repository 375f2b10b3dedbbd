# frontend tests
ttune_test(frontend SOURCES frontend/conformance_test.cc frontend/models_test.cc frontend/import_test.cc frontend/import_errors_test.cc frontend/patterns_test.cc frontend/conv_einsum_test.cc frontend/rnn_test.cc frontend/quant_test.cc frontend/model_kernels_test.cc frontend/onnx_builder.cc frontend/staged_test.cc frontend/old_opset_test.cc frontend/lp_test.cc frontend/linalg_text_test.cc
           DEPS ttune_frontend ttune_executor ttune_testing onnx)
add_dependencies(test_frontend ttune-worker)
