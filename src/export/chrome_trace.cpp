// Chrome Trace Event JSON as PyTorch's profiler (Kineto) writes it, so Perfetto UI,
// chrome://tracing and torch.profiler tools (HTA, TensorBoard) read it. Written as it goes:
// nothing but the layout is held in memory. docs/export.md lists every event and argument.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <tuple>

#include "export/json_out.h"
#include "export/lanes.h"
#include "export/text.h"
#include "export/writers.h"

namespace gpuscope::exporting {
namespace {

using tracks::Slice;
using tracks::SliceKind;

// Kineto's names for CUPTI's memory kinds (libkineto cupti_strings.cpp), used in copy names.
const char* kineto_memory_kind(MemoryKind kind) {
  switch (kind) {
    case MemoryKind::Pageable: return "Pageable";
    case MemoryKind::Pinned: return "Pinned";
    case MemoryKind::Device: return "Device";
    case MemoryKind::Array: return "Array";
    case MemoryKind::Managed: return "Managed";
    case MemoryKind::DeviceStatic: return "Device Static";
    case MemoryKind::ManagedStatic: return "Managed Static";
    case MemoryKind::Unknown: break;
  }
  return "Unknown";
}

class ChromeWriter {
 public:
  ChromeWriter(const Trace& trace, const tracks::Layout& layout, std::ostream& out, const ExportSettings& settings)
      : trace_(trace), layout_(layout), lanes_(layout), out_(out), details_(settings.details), settings_(settings) {
    for (const Device& d : trace.devices) devices_.try_emplace({d.run_id, d.pid, d.id}, &d);
  }

  void write() {
    out_ << "{\n\"schemaVersion\": 1,\n\"deviceProperties\": [";
    device_properties();
    out_ << "],\n\"distributedInfo\": ";
    distributed_info();
    out_ << ",\n\"displayTimeUnit\": \"ns\",\n\"baseTimeNanoseconds\": " << layout_.origin << ",\n\"traceEvents\": [";
    metadata();
    for (uint32_t li = 0; li < lanes_.all().size(); ++li) lane_events(li);
    flows();
    counters();
    out_ << "\n]}\n";
    out_.flush();
  }

 private:
  // Kineto's deviceProperties keys; one entry per device ordinal (what torch tools look up
  // by a kernel's "device"), with only what the capture knows.
  void device_properties() {
    std::map<uint32_t, const Device*> by_ordinal;
    for (const auto& [key, d] : devices_) by_ordinal.try_emplace(d->id, d);
    bool first = true;
    for (const auto& [id, d] : by_ordinal) {
      out_ << (first ? "\n" : ",\n") << "{\"id\": " << id << ", \"name\": ";
      first = false;
      append_json_string(out_.text(), d->name);
      const auto field = [&](const char* key, uint64_t value) {
        if (value) out_ << ", \"" << key << "\": " << value;
      };
      field("totalGlobalMem", d->global_memory_bytes);
      field("computeMajor", d->compute_major);
      out_ << ", \"computeMinor\": " << d->compute_minor;
      field("maxThreadsPerBlock", d->max_threads_per_block);
      field("maxThreadsPerMultiprocessor", uint64_t(d->max_warps_per_sm) * d->warp_size);
      field("regsPerBlock", d->max_registers_per_block);
      field("regsPerMultiprocessor", d->max_registers_per_sm);
      field("warpSize", d->warp_size);
      field("sharedMemPerBlock", d->max_shared_per_block_bytes);
      field("sharedMemPerMultiprocessor", d->max_shared_per_sm_bytes);
      field("numSms", d->sm_count);
      out_ << "}";
    }
  }

  // HTA refuses a trace without a rank; a capture is one "rank" (HTA's own advice for traces that
  // are not from distributed training), a rank's file of a job its rank, as Kineto writes it.
  void distributed_info() {
    if (settings_.world_size <= 0) {
      out_ << "{\"rank\": 0}";
      return;
    }
    const bool nccl = std::any_of(trace_.kernels.begin(), trace_.kernels.end(),
                                  [&](const Kernel& k) { return is_nccl_kernel(trace_.strings.get(k.name)); });
    out_ << "{" << (nccl ? "\"backend\": \"nccl\", " : "") << "\"rank\": " << settings_.rank
         << ", \"world_size\": " << settings_.world_size << "}";
  }

  // Names and order of every process (group) and thread (lane), as Kineto writes them.
  void metadata() {
    for (uint32_t gi = 0; gi < layout_.groups.size(); ++gi) {
      meta(gi, 0, "process_name", "name", layout_.groups[gi].name);
      meta(gi, 0, "process_labels", "labels", lanes_.label(gi));
      begin_event("M", "process_sort_index", lanes_.pid(gi), 0);
      out_ << ", \"args\": {\"sort_index\": " << gi << "}}";
    }
    std::map<uint32_t, uint32_t> position;  // lanes seen so far, by group
    for (const Lane& lane : lanes_.all()) {
      meta(lane.group, lane.tid, "thread_name", "name", lane.name);
      begin_event("M", "thread_sort_index", lanes_.pid(lane.group), lane.tid);
      out_ << ", \"args\": {\"sort_index\": " << position[lane.group]++ << "}}";
    }
  }

  // Process-wide metadata goes on tid 0, as Kineto writes it.
  void meta(uint32_t group, int64_t tid, const char* what, const char* key, const std::string& value) {
    begin_event("M", what, lanes_.pid(group), tid);
    out_ << ", \"args\": {\"" << key << "\": ";
    append_json_string(out_.text(), value);
    out_ << "}}";
  }

  void lane_events(uint32_t li) {
    const Lane& lane = lanes_.all()[li];
    const tracks::Track& t = layout_.tracks[lane.track];
    const int64_t pid = lanes_.pid(lane.group);
    for (const Slice& s : t.slices) {
      if (!lane.holds(s)) continue;
      begin_event("X", slice_name(s), pid, lane.tid, tracks::to_string(s.kind));
      out_ << ", \"ts\": " << micros(s.start) << ", \"dur\": " << micros(s.end, s.start);
      args(s);
      out_ << "}";
    }
    if (li != lanes_.first_lane(lane.track)) return;
    for (const tracks::Instant& m : t.marks) {
      begin_event("i", layout_.names[m.name], pid, lane.tid, "cpu_instant_event");
      out_ << ", \"s\": \"t\", \"ts\": " << micros(m.time) << "}";
    }
  }

  // Kineto's names for copies and memsets ("Memcpy HtoD (Pageable -> Device)", "Memset
  // (Device)"): HTA tells copy directions apart by them. Everything else as the layout names it.
  std::string slice_name(const Slice& s) const {
    if (s.kind == SliceKind::Memcpy) {
      const Memcpy& m = trace_.memcpys[s.source];
      return std::string("Memcpy ") + to_string(m.kind) + " (" + kineto_memory_kind(m.src_kind) + " -> " +
             kineto_memory_kind(m.dst_kind) + ")";
    }
    if (s.kind == SliceKind::Memset)
      return std::string("Memset (") + kineto_memory_kind(trace_.memsets[s.source].memory_kind) + ")";
    return layout_.names[s.name];
  }

  // Kineto's argument names ("registers per thread", "memory bandwidth (GB/s)", ...).
  void args(const Slice& s) {
    out_ << ", \"args\": {";
    switch (s.kind) {
      case SliceKind::Kernel: {
        const Kernel& k = trace_.kernels[s.source];
        gpu_args(k);
        if (!details_) break;  // where it ran and what launched it only (--no-details)
        out_ << ", \"registers per thread\": " << k.registers_per_thread
             << ", \"shared memory\": " << uint64_t(k.static_shared_bytes) + k.dynamic_shared_bytes;
        if (const Device* d = device(k.run_id, k.pid, k.device); d && d->sm_count && d->warp_size) {
          const double blocks = double(k.grid[0]) * k.grid[1] * k.grid[2] / d->sm_count;
          const double threads = double(k.block[0]) * k.block[1] * k.block[2];
          out_ << ", \"blocks per SM\": " << number(blocks)
               << ", \"warps per SM\": " << number(blocks * threads / d->warp_size);
        }
        out_ << ", \"grid\": [" << k.grid[0] << ", " << k.grid[1] << ", " << k.grid[2] << "], \"block\": ["
             << k.block[0] << ", " << k.block[1] << ", " << k.block[2] << "]";
        if (k.graph_id) out_ << ", \"graph id\": " << k.graph_id << ", \"graph node id\": " << k.graph_node_id;
        break;
      }
      case SliceKind::Memcpy:
        details_ ? copy_args(trace_.memcpys[s.source], s) : gpu_args(trace_.memcpys[s.source]);
        break;
      case SliceKind::Memset:
        details_ ? copy_args(trace_.memsets[s.source], s) : gpu_args(trace_.memsets[s.source]);
        break;
      case SliceKind::RuntimeApi:
      case SliceKind::DriverApi: {
        const ApiCall& c = trace_.api_calls[s.source];
        out_ << "\"cbid\": " << c.cbid << ", \"correlation\": " << c.correlation_id;
        break;
      }
      case SliceKind::Nvtx: {
        const StringId domain = trace_.nvtx_ranges[s.source].domain;
        if (domain) {
          out_ << "\"domain\": ";
          append_json_string(out_.text(), trace_.strings.get(domain));
        }
        break;
      }
      case SliceKind::GraphReplay: {
        // No "stream" argument: HTA takes events with one for GPU work, and the nodes are that.
        const tracks::GraphReplay& r = layout_.graph_replays[s.source];
        out_ << "\"graph id\": " << r.graph_id << ", \"replay\": " << r.replay << ", \"replays\": " << r.replays
             << ", \"nodes\": " << r.nodes << ", \"correlation\": " << r.correlation_id;
        break;
      }
      case SliceKind::Overhead: break;
    }
    out_ << "}";
  }

  template <typename Record>
  void gpu_args(const Record& r) {
    out_ << "\"device\": " << r.device << ", \"context\": " << r.context << ", \"stream\": " << r.stream
         << ", \"correlation\": " << r.correlation_id;
  }

  template <typename Record>
  void copy_args(const Record& r, const Slice& s) {
    gpu_args(r);
    out_ << ", \"bytes\": " << r.bytes;
    if (s.end > s.start) out_ << ", \"memory bandwidth (GB/s)\": " << number(double(r.bytes) / double(s.end - s.start));
  }

  // One "s" (at the launch call) and one "f" (at the GPU work) per flow; "ac2g" as Kineto names
  // CPU-to-GPU flows. Ids are the flow's index: a correlation id is not unique across processes,
  // and one graph launch starts several flows.
  void flows() {
    for (size_t i = 0; i < layout_.flows.size(); ++i) {
      const tracks::Flow& f = layout_.flows[i];
      flow_end("s", i + 1, f.from);
      flow_end("f", i + 1, f.to);
    }
  }

  void flow_end(const char* phase, size_t id, const tracks::SliceRef& ref) {
    const Slice& s = layout_.tracks[ref.track].slices[ref.slice];
    const Lane& lane = lanes_.all()[lanes_.lane_of(ref.track, s.row)];
    begin_event(phase, "ac2g", lanes_.pid(lane.group), lane.tid, "ac2g");
    out_ << ", \"id\": " << id << ", \"ts\": " << micros(s.start) << (phase[0] == 'f' ? ", \"bp\": \"e\"}" : "}");
  }

  void counters() {
    for (const tracks::Counter& c : layout_.counters) {
      const std::string series = c.unit.empty() ? "value" : c.unit;
      for (const tracks::CounterPoint& p : c.points) {
        if (!std::isfinite(p.value)) continue;  // JSON has no NaN
        begin_event("C", c.name, lanes_.pid(c.group));
        out_ << ", \"ts\": " << micros(p.time) << ", \"args\": {";
        append_json_string(out_.text(), series);
        out_ << ": " << number(p.value) << "}}";
      }
    }
  }

  // Opens an event object: phase, name, cat, pid, tid (the caller adds the rest and the "}").
  void begin_event(const char* phase, const std::string& name, int64_t pid, std::optional<int64_t> tid = {},
                   const char* cat = nullptr) {
    out_.maybe_flush();
    out_ << (first_event_ ? "\n" : ",\n") << "{\"ph\": \"" << phase << "\"";
    first_event_ = false;
    if (cat) out_ << ", \"cat\": \"" << cat << "\"";
    out_ << ", \"name\": ";
    append_json_string(out_.text(), name);
    out_ << ", \"pid\": " << pid;
    if (tid) out_ << ", \"tid\": " << *tid;
  }

  // ns -> µs with three decimals, relative to the layout's origin: exact, where absolute epoch
  // µs (~1.7e12 with a fraction) would lose the last digits in a reader's double.
  // Written as "%s%lld.%03lld" would, with to_chars (snprintf was a tenth of the export's time).
  std::string micros(TimeNs t, TimeNs from) const {
    const TimeNs d = t - from;
    const TimeNs a = d < 0 ? -d : d;
    char buf[32];
    char* p = buf;
    if (d < 0) *p++ = '-';
    p = std::to_chars(p, buf + sizeof buf, static_cast<long long>(a / 1000)).ptr;
    const long long frac = a % 1000;
    *p++ = '.';
    *p++ = char('0' + frac / 100);
    *p++ = char('0' + frac / 10 % 10);
    *p++ = char('0' + frac % 10);
    return std::string(buf, p);  // 15 bytes or fewer (under 10^11 µs) stay in std::string's own buffer
  }
  std::string micros(TimeNs t) const { return micros(t, layout_.origin); }

  static std::string number(double v) {
    char buf[32];
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    return std::string(buf, r.ptr);
  }

  const Device* device(uint32_t run_id, uint32_t pid, uint32_t id) const {
    const auto it = devices_.find({run_id, pid, id});
    return it == devices_.end() ? nullptr : it->second;
  }

  const Trace& trace_;
  const tracks::Layout& layout_;
  const Lanes lanes_;
  JsonOut out_;
  const bool details_;  // the GPU work's arguments beyond device, stream and correlation
  const ExportSettings settings_;
  std::map<std::tuple<uint32_t, uint32_t, uint32_t>, const Device*> devices_;  // (run, pid, ordinal)
  bool first_event_ = true;
};

}  // namespace

void write_chrome_trace(const Trace& trace, const tracks::Layout& layout, std::ostream& out,
                        const ExportSettings& settings) {
  ChromeWriter(trace, layout, out, settings).write();
}

}  // namespace gpuscope::exporting
