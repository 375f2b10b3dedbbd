#include "runtime/npy.h"

#include <cstring>
#include <fstream>
#include <iterator>
#include <optional>

#include "support/strings.h"

namespace ttune::runtime {

namespace {
const char* descr(te::DType t) {
  switch (t) {
    case te::DType::Float32:
      return "<f4";
    case te::DType::Int32:
      return "<i4";
    case te::DType::Int64:
      return "<i8";
    case te::DType::Bool:
      return "|b1";
    case te::DType::Int8:
      return "|i1";
    case te::DType::UInt8:
      return "|u1";
    case te::DType::Int16:
      return "<i2";
    case te::DType::UInt16:
      return "<u2";
    case te::DType::UInt32:
      return "<u4";
    case te::DType::UInt64:
      return "<u8";
    case te::DType::Float64:
      return "<f8";
    case te::DType::Float16:
      return "<f2";
    // numpy has no bfloat16: such tensors are written as their bits (and read back only when
    // the caller asks for bfloat16, readNpy's `as`).
    case te::DType::BFloat16:
      return "<u2";
  }
  return "?";
}
}  // namespace

Expected<NDArray> readNpy(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Unexpected("cannot open " + path);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) return Unexpected("cannot read " + path);
  return parseNpy(bytes, path);
}

Expected<NDArray> parseNpy(std::string_view b, const std::string& path) {
  if (b.size() < 10 || std::memcmp(b.data(), "\x93NUMPY", 6) != 0) return Unexpected(path + " is not a .npy file");
  uint8_t major = static_cast<uint8_t>(b[6]);
  if (major < 1 || major > 3)
    return Unexpected(path + " is a .npy file of an unknown format version " + std::to_string(major));
  size_t pos;
  uint64_t hlen = 0;
  if (major == 1) {
    uint16_t h;
    std::memcpy(&h, b.data() + 8, 2);
    hlen = h;
    pos = 10;
  } else {
    if (b.size() < 12) return Unexpected(path + " has a truncated header");
    uint32_t h;
    std::memcpy(&h, b.data() + 8, 4);
    hlen = h;
    pos = 12;
  }
  if (hlen > b.size() - pos) return Unexpected(path + " has a truncated header");
  std::string header(b.substr(pos, hlen));
  pos += hlen;
  auto field = [&](const std::string& key) -> std::string {
    size_t p = header.find("'" + key + "'");
    if (p == std::string::npos) return "";
    p = header.find(':', p);
    return p == std::string::npos ? "" : trim(header.substr(p + 1));
  };
  std::string d = field("descr");
  std::optional<te::DType> dtype;
  for (int i = 0; i < static_cast<int>(te::kLastDType); ++i)  // not BFloat16: its descr is uint16's
    if (startsWith(d, std::string("'") + descr(static_cast<te::DType>(i)) + "'")) dtype = static_cast<te::DType>(i);
  if (!dtype)
    return Unexpected(path + " holds dtype " + d.substr(0, d.find(',')) +
                      "; ttune reads float32, float64, float16, bool and the 8- to 64-bit integer types");
  if (startsWith(field("fortran_order"), "True"))
    return Unexpected(path + " is in Fortran order; save it C-contiguous");
  std::string sh = field("shape");
  size_t open = sh.find('('), close = sh.find(')');
  if (open == std::string::npos || close == std::string::npos || close < open)
    return Unexpected(path + " has no shape in its header");
  te::Shape shape;
  uint64_t elements = 1;
  uint64_t available = (b.size() - pos) / static_cast<uint64_t>(te::dtypeBytes(*dtype));
  for (const std::string& part : split(sh.substr(open + 1, close - open - 1), ',')) {
    if (trim(part).empty()) continue;
    auto v = parseInt(part);
    if (!v || *v <= 0) return Unexpected(path + " has an unsupported dimension '" + trim(part) + "'");
    if (shape.size() >= 16) return Unexpected(path + " has more than 16 dimensions");
    // Checked against the data present before multiplying further: no overflow, no huge buffer.
    if (static_cast<uint64_t>(*v) > available / elements + 1 || elements * static_cast<uint64_t>(*v) > available)
      return Unexpected(path + " holds fewer elements than its shape says");
    elements *= static_cast<uint64_t>(*v);
    shape.push_back(*v);
  }
  NDArray a = NDArray::empty(shape, *dtype);
  if (static_cast<uint64_t>(a.bytes()) > b.size() - pos)
    return Unexpected(path + " holds fewer elements than its shape says");
  std::memcpy(a.data(), b.data() + pos, static_cast<size_t>(a.bytes()));
  return a;
}

Status writeNpy(const std::string& path, const NDArray& a) {
  std::string shape = "(";
  for (size_t i = 0; i < a.shape().size(); ++i)
    shape += std::to_string(a.shape()[i]) + (a.shape().size() == 1 || i + 1 < a.shape().size() ? "," : "");
  shape += ")";
  std::string header =
      std::string("{'descr': '") + descr(a.dtype()) + "', 'fortran_order': False, 'shape': " + shape + ", }";
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
