// GpmSampler on a CPU, against fake_nvml/ (a stand-in libnvidia-ml whose counters advance
// every FAKE_NVML_PERIOD_MS and whose metric values equal their NVML ids): which windows
// become samples, what values they carry, and how each failure reaches the collection status
// without stopping the trace. Timing checks are lower bounds only: CI machines are slow.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "capture/gpm_sampler.h"
#include "capture/metrics_outbox.h"
#include "capture/process_info.h"
#include "capture_test_support.h"
#include "gpuscope/metric_sets.h"

namespace gpuscope::capture {
namespace {

using namespace std::chrono_literals;
using test::RecordingSink;

constexpr int64_t kMsNs = 1'000'000;
constexpr double kMiB = 1024.0 * 1024.0;

// The fake knows one GPU: CUDA device 0. Any other device gets a bus id NVML cannot find.
std::string test_bus_id(int device) { return device == 0 ? "0000:01:00.0" : "0000:02:00.0"; }

// What an advanced window carries, in gpm_sample_metrics() order: the fake's value is the
// NVML metric id, and PCIe (ids 21 "to GPU", 20 "from GPU") is MiB/s scaled to bytes/s.
const std::vector<double> kExpected = {1, 2, 3, 5, 10, 11, 12, 13, 21 * kMiB, 20 * kMiB};

// One sample the sampler emitted: a window on one device and its values.
struct Window {
  uint32_t device;
  int64_t start_ns, end_ns;
  std::vector<double> values;
};

struct Result {
  std::vector<Window> windows;
  spool::MetricCollectionRecord collection{};
  std::string status;
  int64_t started_ns = 0, stopped_ns = 0;  // realtime around start() and stop()
  int window_starts = 0;                   // sample1s the fake measured from
};

struct Scenario {
  const char* mode = "ok";
  int period_ms = 50;
  uint32_t rate_hz = 10;
  std::vector<uint32_t> devices = {0};
  // Runs until this many windows came out (however long a slow machine takes), then `then`.
  size_t min_windows = 0;
  std::chrono::milliseconds then = 0ms;
  std::string library = GPUSCOPE_FAKE_NVML;
};

// The wait for min_windows gives up here (the test then fails on the count).
constexpr auto kDeadline = 30s;

// What the fake NVML holds and has seen (fake_nvml_* in fake_nvml.cpp); zeros before a test
// first loads it.
struct FakeCounts {
  int inits = 0, live_samples = 0, window_starts = 0;
};
FakeCounts fake_counts() {
  FakeCounts counts;
  void* fake = dlopen(GPUSCOPE_FAKE_NVML, RTLD_NOW | RTLD_NOLOAD);
  if (fake == nullptr) return counts;
  auto call = [fake](const char* name) { return reinterpret_cast<int (*)()>(dlsym(fake, name))(); };
  counts = {call("fake_nvml_inits"), call("fake_nvml_live_samples"), call("fake_nvml_window_starts")};
  dlclose(fake);
  return counts;
}

// The GpuSample records, one per metric and window, regrouped into windows.
std::vector<Window> windows_of(const RecordingSink& sink) {
  const auto& metrics = gpm_sample_metrics();
  std::vector<Window> windows;
  for (const auto& r : sink.records) {
    if (r.kind != spool::RecordKind::GpuSample) continue;
    spool::GpuSampleRecord s{};
    std::memcpy(&s, r.body.data(), std::min(sizeof s, r.body.size()));
    if (windows.empty() || windows.back().values.size() == metrics.size())
      windows.push_back({s.device, s.start_ns, s.end_ns, {}});
    Window& w = windows.back();
    EXPECT_EQ(s.device, w.device);
    EXPECT_EQ(s.start_ns, w.start_ns);
    EXPECT_EQ(s.end_ns, w.end_ns);
    EXPECT_EQ(sink.str(s.metric), metrics[w.values.size()].name);
    w.values.push_back(s.value);
  }
  return windows;
}

class GpmSamplerTest : public ::testing::Test {
 protected:
  void TearDown() override {
    unsetenv("FAKE_NVML_MODE");
    unsetenv("FAKE_NVML_PERIOD_MS");
  }

  // Starts a sampler, announces the devices, lets it run, stops it and drains its outbox.
  static Result sample(const Scenario& run) {
    // The fake reads these in nvmlInit_v2, which the sampler calls on its thread after start().
    setenv("FAKE_NVML_MODE", run.mode, 1);
    setenv("FAKE_NVML_PERIOD_MS", std::to_string(run.period_ms).c_str(), 1);
    MetricsOutbox outbox;
    RecordingSink sink;  // drained while running too, as the writer thread does
    Result result;
    const FakeCounts before = fake_counts();
    {
      GpmSampler sampler(GpmSamplerOptions{run.rate_hz, run.library, test_bus_id}, outbox);
      result.started_ns = realtime_ns();
      // Fail open: whatever NVML does, the program's side of the sampler never throws.
      EXPECT_NO_THROW({
        EXPECT_TRUE(sampler.start());
        for (uint32_t device : run.devices) sampler.device_in_use(device);
        const auto deadline = std::chrono::steady_clock::now() + kDeadline;
        while (windows_of(sink).size() < run.min_windows && std::chrono::steady_clock::now() < deadline) {
          std::this_thread::sleep_for(10ms);
          outbox.drain(sink);
        }
        std::this_thread::sleep_for(run.then);
        sampler.stop();
      });
      result.stopped_ns = realtime_ns();
    }
    outbox.drain(sink);
    result.windows = windows_of(sink);
    // Each drain with news writes the collection status; the last one is the run's.
    for (const auto& r : sink.records) {
      if (r.kind == spool::RecordKind::MetricCollection)
        std::memcpy(&result.collection, r.body.data(), sizeof result.collection);
    }
    result.status = sink.str(result.collection.status);
    // After stop(), every nvmlInit has its nvmlShutdown and every GPM sample is freed.
    const FakeCounts after = fake_counts();
    EXPECT_EQ(after.inits, before.inits);
    EXPECT_EQ(after.live_samples, before.live_samples);
    result.window_starts = after.window_starts;
    return result;
  }
};

// Every window carries the ids in metric order, is no shorter than 1/rate (except the final
// one, cut by stop()) and starts where the previous one ended.
void expect_regular_windows(const Result& r, int64_t min_window_ns) {
  // NVML measured each window from its own start sample: one per window, plus one for a last
  // window stop() found unadvanced.
  EXPECT_GE(r.window_starts, static_cast<int>(r.windows.size()));
  EXPECT_LE(r.window_starts, static_cast<int>(r.windows.size()) + 1);
  for (size_t i = 0; i < r.windows.size(); ++i) {
    const Window& w = r.windows[i];
    SCOPED_TRACE("window " + std::to_string(i));
    EXPECT_EQ(w.values, kExpected);
    EXPECT_GT(w.end_ns, w.start_ns);
    if (i + 1 < r.windows.size()) {
      // Lengths are measured on a steady clock, the times read from the wall clock a moment
      // apart: equal to well under a millisecond.
      EXPECT_GE(w.end_ns - w.start_ns, min_window_ns - kMsNs);
    }
    if (i > 0 && w.device == r.windows[i - 1].device) {
      EXPECT_EQ(w.start_ns, r.windows[i - 1].end_ns);
    }
    EXPECT_GE(w.start_ns, r.started_ns);
    EXPECT_LE(w.end_ns, r.stopped_ns);
  }
}

TEST_F(GpmSamplerTest, WindowsOfAtLeastOneOverRateCarryTheScaledCounters) {
  // The counters advance every 50 ms, but 10 Hz asks for windows of 100 ms or more.
  const Result r = sample({.period_ms = 50, .rate_hz = 10, .min_windows = 4});
  EXPECT_EQ(r.status, "ok");
  ASSERT_GE(r.windows.size(), 4u);
  expect_regular_windows(r, 100 * kMsNs);
  for (const Window& w : r.windows) EXPECT_EQ(w.device, 0u);

  // The collection reports the windows it got, not the rate asked for.
  int64_t total_ns = 0;
  for (const Window& w : r.windows) total_ns += w.end_ns - w.start_ns;
  EXPECT_NEAR(static_cast<double>(r.collection.interval_ns), static_cast<double>(total_ns) / r.windows.size(), 1e6);
  EXPECT_EQ(r.collection.kind, static_cast<uint8_t>(spool::MetricCollectionKind::Sampling));
  EXPECT_EQ(r.collection.metrics, gpm_sample_metrics().size());
  EXPECT_EQ(r.collection.passes, 1u);
}

TEST_F(GpmSamplerTest, OneHertzWaitsASecondAcrossManyCounterUpdates) {
  // One full window of >= 1 s, then a final one of >= 200 ms (4 updates) that stop() cuts short.
  const Result r = sample({.period_ms = 50, .rate_hz = 1, .min_windows = 1, .then = 200ms});
  EXPECT_EQ(r.status, "ok");
  ASSERT_GE(r.windows.size(), 2u);
  expect_regular_windows(r, 1000 * kMsNs);
}

TEST_F(GpmSamplerTest, StopEmitsTheLastWindowWhenTheCountersAdvanced) {
  // Far shorter than 1 s, but the counters advanced several times: stop() keeps it.
  const Result r = sample({.period_ms = 20, .rate_hz = 1, .then = 300ms});
  EXPECT_EQ(r.status, "ok");
  ASSERT_GE(r.windows.size(), 1u);
  expect_regular_windows(r, 1000 * kMsNs);
}

TEST_F(GpmSamplerTest, CountersThatDoNotAdvanceGiveNoWindow) {
  // Every measurement is 0s and a NaN: nothing to emit, not even at stop(), and not an error
  // yet (that takes 5 s, see the next test).
  const Result r = sample({.mode = "stuck", .then = 400ms});
  EXPECT_TRUE(r.windows.empty());
  EXPECT_EQ(r.status, "ok");
  EXPECT_EQ(r.collection.interval_ns, 0u);
}

TEST_F(GpmSamplerTest, CountersStuckForFiveSecondsEndSampling) {
  const Result r = sample({.mode = "stuck", .then = 5500ms});
  EXPECT_TRUE(r.windows.empty());
  EXPECT_NE(r.status.find("device 0: GPM counters did not advance for 5 s"), std::string::npos) << r.status;
}

TEST_F(GpmSamplerTest, GpuWithoutGpmFailsOpen) {
  const Result r = sample({.mode = "unsupported", .then = 100ms});
  EXPECT_TRUE(r.windows.empty());
  EXPECT_NE(r.status.find("device 0: "), std::string::npos) << r.status;
  EXPECT_NE(r.status.find("no GPM counters"), std::string::npos) << r.status;
}

TEST_F(GpmSamplerTest, MetricsGetFailureEndsSampling) {
  const Result r = sample({.mode = "metrics_error", .then = 200ms});
  EXPECT_TRUE(r.windows.empty());
  EXPECT_NE(r.status.find("device 0: nvmlGpmMetricsGet failed: Unknown Error"), std::string::npos) << r.status;
}

TEST_F(GpmSamplerTest, MissingNvmlLibrary) {
  const Result r = sample({.then = 50ms, .library = "/nonexistent/libnvidia-ml.so.1"});
  EXPECT_TRUE(r.windows.empty());
  EXPECT_EQ(r.status.rfind("cannot load NVML", 0), 0u) << r.status;
}

TEST_F(GpmSamplerTest, NvmlInitFailure) {
  const Result r = sample({.mode = "init_error", .then = 50ms});
  EXPECT_TRUE(r.windows.empty());
  EXPECT_EQ(r.status, "nvmlInit failed: Driver Not Loaded");
}

TEST_F(GpmSamplerTest, UnknownDeviceFailsAloneWhileTheOtherIsSampled) {
  const Result r = sample({.period_ms = 50, .rate_hz = 10, .devices = {0, 1}, .min_windows = 2});
  for (const char* part : {"device 1: ", "nvmlDeviceGetHandleByPciBusId failed: Not Found", "0000:02:00.0"})
    EXPECT_NE(r.status.find(part), std::string::npos) << r.status;
  ASSERT_GE(r.windows.size(), 2u);
  for (const Window& w : r.windows) EXPECT_EQ(w.device, 0u);
  expect_regular_windows(r, 100 * kMsNs);
}

}  // namespace
}  // namespace gpuscope::capture
