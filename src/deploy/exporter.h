// Exporting a compiled model for deployment (`ttune export`, Python's Model.export): writes
//   DIR/libNAME.so   the kernels' object code, the model image (execution plan, target, weights
//                    digest) and ttune's runtime (thread pool, plan interpreter, C API), linked by
//                    the export host's C++ compiler driver; exports only the C API, needs only
//                    libc, libm and libpthread on the deploy host
//   DIR/libNAME.a    the same as one relocatable object (C API symbols global, everything else
//                    local), for static linking with -lstdc++ -lm -lpthread
//   DIR/NAME.weights the weights the plan reads, packed as the schedules want them
//   DIR/NAME.h       the model's inputs and outputs as C constants
//   DIR/ttune_model.h the public C API (include/ttune/ttune_model.h)
//   DIR/NAME-config.cmake, DIR/NAME.pc, DIR/NAME-static.pc  for CMake's find_package and for
//                    pkg-config (deploy/package_files.h)
// The kernels, plan and weights are the executor's (executor::ModelArtifacts), so the exported
// model computes bit for bit what the in-process executor computes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "executor/executor.h"

namespace ttune::deploy {

struct ExportOptions {
  std::string dir;
  std::string name;      // a C identifier: names the files
  std::string source;    // what was exported (model name or file), for the generated header
  std::string compiler;  // C++ compiler driver; empty: $CXX, else c++
  bool static_archive = true;
  std::string precision = "fp32";  // what its products compute in (ttune_model_precision)
};

struct ExportResult {
  std::string dir, name, library, archive, weights, header, api_header, cmake_config, pkg_config, compiler;
  int64_t library_bytes = 0, archive_bytes = 0, weights_bytes = 0, workspace_bytes = 0;
  int kernels = 0, calls = 0;
  std::vector<std::string> cpu_features;
};

// Throws Error naming the directory, file, option or tool at fault.
ExportResult exportModel(const executor::ModelArtifacts& artifacts, const ExportOptions& options);

// A C identifier made from a model name ("mobilenet_v2", "my-model.v3" -> "my_model_v3").
std::string exportName(const std::string& model_name);

// The C API functions an exported library exports (from the TTUNE_API declarations of the header).
std::vector<std::string> apiSymbols();

}  // namespace ttune::deploy
