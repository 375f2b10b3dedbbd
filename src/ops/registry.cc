#include "ops/registry.h"

#include <algorithm>

#include "support/assert.h"
#include "support/error.h"
#include "support/overload.h"
#include "support/strings.h"

namespace ttune::ops {

// Defined in registry_ops.cc.
std::vector<OpEntry> registeredOps();

namespace {

std::string valueToString(const ParamValue& v) {
  return std::visit(Overload{
                        [](int64_t x) { return std::to_string(x); },
                        [](double x) { return formatDouble(x); },
                        [](const std::string& x) { return x; },
                    },
                    v);
}

const char* typeName(const ParamValue& v) {
  return std::visit(Overload{
                        [](int64_t) { return "an integer"; },
                        [](double) { return "a number"; },
                        [](const std::string&) { return "a string"; },
                    },
                    v);
}

}  // namespace

Params Params::parse(const OpEntry& op, const std::vector<std::string>& key_values) {
  Params p;
  p.op_ = op.name;
  for (const ParamSpec& s : op.params) p.values_.emplace_back(s.name, s.default_value);
  p.set_.assign(p.values_.size(), false);
  for (const std::string& item : key_values) {
    size_t eq = item.find('=');
    TT_CHECK_ARG(eq != std::string::npos && eq > 0, op.name, ": expected key=value, got '", item, "'");
    std::string key = trim(std::string_view(item).substr(0, eq));
    std::string text = trim(std::string_view(item).substr(eq + 1));
    auto it = std::find_if(p.values_.begin(), p.values_.end(), [&](const auto& kv) { return kv.first == key; });
    if (it == p.values_.end()) {
      std::string known = join(op.params, ", ", [](const ParamSpec& s) { return s.name; });
      fail(op.name, ": unknown parameter '", key, "' (known: ", known.empty() ? "none" : known, ")");
    }
    size_t idx = static_cast<size_t>(it - p.values_.begin());
    TT_CHECK_ARG(!p.set_[idx], op.name, ": parameter '", key, "' is given twice");
    p.set_[idx] = true;
    ParamValue& value = it->second;
    if (std::holds_alternative<int64_t>(value)) {
      std::optional<int64_t> v;
      if (text == "true")
        v = 1;
      else if (text == "false")
        v = 0;
      else
        v = parseInt(text);
      TT_CHECK_ARG(v.has_value(), op.name, ": parameter '", key, "' expects an integer, got '", text, "'");
      value = *v;
    } else if (std::holds_alternative<double>(value)) {
      std::optional<double> v = parseDouble(text);
      TT_CHECK_ARG(v.has_value(), op.name, ": parameter '", key, "' expects a number, got '", text, "'");
      value = *v;
    } else {
      value = text;
    }
  }
  return p;
}

size_t Params::indexOf(const std::string& name) const {
  for (size_t i = 0; i < values_.size(); ++i)
    if (values_[i].first == name) return i;
  TT_UNREACHABLE("operator " + op_ + " has no parameter " + name);
}

int64_t Params::integer(const std::string& name) const {
  const ParamValue& v = values_[indexOf(name)].second;
  TT_ASSERT(std::holds_alternative<int64_t>(v), "parameter " + name + " of " + op_ + " is " + typeName(v));
  return std::get<int64_t>(v);
}

double Params::real(const std::string& name) const {
  const ParamValue& v = values_[indexOf(name)].second;
  if (const int64_t* i = std::get_if<int64_t>(&v)) return static_cast<double>(*i);
  TT_ASSERT(std::holds_alternative<double>(v), "parameter " + name + " of " + op_ + " is " + typeName(v));
  return std::get<double>(v);
}

const std::string& Params::str(const std::string& name) const {
  const ParamValue& v = values_[indexOf(name)].second;
  TT_ASSERT(std::holds_alternative<std::string>(v), "parameter " + name + " of " + op_ + " is " + typeName(v));
  return std::get<std::string>(v);
}

std::vector<int64_t> Params::ints(const std::string& name) const {
  const std::string& text = str(name);
  std::vector<int64_t> out;
  if (trim(text).empty()) return out;
  for (const std::string& item : split(text, ',')) {
    std::optional<int64_t> v = parseInt(item);
    TT_CHECK_ARG(v.has_value(), op_, ": parameter '", name, "' expects a comma-separated list of integers, got '", text,
                 "'");
    out.push_back(*v);
  }
  return out;
}

namespace {

std::optional<te::Shape> parseShape(const std::string& text) {
  te::Shape s;
  if (trim(text).empty()) return std::nullopt;
  for (const std::string& item : split(text, 'x')) {
    std::optional<int64_t> v = parseInt(item);
    if (!v || *v <= 0) return std::nullopt;
    s.push_back(*v);
  }
  return s;
}

}  // namespace

te::Shape Params::shape(const std::string& name) const {
  const std::string& text = str(name);
  std::optional<te::Shape> s = parseShape(text);
  TT_CHECK_ARG(s.has_value(), op_, ": parameter '", name,
               "' expects a shape of positive dimensions like 1x64x56x56, got '", text, "'");
  return *s;
}

std::vector<te::Shape> Params::shapes(const std::string& name) const {
  const std::string& text = str(name);
  std::vector<te::Shape> out;
  for (const std::string& item : split(text, ',')) {
    std::optional<te::Shape> s = parseShape(item);
    TT_CHECK_ARG(s.has_value(), op_, ": parameter '", name,
                 "' expects comma-separated shapes like 1x64x28x28,1x32x28x28, got '", text, "'");
    out.push_back(*s);
  }
  return out;
}

bool Params::isSet(const std::string& name) const { return set_[indexOf(name)]; }

std::string Params::toString() const {
  return join(values_, " ", [](const auto& kv) { return kv.first + "=" + valueToString(kv.second); });
}

const std::vector<OpEntry>& allOps() {
  static const std::vector<OpEntry> ops = [] {
    std::vector<OpEntry> v = registeredOps();
    std::sort(v.begin(), v.end(), [](const OpEntry& a, const OpEntry& b) { return a.name < b.name; });
    return v;
  }();
  return ops;
}

const OpEntry& findOp(const std::string& name) {
  for (const OpEntry& e : allOps())
    if (e.name == name) return e;
  fail("unknown operator '", name, "'; run `ttune ops` to list them");
}

OpInstance buildOp(const std::string& name, const std::vector<std::string>& key_values) {
  const OpEntry& op = findOp(name);
  return op.build(Params::parse(op, key_values));
}

std::string usage(const OpEntry& op) {
  std::string s = op.name + ": " + op.summary + "\n";
  for (const ParamSpec& p : op.params) {
    std::string def = valueToString(p.default_value);
    s += "  " + p.name + "=" + (def.empty() ? "\"\"" : def) + "  " + p.help + "\n";
  }
  if (!op.example.empty())
    s += "  example: ttune op " + op.name + " " + join(op.example, " ", [](const std::string& x) { return x; }) + "\n";
  return s;
}

}  // namespace ttune::ops
