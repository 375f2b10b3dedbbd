# model tests
ttune_test(models SOURCES models/reference.cc models/zoo_test.cc models/blocks_test.cc models/activation_ranges_test.cc DEPS ttune_models)
ttune_test(compiled_zoo SOURCES models/compiled_zoo_test.cc models/reference.cc DEPS ttune_models ttune_executor)
target_include_directories(test_compiled_zoo PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/models)
add_dependencies(test_compiled_zoo ttune-worker)
