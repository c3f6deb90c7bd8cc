// libgpuscope_inject.so end to end on a CPU, with a fake libcupti (fake_cupti/): the
// real entry points, CUPTI callbacks, periodic flush, exit drain, fork and SIGKILL.
// Each scenario runs in a forked child, which dlopens the library like libcuda would
// and then exits or dies; the parent checks the exit status and reads the spool.
// Skipped when the libraries are not built next to this test.
#include <dlfcn.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <thread>

#include "capture_test_support.h"

namespace gpuscope::capture {
namespace {

namespace fs = std::filesystem;
namespace sp = gpuscope::spool;
using namespace std::chrono_literals;

fs::path test_dir() { return fs::read_symlink("/proc/self/exe").parent_path(); }

template <class Fn>
Fn sym(void* handle, const char* name) {
  return reinterpret_cast<Fn>(dlsym(handle, name));
}

class InjectionE2E : public ::testing::Test {
 protected:
  void SetUp() override {
    inject_ = test_dir().parent_path() / "libgpuscope_inject.so";
    fake_ = test_dir() / "libgpuscope_test_fake_cupti.so";
    preload_ = test_dir().parent_path() / "libgpuscope_preload.so";
    if (!fs::exists(inject_) || !fs::exists(fake_)) {
      GTEST_SKIP() << "build gpuscope_inject first (" << inject_ << ", " << fake_ << ")";
    }
    dir_ = fs::temp_directory_path() / ("gpuscope_e2e_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }

  std::string config(const std::string& extra = "") const {
    return "spool=" + (dir_ / "cap").string() + ";cupti=" + fake_.string() + ";buffer_kb=64;flush_ms=20" + extra;
  }

  // Runs `scenario` in a child with the config set; returns the raw wait status.
  // The child reports its own failures as exit codes >= 100.
  template <class Scenario>
  int run_child(const std::string& config_text, Scenario scenario, pid_t* child_pid = nullptr) {
    fflush(nullptr);
    pid_t pid = fork();
    if (pid == 0) {
      setenv("GPUSCOPE_INJECT_CONFIG", config_text.c_str(), 1);
      void* inject = dlopen(inject_.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (inject == nullptr) _exit(100);
      scenario(inject);
      _exit(101);  // scenarios end with exit() or a signal
    }
    if (child_pid) *child_pid = pid;
    int status = 0;
    waitpid(pid, &status, 0);
    return status;
  }

  test::ReadSpool spool_of(pid_t pid) const {
    return test::read_spool((dir_ / ("cap." + std::to_string(pid) + ".spool")).string());
  }
  size_t spool_count() const {
    size_t n = 0;
    for (const auto& entry : fs::directory_iterator(dir_)) n += entry.path().extension() == ".spool";
    return n;
  }

  // A child that starts the capture with `extra` config and exits with `code`: its exit
  // status must pass through and its spool end with tracing "ok" (the fake has the activity
  // API). Returns the spool and its last MetricCollection record, with that record's status.
  struct MetricsRun {
    test::ReadSpool spool;
    sp::MetricCollectionRecord last{};
    std::string status;
  };
  MetricsRun metrics_run(const std::string& extra, int code) {
    pid_t pid = 0;
    const int status = run_child(
        config(extra),
        [&](void* inject) {
          if (sym<int (*)()>(inject, "InitializeInjection")() != 1) _exit(104);
          exit(code);
        },
        &pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == code) << "wait status " << status;
    MetricsRun run{spool_of(pid), {}, ""};
    EXPECT_TRUE(run.spool.has_end);
    EXPECT_EQ(run.spool.texts[static_cast<uint32_t>(sp::TextKey::CaptureStatus)], "ok");  // tracing runs
    const auto collections = run.spool.of(sp::RecordKind::MetricCollection);
    EXPECT_FALSE(collections.empty());
    if (!collections.empty()) {
      run.last = collections.back().as<sp::MetricCollectionRecord>();
      run.status = run.spool.strings.at(run.last.status);
    }
    return run;
  }

  fs::path inject_, fake_, preload_, dir_;
};

uint64_t loss_total(const test::ReadSpool& r, const std::string& what) {
  uint64_t total = 0;
  for (const auto& loss : r.of(sp::RecordKind::Loss)) {
    auto l = loss.as<sp::LossRecord>();
    if (r.strings.at(l.what) == what) total += l.count;
  }
  return total;
}

TEST_F(InjectionE2E, CleanRunForkedChildAndExitDrain) {
  const std::string fake = fake_.string();
  pid_t pid = 0;
  int status = run_child(
      config(),
      [&](void* inject) {
        auto nvtx_init = sym<int (*)(const void* (*)(uint32_t))>(inject, "InitializeInjectionNvtx2");
        auto init = sym<int (*)()>(inject, "InitializeInjection");
        if (!nvtx_init || !init) _exit(102);
        if (nvtx_init(nullptr) != 1) _exit(103);  // forwarded to (fake) libcupti
        if (init() != 1) _exit(104);
        void* cupti = dlopen(fake.c_str(), RTLD_NOW | RTLD_NOLOAD);  // the copy the library loaded
        if (cupti == nullptr) _exit(105);
        if (sym<int (*)()>(cupti, "fake_cupti_nvtx_inits")() != 1) _exit(106);
        auto launch = sym<void (*)(int)>(cupti, "fake_cupti_launch");
        auto flushes = sym<int (*)()>(cupti, "fake_cupti_flushes");
        launch(1000);
        for (int i = 0; i < 200 && flushes() < 2; ++i) std::this_thread::sleep_for(10ms);  // periodic flush
        if (flushes() < 2) _exit(107);

        // A fork()ed child without exec: it must neither write to our spool nor hang at exit.
        pid_t grandchild = fork();
        if (grandchild == 0) {
          launch(10);
          exit(3);  // runs atexit handlers, ours included
        }
        int gstatus = 0;
        waitpid(grandchild, &gstatus, 0);
        if (!WIFEXITED(gstatus) || WEXITSTATUS(gstatus) != 3) _exit(108);

        launch(500);  // delivered only by the forced flush at exit
        exit(7);
      },
      &pid);
  ASSERT_TRUE(WIFEXITED(status)) << status;
  ASSERT_EQ(WEXITSTATUS(status), 7) << "the program's exit status must be its own";
  EXPECT_EQ(spool_count(), 1u) << "the forked child must not create a spool";

  test::ReadSpool r = spool_of(pid);
  ASSERT_TRUE(r.header_ok);
  EXPECT_EQ(r.header.pid, static_cast<uint32_t>(pid));
  EXPECT_EQ(r.header.parent_pid, static_cast<uint32_t>(::getpid()));
  EXPECT_FALSE(r.truncated);
  EXPECT_FALSE(r.bad_crc);
  EXPECT_TRUE(r.has_end);
  EXPECT_EQ(r.texts.at(static_cast<uint32_t>(sp::TextKey::CaptureStatus)), "ok");
  EXPECT_EQ(r.texts.at(static_cast<uint32_t>(sp::TextKey::CuptiPath)), fake_.string());
  EXPECT_NE(r.texts.at(static_cast<uint32_t>(sp::TextKey::CommandLine)).find("gpuscope_capture_tests"),
            std::string::npos);
  auto process = r.of(sp::RecordKind::Process).at(0).as<sp::ProcessRecord>();
  EXPECT_EQ(process.pid, static_cast<uint32_t>(pid));
  EXPECT_EQ(process.cupti_version, 130001u);
  EXPECT_GT(process.start_ns, 0);

  auto kernels = r.of(sp::RecordKind::Kernel);
  auto apis = r.of(sp::RecordKind::Api);
  // 1000 + 500 from the process; the forked child's 10 never reach a spool.
  EXPECT_EQ(kernels.size(), 1500u);
  EXPECT_EQ(apis.size(), 1500u);
  if (!apis.empty()) {
    EXPECT_EQ(r.strings.at(apis[0].as<sp::ApiRecord>().name), "cudaLaunchKernel");
    EXPECT_EQ(apis[0].as<sp::ApiRecord>().tid, static_cast<uint32_t>(pid));  // main thread: tid == pid
  }
  EXPECT_EQ(loss_total(r, "cupti_dropped_records"), 5u);
  auto end = r.of(sp::RecordKind::End).at(0).as<sp::EndRecord>();
  EXPECT_EQ(end.records_written + 1, r.total_records);
  EXPECT_EQ(end.records_dropped, 0u);
}

// --api core: the launches' API records come from our own callbacks, not CUPTI's RUNTIME kind, and
// every kernel keeps its launch call (same correlation id, the launching thread). With a libcupti
// that lacks the callback API, CUPTI's runtime records take over.
TEST_F(InjectionE2E, CoreApiTraceRecordsLaunchesThroughCallbacks) {
  for (const bool with_callbacks : {true, false}) {
    const fs::path cupti = with_callbacks ? test_dir() / "libgpuscope_test_fake_cupti_callbacks.so" : fake_;
    if (!fs::exists(cupti)) GTEST_SKIP() << "build " << cupti;
    const std::string text = "spool=" + (dir_ / "cap").string() + ";cupti=" + cupti.string() + ";api=core";
    pid_t pid = 0;
    const int status = run_child(
        text,
        [&](void* inject) {
          if (sym<int (*)()>(inject, "InitializeInjection")() != 1) _exit(104);
          void* fake = dlopen(cupti.c_str(), RTLD_NOW | RTLD_NOLOAD);
          if (fake == nullptr) _exit(105);
          sym<void (*)(int)>(fake, "fake_cupti_launch")(300);
          sym<void (*)()>(fake, "fake_cupti_synchronize")();
          exit(9);
        },
        &pid);
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 9) << status;
    const test::ReadSpool r = spool_of(pid);
    EXPECT_TRUE(r.has_end);
    EXPECT_EQ(r.texts.at(static_cast<uint32_t>(sp::TextKey::CaptureStatus)), "ok");
    // Without callbacks the core trace falls back to CUPTI's records of every call, and says so.
    EXPECT_EQ(r.texts.at(static_cast<uint32_t>(sp::TextKey::ApiTrace)), with_callbacks ? "core" : "full");
    const auto kernels = r.of(sp::RecordKind::Kernel);
    const auto apis = r.of(sp::RecordKind::Api);
    ASSERT_EQ(kernels.size(), 300u) << "callbacks: " << with_callbacks;
    ASSERT_EQ(apis.size(), 301u) << "callbacks: " << with_callbacks;
    std::set<uint32_t> launches;
    for (const auto& record : apis) {
      const auto api = record.as<sp::ApiRecord>();
      EXPECT_EQ(api.tid, static_cast<uint32_t>(pid));
      if (r.strings.at(api.name) == "cudaLaunchKernel") launches.insert(api.correlation_id);
      else EXPECT_EQ(r.strings.at(api.name), "cudaDeviceSynchronize");
    }
    EXPECT_EQ(launches.size(), 300u);
    // The core trace's own synchronization record (CUPTI's SYNCHRONIZATION kind is off with it); the
    // fake's CUPTI makes none, so the fallback has none either.
    const auto syncs = r.of(sp::RecordKind::Sync);
    ASSERT_EQ(syncs.size(), with_callbacks ? 1u : 0u);
    if (with_callbacks) {
      EXPECT_EQ(syncs[0].as<sp::SyncRecord>().sync_kind, static_cast<uint8_t>(sp::SyncCode::ContextSynchronize));
      EXPECT_EQ(syncs[0].as<sp::SyncRecord>().context, 1u);
    }
    for (const auto& record : kernels) EXPECT_EQ(launches.count(record.as<sp::KernelRecord>().correlation_id), 1u);
    // The fake's CUPTI stamps its API records with small made-up times; the callbacks use the clock.
    const int64_t start = apis[0].as<sp::ApiRecord>().start_ns;
    if (with_callbacks) EXPECT_GT(start, int64_t{1'000'000'000'000'000}) << "records from the callbacks";
    else EXPECT_LT(start, 1'000'000) << "records from CUPTI's runtime trace";
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
}

TEST_F(InjectionE2E, SigkillLeavesAReadableTruncatedSpool) {
  const std::string fake = fake_.string();
  pid_t pid = 0;
  int status = run_child(
      config(),
      [&](void* inject) {
        sym<int (*)()>(inject, "InitializeInjection")();
        void* cupti = dlopen(fake.c_str(), RTLD_NOW | RTLD_NOLOAD);
        if (cupti == nullptr) _exit(105);
        sym<void (*)(int)>(cupti, "fake_cupti_launch")(300);
        // flush_ms=20: within a few periods the records are on disk.
        std::this_thread::sleep_for(300ms);
        raise(SIGKILL);
      },
      &pid);
  ASSERT_TRUE(WIFSIGNALED(status));
  EXPECT_EQ(WTERMSIG(status), SIGKILL);
  test::ReadSpool r = spool_of(pid);
  ASSERT_TRUE(r.header_ok);
  EXPECT_FALSE(r.has_end);  // the importer marks this capture truncated
  EXPECT_FALSE(r.bad_crc);
  EXPECT_EQ(r.of(sp::RecordKind::Kernel).size(), 300u);
  EXPECT_EQ(r.texts.at(static_cast<uint32_t>(sp::TextKey::CaptureStatus)), "ok");
}

TEST_F(InjectionE2E, CuptiRefusalFailsOpen) {
  pid_t pid = 0;
  setenv("FAKE_CUPTI_FAIL_KIND", std::to_string(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL).c_str(), 1);
  const std::string fake = fake_.string();
  int status = run_child(
      config(),
      [&](void* inject) {
        if (sym<int (*)()>(inject, "InitializeInjection")() != 1) _exit(104);
        void* cupti = dlopen(fake.c_str(), RTLD_NOW | RTLD_NOLOAD);
        if (cupti == nullptr) _exit(105);
        if (sym<int (*)()>(cupti, "fake_cupti_enabled_kinds")() != 0) _exit(106);  // all disabled again
        exit(9);
      },
      &pid);
  unsetenv("FAKE_CUPTI_FAIL_KIND");
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 9);
  test::ReadSpool r = spool_of(pid);
  ASSERT_TRUE(r.has_end);  // a complete file whose status explains the empty capture
  const std::string capture_status = r.texts.at(static_cast<uint32_t>(sp::TextKey::CaptureStatus));
  EXPECT_NE(capture_status.find("CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED"), std::string::npos) << capture_status;
  EXPECT_NE(capture_status.find("Nsight"), std::string::npos);
  EXPECT_EQ(r.of(sp::RecordKind::Process).size(), 1u);
  EXPECT_TRUE(r.of(sp::RecordKind::Kernel).empty());
}

TEST_F(InjectionE2E, OptionalKindRefusalIsPartial) {
  pid_t pid = 0;
  setenv("FAKE_CUPTI_FAIL_KIND", std::to_string(CUPTI_ACTIVITY_KIND_MARKER).c_str(), 1);
  int status = run_child(
      config(),
      [&](void* inject) {
        sym<int (*)()>(inject, "InitializeInjection")();
        exit(0);
      },
      &pid);
  unsetenv("FAKE_CUPTI_FAIL_KIND");
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  test::ReadSpool r = spool_of(pid);
  EXPECT_TRUE(r.has_end);
  EXPECT_EQ(r.texts.at(static_cast<uint32_t>(sp::TextKey::CaptureStatus)),
            "partial: MARKER off (cuptiActivityEnable returned CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED)");
}

// A libcupti without the range profiler (the fake has only the activity API): metric
// collection fails open with its reason in the spool; tracing and the exit status are intact.
TEST_F(InjectionE2E, MetricsWithoutRangeProfilerFailOpen) {
  const MetricsRun run = metrics_run(";metric=sm__throughput.avg.pct_of_peak_sustained_elapsed", 6);
  EXPECT_EQ(run.last.kind, static_cast<uint8_t>(sp::MetricCollectionKind::Kernel));
  EXPECT_NE(run.status.find("lacks the range profiler"), std::string::npos) << run.status;
  EXPECT_EQ(run.last.metrics, 2u);
  EXPECT_TRUE(run.spool.of(sp::RecordKind::KernelMetric).empty());
}

// GPU-wide sampling learns the program's devices from CUPTI's context callbacks; a libcupti
// without the callback API (the fake) leaves it blind. The capture says so in the sampling
// status instead of an "ok" without samples.
TEST_F(InjectionE2E, SamplingWithoutCallbacksSaysWhy) {
  const MetricsRun run = metrics_run(";gpu_metrics=10", 7);
  EXPECT_EQ(run.last.kind, static_cast<uint8_t>(sp::MetricCollectionKind::Sampling));
  EXPECT_NE(run.status.find("lacks the callback API"), std::string::npos) << run.status;
  EXPECT_TRUE(run.spool.of(sp::RecordKind::GpuSample).empty());
}

// --source on a libcupti without the PC sampling API (the fake): the program runs and exits as it
// would, tracing goes on, and the capture says why it has no PC samples.
TEST_F(InjectionE2E, SourceWithoutPcSamplingFailsOpenAndSaysWhy) {
  pid_t pid = 0;
  const int status = run_child(
      config(";source=1;source_period=9"),
      [&](void* inject) {
        if (sym<int (*)()>(inject, "InitializeInjection")() != 1) _exit(104);
        exit(5);
      },
      &pid);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 5) << "wait status " << status;
  const test::ReadSpool spool = spool_of(pid);
  EXPECT_TRUE(spool.has_end);
  EXPECT_EQ(spool.texts.at(static_cast<uint32_t>(sp::TextKey::CaptureStatus)), "ok");
  EXPECT_EQ(loss_total(spool, "pc_sampling_unavailable"), 1u);
  EXPECT_TRUE(spool.of(sp::RecordKind::PcSample).empty());
  EXPECT_FALSE(fs::exists(dir_ / ("cap." + std::to_string(pid) + ".spool.cubins")));
}

// The program's own CUPTI client (torch.profiler's Kineto) registers its buffer callbacks
// through libgpuscope_preload.so: gpuscope takes its buffers back first, never flushes again
// (not periodically, not at exit), and records when it lost the records.
namespace other_client {
std::atomic<int> completed{0};
alignas(8) uint8_t buffer[1 << 16];
void CUPTIAPI request(uint8_t** out, size_t* size, size_t* max_records) {
  *out = buffer;
  *size = sizeof buffer;
  *max_records = 0;
}
void CUPTIAPI complete(CUcontext, uint32_t, uint8_t*, size_t, size_t) { ++completed; }
int flushes_before_exit = -1;
int (*flushes)() = nullptr;
// Registered before the capture's exit handler, so it runs after it.
void check_no_exit_flush() {
  if (flushes() != flushes_before_exit) _exit(120);
}

// In a scenario child, as LD_PRELOAD and the program's own libcupti would be: the preload
// library first, then the (fake) libcupti, both global. Exits 102 if either fails to load.
struct ProgramCupti {
  void* stand_in;  // libgpuscope_preload.so
  void* cupti;
};
ProgramCupti load(const std::string& preload, const std::string& fake) {
  ProgramCupti p{dlopen(preload.c_str(), RTLD_NOW | RTLD_GLOBAL), dlopen(fake.c_str(), RTLD_NOW | RTLD_GLOBAL)};
  if (p.stand_in == nullptr || p.cupti == nullptr) _exit(102);
  return p;
}

// The program's registration, through the preload library as its call would go.
CUptiResult program_register(const ProgramCupti& p) {
  using Register = CUptiResult (*)(CUpti_BuffersCallbackRequestFunc, CUpti_BuffersCallbackCompleteFunc);
  return sym<Register>(p.stand_in, "cuptiActivityRegisterCallbacks")(request, complete);
}
}  // namespace other_client

TEST_F(InjectionE2E, CuptiTakeoverByTheProgramStopsOurFlushes) {
  if (!fs::exists(preload_)) GTEST_SKIP() << "build gpuscope_preload first (" << preload_ << ")";
  const std::string fake = fake_.string(), preload = preload_.string();
  pid_t pid = 0;
  int status = run_child(
      config(),
      [&](void* inject) {
        const other_client::ProgramCupti program = other_client::load(preload, fake);
        void* cupti = program.cupti;
        other_client::flushes = sym<int (*)()>(cupti, "fake_cupti_flushes");
        std::atexit(other_client::check_no_exit_flush);
        if (sym<int (*)()>(inject, "InitializeInjection")() != 1) _exit(104);
        auto launch = sym<void (*)(int)>(cupti, "fake_cupti_launch");
        launch(300);  // still ours: the takeover hands them to us first
        if (other_client::program_register(program) != CUPTI_SUCCESS) _exit(106);
        if (other_client::completed != 0) _exit(107);  // none of our buffers went to the other client
        const int after_takeover = other_client::flushes();
        launch(200);                                                // the other client's
        std::this_thread::sleep_for(200ms);                         // 10 periods of flush_ms=20
        if (other_client::flushes() != after_takeover) _exit(108);  // our periodic flush stopped
        other_client::flushes_before_exit = other_client::flushes();
        exit(5);
      },
      &pid);
  ASSERT_TRUE(WIFEXITED(status));
  ASSERT_EQ(WEXITSTATUS(status), 5) << "108: periodic flush went on; 120: flushed at exit; 107: buffer handed over";
  test::ReadSpool r = spool_of(pid);
  ASSERT_TRUE(r.has_end);
  EXPECT_EQ(r.of(sp::RecordKind::Kernel).size(), 300u);
  EXPECT_EQ(loss_total(r, "cupti_taken_over"), 1u);
  bool detail_found = false;
  for (const auto& loss : r.of(sp::RecordKind::Loss)) {
    auto l = loss.as<sp::LossRecord>();
    if (r.strings.at(l.what) == "cupti_taken_over")
      detail_found = r.strings.at(l.detail).find("took CUDA's activity records") != std::string::npos;
  }
  EXPECT_TRUE(detail_found);
}

// The program registered its own activity callbacks before CUDA (and so this capture)
// started: gpuscope leaves CUPTI's records to it, says why, and the program's client keeps
// receiving them.
TEST_F(InjectionE2E, AProgramThatRegisteredFirstKeepsItsRecords) {
  if (!fs::exists(preload_)) GTEST_SKIP() << "build gpuscope_preload first (" << preload_ << ")";
  const std::string fake = fake_.string(), preload = preload_.string();
  pid_t pid = 0;
  int status = run_child(
      config(),
      [&](void* inject) {
        const other_client::ProgramCupti program = other_client::load(preload, fake);
        void* cupti = program.cupti;
        if (other_client::program_register(program) != CUPTI_SUCCESS) _exit(103);
        if (sym<int (*)()>(inject, "InitializeInjection")() != 1) _exit(104);
        sym<void (*)(int)>(cupti, "fake_cupti_launch")(10);
        sym<CUptiResult (*)(uint32_t)>(cupti, "cuptiActivityFlushAll")(0);
        if (other_client::completed == 0) _exit(105);  // the program's client still gets the records
        exit(4);
      },
      &pid);
  ASSERT_TRUE(WIFEXITED(status));
  ASSERT_EQ(WEXITSTATUS(status), 4) << "105: the capture took the program's records";
  test::ReadSpool r = spool_of(pid);
  ASSERT_TRUE(r.has_end);
  const std::string capture_status = r.texts.at(static_cast<uint32_t>(sp::TextKey::CaptureStatus));
  EXPECT_NE(capture_status.find("registered for CUDA's activity records before CUDA started"), std::string::npos)
      << capture_status;
  EXPECT_TRUE(r.of(sp::RecordKind::Kernel).empty());
}

// The overhead floor's per-kind switches (bench/floor_injector.cpp): a kind or callback set it
// cannot enable is one "floor injector:" line, and the program runs on with its own exit status.
TEST_F(InjectionE2E, OverheadFloorSaysWhichPartItCannotEnable) {
  const fs::path floor = test_dir().parent_path() / "libgpuscope_floor_inject.so";
  if (!fs::exists(floor)) GTEST_SKIP() << "build gpuscope_floor_inject first";
  // The floor started in a child with these switches: its stderr, once the child exited with 6.
  auto floor_says = [&](const char* kinds, const char* callbacks) {
    const fs::path err = dir_ / "stderr.txt";
    fflush(nullptr);
    const pid_t pid = fork();
    if (pid == 0) {
      const int fd = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (fd < 0 || dup2(fd, 2) < 0) _exit(100);
      setenv("GPUSCOPE_INJECT_CONFIG", ("cupti=" + fake_.string()).c_str(), 1);
      setenv("GPUSCOPE_FLOOR_KINDS", kinds, 1);
      setenv("GPUSCOPE_FLOOR_CALLBACKS", callbacks, 1);
      void* lib = dlopen(floor.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (lib == nullptr || sym<int (*)()>(lib, "InitializeInjection")() != 1) _exit(101);
      exit(6);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 6) << status;
    std::ifstream in(err);
    return std::string((std::istreambuf_iterator<char>(in)), {});
  };
  std::string said = floor_says("CONCURRENT_KERNEL,NO_SUCH_KIND", "");
  EXPECT_NE(said.find("GPUSCOPE_FLOOR_KINDS: cannot enable NO_SUCH_KIND"), std::string::npos) << said;
  said = floor_says("CONCURRENT_KERNEL", "runtime_launches");  // the fake lacks the callback API
  EXPECT_NE(said.find("floor injector: this libcupti lacks the callback API"), std::string::npos) << said;
  said = floor_says("CONCURRENT_KERNEL,MEMCPY", "");
  EXPECT_EQ(said.find("floor injector"), std::string::npos) << said;
}

TEST_F(InjectionE2E, MissingConfigDoesNothing) {
  int status = run_child("", [&](void* inject) {
    unsetenv("GPUSCOPE_INJECT_CONFIG");
    if (sym<int (*)()>(inject, "InitializeInjection")() != 1) _exit(104);
    if (sym<int (*)(const void* (*)(uint32_t))>(inject, "InitializeInjectionNvtx2")(nullptr) != 0) _exit(105);
    exit(4);
  });
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 4);
  EXPECT_EQ(spool_count(), 0u);
}

}  // namespace
}  // namespace gpuscope::capture
