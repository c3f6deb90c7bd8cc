// The stages the scale bench times, in the order gpuscope runs them: the spools a run leaves are
// imported and written as a capture (`profile` after the program exits), the capture is read and
// analysed and rendered (`report`, `export`), and two captures are compared (`diff`, `check`).
// The analyses inside the report are also timed one by one, as build_report() calls them, so a
// row says where the report's time goes; the report row itself repeats them all.
#include "scale_stages.h"

#include <filesystem>
#include <fstream>
#include <optional>

#include "analysis/retime.h"
#include "analysis/rules/rule.h"
#include "gpuscope/analysis_profiler_time.h"
#include "gpuscope/check_report.h"
#include "gpuscope/diff_report.h"
#include "gpuscope/export.h"
#include "gpuscope/report.h"
#include "gpuscope/store.h"
#include "gpuscope/tracks.h"
#include "importers/importer.h"
#include "report/builder.h"
#include "report/renderers.h"
#include "scale_spool.h"

namespace gpuscope::bench {
namespace {

namespace fs = std::filesystem;

uint64_t total_size(const std::vector<std::string>& paths) {
  uint64_t bytes = 0;
  for (const auto& p : paths) bytes += fs::file_size(p);
  return bytes;
}

// A gate file as CI would keep one: totals, a kernel limit and a baseline comparison.
constexpr char kRules[] = R"([[total]]
name = "wall"
max = "1000 s"

[[kernel]]
match = "*fused_op_00*"
max = "1 s"

[[baseline]]
kind = "kernel"
match = "*"
max_slower_pct = 50
)";

// The analyses build_report() runs, one row each, on the capture as `report` sees it.
void time_analyses(const Trace& trace, StageTimer& timer) {
  std::string step_range;
  std::optional<analysis::StepSummary> steps;
  std::optional<analysis::SteadyState> steady;
  timer.time("analysis: executive summary", [&] {
    (void)analysis::summarize_executive(trace);
    return uint64_t(0);
  });
  timer.time("analysis: data quality", [&] {
    (void)analysis::assess_data_quality(trace);
    return uint64_t(0);
  });
  timer.time("analysis: steps (detect + summarize)", [&] {
    step_range = analysis::detect_step_range(trace);
    if (!step_range.empty()) steps = analysis::summarize_steps(trace, step_range);
    return uint64_t(0);
  });
  timer.time("analysis: steady state", [&] {
    if (steps) steady = analysis::steady_state(trace, *steps);
    return uint64_t(0);
  });
  std::optional<analysis::Interval> window;
  if (steady) window = analysis::Interval{steady->start, steady->end};
  analysis::RuleInputs inputs;
  inputs.steady = steady;
  timer.time("analysis: timeline (all gaps)", [&] {
    analysis::TimelineOptions all_gaps;
    all_gaps.max_gaps = SIZE_MAX;
    all_gaps.window = window;
    inputs.timeline = analysis::analyze_timeline(trace, all_gaps);
    return uint64_t(0);
  });
  timer.time("analysis: attribution", [&] {
    inputs.attribution = analysis::attribute_wall_time(trace, window);
    return uint64_t(0);
  });
  std::optional<analysis::rules::RuleContext> ctx;
  timer.time("analysis: rule context", [&] {
    ctx.emplace(analysis::rules::make_context(trace, inputs));
    return uint64_t(0);
  });
  timer.time("analysis: re-timing (one replay)", [&] {
    if (ctx->main) (void)analysis::Retimer(trace, *ctx->main).saving({});
    return uint64_t(0);
  });
  for (const auto& rule : analysis::rules::all_rules())
    timer.time("rule: " + rule->id(), [&] {
      (void)rule->check(*ctx);
      return uint64_t(0);
    });
  timer.time("analysis: NVTX (GPU projection)", [&] {
    (void)analysis::summarize_nvtx(trace);
    return uint64_t(0);
  });
  timer.time("analysis: kernels", [&] {
    (void)analysis::summarize_kernels(trace);
    return uint64_t(0);
  });
}

void time_outputs(const Trace& trace, const std::string& dir, StageTimer& timer) {
  std::optional<report::Report> model;
  timer.time("report model (all analyses + sections)", [&] {
    model = report::build_report(trace, {});
    return uint64_t(0);
  });
  for (const char* name : {"text", "markdown", "json"}) {
    const ReportFormat& format = parse_report_format(name);
    timer.time(std::string("render ") + name, [&] { return uint64_t(format.render(*model).size()); });
  }
  timer.time("render html (timeline included)", [&] {
    model->timeline = report::make_timeline_view(trace, 0);
    return uint64_t(parse_report_format("html").render(*model).size());
  });
  model.reset();
  std::optional<tracks::Layout> layout;
  timer.time("export: track layout", [&] {
    layout = tracks::layout_tracks(trace);
    return uint64_t(0);
  });
  for (const ExportFormat& f : export_formats())
    timer.time("export " + f.name + " (layout excluded)", [&] {
      const std::string path = dir + "/scale" + f.extension;
      {
        std::ofstream out(path, std::ios::binary | std::ios::trunc);
        f.write(trace, *layout, {}, out);
      }
      const uint64_t bytes = fs::file_size(path);
      fs::remove(path);
      return bytes;
    });
}

}  // namespace

size_t run_stages(const synth::ScaleOptions& options, const std::string& dir, StageTimer& timer) {
  std::optional<Trace> generated;
  timer.time("generate (synthetic, not gpuscope)", [&] {
    generated = synth::scale_run(options);
    return uint64_t(0);
  });
  const size_t records = synth::record_count(*generated);
  std::vector<std::string> spools;
  timer.time("write spools (capture's SpoolWriter)", [&] {
    spools = write_spools(*generated, dir);
    return total_size(spools);
  });
  generated.reset();

  // `profile` after the program exits: spools -> trace -> capture file.
  const std::string capture = dir + "/scale.gpuscope";
  {
    std::optional<Trace> imported;
    timer.time("import spools", [&] {
      imported = import_spools(spools);
      return uint64_t(0);
    });
    for (const auto& s : spools) fs::remove(s);
    timer.time("write capture (SQLite)", [&] {
      write_trace(capture, *imported);
      return uint64_t(fs::file_size(capture));
    });
  }

  // `report`: the capture read back, analysed and rendered.
  std::optional<Trace> trace;
  timer.time("read capture (SQLite)", [&] {
    trace = read_trace(capture);
    return uint64_t(0);
  });
  timer.time("gpuscope report, text (after the read)",
             [&] { return uint64_t(render_report(*trace, {}, parse_report_format("text")).size()); });
  std::optional<analysis::AnalysisView> view;
  timer.time("analysis: profiler-time view", [&] {
    view.emplace(*trace);
    return uint64_t(0);
  });
  time_analyses(view->trace(), timer);
  time_outputs(view->trace(), dir, timer);
  view.reset();

  // `diff` and `check`: against a second capture of the same shape (another seed).
  synth::ScaleOptions other = options;
  other.seed = options.seed + 1;
  std::optional<Trace> base;
  timer.time("generate second capture (not gpuscope)", [&] {
    base = synth::scale_run(other);
    return uint64_t(0);
  });
  timer.time("diff (analysis + text)", [&] {
    const analysis::DiffResult diff = analysis::diff_traces(*base, *trace, {});
    return uint64_t(render_diff(diff, {"base", "new", std::nullopt, 0}, parse_report_format("text")).size());
  });
  timer.time("check (3 gates, baseline included)", [&] {
    const check::GateSet rules = check::parse_rules(kRules, "scale.toml");
    const check::CheckResult result = check::evaluate(rules, *trace, &*base, {});
    return uint64_t(check::render_check(result, parse_report_format("text")).size());
  });
  fs::remove(capture);
  return records;
}

}  // namespace gpuscope::bench
