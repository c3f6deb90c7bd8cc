// Replay of one thread's CUDA calls with changed durations (see retime.h).
#include "analysis/retime.h"

#include <algorithm>
#include <map>
#include <unordered_map>

namespace gpuscope::analysis {
namespace {

struct Op {
  TimeNs start = 0, end = 0;
  uint64_t queue = 0;      // (device << 32) | stream
  TimeNs latency = 0;      // start - max(call start, previous op end on its queue), as recorded
  TimeNs post = 0;         // blocking copy: call end - op end (host work after the copy)
  bool blocking = false;   // a synchronous copy/memset: its call waits for it
  size_t memcpy_index = SIZE_MAX;
};

struct Replay {
  const Trace& t;
  std::vector<const ApiCall*> calls;
  std::vector<size_t> call_index;               // into t.api_calls
  std::multimap<uint32_t, Op> ops;              // by correlation id
  std::vector<TimeNs> op_ends;                  // sorted, for sync waits
};

uint64_t queue_of(uint32_t device, uint32_t stream) { return (static_cast<uint64_t>(device) << 32) | stream; }

Replay prepare(const Trace& t, const MainThread& mt) {
  Replay r{t, {}, {}, {}, {}};
  bool runtime = false;
  for (const ApiCall& c : t.api_calls) runtime |= c.pid == mt.pid && c.tid == mt.tid && c.domain == ApiDomain::Runtime;
  const ApiDomain domain = runtime ? ApiDomain::Runtime : ApiDomain::Driver;
  std::unordered_map<uint32_t, TimeNs> call_start;  // correlation -> call start
  std::unordered_map<uint32_t, TimeNs> call_end;
  for (size_t i = 0; i < t.api_calls.size(); ++i) {
    const ApiCall& c = t.api_calls[i];
    if (c.pid != mt.pid || c.tid != mt.tid || c.domain != domain || c.end < c.start) continue;
    r.call_index.push_back(i);
    call_start[c.correlation_id] = c.start;
    call_end[c.correlation_id] = c.end;
  }
  std::stable_sort(r.call_index.begin(), r.call_index.end(),
                   [&](size_t a, size_t b) { return t.api_calls[a].start < t.api_calls[b].start; });
  for (size_t i : r.call_index) r.calls.push_back(&t.api_calls[i]);

  struct Raw { Op op; uint32_t corr; };
  std::vector<Raw> raw;
  for (const auto& k : t.kernels)
    if (k.pid == mt.pid && call_start.count(k.correlation_id)) raw.push_back({{k.start, k.end, queue_of(k.device, k.stream)}, k.correlation_id});
  for (size_t i = 0; i < t.memcpys.size(); ++i) {
    const Memcpy& m = t.memcpys[i];
    if (m.pid != mt.pid || !call_start.count(m.correlation_id)) continue;
    Op op{m.start, m.end, queue_of(m.device, m.stream)};
    op.blocking = !m.async;
    op.memcpy_index = i;
    raw.push_back({op, m.correlation_id});
  }
  for (const auto& m : t.memsets)
    if (m.pid == mt.pid && call_start.count(m.correlation_id)) {
      Op op{m.start, m.end, queue_of(m.device, m.stream)};
      op.blocking = !m.async;
      raw.push_back({op, m.correlation_id});
    }
  std::stable_sort(raw.begin(), raw.end(), [](const Raw& a, const Raw& b) { return a.op.start < b.op.start; });
  std::map<uint64_t, TimeNs> prev_end;
  for (Raw& x : raw) {
    const TimeNs ready = std::max(call_start[x.corr], prev_end[x.op.queue]);
    x.op.latency = std::max<TimeNs>(0, x.op.start - ready);
    x.op.post = std::max<TimeNs>(0, call_end[x.corr] - x.op.end);
    prev_end[x.op.queue] = std::max(prev_end[x.op.queue], x.op.end);
    r.op_ends.push_back(x.op.end);
    r.ops.emplace(x.corr, x.op);
  }
  std::sort(r.op_ends.begin(), r.op_ends.end());
  return r;
}

TimeNs op_duration(const Op& op, const Scenario& s) {
  if (auto m = s.memcpy_ns.find(op.memcpy_index); op.memcpy_index != SIZE_MAX && m != s.memcpy_ns.end()) return m->second;
  return op.end - op.start;
}

// One cudaGraphLaunch standing for g.calls, starting on the host at `start`: queues every
// node of the graph back to back (g.node_gap_ns apart) after g.first_node_ns; returns the
// host time the launch call ends.
TimeNs replay_graph(const Replay& r, const Scenario& s, const GraphReplay& g, TimeNs start,
                    std::map<uint64_t, TimeNs>& ready, TimeNs& all_ready) {
  TimeNs prev_end = -1;
  for (size_t call : g.calls) {
    auto [lo, hi] = r.ops.equal_range(r.t.api_calls[call].correlation_id);
    for (auto it = lo; it != hi; ++it) {
      const Op& op = it->second;
      const TimeNs earliest = prev_end < 0 ? start + g.first_node_ns : prev_end + g.node_gap_ns;
      const TimeNs op_start = std::max(earliest, ready[op.queue]);
      prev_end = ready[op.queue] = op_start + op_duration(op, s);
      all_ready = std::max(all_ready, prev_end);
    }
  }
  return start + g.host_ns;
}

// The thread's last call end in the replay.
TimeNs replay_end(const Replay& r, const Scenario& s) {
  if (r.calls.empty()) return 0;
  TimeNs cpu = r.calls.front()->start, prev_orig_end = cpu, all_ready = 0;
  std::map<uint64_t, TimeNs> ready;
  std::unordered_map<size_t, std::pair<size_t, size_t>> in_graph;  // api index -> (graph, position)
  for (size_t g = 0; g < s.graphs.size(); ++g)
    for (size_t p = 0; p < s.graphs[g].calls.size(); ++p) in_graph[s.graphs[g].calls[p]] = {g, p};
  for (size_t n = 0; n < r.calls.size(); ++n) {
    const ApiCall& c = *r.calls[n];
    const TimeNs start = cpu + std::max<TimeNs>(0, c.start - prev_orig_end);  // host work kept as recorded
    prev_orig_end = std::max(prev_orig_end, c.end);
    if (auto g = in_graph.find(r.call_index[n]); g != in_graph.end()) {
      if (g->second.second == 0) cpu = replay_graph(r, s, s.graphs[g->second.first], start, ready, all_ready);
      continue;  // later calls of a replayed graph (and the host work between them) are gone
    }
    const auto changed = s.api_ns.find(r.call_index[n]);
    const bool overridden = changed != s.api_ns.end();
    TimeNs end = start + (overridden ? changed->second : c.end - c.start);
    bool waited = false;
    auto [lo, hi] = r.ops.equal_range(c.correlation_id);
    for (auto it = lo; it != hi; ++it) {
      const Op& op = it->second;
      const TimeNs dur = op_duration(op, s);
      const TimeNs op_start = std::max(start + op.latency, ready[op.queue]);
      ready[op.queue] = op_start + dur;
      all_ready = std::max(all_ready, op_start + dur);
      TimeNs post = op.post;
      if (auto m = s.memcpy_post_ns.find(op.memcpy_index); op.memcpy_index != SIZE_MAX && m != s.memcpy_post_ns.end())
        post = std::min(post, m->second);
      if (op.blocking && !overridden) {
        end = std::max(waited ? end : start, op_start + dur + post);
        waited = true;
      }
    }
    if (!overridden && classify_api(r.t.strings.get(c.name)) == ApiClass::Synchronization) {
      // Host time after the last GPU work the call saw finish.
      auto last = std::upper_bound(r.op_ends.begin(), r.op_ends.end(), c.end);
      const TimeNs seen = last == r.op_ends.begin() ? c.start : std::max(c.start, *std::prev(last));
      end = std::max(start, all_ready) + (c.end - seen);
    }
    cpu = end;
  }
  return cpu;
}

}  // namespace

TimeNs retime_saving(const Trace& trace, const MainThread& thread, const Scenario& scenario) {
  const Replay r = prepare(trace, thread);
  return std::max<TimeNs>(0, replay_end(r, Scenario{}) - replay_end(r, scenario));
}

}  // namespace gpuscope::analysis
