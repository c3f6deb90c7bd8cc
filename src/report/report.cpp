// render_report(): analyses -> report model -> the chosen renderer.
#include "gpuscope/report.h"

#include <functional>
#include <future>
#include <utility>

#include "common/error.h"
#include "gpuscope/analysis_profiler_time.h"
#include "gpuscope/analysis_steps.h"
#include "report/builder.h"
#include "report/renderers.h"

namespace gpuscope {
namespace report {

namespace {

// The sections that read nothing but the trace, in report order of their places below.
struct TraceOnlySections {
  Section run;
  Section framework;  // the top ops and modules: lines for Steps, else the Executive summary
  std::optional<Section> ops, modules, gpu_utilization;
  Section kernels, launch_config;
  std::vector<Section> kernel_metrics;
  Section memory, api, sync, nvtx;
};

TraceOnlySections build_trace_only_sections(const Trace& trace, size_t top) {
  TraceOnlySections s;
  s.run = build_run_section(trace, top);
  add_top_framework_lines(s.framework, trace);
  s.ops = build_ops_section(trace, top);
  s.modules = build_modules_section(trace, top);
  const std::vector<analysis::KernelGroup> kernel_groups = analysis::summarize_kernels(trace);
  s.kernels = build_kernel_section(kernel_groups, top);
  s.launch_config = build_launch_config_section(trace, kernel_groups, top);
  s.kernel_metrics = build_kernel_metric_sections(trace, top);
  s.gpu_utilization = build_gpu_utilization_section(trace);
  s.memory = build_memory_section(trace, top);
  s.api = build_api_section(trace, top);
  s.sync = build_sync_section(trace, top);
  s.nvtx = build_nvtx_section(trace, top);
  return s;
}

}  // namespace

Report build_report(const Trace& trace, const ReportOptions& options, const analysis::ProfilerTime& cut) {
  const size_t top = options.top;
  // The sections of the trace alone are built on a second thread meanwhile (the trace is only
  // read; each section is placed below in report order, so the report is the same, byte for
  // byte). One thread, not one per analysis: each analysis's working arrays (a million
  // launches sorted) live while it runs, so every concurrent one adds to the peak memory.
  auto trace_only = std::async(std::launch::async, build_trace_only_sections, std::cref(trace), top);
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
  std::optional<Section> startup = build_startup_section(trace, steady);
  const auto inputs = analysis::rule_inputs(trace, steady);
  Section bottleneck = build_bottleneck_section(trace, top, inputs);
  Section recommendations = build_recommendations_section(trace, summary.wall_ns, inputs);
  std::optional<Section> ranks = build_ranks_section(inputs.ranks, top);  // the straggler rule's analysis, once
  TraceOnlySections sections = trace_only.get();

  Report r;
  if (steady) r.steady = SteadyWindow{steady->pid, steady->start, steady->end, steady->range, steady->steps};
  r.sections.push_back(std::move(sections.run));
  r.sections.push_back(build_summary_section(summary, quality, cut, trace.run.source_tool));
  mark_lines_not_in_source(r.sections.back(), trace,
                           {{"wall_time", kGapTimeline}, {"gpu_busy_time", kGapTimeline}, {"gpu_busy_share", kGapTimeline},
                            {"kernel_share", kGapTimeline}, {"api_time", kGapApiCalls}, {"sync_wait_time", kGapSynchronization}});
  // The per-step picture comes first after the summary: what a training loop's owner asks first;
  // then what was paid once before it.
  // The top ops and modules go on the first screen too: right under the steps' verdict, else at
  // the end of the Executive summary.
  const std::vector<Line>& framework = sections.framework.lines;
  if (steps) {
    r.sections.push_back(build_steps_section(*steps, top));
    std::vector<Line>& lines = r.sections.back().lines;
    lines.insert(lines.begin() + std::min<ptrdiff_t>(1, static_cast<ptrdiff_t>(lines.size())), framework.begin(),
                 framework.end());
  } else {
    std::vector<Line>& lines = r.sections[1].lines;  // the Executive summary
    lines.insert(lines.end(), framework.begin(), framework.end());
  }
  auto add = [&](std::optional<Section>& s) {
    if (s) r.sections.push_back(std::move(*s));
  };
  add(startup);
  add(ranks);
  r.sections.push_back(std::move(bottleneck));
  r.sections.push_back(std::move(recommendations));
  add(sections.ops);
  add(sections.modules);
  r.sections.push_back(std::move(sections.kernels));
  r.sections.push_back(std::move(sections.launch_config));
  for (Section& s : sections.kernel_metrics) r.sections.push_back(std::move(s));
  add(sections.gpu_utilization);
  r.sections.push_back(std::move(sections.memory));
  r.sections.push_back(std::move(sections.api));
  r.sections.push_back(std::move(sections.sync));
  r.sections.push_back(std::move(sections.nvtx));
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
