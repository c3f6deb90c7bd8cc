// Replay of one thread's CUDA calls with changed durations (see retime.h).
#include "analysis/retime.h"

#include <algorithm>
#include <unordered_map>

#include "analysis/grouping.h"

namespace gpuscope::analysis {
namespace {

uint64_t queue_of(uint32_t device, uint32_t stream) { return (static_cast<uint64_t>(device) << 32) | stream; }

using CallTimes = LastByKey<uint32_t, Interval>;  // correlation id -> the replayed call's start, end

}  // namespace

Retimer::Retimer(const Trace& t, const MainThread& mt) : trace_(t), position_(t.api_calls.size(), UINT32_MAX) {
  bool runtime = false;
  for (const ApiCall& c : t.api_calls) runtime |= c.pid == mt.pid && c.tid == mt.tid && c.domain == ApiDomain::Runtime;
  const ApiDomain domain = runtime ? ApiDomain::Runtime : ApiDomain::Driver;
  const ApiClasses classes(t.strings);
  CallTimes call_times;
  calls_.reserve(t.api_calls.size());
  call_times.reserve(t.api_calls.size());
  for (size_t i = 0; i < t.api_calls.size(); ++i) {
    const ApiCall& c = t.api_calls[i];
    if (c.pid != mt.pid || c.tid != mt.tid || c.domain != domain || c.end < c.start) continue;
    calls_.push_back({c.start, c.end, i, c.correlation_id, 0, 0, classes(c.name) == ApiClass::Synchronization});
    call_times.add(c.correlation_id, {c.start, c.end});
  }
  stable_sort_unless_sorted(calls_.begin(), calls_.end(),
                            [](const Call& a, const Call& b) { return a.start < b.start; });
  call_times.seal();
  prepare_ops(mt.pid, call_times);
  for (size_t n = 0; n < calls_.size(); ++n) position_[calls_[n].api_index] = static_cast<uint32_t>(n);
  // Each call's ops: the calls in correlation id order walk along ops_, which is in that order too.
  size_t o = 0;
  for (uint32_t n : stable_order(calls_.size(), [&](size_t n) { return calls_[n].correlation_id; })) {
    Call& c = calls_[n];
    while (o < ops_.size() && ops_[o].correlation_id < c.correlation_id) ++o;
    size_t end = o;
    while (end < ops_.size() && ops_[end].correlation_id == c.correlation_id) ++end;
    c.ops_begin = static_cast<uint32_t>(o), c.ops_end = static_cast<uint32_t>(end);
  }
  unchanged_end_ = replay_end(Scenario{});
  replayed_ids_.reserve(calls_.size());
  for (const Call& c : calls_) replayed_ids_.push_back(c.correlation_id);
  std::sort(replayed_ids_.begin(), replayed_ids_.end());
}

// The GPU work of the process whose correlation id a replayed call has, with its recorded
// latency behind the call and its queue, by correlation id (then start, as recorded).
void Retimer::prepare_ops(uint32_t pid, const CallTimes& call_times) {
  const Trace& t = trace_;
  struct Raw {
    TimeNs start, end;
    Interval call;  // its call's host times
    Op op;
  };
  std::vector<Raw> raw;
  raw.reserve(t.kernels.size() + t.memcpys.size() + t.memsets.size());
  std::unordered_map<uint64_t, uint32_t> queues;  // (device, stream) -> Op::queue; a handful
  auto add = [&](const auto& e, bool blocking, uint32_t memcpy_index, uint32_t kernel_index) {
    if (e.pid != pid) return;
    const Interval* call = call_times.find(e.correlation_id);
    if (!call) return;
    const uint32_t queue = queues.try_emplace(queue_of(e.device, e.stream), queues.size()).first->second;
    raw.push_back({e.start,
                   e.end,
                   *call,
                   {e.end - e.start, 0, 0, e.correlation_id, queue, memcpy_index, kernel_index, blocking}});
  };
  for (size_t i = 0; i < t.kernels.size(); ++i) add(t.kernels[i], false, kNoCopy, static_cast<uint32_t>(i));
  // A copy to or from pageable memory holds its call until the data has gone through the driver's
  // staging buffer, even when called as cudaMemcpyAsync: it blocks like a synchronous copy.
  for (size_t i = 0; i < t.memcpys.size(); ++i) {
    const Memcpy& m = t.memcpys[i];
    add(m, !m.async || detail::host_side(m) == MemoryKind::Pageable, static_cast<uint32_t>(i), kNoCopy);
  }
  for (const Memset& m : t.memsets) add(m, !m.async, kNoCopy, kNoCopy);

  queues_ = queues.size();
  std::vector<TimeNs> prev_end(queues_, 0);  // per queue, in start order
  op_ends_.reserve(raw.size());
  for (uint32_t r : stable_order(raw.size(), [&](size_t i) { return raw[i].start; })) {
    Raw& x = raw[r];
    TimeNs& prev = prev_end[x.op.queue];
    x.op.latency = std::max<TimeNs>(0, x.start - std::max(x.call.start, prev));
    x.op.post = std::max<TimeNs>(0, x.call.end - x.end);
    prev = std::max(prev, x.end);
    op_ends_.push_back(x.end);
  }
  std::sort(op_ends_.begin(), op_ends_.end());
  ops_.reserve(raw.size());
  for (uint32_t r :
       stable_order(raw.size(), [&](size_t i) { return std::make_pair(raw[i].op.correlation_id, raw[i].start); }))
    ops_.push_back(raw[r].op);
}

// The ops of a call's correlation id: the replayed calls have theirs at hand.
Retimer::OpRange Retimer::ops_of(size_t api_index) const {
  if (const uint32_t n = position_[api_index]; n != UINT32_MAX)
    return {ops_.begin() + calls_[n].ops_begin, ops_.begin() + calls_[n].ops_end};
  const uint32_t correlation_id = trace_.api_calls[api_index].correlation_id;
  struct ById {
    bool operator()(const Op& op, uint32_t id) const { return op.correlation_id < id; }
    bool operator()(uint32_t id, const Op& op) const { return id < op.correlation_id; }
  };
  return std::equal_range(ops_.begin(), ops_.end(), correlation_id, ById{});
}

TimeNs Retimer::op_duration(const Op& op, const Scenario& s) {
  if (op.kernel_index != kNoCopy && !s.kernel_ns.empty()) {
    auto k = s.kernel_ns.find(op.kernel_index);
    return k != s.kernel_ns.end() ? k->second : op.duration;
  }
  if (op.memcpy_index == kNoCopy) return op.duration;
  auto m = s.memcpy_ns.find(op.memcpy_index);
  return m != s.memcpy_ns.end() ? m->second : op.duration;
}

// One cudaGraphLaunch standing for g.calls, starting on the host at `start`: queues every
// node of the graph back to back (g.node_gap_ns apart) after g.first_node_ns; returns the
// host time the launch call ends.
TimeNs Retimer::replay_graph(const Scenario& s, const GraphReplay& g, TimeNs start, std::vector<TimeNs>& ready,
                             TimeNs& all_ready) const {
  TimeNs prev_end = -1;
  for (size_t call : g.calls) {
    const auto [lo, hi] = ops_of(call);
    for (auto it = lo; it != hi; ++it) {
      const Op& op = *it;
      const TimeNs earliest = add_saturated(prev_end < 0 ? start : prev_end,
                                            prev_end < 0 ? g.first_node_ns : g.node_gap_ns);
      const TimeNs op_start = std::max(earliest, ready[op.queue]);
      prev_end = ready[op.queue] = add_saturated(op_start, op_duration(op, s));
      all_ready = std::max(all_ready, prev_end);
    }
  }
  return add_saturated(start, g.host_ns);
}

// The thread's last call end in the replay.
TimeNs Retimer::replay_end(const Scenario& s) const {
  if (calls_.empty()) return 0;
  TimeNs cpu = calls_.front().start, prev_orig_end = cpu, all_ready = 0;
  std::vector<TimeNs> ready(queues_, 0);  // per queue: when its last op ends
  // Replay position -> (graph, position in the graph) of each call a graph replaces.
  constexpr uint32_t kNone = UINT32_MAX;
  std::vector<std::pair<uint32_t, uint32_t>> in_graph(s.graphs.empty() ? 0 : calls_.size(), {kNone, 0});
  for (size_t g = 0; g < s.graphs.size(); ++g)
    for (size_t p = 0; p < s.graphs[g].calls.size(); ++p)
      if (const uint32_t n = position_[s.graphs[g].calls[p]]; n != kNone)
        in_graph[n] = {static_cast<uint32_t>(g), static_cast<uint32_t>(p)};
  for (size_t n = 0; n < calls_.size(); ++n) {
    const Call& c = calls_[n];
    const TimeNs start = add_saturated(cpu,
                                       std::max<TimeNs>(0, c.start - prev_orig_end));  // host work kept as recorded
    prev_orig_end = std::max(prev_orig_end, c.end);
    if (!in_graph.empty() && in_graph[n].first != kNone) {
      if (in_graph[n].second == 0) cpu = replay_graph(s, s.graphs[in_graph[n].first], start, ready, all_ready);
      continue;  // later calls of a replayed graph (and the host work between them) are gone
    }
    const auto changed = s.api_ns.find(c.api_index);
    const bool overridden = changed != s.api_ns.end();
    TimeNs end = add_saturated(start, overridden ? changed->second : c.end - c.start);
    bool waited = false;
    for (uint32_t o = c.ops_begin; o < c.ops_end; ++o) {
      const Op& op = ops_[o];
      const TimeNs dur = op_duration(op, s);
      const TimeNs op_start = std::max(add_saturated(start, op.latency), ready[op.queue]);
      ready[op.queue] = add_saturated(op_start, dur);
      all_ready = std::max(all_ready, ready[op.queue]);
      TimeNs post = op.post;
      if (auto m = s.memcpy_post_ns.find(op.memcpy_index); op.memcpy_index != kNoCopy && m != s.memcpy_post_ns.end())
        post = std::min(post, m->second);
      if (op.blocking && !overridden) {
        end = std::max(waited ? end : start, add_saturated(ready[op.queue], post));
        waited = true;
      }
    }
    if (!overridden && c.sync) {
      // Host time after the last GPU work the call saw finish.
      auto last = std::upper_bound(op_ends_.begin(), op_ends_.end(), c.end);
      const TimeNs seen = last == op_ends_.begin() ? c.start : std::max(c.start, *std::prev(last));
      end = add_saturated(std::max(start, all_ready), c.end - seen);
    }
    cpu = end;
  }
  return cpu;
}

TimeNs Retimer::saving(const Scenario& scenario) const {
  return std::max<TimeNs>(0, subtract_saturated(unchanged_end_, replay_end(scenario)));
}

}  // namespace gpuscope::analysis
