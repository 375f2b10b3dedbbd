// Fuzz target: the ONNX importer on arbitrary bytes (protobuf parsing, graph checks, shape
// inference, constant folding of what it imports).
#include "frontend/onnx/onnx_importer.h"
#include "fuzz_targets.h"
#include "support/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    ttune::frontend::importOnnxBytes(std::string(reinterpret_cast<const char*>(data), size));
  } catch (const ttune::Error&) {
  }
  return 0;
}
