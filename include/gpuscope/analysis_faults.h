// GPU faults: a kernel that reads an illegal address (or hits an illegal instruction, a
// hardware stack error, an uncorrectable ECC error, a watchdog timeout) breaks its CUDA context
// for good: that call and every later one returns the same "sticky" error, and the records
// CUPTI had not yet handed over lose their times (docs/capture.md). What the report's Run
// section says about it; the timing analyses never see the records without times (the
// importers' validation removes and counts them). Pure; times in ns.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gpuscope/model.h"

namespace gpuscope::analysis {

struct GpuFault {
  uint32_t pid = 0, tid = 0;
  std::string call;   // the first API call that returned the error, e.g. "cudaDeviceSynchronize"
  std::string error;  // e.g. "cudaErrorIllegalAddress" (runtime) or "CUDA_ERROR_ILLEGAL_ADDRESS"
  int32_t code = 0;
  TimeNs at = 0;              // that call's end: when the program learned of the fault
  uint64_t failed_calls = 0;  // API calls of the process that returned a sticky error
  // The process's last GPU record that kept its times: the fault came after its end.
  std::optional<TimeNs> last_timed_end;
  std::string last_timed_kernel;  // its name when it was a kernel
  // GPU records of the process without times (the capture's cupti_missing_timestamps count).
  uint64_t untimed_records = 0;
};

// The CUDA error name of a sticky error code, or nullptr when `code` is not one.
const char* sticky_error_name(int32_t code, ApiDomain domain);

// One entry per process whose API calls returned a sticky error, by time of the first.
std::vector<GpuFault> find_gpu_faults(const Trace& trace);

}  // namespace gpuscope::analysis
