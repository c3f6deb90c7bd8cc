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
#include "report/sections.h"

namespace gpuscope {
namespace report {

namespace {

using Built = std::vector<std::vector<Section>>;  // per row of report_sections()

// The rows that read the trace alone (`trace_alone`) or the others, each in its slot.
Built build_rows(const SectionInputs& inputs, bool trace_alone) {
  const std::vector<SectionSpec>& specs = report_sections();
  Built built(specs.size());
  for (size_t i = 0; i < specs.size(); ++i)
    if (specs[i].trace_alone == trace_alone) built[i] = specs[i].build(inputs);
  return built;
}

}  // namespace

Report build_report(const Trace& trace, const ReportOptions& options, const analysis::ProfilerTime& cut) {
  // The sections of the trace alone are built on a second thread meanwhile (the trace is only
  // read; each section is placed below in report order, so the report is the same, byte for
  // byte). One thread, not one per analysis: each analysis's working arrays (a million
  // launches sorted) live while it runs, so every concurrent one adds to the peak memory.
  const SectionInputs alone{trace, options.top, cut, nullptr, options.source.get()};
  auto trace_only = std::async(std::launch::async, build_rows, std::cref(alone), true);
  SharedAnalyses shared;
  shared.summary = analysis::summarize_executive(trace);
  shared.quality = analysis::assess_data_quality(trace);
  // The steps: the range the user named, else the one detect_step_range finds. When the launched
  // process has steps, the rules and the Bottleneck judge their steady state (steps 2..N).
  const std::string step_range = options.iteration_range.empty() ? analysis::detect_step_range(trace)
                                                                 : options.iteration_range;
  if (!step_range.empty()) shared.steps = analysis::summarize_steps(trace, step_range);
  if (!options.iteration_range.empty()) {  // the user's range: its steps, or a one-line error
    if (!shared.steps)
      throw Error("--iteration-range '" + options.iteration_range + "': no NVTX range of that name in the capture");
    if (!shared.steps->problem.empty()) throw Error("--iteration-range: " + shared.steps->problem);
  }
  if (shared.steps) shared.steady = analysis::steady_state(trace, *shared.steps);
  shared.rule_inputs = analysis::rule_inputs(trace, shared.steady);
  // PC samples with their lines and SASS: the Source section and hot_source_line read them.
  if (analysis::has_pc_samples(trace))
    shared.rule_inputs.source = std::make_shared<const analysis::SourceProfile>(
        analysis::profile_source(trace, options.source.get(), options.top, kSourceKernelsShown));
  Built built = build_rows(SectionInputs{trace, options.top, cut, &shared, options.source.get()}, false);
  Built alone_built = trace_only.get();

  Report r;
  if (shared.steady) {
    const analysis::SteadyState& steady = *shared.steady;
    r.steady = SteadyWindow{steady.pid, steady.start, steady.end, steady.range, steady.steps};
  }
  for (size_t i = 0; i < built.size(); ++i)
    for (Section& section : report_sections()[i].trace_alone ? alone_built[i] : built[i])
      r.sections.push_back(std::move(section));
  return r;
}

}  // namespace report

std::string render_report(const Trace& trace, const ReportOptions& options, const ReportFormat& format) {
  const analysis::AnalysisView view(trace);  // the program's timeline, without the profiler's time
  report::Report model = report::build_report(view.trace(), options, view.profiler_time());
  if (format.draws_timeline) model.timeline = report::make_timeline_view(view.trace(), view.profiler_time().total_ns());
  return format.render(model);
}

}  // namespace gpuscope
