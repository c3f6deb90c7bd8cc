// summarize_graphs(): CUDA graphs, their launches and what a launch costs (gpuscope/analysis_graphs.h).
#include "gpuscope/analysis_graphs.h"

#include <algorithm>
#include <limits>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>

#include "analysis/graph_replays.h"
#include "gpuscope/analysis_stats.h"

namespace gpuscope::analysis {
namespace {

// The nodes of one launch.
struct Launch {
  size_t nodes = 0;
  std::vector<Interval> intervals;  // of its timed nodes
  TimeNs first = std::numeric_limits<TimeNs>::max(), last = std::numeric_limits<TimeNs>::min();
};

struct Graph {
  size_t nodes = 0;
  std::unordered_map<uint64_t, Launch> launches;  // by (run, correlation id)
  std::vector<Interval> uncorrelated;             // timed nodes of no launch
  std::set<StringId> kernels;                     // shown names (demangled, else mangled)
};

using GraphKey = std::pair<uint32_t, uint32_t>;            // pid, graph id
using CallKey = std::tuple<uint32_t, uint32_t, uint32_t>;  // run, pid, correlation id

uint64_t launch_key(uint32_t run, uint32_t correlation) { return (static_cast<uint64_t>(run) << 32) | correlation; }
CallKey call_key(uint32_t pid, uint64_t launch) {
  return {static_cast<uint32_t>(launch >> 32), pid, static_cast<uint32_t>(launch)};
}

std::optional<double> median_of(std::vector<double> values) {
  if (values.empty()) return std::nullopt;
  return median(std::move(values));
}

// The launch call of each launch: the earliest API call with its key.
std::map<CallKey, const ApiCall*> launch_calls(const Trace& trace, const std::map<GraphKey, Graph>& graphs) {
  std::map<CallKey, const ApiCall*> calls;
  for (const auto& [key, g] : graphs)
    for (const auto& [id, launch] : g.launches) calls.emplace(call_key(key.first, id), nullptr);
  for (const ApiCall& c : trace.api_calls) {
    if (c.correlation_id == 0) continue;
    auto it = calls.find({c.run_id, c.pid, c.correlation_id});
    if (it != calls.end() && (!it->second || c.start < it->second->start)) it->second = &c;
  }
  return calls;
}

}  // namespace

GraphSummary summarize_graphs(const Trace& trace) {
  GraphSummary out;
  std::map<GraphKey, Graph> graphs;
  auto add = [&](uint32_t run, uint32_t pid, uint32_t graph, uint32_t correlation, TimeNs start, TimeNs end) -> Graph& {
    Graph& g = graphs[{pid, graph}];
    ++g.nodes;
    const bool has_time = timed(start, end);
    if (!has_time) ++out.untimed_nodes;
    if (correlation == 0) {
      ++out.uncorrelated_nodes;
      if (has_time) g.uncorrelated.push_back({start, end});
      return g;
    }
    Launch& l = g.launches[launch_key(run, correlation)];
    ++l.nodes;
    if (has_time) {
      l.intervals.push_back({start, end});
      l.first = std::min(l.first, start), l.last = std::max(l.last, end);
    }
    return g;
  };
  for (const Kernel& k : trace.kernels) {
    if (k.graph_id == 0) {
      ++out.other_kernels;
      if (timed(k.start, k.end)) out.other_kernel_ns += static_cast<double>(duration(k.start, k.end));
      continue;
    }
    Graph& g = add(k.run_id, k.pid, k.graph_id, k.correlation_id, k.start, k.end);
    g.kernels.insert(k.name != 0 ? k.name : k.mangled_name);
    if (timed(k.start, k.end)) out.graph_kernel_ns += static_cast<double>(duration(k.start, k.end));
  }
  for (const Memcpy& m : trace.memcpys)
    if (m.graph_id != 0) add(m.run_id, m.pid, m.graph_id, m.correlation_id, m.start, m.end);
  for (const Memset& m : trace.memsets)
    if (m.graph_id != 0) add(m.run_id, m.pid, m.graph_id, m.correlation_id, m.start, m.end);
  if (graphs.empty()) return out;

  const std::map<CallKey, const ApiCall*> calls = launch_calls(trace, graphs);
  std::set<uint32_t> pids;
  graph_replays::Replays replays;  // launches with a timed node
  for (const auto& [key, g] : graphs)
    for (const auto& [id, l] : g.launches)
      if (!l.intervals.empty())
        replays[key].push_back({static_cast<uint32_t>(id >> 32), l.first, l.last, calls.at(call_key(key.first, id))});
  const graph_replays::ProcessBusy busy = graph_replays::process_busy(trace, replays);
  for (auto& [key, g] : graphs) {
    GraphRow row;
    row.pid = key.first, row.graph_id = key.second;
    row.launches = g.launches.size();
    row.nodes = g.nodes;
    row.kernels = g.kernels.size();
    pids.insert(row.pid);
    std::vector<double> nodes, launch_busy, span, call_ns, latency;
    std::vector<Interval> all = std::move(g.uncorrelated);
    std::map<std::string, size_t> names;  // launch call name -> launches
    for (auto& [id, l] : g.launches) {
      nodes.push_back(static_cast<double>(l.nodes));
      const ApiCall* call = calls.at(call_key(key.first, id));
      if (call) ++names[trace.strings.get(call->name)];
      else ++row.launches_without_call;
      if (call && timed(call->start, call->end)) call_ns.push_back(static_cast<double>(call->end - call->start));
      if (l.intervals.empty()) continue;
      span.push_back(static_cast<double>(l.last - l.first));
      if (call && timed(call->start, call->end) && l.first >= call->start)
        latency.push_back(static_cast<double>(l.first - call->start));
      all.insert(all.end(), l.intervals.begin(), l.intervals.end());
      launch_busy.push_back(static_cast<double>(union_length(std::move(l.intervals))));
    }
    if (!nodes.empty()) {
      const auto [fewest, most] = std::minmax_element(nodes.begin(), nodes.end());
      row.min_nodes = static_cast<size_t>(*fewest), row.max_nodes = static_cast<size_t>(*most);
      row.median_nodes = median(std::move(nodes));
    }
    row.median_busy_ns = median_of(std::move(launch_busy));
    if (!span.empty()) {
      const auto [shortest, longest] = std::minmax_element(span.begin(), span.end());
      row.min_span_ns = static_cast<TimeNs>(*shortest), row.max_span_ns = static_cast<TimeNs>(*longest);
    }
    row.median_span_ns = median_of(std::move(span));
    graph_replays::add_gap_numbers(row, graph_replays::gaps_between(std::move(replays[key]), row.pid, busy));
    row.median_call_ns = median_of(std::move(call_ns));
    row.median_latency_ns = median_of(std::move(latency));
    row.busy_ns = union_length(std::move(all));
    size_t most_launches = 0;
    for (const auto& [name, n] : names)  // in name order: a tie keeps the first
      if (n > most_launches) row.launch_call = name, most_launches = n;
    out.launches_without_call += row.launches_without_call;
    out.gaps_without_call += row.gaps_without_call;
    out.graphs.push_back(std::move(row));
  }
  out.processes = pids.size();
  std::sort(out.graphs.begin(), out.graphs.end(), [](const GraphRow& a, const GraphRow& b) {
    return std::tie(b.busy_ns, a.pid, a.graph_id) < std::tie(a.busy_ns, b.pid, b.graph_id);
  });
  return out;
}

}  // namespace gpuscope::analysis
