#include "importers/spool/record_decoder.h"

#include <cxxabi.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "importers/spool/comm_calls.h"
#include "importers/spool/graph_nodes.h"
#include "importers/spool/spool_codes.h"
#include "importers/torch_nvtx/torch_nvtx.h"

namespace gpuscope::spool {

namespace {

std::string demangle(const std::string& mangled) {
  int status = 0;
  char* text = abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status);
  std::string result = status == 0 && text ? text : mangled;
  std::free(text);
  return result;
}

// "RANK LOCAL_RANK WORLD_SIZE" (TextKey::Distributed); a value that is not a number in range
// stays unknown (a damaged spool must not invent a rank).
void parse_distributed(const std::string& text, Process& process) {
  int32_t values[3] = {-1, -1, 0};
  const char* at = text.c_str();
  for (int32_t& value : values) {
    char* end = nullptr;
    const long parsed = std::strtol(at, &end, 10);
    if (end == at || parsed < -1 || parsed >= (1L << 24)) return;
    value = static_cast<int32_t>(parsed);
    at = end;
  }
  process.rank = values[0];
  process.local_rank = values[1];
  process.world_size = std::max(values[2], 0);
}

}  // namespace

RecordDecoder::RecordDecoder(Trace& trace, uint32_t pid, uint32_t parent_pid, int64_t created_ns) : trace_(trace) {
  process_.pid = pid;
  process_.parent_pid = parent_pid;
  process_.start = created_ns;
  last_seen_ns_ = created_ns;
}

bool RecordDecoder::decode_chunk(const std::vector<char>& payload, uint32_t record_count) {
  reader_.start(payload.data(), payload.size());
  uint32_t decoded = 0;
  RecordView record{};
  while (reader_.next(record)) {
    if (!decode_record(record.kind, record.body, record.bytes)) return false;
    ++decoded;
  }
  if (reader_.damaged()) return false;
  records_ += decoded;
  return decoded == record_count;
}

StringId RecordDecoder::string(uint32_t spool_id) {
  if (spool_id == 0) return 0;
  auto it = strings_.find(spool_id);
  if (it != strings_.end()) return it->second;
  ++unknown_string_refs_;
  return trace_.strings.intern("<unknown string>");
}

// Demangling costs microseconds; a run launches the same few kernels millions of times.
StringId RecordDecoder::demangled(StringId mangled) {
  auto [it, inserted] = demangled_.try_emplace(mangled, 0);
  if (inserted) it->second = trace_.strings.intern(demangle(trace_.strings.get(mangled)));
  return it->second;
}

bool RecordDecoder::define_string(const char* body, uint32_t bytes, bool is_text) {
  StringDef def{};
  if (bytes < sizeof def) return false;
  std::memcpy(&def, body, sizeof def);
  if (bytes - sizeof def != def.length) return false;
  std::string text(body + sizeof def, def.length);
  if (!is_text) {
    strings_[def.id] = trace_.strings.intern(text);
    return true;
  }
  switch (static_cast<TextKey>(def.id)) {
    case TextKey::CommandLine: process_.command_line = std::move(text); break;
    case TextKey::CaptureStatus:
      process_.capture_status = std::move(text);
      saw_status_ = true;
      break;
    case TextKey::CuptiPath: process_.cupti_path = std::move(text); break;
    case TextKey::CuptiShared: process_.cupti_shared = text == "1"; break;
    case TextKey::CaptureRange: process_.capture_range = std::move(text); break;
    case TextKey::Distributed: parse_distributed(text, process_); break;
    case TextKey::ApiTrace: process_.api_trace = std::move(text); break;
    case TextKey::Cubin: return pc_samples_.add_cubin(std::move(text));
  }
  return true;
}

void RecordDecoder::seen(int64_t timestamp_ns) { last_seen_ns_ = std::max(last_seen_ns_, timestamp_ns); }

bool RecordDecoder::decode_record(RecordKind kind, const char* body, uint32_t bytes) {
  const uint32_t pid = process_.pid;
  switch (kind) {
    case RecordKind::String: return define_string(body, bytes, false);
    case RecordKind::Text: return define_string(body, bytes, true);
    case RecordKind::Process: {
      ProcessRecord r;
      if (!read_body(body, bytes, r)) return false;
      process_.start = r.start_ns;
      if (r.parent_pid) process_.parent_pid = r.parent_pid;
      process_.driver_version = r.driver_version;
      process_.runtime_version = r.runtime_version;
      process_.cupti_version = r.cupti_version;
      return true;
    }
    case RecordKind::Device: {
      DeviceRecord r;
      if (!read_body(body, bytes, r)) return false;
      Device d;
      d.pid = pid;
      d.id = r.id;
      d.name = trace_.strings.get(string(r.name));
      d.uuid = trace_.strings.get(string(r.uuid));
      d.compute_major = r.compute_major;
      d.compute_minor = r.compute_minor;
      d.sm_count = r.sm_count;
      d.core_clock_khz = r.core_clock_khz;
      d.memory_clock_khz = r.memory_clock_khz;
      d.memory_bus_width_bits = r.memory_bus_width_bits;
      d.global_memory_bytes = r.global_memory_bytes;
      d.global_memory_bandwidth_kbps = r.global_memory_bandwidth_kbps;
      d.l2_cache_bytes = r.l2_cache_bytes;
      d.max_registers_per_sm = r.max_registers_per_sm;
      d.max_registers_per_block = r.max_registers_per_block;
      d.max_shared_per_sm_bytes = r.max_shared_per_sm_bytes;
      d.max_shared_per_block_bytes = r.max_shared_per_block_bytes;
      d.max_warps_per_sm = r.max_warps_per_sm;
      d.max_blocks_per_sm = r.max_blocks_per_sm;
      d.max_threads_per_block = r.max_threads_per_block;
      d.warp_size = r.warp_size;
      d.copy_engines = r.copy_engines;
      trace_.devices.push_back(std::move(d));
      return true;
    }
    case RecordKind::Api: {
      ApiRecord r;
      if (!read_body(body, bytes, r)) return false;
      trace_.api_calls.push_back({pid, r.tid, api_domain_of(r.domain), r.cbid, string(r.name), r.start_ns, r.end_ns,
                                  r.return_code, r.correlation_id});
      seen(r.end_ns);
      return true;
    }
    case RecordKind::Kernel: {
      KernelRecord r;
      if (!read_body(body, bytes, r)) return false;
      Kernel k;
      k.pid = pid;
      k.device = r.device;
      k.context = r.context;
      k.stream = r.stream;
      k.mangled_name = string(r.name);
      k.name = demangled(k.mangled_name);
      k.start = r.start_ns;
      k.end = r.end_ns;
      std::copy(r.grid, r.grid + 3, k.grid);
      std::copy(r.block, r.block + 3, k.block);
      std::copy(r.cluster, r.cluster + 3, k.cluster);
      k.registers_per_thread = r.registers_per_thread;
      k.static_shared_bytes = r.static_shared_bytes;
      k.dynamic_shared_bytes = r.dynamic_shared_bytes;
      k.local_bytes_per_thread = r.local_bytes_per_thread;
      k.correlation_id = r.correlation_id;
      k.graph_id = r.graph_id;
      k.graph_node_id = r.graph_node_id;
      trace_.kernels.push_back(k);
      seen(r.end_ns);
      return true;
    }
    case RecordKind::Memcpy: {
      MemcpyRecord r;
      if (!read_body(body, bytes, r)) return false;
      Memcpy m;
      m.pid = pid;
      m.device = r.device;
      m.context = r.context;
      m.stream = r.stream;
      m.kind = copy_kind_of(r.copy_kind);
      m.src_kind = memory_kind_of(r.src_kind);
      m.dst_kind = memory_kind_of(r.dst_kind);
      m.async = r.async != 0;
      m.bytes = r.bytes;
      m.start = r.start_ns;
      m.end = r.end_ns;
      m.correlation_id = r.correlation_id;
      m.graph_id = r.graph_id;
      trace_.memcpys.push_back(m);
      seen(r.end_ns);
      return true;
    }
    case RecordKind::Memset: {
      MemsetRecord r;
      if (!read_body(body, bytes, r)) return false;
      Memset m;
      m.pid = pid;
      m.device = r.device;
      m.context = r.context;
      m.stream = r.stream;
      m.memory_kind = memory_kind_of(r.memory_kind);
      m.async = r.async != 0;
      m.bytes = r.bytes;
      m.value = r.value;
      m.start = r.start_ns;
      m.end = r.end_ns;
      m.correlation_id = r.correlation_id;
      m.graph_id = r.graph_id;
      trace_.memsets.push_back(m);
      seen(r.end_ns);
      return true;
    }
    case RecordKind::Memory: {
      MemoryRecord r;
      if (!read_body(body, bytes, r)) return false;
      trace_.memory_events.push_back({pid, r.device, r.context, r.stream, memory_op_of(r.op),
                                      memory_kind_of(r.memory_kind), r.address, r.bytes, r.timestamp_ns,
                                      r.correlation_id});
      seen(r.timestamp_ns);
      return true;
    }
    case RecordKind::Sync: {
      SyncRecord r;
      if (!read_body(body, bytes, r)) return false;
      trace_.synchronizations.push_back(
          {pid, 0, r.context, r.stream, sync_kind_of(r.sync_kind), r.start_ns, r.end_ns, r.correlation_id});
      seen(r.end_ns);
      return true;
    }
    case RecordKind::Marker: {
      MarkerRecord r;
      if (!read_body(body, bytes, r)) return false;
      on_marker(r);
      seen(r.timestamp_ns);
      return true;
    }
    case RecordKind::Overhead: {
      OverheadRecord r;
      if (!read_body(body, bytes, r)) return false;
      trace_.overheads.push_back({pid, string(r.kind), r.start_ns, r.end_ns});
      return true;
    }
    case RecordKind::Loss: {
      LossRecord r;
      if (!read_body(body, bytes, r)) return false;
      trace_.data_loss.push_back(
          {pid, trace_.strings.get(string(r.what)), r.count, trace_.strings.get(string(r.detail))});
      return true;
    }
    case RecordKind::End: {
      EndRecord r;
      if (!read_body(body, bytes, r)) return false;
      saw_end_ = true;
      process_.end = r.end_ns;
      if (r.records_dropped)
        trace_.data_loss.push_back(
            {pid, "writer_dropped_records", r.records_dropped, "records gpuscope could not queue for writing in time"});
      return true;
    }
    case RecordKind::KernelMetric:
    case RecordKind::GpuSample:
    case RecordKind::MetricCollection: return decode_metric_record(kind, body, bytes);
    case RecordKind::ApiCount: {
      ApiCountRecord r;
      if (!read_body(body, bytes, r)) return false;
      trace_.api_counts.push_back({pid, string(r.name), api_domain_of(r.domain), r.calls,
                                   static_cast<TimeNs>(std::min<uint64_t>(r.total_ns, INT64_MAX))});
      return true;
    }
    case RecordKind::CaptureWindow: {
      CaptureWindowRecord r;
      if (!read_body(body, bytes, r)) return false;
      if (r.end_ns < r.start_ns) return false;  // impossible: the chunk is damaged
      trace_.capture_windows.push_back({pid, r.start_ns, r.end_ns});
      return true;
    }
    case RecordKind::CommCall: {
      CommCallRecord r;
      if (!read_body(body, bytes, r)) return false;
      if (r.call > static_cast<uint8_t>(CommCallCode::Launch)) return false;  // no such code: damaged
      comm_calls_.push_back(r);
      return true;
    }
    case RecordKind::Stream: {
      StreamRecord r;
      if (!read_body(body, bytes, r)) return false;
      trace_.streams.push_back({pid, r.context, r.stream, stream_flag_of(r.flag), r.priority, r.correlation_id});
      return true;
    }
    case RecordKind::GraphNode: {
      GraphNodeRecord r;
      if (!read_body(body, bytes, r)) return false;
      graph_nodes_.push_back(r);
      return true;
    }
    case RecordKind::TorchOp: {
      TorchOpRecord r;
      if (!read_body(body, bytes, r)) return false;
      if (r.end_ns < r.start_ns) return false;  // impossible: the chunk is damaged
      HostOp op;
      op.pid = pid;
      op.tid = r.tid;
      op.start = r.start_ns;
      op.end = r.end_ns;
      op.name = string(r.name);
      op.category = cpu_op_ ? cpu_op_ : (cpu_op_ = trace_.strings.intern("cpu_op"));
      op.external_id = torch_ops_.size() + 1;  // per process, as the NVTX conversion numbers them
      op.sequence_number = r.sequence_number < 0 ? -1 : r.sequence_number;
      torch_ops_.push_back(op);
      return true;
    }
    case RecordKind::PcSample: {
      PcSampleRecord r;
      if (!read_body(body, bytes, r)) return false;
      pc_samples_.add(r, string(r.function), string(r.stall_reason));
      return true;
    }
    case RecordKind::PcSampling: {
      PcSamplingRecord r;
      if (!read_body(body, bytes, r)) return false;
      pc_samples_.add(r);
      return true;
    }
  }
  return false;  // unknown record kind: treat the chunk as damaged
}

void RecordDecoder::on_marker(const MarkerRecord& marker) {
  const auto phase = static_cast<MarkerPhase>(marker.phase);
  if (phase == MarkerPhase::Instant) {
    trace_.nvtx_marks.push_back(
        {process_.pid, marker.tid, string(marker.domain), string(marker.name), marker.timestamp_ns});
    return;
  }
  if (phase == MarkerPhase::Start) {
    NvtxRange range;
    range.pid = process_.pid;
    range.tid = marker.tid;
    range.domain = string(marker.domain);
    range.name = string(marker.name);
    range.start = marker.timestamp_ns;
    open_ranges_[marker.id] = {range};
    thread_stacks_[marker.tid].push_back(marker.id);
    return;
  }
  auto it = open_ranges_.find(marker.id);
  if (it == open_ranges_.end()) {
    ++unmatched_range_ends_;
    return;
  }
  NvtxRange range = it->second.range;
  range.end = marker.timestamp_ns;
  range.kind = close_on_thread(marker.id, range.tid, marker.tid);
  trace_.nvtx_ranges.push_back(range);
  open_ranges_.erase(it);
}

// CUPTI does not say whether a range is push/pop or start/end. A push/pop range
// is closed by the thread that opened it, as the innermost open range of that
// thread; anything else is a start/end range. A start/end range that happens to
// close like a pop on its own thread is indistinguishable and counts as push/pop.
NvtxKind RecordDecoder::close_on_thread(uint64_t id, uint32_t start_tid, uint32_t end_tid) {
  auto& stack = thread_stacks_[start_tid];
  const bool innermost = !stack.empty() && stack.back() == id;
  stack.erase(std::find(stack.begin(), stack.end(), id));
  return innermost && start_tid == end_tid ? NvtxKind::PushPop : NvtxKind::StartEnd;
}

void RecordDecoder::finish(uint64_t bytes_discarded) {
  const uint32_t pid = process_.pid;
  process_.clean_shutdown = saw_end_;
  if (!saw_end_) process_.end = last_seen_ns_;
  if (!saw_status_) process_.capture_status = "unknown (the spool ended before capture reported)";
  // Ranges still open when the process ended (or died) end with it.
  std::vector<NvtxRange> unclosed;
  for (auto& [id, open] : open_ranges_) unclosed.push_back(open.range);
  std::sort(unclosed.begin(), unclosed.end(), [](const NvtxRange& a, const NvtxRange& b) { return a.start < b.start; });
  for (NvtxRange& range : unclosed) {
    range.end = std::max(range.start, process_.end);
    trace_.nvtx_ranges.push_back(range);
  }
  if (!unclosed.empty())
    trace_.data_loss.push_back(
        {pid, "nvtx_unclosed_ranges", unclosed.size(), "NVTX ranges never closed; they end at the process end"});
  if (unmatched_range_ends_)
    trace_.data_loss.push_back(
        {pid, "nvtx_unmatched_range_ends", unmatched_range_ends_, "NVTX range ends whose start was not captured"});
  if (unknown_string_refs_)
    trace_.data_loss.push_back(
        {pid, "spool_unknown_strings", unknown_string_refs_, "records naming a string the spool never defined"});
  if (!saw_end_)
    trace_.data_loss.push_back(
        {pid, "spool_truncated", 1,
         "the process ended without a clean shutdown (crash, signal or kill); the last moments "
         "before its end may be missing" +
             (bytes_discarded ? "; " + std::to_string(bytes_discarded) + " damaged bytes skipped" : std::string())});
  finish_metrics();
  link_comm_calls(trace_, pid, process_.world_size, comm_calls_);
  add_graph_nodes(trace_, pid, graph_nodes_);
  pc_samples_.finish(trace_, pid);
  if (!torch_ops_.empty()) {
    // The process's CUDA calls are all decoded now: each goes to the innermost op open on its thread.
    for (const ExternalCorrelation& x : link_calls_to_ops(torch_ops_, trace_.api_calls))
      trace_.external_correlations.push_back(x);
    trace_.host_ops.insert(trace_.host_ops.end(), torch_ops_.begin(), torch_ops_.end());
    trace_.run.host_ops_source = kHostOpsFromObserver;
  }
  trace_.processes.push_back(process_);
}

}  // namespace gpuscope::spool
