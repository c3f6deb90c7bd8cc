// Summaries of one Trace: what `gpuscope report` tabulates. Each function is
// pure (reads the trace, returns plain structs) and deterministic: rows come
// sorted by total time descending, ties broken by name, so the same trace
// always gives the same rows in the same order.
//
// Units: TimeNs and every Stats over durations are nanoseconds; bytes are
// bytes; bandwidth is bytes per second. docs/report.md defines every number.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "gpuscope/analysis_stats.h"
#include "gpuscope/model.h"

namespace gpuscope::analysis {

// ---- Run header ---------------------------------------------------------

// Devices reported by all processes, one entry per physical GPU (same UUID
// seen from two processes counts once), sorted by ordinal, then UUID.
std::vector<Device> unique_devices(const Trace& trace);

// ---- Executive summary ----------------------------------------------------

enum class WallSource {
  Run,        // run.end - run.start: the launcher's fork-to-exit view
  Windows,    // a capture range: the recorded windows (merged), not the whole run
  EventSpan,  // no launcher times: first event start to last event end
  None        // nothing to measure
};

struct ExecutiveSummary {
  TimeNs wall_ns = 0;
  WallSource wall_source = WallSource::None;
  // Union of kernel, memcpy and memset intervals on each device, summed over
  // devices (so it can exceed wall time on a multi-GPU run).
  TimeNs gpu_busy_ns = 0;
  size_t busy_devices = 0;
  TimeNs kernel_ns = 0;  // sum of kernel durations (overlap counted twice)
  size_t kernel_count = 0;
  // Sum of API call durations over all threads, for one domain: runtime when
  // any runtime call was captured (driver calls nest inside them), else driver.
  TimeNs api_ns = 0;
  size_t api_count = 0;
  ApiDomain api_domain = ApiDomain::Runtime;
  TimeNs memcpy_ns = 0;  // GPU-side durations of copies
  size_t memcpy_count = 0;
  uint64_t memcpy_bytes = 0;
  TimeNs memset_ns = 0;
  size_t memset_count = 0;
  uint64_t memset_bytes = 0;
  TimeNs sync_wait_ns = 0;  // CPU time spent waiting in synchronization calls
  size_t sync_count = 0;
};

ExecutiveSummary summarize_executive(const Trace& trace);

// Busy time (union of kernel/memcpy/memset intervals) of one physical device.
struct DeviceBusy {
  std::string device_key;  // UUID when known, else "pid:<pid>/dev:<ordinal>"
  TimeNs busy_ns = 0;
};
std::vector<DeviceBusy> gpu_busy_by_device(const Trace& trace);  // sorted by key

// ---- Kernels --------------------------------------------------------------

struct LaunchConfig {
  std::array<int32_t, 3> grid{0, 0, 0};
  std::array<int32_t, 3> block{0, 0, 0};
  uint32_t registers_per_thread = 0;
  uint32_t static_shared_bytes = 0;
  uint32_t dynamic_shared_bytes = 0;
  auto operator<=>(const LaunchConfig&) const = default;
};

struct KernelGroup {
  std::string name;     // demangled; the mangled name when no demangled one
  Stats duration;       // ns per launch
  LaunchConfig config;  // most common config; ties: the smallest one
  size_t distinct_configs = 0;
};

std::vector<KernelGroup> summarize_kernels(const Trace& trace);

// ---- CUDA API -------------------------------------------------------------

struct ApiGroup {
  std::string name;
  Stats duration;  // ns per call
};

// One table per API domain that has calls; runtime first.
struct ApiSummary {
  ApiDomain domain = ApiDomain::Runtime;
  TimeNs total_ns = 0;  // denominator of "% of API time"
  std::vector<ApiGroup> rows;
};

std::vector<ApiSummary> summarize_api(const Trace& trace);

// The lean API trace's counted-only functions (Trace::api_counts), summed over processes by
// name: by total time descending, then name. Times in ns.
struct ApiCountGroup {
  std::string name;
  ApiDomain domain = ApiDomain::Runtime;
  uint64_t calls = 0;
  double total_ns = 0;
};
std::vector<ApiCountGroup> summarize_api_counts(const Trace& trace);

// Which CUDA API traces the capture's processes recorded (Process::api_trace: core, full, lean);
// empty when no process says (imported files).
std::set<std::string> api_traces(const Trace& trace);

// ---- Memory operations ----------------------------------------------------

struct MemoryGroup {
  std::string label;  // "HtoD (pageable)", "DtoD", "Memset", ...
  bool is_memset = false;
  CopyKind kind = CopyKind::Unknown;
  // Host side of HtoD/DtoH/HtoA/AtoH copies (pageable vs pinned); Unknown otherwise.
  MemoryKind host_kind = MemoryKind::Unknown;
  size_t count = 0;
  uint64_t bytes = 0;
  TimeNs time_ns = 0;  // summed GPU-side durations
  // bytes / time, in bytes per second; nullopt when time is 0.
  std::optional<double> bandwidth_bps;
};

std::vector<MemoryGroup> summarize_memory_ops(const Trace& trace);

// ---- Synchronization --------------------------------------------------------

struct SyncGroup {
  SyncKind kind = SyncKind::Unknown;
  Stats wait;  // ns of CPU wait per call
};

std::vector<SyncGroup> summarize_sync(const Trace& trace);

// ---- NVTX -----------------------------------------------------------------

struct NvtxGroup {
  std::string domain;  // "" for the default domain
  std::string name;
  Stats duration;  // ns per range
  // GPU projection (analysis_nvtx_gpu.h): the GPU work launched inside the instances, in ns.
  double gpu_ns = 0;          // sum over instances of each one's union of GPU intervals
  double gpu_span_ns = 0;     // sum over instances of first GPU start .. last GPU end
  size_t kernels = 0;         // kernels launched inside, over instances
  size_t gpu_activities = 0;  // kernels, copies and memsets launched inside, over instances
  // gpu_ns / CPU time x 100; above 100 when work launched inside runs after the range closed.
  double gpu_busy_percent() const { return duration.total > 0 ? gpu_ns / duration.total * 100.0 : 0.0; }
};

struct NvtxSummary {
  std::vector<NvtxGroup> ranges;
  size_t unclosed_ranges = 0;  // end <= start: never closed; excluded above
  size_t marks = 0;
  size_t gpu_unlaunched = 0;  // timed GPU records whose launch call is not in the capture: in no range
};

NvtxSummary summarize_nvtx(const Trace& trace);

// ---- Data quality -----------------------------------------------------------

struct LossGroup {
  std::string what;            // e.g. "cupti_dropped_records"
  uint64_t count = 0;          // summed over processes
  std::vector<uint32_t> pids;  // sorted, unique
  std::string detail;          // distinct details joined with "; "
};

struct CaptureProblem {
  uint32_t pid = 0;
  std::string status;
};

// A process that shared its CUPTI with the program and whose records stopped long
// before it ended: the program's own CUPTI client (torch.profiler) may have taken them.
struct SharedCuptiSilence {
  uint32_t pid = 0;
  // From its last captured record to its end; with `calls_went_on`, from its last GPU record to
  // its last call (the core API trace records calls without CUPTI's activity buffers).
  TimeNs silent_ns = 0;
  bool calls_went_on = false;
};

// Records that lie (partly) outside the run's window, when the launcher recorded one: the
// launcher's start and exit bracket every process, so such a record means clock trouble or a
// capture put together from different runs; its times, and every sum over them, are suspect.
struct OutsideRun {
  uint64_t records = 0;
  TimeNs furthest_ns = 0;  // how far the furthest one reaches past the window
};

struct DataQuality {
  std::vector<LossGroup> losses;  // sorted by what
  OutsideRun outside_run;
  std::vector<SharedCuptiSilence> shared_cupti_silences;  // possible, unconfirmed losses
  std::vector<uint32_t> truncated_pids;                   // no clean shutdown
  std::vector<CaptureProblem> capture_problems;           // capture_status not "ok"
  TimeNs cupti_overhead_ns = 0;                           // sum of overhead record durations
  size_t overhead_records = 0;
  bool no_cuda_activity = false;  // not one CUDA call, kernel, copy or memset recorded
  bool complete() const {
    return losses.empty() && truncated_pids.empty() && capture_problems.empty() && shared_cupti_silences.empty() &&
           outside_run.records == 0;
  }
  // "incomplete" (anything lost or suspect), else "empty" (nothing to judge), else "complete".
  const char* grade() const {
    if (!complete()) return "incomplete";
    return no_cuda_activity ? "empty" : "complete";
  }
};

DataQuality assess_data_quality(const Trace& trace);

}  // namespace gpuscope::analysis
