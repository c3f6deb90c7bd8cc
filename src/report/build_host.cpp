// Host-side sections: CUDA API calls, synchronization waits, NVTX ranges.
#include "report/builder.h"

namespace gpuscope::report {

Section build_api_section(const Trace& trace, size_t top) {
  Section s;
  s.key = "api";
  s.title = "CUDA API";
  auto summaries = analysis::summarize_api(trace);
  if (summaries.empty()) summaries.push_back({});  // an empty runtime table: "none captured"
  for (const auto& summary : summaries) {
    const bool runtime = summary.domain == ApiDomain::Runtime;
    Table t;
    t.key = runtime ? "runtime_api" : "driver_api";
    t.title = runtime ? "CUDA runtime API" : "CUDA driver API";
    t.columns = {text_column("name", "Function", TextStyle::Identifier),
                 num_column("time_percent", "Time %", Unit::Percent), num_column("total", "Total", Unit::Ns),
                 num_column("calls", "Calls", Unit::Count)};
    add_stats_columns(t, false);
    for (const auto& g : summary.rows) {
      std::vector<Cell> row = {
          text(g.name),
          opt_num(analysis::share_percent(g.duration.total, static_cast<double>(summary.total_ns)), Unit::Percent),
          num(g.duration.total, Unit::Ns), num(static_cast<double>(g.duration.count), Unit::Count)};
      add_stats_cells(row, g.duration, false);
      t.rows.push_back(std::move(row));
    }
    if (!t.rows.empty())
      t.notes.push_back("Time %: share of all " + std::string(to_string(summary.domain)) +
                        " API time, summed over threads.");
    if (runtime && analysis::api_traces(trace).count("core"))
      t.notes.push_back(
          "Captured with the core API trace (--api core, the default): only the calls the analyses use "
          "(launches, copies, memsets, synchronizations, allocations, module loading, context set-up) were "
          "recorded; other calls (cudaGetDevice, cudaGetLastError, ...) were neither recorded nor counted, and "
          "their time counts as host time outside CUDA. --api full records every call.");
    mark_not_in_source(t, trace, kGapApiCalls);
    limit_rows(t, top);
    s.tables.push_back(std::move(t));
  }
  const auto counted = analysis::summarize_api_counts(trace);
  if (!counted.empty()) {
    Table t;
    t.key = "api_counted";
    t.title = "Counted, not recorded one by one (lean API trace)";
    t.columns = {text_column("name", "Function", TextStyle::Identifier), text_column("domain", "API"),
                 num_column("calls", "Calls", Unit::Count), num_column("total", "Total", Unit::Ns),
                 num_column("avg", "Avg", Unit::Ns)};
    for (const auto& g : counted)
      t.rows.push_back({text(g.name), text(to_string(g.domain)), num(static_cast<double>(g.calls), Unit::Count),
                        num(g.total_ns, Unit::Ns),
                        num(g.calls ? g.total_ns / static_cast<double>(g.calls) : 0, Unit::Ns)});
    t.notes.push_back(
        "Captured with --api lean: pure queries (cudaGetDevice, cudaGetLastError, ...) got no per-call "
        "record; their calls were counted and timed, and each one's first call is in the table above.");
    limit_rows(t, top);
    s.tables.push_back(std::move(t));
  }
  return s;
}

Section build_sync_section(const Trace& trace, size_t top) {
  Section s;
  s.key = "sync";
  s.title = "Synchronization";
  Table t;
  t.key = "sync";
  t.title = "CPU waits by kind";
  t.columns = {text_column("kind", "Kind"), num_column("count", "Count", Unit::Count),
               num_column("total", "Total wait", Unit::Ns), num_column("avg", "Avg", Unit::Ns),
               num_column("max", "Max", Unit::Ns)};
  for (const auto& g : analysis::summarize_sync(trace))
    t.rows.push_back({text(to_string(g.kind)), num(static_cast<double>(g.wait.count), Unit::Count),
                      num(g.wait.total, Unit::Ns), num(g.wait.mean, Unit::Ns), num(g.wait.max, Unit::Ns)});
  mark_not_in_source(t, trace, kGapSynchronization);
  limit_rows(t, top);
  s.tables.push_back(std::move(t));
  return s;
}

Section build_nvtx_section(const Trace& trace, size_t top) {
  Section s;
  s.key = "nvtx";
  s.title = "NVTX";
  const auto summary = analysis::summarize_nvtx(trace);
  s.lines.push_back({"marks", "Marks", num(static_cast<double>(summary.marks), Unit::Count), ""});
  Table t;
  t.key = "nvtx_ranges";
  t.title = "Ranges";
  t.columns = {text_column("name", "Range", TextStyle::Identifier), text_column("domain", "Domain"),
               num_column("count", "Count", Unit::Count), num_column("total", "Total", Unit::Ns)};
  add_stats_columns(t, false);
  // The GPU projection (analysis_nvtx_gpu.h) needs the launch calls: without them it is unknown, not 0.
  const bool projected = !trace.lacks(kGapApiCalls);
  t.columns.push_back(num_column("gpu_time", "GPU time", Unit::Ns));
  t.columns.push_back(num_column("gpu_span", "GPU span", Unit::Ns));
  t.columns.push_back(num_column("gpu_busy_percent", "GPU busy %", Unit::Percent));
  t.columns.push_back(num_column("kernels", "Kernels", Unit::Count));
  auto known = [&](double v) { return projected ? std::optional<double>(v) : std::nullopt; };
  for (const auto& g : summary.ranges) {
    std::vector<Cell> row = {text(g.name), text(g.domain.empty() ? "default" : g.domain),
                             num(static_cast<double>(g.duration.count), Unit::Count), num(g.duration.total, Unit::Ns)};
    add_stats_cells(row, g.duration, false);
    row.push_back(opt_num(known(g.gpu_ns), Unit::Ns));
    row.push_back(opt_num(known(g.gpu_span_ns), Unit::Ns));
    row.push_back(opt_num(known(g.gpu_busy_percent()), Unit::Percent));
    row.push_back(opt_num(known(static_cast<double>(g.kernels)), Unit::Count));
    t.rows.push_back(std::move(row));
  }
  if (!t.rows.empty() && projected)
    t.notes.push_back(
        "GPU time: union of the GPU work (kernels, copies, memsets) launched inside the range on its thread, summed "
        "over instances; GPU span: first GPU start to last GPU end of that work; GPU busy %: GPU time / CPU total "
        "(above 100 when the work runs after the range closed).");
  if (!t.rows.empty() && summary.gpu_unlaunched > 0)
    t.notes.push_back(plural(summary.gpu_unlaunched, "kernel, copy or memset has", "kernels, copies or memsets have") +
                      " no launch call in the capture and belong to no range.");
  if (summary.unclosed_ranges > 0)
    t.notes.push_back(plural(summary.unclosed_ranges, "range was", "ranges were") +
                      " never closed and are not counted.");
  mark_not_in_source(t, trace, kGapNvtx);
  limit_rows(t, top);
  s.tables.push_back(std::move(t));
  return s;
}

}  // namespace gpuscope::report
