// render_report(): analyses -> report model -> the chosen renderer.
#include "gpuscope/report.h"

#include "common/error.h"
#include "gpuscope/analysis_profiler_time.h"
#include "gpuscope/analysis_steps.h"
#include "report/builder.h"
#include "report/renderers.h"

namespace gpuscope {
namespace report {

Report build_report(const Trace& trace, const ReportOptions& options, const analysis::ProfilerTime& cut) {
  const size_t top = options.top;
  const auto summary = analysis::summarize_executive(trace);
  const auto quality = analysis::assess_data_quality(trace);
  // The steps: the range the user named, else the one detect_step_range finds. When the launched
  // process has steps, the rules and the Bottleneck judge their steady state (steps 2..N).
  const std::string step_range =
      options.iteration_range.empty() ? analysis::detect_step_range(trace) : options.iteration_range;
  const std::optional<analysis::StepSummary> steps =
      step_range.empty() ? std::nullopt : analysis::summarize_steps(trace, step_range);
  if (!steps && !options.iteration_range.empty())
    throw Error("--iteration-range '" + options.iteration_range + "': no NVTX range of that name in the capture");
  const std::optional<analysis::SteadyState> steady = steps ? analysis::steady_state(trace, *steps) : std::nullopt;
  const auto inputs = analysis::rule_inputs(trace, steady);
  Report r;
  r.sections.push_back(build_run_section(trace, top));
  r.sections.push_back(build_summary_section(summary, quality, cut, trace.run.source_tool));
  mark_lines_not_in_source(r.sections.back(), trace,
                           {{"wall_time", kGapTimeline}, {"gpu_busy_time", kGapTimeline}, {"gpu_busy_share", kGapTimeline},
                            {"kernel_share", kGapTimeline}, {"api_time", kGapApiCalls}, {"sync_wait_time", kGapSynchronization}});
  // The per-step picture comes first after the summary: what a training loop's owner asks first;
  // then what was paid once before it.
  // The top ops and modules go on the first screen too: right under the steps' verdict, else at
  // the end of the Executive summary.
  Section framework;
  add_top_framework_lines(framework, trace);
  if (steps) {
    r.sections.push_back(build_steps_section(*steps, top));
    std::vector<Line>& lines = r.sections.back().lines;
    lines.insert(lines.begin() + std::min<ptrdiff_t>(1, static_cast<ptrdiff_t>(lines.size())), framework.lines.begin(),
                 framework.lines.end());
  } else {
    std::vector<Line>& lines = r.sections[1].lines;  // the Executive summary
    lines.insert(lines.end(), framework.lines.begin(), framework.lines.end());
  }
  if (auto s = build_startup_section(trace, steady)) r.sections.push_back(std::move(*s));
  if (auto s = build_ranks_section(trace, top)) r.sections.push_back(std::move(*s));
  r.sections.push_back(build_bottleneck_section(trace, top, inputs));
  r.sections.push_back(build_recommendations_section(trace, summary.wall_ns, inputs));
  if (auto s = build_ops_section(trace, top)) r.sections.push_back(std::move(*s));
  if (auto s = build_modules_section(trace, top)) r.sections.push_back(std::move(*s));
  r.sections.push_back(build_kernel_section(trace, top));
  r.sections.push_back(build_launch_config_section(trace, top));
  for (Section& s : build_kernel_metric_sections(trace, top)) r.sections.push_back(std::move(s));
  if (auto s = build_gpu_utilization_section(trace)) r.sections.push_back(std::move(*s));
  r.sections.push_back(build_memory_section(trace, top));
  r.sections.push_back(build_api_section(trace, top));
  r.sections.push_back(build_sync_section(trace, top));
  r.sections.push_back(build_nvtx_section(trace, top));
  r.sections.push_back(build_quality_section(quality, summary.wall_ns, top));
  add_metric_collection_lines(r.sections.back(), trace);
  return r;
}

}  // namespace report

std::string render_report(const Trace& trace, const ReportOptions& options, const ReportFormat& format) {
  const analysis::AnalysisView view(trace);  // the program's timeline, without the profiler's time
  report::Report model = report::build_report(view.trace(), options, view.profiler_time());
  if (format.draws_timeline) model.timeline = report::make_timeline(view.trace(), view.profiler_time().total_ns());
  return format.render(model);
}

}  // namespace gpuscope
