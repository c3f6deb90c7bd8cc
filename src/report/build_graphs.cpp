// The "CUDA graphs" section: one row per graph with its launches, what one launch costs on the
// GPU and on the host, and how much kernel time ran inside graphs (analysis_graphs.h). Only for
// traces with graph work.
#include <fmt/format.h>

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
  t.columns.insert(t.columns.end(),
                   {num_column("graph_id", "Graph", Unit::Plain), num_column("launches", "Launches", Unit::Count),
                    num_column("nodes", "Nodes", Unit::Count), machine_column("nodes_min", "Fewest nodes", Unit::Count),
                    machine_column("nodes_max", "Most nodes", Unit::Count),
                    num_column("kernels", "Kernels", Unit::Count), num_column("busy", "Busy", Unit::Ns),
                    num_column("span", "Span", Unit::Ns), num_column("gpu_time", "GPU time", Unit::Ns),
                    num_column("gpu_percent", "GPU %", Unit::Percent),
                    text_column("launch_call", "Launch call", TextStyle::Identifier),
                    num_column("call_time", "Call", Unit::Ns), num_column("latency", "Latency", Unit::Ns)});
  for (const analysis::GraphRow& g : summary.graphs) {
    std::vector<Cell> row;
    if (with_pid) row.push_back(num(g.pid, Unit::Plain));
    row.insert(row.end(),
               {num(g.graph_id, Unit::Plain), num(static_cast<double>(g.launches), Unit::Count),
                num(g.median_nodes, Unit::Count), num(static_cast<double>(g.min_nodes), Unit::Count),
                num(static_cast<double>(g.max_nodes), Unit::Count), num(static_cast<double>(g.kernels), Unit::Count),
                opt_num(g.median_busy_ns, Unit::Ns), opt_num(g.median_span_ns, Unit::Ns),
                num(static_cast<double>(g.busy_ns), Unit::Ns),
                opt_num(analysis::share_percent(static_cast<double>(g.busy_ns), static_cast<double>(gpu_busy_ns)),
                        Unit::Percent),
                text(g.launch_call.empty() ? no_call : g.launch_call), opt_num(g.median_call_ns, Unit::Ns),
                opt_num(g.median_latency_ns, Unit::Ns)});
    t.rows.push_back(std::move(row));
  }

  t.notes.push_back(kernel_mix_note(summary));
  t.notes.push_back(
      "Per launch, medians over the graph's launches: Nodes (its kernels, copies and memsets), Busy (the union of "
      "their GPU intervals), Span (first node start to last node end), Call (the launch call's duration on the host), "
      "Latency (launch call start to first node start). GPU time: the union of all the graph's nodes; GPU %: its share "
      "of the run's GPU busy time.");
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
