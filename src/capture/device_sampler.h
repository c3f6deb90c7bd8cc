// A sampler of GPU-wide counters over the whole run (`gpuscope profile --gpu-metrics`), as the
// callback hub and the capture's lifetime see it. Two implementations:
//   GpmSampler (gpm_sampler.h) - NVML GPM, what `gpuscope profile` uses;
//   GpuSampler (gpu_sampler.h) - CUPTI PM sampling, only through gpu_metrics_source=pm in
//                                the capture config, for investigating its crash (docs/metrics.md).
#pragma once

#include <cstdint>
#include <string>

namespace gpuscope::capture {

class DeviceSampler {
 public:
  virtual ~DeviceSampler() = default;
  // Context created on CUDA device `device` (a program thread, inside CUDA: must be cheap).
  virtual void device_in_use(uint32_t device) = 0;
  // A context on `device` is being destroyed (a program thread; usually cudart at exit).
  virtual void device_released(uint32_t device) = 0;
  // At exit: the last samples go to the outbox, and the sampler's thread ends.
  virtual void stop() = 0;
  // The callbacks that name the program's devices cannot be had: stop now, with `why` as the
  // collection's status (instead of an "ok" without samples).
  virtual void abandon(const std::string& why) = 0;
};

}  // namespace gpuscope::capture
