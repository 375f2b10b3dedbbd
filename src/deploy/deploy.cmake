# The runtime every exported model links (no LLVM, XGBoost or SQLite): thread pool, kernel ABI,
# plan interpreter, weights file, CPU check and the C API. Hidden visibility: only the C API
# (TTUNE_API) is visible; never sanitized, since it is linked into libraries outside ttune's build.
include(${PROJECT_SOURCE_DIR}/cmake/RuntimeSources.cmake)
add_library(ttune_rt STATIC ${TTUNE_RT_SOURCES})
target_include_directories(ttune_rt PRIVATE ${PROJECT_SOURCE_DIR}/src ${PROJECT_SOURCE_DIR}/include)
set_target_properties(ttune_rt PROPERTIES CXX_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON)
if(TTUNE_SANITIZE)
  target_compile_options(ttune_rt PRIVATE -fno-sanitize=all)
endif()

# The AArch64 runtime archive and measurement worker, when Debian's cross toolchain is present
# (scripts/setup.sh installs it): cross/CMakeLists.txt built as a sub-project. BUILD_ALWAYS lets
# its own Ninja notice changed sources (a no-op otherwise).
find_program(TTUNE_AARCH64_CXX aarch64-linux-gnu-g++)
set(TTUNE_EMBED_FILES $<TARGET_FILE:ttune_rt>)
set(TTUNE_EMBED_DEPENDS ttune_rt)
if(TTUNE_AARCH64_CXX)
  include(ExternalProject)
  set(TTUNE_CROSS_AARCH64_DIR ${CMAKE_BINARY_DIR}/cross-aarch64)
  set(TTUNE_RT_AARCH64 ${TTUNE_CROSS_AARCH64_DIR}/libttune_rt.a)
  set(TTUNE_WORKER_AARCH64 ${TTUNE_CROSS_AARCH64_DIR}/ttune-worker)
  ExternalProject_Add(ttune_cross_aarch64
    SOURCE_DIR ${PROJECT_SOURCE_DIR}/cross
    BINARY_DIR ${TTUNE_CROSS_AARCH64_DIR}
    CMAKE_GENERATOR Ninja
    CMAKE_ARGS -DCMAKE_BUILD_TYPE=Release -DCMAKE_TOOLCHAIN_FILE=${PROJECT_SOURCE_DIR}/cmake/toolchain-aarch64-linux-gnu.cmake
               -DCMAKE_CXX_COMPILER=${TTUNE_AARCH64_CXX} -DCMAKE_CXX_COMPILER_LAUNCHER=${CMAKE_CXX_COMPILER_LAUNCHER}
               -DTTUNE_SOURCE_DIR=${PROJECT_SOURCE_DIR}
    BUILD_ALWAYS ON
    INSTALL_COMMAND ""
    BUILD_BYPRODUCTS ${TTUNE_RT_AARCH64} ${TTUNE_WORKER_AARCH64})
  list(APPEND TTUNE_EMBED_FILES ${TTUNE_RT_AARCH64})
  list(APPEND TTUNE_EMBED_DEPENDS ttune_cross_aarch64 ${TTUNE_RT_AARCH64})
else()
  message(STATUS "ttune: no aarch64-linux-gnu-g++: AArch64 exports and workers are not built")
endif()

# ttune embeds the runtime archive and the headers exports need (deploy/runtime_files.cc); the
# generated digest header makes ccache and Ninja rebuild the embedding when they change.
set(TTUNE_EMBED_DIGEST_H ${CMAKE_CURRENT_BINARY_DIR}/deploy_embedded_digest.h)
add_custom_command(OUTPUT ${TTUNE_EMBED_DIGEST_H}
  COMMAND ${CMAKE_COMMAND} -DOUT=${TTUNE_EMBED_DIGEST_H}
          "-DFILES=$<JOIN:${TTUNE_EMBED_FILES},$<SEMICOLON>>$<SEMICOLON>${PROJECT_SOURCE_DIR}/include/ttune/ttune_model.h$<SEMICOLON>${CMAKE_CURRENT_SOURCE_DIR}/deploy/embedded.h"
          -P ${PROJECT_SOURCE_DIR}/cmake/EmbedDigest.cmake
  DEPENDS ${TTUNE_EMBED_DEPENDS} ${PROJECT_SOURCE_DIR}/include/ttune/ttune_model.h ${CMAKE_CURRENT_SOURCE_DIR}/deploy/embedded.h
          ${PROJECT_SOURCE_DIR}/cmake/EmbedDigest.cmake
  VERBATIM)
ttune_module(deploy SOURCES deploy/exporter.cc deploy/package_files.cc deploy/runtime_files.cc deploy/image.cc deploy/weights_file.cc deploy/cpu_features.cc
             ${TTUNE_EMBED_DIGEST_H} DEPS ttune_executor)
target_include_directories(ttune_deploy PRIVATE ${CMAKE_CURRENT_BINARY_DIR})
target_compile_definitions(ttune_deploy PRIVATE
  TTUNE_RT_ARCHIVE="$<TARGET_FILE:ttune_rt>"
  TTUNE_API_HEADER="${PROJECT_SOURCE_DIR}/include/ttune/ttune_model.h"
  TTUNE_EMBEDDED_HEADER="${CMAKE_CURRENT_SOURCE_DIR}/deploy/embedded.h")
if(TTUNE_AARCH64_CXX)
  target_compile_definitions(ttune_deploy PRIVATE TTUNE_RT_AARCH64_ARCHIVE="${TTUNE_RT_AARCH64}")
  add_dependencies(ttune_deploy ttune_cross_aarch64)
endif()
