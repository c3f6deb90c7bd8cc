// The GPU-side re-timing of a step the GPU bounds (critical_path_replay.h).
#include "analysis/critical_path_replay.h"

#include <algorithm>

#include "analysis/grouping.h"
#include "analysis/timeline_util.h"

namespace gpuscope::analysis::path_detail {

GpuWindowReplay::GpuWindowReplay(const Trace& t, const ProcessGraph& g, TimeNs from, TimeNs to, TimeNs launched_from,
                                 TimeNs launched_to, uint32_t tid, TimeNs host_end)
    : tid_(tid), host_end_(host_end) {
  const auto [first, past] = g.ops_around(from, to);
  std::unordered_map<uint32_t, uint32_t> node_of;  // op -> its node
  for (size_t o = first; o < past; ++o) {
    const GpuOp& op = g.ops[o];
    if (op.end <= from) continue;
    Node n;
    n.op = static_cast<uint32_t>(o);
    n.duration = op.end - op.start;
    TimeNs released = INT64_MIN;
    if (const ApiCall* call = g.call_of_op(t, n.op)) {
      n.call_end = std::min(call->end, op.start), n.call_start = call->start, n.call_tid = call->tid;
      n.own = call->start >= launched_from && call->start < launched_to;
      released = n.call_end;
    }
    auto link = [&](uint32_t before, uint32_t& node, TimeNs& fixed_end) {
      if (before == kNone) return;
      released = std::max(released, g.ops[before].end);
      if (const auto it = node_of.find(before); it != node_of.end()) node = it->second;
      else fixed_end = g.ops[before].end;
    };
    link(op.prev, n.prev, n.prev_end);
    link(g.waited_for(t, n.op), n.waited, n.waited_end);
    n.gap = released == INT64_MIN ? 0 : std::max<TimeNs>(0, op.start - released);
    if (released == INT64_MIN) n.call_start = n.call_end = op.start;  // nothing released it: it keeps its start
    node_of.emplace(n.op, static_cast<uint32_t>(nodes_.size()));
    nodes_.push_back(n);
  }
}

TimeNs GpuWindowReplay::cut(const GpuScenario& s, uint32_t tid, TimeNs at) {
  TimeNs ns = 0;
  for (const HostCut& c : s.cuts)
    if (c.tid == tid && c.at <= at) ns += c.ns;
  return ns;
}

TimeNs GpuWindowReplay::end(const GpuScenario& s) const {
  std::vector<TimeNs> ends(nodes_.size());
  TimeNs done = host_end_ - cut(s, tid_, host_end_);
  for (size_t i = 0; i < nodes_.size(); ++i) {
    const Node& n = nodes_[i];
    TimeNs released = INT64_MIN;
    if (n.call_end != INT64_MIN) {
      const auto launch = s.launch_ns.find(n.op);
      const TimeNs call_ns = n.call_end - n.call_start;
      released = n.call_start + (launch == s.launch_ns.end() ? call_ns : std::min(call_ns, launch->second)) -
                 cut(s, n.call_tid, n.call_start);
    }
    released = std::max(released, n.prev == kFixed ? n.prev_end : ends[n.prev]);
    released = std::max(released, n.waited == kFixed ? n.waited_end : ends[n.waited]);
    const auto gap = s.gap_ns.find(n.op);
    const auto duration = s.op_ns.find(n.op);
    ends[i] = add_saturated(add_saturated(released, gap == s.gap_ns.end() ? n.gap : std::min(n.gap, gap->second)),
                            duration == s.op_ns.end() ? n.duration : duration->second);
    if (n.own) done = std::max(done, ends[i]);
  }
  return done;
}

StepRetime::StepRetime(const Trace& t, const ProcessGraph& g, const Step& step, const Retimer* host_replay, TimeNs from,
                       TimeNs to)
    : t_(t), g_(g), retimer_(host_replay), step_(step) {
  if (!retimer_) gpu_.emplace(t, g, from, to, step.start, step.end, step.tid, step.end);
  unchanged_ = gpu_ ? gpu_->end({}) : retimer_->end_within(Scenario{}, step.start, step.end);
}

TimeNs StepRetime::saving(const StepScenario& s) const {
  const TimeNs end = gpu_ ? gpu_->end(s.gpu) : retimer_->end_within(s.host, step_.start, step_.end);
  return std::max<TimeNs>(0, subtract_saturated(unchanged_, end));
}

void StepRetime::zero_op(StepScenario& s, uint32_t op) const {
  const GpuOp& o = g_.ops[op];
  if (o.table == OpTable::Kernel) s.host.kernel_ns[o.index] = 0;
  if (o.table == OpTable::Memcpy) s.host.memcpy_ns[o.index] = 0;
  if (o.table == OpTable::Memset) s.host.memset_ns[o.index] = 0;
  s.gpu.op_ns[op] = 0;
}

void StepRetime::shrink(StepScenario& s, const WalkedSegment& w) const {
  const PathSegment& seg = w.segment;
  switch (seg.kind) {
    case SegmentKind::Kernel:
    case SegmentKind::Copy:
    case SegmentKind::Collective: zero_op(s, w.op); break;
    case SegmentKind::LaunchLatency:  // behind its stream, or from its launch call's start
      s.host.latency_ns[g_.ops[w.op].correlation_id] = 0;
      s.gpu.gap_ns[w.op] = 0;
      s.gpu.launch_ns[w.op] = 0;
      break;
    case SegmentKind::Wait:
      if (w.call == SIZE_MAX) {  // on the GPU, behind another stream
        s.host.latency_ns[g_.ops[w.op].correlation_id] = 0;
        s.gpu.gap_ns[w.op] = 0;
        break;
      }
      // On the host: the calls after the blocking one return that much earlier.
      s.gpu.cuts.push_back({t_.api_calls[w.call].tid, seg.end, seg.length()});
      if (detail::is_blocking_sync(t_.strings.get(t_.api_calls[w.call].name))) {
        s.host.sync_tail_ns[w.call] = 0;
      } else if (const auto work = g_.work_of.find(t_.api_calls[w.call].correlation_id); work != g_.work_of.end()) {
        for (uint32_t op : work->second)
          if (g_.ops[op].table == OpTable::Memcpy) s.host.memcpy_post_ns[g_.ops[op].index] = 0;
      }
      break;
    case SegmentKind::HostWork:
      s.gpu.cuts.push_back({w.tid, seg.end, seg.length()});
      shrink_host(s.host, w.tid, seg.start, seg.end);
      break;
  }
}

// The host work in [a, b] on thread tid: the time between its calls and inside them, as the
// retimer sees it (from the step's start; after its last call, the window's tail).
void StepRetime::shrink_host(Scenario& s, uint32_t tid, TimeNs a, TimeNs b) const {
  const auto thread = g_.thread_calls.find(tid);
  if (tid != step_.tid || thread == g_.thread_calls.end()) return;
  TimeNs prev_end = step_.start;
  for (size_t i : thread->second) {
    const ApiCall& c = t_.api_calls[i];
    if (c.start < step_.start) continue;
    if (c.start >= step_.end) break;
    if (const TimeNs o = overlap_within(prev_end, c.start, a, b); o > 0) s.host_gap_ns[i] = c.start - prev_end - o;
    if (const TimeNs o = overlap_within(c.start, c.end, a, b); o > 0) s.api_ns[i] = c.end - c.start - o;
    prev_end = std::max(prev_end, c.end);
  }
  if (const TimeNs o = overlap_within(prev_end, step_.end, a, b); o > 0) s.tail_ns = step_.end - prev_end - o;
}

}  // namespace gpuscope::analysis::path_detail
