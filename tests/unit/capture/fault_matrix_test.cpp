// The fault-injection matrix. Every function the capture calls in the fake
// libcupti and the fake NVML fails, one function at a time, with every error code the library
// defines; fault_child's stdout and exit status must stay those of its run without capture, and
// the capture must say which call failed and with which error (a "gpuscope:" line or a string
// in the spool). Also covered: the libraries missing, and symbols missing from them.
// Summary lines go to stdout (ctest -V, or the test binary itself, shows them).
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <set>
#include <thread>

#include "fault_child_runner.h"
#include "gpuscope/model.h"
#include "importers/importer.h"

namespace gpuscope::capture::test {
namespace {

namespace fs = std::filesystem;

// Calls the capture makes only after another call failed (to name that error): each is tested
// together with the partner failing with the same code, and the partner's reason must be shown.
const std::map<std::string, std::string> kErrorPathOnly = {
    {"cuptiGetResultString", "cuptiActivityFlushPeriod"},
    {"nvmlErrorString", "nvmlGpmQueryDeviceSupport"},
};

// Calls that return no status: one case each, with the failure the fake gives (see the fake).
const std::map<std::string, std::string> kNotAStatus = {{"InitializeInjectionNvtx2", "returned 0"}};

// Calls the capture makes only in another configuration: its extra capture options.
const std::map<std::string, std::string> kScenario = {
    {"cuptiActivityDisable", ";delay=0.001;duration=0.02"},  // a capture range ends: tracing stops
};

// One fake library as the matrix sees it: what FAKE_*_FAIL can name, and the codes to return.
struct Fake {
  std::string env_var;
  std::vector<std::string> functions;
  struct Code {
    std::string name;
    int value;
    std::vector<std::string> texts;  // how a reason may name it
  };
  std::vector<Code> codes;
};

// Empty when the fake cannot be loaded or lists nothing (the matrix then fails).
Fake load_fake(const std::string& path, const std::string& env_var) {
  Fake fake{env_var, {}, {}};
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) return fake;
  auto functions = reinterpret_cast<const char* const* (*)()>(dlsym(handle, "fake_fault_functions"));
  auto count = reinterpret_cast<int (*)()>(dlsym(handle, "fake_fault_code_count"));
  auto code = reinterpret_cast<int (*)(int, const char**)>(dlsym(handle, "fake_fault_code"));
  auto nvml_text = reinterpret_cast<const char* (*)(int)>(dlsym(handle, "nvmlErrorString"));
  if (functions == nullptr || count == nullptr || code == nullptr) return fake;
  for (const char* const* f = functions(); *f != nullptr; ++f) fake.functions.push_back(*f);
  for (int i = 0; i < count(); ++i) {
    const char* name = nullptr;
    const int value = code(i, &name);
    // The library's own text for it (NVML's nvmlErrorString is prose), its enum name, and the
    // number the capture falls back to when the text lookup itself fails.
    std::vector<std::string> texts{name, "error " + std::to_string(value), "CUPTI error " + std::to_string(value)};
    if (nvml_text != nullptr)
      if (const char* t = nvml_text(value)) texts.push_back(t);
    fake.codes.push_back({name, value, texts});
  }
  return fake;  // the handle stays open: unloading buys nothing in a test process
}

class FaultMatrix : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("gpuscope_faults_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
  }
  void TearDown() override {
    if (!::testing::Test::HasFailure()) fs::remove_all(dir_);  // kept to look at when a case fails
  }

  // The capture's environment: the whole trace, the lean API filter (unless `options` choose
  // another API trace), NVML GPU sampling.
  std::map<std::string, std::string> captured(const fs::path& dir, const std::string& cupti = GPUSCOPE_FAKE_CUPTI,
                                              const std::string& options = "") const {
    return {{"CUDA_INJECTION64_PATH", GPUSCOPE_INJECT_LIB},
            {"NVTX_INJECTION64_PATH", GPUSCOPE_INJECT_LIB},
            {"GPUSCOPE_INJECT_CONFIG", "spool=" + (dir / "cap").string() + ";cupti=" + cupti +
                                           ";buffer_kb=64;flush_ms=20;gpu_metrics=50" +
                                           (options.find(";api=") == std::string::npos ? ";api=lean" : "") + options},
            {"FAULT_CHILD_PRELOAD", GPUSCOPE_PRELOAD_LIB},
            {"FAULT_CHILD_CUDA", GPUSCOPE_FAKE_CUDA},
            {"FAULT_CHILD_NVML", GPUSCOPE_FAKE_NVML},
            {"FAULT_CHILD_CUPTI", cupti},
            {"FAKE_NVML_PERIOD_MS", "5"},
            // Nothing fails unless a case says so, whatever the test's own environment holds.
            {"FAKE_CUPTI_FAIL", ""},
            {"FAKE_NVML_FAIL", ""},
            {"FAKE_CUPTI_FAIL_KIND", ""},
            {"FAKE_NVML_MODE", ""}};
  }
  ChildRun run(const std::string& name, std::map<std::string, std::string> env) const {
    return run_child(GPUSCOPE_FAULT_CHILD, dir_ / name, env);
  }
  // The program on its own: the fake driver, no capture.
  ChildRun reference() const {
    auto env = captured(dir_ / "reference");
    env["CUDA_INJECTION64_PATH"] = env["NVTX_INJECTION64_PATH"] = env["GPUSCOPE_INJECT_CONFIG"] = "";
    return run("reference", env);
  }

  struct Case {
    std::string function, spec;  // spec: the FAKE_*_FAIL value
    const Fake::Code* code;
  };
  struct Outcome {
    bool identical = false, reason = false, fired = false;
    std::string problem;  // "" when the case passes
  };

  // One case in `dir`: the program's output against `ref`, the reason, the fault firing.
  Outcome run_case(const Fake& fake, const Case& c, const ChildRun& ref, const std::string& options,
                   const fs::path& dir) const {
    const auto scenario = kScenario.find(c.function);
    // A scenario's options replace the matrix's own (both set a capture range, say).
    auto env = captured(dir, GPUSCOPE_FAKE_CUPTI, scenario == kScenario.end() ? options : scenario->second);
    env[fake.env_var] = c.spec;
    const ChildRun got = run_child(GPUSCOPE_FAULT_CHILD, dir, env);
    const auto partner = kErrorPathOnly.find(c.function);
    const std::string named = partner == kErrorPathOnly.end() ? c.function : partner->second;
    const auto no_status = kNotAStatus.find(c.function);
    Outcome o;
    o.identical = !got.hung && got.status == ref.status && got.out == ref.out;
    o.reason = reason_shown(
        got, named, no_status == kNotAStatus.end() ? c.code->texts : std::vector<std::string>{no_status->second});
    o.fired = got.failed.count(c.function) > 0;
    std::string why;
    if (!o.fired) why += " the fault never fired;";
    if (got.hung) why += " hung;";
    if (!o.identical)
      why += " status " + std::to_string(got.status) + (got.out == ref.out ? "" : ", stdout differs") + ";";
    if (!o.reason) why += " no reason naming " + named + " and " + c.code->name + ";";
    if (!got.spool_error.empty()) why += " unreadable spool (" + got.spool_error + ");";
    if (!why.empty()) o.problem = c.spec + " (" + c.code->name + "):" + why + " [" + dir.string() + "]";
    return o;
  }

  // Runs every function of `fake` x every code (or only `only_code`), with the capture options
  // `options` added; two children per core: they mostly sleep. `unused`: functions these options
  // never call.
  void run_matrix(const Fake& fake, const std::string& options = "", int only_code = 0,
                  const std::set<std::string>& unused = {}) {
    ASSERT_FALSE(fake.functions.empty()) << "the fake lists no functions";
    const ChildRun ref = reference();
    ASSERT_TRUE(WIFEXITED(ref.status) && WEXITSTATUS(ref.status) == 3) << ref.status;
    std::vector<Case> cases;
    for (const std::string& function : fake.functions) {
      if (unused.count(function)) continue;
      for (const Fake::Code& code : fake.codes) {
        if (kNotAStatus.count(function) && &code != &fake.codes.front()) break;
        if (only_code != 0 && code.value != only_code && !kNotAStatus.count(function)) continue;
        std::string spec = function + ":" + std::to_string(code.value);
        if (auto partner = kErrorPathOnly.find(function); partner != kErrorPathOnly.end())
          spec += "," + partner->second + ":" + std::to_string(code.value);
        cases.push_back({function, spec, &code});
      }
    }
    std::vector<Outcome> outcomes(cases.size());
    std::atomic<size_t> next{0};
    auto worker = [&] {
      for (size_t i; (i = next++) < cases.size();) {
        const fs::path dir = dir_ / ("case" + std::to_string(i));
        outcomes[i] = run_case(fake, cases[i], ref, options, dir);
        if (outcomes[i].problem.empty()) fs::remove_all(dir);
      }
    };
    const auto started = std::chrono::steady_clock::now();
    std::vector<std::thread> threads;
    for (unsigned t = 0; t < 2 * std::max(1u, std::thread::hardware_concurrency()); ++t) threads.emplace_back(worker);
    for (std::thread& t : threads) t.join();
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();

    size_t identical = 0, shown = 0, reached = 0;
    std::map<std::string, std::pair<size_t, std::string>> by_function;  // failing cases, the first
    for (size_t i = 0; i < cases.size(); ++i) {
      identical += outcomes[i].identical;
      shown += outcomes[i].reason;
      reached += outcomes[i].fired;
      if (outcomes[i].problem.empty()) continue;
      auto& [count, first] = by_function[cases[i].function];
      if (count++ == 0) first = outcomes[i].problem;
    }
    std::printf(
        "%s matrix%s%s: %zu functions x %zu codes (1 for a call without a status) = %zu cases in %.1f s: "
        "%zu identical, %zu reason shown, %zu faults reached\n",
        fake.env_var.c_str(), options.empty() ? "" : " with ", options.c_str() + (options.empty() ? 0 : 1),
        fake.functions.size(), only_code ? size_t{1} : fake.codes.size(), cases.size(), seconds, identical, shown,
        reached);
    for (const auto& [function, failed] : by_function)
      ADD_FAILURE() << function << ": " << failed.first << " cases fail, e.g. " << failed.second;
  }

  // A run whose capture cannot work at all or in part: same program output, and a reason
  // containing every one of `words` (case-insensitive) on stderr or in the spool.
  void expect_fails_open(const std::string& name, const std::map<std::string, std::string>& env,
                         const std::vector<std::string>& words) {
    const ChildRun ref = reference();
    const ChildRun got = run(name, env);
    EXPECT_FALSE(got.hung) << name;
    EXPECT_EQ(got.status, ref.status) << name;
    EXPECT_EQ(got.out, ref.out) << name;
    auto lower = [](std::string s) {
      std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
      return s;
    };
    std::vector<std::string> said = got.capture_lines;
    for (const auto& [id, text] : got.spool.texts) said.push_back(text);
    for (const auto& [id, text] : got.spool.strings) said.push_back(text);
    const bool found = std::any_of(said.begin(), said.end(), [&](const std::string& text) {
      return std::all_of(words.begin(), words.end(),
                         [&](const std::string& w) { return lower(text).find(lower(w)) != std::string::npos; });
    });
    std::string all;
    for (const std::string& s : said) all += "\n  " + s;
    EXPECT_TRUE(found) << name << ": no reason with all of the words; the capture said:" << all;
  }

  fs::path dir_;
};

Fake cupti_fake() { return load_fake(GPUSCOPE_FAKE_CUPTI, "FAKE_CUPTI_FAIL"); }
Fake nvml_fake() { return load_fake(GPUSCOPE_FAKE_NVML, "FAKE_NVML_FAIL"); }

// Without a fault: the capture changes nothing, says nothing, and the child reaches every
// function of both fakes (but those used only to name another call's error), so the matrix
// tests them all. The reason check finds no failure here: it can fail.
TEST_F(FaultMatrix, CleanCaptureReachesEveryCallAndSaysNothing) {
  const ChildRun ref = reference();
  ASSERT_TRUE(WIFEXITED(ref.status)) << ref.status;
  EXPECT_EQ(WEXITSTATUS(ref.status), 3);
  EXPECT_NE(ref.out.find("fault child: done"), std::string::npos) << ref.out;
  const ChildRun clean = run("clean", captured(dir_ / "clean"));
  EXPECT_EQ(clean.status, ref.status);
  EXPECT_EQ(clean.out, ref.out);
  EXPECT_TRUE(clean.capture_lines.empty()) << clean.capture_lines.front();
  ASSERT_TRUE(clean.spool.has_end);
  EXPECT_EQ(clean.spool.texts.at(static_cast<uint32_t>(spool::TextKey::CaptureStatus)), "ok");
  EXPECT_FALSE(clean.spool.of(spool::RecordKind::Kernel).empty());
  EXPECT_FALSE(clean.spool.of(spool::RecordKind::GpuSample).empty()) << "NVML sampling gave no sample";
  for (const Fake& fake : {cupti_fake(), nvml_fake()}) {
    for (const std::string& function : fake.functions) {
      if (kErrorPathOnly.count(function) || kScenario.count(function)) continue;
      EXPECT_TRUE(clean.called.count(function)) << "the child never makes the capture call " << function;
      for (const Fake::Code& code : fake.codes)
        EXPECT_FALSE(reason_shown(clean, function, code.texts)) << function << " " << code.name;
    }
  }
}

TEST_F(FaultMatrix, EveryCuptiCallFailsWithEveryError) { run_matrix(cupti_fake()); }

TEST_F(FaultMatrix, EveryNvmlCallFailsWithEveryError) { run_matrix(nvml_fake()); }

// With a capture range, tracing starts and stops on a timer thread (begin_tracing/end_tracing):
// every CUPTI call fails there too, with one code (CUPTI_ERROR_UNKNOWN). The range, 5 to 45 ms,
// holds the child's second step (its launches come after the first step's work and 20 ms of sleep;
// under ASan on a loaded 2-core machine a range ending at 25 ms once held none of them) and ends
// before the child does (after its third step's sleep, 60 ms or more).
TEST_F(FaultMatrix, EveryCuptiCallFailsInACaptureRange) { run_matrix(cupti_fake(), ";delay=0.005;duration=0.04", 999); }

// The core API trace records launches with callbacks of its own: every CUPTI call fails under it
// too, with one code. It never switches single functions' activity records on or off.
TEST_F(FaultMatrix, EveryCuptiCallFailsWithTheCoreApiTrace) {
  run_matrix(cupti_fake(), ";api=core", 999, {"cuptiActivityEnableDriverApi", "cuptiActivityEnableRuntimeApi"});
}

// A call that fails only later, after it worked: a flush in mid-run, a sample after a good
// start, a record in the middle of a buffer, an optional activity kind. The nth calls do not
// depend on timing (the second sample: the first poll or the one at exit), except the second
// flush, which needs one periodic flush (every 20 ms) in the child's 60 ms of sleep.
TEST_F(FaultMatrix, LaterCallsFail) {
  const ChildRun ref = reference();
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"FAKE_CUPTI_FAIL", "cuptiActivityFlushAll:999:2"},
      {"FAKE_CUPTI_FAIL", "cuptiActivityGetNextRecord:999:50"},
      {"FAKE_CUPTI_FAIL", "cuptiActivityEnable:39:5"},
      {"FAKE_CUPTI_FAIL", "cuptiEnableCallback:999:3"},
      {"FAKE_CUPTI_FAIL", "cuptiActivityGetNumDroppedRecords:999:2"},
      {"FAKE_NVML_FAIL", "nvmlGpmSampleGet:15:2"},
      {"FAKE_NVML_FAIL", "nvmlGpmSampleAlloc:20:2"},
      {"FAKE_NVML_FAIL", "nvmlGpmSampleFree:999:2"},
  };
  const Fake cupti = cupti_fake(), nvml = nvml_fake();
  for (const auto& [env_var, spec] : cases) {
    const std::string function = spec.substr(0, spec.find(':'));
    const int value = std::stoi(spec.substr(function.size() + 1));
    const Fake& fake = env_var == "FAKE_CUPTI_FAIL" ? cupti : nvml;
    const auto code = std::find_if(fake.codes.begin(), fake.codes.end(),
                                   [&](const Fake::Code& c) { return c.value == value; });
    ASSERT_NE(code, fake.codes.end()) << spec;
    auto env = captured(dir_ / function);
    env[env_var] = spec;
    const ChildRun got = run(function, env);
    EXPECT_TRUE(got.failed.count(function)) << spec << ": the fault never fired";
    EXPECT_FALSE(got.hung) << spec;
    EXPECT_EQ(got.status, ref.status) << spec;
    EXPECT_EQ(got.out, ref.out) << spec;
    EXPECT_TRUE(reason_shown(got, function, code->texts)) << spec;
  }
}

// A failed call reaches the imported capture as data loss, which the report's data quality
// lists: what failed, how often, and the first message.
TEST_F(FaultMatrix, AFailedCallIsDataLossInTheImportedCapture) {
  auto env = captured(dir_ / "flush");
  env["FAKE_CUPTI_FAIL"] = "cuptiActivityFlushAll:13";  // CUPTI_ERROR_NOT_READY, every flush
  const ChildRun got = run("flush", env);
  ASSERT_FALSE(got.spool_path.empty());
  const Trace trace = import_spools({got.spool_path});
  uint64_t count = 0;
  std::string detail;
  for (const DataLoss& loss : trace.data_loss) {
    if (loss.what != "failed_call:cuptiActivityFlushAll") continue;
    count += loss.count;
    detail = loss.detail;
  }
  EXPECT_GE(count, 2u) << "a periodic flush and the one at exit";
  EXPECT_NE(detail.find("cuptiActivityFlushAll returned CUPTI_ERROR_NOT_READY"), std::string::npos) << detail;
  // Said once on stderr however often it failed.
  EXPECT_EQ(std::count_if(got.capture_lines.begin(), got.capture_lines.end(),
                          [](const std::string& l) { return l.find("cuptiActivityFlushAll") != std::string::npos; }),
            1);
}

// dlopen and dlsym failing: no library, a library without CUPTI's symbols, one without the
// optional callback API or the hardware-counter APIs, no NVML, an NVML without GPM.
TEST_F(FaultMatrix, MissingLibrariesAndSymbols) {
  const std::string missing = (dir_ / "no" / "libcupti.so.13").string();
  expect_fails_open("no_cupti", captured(dir_ / "no_cupti", missing), {"cannot load", missing});
  expect_fails_open("not_cupti", captured(dir_ / "not_cupti", GPUSCOPE_FAKE_CUDA), {"lacks cuptiGetVersion"});
  expect_fails_open("no_callback_api", captured(dir_ / "no_callback_api", GPUSCOPE_FAKE_CUPTI_PLAIN),
                    {"lacks the callback API"});
  // The fake has no hardware-counter API: per-kernel metrics and CUPTI's PM sampling say so.
  // Per-kernel metrics replace the GPU-wide sampling (the two exclude each other).
  auto metrics = captured(dir_ / "no_range_profiler", GPUSCOPE_FAKE_CUPTI, ";metric=gpu__time_duration.sum");
  std::string& config = metrics["GPUSCOPE_INJECT_CONFIG"];
  config.erase(config.find(";gpu_metrics=50"), std::string(";gpu_metrics=50").size());
  expect_fails_open("no_range_profiler", metrics, {"lacks the range profiler"});
  expect_fails_open("no_pm_sampling", captured(dir_ / "no_pm_sampling", GPUSCOPE_FAKE_CUPTI, ";gpu_metrics_source=pm"),
                    {"lacks the PM sampling API"});
  auto no_nvml = captured(dir_ / "no_nvml");
  no_nvml["FAULT_CHILD_NVML"] = "";
  expect_fails_open("no_nvml", no_nvml, {"nvml"});
  auto no_gpm = captured(dir_ / "no_gpm");
  no_gpm["FAULT_CHILD_NVML"] = GPUSCOPE_FAKE_NVML_NO_GPM;
  expect_fails_open("no_gpm", no_gpm, {"no GPM API"});
}

}  // namespace
}  // namespace gpuscope::capture::test
