#include "runtime/plan.h"

#include <algorithm>
#include <cstring>

#include "runtime/bytes.h"

namespace ttune::runtime {

int elemBytes(ElemType t) {
  switch (t) {
    case ElemType::Float32:
      return 4;
    case ElemType::Int32:
      return 4;
    case ElemType::Int64:
      return 8;
    case ElemType::Bool:
      return 1;
    case ElemType::Int8:
      return 1;
    case ElemType::UInt8:
      return 1;
    case ElemType::Int16:
    case ElemType::UInt16:
    case ElemType::Float16:
    case ElemType::BFloat16:
      return 2;
    case ElemType::UInt32:
      return 4;
    case ElemType::UInt64:
    case ElemType::Float64:
      return 8;
  }
  return 0;
}

const char* elemName(ElemType t) {
  switch (t) {
    case ElemType::Float32:
      return "float32";
    case ElemType::Int32:
      return "int32";
    case ElemType::Int64:
      return "int64";
    case ElemType::Bool:
      return "bool";
    case ElemType::Int8:
      return "int8";
    case ElemType::UInt8:
      return "uint8";
    case ElemType::Int16:
      return "int16";
    case ElemType::UInt16:
      return "uint16";
    case ElemType::UInt32:
      return "uint32";
    case ElemType::UInt64:
      return "uint64";
    case ElemType::Float64:
      return "float64";
    case ElemType::Float16:
      return "float16";
    case ElemType::BFloat16:
      return "bfloat16";
  }
  return "?";
}

int64_t TensorSpec::elements() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

int64_t TensorSpec::bytes() const { return elements() * elemBytes(dtype); }

namespace {

std::string checkRef(const Plan& p, const BufferRef& r, int64_t bytes_needed) {
  // The offset of a view (a contiguous slice) stays inside its buffer.
  auto inside = [&](int64_t size) {
    return bytes_needed >= 0 && r.offset <= static_cast<uint64_t>(std::max<int64_t>(size - bytes_needed, 0));
  };
  switch (r.kind) {
    case BufferKind::Input:
      if (r.index >= p.inputs.size()) return "an argument names input " + std::to_string(r.index);
      return inside(p.inputs[r.index].bytes()) ? "" : "an input offset is out of range";
    case BufferKind::Output:
      if (r.index >= p.outputs.size()) return "an argument names output " + std::to_string(r.index);
      return inside(p.outputs[r.index].bytes()) ? "" : "an output offset is out of range";
    case BufferKind::Weight:
      if (r.index >= p.weight_bytes.size()) return "an argument names weight " + std::to_string(r.index);
      return inside(p.weight_bytes[r.index]) ? "" : "a weight offset is out of range";
    case BufferKind::Workspace:
      if (!inside(p.workspace_bytes)) return "a workspace offset is out of range";
      return "";
    case BufferKind::Size:
      if (r.index >= p.num_sizes || r.offset != 0) return "an argument names size " + std::to_string(r.index);
      return "";
  }
  return "an argument has an unknown kind";
}

}  // namespace

std::string validatePlan(const Plan& p) {
  if (p.workspace_bytes < 0) return "the workspace size is negative";
  for (const auto* list : {&p.inputs, &p.outputs})
    for (const TensorSpec& t : *list) {
      if (elemBytes(t.dtype) == 0) return "tensor " + t.name + " has an unknown element type";
      int64_t n = 1;
      for (int64_t d : t.shape) {
        if (d < 0 || d > (int64_t(1) << 40)) return "tensor " + t.name + " has a bad dimension";
        if (n > (int64_t(1) << 44) / std::max<int64_t>(d, 1)) return "tensor " + t.name + " is too large";
        n *= d;
      }
    }
  for (int64_t b : p.weight_bytes)
    if (b < 0) return "a weight has a negative size";
  for (const BufferRef& r : p.args) {
    std::string e = checkRef(p, r, 1);  // every intermediate holds at least one byte
    if (!e.empty()) return e;
  }
  for (const KernelCall& c : p.calls) {
    if (c.kernel >= p.num_kernels) return "a call names kernel " + std::to_string(c.kernel);
    if (static_cast<uint64_t>(c.first_arg) + c.num_args > p.args.size()) return "a call's arguments are out of range";
  }
  for (const OutputCopy& c : p.copies) {
    if (c.output >= p.outputs.size()) return "a copy names output " + std::to_string(c.output);
    std::string e = checkRef(p, c.source, p.outputs[c.output].bytes());
    if (!e.empty()) return e;
  }
  return "";
}

void* resolve(const BufferRef& r, const PlanBindings& b) {
  switch (r.kind) {
    case BufferKind::Input:
      return static_cast<char*>(const_cast<void*>(b.inputs[r.index])) + r.offset;
    case BufferKind::Output:
      return static_cast<char*>(b.outputs[r.index]) + r.offset;
    case BufferKind::Weight:
      return static_cast<char*>(b.weights[r.index]) + r.offset;
    case BufferKind::Workspace:
      return b.workspace + r.offset;
    case BufferKind::Size:
      return const_cast<int64_t*>(b.sizes + r.index);
  }
  return nullptr;
}

void runCall(const Plan& plan, const PlanBindings& b, size_t c) {
  const KernelCall& call = plan.calls[c];
  // Kernels of fused graphs take a handful of tensors; the rare long argument list goes to the heap.
  void* small[64];
  std::vector<void*> big;
  void** args = small;
  if (call.num_args > 64) {
    big.resize(call.num_args);
    args = big.data();
  }
  const BufferRef* refs = plan.args.data() + call.first_arg;
  for (uint32_t i = 0; i < call.num_args; ++i) args[i] = resolve(refs[i], b);
  b.kernels[call.kernel](args);
}

void runCopies(const Plan& plan, const PlanBindings& b) {
  for (const OutputCopy& c : plan.copies)
    std::memcpy(b.outputs[c.output], resolve(c.source, b), static_cast<size_t>(plan.outputs[c.output].bytes()));
}

void runPlan(const Plan& plan, const PlanBindings& b) {
  for (size_t c = 0; c < plan.calls.size(); ++c) runCall(plan, b, c);
  runCopies(plan, b);
}

namespace {

constexpr uint32_t kPlanMagic = 0x4e4c5054;  // "TPLN"
constexpr uint32_t kPlanVersion = 2;         // 2: size parameters

void writeRef(ByteWriter& w, const BufferRef& r) {
  w.u8(static_cast<uint8_t>(r.kind));
  w.u32(r.index);
  w.u64(r.offset);
}

BufferRef readRef(ByteReader& r) {
  BufferRef ref;
  uint8_t kind = r.u8();
  ref.kind = static_cast<BufferKind>(kind > 4 ? 255 : kind);
  ref.index = r.u32();
  ref.offset = r.u64();
  return ref;
}

void writeTensors(ByteWriter& w, const std::vector<TensorSpec>& ts) {
  w.u32(static_cast<uint32_t>(ts.size()));
  for (const TensorSpec& t : ts) {
    w.str(t.name);
    w.u8(static_cast<uint8_t>(t.dtype));
    w.u32(static_cast<uint32_t>(t.shape.size()));
    for (int64_t d : t.shape) w.i64(d);
  }
}

std::vector<TensorSpec> readTensors(ByteReader& r) {
  std::vector<TensorSpec> ts(r.count(9));
  for (TensorSpec& t : ts) {
    t.name = r.str();
    t.dtype = static_cast<ElemType>(r.u8());
    t.shape.resize(r.count(8));
    for (int64_t& d : t.shape) d = r.i64();
  }
  return ts;
}

}  // namespace

void serializePlan(const Plan& p, std::string& out) {
  ByteWriter w(out);
  w.u32(kPlanMagic);
  w.u32(kPlanVersion);
  writeTensors(w, p.inputs);
  writeTensors(w, p.outputs);
  w.u32(static_cast<uint32_t>(p.weight_bytes.size()));
  for (int64_t b : p.weight_bytes) w.i64(b);
  w.i64(p.workspace_bytes);
  w.u32(p.num_kernels);
  w.u32(p.num_sizes);
  w.u32(static_cast<uint32_t>(p.args.size()));
  for (const BufferRef& r : p.args) writeRef(w, r);
  w.u32(static_cast<uint32_t>(p.calls.size()));
  for (const KernelCall& c : p.calls) {
    w.u32(c.kernel);
    w.u32(c.first_arg);
    w.u32(c.num_args);
  }
  w.u32(static_cast<uint32_t>(p.copies.size()));
  for (const OutputCopy& c : p.copies) {
    w.u32(c.output);
    writeRef(w, c.source);
  }
}

bool parsePlan(const char*& data, const char* end, Plan& p, std::string& error) {
  ByteReader r(data, end);
  if (r.u32() != kPlanMagic) return error = "the execution plan is not a ttune plan", false;
  uint32_t version = r.u32();
  if (version != kPlanVersion)
    return error = "the execution plan has format version " + std::to_string(version) +
                   ", this runtime reads version " + std::to_string(kPlanVersion),
           false;
  p.inputs = readTensors(r);
  p.outputs = readTensors(r);
  p.weight_bytes.resize(r.count(8));
  for (int64_t& b : p.weight_bytes) b = r.i64();
  p.workspace_bytes = r.i64();
  p.num_kernels = r.u32();
  p.num_sizes = r.u32();
  p.args.resize(r.count(13));
  for (BufferRef& a : p.args) a = readRef(r);
  p.calls.resize(r.count(12));
  for (KernelCall& c : p.calls) {
    c.kernel = r.u32();
    c.first_arg = r.u32();
    c.num_args = r.u32();
  }
  p.copies.resize(r.count(17));
  for (OutputCopy& c : p.copies) {
    c.output = r.u32();
    c.source = readRef(r);
  }
  if (!r.ok()) return error = "the execution plan is truncated", false;
  error = validatePlan(p);
  if (!error.empty()) return error = "the execution plan is invalid: " + error, false;
  data = r.position();
  return true;
}

}  // namespace ttune::runtime
