# Every dependency comes from Debian packages installed by scripts/setup.sh.
find_package(LLVM 19.1 REQUIRED CONFIG PATHS /usr/lib/llvm-19/lib/cmake/llvm NO_DEFAULT_PATH)
find_package(nlohmann_json REQUIRED)
find_package(CLI11 REQUIRED)
find_package(Threads REQUIRED)

add_library(ttune_llvm INTERFACE)
target_include_directories(ttune_llvm SYSTEM INTERFACE ${LLVM_INCLUDE_DIRS})
target_compile_definitions(ttune_llvm INTERFACE ${LLVM_DEFINITIONS})
target_link_libraries(ttune_llvm INTERFACE LLVM)

if(TTUNE_BUILD_TESTS)
  find_package(GTest REQUIRED)
endif()
