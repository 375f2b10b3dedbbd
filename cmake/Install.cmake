# The install layout (docs/install.md) and its mirror in the build tree. ttune finds its worker
# and the shipped bank relative to its own file (support/install_layout.h), so the build tree gets
# the same relative places as links: build/bin/ttune, build/python/ttune and an installed prefix
# all resolve the same way, and no path of the build or source tree is compiled in.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(TTUNE_PYTHON_INSTALL_DIR lib/python3/dist-packages CACHE STRING
    "Where `cmake --install` puts the Python package, relative to the prefix (Debian's layout)")
set(TTUNE_AARCH64_BUILD_DIR ${CMAKE_BINARY_DIR}/cross-aarch64)

# --- the build tree mirrors the install layout -------------------------------------------------
file(MAKE_DIRECTORY ${CMAKE_BINARY_DIR}/libexec/ttune/aarch64 ${CMAKE_BINARY_DIR}/share/ttune)
file(CREATE_LINK ../../bin/ttune-worker ${CMAKE_BINARY_DIR}/libexec/ttune/ttune-worker SYMBOLIC)
file(CREATE_LINK ${PROJECT_SOURCE_DIR}/bank ${CMAKE_BINARY_DIR}/share/ttune/bank SYMBOLIC)
if(TTUNE_AARCH64_CXX)
  file(CREATE_LINK ../../../cross-aarch64/ttune-worker ${CMAKE_BINARY_DIR}/libexec/ttune/aarch64/ttune-worker SYMBOLIC)
endif()

# --- cmake --install ---------------------------------------------------------------------------
# Installed programs keep the run path of the libraries they were linked with (LLVM's own folder).
set_target_properties(ttune ttune-worker PROPERTIES INSTALL_RPATH_USE_LINK_PATH ON)
install(TARGETS ttune RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS ttune-worker RUNTIME DESTINATION ${CMAKE_INSTALL_LIBEXECDIR}/ttune)
install(FILES ${PROJECT_SOURCE_DIR}/include/ttune/ttune_model.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/ttune)

# The runtime archive every export links (also embedded in `ttune`), as the CMake target
# ttune::runtime for programs that build their own plan tables against the C API.
set_target_properties(ttune_rt PROPERTIES EXPORT_NAME runtime)
target_include_directories(ttune_rt INTERFACE $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
                                              $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
target_link_libraries(ttune_rt INTERFACE Threads::Threads)
install(TARGETS ttune_rt EXPORT ttuneTargets ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}/ttune)
install(EXPORT ttuneTargets NAMESPACE ttune:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/ttune)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/ttuneConfig.cmake.in
  ${CMAKE_BINARY_DIR}/cmake/ttuneConfig.cmake INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/ttune
  PATH_VARS CMAKE_INSTALL_BINDIR)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/cmake/ttuneConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/cmake/ttuneConfig.cmake ${CMAKE_BINARY_DIR}/cmake/ttuneConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/ttune)

if(TTUNE_AARCH64_CXX)
  install(PROGRAMS ${TTUNE_AARCH64_BUILD_DIR}/ttune-worker DESTINATION ${CMAKE_INSTALL_LIBEXECDIR}/ttune/aarch64)
  install(FILES ${TTUNE_AARCH64_BUILD_DIR}/libttune_rt.a DESTINATION ${CMAKE_INSTALL_LIBDIR}/ttune/aarch64)
endif()

install(DIRECTORY ${PROJECT_SOURCE_DIR}/bank/ DESTINATION ${CMAKE_INSTALL_DATADIR}/ttune/bank)
# README.md links docs/...: the same relative places under share/doc/ttune.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs PATTERN "*.1" EXCLUDE)
install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/examples DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(FILES ${PROJECT_SOURCE_DIR}/docs/ttune.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)

if(TTUNE_BUILD_PYTHON)
  set_target_properties(_ttune PROPERTIES INSTALL_RPATH_USE_LINK_PATH ON)
  install(TARGETS _ttune LIBRARY DESTINATION ${TTUNE_PYTHON_INSTALL_DIR}/ttune)
  install(FILES ${PROJECT_SOURCE_DIR}/python/ttune/__init__.py DESTINATION ${TTUNE_PYTHON_INSTALL_DIR}/ttune)
endif()
