// write_spools(): a trace written back as the spools a capture would have left (one per process,
// src/spool/format.h), with the capture library's own SpoolWriter, so the scale bench can time
// `import` on realistic spools. The mapping is the importer's (spool_codes.h) run backwards.
#include "scale_spool.h"

#include <algorithm>
#include <stdexcept>

#include "capture/spool_writer.h"

namespace gpuscope::bench {
namespace {

using namespace gpuscope::spool;

// The spool's codes list the model's enums in the same order (checked here), so a cast maps them.
static_assert(uint8_t(CopyCode::PtoP) == uint8_t(CopyKind::PtoP) && uint8_t(CopyCode::HtoD) == uint8_t(CopyKind::HtoD));
static_assert(uint8_t(MemoryCode::ManagedStatic) == uint8_t(MemoryKind::ManagedStatic));
static_assert(uint8_t(SyncCode::ContextSynchronize) == uint8_t(SyncKind::ContextSynchronize));
uint8_t copy_code(CopyKind k) { return static_cast<uint8_t>(k); }
uint8_t memory_code(MemoryKind k) { return static_cast<uint8_t>(k); }
uint8_t sync_code(SyncKind k) { return static_cast<uint8_t>(k); }

// The records of one process, in the order CUPTI would hand them over is not needed: the importer
// sorts in finalize_trace. Strings are interned through the writer as the capture does.
class ProcessSpool {
 public:
  ProcessSpool(const Trace& t, const Process& p, const std::string& path) : t_(t), pid_(p.pid) {
    if (!w_.open(path, p.pid, p.parent_pid, p.start)) throw std::runtime_error(path + ": " + w_.error());
    w_.append_text(TextKey::CommandLine, p.command_line);
    w_.append_text(TextKey::CaptureStatus, p.capture_status);
    ProcessRecord pr{};
    pr.start_ns = p.start, pr.pid = p.pid, pr.parent_pid = p.parent_pid;
    pr.driver_version = p.driver_version, pr.runtime_version = p.runtime_version, pr.cupti_version = p.cupti_version;
    w_.add(RecordKind::Process, pr);
  }

  uint32_t name(StringId id) { return id ? w_.intern(t_.strings.get(id)) : 0; }
  uint32_t text(const std::string& s) { return w_.intern(s); }
  template <typename R>
  void add(RecordKind kind, const R& r) {
    w_.add(kind, r);
  }
  void finish(TimeNs end) { w_.finish({end, w_.records_written() + w_.pending_records(), 0}); }
  uint32_t pid() const { return pid_; }

 private:
  const Trace& t_;
  uint32_t pid_;
  capture::SpoolWriter w_;
};

void write_devices(const Trace& t, ProcessSpool& s) {
  for (const Device& d : t.devices) {
    if (d.pid != s.pid()) continue;
    DeviceRecord r{};
    r.id = d.id, r.name = s.text(d.name), r.uuid = s.text(d.uuid);
    r.global_memory_bytes = d.global_memory_bytes, r.global_memory_bandwidth_kbps = d.global_memory_bandwidth_kbps;
    r.compute_major = d.compute_major, r.compute_minor = d.compute_minor, r.sm_count = d.sm_count;
    r.core_clock_khz = d.core_clock_khz, r.memory_clock_khz = d.memory_clock_khz;
    r.memory_bus_width_bits = d.memory_bus_width_bits, r.l2_cache_bytes = d.l2_cache_bytes;
    r.max_registers_per_sm = d.max_registers_per_sm, r.max_registers_per_block = d.max_registers_per_block;
    r.max_shared_per_sm_bytes = d.max_shared_per_sm_bytes, r.max_shared_per_block_bytes = d.max_shared_per_block_bytes;
    r.max_warps_per_sm = d.max_warps_per_sm, r.max_blocks_per_sm = d.max_blocks_per_sm;
    r.max_threads_per_block = d.max_threads_per_block, r.warp_size = d.warp_size, r.copy_engines = d.copy_engines;
    s.add(RecordKind::Device, r);
  }
}

// NVTX ranges go out as CUPTI reports them: a Start and an End marker each, in time order per
// thread so that push/pop nesting is seen as such.
void write_nvtx(const Trace& t, ProcessSpool& s) {
  struct Edge {
    TimeNs at;
    uint64_t id;
    bool end;
  };
  std::vector<Edge> edges;
  for (size_t i = 0; i < t.nvtx_ranges.size(); ++i)
    if (t.nvtx_ranges[i].pid == s.pid()) {
      edges.push_back({t.nvtx_ranges[i].start, i, false});
      edges.push_back({t.nvtx_ranges[i].end, i, true});
    }
  std::stable_sort(edges.begin(), edges.end(), [](const Edge& a, const Edge& b) { return a.at < b.at; });
  for (const Edge& e : edges) {
    const NvtxRange& r = t.nvtx_ranges[e.id];
    MarkerRecord m{};
    m.timestamp_ns = e.at, m.id = e.id + 1, m.tid = r.tid, m.thread_scoped = 1;
    m.phase = uint8_t(e.end ? MarkerPhase::End : MarkerPhase::Start);
    if (!e.end) m.name = s.name(r.name), m.domain = s.name(r.domain);
    s.add(RecordKind::Marker, m);
  }
}

}  // namespace

std::vector<std::string> write_spools(const Trace& t, const std::string& dir) {
  std::vector<std::string> paths;
  for (const Process& p : t.processes) {
    paths.push_back(dir + "/scale." + std::to_string(p.pid) + ".spool");
    ProcessSpool s(t, p, paths.back());
    write_devices(t, s);
    for (const ApiCall& c : t.api_calls) {
      if (c.pid != p.pid) continue;
      ApiRecord r{};
      r.start_ns = c.start, r.end_ns = c.end, r.tid = c.tid, r.cbid = c.cbid, r.name = s.name(c.name);
      r.return_code = c.return_code, r.correlation_id = c.correlation_id, r.domain = uint8_t(c.domain);
      s.add(RecordKind::Api, r);
    }
    for (const Kernel& k : t.kernels) {
      if (k.pid != p.pid) continue;
      KernelRecord r{};
      r.start_ns = k.start, r.end_ns = k.end, r.device = k.device, r.context = k.context, r.stream = k.stream;
      r.name = s.name(k.mangled_name);
      std::copy(k.grid, k.grid + 3, r.grid), std::copy(k.block, k.block + 3, r.block);
      r.registers_per_thread = k.registers_per_thread, r.static_shared_bytes = k.static_shared_bytes;
      r.dynamic_shared_bytes = k.dynamic_shared_bytes, r.correlation_id = k.correlation_id;
      s.add(RecordKind::Kernel, r);
    }
    for (const Memcpy& m : t.memcpys) {
      if (m.pid != p.pid) continue;
      MemcpyRecord r{};
      r.start_ns = m.start, r.end_ns = m.end, r.bytes = m.bytes, r.device = m.device, r.context = m.context;
      r.stream = m.stream, r.correlation_id = m.correlation_id, r.copy_kind = copy_code(m.kind);
      r.src_kind = memory_code(m.src_kind), r.dst_kind = memory_code(m.dst_kind), r.async = m.async;
      s.add(RecordKind::Memcpy, r);
    }
    for (const Memset& m : t.memsets) {
      if (m.pid != p.pid) continue;
      MemsetRecord r{};
      r.start_ns = m.start, r.end_ns = m.end, r.bytes = m.bytes, r.device = m.device, r.context = m.context;
      r.stream = m.stream, r.correlation_id = m.correlation_id, r.value = m.value;
      r.memory_kind = memory_code(m.memory_kind), r.async = m.async;
      s.add(RecordKind::Memset, r);
    }
    for (const MemoryEvent& e : t.memory_events) {
      if (e.pid != p.pid) continue;
      MemoryRecord r{};
      r.timestamp_ns = e.timestamp, r.address = e.address, r.bytes = e.bytes, r.device = e.device;
      r.context = e.context, r.stream = e.stream, r.correlation_id = e.correlation_id;
      r.op = uint8_t(e.op), r.memory_kind = memory_code(e.memory_kind);
      s.add(RecordKind::Memory, r);
    }
    for (const Synchronization& y : t.synchronizations) {
      if (y.pid != p.pid) continue;
      SyncRecord r{};
      r.start_ns = y.start, r.end_ns = y.end, r.context = y.context, r.stream = y.stream;
      r.correlation_id = y.correlation_id, r.sync_kind = sync_code(y.kind);
      s.add(RecordKind::Sync, r);
    }
    for (const GpuMetricSample& g : t.gpu_metric_samples) {
      if (g.pid != p.pid) continue;
      GpuSampleRecord r{};
      r.start_ns = g.start, r.end_ns = g.end, r.value = g.value, r.device = g.device, r.metric = s.name(g.metric);
      s.add(RecordKind::GpuSample, r);
    }
    write_nvtx(t, s);
    s.finish(p.end);
  }
  return paths;
}

}  // namespace gpuscope::bench
