// NVML's GPU Performance Monitoring (GPM): GPU-wide activity counters that the GPU itself
// accumulates, read with nvmlGpmSampleGet and turned into percentages and rates between two
// samples by nvmlGpmMetricsGet. Hopper and newer GPUs.
//
// Measured on an H100 (driver 580): the counters advance every ~100 ms; two samples taken
// within one such period give no values (changed() is false), so GPM resolves ~10 samples a
// second, whatever the rate asked for. A sample costs ~50 us of our thread's time.
//
// libnvidia-ml.so.1 comes with the driver, but a build machine's toolkit may lack nvml.h, so
// the few types and functions used are declared in nvml_gpm.cpp from NVML's documented ABI.
// Not thread-safe: one user thread (the GPM sampler's).
#pragma once

#include <memory>
#include <string>
#include <vector>

namespace gpuscope::capture {

// NVML's metric ids (nvmlGpmMetricId_t) for the counters gpuscope samples.
enum class GpmMetric : unsigned {
  GraphicsActive = 1,    // % of time any graphics/compute work was active on the GPU
  SmActive = 2,          // % of SMs busy
  SmOccupancy = 3,       // % of the maximum resident warps that were resident
  TensorActive = 5,      // % of time the SMs did any tensor operations
  DramBandwidth = 10,    // % of the DRAM's peak bandwidth used
  Fp64Active = 11,       // % of time the SMs did non-tensor FP64 math
  Fp32Active = 12,       // ... FP32
  Fp16Active = 13,       // ... FP16
  PcieFromGpuMiBs = 20,  // PCIe traffic from this GPU, MiB/s
  PcieToGpuMiBs = 21,    // PCIe traffic to this GPU, MiB/s
};

class NvmlGpm {
 public:
  // Loads `library` (libnvidia-ml.so.1) and initializes NVML; null with `error` set when it cannot.
  static std::unique_ptr<NvmlGpm> open(const std::string& library, std::string& error);
  ~NvmlGpm();  // nvmlShutdown (NVML counts initializations: the program's own use goes on)
  NvmlGpm(const NvmlGpm&) = delete;
  NvmlGpm& operator=(const NvmlGpm&) = delete;

  // One GPU: two samples alternate, the older one being the start of the next window.
  class Device {
   public:
    ~Device();
    Device(const Device&) = delete;
    Device& operator=(const Device&) = delete;

    // Takes a new sample; "" or an error.
    std::string sample();
    // The values of `metrics` between the window's start and the newest sample, in the
    // units of GpmMetric. False when the counters have not advanced since the start (the
    // same ~100 ms period): then the start stays and a later sample ends the window.
    bool measure(const std::vector<GpmMetric>& metrics, std::vector<double>& values, std::string& error);
    // The newest sample becomes the start of the next window.
    void advance();

   private:
    friend class NvmlGpm;
    Device(const NvmlGpm& nvml, void* handle) : nvml_(nvml), handle_(handle) {}
    const NvmlGpm& nvml_;
    void* handle_;                           // nvmlDevice_t
    void* samples_[2] = {nullptr, nullptr};  // nvmlGpmSample_t: [start, newest] by index
    int start_ = 0;
  };

  // The GPU with this PCI bus id ("0000:19:00.0"), ready to sample, or null with `error`
  // (not found, or GPM unsupported on it: older than Hopper, or a MIG instance).
  std::unique_ptr<Device> device(const std::string& pci_bus_id, std::string& error) const;

  struct Api;

 private:
  explicit NvmlGpm(std::unique_ptr<Api> api);
  std::string failure(const char* call, int rc) const;  // "CALL failed: <NVML's text>"
  std::string error_text(int rc) const;                 // nvmlErrorString, or "error N"
  std::unique_ptr<Api> api_;
};

}  // namespace gpuscope::capture
