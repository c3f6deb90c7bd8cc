// Evaluating `gpuscope check` rules against a capture (and its baseline).
// A rule that matches nothing is an error, not a pass (see gpuscope/check.h).
#include <fmt/format.h>

#include <algorithm>

#include "analysis/check_metrics.h"
#include "analysis/check_ranks.h"
#include "common/error.h"
#include "common/glob.h"
#include "gpuscope/analysis.h"
#include "gpuscope/analysis_diff.h"
#include "gpuscope/analysis_profiler_time.h"
#include "gpuscope/check.h"

namespace gpuscope::check {
namespace {

bool within(const Gate& rule, double value) {
  return (!rule.min || value >= *rule.min) && (!rule.max || value <= *rule.max);
}

Outcome outcome_of(const Gate& rule, const std::string& target, Measure measure, double value) {
  Outcome o;
  o.rule_id = rule.id;
  o.rule_line = rule.line;
  o.target = target;
  o.measure = measure;
  o.value = value;
  o.min = rule.min;
  o.max = rule.max;
  o.passed = within(rule, value);
  return o;
}

std::string where(const GateSet& set, const Gate& rule) { return fmt::format("{}:{}", set.source, rule.line); }

void check_total(const Gate& rule, const analysis::ExecutiveSummary& s,
                 const std::optional<analysis::RanksAnalysis>& ranks, std::vector<Outcome>& out,
                 const std::string& at) {
  bool duration = true;
  if (detail::is_ranks_total(rule.name, duration)) {
    const detail::RanksValue v = detail::ranks_total(rule, ranks, at);
    out.push_back(outcome_of(rule, v.target, v.duration ? Measure::Duration : Measure::Number, v.value));
    return;
  }
  if (rule.name == "wall" && s.wall_source == analysis::WallSource::None)
    throw Error(at + ": total 'wall' matches nothing: the capture has no run times and no events");
  struct Total {
    const char* name;
    const char* label;
    TimeNs value;
  };
  const Total totals[] = {{"wall", "Wall time", s.wall_ns},       {"gpu_busy", "GPU busy", s.gpu_busy_ns},
                          {"kernel", "Kernel time", s.kernel_ns}, {"api", "CUDA API time", s.api_ns},
                          {"copy", "Copy time", s.memcpy_ns},     {"sync", "Sync wait", s.sync_wait_ns}};
  for (const Total& t : totals)
    if (rule.name == t.name) out.push_back(outcome_of(rule, t.label, Measure::Duration, static_cast<double>(t.value)));
}

double stat_of(const analysis::Stats& s, const std::string& stat) {
  if (stat == "mean") return s.mean;
  if (stat == "min") return s.min;
  if (stat == "max") return s.max;
  if (stat == "total") return s.total;
  if (stat == "count") return static_cast<double>(s.count);
  return s.median;
}

void check_kernels(const Gate& rule, const Trace& trace, std::vector<Outcome>& out, const std::string& at) {
  size_t matched = 0;
  for (const analysis::KernelGroup& g : analysis::summarize_kernels(trace)) {
    if (!glob_match(rule.match, g.name)) continue;
    ++matched;
    Outcome o = outcome_of(rule, g.name, rule.duration ? Measure::Duration : Measure::Number,
                           stat_of(g.duration, rule.stat));
    o.message = rule.stat;
    out.push_back(std::move(o));
  }
  if (matched == 0)
    throw Error(fmt::format("{}: kernel rule '{}' matches no kernel (match = \"{}\")", at, rule.id, rule.match));
}

bool kind_matches(const std::string& kind, analysis::DiffCategory c) {
  if (c == analysis::DiffCategory::Total) return false;  // one value per file: never judged
  return kind == "any" || kind == analysis::to_string(c);
}

void check_baseline(const Gate& rule, const analysis::DiffResult& diff, std::vector<Outcome>& out,
                    const std::string& at) {
  size_t matched = 0;
  for (const analysis::DiffItem& item : diff.items) {
    if (!kind_matches(rule.item_kind, item.category) || !glob_match(rule.match, item.name)) continue;
    ++matched;
    Outcome o;
    o.rule_id = rule.id;
    o.rule_line = rule.line;
    o.target = std::string(analysis::to_string(item.category)) + " " + item.name +
               (item.detail.empty() ? "" : " [" + item.detail + "]");
    o.measure = Measure::Change;
    o.value = item.cmp.change_percent;
    o.ci_low = item.cmp.ci.low;
    o.ci_high = item.cmp.ci.high;
    o.p_value = item.cmp.test.p_value;
    o.max = rule.max_slower_percent;
    // Significance-aware: only a significant regression beyond the limit fails.
    o.passed = !(item.cmp.verdict == analysis::Verdict::Slower && item.cmp.change_percent > *rule.max_slower_percent);
    o.message = analysis::to_string(item.cmp.verdict);
    out.push_back(std::move(o));
  }
  if (matched == 0)
    throw Error(fmt::format("{}: baseline rule '{}' matches nothing (kind = \"{}\", match = \"{}\")", at, rule.id,
                            rule.item_kind, rule.match));
}

}  // namespace

size_t CheckResult::failures() const {
  return static_cast<size_t>(
      std::count_if(outcomes.begin(), outcomes.end(), [](const Outcome& o) { return !o.passed; }));
}

CheckResult evaluate(const GateSet& rules, const Trace& capture, const Trace* baseline,
                     const analysis::CompareOptions& options, const analysis::IterationSpec& baseline_iterations,
                     const analysis::IterationSpec& trace_iterations) {
  // The program's timeline, without the profiler's time (a capture made with --metrics);
  // diff_traces does the same for the baseline.
  const analysis::AnalysisView view(capture);
  const Trace& trace = view.trace();
  if (rules.needs_baseline() && !baseline)
    throw Error(rules.source + ": [[baseline]] rules and [[metric]] change limits need --baseline BASE.gpuscope");
  // Metrics first: a capture without them fails fast, before any output.
  for (const Gate& rule : rules.rules) {
    if (rule.kind != GateKind::Metric) continue;
    detail::require_metric(rule, trace, "capture", where(rules, rule));
    if (rule.needs_baseline()) detail::require_metric(rule, *baseline, "baseline", where(rules, rule));
  }

  CheckResult result;
  const analysis::ExecutiveSummary summary = analysis::summarize_executive(trace);
  const bool gates_ranks = std::any_of(rules.rules.begin(), rules.rules.end(), [](const Gate& r) {
    bool duration = true;
    return r.kind == GateKind::Total && detail::is_ranks_total(r.name, duration);
  });
  const std::optional<analysis::RanksAnalysis> ranks = gates_ranks ? analysis::analyze_ranks(trace) : std::nullopt;
  std::optional<analysis::DiffResult> diff;
  if (baseline) diff = analysis::diff_traces(*baseline, trace, options, baseline_iterations, trace_iterations);
  for (const Gate& rule : rules.rules) {
    const std::string at = where(rules, rule);
    switch (rule.kind) {
      case GateKind::Total: check_total(rule, summary, ranks, result.outcomes, at); break;
      case GateKind::Kernel: check_kernels(rule, trace, result.outcomes, at); break;
      case GateKind::Baseline: check_baseline(rule, *diff, result.outcomes, at); break;
      case GateKind::Metric: detail::check_metric(rule, trace, diff ? &*diff : nullptr, result.outcomes, at); break;
    }
  }
  return result;
}

}  // namespace gpuscope::check
