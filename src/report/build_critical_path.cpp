// "Critical path": for each step, the chain of work that decided when it ended (host work, launch
// latency, kernels, copies, waits, collectives), and per segment kind and per kernel the lost
// potential time: how much the step would shorten if that work took no time. Shown when the
// run has steps (analysis::critical_paths, docs/report.md).
#include <algorithm>
#include <map>
#include <tuple>

#include "gpuscope/analysis_critical_path.h"
#include "report/builder.h"
#include "report/units.h"

namespace gpuscope::report {
namespace {

using analysis::kSegmentKinds;
using analysis::SegmentKind;

double median_of(std::vector<double> values) { return analysis::describe(std::move(values)).median; }

Cell rank_cell(int32_t rank) { return rank < 0 ? text("") : num(rank, Unit::Plain); }

std::string describe_segment(const analysis::PathSegment& s, bool ranks) {
  std::string out = analysis::to_string(s.kind);
  if (!s.name.empty()) out += " " + s.name;
  if (ranks) out += s.rank >= 0 ? " on rank " + std::to_string(s.rank) : " in process " + std::to_string(s.pid);
  return out;
}

// Per kind, medians over the steps: time on the path and lost potential time.
Table kinds_table(const analysis::CriticalPaths& paths) {
  Table t;
  t.key = "critical_path_kinds";
  t.title = "Critical path by segment kind (median per step)";
  t.columns = {text_column("kind", "Segment"), num_column("on_path", "On the path", Unit::Ns),
               num_column("share", "Share of the step", Unit::Percent), num_column("lost", "Lost potential", Unit::Ns)};
  std::vector<double> steps;
  for (const analysis::StepPath& p : paths.steps) steps.push_back(static_cast<double>(p.step_ns()));
  const double step = median_of(steps);
  for (size_t k = 0; k < kSegmentKinds; ++k) {
    std::vector<double> on, lost;
    for (const analysis::StepPath& p : paths.steps) {
      on.push_back(static_cast<double>(p.kind_ns[k]));
      lost.push_back(static_cast<double>(p.kind_lost_ns[k]));
    }
    const double on_path = median_of(on);
    if (on_path <= 0) continue;
    t.rows.push_back({text(analysis::to_string(static_cast<SegmentKind>(k))), num(on_path, Unit::Ns),
                      opt_num(analysis::share_percent(on_path, step), Unit::Percent), num(median_of(lost), Unit::Ns)});
  }
  t.notes.push_back(
      "Lost potential: how much the step would shorten if every segment of the kind took no time, "
      "re-timed (work on parallel paths takes over where it ends later).");
  return t;
}

Table kernels_table(const analysis::CriticalPaths& paths, size_t top) {
  Table t;
  t.key = "critical_path_kernels";
  t.title = "Kernels on and off the path (median per step)";
  t.columns = {text_column("name", "Kernel", TextStyle::Identifier), num_column("gpu", "GPU time", Unit::Ns),
               num_column("on_path", "On the path", Unit::Ns), num_column("lost", "Lost potential", Unit::Ns),
               text_column("verdict", "Shortening it", TextStyle::Prose)};
  for (const analysis::PathKernel& k : paths.kernels) {
    const std::string verdict = k.lost_ns > 0      ? "shortens the step"
                                : k.on_path_ns > 0 ? "saves nothing: parallel work takes over"
                                                   : "saves nothing: off the critical path";
    t.rows.push_back(
        {text(k.name), num(k.gpu_ns, Unit::Ns), num(k.on_path_ns, Unit::Ns), num(k.lost_ns, Unit::Ns), text(verdict)});
  }
  t.notes.push_back("Lost potential: the step's gain if every launch of the kernel in it took no time.");
  limit_rows(t, top);
  return t;
}

// Every analysed step's segments, in time order; times from the step's start.
Table segments_table(const analysis::StepSummary& summary, const analysis::CriticalPaths& paths, size_t top) {
  Table t;
  t.key = "critical_path_segments";
  t.title = "Critical path segments";
  t.columns = {text_column("step", "Step", TextStyle::Identifier),
               num_column("pid", "PID", Unit::Plain),
               num_column("rank", "Rank", Unit::Plain),
               text_column("kind", "Segment"),
               text_column("name", "What", TextStyle::Identifier),
               num_column("start", "From step start", Unit::Ns),
               num_column("duration", "Duration", Unit::Ns),
               num_column("lost", "Lost potential", Unit::Ns)};
  for (const analysis::StepPath& p : paths.steps) {
    const analysis::Step& step = summary.steps[p.step];
    for (const analysis::PathSegment& s : p.segments) {
      t.rows.push_back({text(step.name), num(s.pid, Unit::Plain), rank_cell(s.rank), text(analysis::to_string(s.kind)),
                        text(s.name), num(static_cast<double>(s.start - p.start), Unit::Ns),
                        num(static_cast<double>(s.length()), Unit::Ns), num(static_cast<double>(s.lost_ns), Unit::Ns)});
      t.spans.push_back({s.pid, s.start, s.end});  // the HTML timeline outlines the path's work
    }
  }
  t.notes.push_back(
      "Lost potential: the step's gain if the segment took no time; on another rank, bounded by "
      "how much later that rank arrived than the others could have, at the collective the path crossed.");
  limit_rows(t, top);
  return t;
}

}  // namespace

std::optional<Section> build_critical_path_section(const Trace& trace, const analysis::StepSummary& summary,
                                                   size_t top) {
  if (!summary.problem.empty() || summary.steps.empty()) return std::nullopt;
  const analysis::CriticalPaths paths = analysis::critical_paths(trace, summary);
  if (paths.steps.empty()) return std::nullopt;
  Section s;
  s.key = "critical_path";
  s.title = "Critical path";
  std::vector<double> step_ns, path_ns;
  // What bounds the steps most often: (rank, kind, name) of each step's bounding work, with its
  // time on the path and lost potential per step.
  struct Bounded {
    size_t steps = 0;
    std::vector<double> on_path, lost;
  };
  std::map<std::tuple<uint32_t, int32_t, SegmentKind, std::string>, Bounded> bounds;
  for (const analysis::StepPath& p : paths.steps) {
    step_ns.push_back(static_cast<double>(p.step_ns()));
    path_ns.push_back(static_cast<double>(p.path_ns));
    if (p.bound >= p.segments.size()) continue;
    const analysis::PathSegment& b = p.segments[p.bound];
    Bounded& bounded = bounds[{paths.ranks ? b.pid : 0, b.rank, b.kind, b.name}];
    ++bounded.steps;
    bounded.on_path.push_back(static_cast<double>(p.bound_ns));
    bounded.lost.push_back(static_cast<double>(p.bound_lost_ns));
  }
  s.lines.push_back({"steps", "Steps analysed", num(static_cast<double>(paths.steps.size()), Unit::Count),
                     paths.ranks ? "every rank's; across ranks through the last arrival at each collective" : ""});
  const double path = median_of(path_ns), step = median_of(step_ns);
  s.lines.push_back({"path_median", "Critical path (median)", num(path, Unit::Ns),
                     "of a median step of " + format_duration(step) + "; shorter only where the walk lost its way"});
  const auto most = std::max_element(bounds.begin(), bounds.end(),
                                     [](const auto& a, const auto& b) { return a.second.steps < b.second.steps; });
  if (most != bounds.end()) {
    const auto& [pid, rank, kind, name] = most->first;
    analysis::PathSegment b;
    b.kind = kind, b.name = name, b.rank = rank, b.pid = pid;
    s.lines.push_back({"bound_by", "Bounds the step", text(describe_segment(b, paths.ranks)),
                       plural(most->second.steps, "step", "steps") + "; per step " +
                           format_duration(median_of(most->second.on_path)) + " on the path, lost potential " +
                           format_duration(median_of(most->second.lost)) + " (medians)"});
    if (paths.ranks)
      s.lines.push_back({"bound_rank", "Rank that bounds the job's step", rank_cell(rank),
                         "process " + std::to_string(pid) +
                             ": the path runs through it at the collectives it "
                             "arrived at last"});
  }
  const size_t lagging = static_cast<size_t>(
      std::count_if(paths.steps.begin(), paths.steps.end(), [](const analysis::StepPath& p) { return p.gpu_lags; }));
  if (lagging) {
    std::vector<double> ranges;
    for (const analysis::StepPath& p : paths.steps) {
      const analysis::Step& range = summary.steps[p.step];
      ranges.push_back(static_cast<double>(range.end - range.start));
    }
    s.notes.push_back("In " + plural(lagging, "step", "steps") +
                      " the GPU work launched in the step ended after its range: the host ran ahead of the GPU. "
                      "A step is analysed as the GPU ran it: from where the previous step's GPU work ended "
                      "(or its range's start, if later) to where its own ended, the path walked back from "
                      "there; median " +
                      format_duration(step) + " against a median range of " + format_duration(median_of(ranges)) + ".");
  }
  if (paths.skipped_steps)
    s.notes.push_back(plural(paths.skipped_steps, "step", "steps") + " after each process's first " +
                      std::to_string(analysis::kMaxPathSteps) + " are not analysed.");
  s.tables.push_back(kinds_table(paths));
  s.tables.push_back(kernels_table(paths, top));
  s.tables.push_back(segments_table(summary, paths, top));
  return s;
}

}  // namespace gpuscope::report
