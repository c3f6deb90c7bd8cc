// CUDA graphs: each graph's launches and what one launch costs on the GPU and on the host, for
// the report's "CUDA graphs" section (docs/report.md). Pure and deterministic.
//
// A graph node is a kernel, copy or memset with graph_id != 0. All nodes of one launch carry
// the correlation id of the launch call (cudaGraphLaunch, cuGraphLaunch), so a launch is the
// nodes of one graph with one (run, process, correlation id); the launch call is the API call
// with that key (of several, the earliest). Nodes without a correlation id belong to no launch.
// Records without valid times (analysis::timed) count as nodes but enter no time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gpuscope/model.h"

namespace gpuscope::analysis {

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
  TimeNs busy_ns = 0;  // union of all its timed node intervals
  // The launch calls: the most common name (ties: the first by name), empty when no launch has
  // one in the trace; how many launches have none.
  std::string launch_call;
  size_t launches_without_call = 0;
  // Medians of the launch call's duration and of its start to the first node's start, over the
  // launches whose call and nodes have valid times (a first node before its call: left out).
  std::optional<double> median_call_ns, median_latency_ns;
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
};

// Empty `graphs` when the trace has no graph work.
GraphSummary summarize_graphs(const Trace& trace);

}  // namespace gpuscope::analysis
