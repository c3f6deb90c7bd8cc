// What an import does once the whole file has streamed past: the process each GPU activity
// belongs to, the time base, processes and devices, the external ids of GPU work whose launch
// call is missing, the ac2g flow check, and what the source lacks (docs/import.md).
#include <unordered_map>
#include <unordered_set>

#include "common/error.h"
#include "importers/kineto_json/kineto_import.h"

namespace gpuscope::kineto {

namespace {

uint64_t key(uint32_t pid, uint32_t correlation) { return (uint64_t{pid} << 32) | correlation; }

uint64_t number(const nlohmann::json& object, const char* name) {
  const auto it = object.find(name);
  if (it == object.end() || !it->is_number()) return 0;
  const double v = it->get<double>();
  return v > 0 && v < 1.8e19 ? it->get<uint64_t>() : 0;
}

uint32_t number32(const nlohmann::json& object, const char* name) {
  const uint64_t v = number(object, name);
  return v <= UINT32_MAX ? static_cast<uint32_t>(v) : 0;
}

// Resident blocks per SM by compute capability (CUDA C++ Programming Guide, "Compute
// Capabilities" table), which deviceProperties lacks and occupancy needs; 0 (unknown) elsewhere.
uint32_t blocks_per_sm(uint32_t major, uint32_t minor) {
  switch (major * 10 + minor) {
    case 70:
    case 72:
    case 80:
    case 90: return 32;
    case 75:
    case 86:
    case 87: return 16;
    case 89: return 24;
    default: return 0;
  }
}

}  // namespace

void TraceImport::finish() {
  const uint32_t owner = assign_owners();
  apply_time_base();
  add_processes();
  add_devices(owner);
  check_flows();
  add_gaps_and_run();
}

// GPU work carries its device as "pid" in a Kineto trace; it belongs to the process whose API
// call has its correlation id (one process per trace, in practice).
uint32_t TraceImport::assign_owners() {
  if (cpu_pids_.empty()) cpu_pids_[0] = {first_, last_};  // GPU work only: one process, pid unknown
  const uint32_t main = cpu_pids_.begin()->first;
  std::unordered_map<uint32_t, uint32_t> launched_by;  // correlation -> pid, when several processes
  if (cpu_pids_.size() > 1)
    for (const ApiCall& c : trace_.api_calls) launched_by.emplace(c.correlation_id, c.pid);
  auto owner_of = [&](uint32_t correlation) {
    const auto it = launched_by.find(correlation);
    return it == launched_by.end() ? main : it->second;
  };
  for (Kernel& k : trace_.kernels) k.pid = owner_of(k.correlation_id);
  for (CollectiveCall& c : trace_.collective_calls) c.pid = owner_of(c.correlation_id);
  for (Memcpy& m : trace_.memcpys) m.pid = owner_of(m.correlation_id);
  for (Memset& m : trace_.memsets) m.pid = owner_of(m.correlation_id);
  for (Synchronization& s : trace_.synchronizations) s.pid = owner_of(s.correlation_id);
  for (CuptiOverhead& o : trace_.overheads) o.pid = main;
  for (NvtxRange& r : trace_.nvtx_ranges)
    if (r.kind == NvtxKind::StartEnd) r.pid = main;

  // Kineto does not say whether a copy was asynchronous; its launch call's name does
  // (cudaMemcpyAsync, cuMemcpyHtoDAsync_v2). Without a launch call it stays asynchronous, so
  // no rule blames a synchronous copy that may not be one.
  if (!trace_.memcpys.empty() || !trace_.memsets.empty()) {
    std::unordered_map<uint64_t, bool> async_call;
    for (const ApiCall& c : trace_.api_calls)
      async_call.emplace(key(c.pid, c.correlation_id), trace_.strings.get(c.name).find("Async") != std::string::npos);
    auto async = [&](uint32_t pid, uint32_t correlation) {
      const auto it = async_call.find(key(pid, correlation));
      return it == async_call.end() || it->second;
    };
    for (Memcpy& m : trace_.memcpys) m.async = async(m.pid, m.correlation_id);
    for (Memset& m : trace_.memsets) m.async = async(m.pid, m.correlation_id);
  }

  // A kernel's own "External id" links it to its op when its launch call is not in the trace
  // (or carried none); the launch call's id wins when both are there.
  std::unordered_set<uint64_t> linked;
  for (const ExternalCorrelation& x : trace_.external_correlations) linked.insert(key(x.pid, x.correlation_id));
  for (const auto& [correlation, external_id] : gpu_external_) {
    const uint32_t pid = owner_of(correlation);
    if (linked.insert(key(pid, correlation)).second)
      trace_.external_correlations.push_back({pid, correlation, external_id, 0});
  }
  gpu_external_ = {};
  return main;
}

// Kineto writes "ts" in µs relative to baseTimeNanoseconds (older traces: absolute µs); the
// model's times are absolute ns.
void TraceImport::apply_time_base() {
  if (!has_base_ || first_ > last_) return;
  const bool fits = base_ns_ >= 0 && base_ns_ < (int64_t{1} << 62) && first_ > -(int64_t{1} << 62) &&
                    last_ < (int64_t{1} << 62);
  if (!fits) throw Error(path_ + ": baseTimeNanoseconds and the events' \"ts\" add up beyond 2^62 ns");
  const TimeNs b = base_ns_;
  for (ApiCall& x : trace_.api_calls) x.start += b, x.end += b;
  for (Kernel& x : trace_.kernels) x.start += b, x.end += b;
  for (Memcpy& x : trace_.memcpys) x.start += b, x.end += b;
  for (Memset& x : trace_.memsets) x.start += b, x.end += b;
  for (Synchronization& x : trace_.synchronizations) x.start += b, x.end += b;
  for (NvtxRange& x : trace_.nvtx_ranges) x.start += b, x.end += b;
  for (HostOp& x : trace_.host_ops) x.start += b, x.end += b;
  for (CuptiOverhead& x : trace_.overheads) x.start += b, x.end += b;
  for (MemoryEvent& x : trace_.memory_events) x.timestamp += b;
  for (auto& [pid, span] : cpu_pids_)
    if (span.first <= span.last) span.first += b, span.last += b;
  first_ += b;
  last_ += b;
}

// Kineto names each process (its executable's name, e.g. "python3"); it has no command line.
void TraceImport::add_processes() {
  for (const auto& [pid, span] : cpu_pids_) {
    Process p;
    p.pid = pid;
    const auto name = process_names_.find(pid);
    if (name != process_names_.end()) p.command_line = name->second;
    p.start = span.first <= span.last ? span.first : first_;
    p.end = span.first <= span.last ? span.last : last_;
    p.clean_shutdown = true;  // a trace file is written when profiling ends
    p.capture_status = "ok";
    p.driver_version = driver_version_;
    p.runtime_version = runtime_version_;
    p.cupti_version = cupti_version_;
    // One rank per trace file: torch.profiler runs in each rank's process.
    const auto rank = distributed_info_.is_object() ? distributed_info_.find("rank") : distributed_info_.end();
    const auto world = distributed_info_.is_object() ? distributed_info_.find("world_size") : distributed_info_.end();
    if (rank != distributed_info_.end() && rank->is_number_integer() && rank->get<int64_t>() >= 0 &&
        rank->get<int64_t>() < (int64_t{1} << 24))
      p.rank = static_cast<int32_t>(rank->get<int64_t>());
    if (world != distributed_info_.end() && world->is_number_integer() && world->get<int64_t>() > 0 &&
        world->get<int64_t>() <= (int64_t{1} << 24))
      p.world_size = static_cast<int32_t>(world->get<int64_t>());
    trace_.processes.push_back(std::move(p));
  }
}

// Kineto's deviceProperties (cudaDeviceProp fields by their CUDA names); what it does not give
// (clocks, L2, bandwidth) stays 0, which reports show as unknown. Blocks per SM come from the
// compute capability.
void TraceImport::add_devices(uint32_t owner) {
  if (!device_properties_.is_array()) return;
  for (const nlohmann::json& p : device_properties_) {
    if (!p.is_object()) continue;
    Device d;
    d.pid = owner;
    d.id = number32(p, "id");
    if (const auto name = p.find("name"); name != p.end() && name->is_string()) d.name = name->get<std::string>();
    d.compute_major = number32(p, "computeMajor");
    d.compute_minor = number32(p, "computeMinor");
    d.sm_count = number32(p, "numSms");
    d.global_memory_bytes = number(p, "totalGlobalMem");
    d.max_registers_per_block = number32(p, "regsPerBlock");
    d.max_registers_per_sm = number32(p, "regsPerMultiprocessor");
    d.max_shared_per_block_bytes = number32(p, "sharedMemPerBlock");
    d.max_shared_per_sm_bytes = number32(p, "sharedMemPerMultiprocessor");
    d.max_threads_per_block = number32(p, "maxThreadsPerBlock");
    if (const uint32_t warp = number32(p, "warpSize")) d.warp_size = warp;
    d.max_warps_per_sm = number32(p, "maxThreadsPerMultiprocessor") / d.warp_size;
    d.max_blocks_per_sm = blocks_per_sm(d.compute_major, d.compute_minor);
    trace_.devices.push_back(std::move(d));
  }
}

// ac2g flows repeat the correlation ids (flow id = correlation id): a flow that ends where no
// record has that id means the trace lost the record. (Kineto also ends some flows on runtime
// calls, e.g. cudaStreamIsCapturing, so API calls count as ends.)
void TraceImport::check_flows() {
  if (flow_ends_.empty()) return;
  std::unordered_set<uint32_t> ends;
  for (const Kernel& k : trace_.kernels) ends.insert(k.correlation_id);
  for (const Memcpy& m : trace_.memcpys) ends.insert(m.correlation_id);
  for (const Memset& m : trace_.memsets) ends.insert(m.correlation_id);
  for (const ApiCall& c : trace_.api_calls) ends.insert(c.correlation_id);
  uint64_t unmatched = 0;
  for (uint32_t id : flow_ends_) unmatched += !ends.count(id);
  flow_ends_ = {};
  if (unmatched)
    trace_.data_loss.push_back(
        {0, "kineto_flow_unmatched", unmatched,
         "ac2g flows that end on no kernel, copy, memset or API call with their correlation id"});
}

void TraceImport::add_gaps_and_run() {
  Run& run = trace_.run;
  run.source_tool = kineto_ ? "torch.profiler" : "Chrome trace";
  if (kineto_ && !trace_.host_ops.empty()) run.host_ops_source = kHostOpsFromTorchProfiler;
  run.source_schema = schema_version_.empty() ? "Chrome trace JSON" : "Kineto JSON schema " + schema_version_;
  run.source_file = path_;
  // run.start/end stay 0: there was no launcher, and the wall time is the span of the events.
  if (distributed_info_.is_object()) {
    const auto rank = distributed_info_.find("rank"), world = distributed_info_.find("world_size"),
               backend = distributed_info_.find("backend");
    auto text = [](const nlohmann::json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); };
    if (rank != distributed_info_.end()) {
      run.options = "rank " + text(*rank);
      if (world != distributed_info_.end()) run.options += " of " + text(*world);
      if (backend != distributed_info_.end()) run.options += ", backend " + text(*backend);
    }
  }

  auto gap = [&](const char* what, std::string detail) { trace_.source_gaps.push_back({what, std::move(detail)}); };
  if (sync_events_ == 0)
    gap(kGapSynchronization,
        "torch.profiler records no CUDA synchronization waits (cuda_sync events only with "
        "_ExperimentalConfig(enable_cuda_sync_events=True))");
  if (trace_.memory_events.empty())
    gap(kGapMemoryEvents, profile_memory_ == 1 ? "profile_memory was on, but the trace has no CUDA allocations"
                                               : "no allocations: torch.profiler ran without profile_memory=True");
  if (trace_.api_calls.empty()) gap(kGapApiCalls, "the trace has no cuda_runtime or cuda_driver events");
  if (!trace_.kernels.empty() && kernels_with_config_ == 0)
    gap(kGapLaunchConfig, "the trace's kernels carry no grid and block");
  if (!device_properties_.is_array() || device_properties_.empty())
    gap(kGapDevices, "the trace has no deviceProperties");
  if (!trace_.memcpys.empty() && copies_without_kinds_ == trace_.memcpys.size())
    gap(kGapCopyMemoryKinds, "the copies' names do not say their memory kinds");

  for (const auto& [category, count] : skipped_)
    trace_.data_loss.push_back({0, "kineto_events_skipped", count, "'" + category + "' events are not imported"});
  if (string_pid_events_)
    trace_.data_loss.push_back({0, "kineto_events_skipped", string_pid_events_,
                                "CPU events whose pid or tid is not a number are not imported"});
}

}  // namespace gpuscope::kineto
