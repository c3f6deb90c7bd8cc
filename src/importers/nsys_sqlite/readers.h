// The readers of an nsys export, one per record family; nsys_importer.cpp calls them in order
// (API calls first: GPU records look their launch calls up).
#pragma once

#include <cstdint>
#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "importers/nsys_sqlite/export_source.h"

namespace gpuscope::nsys {

// metadata.cpp
struct ExportVersion {
  std::string product;  // "2026.2.1.210"
  std::string schema;   // "3.25.0"
  int major = 0;        // 3; 0 when the export does not say
};
ExportVersion read_export_metadata(NsysSource& source);  // META_DATA_EXPORT, session start, command, host
void read_processes(NsysSource& source);                 // one Process per pid that has records, named from PROCESSES

// devices.cpp
void read_devices(NsysSource& source);      // a Device per (pid, device) the records use
void read_diagnostics(NsysSource& source);  // nsys's own warnings and errors -> data loss
void read_streams(NsysSource& source);      // TARGET_INFO_CUDA_STREAM: how each stream was created

// host_activity.cpp
void read_api_calls(NsysSource& source);         // CUPTI_ACTIVITY_KIND_RUNTIME and _DRIVER
void read_synchronizations(NsysSource& source);  // CUPTI_ACTIVITY_KIND_SYNCHRONIZATION
void count_cuda_events(NsysSource& source);      // CUPTI_ACTIVITY_KIND_CUDA_EVENT (counted only)
void read_overheads(NsysSource& source);         // PROFILER_OVERHEAD, CUPTI_ACTIVITY_KIND_OVERHEAD

// gpu_activity.cpp
void read_kernels(NsysSource& source);         // CUPTI_ACTIVITY_KIND_KERNEL
void read_graph_launches(NsysSource& source);  // CUPTI_ACTIVITY_KIND_GRAPH_TRACE

// memory_activity.cpp
void read_memcpys(NsysSource& source);       // CUPTI_ACTIVITY_KIND_MEMCPY
void read_memsets(NsysSource& source);       // CUPTI_ACTIVITY_KIND_MEMSET
void read_memory_usage(NsysSource& source);  // CUDA_GPU_MEMORY_USAGE_EVENTS

// nvtx_events.cpp
void read_nvtx(NsysSource& source);  // NVTX_EVENTS

// What GPU records need from the API calls read before them (host_activity.cpp).
class LaunchIndex {
 public:
  explicit LaunchIndex(const Trace& trace) : trace_(trace) {}
  // The GPU work with this id was issued by an *Async API call (a copy that did not block its
  // thread). nsys exports no async flag; CUPTI sets it exactly for those calls.
  bool async(uint32_t pid, uint32_t correlation_id);
  // The process whose API call has this correlation id, for tables without globalPid (trimmed
  // exports); 0 when none has. Ids repeat across processes, so the first one wins.
  uint32_t pid(uint32_t correlation_id);

 private:
  const Trace& trace_;
  std::optional<std::unordered_set<uint64_t>> async_calls_;
  std::optional<std::unordered_map<uint32_t, uint32_t>> pid_of_call_;
};

// The columns every GPU activity table (kernels, graph launches, copies, memsets) shares; their
// readers list them first, in this order.
enum SharedGpuColumn : size_t {
  kGpuStart,
  kGpuEnd,
  kGpuDevice,
  kGpuContext,
  kGpuStream,
  kGpuCorrelation,
  kGpuGlobalPid
};
// For a reader's static_assert that its slots start with the shared columns.
constexpr bool shares_gpu_columns(size_t start, size_t device, size_t global_pid) {
  return start == kGpuStart && device == kGpuDevice && global_pid == kGpuGlobalPid;
}

// Where and when a GPU record ran, from those columns. The process comes from globalPid, else
// (trimmed exports) from the API call that launched it.
template <class Record>
void read_gpu_placement(const NsysSource& source, const NsysTable& rows, LaunchIndex& launches, Record& r) {
  r.correlation_id = static_cast<uint32_t>(rows.integer(kGpuCorrelation));
  r.pid = rows.has(kGpuGlobalPid) ? pid_of(rows.integer(kGpuGlobalPid)) : launches.pid(r.correlation_id);
  r.device = static_cast<uint32_t>(rows.integer(kGpuDevice));
  r.context = static_cast<uint32_t>(rows.integer(kGpuContext));
  r.stream = static_cast<uint32_t>(rows.integer(kGpuStream));
  r.start = source.time(rows.integer(kGpuStart));
  r.end = source.time(rows.integer(kGpuEnd));
}

}  // namespace gpuscope::nsys
