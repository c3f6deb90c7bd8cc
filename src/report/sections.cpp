#include "report/sections.h"

#include <algorithm>
#include <utility>

namespace gpuscope::report {
namespace {

std::vector<Section> one(Section section) {
  std::vector<Section> sections;
  sections.push_back(std::move(section));
  return sections;
}

std::vector<Section> maybe(std::optional<Section> section) {
  return section ? one(std::move(*section)) : std::vector<Section>{};
}

std::vector<Section> run(const SectionInputs& in) { return one(build_run_section(in.trace, in.top)); }

// The top ops and modules go on the first screen: under the steps' verdict when the run has
// steps, else at the end of the Executive summary.
std::vector<Section> summary(const SectionInputs& in) {
  const SharedAnalyses& shared = *in.shared;
  Section s = build_summary_section(shared.summary, shared.quality, in.cut, in.trace.run.source_tool);
  mark_lines_not_in_source(s, in.trace,
                           {{"wall_time", kGapTimeline},
                            {"gpu_busy_time", kGapTimeline},
                            {"gpu_busy_share", kGapTimeline},
                            {"kernel_share", kGapTimeline},
                            {"api_time", kGapApiCalls},
                            {"sync_wait_time", kGapSynchronization}});
  if (!shared.steps) add_top_framework_lines(s, in.trace);
  return one(std::move(s));
}

// What a training loop's owner asks first, right after the summary.
std::vector<Section> steps(const SectionInputs& in) {
  if (!in.shared->steps) return {};
  Section s = build_steps_section(*in.shared->steps, in.top);
  Section framework;
  add_top_framework_lines(framework, in.trace);
  s.lines.insert(s.lines.begin() + std::min<ptrdiff_t>(1, static_cast<ptrdiff_t>(s.lines.size())),
                 framework.lines.begin(), framework.lines.end());
  return one(std::move(s));
}

std::vector<Section> critical_path(const SectionInputs& in) {
  return in.shared->steps ? maybe(build_critical_path_section(in.trace, *in.shared->steps, in.top))
                          : std::vector<Section>{};
}

std::vector<Section> startup(const SectionInputs& in) {
  return maybe(build_startup_section(in.trace, in.shared->steady));
}

// The straggler rule's analysis of the ranks, computed once for both.
std::vector<Section> ranks(const SectionInputs& in) {
  return maybe(build_ranks_section(in.shared->rule_inputs.ranks, in.top));
}

std::vector<Section> bottleneck(const SectionInputs& in) {
  return one(build_bottleneck_section(in.trace, in.top, in.shared->rule_inputs));
}

std::vector<Section> recommendations(const SectionInputs& in) {
  return one(build_recommendations_section(in.trace, in.shared->summary.wall_ns, in.shared->rule_inputs));
}

std::vector<Section> ops(const SectionInputs& in) { return maybe(build_ops_section(in.trace, in.top)); }
std::vector<Section> modules(const SectionInputs& in) { return maybe(build_modules_section(in.trace, in.top)); }

// One summary of the launches for both tables: a million launches summarized once, not twice.
std::vector<Section> kernels(const SectionInputs& in) {
  const std::vector<analysis::KernelGroup> groups = analysis::summarize_kernels(in.trace);
  std::vector<Section> sections = one(build_kernel_section(groups, in.top));
  sections.push_back(build_launch_config_section(in.trace, groups, in.top));
  return sections;
}

// Each graph's share of the run's GPU busy time, as the Executive summary counts it.
std::vector<Section> graphs(const SectionInputs& in) {
  return maybe(build_graphs_section(in.trace, in.top, in.shared->summary.gpu_busy_ns));
}

std::vector<Section> source(const SectionInputs& in) {
  const auto& profile = in.shared->rule_inputs.source;
  return profile ? one(build_source_section(*profile, in.top, in.source != nullptr)) : std::vector<Section>{};
}
std::vector<Section> kernel_metrics(const SectionInputs& in) { return build_kernel_metric_sections(in.trace, in.top); }
std::vector<Section> gpu_utilization(const SectionInputs& in) { return maybe(build_gpu_utilization_section(in.trace)); }
std::vector<Section> memory(const SectionInputs& in) { return one(build_memory_section(in.trace, in.top)); }
std::vector<Section> api(const SectionInputs& in) { return one(build_api_section(in.trace, in.top)); }
std::vector<Section> sync(const SectionInputs& in) { return one(build_sync_section(in.trace, in.top)); }
std::vector<Section> nvtx(const SectionInputs& in) { return one(build_nvtx_section(in.trace, in.top)); }

std::vector<Section> quality(const SectionInputs& in) {
  Section s = build_quality_section(in.shared->quality, in.shared->summary.wall_ns, in.top);
  add_metric_collection_lines(s, in.trace);
  return one(std::move(s));
}

}  // namespace

const std::vector<SectionSpec>& report_sections() {
  static const std::vector<SectionSpec> sections = {
      {"Run", true, run},
      {"Executive summary", false, summary},
      {"Steps", false, steps},
      {"Critical path", false, critical_path},
      {"Start-up", false, startup},
      {"Ranks", false, ranks},
      {"Bottleneck", false, bottleneck},
      {"Recommendations", false, recommendations},
      {"PyTorch ops", true, ops},
      {"PyTorch modules", true, modules},
      {"Kernels and launch configurations", true, kernels},
      {"CUDA graphs", false, graphs},
      {"Kernel metrics, one section per topic", true, kernel_metrics},
      {"Source (PC samples)", false, source},
      {"GPU utilization", true, gpu_utilization},
      {"Memory", true, memory},
      {"CUDA API", true, api},
      {"Synchronization", true, sync},
      {"NVTX", true, nvtx},
      {"Data quality", false, quality},
  };
  return sections;
}

}  // namespace gpuscope::report
