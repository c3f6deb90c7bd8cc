// Builders: turn analysis results into report sections. One function per
// section; render_report() (report.cpp) calls them in report order.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "gpuscope/analysis.h"
#include "gpuscope/analysis_profiler_time.h"
#include "gpuscope/analysis_rules.h"
#include "gpuscope/analysis_source.h"
#include "gpuscope/analysis_steps.h"
#include "gpuscope/model.h"
#include "gpuscope/report.h"
#include "report/model.h"

namespace gpuscope::report {

Section build_run_section(const Trace& trace, size_t top);
// `cut`: the profiler's time taken out of the timeline (captures made with --metrics).
// `source_tool`: the tool that wrote an imported file (Run::source_tool); empty for gpuscope's own.
Section build_summary_section(const analysis::ExecutiveSummary& summary, const analysis::DataQuality& quality,
                              const analysis::ProfilerTime& cut = {}, const std::string& source_tool = "");
// `groups`: analysis::summarize_kernels(trace), which the kernel and launch configuration
// sections share (summarizing a million launches once, not twice).
Section build_kernel_section(const std::vector<analysis::KernelGroup>& groups, size_t top);
Section build_memory_section(const Trace& trace, size_t top);
Section build_api_section(const Trace& trace, size_t top);
Section build_sync_section(const Trace& trace, size_t top);
Section build_nvtx_section(const Trace& trace, size_t top);
// `inputs`: analysis::rule_inputs(trace, steady), which both of these show; with a steady state
// both judge steps 2..N and say so in one line.
Section build_bottleneck_section(const Trace& trace, size_t top, const analysis::RuleInputs& inputs);
// "steady state: steps 2–50 of train_step, 57.6 ms of 3.21 s": what the Bottleneck and the
// Recommendations judge when the run has steps. `wall_ns`: the whole run's.
std::string steady_state_text(const analysis::SteadyState& steady, TimeNs wall_ns);
Section build_recommendations_section(const Trace& trace, TimeNs wall_ns, const analysis::RuleInputs& inputs);
Section build_launch_config_section(const Trace& trace, const std::vector<analysis::KernelGroup>& groups, size_t top);
Section build_quality_section(const analysis::DataQuality& quality, TimeNs wall_ns, size_t top);

// Hardware metrics (docs/metrics.md). Each appears only when the trace has its data, so a trace
// without metrics renders as before: one section per kernel-metric topic that has data
// (build_metrics_*.cpp), GPU-wide samples over time, and how collection went (Data quality).
std::vector<Section> build_kernel_metric_sections(const Trace& trace, size_t top);
std::optional<Section> build_gpu_utilization_section(const Trace& trace);
void add_metric_collection_lines(Section& quality, const Trace& trace);

// Framework traces (torch.profiler): the ops and the GPU time they launched, when the trace has
// host ops (build_ops.cpp).
std::optional<Section> build_ops_section(const Trace& trace, size_t top);
// The top ops and modules by GPU time as two lines of `s` (the first screen: Steps, else the
// Executive summary), when the trace has them (build_ops.cpp).
void add_top_framework_lines(Section& s, const Trace& trace);
// The steps (analysis::summarize_steps of the range the user named or detect_step_range found),
// led by the steady steps' verdict (build_steps.cpp).
Section build_steps_section(const analysis::StepSummary& summary, size_t top);
// Each step's critical path and lost potential time (analysis::critical_paths); nullopt when the
// steps cannot be used (build_critical_path.cpp).
std::optional<Section> build_critical_path_section(const Trace& trace, const analysis::StepSummary& summary,
                                                   size_t top);
// Everything before the first step (`steady`: the run's steady state), or before the first kernel
// launch in a run without steps; nullopt when nothing precedes it (build_startup.cpp).
std::optional<Section> build_startup_section(const Trace& trace, const std::optional<analysis::SteadyState>& steady);
// nn.Module paths with their forward and backward GPU time, when the trace has module ranges
// (build_modules.cpp).
std::optional<Section> build_modules_section(const Trace& trace, size_t top);
// One row per CUDA graph, when the trace has graph work (build_graphs.cpp). `gpu_busy_ns`: the
// run's GPU busy time (ExecutiveSummary::gpu_busy_ns), of which each graph's share is shown.
std::optional<Section> build_graphs_section(const Trace& trace, size_t top, TimeNs gpu_busy_ns);
// Each sampled kernel's hottest source lines and SASS instructions with their stall reasons
// (build_source.cpp), from profile_source(trace, resolver, top, kSourceKernelsShown); `resolved`:
// a resolver read the cubins (else the section says lines and SASS were not read).
inline constexpr size_t kSourceKernelsShown = 5;  // kernels with their own line and instruction tables
Section build_source_section(const analysis::SourceProfile& profile, size_t top, bool resolved);
// `gpuscope diff` of two captures with PC samples: each line's time in both, the lines that
// changed most first (build_source_diff.cpp); the empty text says why when there is none.
Section build_source_diff_section(const std::vector<analysis::SourceLineDiff>& lines, size_t top);
// Two or more GPU processes (the ranks of a job) side by side, with the straggler (build_ranks.cpp).
std::optional<Section> build_ranks_section(const Trace& trace, size_t top);
// The same from analyze_ranks(trace) (RuleInputs::ranks), so that a report computes it once.
std::optional<Section> build_ranks_section(const std::optional<analysis::RanksAnalysis>& ranks, size_t top);

// The whole report model, in report order, for a trace already without the profiler's time
// (`cut` says how much was taken out).
Report build_report(const Trace& trace, const ReportOptions& options, const analysis::ProfilerTime& cut = {});

// The duration columns shared by kernel, API and NVTX tables.
inline void add_stats_columns(Table& t, bool with_spread) {
  t.columns.push_back(num_column("avg", "Avg", Unit::Ns));
  t.columns.push_back(num_column("median", "Median", Unit::Ns));
  t.columns.push_back(num_column("min", "Min", Unit::Ns));
  t.columns.push_back(num_column("max", "Max", Unit::Ns));
  if (with_spread) {
    t.columns.push_back(num_column("stddev", "StdDev", Unit::Ns));
    t.columns.push_back(num_column("cv", "CV %", Unit::Percent));
  }
}

inline void add_stats_cells(std::vector<Cell>& row, const analysis::Stats& s, bool with_spread) {
  row.push_back(num(s.mean, Unit::Ns));
  row.push_back(num(s.median, Unit::Ns));
  row.push_back(num(s.min, Unit::Ns));
  row.push_back(num(s.max, Unit::Ns));
  if (with_spread) {
    row.push_back(num(s.stddev, Unit::Ns));
    row.push_back(num(s.cv_percent, Unit::Percent));
  }
}

}  // namespace gpuscope::report
