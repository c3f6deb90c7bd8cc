#include "importers/validate.h"

#include <algorithm>
#include <array>
#include <map>
#include <string>
#include <type_traits>

#include "gpuscope/trace_tables.h"

namespace gpuscope {

namespace {

// CUDA's launch limits, the same on every architecture so far (compute capability 3.0 to 12.x).
constexpr int64_t kMaxThreadsPerBlock = 1024;
constexpr int32_t kMaxBlockYZ[2] = {1024, 64};  // blockDim.y, blockDim.z (x is bound by the product)
constexpr int32_t kMaxGridYZ = 65535;           // gridDim.y and .z; x goes to 2^31 - 1
constexpr uint32_t kMaxRegistersPerThread = 255;
// Far above the largest GPU's shared memory per block (228 KB on sm_90/sm_100): the bound only
// has to keep static + dynamic + the 1 KB reserve from wrapping in 32 bits.
constexpr uint64_t kMaxSharedBytesPerBlock = 16u << 20;
constexpr uint32_t kMaxWarpSize = 1024;
// 1 PiB: far more than any machine's memory, so no allocation, copy or memset is larger. A size
// past it is a negative number in a capture (SQLite stores integers signed) or garbage; sums of
// real sizes (memory in use) stay far below 2^64, which the exports' integers need.
constexpr uint64_t kMaxBytes = uint64_t{1} << 50;

// 2^62 ns is year 2116 as a time since the epoch; times before 0 occur in imports whose clock
// starts at the session (nsys: an API call 3 us before it), never 2^60 ns (36 years) before it.
// Within these bounds no difference of two times (no duration) overflows int64, which the
// analyses' arithmetic relies on.
constexpr TimeNs kEarliestNs = -(TimeNs{1} << 60);
constexpr TimeNs kLatestNs = TimeNs{1} << 62;
// How far outside the run's window a record may lie: clocks of processes and devices are
// synchronized to within far less, so a record a day away has a garbage timestamp.
constexpr TimeNs kRunMarginNs = TimeNs{86'400} * 1'000'000'000;

bool launchable(const Kernel& k) {
  const bool unknown = std::all_of(k.grid, k.grid + 3, [](int32_t d) { return d == 0; }) &&
                       std::all_of(k.block, k.block + 3, [](int32_t d) { return d == 0; });
  if (unknown) return true;  // an importer that lacks the configuration (ncu without the grid)
  if (std::any_of(k.grid, k.grid + 3, [](int32_t d) { return d < 1; }) ||
      std::any_of(k.block, k.block + 3, [](int32_t d) { return d < 1; }) ||
      std::any_of(k.cluster, k.cluster + 3, [](int32_t d) { return d < 0; }))
    return false;
  if (k.grid[1] > kMaxGridYZ || k.grid[2] > kMaxGridYZ || k.block[1] > kMaxBlockYZ[0] || k.block[2] > kMaxBlockYZ[1])
    return false;
  // Each factor is at most 2^31 - 1 and the last two at most 1024 and 64: no overflow in 64 bits.
  const int64_t threads = int64_t{k.block[0]} * k.block[1] * k.block[2];
  return threads <= kMaxThreadsPerBlock && k.registers_per_thread <= kMaxRegistersPerThread &&
         uint64_t{k.static_shared_bytes} + k.dynamic_shared_bytes <= kMaxSharedBytesPerBlock;
}

void clear_launch_config(Kernel& k) {
  std::fill(k.grid, k.grid + 3, 0);
  std::fill(k.block, k.block + 3, 0);
  std::fill(k.cluster, k.cluster + 3, 0);
  k.registers_per_thread = k.static_shared_bytes = k.dynamic_shared_bytes = 0;
}

bool in_range(TimeNs t) { return t >= kEarliestNs && t <= kLatestNs; }

// The span a record's times must lie in: [kEarliestNs, kLatestNs], narrowed to the run's window
// +- a day when the run's times are known (imports without a launcher leave them 0).
struct Window {
  TimeNs first = kEarliestNs, last = kLatestNs;
  bool holds(TimeNs start, TimeNs end) const { return first <= start && start <= end && end <= last; }
};

Window window_of(const Run& run) {
  if (run.end <= run.start) return {};
  return {std::max(kEarliestNs, run.start - kRunMarginNs), std::min(kLatestNs, run.end + kRunMarginNs)};
}

// Clears times that cannot be real (0 is "unknown" for a run and a process). An end before the
// start is left alone: a process's end is the last record seen, which spools may place anywhere.
template <class Span>
bool clear_impossible_span(Span& s) {
  if (in_range(s.start) && in_range(s.end)) return false;
  s.start = s.end = 0;
  return true;
}

// pid -> (record kind -> records removed)
using Removed = std::map<uint32_t, std::map<std::string, uint64_t>>;

// One DataLoss row per process: "2 kernels, 1 copies" + why.
void add_removed_rows(Trace& trace, const Removed& removed, const char* what, const char* why) {
  for (const auto& [pid, kinds] : removed) {
    uint64_t count = 0;
    std::string detail;
    for (const auto& [kind, n] : kinds) {
      count += n;
      detail += (detail.empty() ? "" : ", ") + std::to_string(n) + " " + kind;
    }
    trace.data_loss.push_back({pid, what, count, detail + why});
  }
}

// Removes the rows whose times cannot be real: an interval (start, end) or an instant (timestamp)
// outside the window; counts them per process as `what`.
template <class Record>
void remove_outside(std::vector<Record>& records, const Window& w, const char* what, Removed& removed) {
  std::erase_if(records, [&](const Record& r) {
    bool valid = true;
    if constexpr (requires { r.start, r.end; }) valid = w.holds(r.start, r.end);
    else if constexpr (requires { r.timestamp; }) valid = w.holds(r.timestamp, r.timestamp);
    if (valid) return false;
    ++removed[r.pid][what];
    return true;
  });
}

void validate_times(Trace& trace) {
  uint64_t cleared = clear_impossible_span(trace.run);
  for (BenchRun& run : trace.runs) cleared += clear_impossible_span(run);
  for (Process& p : trace.processes) cleared += clear_impossible_span(p);
  if (cleared)
    trace.data_loss.push_back(
        {0, kInvalidTimes, cleared, "runs or processes with impossible start/end times; their times are unknown"});

  const Window w = window_of(trace.run);
  Removed removed;
  // Every table's timed rows; a process keeps its row with its times cleared (above).
  for_each_record_table([&](const auto& table) {
    if constexpr (!std::is_same_v<RowOf<decltype(table)>, Process>)
      remove_outside(trace.*table.rows, w, table.what, removed);
  });
  add_removed_rows(trace, removed, kInvalidTimes,
                   " without valid times (none recorded, an end before the start, or a time over a day outside the "
                   "run or past 2^62 ns); left out of the capture and every analysis");
}

// Removes allocations, frees, copies and memsets of impossible sizes; counts them per process.
template <class Record>
void remove_impossible_sizes(std::vector<Record>& records, const char* kind, Removed& removed) {
  std::erase_if(records, [&](const Record& r) {
    if (r.bytes <= kMaxBytes) return false;
    ++removed[r.pid][kind];
    return true;
  });
}

void validate_sizes(Trace& trace) {
  Removed removed;
  remove_impossible_sizes(trace.memory_events, "memory events", removed);
  remove_impossible_sizes(trace.memcpys, "copies", removed);
  remove_impossible_sizes(trace.memsets, "memsets", removed);
  add_removed_rows(trace, removed, kInvalidSize,
                   " of an impossible size (negative, or over 1 PiB); left out of the capture and every analysis");
}

}  // namespace

void validate_trace(Trace& trace) {
  std::map<uint32_t, uint64_t> bad_configs;  // pid -> kernels
  for (Kernel& k : trace.kernels)
    if (!launchable(k)) clear_launch_config(k), ++bad_configs[k.pid];
  for (const auto& [pid, count] : bad_configs)
    trace.data_loss.push_back({pid, kInvalidKernelConfig, count,
                               "kernels whose launch configuration CUDA cannot launch (a dimension not positive or "
                               "too large, over 1024 threads or 255 registers per thread, or impossible shared "
                               "memory); kept without a configuration, so without occupancy"});

  std::map<uint32_t, uint64_t> bad_devices;  // pid -> devices
  for (Device& d : trace.devices) {
    const bool power_of_two = d.warp_size != 0 && (d.warp_size & (d.warp_size - 1)) == 0;
    if (power_of_two && d.warp_size <= kMaxWarpSize) continue;
    d.warp_size = 0;
    ++bad_devices[d.pid];
  }
  for (const auto& [pid, count] : bad_devices)
    trace.data_loss.push_back({pid, kInvalidDevice, count,
                               "devices with an impossible warp size (not a power of two up to 1024); kept with the "
                               "warp size unknown, so without occupancy"});

  validate_times(trace);
  validate_sizes(trace);
}

}  // namespace gpuscope
