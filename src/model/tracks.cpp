// layout_tracks(): groups, tracks, rows, flows and counters from a trace (tracks.h).
#include "gpuscope/tracks.h"
#include "model/tracks_graphs.h"
#include "model/tracks_order.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <unordered_map>

#include "gpuscope/analysis_stats.h"
#include "gpuscope/metric_sets.h"

namespace gpuscope::tracks {
namespace {

using analysis::timed;

// Builds the layout; groups and tracks are made on first use, keyed by what they show.
class Builder {
 public:
  Builder(const Trace& trace, const LayoutOptions& options) : trace_(trace), options_(options) { intern(""); }

  Layout build() {
    for (const Process& p : trace_.processes)
      if (wanted(p.run_id)) process_group(p.pid, p.run_id);
    add_api_calls();
    add_gpu_work();
    add_graph_replays();
    add_nvtx();
    add_overheads();
    add_memory_counters();
    add_sample_counters();
    for (Track& t : layout_.tracks) pack_rows(t);
    order_groups(layout_);
    add_flows(trace_, layout_);
    set_time_bounds();
    for (const Track& t : layout_.tracks) layout_.slices += t.slices.size();
    return std::move(layout_);
  }

 private:
  bool wanted(uint32_t run_id) const { return !options_.run_id || *options_.run_id == run_id; }

  const Process* process(uint32_t pid, uint32_t run_id) const {
    for (const Process& p : trace_.processes)
      if (p.pid == pid && p.run_id == run_id) return &p;
    return nullptr;
  }

  int32_t rank(uint32_t pid, uint32_t run_id) const {
    const Process* p = process(pid, run_id);
    return p ? p->rank : -1;
  }

  std::string process_name(uint32_t pid, uint32_t run_id) const {
    std::string name = "process " + std::to_string(pid);
    const Process* p = process(pid, run_id);
    if (p && !p->command_line.empty()) name += ": " + p->command_line;
    if (p && p->rank >= 0) name = "rank " + std::to_string(p->rank) + " · " + name;
    if (run_id != 0) name = "run " + std::to_string(run_id) + " · " + name;
    return name;
  }

  // "stream 13 (non-blocking, priority -3)": how the stream was created, where the capture saw it.
  std::string stream_name(uint32_t group, uint32_t stream) const {
    std::string name = "stream " + std::to_string(stream);
    const Group& g = layout_.groups[group];
    for (const Stream& s : trace_.streams) {
      if (s.pid != g.pid || s.run_id != g.run_id || s.stream != stream) continue;
      std::string how;
      switch (s.flag) {
        case StreamFlag::Blocking: how = "blocking"; break;
        case StreamFlag::NonBlocking: how = "non-blocking"; break;
        case StreamFlag::Legacy: how = "legacy default stream"; break;
        case StreamFlag::Unknown: break;
      }
      if (s.priority != 0) how += (how.empty() ? "" : ", ") + std::string("priority ") + std::to_string(s.priority);
      if (!how.empty()) name += " (" + how + ")";
      break;
    }
    return name;
  }

  uint32_t process_group(uint32_t pid, uint32_t run_id) {
    auto [it, added] = process_groups_.try_emplace({run_id, pid}, 0);
    if (!added) return it->second;
    it->second = static_cast<uint32_t>(layout_.groups.size());
    Group g;
    g.kind = GroupKind::Process;
    g.pid = pid;
    g.run_id = run_id;
    g.rank = rank(pid, run_id);
    g.name = process_name(pid, run_id);
    layout_.groups.push_back(std::move(g));
    return it->second;
  }

  uint32_t device_group(uint32_t pid, uint32_t device, uint32_t run_id) {
    process_group(pid, run_id);  // a device is listed after the process that used it
    auto [it, added] = device_groups_.try_emplace({run_id, pid, device}, 0);
    if (!added) return it->second;
    it->second = static_cast<uint32_t>(layout_.groups.size());
    Group g;
    g.kind = GroupKind::Device;
    g.pid = pid;
    g.device = device;
    g.run_id = run_id;
    g.rank = rank(pid, run_id);
    g.name = "GPU " + std::to_string(device);
    for (const Device& d : trace_.devices)
      if (d.pid == pid && d.id == device && d.run_id == run_id && !d.name.empty()) g.name += ": " + d.name;
    g.name += std::string(" (") + (g.rank >= 0 ? "rank " + std::to_string(g.rank) + ", " : "") + "process " +
              std::to_string(pid) + (run_id ? ", run " + std::to_string(run_id) : "") + ")";
    layout_.groups.push_back(std::move(g));
    return it->second;
  }

  // The track of a group with this kind and id (tid or stream), made on first use.
  Track& track(uint32_t group, TrackKind kind, uint32_t id) {
    auto [it, added] = tracks_.try_emplace({group, static_cast<uint32_t>(kind), id}, 0);
    if (added) {
      it->second = static_cast<uint32_t>(layout_.tracks.size());
      Track t;
      t.group = group;
      t.kind = kind;
      switch (kind) {
        case TrackKind::Thread:
          t.tid = id;
          t.name = "thread " + std::to_string(id);
          break;
        case TrackKind::Stream:
          t.stream = id;
          t.name = stream_name(group, id);
          break;
        case TrackKind::NvtxRanges: t.name = "NVTX start/end ranges"; break;
        case TrackKind::Overhead: t.name = "profiler overhead"; break;
      }
      layout_.tracks.push_back(std::move(t));
      layout_.groups[group].tracks.push_back(it->second);
    }
    return layout_.tracks[it->second];
  }

  void add(Track& t, TimeNs start, TimeNs end, size_t source, uint32_t name, SliceKind kind) {
    if (!timed(start, end)) {
      ++layout_.untimed;
      return;
    }
    t.slices.push_back({start, end, static_cast<uint32_t>(source), name, 0, kind});
  }

  void add_api_calls() {
    for (size_t i = 0; i < trace_.api_calls.size(); ++i) {
      const ApiCall& c = trace_.api_calls[i];
      if (!wanted(c.run_id)) continue;
      Track& t = track(process_group(c.pid, c.run_id), TrackKind::Thread, c.tid);
      add(t, c.start, c.end, i, name_of(c.name),
          c.domain == ApiDomain::Driver ? SliceKind::DriverApi : SliceKind::RuntimeApi);
    }
  }

  template <typename Record>
  void add_gpu(const std::vector<Record>& records, SliceKind kind, uint32_t name) {
    for (size_t i = 0; i < records.size(); ++i) {
      const Record& r = records[i];
      if (!wanted(r.run_id)) continue;
      Track& t = track(device_group(r.pid, r.device, r.run_id), TrackKind::Stream, r.stream);
      add(t, r.start, r.end, i, name, kind);
    }
  }

  void add_gpu_work() {
    for (size_t i = 0; i < trace_.kernels.size(); ++i) {
      const Kernel& k = trace_.kernels[i];
      if (!wanted(k.run_id)) continue;
      Track& t = track(device_group(k.pid, k.device, k.run_id), TrackKind::Stream, k.stream);
      add(t, k.start, k.end, i, name_of(k.name ? k.name : k.mangled_name), SliceKind::Kernel);
    }
    // Copies are named by direction ("memcpy HtoD"), as the viewers people know name them.
    std::map<CopyKind, uint32_t> copy_names;
    for (size_t i = 0; i < trace_.memcpys.size(); ++i) {
      const Memcpy& m = trace_.memcpys[i];
      if (!wanted(m.run_id)) continue;
      auto [name, added] = copy_names.try_emplace(m.kind, 0);
      if (added) name->second = intern(std::string("memcpy ") + to_string(m.kind));
      Track& t = track(device_group(m.pid, m.device, m.run_id), TrackKind::Stream, m.stream);
      add(t, m.start, m.end, i, name->second, SliceKind::Memcpy);
    }
    add_gpu(trace_.memsets, SliceKind::Memset, intern("memset"));
  }

  // Graph replays from their nodes (GraphReplay in tracks.h); their slices are named "graph 8".
  void add_graph_replays() {
    for (const ReplayPlaces& r : graph_replays(trace_, options_.run_id)) {
      const size_t index = layout_.graph_replays.size();
      layout_.graph_replays.push_back(r.replay);
      const uint32_t name = intern("graph " + std::to_string(r.replay.graph_id));
      for (const ReplayOnStream& s : r.streams)
        add(track(device_group(r.replay.pid, s.device, r.replay.run_id), TrackKind::Stream, s.stream), s.start, s.end,
            index, name, SliceKind::GraphReplay);
    }
  }

  void add_nvtx() {
    for (size_t i = 0; i < trace_.nvtx_ranges.size(); ++i) {
      const NvtxRange& r = trace_.nvtx_ranges[i];
      if (!wanted(r.run_id)) continue;
      const uint32_t group = process_group(r.pid, r.run_id);
      // Push/pop ranges nest on their thread; start/end ranges may cross threads and overlap.
      Track& t = r.kind == NvtxKind::PushPop ? track(group, TrackKind::Thread, r.tid)
                                             : track(group, TrackKind::NvtxRanges, 0);
      add(t, r.start, r.end, i, name_of(r.name), SliceKind::Nvtx);
    }
    for (size_t i = 0; i < trace_.nvtx_marks.size(); ++i) {
      const NvtxMark& m = trace_.nvtx_marks[i];
      if (!wanted(m.run_id)) continue;
      if (m.timestamp <= 0) {
        ++layout_.untimed;
        continue;
      }
      track(process_group(m.pid, m.run_id), TrackKind::Thread, m.tid)
          .marks.push_back({m.timestamp, static_cast<uint32_t>(i), name_of(m.name)});
    }
  }

  void add_overheads() {
    for (size_t i = 0; i < trace_.overheads.size(); ++i) {
      const CuptiOverhead& o = trace_.overheads[i];
      if (!wanted(o.run_id)) continue;
      add(track(process_group(o.pid, o.run_id), TrackKind::Overhead, 0), o.start, o.end, i, name_of(o.kind),
          SliceKind::Overhead);
    }
  }

  // Memory in use per device: the running sum of allocations less frees, in time order.
  void add_memory_counters() {
    std::vector<const MemoryEvent*> events;
    for (const MemoryEvent& e : trace_.memory_events)
      if (wanted(e.run_id)) {
        if (e.timestamp > 0) events.push_back(&e);
        else ++layout_.untimed;
      }
    std::stable_sort(events.begin(), events.end(),
                     [](const MemoryEvent* a, const MemoryEvent* b) { return a->timestamp < b->timestamp; });
    std::map<uint32_t, double> in_use;  // by counter index
    for (const MemoryEvent* e : events) {
      Counter& c = counter(device_group(e->pid, e->device, e->run_id), "memory_in_use", "Memory in use", "bytes");
      const uint32_t index = static_cast<uint32_t>(&c - layout_.counters.data());
      double& bytes = in_use[index];
      bytes += e->op == MemoryOp::Alloc ? double(e->bytes) : -double(e->bytes);
      if (bytes < 0) bytes = 0;  // a free of memory allocated before the capture started
      c.points.push_back({e->timestamp, bytes});
      c.end = e->timestamp;
    }
  }

  // GPU-wide samples (--gpu-metrics): one counter per device and metric.
  void add_sample_counters() {
    for (const GpuMetricSample& s : trace_.gpu_metric_samples) {
      if (!wanted(s.run_id)) continue;
      if (!timed(s.start, s.end)) {
        ++layout_.untimed;
        continue;
      }
      const std::string& metric = trace_.strings.get(s.metric);
      const MetricInfo* info = find_metric(metric);
      Counter& c = counter(device_group(s.pid, s.device, s.run_id), metric, info ? std::string(info->label) : metric,
                           info && info->unit == MetricUnit::Percent ? "%" : "");
      c.points.push_back({s.start, s.value});
      c.end = std::max(c.end, s.end);
    }
    for (Counter& c : layout_.counters)
      std::stable_sort(c.points.begin(), c.points.end(),
                       [](const CounterPoint& a, const CounterPoint& b) { return a.time < b.time; });
  }

  Counter& counter(uint32_t group, const std::string& key, const std::string& name, const std::string& unit) {
    auto [it, added] = counters_.try_emplace({group, key}, 0);
    if (added) {
      it->second = static_cast<uint32_t>(layout_.counters.size());
      layout_.counters.push_back({group, name, key, unit, {}, 0});
      layout_.groups[group].counters.push_back(it->second);
    }
    return layout_.counters[it->second];
  }

  void set_time_bounds() {
    TimeNs first = 0, last = 0;
    const auto see = [&](TimeNs start, TimeNs end) {
      if (first == 0 || start < first) first = start;
      last = std::max(last, end);
    };
    for (const Track& t : layout_.tracks) {
      for (const Slice& s : t.slices) see(s.start, s.end);
      for (const Instant& m : t.marks) see(m.time, m.time);
    }
    for (const Counter& c : layout_.counters)
      if (!c.points.empty()) see(c.points.front().time, c.end);
    const bool whole_run = !options_.run_id;
    const TimeNs run_start = whole_run ? trace_.run.start : run_bound(true);
    const TimeNs run_end = whole_run ? trace_.run.end : run_bound(false);
    layout_.origin = run_start > 0 && (first == 0 || run_start <= first) ? run_start : first;
    layout_.end = std::max(last, run_end);
  }

  TimeNs run_bound(bool start) const {
    for (const BenchRun& r : trace_.runs)
      if (r.run_id == *options_.run_id) return start ? r.start : r.end;
    return 0;
  }

  uint32_t intern(const std::string& text) {
    auto [it, added] = names_.try_emplace(text, static_cast<uint32_t>(layout_.names.size()));
    if (added) layout_.names.push_back(text);
    return it->second;
  }
  uint32_t name_of(StringId id) {
    auto [it, added] = trace_names_.try_emplace(id, 0);
    if (added) it->second = intern(trace_.strings.get(id));
    return it->second;
  }

  const Trace& trace_;
  const LayoutOptions& options_;
  Layout layout_;
  // Group and track indices while slices are added (order_groups renumbers groups afterwards).
  std::map<std::pair<uint32_t, uint32_t>, uint32_t> process_groups_;            // (run, pid)
  std::map<std::tuple<uint32_t, uint32_t, uint32_t>, uint32_t> device_groups_;  // (run, pid, device)
  std::map<std::tuple<uint32_t, uint32_t, uint32_t>, uint32_t> tracks_;         // (group, kind, id)
  std::map<std::pair<uint32_t, std::string>, uint32_t> counters_;               // (group, key)
  std::unordered_map<std::string, uint32_t> names_;                             // Layout::names' index
  std::unordered_map<StringId, uint32_t> trace_names_;                          // trace string -> Layout::names
};

}  // namespace

const char* to_string(SliceKind kind) {
  switch (kind) {
    case SliceKind::Kernel: return "kernel";
    case SliceKind::Memcpy: return "gpu_memcpy";
    case SliceKind::Memset: return "gpu_memset";
    case SliceKind::RuntimeApi: return "cuda_runtime";
    case SliceKind::DriverApi: return "cuda_driver";
    case SliceKind::Nvtx: return "user_annotation";
    case SliceKind::Overhead: return "overhead";
    case SliceKind::GraphReplay: return "cuda_graph";
  }
  return "?";
}

Layout layout_tracks(const Trace& trace, const LayoutOptions& options) { return Builder(trace, options).build(); }

uint32_t correlation_of(const Trace& trace, const Layout& layout, const Slice& s) {
  switch (s.kind) {
    case SliceKind::Kernel: return trace.kernels[s.source].correlation_id;
    case SliceKind::Memcpy: return trace.memcpys[s.source].correlation_id;
    case SliceKind::Memset: return trace.memsets[s.source].correlation_id;
    case SliceKind::RuntimeApi:
    case SliceKind::DriverApi: return trace.api_calls[s.source].correlation_id;
    case SliceKind::GraphReplay: return layout.graph_replays[s.source].correlation_id;
    case SliceKind::Nvtx:
    case SliceKind::Overhead: break;
  }
  return 0;
}

}  // namespace gpuscope::tracks
