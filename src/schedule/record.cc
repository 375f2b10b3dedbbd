#include "schedule/record.h"

#include <cmath>
#include <fstream>
#include <limits>

#include "support/overload.h"

namespace ttune::schedule {

const char* errorKindName(ErrorKind k) {
  switch (k) {
    case ErrorKind::None: return "none";
    case ErrorKind::Instantiation: return "instantiation";
    case ErrorKind::CompileError: return "compile_error";
    case ErrorKind::CompileTimeout: return "compile_timeout";
    case ErrorKind::RuntimeCrash: return "runtime_crash";
    case ErrorKind::RuntimeTimeout: return "runtime_timeout";
    case ErrorKind::NonFinite: return "non_finite";
    case ErrorKind::WrongAnswer: return "wrong_answer";
    case ErrorKind::Unknown: return "unknown";
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
  for (IterAnnotation a : {IterAnnotation::None, IterAnnotation::Unroll, IterAnnotation::Vectorize, IterAnnotation::Parallel})
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
    if (!j_.contains(k) || !j_[k].is_number_integer()) return Unexpected(what_ + " needs an integer field \"" + k + "\"");
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

Json stepToJson(const Step& s) {
  return std::visit(
      Overload{
          [](const SplitStep& st) {
            Json lengths = Json::array();
            for (const auto& l : st.lengths) lengths.push_back(l ? Json(*l) : Json(nullptr));
            Json j = {{"kind", "split"}, {"stage", st.stage}, {"iter", st.iter}};
            j["extent"] = st.extent ? Json(*st.extent) : Json(nullptr);
            j["lengths"] = lengths;
            j["inner_to_outer"] = st.inner_to_outer;
            return j;
          },
          [](const FollowSplitStep& st) {
            return Json{{"kind", "follow_split"}, {"stage", st.stage}, {"iter", st.iter}, {"src_step", st.src_step}, {"n_split", st.n_split}};
          },
          [](const FollowFusedSplitStep& st) {
            return Json{{"kind", "follow_fused_split"}, {"stage", st.stage}, {"iter", st.iter}, {"src_steps", st.src_steps},
                        {"level", st.level}, {"factor_or_nparts", st.factor_or_nparts}};
          },
          [](const FuseStep& st) { return Json{{"kind", "fuse"}, {"stage", st.stage}, {"iters", st.iters}}; },
          [](const ReorderStep& st) { return Json{{"kind", "reorder"}, {"stage", st.stage}, {"order", st.order}}; },
          [](const AnnotationStep& st) {
            return Json{{"kind", "annotate"}, {"stage", st.stage}, {"iter", st.iter}, {"annotation", annotationName(st.annotation)}};
          },
          [](const AutoUnrollStep& st) { return Json{{"kind", "auto_unroll"}, {"stage", st.stage}, {"max_step", st.max_step}}; },
          [](const ComputeAtStep& st) {
            return Json{{"kind", "compute_at"}, {"stage", st.stage}, {"target_stage", st.target_stage}, {"target_iter", st.target_iter}};
          },
          [](const ComputeInlineStep& st) { return Json{{"kind", "compute_inline"}, {"stage", st.stage}}; },
          [](const ComputeRootStep& st) { return Json{{"kind", "compute_root"}, {"stage", st.stage}}; },
          [](const CacheReadStep& st) {
            return Json{{"kind", "cache_read"}, {"stage", st.stage}, {"scope", st.scope}, {"readers", st.readers}};
          },
          [](const CacheWriteStep& st) { return Json{{"kind", "cache_write"}, {"stage", st.stage}, {"scope", st.scope}}; },
          [](const RfactorStep& st) {
            return Json{{"kind", "rfactor"}, {"stage", st.stage}, {"iter", st.iter}, {"factor_axis", st.factor_axis}};
          },
          [](const LayoutRewriteStep& st) {
            return Json{{"kind", "layout_rewrite"}, {"stage", st.stage}, {"placeholder", st.placeholder}};
          },
      },
      s);
}

Expected<Step> stepFromJson(const Json& j) {
  if (!j.is_object()) return Unexpected("a step must be a JSON object");
  Reader r(j, "step");
  TT_TRY(std::string kind, r.str("kind"));
  Reader rd(j, kind + " step");
  TT_TRY(std::string stage, rd.str("stage"));
  if (kind == "split") {
    SplitStep s;
    s.stage = stage;
    TT_TRY(s.iter, rd.str("iter"));
    if (j.contains("extent") && j["extent"].is_number_integer()) s.extent = j["extent"].get<int64_t>();
    if (!j.contains("lengths") || !j["lengths"].is_array()) return Unexpected("split step needs a list field \"lengths\"");
    for (const Json& l : j["lengths"]) {
      if (l.is_null()) s.lengths.push_back(std::nullopt);
      else if (l.is_number_integer()) s.lengths.push_back(l.get<int64_t>());
      else return Unexpected("split step lengths must be integers or null");
    }
    TT_TRY(s.inner_to_outer, rd.boolean("inner_to_outer"));
    return Step(s);
  }
  if (kind == "follow_split") {
    FollowSplitStep s;
    s.stage = stage;
    TT_TRY(s.iter, rd.str("iter"));
    TT_TRY(int64_t src, rd.integer("src_step"));
    TT_TRY(int64_t n, rd.integer("n_split"));
    s.src_step = static_cast<int>(src);
    s.n_split = static_cast<int>(n);
    return Step(s);
  }
  if (kind == "follow_fused_split") {
    FollowFusedSplitStep s;
    s.stage = stage;
    TT_TRY(s.iter, rd.str("iter"));
    TT_TRY(s.src_steps, rd.ints("src_steps"));
    TT_TRY(int64_t level, rd.integer("level"));
    s.level = static_cast<int>(level);
    TT_TRY(s.factor_or_nparts, rd.boolean("factor_or_nparts"));
    return Step(s);
  }
  if (kind == "fuse") {
    FuseStep s;
    s.stage = stage;
    TT_TRY(s.iters, rd.strs("iters"));
    return Step(s);
  }
  if (kind == "reorder") {
    ReorderStep s;
    s.stage = stage;
    TT_TRY(s.order, rd.strs("order"));
    return Step(s);
  }
  if (kind == "annotate") {
    AnnotationStep s;
    s.stage = stage;
    TT_TRY(s.iter, rd.str("iter"));
    TT_TRY(std::string a, rd.str("annotation"));
    auto ann = parseAnnotation(a);
    if (!ann) return Unexpected("annotate step has unknown annotation \"" + a + "\"");
    s.annotation = *ann;
    return Step(s);
  }
  if (kind == "auto_unroll") {
    AutoUnrollStep s;
    s.stage = stage;
    TT_TRY(s.max_step, rd.integer("max_step"));
    return Step(s);
  }
  if (kind == "compute_at") {
    ComputeAtStep s;
    s.stage = stage;
    TT_TRY(s.target_stage, rd.str("target_stage"));
    TT_TRY(s.target_iter, rd.str("target_iter"));
    return Step(s);
  }
  if (kind == "compute_inline") return Step(ComputeInlineStep{stage});
  if (kind == "compute_root") return Step(ComputeRootStep{stage});
  if (kind == "cache_read") {
    CacheReadStep s;
    s.stage = stage;
    TT_TRY(s.scope, rd.str("scope"));
    TT_TRY(s.readers, rd.strs("readers"));
    return Step(s);
  }
  if (kind == "cache_write") {
    CacheWriteStep s;
    s.stage = stage;
    TT_TRY(s.scope, rd.str("scope"));
    return Step(s);
  }
  if (kind == "rfactor") {
    RfactorStep s;
    s.stage = stage;
    TT_TRY(s.iter, rd.str("iter"));
    TT_TRY(int64_t fa, rd.integer("factor_axis"));
    s.factor_axis = static_cast<int>(fa);
    return Step(s);
  }
  if (kind == "layout_rewrite") {
    LayoutRewriteStep s;
    s.stage = stage;
    TT_TRY(s.placeholder, rd.str("placeholder"));
    return Step(s);
  }
  return Unexpected("unknown step kind \"" + kind + "\"");
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
  j["target"] = {{"cpu", r.target.cpu}, {"isa", isaName(r.target.isa)}, {"vector_bits", r.target.vector_bits},
                 {"threads", r.target.threads}};
  j["steps"] = steps;
  j["result"] = {{"costs_s", costs},
                 {"error", errorKindName(r.result.error)},
                 {"error_msg", r.result.error_msg},
                 {"build_s", r.result.build_s},
                 {"measure_s", r.result.measure_s},
                 {"timestamp", r.result.timestamp}};
  j["provenance"] = {{"model", r.provenance.model},
                     {"run_id", r.provenance.run_id},
                     {"source", r.provenance.source},
                     {"trial", r.provenance.trial},
                     {"elapsed_s", r.provenance.elapsed_s},
                     {"origin", r.provenance.origin}};
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
    return Unexpected("record format version " + std::to_string(version) + " is not supported (this ttune reads version " +
                      std::to_string(kRecordVersion) + ")");
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
  if (!res.contains("costs_s") || !res["costs_s"].is_array()) return Unexpected("record result needs a list field \"costs_s\"");
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
  if (!j.contains("provenance") || !j["provenance"].is_object()) return Unexpected("record needs an object field \"provenance\"");
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
    if (!parsed) return Unexpected("record provenance field \"baseline\" must be \"strong\" or \"basic\", not \"" + b + "\"");
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
