#include "gpuscope/analysis_faults.h"

#include <algorithm>
#include <map>

namespace gpuscope::analysis {
namespace {

// The errors after which a CUDA context is unusable (CUDA's documentation of cudaError_t: "the
// process must be terminated and relaunched"). Runtime and driver share these numbers.
struct StickyError {
  int32_t code;
  const char* runtime;
  const char* driver;
};
constexpr StickyError kStickyErrors[] = {
    {214, "cudaErrorECCUncorrectable", "CUDA_ERROR_ECC_UNCORRECTABLE"},
    {700, "cudaErrorIllegalAddress", "CUDA_ERROR_ILLEGAL_ADDRESS"},
    {702, "cudaErrorLaunchTimeout", "CUDA_ERROR_LAUNCH_TIMEOUT"},
    {714, "cudaErrorHardwareStackError", "CUDA_ERROR_HARDWARE_STACK_ERROR"},
    {715, "cudaErrorIllegalInstruction", "CUDA_ERROR_ILLEGAL_INSTRUCTION"},
    {716, "cudaErrorMisalignedAddress", "CUDA_ERROR_MISALIGNED_ADDRESS"},
    {717, "cudaErrorInvalidAddressSpace", "CUDA_ERROR_INVALID_ADDRESS_SPACE"},
    {718, "cudaErrorInvalidPc", "CUDA_ERROR_INVALID_PC"},
    {719, "cudaErrorLaunchFailure", "CUDA_ERROR_LAUNCH_FAILED"},
};

constexpr char kMissingTimestamps[] = "cupti_missing_timestamps";

// The process's record that ends last (with a time), or nullptr.
template <class Record>
const Record* last_to_end(const std::vector<Record>& records, uint32_t pid) {
  const Record* last = nullptr;
  for (const Record& r : records)
    if (r.pid == pid && r.end > 0 && (!last || r.end > last->end)) last = &r;
  return last;
}

}  // namespace

const char* sticky_error_name(int32_t code, ApiDomain domain) {
  for (const StickyError& e : kStickyErrors)
    if (e.code == code) return domain == ApiDomain::Driver ? e.driver : e.runtime;
  return nullptr;
}

std::vector<GpuFault> find_gpu_faults(const Trace& trace) {
  std::map<uint32_t, GpuFault> by_pid;
  for (const ApiCall& c : trace.api_calls) {
    const char* error = sticky_error_name(c.return_code, c.domain);
    if (error == nullptr) continue;
    auto [it, first] = by_pid.try_emplace(c.pid);
    GpuFault& f = it->second;
    ++f.failed_calls;
    if (!first && c.end >= f.at) continue;
    f.pid = c.pid;
    f.tid = c.tid;
    f.call = trace.strings.get(c.name);
    f.error = error;
    f.code = c.return_code;
    f.at = c.end;
  }
  std::vector<GpuFault> faults;
  for (auto& [pid, f] : by_pid) {
    if (const Kernel* kernel = last_to_end(trace.kernels, pid)) {
      f.last_timed_end = kernel->end;
      f.last_timed_kernel = trace.strings.get(kernel->name);
    }
    const Memcpy* copy = last_to_end(trace.memcpys, pid);
    const Memset* memset = last_to_end(trace.memsets, pid);
    for (const TimeNs end : {copy ? copy->end : 0, memset ? memset->end : 0})
      if (end > 0 && (!f.last_timed_end || end > *f.last_timed_end))
        f.last_timed_end = end, f.last_timed_kernel.clear();
    for (const DataLoss& loss : trace.data_loss)
      if (loss.pid == pid && loss.what == kMissingTimestamps) f.untimed_records += loss.count;
    faults.push_back(std::move(f));
  }
  std::sort(faults.begin(), faults.end(), [](const GpuFault& a, const GpuFault& b) { return a.at < b.at; });
  return faults;
}

}  // namespace gpuscope::analysis
