// The "CUDA graphs" section: one row per graph with its launches, what one launch costs on the
// GPU and on the host, and how much kernel time ran inside graphs (analysis_graphs.h). Only for
// traces with graph work.
#include <fmt/format.h>

#include <set>

#include "gpuscope/analysis_graphs.h"
#include "report/builder.h"
#include "report/units.h"

namespace gpuscope::report {
namespace {

std::string graph_name(const analysis::GraphRow& g, bool with_pid) {
  return with_pid ? fmt::format("{} (pid {})", g.graph_id, g.pid) : std::to_string(g.graph_id);
}

// Kernel time inside graphs against outside them, for a program that mixes graphs and plain launches.
std::string kernel_mix_note(const analysis::GraphSummary& summary) {
  const auto share = analysis::share_percent(summary.graph_kernel_ns,
                                             summary.graph_kernel_ns + summary.other_kernel_ns);
  const std::string in_graphs = "Kernel time: " + format_duration(summary.graph_kernel_ns) + " in graphs (" +
                                (share ? format_percent(*share) : "-") + ")";
  if (summary.other_kernels == 0) return in_graphs + "; no kernel was launched outside a graph.";
  return in_graphs + ", " + format_duration(summary.other_kernel_ns) + " outside graphs in " +
         plural(summary.other_kernels, "kernel", "kernels") + " launched one by one.";
}

std::optional<double> as_double(std::optional<TimeNs> ns) {
  if (!ns) return std::nullopt;
  return static_cast<double>(*ns);
}
Cell opt_ns(std::optional<TimeNs> ns) { return opt_num(as_double(ns), Unit::Ns); }

// A total over the graph's gaps between replays; `-` for a graph replayed once (no gap).
Cell ns_or_none(const analysis::GraphRow& g, TimeNs total) {
  return opt_ns(g.gaps.empty() ? std::nullopt : std::optional<TimeNs>(total));
}

// Whether a process has two graphs with gaps between their launches.
bool shares_gaps(const analysis::GraphSummary& summary) {
  std::set<uint32_t> pids;
  for (const analysis::GraphRow& g : summary.graphs)
    if (!g.gaps.empty() && !pids.insert(g.pid).second) return true;
  return false;
}

// The graphs (of the first `top`) whose longest launch span is >= 1.5 x their median: a replay
// that took much longer than usual (contention with other work, clocks, a first replay paying for
// module loading).
std::string span_spread_note(const analysis::GraphSummary& summary, size_t top, bool with_pid) {
  constexpr double kSlowReplay = 1.5;
  std::string slow;
  for (size_t i = 0; i < summary.graphs.size() && (top == 0 || i < top); ++i) {
    const analysis::GraphRow& g = summary.graphs[i];
    if (!g.max_span_ns || !(static_cast<double>(*g.max_span_ns) >= kSlowReplay * *g.median_span_ns)) continue;
    slow += fmt::format("{}graph {}: {} to {}, median {}", slow.empty() ? "" : "; ", graph_name(g, with_pid),
                        format_duration(static_cast<double>(*g.min_span_ns)),
                        format_duration(static_cast<double>(*g.max_span_ns)), format_duration(*g.median_span_ns));
  }
  if (slow.empty()) return "";
  return "Span per launch varies (" + slow + "): the longest launch took at least 1.5 times the median.";
}

}  // namespace

std::optional<Section> build_graphs_section(const Trace& trace, size_t top, TimeNs gpu_busy_ns) {
  const analysis::GraphSummary summary = analysis::summarize_graphs(trace);
  if (summary.graphs.empty()) return std::nullopt;
  Section s;
  s.key = "graphs";
  s.title = "CUDA graphs";
  const bool with_pid = summary.processes > 1;
  const std::string no_call = trace.lacks(kGapApiCalls) ? "not in the source" : "not recorded";

  Table t;
  t.key = "graphs";
  t.title = "Graphs by GPU time";
  if (with_pid) t.columns.push_back(num_column("pid", "PID", Unit::Plain));
  t.columns.insert(t.columns.end(), {num_column("graph_id", "Graph", Unit::Plain),
                                     num_column("launches", "Launches", Unit::Count),
                                     num_column("nodes", "Nodes", Unit::Count),
                                     machine_column("nodes_min", "Fewest nodes", Unit::Count),
                                     machine_column("nodes_max", "Most nodes", Unit::Count),
                                     num_column("kernels", "Kernels", Unit::Count),
                                     num_column("busy", "Busy", Unit::Ns),
                                     num_column("span", "Span", Unit::Ns),
                                     num_column("gpu_time", "GPU time", Unit::Ns),
                                     num_column("gpu_percent", "GPU %", Unit::Percent),
                                     text_column("launch_call", "Launch call", TextStyle::Identifier),
                                     num_column("call_time", "Call", Unit::Ns),
                                     num_column("latency", "Latency", Unit::Ns),
                                     machine_column("span_min", "Shortest span", Unit::Ns),
                                     machine_column("span_max", "Longest span", Unit::Ns),
                                     machine_column("gaps", "Gaps", Unit::Count),
                                     num_column("gap", "Gap", Unit::Ns),
                                     machine_column("gap_total", "Gaps total", Unit::Ns),
                                     machine_column("gap_host", "Gaps' host part", Unit::Ns),
                                     num_column("gap_idle", "Gap idle", Unit::Ns),
                                     num_column("host_wait", "Host wait", Unit::Ns)});
  for (const analysis::GraphRow& g : summary.graphs) {
    std::vector<Cell> row;
    if (with_pid) row.push_back(num(g.pid, Unit::Plain));
    row.insert(row.end(),
               {num(g.graph_id, Unit::Plain),
                num(static_cast<double>(g.launches), Unit::Count),
                num(g.median_nodes, Unit::Count),
                num(static_cast<double>(g.min_nodes), Unit::Count),
                num(static_cast<double>(g.max_nodes), Unit::Count),
                num(static_cast<double>(g.kernels), Unit::Count),
                opt_num(g.median_busy_ns, Unit::Ns),
                opt_num(g.median_span_ns, Unit::Ns),
                num(static_cast<double>(g.busy_ns), Unit::Ns),
                opt_num(analysis::share_percent(static_cast<double>(g.busy_ns), static_cast<double>(gpu_busy_ns)),
                        Unit::Percent),
                text(g.launch_call.empty() ? no_call : g.launch_call),
                opt_num(g.median_call_ns, Unit::Ns),
                opt_num(g.median_latency_ns, Unit::Ns),
                opt_ns(g.min_span_ns),
                opt_ns(g.max_span_ns),
                num(static_cast<double>(g.gaps.size()), Unit::Count),
                opt_num(g.median_gap_ns, Unit::Ns),
                ns_or_none(g, g.gap_ns),
                ns_or_none(g, g.gap_host_ns),
                ns_or_none(g, g.gap_idle_ns),
                ns_or_none(g, g.host_wait_ns)});
    t.rows.push_back(std::move(row));
  }

  t.notes.push_back(kernel_mix_note(summary));
  t.notes.push_back(
      "Per launch, medians over the graph's launches: Nodes (its kernels, copies and memsets), Busy (the union of "
      "their GPU intervals), Span (first node start to last node end), Call (the launch call's duration on the host), "
      "Latency (launch call start to first node start). GPU time: the union of all the graph's nodes; GPU %: its share "
      "of the run's GPU busy time.");
  t.notes.push_back(
      "Between consecutive launches of a graph (one process, by first node start): Gap, the median time from the "
      "previous launches' last node end to the next launch's first node start (0 when they overlap); Gap idle, the "
      "gaps' time with none of the process's kernels, copies and memsets running, summed; Host wait, the part of "
      "that idle time before the next launch's call returned (or its first node started, if earlier), summed: the "
      "GPU waited for the host to launch the next replay.");
  if (shares_gaps(summary))
    t.notes.push_back(
        "Graphs of one process replayed in turn each count the time between their own launches, which holds the other "
        "graphs' launches and host waits: their Gap idle and Host wait overlap and do not add up (rule "
        "graph_replay_gaps counts each moment once).");
  if (std::string note = span_spread_note(summary, top, with_pid); !note.empty()) t.notes.push_back(std::move(note));
  std::string varying;
  for (size_t i = 0; i < summary.graphs.size() && (top == 0 || i < top); ++i) {
    const analysis::GraphRow& g = summary.graphs[i];
    if (g.min_nodes != g.max_nodes)
      varying += fmt::format("{}graph {}: {} to {}", varying.empty() ? "" : "; ", graph_name(g, with_pid), g.min_nodes,
                             g.max_nodes);
  }
  if (!varying.empty())
    t.notes.push_back("Nodes per launch vary (" + varying +
                      "): conditional nodes, an update of the graph between launches, or a launch recorded in part.");
  auto counted = [&](size_t n, const std::string& one, const std::string& many, const std::string& rest) {
    if (n > 0) t.notes.push_back(plural(n, one, many) + rest);
  };
  counted(summary.launches_without_call, "launch has", "launches have",
          " no launch call in the trace: Call and Latency leave them out.");
  counted(summary.gaps_without_call, "gap has", "gaps have",
          " no timed launch call for the launch after it: no host part, no Host wait.");
  counted(summary.untimed_nodes, "graph node has", "graph nodes have",
          " no valid times: counted as nodes, left out of every time.");
  counted(summary.uncorrelated_nodes, "graph node has", "graph nodes have",
          " no correlation id: counted in GPU time, in no launch.");
  mark_not_in_source(t, trace, kGapTimeline);
  mark_not_in_source(t, trace, kGapApiCalls);
  limit_rows(t, top);
  s.tables.push_back(std::move(t));
  return s;
}

}  // namespace gpuscope::report
