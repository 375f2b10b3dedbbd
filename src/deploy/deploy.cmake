# The runtime every exported model links (no LLVM, XGBoost or SQLite): thread pool, kernel ABI,
# plan interpreter, weights file, CPU check and the C API. Hidden visibility: only the C API
# (TTUNE_API) is visible; never sanitized, since it is linked into libraries outside ttune's build.
add_library(ttune_rt STATIC runtime/abi.cc runtime/thread_pool.cc runtime/plan.cc support/assert.cc
            deploy/image.cc deploy/weights_file.cc deploy/cpu_features.cc deploy/capi.cc)
target_include_directories(ttune_rt PRIVATE ${PROJECT_SOURCE_DIR}/src ${PROJECT_SOURCE_DIR}/include)
set_target_properties(ttune_rt PROPERTIES CXX_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON)
if(TTUNE_SANITIZE)
  target_compile_options(ttune_rt PRIVATE -fno-sanitize=all)
endif()

# ttune embeds the runtime archive and the headers exports need (deploy/runtime_files.cc); the
# generated digest header makes ccache and Ninja rebuild the embedding when they change.
set(TTUNE_EMBED_DIGEST_H ${CMAKE_CURRENT_BINARY_DIR}/deploy_embedded_digest.h)
add_custom_command(OUTPUT ${TTUNE_EMBED_DIGEST_H}
  COMMAND ${CMAKE_COMMAND} -DOUT=${TTUNE_EMBED_DIGEST_H}
          "-DFILES=$<TARGET_FILE:ttune_rt>$<SEMICOLON>${PROJECT_SOURCE_DIR}/include/ttune/ttune_model.h$<SEMICOLON>${CMAKE_CURRENT_SOURCE_DIR}/deploy/embedded.h"
          -P ${PROJECT_SOURCE_DIR}/cmake/EmbedDigest.cmake
  DEPENDS ttune_rt ${PROJECT_SOURCE_DIR}/include/ttune/ttune_model.h ${CMAKE_CURRENT_SOURCE_DIR}/deploy/embedded.h
          ${PROJECT_SOURCE_DIR}/cmake/EmbedDigest.cmake
  VERBATIM)
ttune_module(deploy SOURCES deploy/exporter.cc deploy/runtime_files.cc deploy/image.cc deploy/weights_file.cc deploy/cpu_features.cc
             ${TTUNE_EMBED_DIGEST_H} DEPS ttune_executor)
target_include_directories(ttune_deploy PRIVATE ${CMAKE_CURRENT_BINARY_DIR})
target_compile_definitions(ttune_deploy PRIVATE
  TTUNE_RT_ARCHIVE="$<TARGET_FILE:ttune_rt>"
  TTUNE_API_HEADER="${PROJECT_SOURCE_DIR}/include/ttune/ttune_model.h"
  TTUNE_EMBEDDED_HEADER="${CMAKE_CURRENT_SOURCE_DIR}/deploy/embedded.h")
