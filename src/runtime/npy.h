// NumPy .npy files (format 1.0/2.0, little-endian, C order) for model inputs and outputs, so
// results can be compared with other frameworks. Supported dtypes: float32, float64, float16, bool,
// int8 / 16 / 32 / 64 and uint8 / 16 / 32 / 64; bfloat16 (which numpy lacks) is written as its
// uint16 bits and reads back as uint16 (asElemType reinterprets it).
#pragma once

#include <string>
#include <string_view>

#include "runtime/ndarray.h"
#include "support/expected.h"

namespace ttune::runtime {

Expected<NDArray> readNpy(const std::string& path);
// The same from the file's bytes; `name` names the source in error messages. Every header field
// and size is checked against the bytes given (no allocation beyond them).
Expected<NDArray> parseNpy(std::string_view bytes, const std::string& name);
Status writeNpy(const std::string& path, const NDArray& array);

}  // namespace ttune::runtime
