// Internal to the registry's operator tables (registry_ops*.cc): the parameter and input helpers
// every operator family uses, and the families kept in their own files. Not part of the ops API.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ops/registry.h"

namespace ttune::ops::registry_detail {

// A parameter spec with an integer, real or string default.
ParamSpec I(std::string name, int64_t def, std::string help);
ParamSpec F(std::string name, double def, std::string help);
ParamSpec S(std::string name, std::string def, std::string help);

// An input of the instance named `name`: an activation or a constant (weights, folded at load).
// Fails with the operator's name when the parameters give it a dimension that is not positive.
te::Tensor activation(const Params& p, const std::string& name, const te::Shape& shape,
                      te::DType dtype = te::DType::Float32);
te::Tensor constant(const Params& p, const std::string& name, const te::Shape& shape,
                    te::DType dtype = te::DType::Float32);

// Appends the indexing, search and sampling operators (registry_ops_indexing.cc).
void addIndexingOps(std::vector<OpEntry>& ops);

}  // namespace ttune::ops::registry_detail
