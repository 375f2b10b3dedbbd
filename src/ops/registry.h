// The operator registry behind `ttune op NAME key=value...` and `ttune ops`: every entry names an
// operator, documents its parameters with typed defaults, and builds a standalone instance of it
// (placeholders for the activations, constant placeholders for the weights, and the outputs) from
// parsed parameters.
//
// Invariants: a parameter's type is the type of its default (integer, real or string; lists and
// shapes are strings like "1,1,2,2" and "1x64x56x56", checked when read); parsing rejects unknown
// keys, repeated keys and values of the wrong type with an Error naming the operator and the key.
// An instance lists activations first, then weights.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "te/compute_dag.h"

namespace ttune::ops {

using ParamValue = std::variant<int64_t, double, std::string>;

struct ParamSpec {
  std::string name;
  ParamValue default_value;
  std::string help;
};

struct OpEntry;

// Parameter values of one operator: the defaults overridden by key=value strings.
class Params {
 public:
  // Throws Error naming the op and the key for malformed items, unknown or repeated keys and
  // values of the wrong type. Integer parameters also accept true/false.
  static Params parse(const OpEntry& op, const std::vector<std::string>& key_values);
  static Params defaults(const OpEntry& op) { return parse(op, {}); }

  const std::string& opName() const { return op_; }
  int64_t integer(const std::string& name) const;
  double real(const std::string& name) const;  // integer parameters convert
  const std::string& str(const std::string& name) const;
  bool flag(const std::string& name) const { return integer(name) != 0; }
  // A string parameter read as a comma-separated integer list ("" gives an empty list).
  std::vector<int64_t> ints(const std::string& name) const;
  // A string parameter read as a shape "1x64x56x56", or as a comma-separated list of shapes.
  te::Shape shape(const std::string& name) const;
  std::vector<te::Shape> shapes(const std::string& name) const;
  // True when the value was given explicitly rather than defaulted.
  bool isSet(const std::string& name) const;
  // "key=value ..." for every parameter in spec order.
  std::string toString() const;

 private:
  size_t indexOf(const std::string& name) const;

  std::string op_;
  std::vector<std::pair<std::string, ParamValue>> values_;  // spec order
  std::vector<bool> set_;
};

struct OpInstance {
  std::vector<te::Tensor> inputs;  // activations first, then weights
  std::vector<te::Tensor> outputs;
  te::ComputeDAG dag() const { return te::ComputeDAG(inputs, outputs); }
};

struct OpEntry {
  std::string name;
  std::string summary;
  std::vector<ParamSpec> params;
  std::function<OpInstance(const Params&)> build;
  // key=value overrides giving a small instance that the reference evaluator runs in
  // milliseconds (used by tests and as a usage example); the defaults are realistic model sizes.
  std::vector<std::string> example;
};

// Every registered operator, sorted by name.
const std::vector<OpEntry>& allOps();
// Throws Error("unknown operator 'foo'; run `ttune ops` to list them").
const OpEntry& findOp(const std::string& name);
// findOp(name).build(Params::parse(..., key_values)).
OpInstance buildOp(const std::string& name, const std::vector<std::string>& key_values);
// Multi-line help: "name: summary" then one line per parameter with its default.
std::string usage(const OpEntry& op);

}  // namespace ttune::ops
