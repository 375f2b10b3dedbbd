// NumPy .npy files (format 1.0/2.0, little-endian, C order) for model inputs and outputs, so
// results can be compared with other frameworks. Supported dtypes: float32, int32, int64, bool.
#pragma once

#include <string>

#include "runtime/ndarray.h"
#include "support/expected.h"

namespace ttune::runtime {

Expected<NDArray> readNpy(const std::string& path);
Status writeNpy(const std::string& path, const NDArray& array);

}  // namespace ttune::runtime
