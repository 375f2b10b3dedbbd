#include "schedule/record.h"

#include <cmath>
#include <fstream>
#include <limits>
#include <utility>

namespace ttune::schedule {

const char* errorKindName(ErrorKind k) {
  switch (k) {
    case ErrorKind::None:
      return "none";
    case ErrorKind::Instantiation:
      return "instantiation";
    case ErrorKind::CompileError:
      return "compile_error";
    case ErrorKind::CompileTimeout:
      return "compile_timeout";
    case ErrorKind::RuntimeCrash:
      return "runtime_crash";
    case ErrorKind::RuntimeTimeout:
      return "runtime_timeout";
    case ErrorKind::NonFinite:
      return "non_finite";
    case ErrorKind::WrongAnswer:
      return "wrong_answer";
    case ErrorKind::Unknown:
      return "unknown";
  }
  return "unknown";
}

std::optional<ErrorKind> parseErrorKind(const std::string& s) {
  for (int i = 0; i <= static_cast<int>(ErrorKind::Unknown); ++i)
    if (s == errorKindName(static_cast<ErrorKind>(i))) return static_cast<ErrorKind>(i);
  return std::nullopt;
}

double RecordResult::median() const {
  if (!ok()) return std::numeric_limits<double>::infinity();
  std::vector<double> c = costs_s;
  std::sort(c.begin(), c.end());
  size_t n = c.size();
  return n % 2 ? c[n / 2] : 0.5 * (c[n / 2 - 1] + c[n / 2]);
}

namespace {

std::optional<IterAnnotation> parseAnnotation(const std::string& s) {
  for (IterAnnotation a :
       {IterAnnotation::None, IterAnnotation::Unroll, IterAnnotation::Vectorize, IterAnnotation::Parallel})
    if (s == annotationName(a)) return a;
  return std::nullopt;
}

// Field readers with one-sentence reasons.
class Reader {
 public:
  Reader(const Json& j, std::string what) : j_(j), what_(std::move(what)) {}
  Expected<std::string> str(const char* k) {
    if (!j_.contains(k) || !j_[k].is_string()) return Unexpected(what_ + " needs a string field \"" + k + "\"");
    return j_[k].get<std::string>();
  }
  Expected<int64_t> integer(const char* k) {
    if (!j_.contains(k) || !j_[k].is_number_integer())
      return Unexpected(what_ + " needs an integer field \"" + k + "\"");
    return j_[k].get<int64_t>();
  }
  Expected<bool> boolean(const char* k) {
    if (!j_.contains(k) || !j_[k].is_boolean()) return Unexpected(what_ + " needs a boolean field \"" + k + "\"");
    return j_[k].get<bool>();
  }
  Expected<std::vector<std::string>> strs(const char* k) {
    if (!j_.contains(k) || !j_[k].is_array()) return Unexpected(what_ + " needs a list field \"" + k + "\"");
    std::vector<std::string> out;
    for (const Json& x : j_[k]) {
      if (!x.is_string()) return Unexpected(what_ + " field \"" + k + "\" must list strings");
      out.push_back(x.get<std::string>());
    }
    return out;
  }
  Expected<std::vector<int>> ints(const char* k) {
    if (!j_.contains(k) || !j_[k].is_array()) return Unexpected(what_ + " needs a list field \"" + k + "\"");
    std::vector<int> out;
    for (const Json& x : j_[k]) {
      if (!x.is_number_integer()) return Unexpected(what_ + " field \"" + k + "\" must list integers");
      out.push_back(x.get<int>());
    }
    return out;
  }

 private:
  const Json& j_;
  std::string what_;
};

}  // namespace

namespace {

// Each kind's JSON fields after "kind" and "stage" (ordered_json keeps this order in the file).
void writeFields(Json& j, const SplitStep& st) {
  Json lengths = Json::array();
  for (const auto& l : st.lengths) lengths.push_back(l ? Json(*l) : Json(nullptr));
  j["iter"] = st.iter;
  j["extent"] = st.extent ? Json(*st.extent) : Json(nullptr);
  j["lengths"] = lengths;
  j["inner_to_outer"] = st.inner_to_outer;
}
void writeFields(Json& j, const FollowSplitStep& st) {
  j["iter"] = st.iter;
  j["src_step"] = st.src_step;
  j["n_split"] = st.n_split;
}
void writeFields(Json& j, const FollowFusedSplitStep& st) {
  j["iter"] = st.iter;
  j["src_steps"] = st.src_steps;
  j["level"] = st.level;
  j["factor_or_nparts"] = st.factor_or_nparts;
}
void writeFields(Json& j, const FuseStep& st) { j["iters"] = st.iters; }
void writeFields(Json& j, const ReorderStep& st) { j["order"] = st.order; }
void writeFields(Json& j, const AnnotationStep& st) {
  j["iter"] = st.iter;
  j["annotation"] = annotationName(st.annotation);
}
void writeFields(Json& j, const AutoUnrollStep& st) { j["max_step"] = st.max_step; }
void writeFields(Json& j, const ComputeAtStep& st) {
  j["target_stage"] = st.target_stage;
  j["target_iter"] = st.target_iter;
}
void writeFields(Json&, const ComputeInlineStep&) {}
void writeFields(Json&, const ComputeRootStep&) {}
void writeFields(Json& j, const CacheReadStep& st) {
  j["scope"] = st.scope;
  j["readers"] = st.readers;
}
void writeFields(Json& j, const CacheWriteStep& st) { j["scope"] = st.scope; }
void writeFields(Json& j, const RfactorStep& st) {
  j["iter"] = st.iter;
  j["factor_axis"] = st.factor_axis;
}
void writeFields(Json& j, const LayoutRewriteStep& st) { j["placeholder"] = st.placeholder; }

// Each kind's fields after "kind" and "stage" (st.stage is already set); a reason on failure.
Status readFields(const Json& j, Reader& rd, SplitStep& s) {
  TT_TRY(s.iter, rd.str("iter"));
  if (j.contains("extent") && j["extent"].is_number_integer()) s.extent = j["extent"].get<int64_t>();
  if (!j.contains("lengths") || !j["lengths"].is_array())
    return Unexpected("split step needs a list field \"lengths\"");
  for (const Json& l : j["lengths"]) {
    if (l.is_null())
      s.lengths.push_back(std::nullopt);
    else if (l.is_number_integer())
      s.lengths.push_back(l.get<int64_t>());
    else
      return Unexpected("split step lengths must be integers or null");
  }
  TT_TRY(s.inner_to_outer, rd.boolean("inner_to_outer"));
  return okStatus();
}
Status readFields(const Json&, Reader& rd, FollowSplitStep& s) {
  TT_TRY(s.iter, rd.str("iter"));
  TT_TRY(int64_t src, rd.integer("src_step"));
  TT_TRY(int64_t n, rd.integer("n_split"));
  s.src_step = static_cast<int>(src);
  s.n_split = static_cast<int>(n);
  return okStatus();
}
Status readFields(const Json&, Reader& rd, FollowFusedSplitStep& s) {
  TT_TRY(s.iter, rd.str("iter"));
  TT_TRY(s.src_steps, rd.ints("src_steps"));
  TT_TRY(int64_t level, rd.integer("level"));
  s.level = static_cast<int>(level);
  TT_TRY(s.factor_or_nparts, rd.boolean("factor_or_nparts"));
  return okStatus();
}
Status readFields(const Json&, Reader& rd, FuseStep& s) {
  TT_TRY(s.iters, rd.strs("iters"));
  return okStatus();
}
Status readFields(const Json&, Reader& rd, ReorderStep& s) {
  TT_TRY(s.order, rd.strs("order"));
  return okStatus();
}
Status readFields(const Json&, Reader& rd, AnnotationStep& s) {
  TT_TRY(s.iter, rd.str("iter"));
  TT_TRY(std::string a, rd.str("annotation"));
  auto ann = parseAnnotation(a);
  if (!ann) return Unexpected("annotate step has unknown annotation \"" + a + "\"");
  s.annotation = *ann;
  return okStatus();
}
Status readFields(const Json&, Reader& rd, AutoUnrollStep& s) {
  TT_TRY(s.max_step, rd.integer("max_step"));
  return okStatus();
}
Status readFields(const Json&, Reader& rd, ComputeAtStep& s) {
  TT_TRY(s.target_stage, rd.str("target_stage"));
  TT_TRY(s.target_iter, rd.str("target_iter"));
  return okStatus();
}
Status readFields(const Json&, Reader&, ComputeInlineStep&) { return okStatus(); }
Status readFields(const Json&, Reader&, ComputeRootStep&) { return okStatus(); }
Status readFields(const Json&, Reader& rd, CacheReadStep& s) {
  TT_TRY(s.scope, rd.str("scope"));
  TT_TRY(s.readers, rd.strs("readers"));
  return okStatus();
}
Status readFields(const Json&, Reader& rd, CacheWriteStep& s) {
  TT_TRY(s.scope, rd.str("scope"));
  return okStatus();
}
Status readFields(const Json&, Reader& rd, RfactorStep& s) {
  TT_TRY(s.iter, rd.str("iter"));
  TT_TRY(int64_t fa, rd.integer("factor_axis"));
  s.factor_axis = static_cast<int>(fa);
  return okStatus();
}
Status readFields(const Json&, Reader& rd, LayoutRewriteStep& s) {
  TT_TRY(s.placeholder, rd.str("placeholder"));
  return okStatus();
}

// Reads the alternative whose StepTraits name is `kind`; nullopt when no kind has that name.
template <size_t... I>
std::optional<Expected<Step>> readStepOfKind(const std::string& kind, const std::string& stage, const Json& j,
                                             Reader& rd, std::index_sequence<I...>) {
  std::optional<Expected<Step>> out;
  auto tryKind = [&]<class T>(T s) {
    if (kind != StepTraits<T>::kind.name) return false;
    s.stage = stage;
    Status st = readFields(j, rd, s);
    if (st.ok())
      out.emplace(Step(std::move(s)));
    else
      out.emplace(Unexpected(st.reason()));
    return true;
  };
  (void)(tryKind(std::variant_alternative_t<I, Step>{}) || ...);
  return out;
}

}  // namespace

Json stepToJson(const Step& s) {
  return std::visit(
      [](const auto& st) {
        Json j = {{"kind", StepTraits<std::decay_t<decltype(st)>>::kind.name}, {"stage", st.stage}};
        writeFields(j, st);
        return j;
      },
      s);
}

Expected<Step> stepFromJson(const Json& j) {
  if (!j.is_object()) return Unexpected("a step must be a JSON object");
  Reader r(j, "step");
  TT_TRY(std::string kind, r.str("kind"));
  Reader rd(j, kind + " step");
  TT_TRY(std::string stage, rd.str("stage"));
  std::optional<Expected<Step>> step =
      readStepOfKind(kind, stage, j, rd, std::make_index_sequence<std::variant_size_v<Step>>{});
  if (!step) return Unexpected("unknown step kind \"" + kind + "\"");
  return std::move(*step);
}

TargetInfo targetInfo(const Target& code, const std::string& machine_cpu, int threads) {
  return TargetInfo{machine_cpu, code.vector_bits, threads, code.isa};
}

Json recordToJson(const Record& r) {
  Json steps = Json::array();
  for (const Step& s : r.steps) steps.push_back(stepToJson(s));
  Json costs = Json::array();
  for (double c : r.result.costs_s) costs.push_back(c);
  Json j;
  j["version"] = kRecordVersion;
  j["workload_key"] = r.workload_key;
  j["kernel_class"] = r.kernel_class;
  j["class_id"] = r.class_id;
  j["target"] = {{"cpu", r.target.cpu},
                 {"isa", isaName(r.target.isa)},
                 {"vector_bits", r.target.vector_bits},
                 {"threads", r.target.threads}};
  j["steps"] = steps;
  j["result"] = {{"costs_s", costs},
                 {"error", errorKindName(r.result.error)},
                 {"error_msg", r.result.error_msg},
                 {"build_s", r.result.build_s},
                 {"measure_s", r.result.measure_s},
                 {"timestamp", r.result.timestamp}};
  j["provenance"] = {{"model", r.provenance.model},         {"run_id", r.provenance.run_id},
                     {"source", r.provenance.source},       {"trial", r.provenance.trial},
                     {"elapsed_s", r.provenance.elapsed_s}, {"origin", r.provenance.origin}};
  if (r.provenance.baseline != Baseline::Strong) j["provenance"]["baseline"] = baselineName(r.provenance.baseline);
  return j;
}

namespace {
Expected<double> number(const Json& j, const char* k, const std::string& what) {
  if (!j.contains(k) || !j[k].is_number()) return Unexpected(what + " needs a number field \"" + k + "\"");
  return j[k].get<double>();
}
}  // namespace

Expected<Record> recordFromJson(const Json& j) {
  if (!j.is_object()) return Unexpected("a record must be a JSON object");
  Reader r(j, "record");
  TT_TRY(int64_t version, r.integer("version"));
  if (version != kRecordVersion)
    return Unexpected("record format version " + std::to_string(version) +
                      " is not supported (this ttune reads version " + std::to_string(kRecordVersion) + ")");
  Record rec;
  TT_TRY(rec.workload_key, r.str("workload_key"));
  TT_TRY(rec.kernel_class, r.str("kernel_class"));
  if (j.contains("class_id")) {  // optional: records written before class ids were recorded lack it
    TT_TRY(rec.class_id, r.str("class_id"));
  }
  if (!j.contains("target") || !j["target"].is_object()) return Unexpected("record needs an object field \"target\"");
  Reader t(j["target"], "record target");
  TT_TRY(rec.target.cpu, t.str("cpu"));
  TT_TRY(int64_t vb, t.integer("vector_bits"));
  TT_TRY(int64_t th, t.integer("threads"));
  rec.target.vector_bits = static_cast<int>(vb);
  rec.target.threads = static_cast<int>(th);
  rec.target.isa = isaFromVectorBits(rec.target.vector_bits);
  if (j["target"].contains("isa")) {  // optional: records written before ISA levels were recorded lack it
    TT_TRY(std::string isa, t.str("isa"));
    auto parsed = parseIsa(isa);
    if (!parsed) return Unexpected("record target has an unknown isa \"" + isa + "\"");
    rec.target.isa = *parsed;
  }
  if (!j.contains("steps") || !j["steps"].is_array()) return Unexpected("record needs a list field \"steps\"");
  for (size_t i = 0; i < j["steps"].size(); ++i) {
    auto s = stepFromJson(j["steps"][i]);
    if (!s.ok()) return Unexpected("record step " + std::to_string(i) + ": " + s.error());
    rec.steps.push_back(*s);
  }
  if (!j.contains("result") || !j["result"].is_object()) return Unexpected("record needs an object field \"result\"");
  const Json& res = j["result"];
  Reader rr(res, "record result");
  if (!res.contains("costs_s") || !res["costs_s"].is_array())
    return Unexpected("record result needs a list field \"costs_s\"");
  for (const Json& c : res["costs_s"]) {
    if (!c.is_number()) return Unexpected("record result costs must be numbers");
    rec.result.costs_s.push_back(c.get<double>());
  }
  TT_TRY(std::string err, rr.str("error"));
  auto ek = parseErrorKind(err);
  if (!ek) return Unexpected("record result has unknown error kind \"" + err + "\"");
  rec.result.error = *ek;
  TT_TRY(rec.result.error_msg, rr.str("error_msg"));
  TT_TRY(rec.result.build_s, number(res, "build_s", "record result"));
  TT_TRY(rec.result.measure_s, number(res, "measure_s", "record result"));
  TT_TRY(rec.result.timestamp, rr.integer("timestamp"));
  if (!j.contains("provenance") || !j["provenance"].is_object())
    return Unexpected("record needs an object field \"provenance\"");
  const Json& pj = j["provenance"];
  Reader p(pj, "record provenance");
  TT_TRY(rec.provenance.model, p.str("model"));
  TT_TRY(rec.provenance.run_id, p.str("run_id"));
  TT_TRY(rec.provenance.source, p.str("source"));
  TT_TRY(rec.provenance.trial, p.integer("trial"));
  TT_TRY(rec.provenance.elapsed_s, number(pj, "elapsed_s", "record provenance"));
  if (pj.contains("origin")) {  // optional: records written before lineage was kept lack it
    TT_TRY(rec.provenance.origin, p.str("origin"));
  }
  if (pj.contains("baseline")) {  // optional: strong unless written
    TT_TRY(std::string b, p.str("baseline"));
    auto parsed = parseBaseline(b);
    if (!parsed)
      return Unexpected("record provenance field \"baseline\" must be \"strong\" or \"basic\", not \"" + b + "\"");
    rec.provenance.baseline = *parsed;
  }
  return rec;
}

std::string recordToLine(const Record& r) { return recordToJson(r).dump(); }

Expected<Record> recordFromLine(const std::string& line) {
  Json j = Json::parse(line, nullptr, false);
  if (j.is_discarded()) return Unexpected("not valid JSON");
  return recordFromJson(j);
}

Expected<std::vector<Record>> readRecordsFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Unexpected("cannot open records file " + path);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<Record> out;
  // A bare array of steps: a hand-written schedule.
  size_t first = text.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && text[first] == '[') {
    Json j = Json::parse(text, nullptr, false);
    if (j.is_discarded()) return Unexpected(path + " is not valid JSON");
    Record r;
    for (size_t i = 0; i < j.size(); ++i) {
      auto s = stepFromJson(j[i]);
      if (!s.ok()) return Unexpected(path + ": step " + std::to_string(i) + ": " + s.error());
      r.steps.push_back(*s);
    }
    r.provenance.source = "manual";
    out.push_back(std::move(r));
    return out;
  }
  size_t lineno = 0, pos = 0;
  while (pos <= text.size()) {
    size_t nl = text.find('\n', pos);
    std::string line = text.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos);
    pos = nl == std::string::npos ? text.size() + 1 : nl + 1;
    ++lineno;
    size_t b = line.find_first_not_of(" \t\r");
    if (b == std::string::npos || line[b] == '#') continue;
    auto r = recordFromLine(line);
    if (!r.ok()) return Unexpected(path + ":" + std::to_string(lineno) + ": " + r.error());
    out.push_back(std::move(*r));
  }
  return out;
}

Status appendRecordsFile(const std::string& path, const std::vector<Record>& records) {
  std::ofstream out(path, std::ios::app);
  if (!out) return Unexpected("cannot open records file " + path + " for writing");
  for (const Record& r : records) out << recordToLine(r) << "\n";
  out.flush();
  if (!out) return Unexpected("cannot write records file " + path);
  return okStatus();
}

bool stepsEqual(const std::vector<Step>& a, const std::vector<Step>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (stepToJson(a[i]) != stepToJson(b[i])) return false;
  return true;
}

}  // namespace ttune::schedule
