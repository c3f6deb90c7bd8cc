// Replay of one thread's CUDA calls with changed durations (see retime.h).
#include "analysis/retime.h"

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <unordered_map>

#include "analysis/grouping.h"
#include "analysis/stream_waits.h"

namespace gpuscope::analysis {
namespace {

using CallTimes = LastByKey<uint32_t, Interval>;  // correlation id -> the replayed call's start, end

}  // namespace

Retimer::Retimer(const Trace& t, const MainThread& mt, RetimeOptions options)
    : trace_(t), position_(t.api_calls.size(), UINT32_MAX) {
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
    // Following stream waits, a call that only queues a wait (cudaStreamWaitEvent) or asks
    // (cudaStreamQuery) does not hold the host: only *Synchronize calls do.
    const bool sync = classes(c.name) == ApiClass::Synchronization &&
                      (!options.follow_stream_waits || detail::is_blocking_sync(t.strings.get(c.name)));
    calls_.push_back({c.start, c.end, i, c.correlation_id, 0, 0, sync});
    call_times.add(c.correlation_id, {c.start, c.end});
  }
  stable_sort_unless_sorted(calls_.begin(), calls_.end(),
                            [](const Call& a, const Call& b) { return a.start < b.start; });
  call_times.seal();
  prepare_ops(mt.pid, call_times, options.follow_stream_waits);
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
  if (options.step_windows) prepare_seeds();
  unchanged_end_ = replay_end(Scenario{}).host;
  replayed_ids_.reserve(calls_.size());
  for (const Call& c : calls_) replayed_ids_.push_back(c.correlation_id);
  std::sort(replayed_ids_.begin(), replayed_ids_.end());
}

// The GPU work of the process whose correlation id a replayed call has, with its recorded
// latency behind the call and its queue, by correlation id (then start, as recorded).
void Retimer::prepare_ops(uint32_t pid, const CallTimes& call_times, bool follow_stream_waits) {
  const Trace& t = trace_;
  struct Raw {
    TimeNs start, end;
    Interval call;  // its call's host times
    Op op;
    uint32_t stream;
    uint64_t queue_key;
  };
  std::vector<Raw> raw;
  raw.reserve(t.kernels.size() + t.memcpys.size() + t.memsets.size());
  std::unordered_map<uint64_t, uint32_t> queues;  // (device, stream) -> Op::queue; a handful
  auto add = [&](const auto& e, bool blocking, uint32_t memcpy_index, uint32_t kernel_index,
                 uint32_t memset_index = kNoCopy) {
    if (e.pid != pid) return;
    const Interval* call = call_times.find(e.correlation_id);
    if (!call) return;
    const uint64_t key = queue_of(e.device, e.stream);
    const uint32_t queue = queues.try_emplace(key, queues.size()).first->second;
    Op op{e.end - e.start, 0, 0, e.correlation_id, queue, memcpy_index, kernel_index};
    op.memset_index = memset_index, op.end = e.end, op.blocking = blocking;
    raw.push_back({e.start, e.end, *call, op, e.stream, key});
  };
  for (size_t i = 0; i < t.kernels.size(); ++i) add(t.kernels[i], false, kNoCopy, static_cast<uint32_t>(i));
  // A copy to or from pageable memory holds its call until the data has gone through the driver's
  // staging buffer, even when called as cudaMemcpyAsync: it blocks like a synchronous copy.
  for (size_t i = 0; i < t.memcpys.size(); ++i) {
    const Memcpy& m = t.memcpys[i];
    add(m, detail::holds_its_call(m), static_cast<uint32_t>(i), kNoCopy);
  }
  for (size_t i = 0; i < t.memsets.size(); ++i)
    add(t.memsets[i], !t.memsets[i].async, kNoCopy, kNoCopy, static_cast<uint32_t>(i));

  queues_ = queues.size();
  std::optional<StreamWaits> waits;
  if (follow_stream_waits) waits.emplace(t, pid);
  std::vector<EndedOp> by_end;  // for the stream waits: raw ops by end
  if (waits && !waits->empty()) {
    for (size_t i = 0; i < raw.size(); ++i) by_end.push_back({raw[i].end, raw[i].queue_key, static_cast<uint32_t>(i)});
    std::stable_sort(by_end.begin(), by_end.end(), [](const EndedOp& a, const EndedOp& b) { return a.end < b.end; });
  }
  std::vector<TimeNs> prev_end(queues_, 0);                                    // per queue, in start order
  std::vector<TimeNs> prev_call(queues_, std::numeric_limits<TimeNs>::min());  // its launch call's start
  op_ends_.reserve(raw.size());
  for (uint32_t r : stable_order(raw.size(), [&](size_t i) { return raw[i].start; })) {
    Raw& x = raw[r];
    TimeNs& prev = prev_end[x.op.queue];
    TimeNs released = std::max(x.call.start, prev);
    // A wait put on the stream since its previous launch: the other stream's op it waited for,
    // kept even when it ended first (a change elsewhere can make it the one that releases the op).
    if (!by_end.empty() && waits->waited(x.stream, prev_call[x.op.queue], x.call.start)) {
      if (const EndedOp* other = last_ended_elsewhere(by_end, x.queue_key, x.start)) {
        released = std::max(released, other->end);
        x.op.after = other->id;
      }
    }
    x.op.latency = std::max<TimeNs>(0, x.start - released);
    x.op.post = std::max<TimeNs>(0, x.call.end - x.end);
    prev = std::max(prev, x.end);
    prev_call[x.op.queue] = x.call.start;
    op_ends_.push_back(x.end);
  }
  std::sort(op_ends_.begin(), op_ends_.end());
  ops_.reserve(raw.size());
  std::vector<uint32_t> final_index(raw.size());
  for (uint32_t r :
       stable_order(raw.size(), [&](size_t i) { return std::make_pair(raw[i].op.correlation_id, raw[i].start); })) {
    final_index[r] = static_cast<uint32_t>(ops_.size());
    ops_.push_back(raw[r].op);
  }
  for (Op& op : ops_)
    if (op.after != kNoCopy) op.after = final_index[op.after], ops_[op.after].waited_on = true;
}

// Per queue, the latest recorded end of the ops launched so far, by launch call start.
void Retimer::prepare_seeds() {
  seeds_.assign(queues_, {});
  for (const Call& c : calls_)
    for (uint32_t o = c.ops_begin; o < c.ops_end; ++o) {
      auto& seeds = seeds_[ops_[o].queue];
      seeds.emplace_back(c.start, std::max(ops_[o].end, seeds.empty() ? ops_[o].end : seeds.back().second));
    }
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
  if (op.memset_index != kNoCopy) {
    auto m = s.memset_ns.find(op.memset_index);
    return m != s.memset_ns.end() ? m->second : op.duration;
  }
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
                             TimeNs& all_ready, TimeNs& launched_end) const {
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
      launched_end = std::max(launched_end, prev_end);
    }
  }
  return add_saturated(start, g.host_ns);
}

// The thread's last call end in the replay; with a window, the host time it reaches `until`
// replaying only the calls that start in [from, until). With either, when their GPU work ends.
Retimer::Ends Retimer::replay_end(const Scenario& s, TimeNs from, TimeNs until) const {
  const auto first = std::lower_bound(calls_.begin(), calls_.end(), from,
                                      [](const Call& c, TimeNs t) { return c.start < t; });
  const bool windowed = until != kNoLimit;
  if (first == calls_.end() || first->start >= until) return {windowed ? until : 0};
  const bool from_start = first == calls_.begin() && !windowed;
  TimeNs cpu = from_start ? first->start : from, prev_orig_end = cpu, all_ready = 0;
  TimeNs launched_end = std::numeric_limits<TimeNs>::min();  // of the replayed calls' GPU work
  std::vector<TimeNs> ready(queues_, 0);                     // per queue: when its last op ends
  if (!from_start)  // the work launched before the window holds its queue until its recorded end
    for (size_t q = 0; q < queues_; ++q) {
      const auto& seeds = seeds_[q];
      auto it = std::lower_bound(seeds.begin(), seeds.end(), std::pair{first->start, TimeNs{0}},
                                 [](const auto& a, const auto& b) { return a.first < b.first; });
      if (it != seeds.begin()) ready[q] = std::prev(it)->second, all_ready = std::max(all_ready, ready[q]);
    }
  // Replayed ends of the ops other streams waited for (Op::after), by ops_ index.
  std::unordered_map<uint32_t, TimeNs> waited_ends;
  // Replay position -> (graph, position in the graph) of each call a graph replaces.
  constexpr uint32_t kNone = UINT32_MAX;
  std::vector<std::pair<uint32_t, uint32_t>> in_graph(s.graphs.empty() ? 0 : calls_.size(), {kNone, 0});
  for (size_t g = 0; g < s.graphs.size(); ++g)
    for (size_t p = 0; p < s.graphs[g].calls.size(); ++p)
      if (const uint32_t n = position_[s.graphs[g].calls[p]]; n != kNone)
        in_graph[n] = {static_cast<uint32_t>(g), static_cast<uint32_t>(p)};
  for (size_t n = static_cast<size_t>(first - calls_.begin()); n < calls_.size() && calls_[n].start < until; ++n) {
    const Call& c = calls_[n];
    TimeNs gap = std::max<TimeNs>(0, c.start - prev_orig_end);  // host work kept as recorded
    if (auto g = s.host_gap_ns.find(c.api_index); g != s.host_gap_ns.end()) gap = std::min(gap, g->second);
    const TimeNs start = add_saturated(cpu, gap);
    prev_orig_end = std::max(prev_orig_end, c.end);
    if (!in_graph.empty() && in_graph[n].first != kNone) {
      if (in_graph[n].second == 0)
        cpu = replay_graph(s, s.graphs[in_graph[n].first], start, ready, all_ready, launched_end);
      continue;  // later calls of a replayed graph (and the host work between them) are gone
    }
    const auto changed = s.api_ns.find(c.api_index);
    const bool overridden = changed != s.api_ns.end();
    TimeNs end = add_saturated(start, overridden ? changed->second : c.end - c.start);
    bool waited = false;
    for (uint32_t o = c.ops_begin; o < c.ops_end; ++o) {
      const Op& op = ops_[o];
      const TimeNs dur = op_duration(op, s);
      TimeNs latency = op.latency;
      if (auto l = s.latency_ns.find(op.correlation_id); l != s.latency_ns.end())
        latency = std::min(latency, l->second);
      TimeNs op_start = std::max(add_saturated(start, latency), ready[op.queue]);
      if (op.after != kNoCopy) {  // and behind the work of another stream it waited for
        const auto w = waited_ends.find(op.after);
        op_start = std::max(op_start, add_saturated(w != waited_ends.end() ? w->second : ops_[op.after].end, latency));
      }
      ready[op.queue] = add_saturated(op_start, dur);
      if (op.waited_on) waited_ends[o] = ready[op.queue];
      all_ready = std::max(all_ready, ready[op.queue]);
      launched_end = std::max(launched_end, ready[op.queue]);
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
      TimeNs tail = c.end - seen;
      if (auto t = s.sync_tail_ns.find(c.api_index); t != s.sync_tail_ns.end()) tail = std::min(tail, t->second);
      end = add_saturated(std::max(start, all_ready), tail);
    }
    cpu = end;
  }
  if (!windowed) return {cpu, launched_end};
  const TimeNs tail = std::max<TimeNs>(0, until - prev_orig_end);  // host work after the window's last call
  return {add_saturated(cpu, s.tail_ns ? std::min(tail, *s.tail_ns) : tail), launched_end};
}

TimeNs Retimer::saving(const Scenario& scenario) const {
  return std::max<TimeNs>(0, subtract_saturated(unchanged_end_, replay_end(scenario).host));
}

TimeNs Retimer::saving_within(const Scenario& scenario, TimeNs from, TimeNs until) const {
  return std::max<TimeNs>(0,
                          subtract_saturated(end_within(Scenario{}, from, until), end_within(scenario, from, until)));
}

TimeNs Retimer::end_within(const Scenario& scenario, TimeNs from, TimeNs until) const {
  if (seeds_.size() != queues_) throw std::logic_error("Retimer: a step window needs RetimeOptions::step_windows");
  const Ends ends = replay_end(scenario, from, until);
  return std::max(ends.host, ends.gpu);
}

}  // namespace gpuscope::analysis
