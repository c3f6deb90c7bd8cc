#include "capture/gpm_sampler.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "capture/driver_probe.h"
#include "capture/log.h"
#include "capture/nvml_gpm.h"
#include "capture/process_info.h"
#include "capture/threads.h"
#include "gpuscope/metric_sets.h"

namespace gpuscope::capture {
namespace {

// How often our thread looks at the counters: 5x finer than GPM's ~100 ms update period, so
// a window ends within ~20 ms of the update that completes it. Each look costs ~50 us.
constexpr auto kPollPeriod = std::chrono::milliseconds(20);
// Counters that do not advance at all (GPM stopped, or an NVML we misread) end sampling.
constexpr int64_t kStuckAfterNs = 5'000'000'000;

// NVML's counter for each of gpm_sample_metrics(), in that order, and the factor to its unit.
struct GpmCounter {
  GpmMetric id;
  double scale;
};
constexpr double kMiB = 1024.0 * 1024.0;
constexpr GpmCounter kCounters[] = {
    {GpmMetric::GraphicsActive, 1},     {GpmMetric::SmActive, 1},      {GpmMetric::SmOccupancy, 1},
    {GpmMetric::TensorActive, 1},       {GpmMetric::DramBandwidth, 1}, {GpmMetric::Fp64Active, 1},
    {GpmMetric::Fp32Active, 1},         {GpmMetric::Fp16Active, 1},    {GpmMetric::PcieToGpuMiBs, kMiB},
    {GpmMetric::PcieFromGpuMiBs, kMiB},
};

// One sampled device: its NVML handle and where its current window started.
struct Sampled {
  std::unique_ptr<NvmlGpm::Device> gpm;
  // The window's start on the wall clock (what the samples carry) and on a steady clock
  // (what its length is measured with: the wall clock may jump).
  int64_t window_start_ns = 0;
  std::chrono::steady_clock::time_point window_start;
  bool failed = false;
};

}  // namespace

struct GpmSampler::Impl {
  Impl(const GpmSamplerOptions& options, MetricsOutbox& outbox)
      : min_window_ns(1'000'000'000ll / std::max<uint32_t>(options.rate_hz, 1)),
        nvml_library(options.nvml_library),
        pci_bus_id(options.pci_bus_id ? options.pci_bus_id : device_pci_bus_id),
        outbox(outbox) {
    for (const MetricInfo& m : gpm_sample_metrics()) names.push_back(m.name);
    for (const GpmCounter& c : kCounters) ids.push_back(c.id);
  }

  const int64_t min_window_ns;  // 1/rate: shorter windows are extended
  const std::string nvml_library;
  std::string (*const pci_bus_id)(int cuda_device);
  MetricsOutbox& outbox;
  std::vector<std::string> names;
  std::vector<GpmMetric> ids;

  std::mutex mutex;  // guards requested, stopping
  std::condition_variable wake;
  std::set<uint32_t> requested;  // CUDA devices the program uses (from callbacks)
  bool stopping = false;
  std::thread thread;

  // The sampler thread's own state.
  std::unique_ptr<NvmlGpm> nvml;
  std::map<uint32_t, Sampled> devices;
  std::string status = "ok";
  uint64_t windows = 0;
  int64_t window_ns_total = 0;

  void publish() {
    spool::MetricCollectionRecord record{};
    record.kind = static_cast<uint8_t>(spool::MetricCollectionKind::Sampling);
    // The windows GPM gave (~100 ms on an H100), not the rate asked for.
    record.interval_ns = windows ? static_cast<uint64_t>(window_ns_total) / windows : 0;
    record.metrics = static_cast<uint32_t>(names.size());
    record.passes = 1;
    outbox.set_collection(record, status, "");
  }

  void report_failure(const std::string& why) {
    status = why;
    log_line("GPU metrics: %s; the trace is still captured", why.c_str());
    publish();
  }

  // NVML for the first device, then the device's GPM handle and its first sample.
  void begin(uint32_t device) {
    Sampled& d = devices[device];
    std::string error;
    if (!nvml && !(nvml = NvmlGpm::open(nvml_library, error))) {
      d.failed = true;
      return report_failure(error);
    }
    const std::string bus_id = pci_bus_id(static_cast<int>(device));
    if (bus_id.empty()) {
      d.failed = true;
      return report_failure("device " + std::to_string(device) + ": the CUDA driver gave no PCI bus id");
    }
    d.gpm = nvml->device(bus_id, error);
    if (d.gpm && (error = d.gpm->sample()).empty()) {
      d.gpm->advance();  // the first sample starts the first window
      d.window_start_ns = realtime_ns();
      d.window_start = std::chrono::steady_clock::now();
      return;
    }
    d.failed = true;
    report_failure("device " + std::to_string(device) + ": " + error);
  }

  // Ends the device's window if the counters advanced in it and it is long enough (at the
  // end of the run, any length).
  void poll(uint32_t device, Sampled& d, bool final) {
    std::vector<double> values;
    std::string error = d.gpm->sample();
    const int64_t now = realtime_ns();
    const auto steady_now = std::chrono::steady_clock::now();
    const int64_t length_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(steady_now - d.window_start).count();
    const bool advanced = error.empty() && d.gpm->measure(ids, values, error);
    if (error.empty() && !advanced && length_ns > kStuckAfterNs) error = "GPM counters did not advance for 5 s";
    if (!error.empty()) {
      d.failed = true;
      return report_failure("device " + std::to_string(device) + ": " + error + "; later samples are missing");
    }
    if (!advanced || (!final && length_ns < min_window_ns)) return;  // the window goes on
    for (size_t i = 0; i < values.size(); ++i) values[i] *= kCounters[i].scale;
    outbox.push_sample(device, d.window_start_ns, now, values);
    ++windows;
    window_ns_total += length_ns;
    d.gpm->advance();
    d.window_start_ns = now;
    d.window_start = steady_now;
  }

  void run() {
    for (;;) {
      std::set<uint32_t> wanted;
      bool last = false;
      {
        std::unique_lock<std::mutex> lock(mutex);
        wake.wait_for(lock, kPollPeriod, [&] { return stopping || requested.size() > devices.size(); });
        wanted = requested;
        last = stopping;
      }
      for (uint32_t device : wanted)
        if (!devices.count(device)) begin(device);
      // At stop, the window in progress is emitted if the counters advanced in it.
      for (auto& [device, d] : devices)
        if (!d.failed) poll(device, d, last);
      if (last) break;
    }
    publish();
    devices.clear();
    nvml.reset();
  }
};

GpmSampler::GpmSampler(const GpmSamplerOptions& options, MetricsOutbox& outbox)
    : impl_(std::make_unique<Impl>(options, outbox)) {}

GpmSampler::~GpmSampler() { stop(); }

bool GpmSampler::start() {
  Impl& impl = *impl_;
  impl.outbox.set_sample_metric_names(impl.names);
  impl.publish();
  try {
    impl.thread = start_quiet_thread("gpuscope-gpm", [&impl] {
      try {
        impl.run();
      } catch (...) {
        log_line("GPU metrics: internal error in the sampler; sampling stopped, the program continues");
      }
    });
  } catch (...) {
    impl.status = "cannot start the sampler thread";
    impl.publish();
    return false;
  }
  return true;
}

void GpmSampler::device_in_use(uint32_t device) {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  if (impl_->requested.insert(device).second) impl_->wake.notify_all();
}

void GpmSampler::stop() {
  {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    impl_->stopping = true;
  }
  impl_->wake.notify_all();
  if (impl_->thread.joinable()) impl_->thread.join();
}

void GpmSampler::abandon(const std::string& why) {
  stop();  // the thread's state is ours from here on
  impl_->status = why;
  impl_->publish();
}

}  // namespace gpuscope::capture
