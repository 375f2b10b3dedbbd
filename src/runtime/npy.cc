#include "runtime/npy.h"

#include <cstring>
#include <fstream>

#include "support/strings.h"

namespace ttune::runtime {

namespace {
const char* descr(te::DType t) {
  switch (t) {
    case te::DType::Float32: return "<f4";
    case te::DType::Int32: return "<i4";
    case te::DType::Int64: return "<i8";
    case te::DType::Bool: return "|b1";
  }
  return "?";
}
}  // namespace

Expected<NDArray> readNpy(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Unexpected("cannot open " + path);
  char magic[8];
  in.read(magic, 8);
  if (!in || std::memcmp(magic, "\x93NUMPY", 6) != 0) return Unexpected(path + " is not a .npy file");
  uint32_t hlen = 0;
  if (magic[6] == 1) {
    uint16_t h;
    in.read(reinterpret_cast<char*>(&h), 2);
    hlen = h;
  } else {
    in.read(reinterpret_cast<char*>(&hlen), 4);
  }
  std::string header(hlen, '\0');
  in.read(header.data(), hlen);
  if (!in) return Unexpected(path + " has a truncated header");
  auto field = [&](const std::string& key) -> std::string {
    size_t p = header.find("'" + key + "'");
    if (p == std::string::npos) return "";
    p = header.find(':', p);
    return p == std::string::npos ? "" : trim(header.substr(p + 1));
  };
  std::string d = field("descr");
  std::optional<te::DType> dtype;
  for (te::DType t : {te::DType::Float32, te::DType::Int32, te::DType::Int64, te::DType::Bool})
    if (startsWith(d, std::string("'") + descr(t) + "'")) dtype = t;
  if (!dtype) return Unexpected(path + " holds dtype " + d.substr(0, d.find(',')) + "; ttune reads float32, int32, int64 and bool");
  if (startsWith(field("fortran_order"), "True")) return Unexpected(path + " is in Fortran order; save it C-contiguous");
  std::string sh = field("shape");
  size_t open = sh.find('('), close = sh.find(')');
  if (open == std::string::npos || close == std::string::npos) return Unexpected(path + " has no shape in its header");
  te::Shape shape;
  for (const std::string& part : split(sh.substr(open + 1, close - open - 1), ',')) {
    if (trim(part).empty()) continue;
    auto v = parseInt(part);
    if (!v || *v <= 0) return Unexpected(path + " has an unsupported dimension '" + trim(part) + "'");
    shape.push_back(*v);
  }
  NDArray a = NDArray::empty(shape, *dtype);
  in.read(static_cast<char*>(a.data()), a.bytes());
  if (!in) return Unexpected(path + " holds fewer elements than its shape says");
  return a;
}

Status writeNpy(const std::string& path, const NDArray& a) {
  std::string shape = "(";
  for (size_t i = 0; i < a.shape().size(); ++i) shape += std::to_string(a.shape()[i]) + (a.shape().size() == 1 || i + 1 < a.shape().size() ? "," : "");
  shape += ")";
  std::string header = std::string("{'descr': '") + descr(a.dtype()) + "', 'fortran_order': False, 'shape': " + shape + ", }";
  size_t total = 10 + header.size() + 1;
  header += std::string((64 - total % 64) % 64, ' ') + "\n";
  std::ofstream out(path, std::ios::binary);
  if (!out) return Unexpected("cannot write " + path);
  out.write("\x93NUMPY\x01\x00", 8);
  uint16_t h = static_cast<uint16_t>(header.size());
  out.write(reinterpret_cast<const char*>(&h), 2);
  out.write(header.data(), static_cast<std::streamsize>(header.size()));
  out.write(static_cast<const char*>(a.data()), a.bytes());
  if (!out) return Unexpected("cannot write " + path);
  return okStatus();
}

}  // namespace ttune::runtime
