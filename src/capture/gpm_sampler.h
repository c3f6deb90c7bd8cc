// GPU-wide counters over time from NVML GPM (`gpuscope profile --gpu-metrics`): GPU active,
// SM active, occupancy, tensor and FP pipes, DRAM bandwidth, PCIe traffic (the list is
// gpm_sample_metrics() in gpuscope/metric_sets.h).
//
// Our "gpuscope-gpm" thread samples each device the program created a context on every
// kPollPeriod and emits one sample per window of at least 1/rate seconds in which the GPU's
// counters advanced (GPM advances them every ~100 ms on an H100, so ~10 samples per second is
// the most it resolves). A window's times are our thread's CLOCK_REALTIME at its two samples.
// Nothing runs on the program's threads but a note that a device is in use; NVML reads
// counters the GPU keeps anyway, so the program's kernels and their traces are unaffected
// (unlike CUPTI's PM sampling, see gpu_sampler.h).
//
// Fail open: no NVML, a GPU without GPM, or an NVML error ends sampling on that device with
// one "gpuscope: ..." line and the reason in the MetricCollection status; the trace goes on.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "capture/device_sampler.h"
#include "capture/metrics_outbox.h"

namespace gpuscope::capture {

struct GpmSamplerOptions {
  uint32_t rate_hz = 10;  // at most this many samples per second
  // Where NVML and a device's PCI bus id come from; tests substitute fakes.
  std::string nvml_library = "libnvidia-ml.so.1";
  std::string (*pci_bus_id)(int cuda_device) = nullptr;  // null: the CUDA driver's (driver_probe.h)
};

class GpmSampler : public DeviceSampler {
 public:
  GpmSampler(const GpmSamplerOptions& options, MetricsOutbox& outbox);
  ~GpmSampler() override;
  GpmSampler(const GpmSampler&) = delete;
  GpmSampler& operator=(const GpmSampler&) = delete;

  // Starts the sampler thread (NVML is loaded there); false when no thread can be started.
  bool start();
  void device_in_use(uint32_t device) override;
  // Sampling goes on after a context is destroyed: GPM needs no context, and an idle GPU at
  // the end of the run is part of its utilization.
  void device_released(uint32_t) override {}
  void stop() override;
  void abandon(const std::string& why) override;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace gpuscope::capture
