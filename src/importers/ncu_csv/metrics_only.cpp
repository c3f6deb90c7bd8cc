// An ncu CSV imported alone: a metrics-only capture. ncu replays each profiled kernel alone,
// serialized, and records no timestamps, API calls, copies or synchronization, so the capture
// has a kernel per profiled launch with its metrics, placed back to back from time 0 in launch
// order, each lasting its measured gpu__time_duration.sum (as place_replayed_kernels in
// finalize.cpp places replayed kernels): kernel totals are right and no idle gap is invented.
// The source gaps say all this in the Run section.
#include <cxxabi.h>

#include <charconv>
#include <cstdlib>
#include <map>
#include <memory>
#include <set>

#include "common/error.h"
#include "importers/ncu_csv/ncu_file.h"
#include "importers/ncu_csv/ncu_importer.h"
#include "importers/ncu_csv/page_readers.h"
#include "importers/ncu_csv/trace_parts.h"

namespace gpuscope {

namespace {

using ncu::File;
using ncu::Launch;

// ncu prints mangled names with --print-kernel-base mangled.
std::string demangle(const std::string& name) {
  if (name.rfind("_Z", 0) != 0) return name;
  int status = 0;
  std::unique_ptr<char, decltype(&std::free)> text(abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status),
                                                   &std::free);
  return status == 0 && text ? std::string(text.get()) : name;
}

// Values from the file, whatever they are, into the model's integer fields: 0 when out of range.
uint32_t as_u32(double v) { return v > 0 && v < 4.29e9 ? static_cast<uint32_t>(v + 0.5) : 0; }
int32_t as_i32(double v) { return v > 0 && v < 2.1e9 ? static_cast<int32_t>(v + 0.5) : 0; }
uint64_t as_u64(double v) { return v > 0 && v < 1.8e19 ? static_cast<uint64_t>(v) : 0; }

// Device limits from device__attribute_* (raw page, when ncu collected them), under CUDA's
// attribute names without the prefix. ncu prints them without units, as CUDA gives them: clocks
// in kHz, sizes in bytes.
void fill_device(const std::map<std::string, double>& a, Device& d) {
  auto get = [&](const char* name) {
    auto it = a.find(name);
    return it == a.end() ? 0.0 : it->second;
  };
  static const std::pair<const char*, uint32_t Device::*> kFields[] = {
      {"compute_capability_major", &Device::compute_major},
      {"compute_capability_minor", &Device::compute_minor},
      {"multiprocessor_count", &Device::sm_count},
      {"clock_rate", &Device::core_clock_khz},
      {"memory_clock_rate", &Device::memory_clock_khz},
      {"global_memory_bus_width", &Device::memory_bus_width_bits},
      {"l2_cache_size", &Device::l2_cache_bytes},
      {"max_registers_per_multiprocessor", &Device::max_registers_per_sm},
      {"max_registers_per_block", &Device::max_registers_per_block},
      {"max_shared_memory_per_multiprocessor", &Device::max_shared_per_sm_bytes},
      {"max_shared_memory_per_block", &Device::max_shared_per_block_bytes},
      {"max_warps_per_multiprocessor", &Device::max_warps_per_sm},
      {"max_blocks_per_multiprocessor", &Device::max_blocks_per_sm},
      {"max_threads_per_block", &Device::max_threads_per_block},
      {"async_engine_count", &Device::copy_engines},
  };
  for (const auto& [attribute, field] : kFields) d.*field = as_u32(get(attribute));
  if (d.max_warps_per_sm == 0) d.max_warps_per_sm = as_u32(get("max_threads_per_multiprocessor") / 32);
  if (const uint32_t warp = as_u32(get("warp_size"))) d.warp_size = warp;
  d.global_memory_bytes = as_u64(get("total_memory"));
  // Double data rate x bus width, in KB/s (1000 bytes) as CUPTI gives it: the same number
  // CUPTI recorded for this H100 (3,352,320,000 from 2,619,000 kHz and 5,120 bits).
  d.global_memory_bandwidth_kbps = static_cast<uint64_t>(d.memory_clock_khz) * 2 * d.memory_bus_width_bits / 8;
}

Kernel make_kernel(const File& file, const Launch& launch, Trace& trace) {
  Kernel k;
  k.pid = launch.pid;
  k.device = launch.device;
  k.context = launch.context;
  k.stream = launch.stream;
  k.mangled_name = trace.strings.intern(launch.kernel_name);
  k.name = trace.strings.intern(demangle(launch.kernel_name));
  if (launch.has_config) {
    std::copy(launch.grid, launch.grid + 3, k.grid);
    std::copy(launch.block, launch.block + 3, k.block);
  } else {
    // Totals only (launch__grid_size, launch__block_size): as one dimension.
    k.grid[0] = as_i32(ncu::launch_value(file, launch, "launch__grid_size"));
    k.block[0] = as_i32(ncu::launch_value(file, launch, "launch__block_size"));
    k.grid[1] = k.grid[2] = k.block[1] = k.block[2] = k.grid[0] > 0 ? 1 : 0;
  }
  for (int i = 0; i < 3; ++i) {
    static const char* const kCluster[] = {"launch__cluster_dim_x", "launch__cluster_dim_y", "launch__cluster_dim_z"};
    k.cluster[i] = as_i32(ncu::launch_value(file, launch, kCluster[i]));
  }
  k.registers_per_thread = as_u32(ncu::launch_value(file, launch, "launch__registers_per_thread"));
  k.static_shared_bytes = as_u32(ncu::launch_value(file, launch, "launch__shared_mem_per_block_static"));
  k.dynamic_shared_bytes = as_u32(ncu::launch_value(file, launch, "launch__shared_mem_per_block_dynamic"));
  return k;
}

void add_source_gaps(const File& file, bool has_config, bool has_registers, Trace& trace) {
  trace.source_gaps.push_back(
      {kGapTimeline,
       "ncu replays each profiled kernel alone and records no timestamps; kernels are placed back to back in "
       "launch order, each lasting its measured gpu__time_duration.sum (0 where not measured), so kernel totals "
       "are right but gaps, overlap and wall time are not measured; no copies or memsets"});
  trace.source_gaps.push_back({kGapApiCalls, "ncu's CSV has no CUDA API calls"});
  trace.source_gaps.push_back({kGapSynchronization, "ncu's CSV has no synchronization records"});
  trace.source_gaps.push_back({kGapMemoryEvents, "ncu's CSV has no allocations"});
  trace.source_gaps.push_back({kGapNvtx, "ncu's CSV has no NVTX ranges"});
  if (!has_config || !has_registers)
    trace.source_gaps.push_back({kGapLaunchConfig, has_config
                                                       ? "registers and shared memory: not in this ncu CSV "
                                                         "(the launch__* metrics; ncu's LaunchStats section)"
                                                       : "no Block Size / Grid Size columns or launch__* metrics"});
  if (file.device_attributes.empty())
    trace.source_gaps.push_back({kGapDevices,
                                 "device limits: no device__attribute_* metrics in this ncu CSV (the raw "
                                 "page of --set full has them)"});
}

}  // namespace

bool is_ncu_csv(const Probe& probe) {
  if (probe.sqlite) return false;
  std::string_view head = probe.head;
  // The header may follow ncu's lines and the program's output; look at the first lines.
  for (int lines = 0; lines < 1000 && !head.empty(); ++lines) {
    const size_t end = head.find('\n');
    std::string_view line = head.substr(0, end);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (ncu::is_ncu_header(line)) return true;
    if (end == std::string_view::npos) break;
    head.remove_prefix(end + 1);
  }
  return false;
}

void read_ncu_csv(const std::string& path, Trace& trace) {
  if (!trace.processes.empty() || !trace.kernels.empty())
    throw Error(path + ": an ncu CSV imports on its own; attach it to a capture with --metrics-from");
  const File file = ncu::read_file(path);
  trace.run.source_tool = "ncu";
  // source_version stays empty: ncu's CSV does not say which ncu wrote it.
  trace.run.source_schema = "CSV " + file.page + " page";
  trace.run.source_file = path;
  if (file.command_lines.size() == 1) trace.run.command_line = file.command_lines.begin()->second;
  trace.run.host = file.launches.front().host;

  const std::vector<StringId> metric_ids = ncu::intern_metrics(file, trace);
  const StringId duration_id = trace.strings.intern("gpu__time_duration.sum");
  std::map<uint32_t, uint64_t> launches_of;         // pid -> launches
  std::set<std::pair<uint32_t, uint32_t>> devices;  // (pid, device)
  bool has_config = true, has_registers = true;
  size_t values = 0;
  for (const Launch& launch : file.launches) values += launch.metrics.size();
  trace.kernel_metrics.reserve(trace.kernel_metrics.size() + values);  // --set full: ~2,000 per launch
  TimeNs cursor = 0;
  uint32_t correlation = 0;
  for (const Launch& launch : file.launches) {
    Kernel k = make_kernel(file, launch, trace);
    k.correlation_id = ++correlation;  // synthetic: links the launch's metrics to it
    double duration = 0;
    for (const auto& [index, value] : launch.metrics) {
      trace.kernel_metrics.push_back({launch.pid, k.correlation_id, metric_ids[index], value, 0});
      if (metric_ids[index] == duration_id) duration = value;
    }
    k.start = cursor;
    // A duration past 1,000 s is no kernel ncu replayed (a damaged file): placed as 0, so that
    // even millions of rows cannot overflow the time axis.
    k.end = cursor += duration > 0 && duration < 1e12 ? static_cast<TimeNs>(duration + 0.5) : 0;
    has_config = has_config && k.grid[0] > 0;
    has_registers = has_registers && k.registers_per_thread > 0;
    trace.kernels.push_back(k);
    ++launches_of[launch.pid];
    devices.insert({launch.pid, launch.device});
  }
  trace.run.start = 0;
  trace.run.end = cursor;

  for (const auto& [pid, count] : launches_of) {
    Process p;
    p.pid = pid;
    auto command = file.command_lines.find(pid);
    for (const Launch& l : file.launches)
      if (l.pid == pid) {
        p.command_line = command != file.command_lines.end() ? command->second : l.process_name;
        break;
      }
    p.end = cursor;
    p.clean_shutdown = true;  // ncu says nothing of how it ended; nothing of the trace is lost
    trace.processes.push_back(p);
    trace.metric_collections.push_back(ncu::collection_row(file, path, pid, count));
  }
  for (const auto& [pid, id] : devices) {
    Device d;
    d.pid = pid;
    d.id = id;
    if (auto a = file.device_attributes.find(id); a != file.device_attributes.end()) fill_device(a->second, d);
    if (auto n = file.device_names.find(id); n != file.device_names.end()) d.name = n->second;
    for (const Launch& l : file.launches)
      if (l.device == id && d.compute_major == 0) {
        // "9.0": the CC column, when device__attribute_* did not say.
        const std::string& cc = l.compute_capability;
        const size_t dot = cc.find('.');
        if (dot == std::string::npos) continue;
        std::from_chars(cc.data(), cc.data() + dot, d.compute_major);
        std::from_chars(cc.data() + dot + 1, cc.data() + cc.size(), d.compute_minor);
      }
    trace.devices.push_back(d);
  }
  add_source_gaps(file, has_config, has_registers, trace);
  ncu::record_skipped(file, trace.processes.front().pid, trace);
}

}  // namespace gpuscope
