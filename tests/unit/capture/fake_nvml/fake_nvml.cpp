// A stand-in for libnvidia-ml.so.1, for CPU tests of the GPM sampler (gpm_sampler_test.cpp):
// the nine NVML calls nvml_gpm.cpp makes, with GPM's timing as measured on an H100. The
// counters advance once per period; two samples within one period give 0 for every metric and
// NaN for DRAM bandwidth (a 0/0), two samples across an update give value = metric id, so a
// test sees which metric landed where and how it was scaled.
//
// It checks its caller the way the real library would fail it: a GPM call before nvmlInit, an
// unknown or freed sample, a sample never filled by nvmlGpmSampleGet, or sample1 newer than
// sample2 returns NVML_ERROR_INVALID_ARGUMENT (with a "fake_nvml:" line on stderr saying why).
//
// The ABI is declared here again from NVML's documentation, not shared with nvml_gpm.cpp, so a
// mistake there is not silently repeated here.
//
// Environment (read by nvmlInit_v2, so each NvmlGpm::open sees the test's current setting):
//   FAKE_NVML_PERIOD_MS=<ms>  how often the counters advance (default 100)
//   FAKE_NVML_MODE=ok | unsupported    (the GPU has no GPM) | metrics_error (nvmlGpmMetricsGet
//                  fails) | init_error (nvmlInit_v2 fails) | stuck (counters never advance)
//   FAKE_NVML_FAIL=<function>[:<code>[:<nth>]],...  any call fails (fault_plan.h)
//
// Its soname is libnvidia-ml.so.1: a process that loaded it first gets it from the capture's
// dlopen("libnvidia-ml.so.1"), as the fault matrix's child program does.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <set>
#include <string>

#include "../fault_plan.h"

#define FAKE_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

// nvmlReturn_t values used here.
enum : int {
  kSuccess = 0,
  kUninitialized = 1,
  kInvalidArgument = 2,
  kNotFound = 6,
  kDriverNotLoaded = 9,
  kUnknown = 999,
};

// Every error nvmlReturn_t has (nvml.h of CUDA 13.0; no nvml.h ships with the toolkit, so
// the list is NVML's documented one), for FAKE_NVML_FAIL and nvmlErrorString.
struct Code {
  const char* name;
  int value;
};
constexpr Code kCodes[] = {
    {"NVML_ERROR_UNINITIALIZED", 1},
    {"NVML_ERROR_INVALID_ARGUMENT", 2},
    {"NVML_ERROR_NOT_SUPPORTED", 3},
    {"NVML_ERROR_NO_PERMISSION", 4},
    {"NVML_ERROR_ALREADY_INITIALIZED", 5},
    {"NVML_ERROR_NOT_FOUND", 6},
    {"NVML_ERROR_INSUFFICIENT_SIZE", 7},
    {"NVML_ERROR_INSUFFICIENT_POWER", 8},
    {"NVML_ERROR_DRIVER_NOT_LOADED", 9},
    {"NVML_ERROR_TIMEOUT", 10},
    {"NVML_ERROR_IRQ_ISSUE", 11},
    {"NVML_ERROR_LIBRARY_NOT_FOUND", 12},
    {"NVML_ERROR_FUNCTION_NOT_FOUND", 13},
    {"NVML_ERROR_CORRUPTED_INFOROM", 14},
    {"NVML_ERROR_GPU_IS_LOST", 15},
    {"NVML_ERROR_RESET_REQUIRED", 16},
    {"NVML_ERROR_OPERATING_SYSTEM", 17},
    {"NVML_ERROR_LIB_RM_VERSION_MISMATCH", 18},
    {"NVML_ERROR_IN_USE", 19},
    {"NVML_ERROR_MEMORY", 20},
    {"NVML_ERROR_NO_DATA", 21},
    {"NVML_ERROR_VGPU_ECC_NOT_SUPPORTED", 22},
    {"NVML_ERROR_INSUFFICIENT_RESOURCES", 23},
    {"NVML_ERROR_FREQ_NOT_SUPPORTED", 24},
    {"NVML_ERROR_ARGUMENT_VERSION_MISMATCH", 25},
    {"NVML_ERROR_DEPRECATED", 26},
    {"NVML_ERROR_NOT_READY", 27},
    {"NVML_ERROR_GPU_NOT_FOUND", 28},
    {"NVML_ERROR_INVALID_STATE", 29},
    {"NVML_ERROR_RESET_TYPE_NOT_SUPPORTED", 30},
    {"NVML_ERROR_UNKNOWN", 999},
};
constexpr int kCodeCount = sizeof(kCodes) / sizeof(kCodes[0]);

// Every function below that FAKE_NVML_FAIL can make fail, for the fault matrix.
constexpr const char* kFaultable[] = {"nvmlInit_v2",
                                      "nvmlShutdown",
                                      "nvmlErrorString",
                                      "nvmlDeviceGetHandleByPciBusId_v2",
                                      "nvmlGpmQueryDeviceSupport",
                                      "nvmlGpmSampleAlloc",
                                      "nvmlGpmSampleFree",
                                      "nvmlGpmSampleGet",
                                      "nvmlGpmMetricsGet",
                                      nullptr};

// Never destroyed: the sampler thread may call in while the process exits.
fake::FaultPlan& plan() {
  static auto* p = fake::FaultPlan::make<plan>("FAKE_NVML_FAIL", kFaultable);
  return *p;
}
#define FAULT_POINT() \
  if (const int fault = plan().check(__func__)) return fault

// nvmlGpmSupport_t, version 1.
struct Support {
  unsigned version;
  unsigned isSupportedDevice;
};

// nvmlGpmMetric_t: id in, result out; the three names are NVML's, unused by gpuscope.
struct Metric {
  unsigned metricId;
  int nvmlReturn;
  double value;
  char* names[3];  // metricInfo: shortName, longName, unit
};

// nvmlGpmMetricsGet_t, version 1: NVML_GPM_METRIC_MAX entries, numMetrics of them used.
struct MetricsGet {
  unsigned version;
  unsigned numMetrics;
  void* sample1;
  void* sample2;
  Metric metrics[210];
};

// An nvmlGpmSample_t: which counter period it saw, and when it was taken.
struct Sample {
  bool filled = false;
  long long period = 0;
  unsigned long long sequence = 0;  // order of nvmlGpmSampleGet calls
};

enum class Mode { Ok, Unsupported, MetricsError, InitError, Stuck };

std::mutex g_mutex;  // the sampler thread calls in; the test reads the counts after stop()
Mode g_mode = Mode::Ok;
long long g_period_ms = 100;
int g_inits = 0;  // nvmlInit_v2 minus nvmlShutdown, as NVML counts them
// Allocated, not yet freed. Never destroyed: a sample whose nvmlGpmSampleFree was made to fail
// stays NVML's, as with the real library, and must stay reachable at exit, or LeakSanitizer would
// blame the capture for what the injected failure kept.
std::set<Sample*>& g_samples = *new std::set<Sample*>;
[[maybe_unused]] unsigned long long g_sequence = 0;  // unused without GPM (FAKE_NVML_NO_GPM)
// Windows as the fake sees them: how many different sample1s nvmlGpmMetricsGet has measured
// from since the first nvmlInit. A sampler that never moves its start past the first sample
// would get the right values from this fake, but averages over the whole run from real GPM.
[[maybe_unused]] unsigned long long g_last_start = 0;
int g_window_starts = 0;
int g_device = 0;  // the one GPU's nvmlDevice_t is &g_device
constexpr const char* kBusId = "0000:01:00.0";

Mode mode_from_env() {
  const char* mode = std::getenv("FAKE_NVML_MODE");
  const std::string m = mode ? mode : "ok";
  if (m == "unsupported") return Mode::Unsupported;
  if (m == "metrics_error") return Mode::MetricsError;
  if (m == "init_error") return Mode::InitError;
  if (m == "stuck") return Mode::Stuck;
  return Mode::Ok;
}

int reject(const char* why) {
  std::fprintf(stderr, "fake_nvml: %s\n", why);
  return kInvalidArgument;
}

// The sample behind `handle`, or null when the caller passes something we never handed out.
[[maybe_unused]] Sample* find_sample(void* handle) {
  auto* sample = static_cast<Sample*>(handle);
  return g_samples.count(sample) ? sample : nullptr;
}

}  // namespace

FAKE_EXPORT int nvmlInit_v2() {
  FAULT_POINT();
  std::lock_guard<std::mutex> lock(g_mutex);
  g_mode = mode_from_env();
  if (g_mode == Mode::InitError) return kDriverNotLoaded;
  const char* period = std::getenv("FAKE_NVML_PERIOD_MS");
  g_period_ms = period && std::atoll(period) > 0 ? std::atoll(period) : 100;
  if (g_inits++ == 0) g_window_starts = 0;
  return kSuccess;
}

FAKE_EXPORT int nvmlShutdown() {
  FAULT_POINT();
  std::lock_guard<std::mutex> lock(g_mutex);
  if (g_inits == 0) return kUninitialized;
  --g_inits;
  return kSuccess;
}

FAKE_EXPORT const char* nvmlErrorString(int rc) {
  if (plan().check(__func__) != 0) return nullptr;
  switch (rc) {  // NVML's own texts for the codes the mode tests expect
    case kSuccess: return "Success";
    case kUninitialized: return "Uninitialized";
    case kInvalidArgument: return "Invalid Argument";
    case kNotFound: return "Not Found";
    case kDriverNotLoaded: return "Driver Not Loaded";
    case kUnknown: return "Unknown Error";
    default: break;
  }
  for (const Code& code : kCodes)
    if (code.value == rc) return code.name;
  return "Unknown Error";
}

FAKE_EXPORT int nvmlDeviceGetHandleByPciBusId_v2(const char* bus_id, void** device) {
  FAULT_POINT();
  std::lock_guard<std::mutex> lock(g_mutex);
  if (g_inits == 0) return kUninitialized;
  if (bus_id == nullptr || device == nullptr) return reject("null argument to nvmlDeviceGetHandleByPciBusId_v2");
  if (std::strcmp(bus_id, kBusId) != 0) return kNotFound;
  *device = &g_device;
  return kSuccess;
}

// Without FAKE_NVML_NO_GPM: an NVML older than R520, which has no GPM API.
#ifndef FAKE_NVML_NO_GPM
FAKE_EXPORT int nvmlGpmQueryDeviceSupport(void* device, Support* support) {
  FAULT_POINT();
  std::lock_guard<std::mutex> lock(g_mutex);
  if (g_inits == 0) return kUninitialized;
  if (device != &g_device || support == nullptr) return reject("nvmlGpmQueryDeviceSupport: bad device");
  if (support->version != 1) return reject("nvmlGpmQueryDeviceSupport: version is not 1");
  support->isSupportedDevice = g_mode == Mode::Unsupported ? 0 : 1;
  return kSuccess;
}

FAKE_EXPORT int nvmlGpmSampleAlloc(void** sample) {
  FAULT_POINT();
  std::lock_guard<std::mutex> lock(g_mutex);
  if (sample == nullptr) return reject("nvmlGpmSampleAlloc: null");
  auto* s = new Sample;
  g_samples.insert(s);
  *sample = s;
  return kSuccess;
}

FAKE_EXPORT int nvmlGpmSampleFree(void* sample) {
  FAULT_POINT();
  std::lock_guard<std::mutex> lock(g_mutex);
  Sample* s = find_sample(sample);
  if (s == nullptr) return reject("nvmlGpmSampleFree: unknown or already freed sample");
  g_samples.erase(s);
  delete s;
  return kSuccess;
}

FAKE_EXPORT int nvmlGpmSampleGet(void* device, void* sample) {
  FAULT_POINT();
  std::lock_guard<std::mutex> lock(g_mutex);
  if (g_inits == 0) return kUninitialized;
  Sample* s = find_sample(sample);
  if (device != &g_device || s == nullptr) return reject("nvmlGpmSampleGet: bad device or sample");
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                      std::chrono::steady_clock::now().time_since_epoch())
                      .count();
  s->filled = true;
  s->period = g_mode == Mode::Stuck ? 0 : ms / g_period_ms;
  s->sequence = ++g_sequence;
  return kSuccess;
}

FAKE_EXPORT int nvmlGpmMetricsGet(MetricsGet* request) {
  FAULT_POINT();
  std::lock_guard<std::mutex> lock(g_mutex);
  if (g_inits == 0) return kUninitialized;
  if (request == nullptr || request->version != 1) return reject("nvmlGpmMetricsGet: version is not 1");
  if (request->numMetrics > 210) return reject("nvmlGpmMetricsGet: numMetrics over NVML_GPM_METRIC_MAX");
  const Sample* first = find_sample(request->sample1);
  const Sample* second = find_sample(request->sample2);
  if (first == nullptr || second == nullptr) return reject("nvmlGpmMetricsGet: unknown sample");
  if (!first->filled || !second->filled) return reject("nvmlGpmMetricsGet: a sample nvmlGpmSampleGet never filled");
  if (first->sequence >= second->sequence) return reject("nvmlGpmMetricsGet: sample1 is not older than sample2");
  if (g_mode == Mode::MetricsError) return kUnknown;
  if (first->sequence != g_last_start) ++g_window_starts;
  g_last_start = first->sequence;
  const bool advanced = first->period != second->period;
  for (unsigned i = 0; i < request->numMetrics; ++i) {
    Metric& m = request->metrics[i];
    m.nvmlReturn = kSuccess;
    // Within one period the GPU's counters are unchanged: 0 ns active of 0 ns elapsed, which
    // NVML reports as 0 for most metrics but as NaN for DRAM bandwidth (id 10).
    m.value = advanced ? static_cast<double>(m.metricId) : m.metricId == 10 ? NAN : 0.0;
  }
  return kSuccess;
}
#endif

// What FAKE_NVML_FAIL can name, null-terminated, and the codes it can return.
FAKE_EXPORT const char* const* fake_fault_functions() { return kFaultable; }
FAKE_EXPORT int fake_fault_code_count() { return kCodeCount; }
FAKE_EXPORT int fake_fault_code(int i, const char** name) {
  *name = kCodes[i].name;
  return kCodes[i].value;
}

// For the test: what the sampler holds open (nothing after stop()), and the window starts.
FAKE_EXPORT int fake_nvml_inits() {
  std::lock_guard<std::mutex> lock(g_mutex);
  return g_inits;
}
FAKE_EXPORT int fake_nvml_live_samples() {
  std::lock_guard<std::mutex> lock(g_mutex);
  return static_cast<int>(g_samples.size());
}
FAKE_EXPORT int fake_nvml_window_starts() {
  std::lock_guard<std::mutex> lock(g_mutex);
  return g_window_starts;
}
