#include "capture/nvml_gpm.h"

#include <dlfcn.h>

#include <cmath>

#include "capture/failed_calls.h"

namespace gpuscope::capture {
namespace {

// NVML's ABI for what we use (nvml.h of CUDA 13.0; the GPM structs are versioned, version 1).
using NvmlReturn = int;  // nvmlReturn_t: 0 = NVML_SUCCESS
constexpr NvmlReturn kNvmlSuccess = 0;

struct GpmSupport {  // nvmlGpmSupport_t
  unsigned version;
  unsigned isSupportedDevice;
};
constexpr unsigned kGpmSupportVersion = 1;

struct GpmMetricInfo {  // nvmlGpmMetric_t::metricInfo
  char* shortName;
  char* longName;
  char* unit;
};
struct GpmMetricValue {  // nvmlGpmMetric_t
  unsigned metricId;
  NvmlReturn nvmlReturn;
  double value;
  GpmMetricInfo metricInfo;
};
// NVML_GPM_METRIC_MAX: the array's size in version 1 of the struct. NVML fills only the
// numMetrics entries we ask for.
constexpr unsigned kGpmMetricMax = 210;
struct GpmMetricsGet {  // nvmlGpmMetricsGet_t
  unsigned version;
  unsigned numMetrics;
  void* sample1;
  void* sample2;
  GpmMetricValue metrics[kGpmMetricMax];
};
constexpr unsigned kGpmMetricsGetVersion = 1;

template <class Fn>
bool resolve(void* library, const char* name, Fn& out) {
  out = reinterpret_cast<Fn>(dlsym(library, name));
  return out != nullptr;
}

}  // namespace

struct NvmlGpm::Api {
  NvmlReturn (*Init)() = nullptr;
  NvmlReturn (*Shutdown)() = nullptr;
  const char* (*ErrorString)(NvmlReturn) = nullptr;
  NvmlReturn (*GetHandleByPciBusId)(const char*, void**) = nullptr;
  NvmlReturn (*GpmQueryDeviceSupport)(void*, GpmSupport*) = nullptr;
  NvmlReturn (*GpmSampleAlloc)(void**) = nullptr;
  NvmlReturn (*GpmSampleFree)(void*) = nullptr;
  NvmlReturn (*GpmSampleGet)(void*, void*) = nullptr;
  NvmlReturn (*GpmMetricsGet)(GpmMetricsGet*) = nullptr;
};

std::unique_ptr<NvmlGpm> NvmlGpm::open(const std::string& library_name, std::string& error) {
  // Never closed: NVML may keep threads or handlers of its own, and the program may use it too.
  void* library = dlopen(library_name.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    const char* why = dlerror();
    error = "cannot load NVML (" + library_name + ", part of the NVIDIA driver): " + (why ? why : "not found");
    return nullptr;
  }
  auto api = std::make_unique<Api>();
  const bool found = resolve(library, "nvmlInit_v2", api->Init) && resolve(library, "nvmlShutdown", api->Shutdown) &&
                     resolve(library, "nvmlErrorString", api->ErrorString) &&
                     resolve(library, "nvmlDeviceGetHandleByPciBusId_v2", api->GetHandleByPciBusId) &&
                     resolve(library, "nvmlGpmQueryDeviceSupport", api->GpmQueryDeviceSupport) &&
                     resolve(library, "nvmlGpmSampleAlloc", api->GpmSampleAlloc) &&
                     resolve(library, "nvmlGpmSampleFree", api->GpmSampleFree) &&
                     resolve(library, "nvmlGpmSampleGet", api->GpmSampleGet) &&
                     resolve(library, "nvmlGpmMetricsGet", api->GpmMetricsGet);
  if (!found) {
    error = "this NVML has no GPM API (a driver older than R520)";
    return nullptr;
  }
  if (NvmlReturn rc = api->Init(); rc != kNvmlSuccess) {
    const char* text = api->ErrorString(rc);
    error = std::string("nvmlInit failed: ") + (text ? text : "error " + std::to_string(rc));
    return nullptr;
  }
  return std::unique_ptr<NvmlGpm>(new NvmlGpm(std::move(api)));
}

NvmlGpm::NvmlGpm(std::unique_ptr<Api> api) : api_(std::move(api)) {}

NvmlGpm::~NvmlGpm() {
  if (NvmlReturn rc = api_->Shutdown(); rc != kNvmlSuccess)
    note_failed_call("nvmlShutdown", error_text(rc), "NVML may hold on to what it opened until the program exits");
}

std::string NvmlGpm::error_text(int rc) const {
  const char* text = api_->ErrorString(rc);
  return text ? text : "error " + std::to_string(rc);
}

std::string NvmlGpm::failure(const char* call, int rc) const {
  return std::string(call) + " failed: " + error_text(rc);
}

std::unique_ptr<NvmlGpm::Device> NvmlGpm::device(const std::string& pci_bus_id, std::string& error) const {
  void* handle = nullptr;
  if (NvmlReturn rc = api_->GetHandleByPciBusId(pci_bus_id.c_str(), &handle); rc != kNvmlSuccess) {
    error = failure("nvmlDeviceGetHandleByPciBusId", rc) + " (PCI " + pci_bus_id + ")";
    return nullptr;
  }
  GpmSupport support{kGpmSupportVersion, 0};
  if (NvmlReturn rc = api_->GpmQueryDeviceSupport(handle, &support); rc != kNvmlSuccess) {
    error = failure("nvmlGpmQueryDeviceSupport", rc);
    return nullptr;
  }
  if (!support.isSupportedDevice) {
    error = "this GPU has no GPM counters (NVML GPM needs a Hopper or newer GPU, not a MIG instance)";
    return nullptr;
  }
  std::unique_ptr<Device> device(new Device(*this, handle));
  for (void*& sample : device->samples_) {
    if (NvmlReturn rc = api_->GpmSampleAlloc(&sample); rc != kNvmlSuccess) {
      error = failure("nvmlGpmSampleAlloc", rc);
      return nullptr;
    }
  }
  return device;
}

NvmlGpm::Device::~Device() {
  for (void* sample : samples_) {
    if (sample == nullptr) continue;
    if (NvmlReturn rc = nvml_.api_->GpmSampleFree(sample); rc != kNvmlSuccess)
      note_failed_call("nvmlGpmSampleFree", nvml_.error_text(rc),
                       "an NVML sample stays allocated until the program exits");
  }
}

std::string NvmlGpm::Device::sample() {
  if (NvmlReturn rc = nvml_.api_->GpmSampleGet(handle_, samples_[1 - start_]); rc != kNvmlSuccess)
    return nvml_.failure("nvmlGpmSampleGet", rc);
  return "";
}

bool NvmlGpm::Device::measure(const std::vector<GpmMetric>& metrics, std::vector<double>& values, std::string& error) {
  auto request = std::make_unique<GpmMetricsGet>();  // ~7 KB: not on the stack
  request->version = kGpmMetricsGetVersion;
  request->numMetrics = static_cast<unsigned>(std::min<size_t>(metrics.size(), kGpmMetricMax));
  request->sample1 = samples_[start_];
  request->sample2 = samples_[1 - start_];
  for (unsigned i = 0; i < request->numMetrics; ++i) request->metrics[i].metricId = static_cast<unsigned>(metrics[i]);
  if (NvmlReturn rc = nvml_.api_->GpmMetricsGet(request.get()); rc != kNvmlSuccess) {
    error = nvml_.failure("nvmlGpmMetricsGet", rc);
    return false;
  }
  values.assign(request->numMetrics, NAN);
  bool advanced = true;
  for (unsigned i = 0; i < request->numMetrics; ++i) {
    const GpmMetricValue& m = request->metrics[i];
    if (m.nvmlReturn == kNvmlSuccess) values[i] = m.value;
    // Counters that did not advance give 0 / 0: NaN in every ratio of elapsed time.
    if (m.nvmlReturn == kNvmlSuccess && std::isnan(m.value)) advanced = false;
  }
  return advanced;
}

void NvmlGpm::Device::advance() { start_ = 1 - start_; }

}  // namespace gpuscope::capture
