# deploy tests: the exported runtime's parsers, and exported libraries through their C API, the
# `ttune export` command and the C example (built with the system compiler).
ttune_test(deploy SOURCES deploy/deploy_test.cc deploy/export_test.cc deploy/range_export_test.cc deploy/soak_test.cc frontend/onnx_builder.cc models/reference.cc
           DEPS ttune_deploy ttune_cli ttune_frontend ttune_models onnx ${CMAKE_DL_LIBS})
target_include_directories(test_deploy PRIVATE ${CMAKE_CURRENT_SOURCE_DIR} ${CMAKE_CURRENT_SOURCE_DIR}/frontend ${CMAKE_CURRENT_SOURCE_DIR}/models
                           ${PROJECT_SOURCE_DIR}/include)
target_compile_definitions(test_deploy PRIVATE TTUNE_BIN="$<TARGET_FILE:ttune>" TTUNE_EXAMPLES="${PROJECT_SOURCE_DIR}/examples"
                           TTUNE_CMAKE="${CMAKE_COMMAND}")
add_dependencies(test_deploy ttune ttune-worker)
