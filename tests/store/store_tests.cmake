ttune_test(store SOURCES store/bank_test.cc store/import_test.cc store/durability_test.cc store/job_queue_test.cc store/types_test.cc
           DEPS ttune_store PROPERTIES ${TTUNE_PG_TEST_PROPERTIES})
target_include_directories(test_store PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
target_compile_definitions(test_store PRIVATE TTUNE_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
