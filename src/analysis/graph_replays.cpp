// The gaps between a graph's consecutive replays and what filled them (graph_replays.h).
#include "analysis/graph_replays.h"

#include <algorithm>
#include <set>
#include <tuple>

#include "analysis/timeline_util.h"

namespace gpuscope::analysis::graph_replays {

ProcessBusy process_busy(const Trace& trace, const Replays& replays) {
  std::map<std::pair<uint32_t, uint32_t>, std::vector<Interval>> work, launching;  // by (run, pid)
  for (const auto& [graph, list] : replays)
    for (const Replay& r : list)
      if (r.call && timed(r.call->start, r.call->end) && r.call->end < r.first)
        launching[{r.run_id, graph.first}].push_back({r.call->end, r.first});
  std::set<uint32_t> pids;  // of the graphs
  for (const auto& [graph, list] : replays) pids.insert(graph.first);
  auto add = [&](uint32_t run, uint32_t pid, TimeNs start, TimeNs end) {
    if (timed(start, end) && pids.count(pid)) work[{run, pid}].push_back({start, end});
  };
  for (const Kernel& k : trace.kernels) add(k.run_id, k.pid, k.start, k.end);
  for (const Memcpy& m : trace.memcpys) add(m.run_id, m.pid, m.start, m.end);
  for (const Memset& m : trace.memsets) add(m.run_id, m.pid, m.start, m.end);
  ProcessBusy busy;
  for (auto& [process, intervals] : work) {
    ProcessGpu& gpu = busy[process];
    gpu.busy = merge_intervals(intervals);
    const auto more = launching.find(process);
    if (more != launching.end()) intervals.insert(intervals.end(), more->second.begin(), more->second.end());
    gpu.busy_or_launching = merge_intervals(std::move(intervals));
  }
  return busy;
}

std::vector<ReplayGap> gaps_between(std::vector<Replay> replays, uint32_t pid, const ProcessBusy& busy) {
  std::sort(replays.begin(), replays.end(), [](const Replay& a, const Replay& b) {
    return std::tie(a.run_id, a.first, a.last) < std::tie(b.run_id, b.first, b.last);
  });
  std::vector<ReplayGap> gaps;
  const ProcessGpu none;
  TimeNs ended = 0;  // the last node end of the replays so far in this run
  for (size_t i = 0; i < replays.size(); ++i) {
    const Replay& next = replays[i];
    if (i == 0 || replays[i - 1].run_id != next.run_id) {
      ended = next.last;
      continue;
    }
    ReplayGap g;
    g.run_id = next.run_id;
    g.start = ended, g.end = std::max(ended, next.first);
    g.host_end = g.start;
    g.has_call = next.call && timed(next.call->start, next.call->end);
    if (g.has_call) g.host_end = std::clamp(std::min(next.first, next.call->end), g.start, g.end);
    const auto found = busy.find({next.run_id, pid});
    const ProcessGpu& gpu = found == busy.end() ? none : found->second;
    g.idle_ns = (g.end - g.start) - covered_within(gpu.busy, g.start, g.end);
    g.host_idle = uncovered_within(gpu.busy_or_launching, g.start, g.host_end);
    gaps.push_back(std::move(g));
    ended = std::max(ended, next.last);
  }
  return gaps;
}

void add_gap_numbers(GraphRow& row, std::vector<ReplayGap> gaps) {
  std::vector<double> lengths;
  for (const ReplayGap& g : gaps) {
    lengths.push_back(static_cast<double>(g.end - g.start));
    row.gap_ns = add_saturated(row.gap_ns, g.end - g.start);
    row.gap_host_ns = add_saturated(row.gap_host_ns, g.host_end - g.start);
    row.gap_idle_ns = add_saturated(row.gap_idle_ns, g.idle_ns);
    row.host_wait_ns = add_saturated(row.host_wait_ns, g.host_idle_ns());
    if (!g.has_call) ++row.gaps_without_call;
  }
  if (!lengths.empty()) row.median_gap_ns = median(std::move(lengths));
  row.gaps = std::move(gaps);
}

}  // namespace gpuscope::analysis::graph_replays
