// Timeline analysis of one Trace: when each GPU was busy, where it idled and
// what the launching CPU threads did meanwhile, how copies overlapped kernels,
// how streams ran concurrently, how long kernels waited after their launch
// call, and where the wall time of the whole run went (the "Bottleneck").
//
// Units: every TimeNs is ns on the capture's CLOCK_REALTIME. Pure functions,
// deterministic output order. Definitions and precedence: docs/report.md.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gpuscope/analysis_stats.h"
#include "gpuscope/api_class.h"
#include "gpuscope/model.h"

namespace gpuscope::analysis {

// ---- Startup ----------------------------------------------------------------

// The thread that drives a process's CUDA work: its initial thread (tid == pid on
// Linux) when that thread made CUDA calls, else the one with the most API time
// (ties: lowest tid). The attribution and re-timing follow this thread.
struct MainThread {
  uint32_t pid = 0;
  uint32_t tid = 0;
};
std::optional<MainThread> main_thread(const Trace& trace, uint32_t pid);

// The program's process: the launched one (whose parent was not captured; earliest start on
// ties), unless it ran no kernels while processes it started did: then it is a launcher (torchrun,
// python -m torch.distributed.run, mpirun, srun) and the program is its first rank (the lowest
// rank the launcher set, else the earliest to start). The Bottleneck, Steps, Start-up and the
// rules' main thread follow this process.
std::optional<uint32_t> root_pid(const Trace& trace);

// The outermost NVTX range that repeats on `thread`: of the names with at least `min_instances`
// closed instances there, the lowest nesting depth, then the largest total time, then the lowest
// string id. A training loop's step range (`train_step`), a benchmark's iteration range.
std::optional<StringId> repeating_range(const Trace& trace, const MainThread& thread, size_t min_instances);

// The closed instances of the range `name` on `thread`, by start. With `to_next`, each runs to
// the next one's start (the last keeps its own end): an iteration, with what the thread did
// between two instances.
std::vector<Interval> range_instances(const Trace& trace, const MainThread& thread, StringId name,
                                      bool to_next = false);

// Context creation hides in the first call that needs a context: that call is
// far longer than later calls of the same name. Excess = its duration minus
// the median of the later calls of that name; reported when >= 1 ms and at least
// 10x that median. A first cudaSetDevice/cudaInitDevice/cudaFree/cuInit/cuCtxCreate/
// cuDevicePrimaryCtxRetain of >= 1 ms with no later peer counts whole (setting up the device
// is its job). Index into trace.api_calls; nullopt if no such call.
struct ContextCreation {
  size_t api_index = 0;
  TimeNs excess_ns = 0;
};
std::optional<ContextCreation> find_context_creation(const Trace& trace, uint32_t pid);

// ---- Busy, gaps, overlap ------------------------------------------------------

struct StreamBusy {
  uint32_t pid = 0, device = 0, stream = 0;
  TimeNs busy_ns = 0;  // union of its kernels, copies and memsets
  size_t kernels = 0, copies = 0, memsets = 0;
};

// What the CPU threads of the processes using a device did during an idle gap.
struct GapActivity {
  TimeNs in_sync_ns = 0;  // inside a synchronization call
  TimeNs in_api_ns = 0;   // inside another CUDA API call
  TimeNs outside_ns = 0;  // outside CUDA (host work)
  std::string main_api;   // API with the largest share of the gap, "" if none
};

struct IdleGap {
  TimeNs start = 0, end = 0;
  GapActivity cpu;
};

struct DeviceTimeline {
  uint32_t pid = 0, device = 0;
  TimeNs first_start = 0, last_end = 0;  // of any GPU activity on it
  TimeNs busy_ns = 0;
  TimeNs kernel_ns = 0;               // union of kernels
  TimeNs copy_ns = 0;                 // union of copies and memsets
  TimeNs copy_kernel_overlap_ns = 0;  // copy/memset time that ran under a kernel
  TimeNs concurrent_ns = 0;           // time with >= 2 streams active at once
  TimeNs idle_ns = 0;                 // sum of gaps between first_start and last_end
  std::vector<IdleGap> gaps;          // gaps >= min_gap_ns, longest first
};

struct TimelineOptions {
  TimeNs min_gap_ns = 100'000;  // shorter gaps count in idle_ns, not listed
  size_t max_gaps = 10;
  // Only this part of the run (the steady state: SteadyState in analysis_steps.h): GPU work is
  // clipped to it, kernels launched before it are no launch delays. nullopt: the whole run.
  std::optional<Interval> window;
};

struct Timeline {
  std::vector<StreamBusy> streams;      // sorted by pid, device, stream
  std::vector<DeviceTimeline> devices;  // sorted by pid, device
  // Kernel start minus the start of the API call with its correlation id, ns.
  Stats launch_delay;
};

Timeline analyze_timeline(const Trace& trace, const TimelineOptions& options = {});

// ---- Attribution of the wall time -----------------------------------------------

// The run's wall-clock window: [run.start, run.end) when the capture recorded them, else the
// first to the last timed record. {0, 0} when there is none.
Interval wall_window(const Trace& trace);

enum class TimeCategory { CudaInit, KernelCompute, MemoryOps, Allocation, SyncWait, OtherApi, HostOutsideCuda, Count };
const char* to_string(TimeCategory c);

struct Attribution {
  TimeNs wall_ns = 0;
  TimeNs by_category[static_cast<int>(TimeCategory::Count)] = {};
  std::optional<MainThread> thread;  // whose timeline was attributed
  TimeNs context_creation_ns = 0;    // part of CudaInit
  TimeNs context_creation_at = 0;    // start of the call that created the context; 0 if none
  TimeNs start = 0;                  // of the attributed window (run.start or first event)
  bool steady = false;               // the window is the steady state (no start-up in it)
  TimeNs get(TimeCategory c) const { return by_category[static_cast<int>(c)]; }
};

// Splits [run.start, run.end) (or the event span) of the root process's main
// thread into the categories; they sum to wall_ns exactly. Precedence per ns:
// startup > allocation call > copy/memset call > sync call (blamed on the GPU
// work it waited for: kernel, then copy, else SyncWait) > other API call >
// outside CUDA. See docs/report.md "Bottleneck".
// With `steady` (the steady state's window), only [steady.start, steady.end) is split, and none
// of it is start-up: the run's start-up lies before it.
Attribution attribute_wall_time(const Trace& trace, std::optional<Interval> steady = std::nullopt);

}  // namespace gpuscope::analysis
