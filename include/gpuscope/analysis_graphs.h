// CUDA graphs: each graph's launches and what one launch costs on the GPU and on the host, for
// the report's "CUDA graphs" section (docs/report.md). Pure and deterministic.
//
// A graph node is a kernel, copy or memset with graph_id != 0. All nodes of one launch carry
// the correlation id of the launch call (cudaGraphLaunch, cuGraphLaunch), so a launch is the
// nodes of one graph with one (run, process, correlation id); the launch call is the API call
// with that key (of several, the earliest). Nodes without a correlation id belong to no launch.
// Records without valid times (analysis::timed) count as nodes but enter no time.
//
// A launch is a replay of the graph: replays with a timed node, ordered by their first node's
// start within one (run, process), leave gaps between them (ReplayGap).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gpuscope/analysis_stats.h"
#include "gpuscope/model.h"

namespace gpuscope::analysis {

// The time between one replay of a graph and the next of the same graph in the same run and
// process: from the last node end of the replays before it (`start`) to the next replay's first
// node start (`end`; end == start when the replays overlap).
struct ReplayGap {
  uint32_t run_id = 0;
  TimeNs start = 0, end = 0;
  // The host part: [start, host_end), host_end = min(next first node start, next launch call
  // end), held within [start, end]: the GPU could not start the next replay because the host had
  // not launched it yet. host_end == start when the next replay has no timed launch call.
  TimeNs host_end = 0;
  bool has_call = false;  // the next replay has a launch call with valid times
  // ns of [start, end) with none of the process's kernels, copies or memsets running (its other
  // graphs and plain launches fill gaps too), and the pieces of [start, host_end) with none: the
  // GPU idle because the host had not launched the next replay.
  TimeNs idle_ns = 0;
  std::vector<Interval> host_idle;
  TimeNs host_idle_ns() const {
    TimeNs ns = 0;
    for (const Interval& i : host_idle) ns += i.end - i.start;
    return ns;
  }
};

struct GraphRow {
  uint32_t pid = 0;
  uint32_t graph_id = 0;
  size_t launches = 0;  // distinct launch correlation ids
  size_t nodes = 0;     // node records, all launches (and nodes of no launch)
  // Nodes (kernels, copies, memsets) per launch: median, fewest, most.
  double median_nodes = 0;
  size_t min_nodes = 0, max_nodes = 0;
  size_t kernels = 0;  // distinct kernel names among its kernel nodes
  // Medians over the launches with a timed node: the union of the launch's node intervals, and
  // its first node start to its last node end. nullopt: no launch has a timed node.
  std::optional<double> median_busy_ns, median_span_ns;
  std::optional<TimeNs> min_span_ns, max_span_ns;  // the shortest and longest span of a launch
  TimeNs busy_ns = 0;                              // union of all its timed node intervals
  // The launch calls: the most common name (ties: the first by name), empty when no launch has
  // one in the trace; how many launches have none.
  std::string launch_call;
  size_t launches_without_call = 0;
  // Medians of the launch call's duration and of its start to the first node's start, over the
  // launches whose call and nodes have valid times (a first node before its call: left out).
  std::optional<double> median_call_ns, median_latency_ns;
  // Between consecutive replays (ReplayGap), in time order: each gap; the median gap; totals of
  // the gaps, of their host parts, of their GPU-idle time and of their host parts' GPU-idle time.
  std::vector<ReplayGap> gaps;
  std::optional<double> median_gap_ns;
  TimeNs gap_ns = 0, gap_host_ns = 0, gap_idle_ns = 0, host_wait_ns = 0;
  size_t gaps_without_call = 0;  // gaps whose next replay has no timed launch call: no host part
};

struct GraphSummary {
  std::vector<GraphRow> graphs;  // by busy_ns descending, then pid, graph id
  size_t processes = 0;          // distinct pids of the graphs
  // Timed kernels' durations, summed, inside graphs and outside; kernels outside graphs (all).
  double graph_kernel_ns = 0, other_kernel_ns = 0;
  size_t other_kernels = 0;
  size_t untimed_nodes = 0;          // graph nodes without valid times
  size_t uncorrelated_nodes = 0;     // graph nodes with correlation id 0: in busy_ns, in no launch
  size_t launches_without_call = 0;  // over all graphs
  size_t gaps_without_call = 0;      // over all graphs
};

// Empty `graphs` when the trace has no graph work.
GraphSummary summarize_graphs(const Trace& trace);

}  // namespace gpuscope::analysis
