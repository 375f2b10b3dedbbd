// The measurement machinery: the worker process (crashes, hangs, wrong answers, short replies,
// signals), the builder, the Measurer's batches, rounds and side-by-side times. The statistics of
// comparisons and timeFunction are tested in speedup_test.cc.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <fstream>
#include <thread>

#include "codegen/codegen.h"
#include "lower/lower.h"
#include "measure/measurer.h"

namespace ttune::measure {
namespace {

using namespace te;
using schedule::ErrorKind;

// A kernel written directly in loop IR: out[0] = f(...) with an explicit body.
codegen::ObjectCode compileBody(
    const std::function<lower::Stmt(const te::BufferRef& in, const te::BufferRef& out)>& body) {
  auto in = std::make_shared<te::Buffer>(te::Buffer{"in", DType::Float32, 16, MemScope::Arg});
  auto out = std::make_shared<te::Buffer>(te::Buffer{"out", DType::Float32, 16, MemScope::Arg});
  lower::LoweredFunc f{"kernel", {in, out}, body(in, out), {}};
  auto obj = codegen::compile(f);
  EXPECT_TRUE(obj.ok());
  return *obj;
}

RunRequest request(codegen::ObjectCode code) {
  RunRequest r;
  r.code = std::move(code);
  r.args = {ArgSpec{{16}, DType::Float32, false}, ArgSpec{{16}, DType::Float32, true}};
  r.timing.min_repeat_ms = 1;
  r.timeout_s = 3;
  return r;
}

codegen::ObjectCode goodKernel() {
  return compileBody([](const te::BufferRef& in, const te::BufferRef& out) {
    Var i("i");
    return lower::makeFor(i, intImm(16), 16, lower::ForKind::Serial, lower::makeStore(out, i, bufferLoad(in, i) + 1.0));
  });
}

TEST(Runner, CrashHangAndNaNAreRecordedAndMeasurementGoesOn) {
  Runner runner;
  // A good candidate first.
  RunResult ok = runner.run(request(goodKernel()));
  ASSERT_TRUE(ok.ok()) << ok.message;
  EXPECT_EQ(ok.timing.costs_s.size(), 3u);
  EXPECT_EQ(runner.starts(), 1);

  // Crash: a store far outside any mapping.
  auto crash = compileBody([](const te::BufferRef&, const te::BufferRef& out) {
    return lower::makeStore(out, intImm(int64_t(1) << 42), floatImm(1.0));
  });
  RunResult c = runner.run(request(crash));
  EXPECT_EQ(c.error, ErrorKind::RuntimeCrash) << c.message;
  EXPECT_NE(c.message.find("signal"), std::string::npos);

  // The next candidate runs in a fresh worker.
  RunResult after_crash = runner.run(request(goodKernel()));
  EXPECT_TRUE(after_crash.ok()) << after_crash.message;
  EXPECT_EQ(runner.starts(), 2);

  // Hang: a loop that would take hours.
  auto hang = compileBody([](const te::BufferRef&, const te::BufferRef& out) {
    Var i("i");
    Expr x = bufferLoad(out, intImm(0));
    return lower::makeFor(i, intImm(int64_t(1) << 50), int64_t(1) << 50, lower::ForKind::Serial,
                          lower::makeStore(out, intImm(0), x * 1.0001 + 1.0));
  });
  RunRequest hr = request(hang);
  hr.timeout_s = 1;
  RunResult h = runner.run(hr);
  EXPECT_EQ(h.error, ErrorKind::RuntimeTimeout) << h.message;

  // NaN in the outputs.
  auto nan = compileBody([](const te::BufferRef& in, const te::BufferRef& out) {
    Var i("i");
    return lower::makeFor(i, intImm(16), 16, lower::ForKind::Serial,
                          lower::makeStore(out, i, sqrt(floatImm(-1.0) - bufferLoad(in, i) * bufferLoad(in, i))));
  });
  RunResult n = runner.run(request(nan));
  EXPECT_EQ(n.error, ErrorKind::NonFinite) << n.message;

  RunResult last = runner.run(request(goodKernel()));
  EXPECT_TRUE(last.ok()) << last.message;
  EXPECT_EQ(runner.starts(), 3);  // restarted after the crash and after the hang only
}

TEST(Runner, WrongAnswerAgainstExpectedOutputs) {
  Runner runner;
  RunRequest r = request(goodKernel());
  runtime::NDArray in({16}, DType::Float32);
  in.fill(2.0);
  runtime::NDArray expected({16}, DType::Float32);
  expected.fill(3.0);
  r.data = {in};
  r.expected = {expected};
  EXPECT_TRUE(runner.run(r).ok());
  expected.fill(4.0);
  RunResult w = runner.run(r);
  EXPECT_EQ(w.error, ErrorKind::WrongAnswer) << w.message;
}

// The worker reuses the seeded inputs of the previous candidate, but never its outputs: a
// candidate that writes nothing must not pass the check with what the one before it wrote.
TEST(Runner, OutputsAreNotInheritedFromThePreviousCandidate) {
  Runner runner;
  RunRequest r = request(goodKernel());
  runtime::NDArray in({16}, DType::Float32), expected({16}, DType::Float32);
  in.fillRandom(r.seed, -1.0, 1.0);  // what the worker fills the first argument with
  for (int i = 0; i < 16; ++i) expected.as<float>()[i] = in.as<float>()[i] + 1.0f;
  r.expected = {expected};
  RunResult good = runner.run(r);
  ASSERT_TRUE(good.ok()) << good.message;
  RunRequest idle = request(compileBody([](const te::BufferRef& in, const te::BufferRef& out) {
    Var i("i");
    return lower::makeFor(i, intImm(16), 16, lower::ForKind::Serial,
                          lower::makeIf(i < intImm(0), lower::makeStore(out, i, bufferLoad(in, i))));
  }));
  idle.expected = {expected};
  EXPECT_EQ(runner.run(idle).error, ErrorKind::WrongAnswer);
}

// Regression: the worker rejected arguments of rank above 8 as malformed, so every candidate with
// a multi-level layout-rewritten weight (one axis per tile level) failed without being timed.
TEST(Runner, HighRankArgumentsAreMeasured) {
  Runner runner;
  RunRequest r = request(goodKernel());
  for (ArgSpec& a : r.args) a.shape = {2, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1};
  RunResult res = runner.run(r);
  EXPECT_TRUE(res.ok()) << res.message;
}

std::shared_ptr<const ComputeDAG> matmul(int64_t n) {
  Tensor a = placeholder("A", {n, n});
  Tensor b = placeholder("B", {n, n}, DType::Float32, true);
  IterVar k = reduceAxis(n, "k");
  Tensor c = compute("C", {n, n}, [&](const std::vector<Var>& v) { return sum(a(v[0], k.var) * b(k.var, v[1]), {k}); });
  return std::make_shared<const ComputeDAG>(std::vector<Tensor>{a, b}, std::vector<Tensor>{c});
}

// Regression: fields after the error kind and message of a worker reply were read unchecked, so a
// short reply became garbage times. A fake worker answers with a reply that promises three costs
// and carries one.
TEST(Runner, AShortReplyIsAnErrorNotATime) {
  std::string dir = ::testing::TempDir();
  std::string script = dir + "/short_reply_worker.sh";
  {
    std::ofstream f(script);
    // 8-byte length 21, then: kind 0, empty message (8-byte length 0), n = 3, one double.
    f << "#!/bin/sh\nhead -c 8 <&3 >/dev/null\n"
      << "printf '\\025\\000\\000\\000\\000\\000\\000\\000\\000\\000\\000\\000\\000\\000\\000\\000\\000"
      << "\\003\\000\\000\\000\\000\\000\\000\\000\\000\\000\\360\\077' >&4\nsleep 5\n";
  }
  ASSERT_EQ(chmod(script.c_str(), 0755), 0);
  setenv("TTUNE_WORKER", script.c_str(), 1);
  Runner runner;
  RunResult res = runner.run(request(goodKernel()));
  unsetenv("TTUNE_WORKER");
  EXPECT_EQ(res.error, ErrorKind::Unknown) << res.message;
  EXPECT_EQ(res.message, "malformed reply from the measurement worker");
  EXPECT_TRUE(res.timing.costs_s.empty());
}

std::atomic<int> g_sigints{0};

// Regression: the worker shared the terminal's process group, so Ctrl-C killed it and the
// candidate being measured was recorded as a runtime crash (and never measured again on resume).
// Now Ctrl-C reaches only the tuner; the measurement completes.
TEST(Runner, CtrlCAtTheTerminalDoesNotReachTheWorker) {
  // A process group of our own, standing for the terminal's foreground job (so the test never
  // signals the process that runs it), with a handler standing for the tuner's.
  ASSERT_EQ(setpgid(0, 0), 0);
  struct sigaction sa {};
  sa.sa_handler = [](int) { g_sigints++; };
  struct sigaction old {};
  ASSERT_EQ(sigaction(SIGINT, &sa, &old), 0);
  Runner runner;
  RunRequest r = request(goodKernel());
  r.timing.min_repeat_ms = 400;  // long enough to be interrupted
  r.timing.repeat = 1;
  std::thread ctrl_c([] {
    std::this_thread::sleep_for(std::chrono::milliseconds(150));
    kill(-getpgrp(), SIGINT);
  });
  RunResult res = runner.run(r);
  ctrl_c.join();
  sigaction(SIGINT, &old, nullptr);
  EXPECT_EQ(g_sigints.load(), 1);
  EXPECT_EQ(res.error, ErrorKind::None) << res.message;
}

// A compile that crashes or hangs costs its candidate only: the build process dies or is killed
// and a new one builds the rest of the batch.
TEST(Builder, ACrashingAndAHangingCompileCostOneCandidateEach) {
  auto dag = matmul(32);
  using namespace schedule;
  std::vector<Step> vec = {SplitStep{"C", "j", 32, {16}, true}, AnnotationStep{"C", "j.1", IterAnnotation::Vectorize}};
  std::vector<MeasureInput> batch;
  for (int i = 0; i < 6; ++i) batch.push_back({dag, i % 2 ? vec : std::vector<Step>{}, 0.0});
  batch[1].slow_cutoff_s = -1;  // marks for the hook: crash
  batch[4].slow_cutoff_s = -2;  // hang
  Builder::setFaultHookForTesting([](const MeasureInput& in) {
    if (in.slow_cutoff_s == -1) std::abort();
    if (in.slow_cutoff_s == -2) std::this_thread::sleep_for(std::chrono::hours(1));
  });
  // 10 s: long enough that a crashing child still ends by its signal when the test shares the
  // cores with other tests (at 1 s, and once at 3 s, it was reported as a timeout under ctest -j2).
  Builder builder(2, 10.0);
  auto res = builder.build(batch);
  Builder::setFaultHookForTesting({});
  ASSERT_EQ(res.size(), 6u);
  for (int i : {0, 2, 3, 5}) EXPECT_TRUE(res[i].ok()) << i << ": " << res[i].message;
  EXPECT_EQ(res[1].error, ErrorKind::CompileError);
  EXPECT_NE(res[1].message.find("the compiler crashed"), std::string::npos) << res[1].message;
  EXPECT_NE(res[1].message.find("signal 6"), std::string::npos) << res[1].message;
  EXPECT_EQ(res[4].error, ErrorKind::CompileTimeout);
  EXPECT_NE(res[4].message.find("killed"), std::string::npos) << res[4].message;
  // The working ones run.
  Runner runner;
  for (int i : {0, 3}) {
    RunRequest r;
    r.code = res[i].code;
    for (const te::Tensor& t : res[i].scheduled->tensors()) r.args.push_back(ArgSpec{t.shape(), t.dtype(), false});
    r.args.back().is_output = true;
    r.timing.min_repeat_ms = 1;
    EXPECT_TRUE(runner.run(r).ok());
  }
}

TEST(Measurer, BatchWithCheckAndInstantiationErrors) {
  MeasureOptions opt;
  opt.check = true;
  opt.timing.min_repeat_ms = 1;
  Measurer m(opt);
  auto dag = matmul(48);
  using namespace schedule;
  std::vector<MeasureInput> batch = {
      {dag, {}},
      {dag,
       {SplitStep{"C", "j", 48, {16}, true}, AnnotationStep{"C", "j.1", IterAnnotation::Vectorize},
        AnnotationStep{"C", "i", IterAnnotation::Parallel}, LayoutRewriteStep{"C", "B"}}},
      {dag, {SplitStep{"C", "nope", 48, {16}, true}}},
  };
  auto res = m.measure(batch);
  ASSERT_EQ(res.size(), 3u);
  EXPECT_TRUE(res[0].ok()) << res[0].error_msg;
  EXPECT_TRUE(res[1].ok()) << res[1].error_msg;
  EXPECT_EQ(res[2].error, ErrorKind::Instantiation);
  EXPECT_EQ(res[2].error_msg, "step 0 split(C, nope, [16]): stage C has no iterator nope");
  EXPECT_GT(res[0].median(), 0);
  // Each repeat runs at least min_repeat_ms: the time charged to measuring covers it.
  EXPECT_GE(res[0].measure_s, 1e-3);
  EXPECT_GE(res[1].measure_s, 1e-3);
}

// 8-bit arguments cross the worker protocol (their dtype codes) and get seeded inputs there: a
// requantization from uint8 to int8, measured with the check against the reference evaluator.
TEST(Measurer, EightBitArgumentsAreMeasuredAndChecked) {
  MeasureOptions opt;
  opt.check = true;
  opt.timing.min_repeat_ms = 1;
  Measurer m(opt);
  Tensor a = placeholder("A", {32, 48}, DType::UInt8);
  Tensor q = compute("Q", {32, 48}, [&](const std::vector<Var>& v) {
    Expr x = (cast(DType::Float32, a(v)) - 128.0) * 0.7;
    return cast(DType::Int8, te::min(te::max(te::round(x), -128.0), 127.0));
  });
  auto dag = std::make_shared<const ComputeDAG>(std::vector<Tensor>{a}, std::vector<Tensor>{q});
  using namespace schedule;
  std::vector<MeasureInput> batch = {
      {dag, {}},
      {dag, {SplitStep{"Q", "j", 48, {16}, true}, AnnotationStep{"Q", "j.1", IterAnnotation::Vectorize}}},
  };
  auto res = m.measure(batch);
  ASSERT_EQ(res.size(), 2u);
  for (const auto& r : res) EXPECT_TRUE(r.ok()) << r.error_msg;
}

// Rounds interleave the inputs, each built once; a failed input fails every round; side by side,
// a matmul that reads B down its columns one scalar at a time is slower than the default schedule.
TEST(Measurer, RoundsAndSideBySideTimes) {
  MeasureOptions opt;
  opt.timing.min_repeat_ms = 1;
  opt.timing.repeat = 1;
  Measurer m(opt);
  auto dag = matmul(96);
  using namespace schedule;
  std::vector<Step> slow = {ReorderStep{"C", {"j", "i", "k"}}};
  std::vector<MeasureInput> batch = {
      {dag, defaultScheduleFor(*dag)}, {dag, slow}, {dag, {SplitStep{"C", "nope", 96, {16}, true}}}};
  auto rounds = m.measureRounds(batch, 3);
  ASSERT_EQ(rounds.size(), 3u);
  for (const auto& r : rounds) ASSERT_EQ(r.size(), 3u);
  for (int i = 0; i < 3; ++i) {
    EXPECT_TRUE(rounds[0][i].ok()) << rounds[0][i].error_msg;
    EXPECT_TRUE(rounds[1][i].ok()) << rounds[1][i].error_msg;
    EXPECT_EQ(rounds[2][i].error, ErrorKind::Instantiation);
  }
  // One thread: a parallel default timed while other tests load the machine waits at its
  // barriers, and with 3 or 4 rounds the interval is their whole range.
  MeasureOptions one = opt;
  one.threads = 1;
  Measurer single(one);
  RoundsProtocol p;
  p.min_rounds = 3;
  p.max_rounds = 4;
  SideBySide t = single.compareSideBySide(batch, p);
  ASSERT_EQ(t.median_s.size(), 3u);
  EXPECT_GT(t.median_s[0], 0);
  EXPECT_GT(t.median_s[1], t.median_s[0]);
  EXPECT_TRUE(std::isinf(t.median_s[2]));
  EXPECT_EQ(t.results[2].error, ErrorKind::Instantiation);
  // The slow schedule loses beyond the spread; its per-round times are its costs.
  EXPECT_GE(t.speedup[1].rounds(), 3);
  EXPECT_LE(t.speedup[1].rounds(), 4);
  EXPECT_TRUE(t.speedup[1].loss()) << formatSpeedup(t.speedup[1]);
  EXPECT_FALSE(t.speedup[1].gain());
  EXPECT_EQ(t.results[1].costs_s.size(), static_cast<size_t>(t.speedup[1].rounds()));
  EXPECT_EQ(t.speedup[2].median, 0);
}

// A side-by-side re-timing of schedules measured before runs the code built then: with a
// compiler that now crashes, only the input without a prebuilt slot fails to build.
TEST(Measurer, SideBySideRunsPrebuiltCodeWithoutCompilingItAgain) {
  MeasureOptions opt;
  opt.timing.min_repeat_ms = 1;
  opt.timing.repeat = 1;
  opt.threads = 1;  // see RoundsAndSideBySideTimes
  Measurer m(opt);
  auto dag = matmul(96);
  using namespace schedule;
  std::vector<Step> slow = {ReorderStep{"C", {"j", "i", "k"}}};
  std::vector<MeasureInput> batch = {{dag, defaultScheduleFor(*dag)}, {dag, slow}};
  std::vector<BuildResult> builds;
  std::vector<RecordResult> measured = m.measure(batch, builds);
  ASSERT_EQ(builds.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    ASSERT_TRUE(measured[i].ok()) << measured[i].error_msg;
    ASSERT_TRUE(builds[i].ok()) << builds[i].message;
    EXPECT_FALSE(builds[i].code.bytes.empty()) << "timing took the code of the handed-back build";
  }
  Builder::setFaultHookForTesting([](const MeasureInput&) { std::abort(); });
  RoundsProtocol p;
  p.min_rounds = 3;
  p.max_rounds = 4;
  SideBySide both = m.compareSideBySide(batch, p, {builds[0], builds[1]});
  SideBySide one = m.compareSideBySide(batch, p, {builds[0], std::nullopt});
  Builder::setFaultHookForTesting({});
  ASSERT_TRUE(both.results[0].ok()) << both.results[0].error_msg;
  ASSERT_TRUE(both.results[1].ok()) << both.results[1].error_msg;
  EXPECT_TRUE(both.speedup[1].loss()) << formatSpeedup(both.speedup[1]);
  EXPECT_TRUE(one.results[0].ok()) << one.results[0].error_msg;
  EXPECT_EQ(one.results[1].error, ErrorKind::CompileError) << one.results[1].error_msg;
}

}  // namespace
}  // namespace ttune::measure
