# ttune_module(NAME SOURCES... DEPS ...): one static library per src/ folder.
function(ttune_module name)
  cmake_parse_arguments(M "" "" "SOURCES;DEPS" ${ARGN})
  add_library(ttune_${name} STATIC ${M_SOURCES})
  target_include_directories(ttune_${name} PUBLIC ${PROJECT_SOURCE_DIR}/src)
  target_link_libraries(ttune_${name} PUBLIC ${M_DEPS})
endfunction()

# ttune_test(NAME SOURCES... DEPS ... [PROPERTIES ...]): one GoogleTest binary per tests/ folder;
# PROPERTIES are added to every test case (e.g. the PostgreSQL server fixture, tests/CMakeLists.txt).
function(ttune_test name)
  # SERIAL: the suite compares measured times, so it must not share the cores with other tests.
  cmake_parse_arguments(T "SERIAL" "" "SOURCES;DEPS;PROPERTIES" ${ARGN})
  add_executable(test_${name} ${T_SOURCES})
  target_link_libraries(test_${name} PRIVATE ${T_DEPS} GTest::gtest GTest::gtest_main)
  include(GoogleTest)
  if(T_SERIAL)
    gtest_discover_tests(test_${name} DISCOVERY_TIMEOUT 60 PROPERTIES TIMEOUT 600 RUN_SERIAL TRUE ${T_PROPERTIES})
  else()
    gtest_discover_tests(test_${name} DISCOVERY_TIMEOUT 60 PROPERTIES TIMEOUT 600 ${T_PROPERTIES})
  endif()
endfunction()
