// The gaps between consecutive replays of one graph, for summarize_graphs() (analysis_graphs.h).
#pragma once

#include <map>
#include <utility>
#include <vector>

#include "gpuscope/analysis_graphs.h"

namespace gpuscope::analysis::graph_replays {

// One replay with a timed node: its first node start, last node end and launch call (nullptr: none).
struct Replay {
  uint32_t run_id = 0;
  TimeNs first = 0, last = 0;
  const ApiCall* call = nullptr;
};

using Replays = std::map<std::pair<uint32_t, uint32_t>, std::vector<Replay>>;  // (pid, graph id) -> replays

// Per (run, pid), merged (merge_intervals): the process's timed kernels, copies and memsets;
// the same with each replay's launch latency added (its call's end to its first node's start,
// when the call ended first): GPU-idle time while the host had launched a replay already.
struct ProcessGpu {
  std::vector<Interval> busy, busy_or_launching;
};
using ProcessBusy = std::map<std::pair<uint32_t, uint32_t>, ProcessGpu>;
ProcessBusy process_busy(const Trace& trace, const Replays& replays);

// The gaps between one graph's consecutive replays in process `pid`, in time order.
std::vector<ReplayGap> gaps_between(std::vector<Replay> replays, uint32_t pid, const ProcessBusy& busy);

// The row's gap numbers from its gaps (GraphRow: gaps .. gaps_without_call).
void add_gap_numbers(GraphRow& row, std::vector<ReplayGap> gaps);

}  // namespace gpuscope::analysis::graph_replays
