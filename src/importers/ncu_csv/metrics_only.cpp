// An ncu CSV imported alone: a metrics-only capture. ncu replays each profiled kernel alone,
// serialized, and records no timestamps, API calls, copies or synchronization, so the capture
// has a kernel per profiled launch with its metrics, placed back to back from time 0 in launch
// order, each lasting its measured gpu__time_duration.sum (as place_replayed_kernels in
// finalize.cpp places replayed kernels): kernel totals are right and no idle gap is invented.
// The source gaps say all this in the Run section.
#include <map>

#include "common/error.h"
#include "importers/ncu_csv/capture_builder.h"
#include "importers/ncu_csv/ncu_file.h"
#include "importers/ncu_csv/ncu_importer.h"
#include "importers/ncu_csv/page_readers.h"
#include "importers/ncu_csv/trace_parts.h"

namespace gpuscope {

namespace {

using ncu::as_u32;
using ncu::as_u64;
using ncu::File;

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

void read_ncu_csv(const std::string& path, Trace& trace) { read_ncu_csv(path, trace, nullptr); }

void read_ncu_csv(const std::string& path, Trace& trace, ncu::LaunchCounts* counts) {
  if (!trace.processes.empty() || !trace.kernels.empty())
    throw Error(path + ": an ncu CSV imports on its own; attach it to a capture with --metrics-from");
  // Kernels and metric rows are made as the launches are read (capture_builder.h); the rows
  // below need the whole file (command lines and device attributes may come last).
  ncu::CaptureBuilder built(trace);
  const File file = ncu::read_file(path, &built);
  if (counts) *counts = file.counts;
  trace.run.source_tool = "ncu";
  // source_version stays empty: ncu's CSV does not say which ncu wrote it.
  trace.run.source_schema = "CSV " + file.page + " page";
  trace.run.source_file = path;
  if (file.command_lines.size() == 1) trace.run.command_line = file.command_lines.begin()->second;
  trace.run.host = built.first_host();
  trace.run.start = 0;
  trace.run.end = built.end();

  for (const auto& [pid, seen] : built.processes()) {
    Process p;
    p.pid = pid;
    auto command = file.command_lines.find(pid);
    p.command_line = command != file.command_lines.end() ? command->second : seen.process_name;
    p.end = built.end();
    p.clean_shutdown = true;  // ncu says nothing of how it ended; nothing of the trace is lost
    trace.processes.push_back(p);
    trace.metric_collections.push_back(ncu::collection_row(
        file, path, pid, seen.launches, built.first_compute_capability(), built.metrics_with_values()));
  }
  for (const auto& [pid, id] : built.devices()) {
    Device d;
    d.pid = pid;
    d.id = id;
    if (auto a = file.device_attributes.find(id); a != file.device_attributes.end()) fill_device(a->second, d);
    if (auto n = file.device_names.find(id); n != file.device_names.end()) d.name = n->second;
    // "9.0": the CC column, when device__attribute_* did not say.
    if (d.compute_major == 0) built.capability_of(id).apply(d);
    trace.devices.push_back(d);
  }
  add_source_gaps(file, built.all_have_config(), built.all_have_registers(), trace);
  ncu::record_skipped(file, trace.processes.front().pid, trace);
}

}  // namespace gpuscope
