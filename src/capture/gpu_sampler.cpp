#include "capture/gpu_sampler.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "capture/cupti_compat.h"
#include "capture/log.h"
#include "capture/metrics_host.h"
#include "capture/threads.h"
#include "gpuscope/metric_sets.h"

namespace gpuscope::capture {
namespace {

// What CUPTI's PM sampling decode does (CUDA 13; the image must be re-initialized after every
// decode, and a decode that fills the image loses the samples that did not fit, so the image
// must hold everything one decode period produces):
//   - decode every kMaxDecodePeriod, or more often at high rates, so one period's samples
//     fill at most half of the kSamplesPerImage slots;
//   - the hardware buffer holds several periods of samples (a few KB each), so a late
//     decode does not overflow it.
constexpr auto kMaxDecodePeriod = std::chrono::milliseconds(100);
constexpr uint32_t kSamplesPerImage = 2048;
constexpr size_t kHardwareBufferBytes = size_t{64} << 20;

std::chrono::microseconds decode_period(uint32_t rate_hz) {
  const auto half_image = std::chrono::microseconds(uint64_t{kSamplesPerImage / 2} * 1'000'000 / rate_hz);
  return std::min<std::chrono::microseconds>(kMaxDecodePeriod, half_image);
}

// One sampled device.
struct DeviceSampling {
  uint32_t device = 0;
  CUpti_PmSampling_Object* object = nullptr;
  std::unique_ptr<MetricsHost> host;
  // CUPTI keeps using the configuration image after cuptiPmSamplingSetConfig (a local one
  // freed after set-up corrupted the heap: decode errors, then an abort at exit on an H100).
  // Its buffer must live, at a fixed address, until sampling is disabled; moving the vector
  // keeps the address.
  MetricConfig config;
  std::vector<uint8_t> counter_data;
  // Nothing more is decoded: the device ended (end()) or failed. A failed decode is not
  // retried: on an H200 (CUDA 13.0) decoding again after CUPTI_ERROR_UNKNOWN crashed the
  // program (SIGSEGV inside libcupti).
  bool done = false;
};

}  // namespace

struct GpuSampler::Impl {
  Impl(const CuptiApi& api, uint32_t rate_hz, MetricsOutbox& outbox)
      : api(api), p(api.profiler), rate_hz(rate_hz), outbox(outbox) {
    for (const MetricInfo& m : gpu_sample_metrics()) names.push_back(m.name);
    for (const std::string& n : names) name_ptrs.push_back(n.c_str());
  }

  const CuptiApi& api;
  const ProfilerApi& p;
  const uint32_t rate_hz;
  MetricsOutbox& outbox;
  std::vector<std::string> names;
  std::vector<const char*> name_ptrs;

  std::mutex mutex;  // guards requested, stopping, status
  std::condition_variable wake;
  std::set<uint32_t> requested;  // devices the program uses (from callbacks)
  bool stopping = false;
  std::string status = "ok";
  std::string chip;
  std::thread thread;
  // Held while CUPTI's PM sampling is called: by the sampler thread for its work, and by a
  // program thread destroying a context (device_released) to stop that device first.
  std::mutex work;
  std::vector<DeviceSampling> devices;
  bool initialized = false;

  uint64_t interval_ns() const { return 1'000'000'000ull / rate_hz; }

  void publish(const std::string& text) {
    spool::MetricCollectionRecord record{};
    record.kind = static_cast<uint8_t>(spool::MetricCollectionKind::Sampling);
    record.interval_ns = interval_ns();
    record.metrics = static_cast<uint32_t>(names.size());
    record.passes = 1;
    outbox.set_collection(record, text, chip);
  }

  std::string cupti_failure(const char* call, CUptiResult rc) const { return cupti_call_failure(api, call, rc); }

  void report_failure(uint32_t device, const std::string& why) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      status = "device " + std::to_string(device) + ": " + why;
    }
    log_line("GPU metrics: %s; the trace is still captured", why.c_str());
    publish(status);
  }

  std::string init_image(DeviceSampling& d) {
    auto init = GPUSCOPE_CUPTI_PARAMS(CUpti_PmSampling_CounterDataImage_Initialize_Params);
    init.pPmSamplingObject = d.object;
    init.counterDataSize = d.counter_data.size();
    init.pCounterData = d.counter_data.data();
    if (CUptiResult rc = p.PmCounterDataImageInitialize(&init); rc != CUPTI_SUCCESS)
      return cupti_failure("cuptiPmSamplingCounterDataImageInitialize", rc);
    return "";
  }

  // Enable, configure and start sampling on one device (on the sampler thread).
  std::string begin(DeviceSampling& d) {
    if (!initialized) {
      auto init = GPUSCOPE_CUPTI_PARAMS(CUpti_Profiler_Initialize_Params);
      if (CUptiResult rc = p.Initialize(&init); rc != CUPTI_SUCCESS)
        return cupti_failure("cuptiProfilerInitialize", rc);
      initialized = true;
    }
    auto chip_params = GPUSCOPE_CUPTI_PARAMS(CUpti_Device_GetChipName_Params);
    chip_params.deviceIndex = d.device;
    if (CUptiResult rc = p.DeviceGetChipName(&chip_params); rc != CUPTI_SUCCESS || !chip_params.pChipName)
      return cupti_failure("cuptiDeviceGetChipName", rc);
    chip = chip_params.pChipName;
    // The counter availability image tells the host API what this device can sample now.
    auto avail = GPUSCOPE_CUPTI_PARAMS(CUpti_PmSampling_GetCounterAvailability_Params);
    avail.deviceIndex = d.device;
    std::vector<uint8_t> availability;
    if (p.PmGetCounterAvailability(&avail) == CUPTI_SUCCESS && avail.counterAvailabilityImageSize > 0) {
      availability.resize(avail.counterAvailabilityImageSize);
      avail.pCounterAvailabilityImage = availability.data();
      if (p.PmGetCounterAvailability(&avail) != CUPTI_SUCCESS) availability.clear();
    }
    std::string error;
    d.host = MetricsHost::create(api, chip, ProfilerKind::PmSampling, error, availability);
    if (!d.host) return error;
    if (error = d.host->build_config(names, d.config); !error.empty()) return error;

    auto enable = GPUSCOPE_CUPTI_PARAMS(CUpti_PmSampling_Enable_Params);
    enable.deviceIndex = d.device;
    if (CUptiResult rc = p.PmEnable(&enable); rc != CUPTI_SUCCESS) return cupti_failure("cuptiPmSamplingEnable", rc);
    d.object = enable.pPmSamplingObject;
    auto set = GPUSCOPE_CUPTI_PARAMS(CUpti_PmSampling_SetConfig_Params);
    set.pPmSamplingObject = d.object;
    set.configSize = d.config.image.size();
    set.pConfig = d.config.image.data();
    set.hardwareBufferSize = kHardwareBufferBytes;
    set.samplingInterval = interval_ns();
    set.triggerMode = CUPTI_PM_SAMPLING_TRIGGER_MODE_GPU_TIME_INTERVAL;
    set.hwBufferAppendMode = CUPTI_PM_SAMPLING_HARDWARE_BUFFER_APPEND_MODE_KEEP_OLDEST;
    if (CUptiResult rc = p.PmSetConfig(&set); rc != CUPTI_SUCCESS) return cupti_failure("cuptiPmSamplingSetConfig", rc);
    auto size = GPUSCOPE_CUPTI_PARAMS(CUpti_PmSampling_GetCounterDataSize_Params);
    size.pPmSamplingObject = d.object;
    size.pMetricNames = name_ptrs.data();
    size.numMetrics = name_ptrs.size();
    size.maxSamples = kSamplesPerImage;
    if (CUptiResult rc = p.PmGetCounterDataSize(&size); rc != CUPTI_SUCCESS)
      return cupti_failure("cuptiPmSamplingGetCounterDataSize", rc);
    d.counter_data.assign(size.counterDataSize, 0);
    if (error = init_image(d); !error.empty()) return error;
    auto start = GPUSCOPE_CUPTI_PARAMS(CUpti_PmSampling_Start_Params);
    start.pPmSamplingObject = d.object;
    if (CUptiResult rc = p.PmStart(&start); rc != CUPTI_SUCCESS) return cupti_failure("cuptiPmSamplingStart", rc);
    publish("ok");
    return "";
  }

  // Decodes the hardware buffer until it is empty, queueing every completed sample. The image
  // is re-initialized after each decode: decoding into a used image makes no progress.
  std::string drain(DeviceSampling& d) {
    for (int round = 0; round < 64; ++round) {
      auto decode = GPUSCOPE_CUPTI_PARAMS(CUpti_PmSampling_DecodeData_Params);
      decode.pPmSamplingObject = d.object;
      decode.pCounterDataImage = d.counter_data.data();
      decode.counterDataImageSize = d.counter_data.size();
      if (CUptiResult rc = p.PmDecodeData(&decode); rc != CUPTI_SUCCESS) {
        d.done = true;
        if (decode.overflow || rc == CUPTI_ERROR_OUT_OF_MEMORY)
          return "the PM sampling hardware buffer overflowed; later samples are lost (lower the --gpu-metrics rate)";
        return cupti_failure("cuptiPmSamplingDecodeData", rc) + "; samples after that point are missing";
      }
      std::string error = queue_samples(d);
      if (error.empty()) error = init_image(d);
      if (!error.empty()) return error;
      if (decode.decodeStopReason != CUPTI_PM_SAMPLING_DECODE_STOP_REASON_COUNTER_DATA_FULL) return "";
    }
    return "";
  }

  std::string queue_samples(DeviceSampling& d) {
    auto info = GPUSCOPE_CUPTI_PARAMS(CUpti_PmSampling_GetCounterDataInfo_Params);
    info.pCounterDataImage = d.counter_data.data();
    info.counterDataImageSize = d.counter_data.size();
    if (CUptiResult rc = p.PmGetCounterDataInfo(&info); rc != CUPTI_SUCCESS)
      return cupti_failure("cuptiPmSamplingGetCounterDataInfo", rc);
    std::vector<double> values;
    for (size_t i = 0; i < info.numCompletedSamples; ++i) {
      auto sample = GPUSCOPE_CUPTI_PARAMS(CUpti_PmSampling_CounterData_GetSampleInfo_Params);
      sample.pPmSamplingObject = d.object;
      sample.pCounterDataImage = d.counter_data.data();
      sample.counterDataImageSize = d.counter_data.size();
      sample.sampleIndex = i;
      if (CUptiResult rc = p.PmCounterDataGetSampleInfo(&sample); rc != CUPTI_SUCCESS)
        return cupti_failure("cuptiPmSamplingCounterDataGetSampleInfo", rc);
      // Samples without time (decoded after stop, or lost to a full image) cover nothing.
      if (sample.startTimestamp == 0 || sample.endTimestamp <= sample.startTimestamp) continue;
      if (std::string error = d.host->evaluate(d.counter_data, i, names, values); !error.empty()) return error;
      outbox.push_sample(d.device, static_cast<int64_t>(sample.startTimestamp),
                         static_cast<int64_t>(sample.endTimestamp), values);
    }
    return "";
  }

  // Ends a device: nothing more is decoded, and no CUPTI call is made. On an H100 with CUDA
  // 13.0 every teardown we tried corrupted the program's heap (abort or segfault at exit):
  // cuptiPmSamplingStop with or without Disable after it, and a last decode at context
  // destruction or at exit. Leaving sampling on until the process ends corrupted it less often
  // but still did (2 of 8 runs with a 25 ms decode period), which is why `profile
  // --gpu-metrics` samples with NVML GPM instead (docs/metrics.md); this code stays for that
  // investigation (gpu_metrics_source=pm).
  void end(DeviceSampling& d) { d.done = true; }

  // The program is destroying a context on `device` (usually cudart's teardown at exit): from
  // now on the sampler leaves that device alone.
  void release(uint32_t device) {
    std::lock_guard<std::mutex> working(work);
    for (DeviceSampling& d : devices)
      if (d.device == device) end(d);
  }

  void run() {
    std::set<uint32_t> started;
    for (;;) {
      std::set<uint32_t> wanted;
      bool last = false;
      {
        std::unique_lock<std::mutex> lock(mutex);
        // Woken early for a new device, so its first samples are not left waiting.
        wake.wait_for(lock, decode_period(rate_hz), [&] { return stopping || requested.size() > started.size(); });
        wanted = requested;
        last = stopping;
      }
      std::lock_guard<std::mutex> working(work);
      for (uint32_t device : wanted) {
        if (!started.insert(device).second) continue;
        DeviceSampling d;
        d.device = device;
        if (std::string error = begin(d); !error.empty()) {
          report_failure(device, error);
          d.done = true;
        }
        devices.push_back(std::move(d));  // kept even when it failed: CUPTI may hold its images
      }
      // Ended devices stay in the list: CUPTI still holds their images (see end()).
      for (DeviceSampling& d : devices) {
        if (d.done) continue;
        if (last) {
          end(d);
          continue;
        }
        if (std::string error = drain(d); !error.empty()) report_failure(d.device, error);
      }
      if (last) return;
    }
  }
};

GpuSampler::GpuSampler(const CuptiApi& api, uint32_t rate_hz, MetricsOutbox& outbox)
    : impl_(std::make_unique<Impl>(api, rate_hz, outbox)) {}

GpuSampler::~GpuSampler() { stop(); }

bool GpuSampler::start() {
  Impl& impl = *impl_;
  impl.outbox.set_sample_metric_names(impl.names);
  if (!impl.p.has_pm_sampling() || !impl.p.has_host()) {
    impl.status = "this libcupti lacks the PM sampling API (CUDA 12.6 or newer is needed)";
    log_line("GPU metrics: %s; the trace is still captured", impl.status.c_str());
    impl.publish(impl.status);
    return false;
  }
  try {
    impl.thread = start_quiet_thread("gpuscope-pm", [&impl] {
      try {
        impl.run();
      } catch (...) {
        log_line("GPU metrics: internal error in the sampler; sampling stopped, the program continues");
      }
    });
  } catch (...) {
    impl.publish("cannot start the sampler thread");
    return false;
  }
  return true;
}

void GpuSampler::device_in_use(uint32_t device) {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  if (impl_->requested.insert(device).second) impl_->wake.notify_all();
}

void GpuSampler::device_released(uint32_t device) { impl_->release(device); }

void GpuSampler::stop() {
  {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    impl_->stopping = true;
  }
  impl_->wake.notify_all();
  if (impl_->thread.joinable()) impl_->thread.join();
}

void GpuSampler::abandon(const std::string& why) {
  stop();
  {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    impl_->status = why;
  }
  impl_->publish(why);
}

}  // namespace gpuscope::capture
