// Shape arithmetic (te/tensor.h) in a file of its own: the cross-built measurement worker and the
// exported runtime need it without the rest of the tensor-expression library.
#include "support/error.h"
#include "te/tensor.h"

namespace ttune::te {

int64_t shapeElements(const Shape& shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    if (__builtin_mul_overflow(n, d, &n))
      throw Error("the shape " + shapeToString(shape) + " has too many elements to count");
  return n;
}

std::string shapeToString(const Shape& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

}  // namespace ttune::te
