// Small loop IR statements for the lower tests: buffers and loops with constant extents.
#pragma once

#include <memory>
#include <string>

#include "lower/loop_ir.h"

namespace ttune::testing {

inline te::BufferRef buffer(const std::string& name, int64_t size, te::MemScope scope = te::MemScope::Arg) {
  return std::make_shared<const te::Buffer>(te::Buffer{name, te::DType::Float32, size, scope});
}

inline lower::Stmt loop(const te::Var& v, int64_t extent, lower::ForKind kind, lower::Stmt body) {
  return lower::makeFor(v, te::intImm(extent), extent, kind, std::move(body));
}

}  // namespace ttune::testing
