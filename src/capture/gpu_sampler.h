// GPU-wide counters over time with CUPTI PM sampling (`gpuscope profile --gpu-metrics`).
//
// The hardware samples the counters of gpu_sample_metrics() (SM active, tensor pipe, DRAM
// and PCIe bandwidth, ...) every 1/rate seconds into a buffer in GPU memory; our
// "gpuscope-pm" thread decodes that buffer every 100 ms (more often above 10 kHz), evaluates each completed
// sample and queues the values in the MetricsOutbox. Nothing runs on the program's threads
// except a note that a device is in use (from the context-created callback), so sampling
// costs the program nothing but the hardware's own counting.
//
// A device is sampled from its first context until a context on it is destroyed (at exit,
// cudart's teardown) or the program exits; samples after the last periodic decode are not read.
//
// NOT SAFE YET: with CUDA 13.0 on an H100, runs with PM sampling sometimes ended with a
// corrupted heap (gpu_sampler.cpp, end()), so `gpuscope profile --gpu-metrics` samples with
// NVML GPM instead (gpm_sampler.h). The capture library runs this sampler only with
// gpu_metrics_source=pm in its config, for investigating that. Fail open: a device PM sampling
// cannot start on is reported (MetricCollection status, one "gpuscope: ..." line) and the
// trace goes on.
#pragma once

#include <cstdint>
#include <memory>

#include "capture/cupti_loader.h"
#include "capture/device_sampler.h"
#include "capture/metrics_outbox.h"

namespace gpuscope::capture {

class GpuSampler : public DeviceSampler {
 public:
  GpuSampler(const CuptiApi& api, uint32_t rate_hz, MetricsOutbox& outbox);
  ~GpuSampler() override;
  GpuSampler(const GpuSampler&) = delete;
  GpuSampler& operator=(const GpuSampler&) = delete;

  // Starts the decode thread; false (status in the outbox) when CUPTI lacks PM sampling.
  bool start();
  // Context-created callback: sample `device` from now on (idempotent, cheap).
  void device_in_use(uint32_t device) override;
  // Context-destroy-starting callback: leave `device` alone from now on (waits for the
  // sampler's current decode to finish).
  void device_released(uint32_t device) override;
  // At exit: end every device and join the thread (no CUPTI teardown, see gpu_sampler.cpp).
  void stop() override;
  void abandon(const std::string& why) override;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace gpuscope::capture
