// Fuzz targets: each is the libFuzzer entry point LLVMFuzzerTestOneInput for one input ttune
// reads from outside (ONNX files, records, bank imports, .npy files, the measurement worker's
// requests). A target accepts any bytes: it may reject them with ttune::Error or a failed
// Expected, and must never crash, hang, leak or read out of bounds (run under sanitizers by
// scripts/fuzz.sh with libFuzzer; replayed and mutated for a few seconds in the test suite by
// fuzz_main.cc).
#pragma once

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
