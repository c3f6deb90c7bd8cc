// The walk back from a step's end over the dependency graph (critical_path_graph.h). At each point
// the path follows the dependency that released the work last: the one without which it would
// have started or ended earlier.
#include <algorithm>
#include <string>

#include "analysis/critical_path_graph.h"
#include "analysis/grouping.h"

namespace gpuscope::analysis::path_detail {
namespace {

// How far back a synchronization looks for the work that ended it, among the process's work by end.
constexpr size_t kSyncLookback = 256;
// How many collectives back free_start() follows a rank's arrival (a step has a handful in a row).
constexpr int kFreeStartDepth = 8;

std::string op_name(const Trace& t, const GpuOp& op) {
  switch (op.table) {
    case OpTable::Kernel: return t.strings.get(t.kernels[op.index].name);
    case OpTable::Memcpy: return std::string(to_string(t.memcpys[op.index].kind)) + " copy";
    case OpTable::Memset: return "memset";
  }
  return "";
}

class Walker {
 public:
  Walker(const Trace& t, const std::vector<ProcessGraph>& graphs, TimeNs stop) : t_(t), graphs_(graphs), stop_(stop) {}

  std::vector<WalkedSegment> run(size_t graph, uint32_t tid, uint32_t op, TimeNs end) {
    // Each iteration moves to an earlier call or op; the cap only guards against malformed times.
    size_t budget = 16;
    for (const ProcessGraph& g : graphs_) budget += 4 * (g.ops.size() + g.call_of.size());
    State s{graph, tid, op, end};
    while (s.time > stop_ && budget-- > 0) {
      const State next = s.op == kNone ? host_step(s) : gpu_step(s);
      if (next.time > s.time || (next.time == s.time && next.op == s.op && next.tid == s.tid)) break;
      s = next;
    }
    std::reverse(out_.begin(), out_.end());
    return std::move(out_);
  }

 private:
  struct State {
    size_t graph;
    uint32_t tid;  // on the host when op is kNone
    uint32_t op;   // at this op's end (or, after a collective's crossing, at its start)
    TimeNs time;
  };
  static constexpr State kDone{0, 0, kNone, INT64_MIN};

  // Adds [start, end] clipped to the step; merges host work and launch latency with the segment after it.
  void emit(const State& s, SegmentKind kind, TimeNs start, TimeNs end, std::string name, uint32_t op = kNone,
            size_t call = SIZE_MAX) {
    start = std::max(start, stop_);
    if (end <= start) return;
    const ProcessGraph& g = graphs_[s.graph];
    if (!out_.empty() && kind == SegmentKind::HostWork && out_.back().segment.kind == kind &&
        out_.back().graph == s.graph && out_.back().tid == s.tid && out_.back().segment.start == end) {
      out_.back().segment.start = start;
      return;
    }
    WalkedSegment w;
    w.segment = {kind, g.pid, g.rank, start, end, std::move(name), 0};
    w.graph = s.graph, w.tid = s.tid, w.op = op, w.call = call, w.lead_ns = lead_;
    out_.push_back(std::move(w));
  }

  // On a host thread at s.time: the host work since its last call, then that call.
  State host_step(const State& s) {
    const ProcessGraph& g = graphs_[s.graph];
    const auto thread = g.thread_calls.find(s.tid);
    const std::vector<size_t> none;
    const std::vector<size_t>& calls = thread == g.thread_calls.end() ? none : thread->second;
    auto it = std::lower_bound(calls.begin(), calls.end(), s.time,
                               [&](size_t i, TimeNs v) { return t_.api_calls[i].start < v; });
    if (it == calls.begin()) {
      emit(s, SegmentKind::HostWork, stop_, s.time, "");
      return kDone;
    }
    const size_t index = *std::prev(it);
    const ApiCall& c = t_.api_calls[index];
    TimeNs at = s.time;
    if (c.end < at) emit(s, SegmentKind::HostWork, c.end, at, ""), at = c.end;
    if (const uint32_t op = releasing_op(g, c, at); op != kNone) {
      emit(s, SegmentKind::Wait, g.ops[op].end, at, t_.strings.get(c.name), kNone, index);
      return {s.graph, 0, op, g.ops[op].end};
    }
    emit(s, SegmentKind::HostWork, c.start, at, "");
    return {s.graph, s.tid, kNone, c.start};
  }

  // The GPU work that ended a blocking call at `at`: its own blocking copy, or for a
  // synchronization the work (of its stream, for a stream synchronization) that ended last in it.
  uint32_t releasing_op(const ProcessGraph& g, const ApiCall& c, TimeNs at) const {
    if (const auto work = g.work_of.find(c.correlation_id); work != g.work_of.end()) {
      uint32_t last = kNone;
      for (uint32_t op : work->second)
        if (g.ops[op].blocking && g.ops[op].end <= at && (last == kNone || g.ops[op].end > g.ops[last].end)) last = op;
      if (last != kNone || !detail::is_blocking_sync(t_.strings.get(c.name))) return last;
    }
    if (!detail::is_blocking_sync(t_.strings.get(c.name))) return kNone;
    const auto sync = g.sync_of.find(c.correlation_id);
    // A stream synchronization waits for its stream's work, when the capture tells the stream.
    const bool one_stream = sync != g.sync_of.end() && sync->second->kind == SyncKind::StreamSynchronize &&
                            std::binary_search(g.streams.begin(), g.streams.end(), sync->second->stream);
    auto it = std::upper_bound(g.by_end.begin(), g.by_end.end(), at,
                               [](TimeNs v, const EndedOp& op) { return v < op.end; });
    for (size_t looked = 0; it != g.by_end.begin() && looked < kSyncLookback; ++looked) {
      --it;
      if (it->end <= c.start) break;
      if (!one_stream || g.ops[it->id].stream == sync->second->stream) return it->id;
    }
    return kNone;
  }

  // At an op at s.time: the op itself, then what released it.
  State gpu_step(const State& s) {
    const ProcessGraph& g = graphs_[s.graph];
    const GpuOp& op = g.ops[s.op];
    if (op.kind == SegmentKind::Collective) {
      // The last rank to arrive released everyone: the path goes on from its kernel's start.
      uint64_t last = op_ref(s.graph, s.op);
      TimeNs latest = op.start;
      for (uint64_t ref : op.matched)
        if (const TimeNs start = op_at(ref).start; start > latest) latest = start, last = ref;
      // The other ranks' earliest arrival had the last rank not held up their earlier collectives.
      TimeNs next = INT64_MIN;
      for (uint64_t ref : op.matched)
        if (ref != last) next = std::max(next, free_start(ref, kFreeStartDepth));
      if (last != op_ref(s.graph, s.op)) next = std::max(next, free_start(op_ref(s.graph, s.op), kFreeStartDepth));
      const bool crossed = last != op_ref(s.graph, s.op);
      emit(s, SegmentKind::Collective, crossed ? latest : op.start, s.time, op_name(t_, op), s.op);
      // Shrinking work before the operation helps until the next latest rank binds: the last
      // rank's lead here. Later collectives do not bound it further (both sides move together).
      if (next != INT64_MIN) lead_ = latest - next;
      return released({last >> 32, 0, static_cast<uint32_t>(last), latest});
    }
    emit(s, op.kind, op.start, s.time, op_name(t_, op), s.op);
    return released({s.graph, 0, s.op, op.start});
  }

  // What released the op of `s` to start at s.time: the op before it on its stream, the other
  // stream's work it waited for, or its launch call, whichever came last.
  State released(const State& s) {
    const ProcessGraph& g = graphs_[s.graph];
    const GpuOp& op = g.ops[s.op];
    const ApiCall* call = g.call_of_op(t_, s.op);
    const TimeNs stream_release = op.prev == kNone ? INT64_MIN : g.ops[op.prev].end;
    const TimeNs launch_release = call ? std::min(call->end, s.time) : INT64_MIN;
    const uint32_t other = g.waited_for(t_, s.op);
    const TimeNs event_release = other != kNone ? g.ops[other].end : INT64_MIN;
    if (stream_release != INT64_MIN && stream_release >= event_release && stream_release >= launch_release) {
      emit(s, SegmentKind::LaunchLatency, stream_release, s.time, "", s.op);
      return {s.graph, 0, op.prev, stream_release};
    }
    if (other != kNone && event_release >= launch_release) {
      emit(s, SegmentKind::Wait, event_release, s.time, "stream wait", s.op);
      return {s.graph, 0, other, event_release};
    }
    if (!call) {
      emit(s, SegmentKind::HostWork, stop_, s.time, "");
      return kDone;
    }
    emit(s, SegmentKind::LaunchLatency, call->start, s.time, "", s.op);
    return {s.graph, call->tid, kNone, call->start};
  }

  const GpuOp& op_at(uint64_t ref) const { return graphs_[ref >> 32].ops[static_cast<uint32_t>(ref)]; }

  // When the op could have started without waiting for a collective's last arrival: the latest
  // of its launch call's return and, for the work before it on its stream (or on the stream it
  // waited on), when that work could have started plus its own time (a collective's: from the
  // last arrival to its end), followed back kFreeStartDepth ops. Work the last rank held up
  // moves with it, so it does not bound how much that rank's work can gain.
  TimeNs free_start(uint64_t ref, int depth) const {
    const ProcessGraph& g = graphs_[ref >> 32];
    const GpuOp& op = op_at(ref);
    const ApiCall* call = g.call_of_op(t_, static_cast<uint32_t>(ref));
    TimeNs free = call ? std::min(call->end, op.start) : INT64_MIN;
    auto behind = [&](uint32_t before) {
      const GpuOp& p = g.ops[before];
      if (depth == 0) return p.end;
      // Its own time after it could start: for a collective, the transfer (last arrival to end).
      TimeNs arrival = p.start;
      for (uint64_t m : p.matched) arrival = std::max(arrival, op_at(m).start);
      return add_saturated(free_start(op_ref(ref >> 32, before), depth - 1), p.end - arrival);
    };
    if (op.prev != kNone) free = std::max(free, behind(op.prev));
    if (const uint32_t other = g.waited_for(t_, static_cast<uint32_t>(ref)); other != kNone)
      free = std::max(free, behind(other));
    return std::min(free, op.start);
  }

  const Trace& t_;
  const std::vector<ProcessGraph>& graphs_;
  const TimeNs stop_;
  TimeNs lead_ = INT64_MAX;
  std::vector<WalkedSegment> out_;
};

}  // namespace

std::vector<WalkedSegment> walk_back(const Trace& trace, const std::vector<ProcessGraph>& graphs, size_t graph,
                                     uint32_t tid, uint32_t op, TimeNs stop, TimeNs end) {
  return Walker(trace, graphs, stop).run(graph, tid, op, end);
}

}  // namespace gpuscope::analysis::path_detail
