// One process's dependency graph and the collectives matched across ranks (critical_path_graph.h).
#include "analysis/critical_path_graph.h"

#include <algorithm>
#include <string>

#include "analysis/grouping.h"
#include "gpuscope/analysis_ranks.h"
#include "gpuscope/analysis_stats.h"

namespace gpuscope::analysis::path_detail {

ProcessGraph::ProcessGraph(const Trace& t, uint32_t pid_, int32_t rank_) : pid(pid_), rank(rank_), waits(t, pid_) {
  auto add = [&](const auto& e, SegmentKind kind, OpTable table, size_t index, bool blocking) {
    if (e.pid != pid || e.end < e.start) return;
    GpuOp op;
    op.start = e.start, op.end = e.end, op.queue = queue_of(e.device, e.stream), op.stream = e.stream;
    op.kind = kind, op.table = table, op.index = static_cast<uint32_t>(index);
    op.correlation_id = e.correlation_id, op.blocking = blocking;
    ops.push_back(std::move(op));
  };
  for (size_t i = 0; i < t.kernels.size(); ++i) {
    const bool comm = classify_collective(t.strings.get(t.kernels[i].name)) != Collective::None;
    add(t.kernels[i], comm ? SegmentKind::Collective : SegmentKind::Kernel, OpTable::Kernel, i, false);
  }
  // A copy of pageable memory holds its call until the data is staged, even when asynchronous.
  for (size_t i = 0; i < t.memcpys.size(); ++i) {
    const Memcpy& m = t.memcpys[i];
    add(m, SegmentKind::Copy, OpTable::Memcpy, i, detail::holds_its_call(m));
  }
  for (size_t i = 0; i < t.memsets.size(); ++i)
    add(t.memsets[i], SegmentKind::Copy, OpTable::Memset, i, !t.memsets[i].async);
  std::stable_sort(ops.begin(), ops.end(), [](const GpuOp& a, const GpuOp& b) { return a.start < b.start; });
  for (const GpuOp& op : ops) longest_ns = std::max(longest_ns, subtract_saturated(op.end, op.start));
  std::unordered_map<uint64_t, uint32_t> last_on_queue;
  for (uint32_t i = 0; i < ops.size(); ++i) {
    auto [it, fresh] = last_on_queue.try_emplace(ops[i].queue, i);
    if (!fresh) ops[i].prev = it->second, it->second = i;
    by_end.push_back({ops[i].end, ops[i].queue, i});
    work_of[ops[i].correlation_id].push_back(i);
  }
  std::stable_sort(by_end.begin(), by_end.end(), [](const EndedOp& a, const EndedOp& b) { return a.end < b.end; });
  for (const GpuOp& op : ops) streams.push_back(op.stream);
  std::sort(streams.begin(), streams.end());
  streams.erase(std::unique(streams.begin(), streams.end()), streams.end());

  // Each thread's calls of one API domain (the runtime's when it has any: a runtime call and the
  // driver call inside it are one call), by start.
  std::map<uint32_t, bool> has_runtime;
  for (const ApiCall& c : t.api_calls)
    if (c.pid == pid && c.domain == ApiDomain::Runtime) has_runtime[c.tid] = true;
  for (size_t i = 0; i < t.api_calls.size(); ++i) {
    const ApiCall& c = t.api_calls[i];
    if (c.pid != pid || c.end < c.start) continue;
    call_of.emplace(c.correlation_id, i);  // libraries launch through the driver API on runtime threads too
    const bool runtime = has_runtime.count(c.tid) > 0;
    if ((c.domain == ApiDomain::Runtime) == runtime) thread_calls[c.tid].push_back(i);
  }
  for (auto& [tid, calls] : thread_calls)
    std::stable_sort(calls.begin(), calls.end(),
                     [&](size_t a, size_t b) { return t.api_calls[a].start < t.api_calls[b].start; });
  for (const Synchronization& s : t.synchronizations)
    if (s.pid == pid) sync_of.emplace(s.correlation_id, &s);
  for (uint32_t i = 0; i < ops.size(); ++i)
    if (const auto call = call_of.find(ops[i].correlation_id); call != call_of.end())
      by_launch.emplace_back(t.api_calls[call->second].start, i);
  std::sort(by_launch.begin(), by_launch.end());
}

std::pair<size_t, size_t> ProcessGraph::ops_around(TimeNs from, TimeNs to) const {
  auto by_start = [](const GpuOp& op, TimeNs t) { return op.start < t; };
  const auto first = std::lower_bound(ops.begin(), ops.end(), subtract_saturated(from, longest_ns), by_start);
  const auto last = std::lower_bound(first, ops.end(), to, by_start);
  return {static_cast<size_t>(first - ops.begin()), static_cast<size_t>(last - ops.begin())};
}

uint32_t ProcessGraph::last_launched(TimeNs from, TimeNs to) const {
  uint32_t last = kNone;
  for (auto it = std::lower_bound(by_launch.begin(), by_launch.end(), std::pair{from, 0u});
       it != by_launch.end() && it->first < to; ++it)
    if (last == kNone || ops[it->second].end > ops[last].end) last = it->second;
  return last;
}

const ApiCall* ProcessGraph::call_of_op(const Trace& trace, uint32_t op) const {
  const auto it = call_of.find(ops[op].correlation_id);
  return it == call_of.end() ? nullptr : &trace.api_calls[it->second];
}

uint32_t ProcessGraph::waited_for(const Trace& trace, uint32_t op) const {
  if (waits.empty()) return kNone;
  const GpuOp& o = ops[op];
  const ApiCall* prev_call = o.prev == kNone ? nullptr : call_of_op(trace, o.prev);
  const ApiCall* call = call_of_op(trace, op);
  if (!waits.waited(o.stream, prev_call ? prev_call->start : INT64_MIN, call ? call->start : o.start)) return kNone;
  const EndedOp* other = last_ended_elsewhere(by_end, o.queue, o.start);
  return other ? other->id : kNone;
}

bool link_collectives(const Trace& trace, std::vector<ProcessGraph>& graphs) {
  // Per graph with collectives: its collective kernels by start, and which op each is.
  std::vector<std::vector<CommKernel>> comm(graphs.size());
  std::vector<std::vector<uint32_t>> op_of(graphs.size());
  std::vector<size_t> ranks;  // graphs that communicate
  for (size_t g = 0; g < graphs.size(); ++g) {
    for (uint32_t i = 0; i < graphs[g].ops.size(); ++i) {
      const GpuOp& op = graphs[g].ops[i];
      if (op.kind != SegmentKind::Collective) continue;
      comm[g].push_back({op.start, op.end, classify_collective(trace.strings.get(trace.kernels[op.index].name))});
      op_of[g].push_back(i);
    }
    if (!comm[g].empty()) ranks.push_back(g);
  }
  if (ranks.size() < 2) return false;
  std::vector<const std::vector<CommKernel>*> lists;
  for (size_t g : ranks) lists.push_back(&comm[g]);
  std::string note;
  const auto operations = match_collectives(lists, note);
  for (const auto& operation : operations)
    for (size_t r = 0; r < operation.size(); ++r) {
      const size_t g = ranks[r];
      GpuOp& op = graphs[g].ops[op_of[g][static_cast<size_t>(operation[r] - comm[g].data())]];
      for (size_t other = 0; other < operation.size(); ++other)
        if (other != r)
          op.matched.push_back(op_ref(
              ranks[other], op_of[ranks[other]][static_cast<size_t>(operation[other] - comm[ranks[other]].data())]));
    }
  return !operations.empty();
}

}  // namespace gpuscope::analysis::path_detail
