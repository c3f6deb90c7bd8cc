// [[metric]] rules of `gpuscope check` (syntax: docs/diff.md, "Gates").
//
// Absolute limits (min / max) apply to the median of the metric over a kernel's
// launches, kernels grouped by name as [[kernel]] rules group them. Change limits
// against --baseline apply to the change of medians per kernel group as diff
// matches them (analysis_diff.h, MetricDiffItem). The change gate is the plain
// change, not significance-aware like [[baseline]]: metrics are counted, not
// timed, and many (bytes, instructions, conflicts) repeat exactly from launch to
// launch, while the range profiler often measures only a few launches: with 3
// against 3 even a complete separation has an exact p of 0.1, so a significance
// gate could never fail. The verdict is still shown next to the change.
#include "analysis/check_metrics.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <tuple>

#include "analysis/grouping.h"
#include "common/error.h"
#include "common/glob.h"
#include "gpuscope/metric_sets.h"

namespace gpuscope::check::detail {
namespace {

using LaunchKey = std::tuple<uint32_t, uint32_t, uint32_t>;  // run, pid, correlation id
constexpr size_t kAmbiguous = std::numeric_limits<size_t>::max();

std::set<std::string> metric_names(const Trace& trace) {
  std::set<StringId> ids;
  for (const KernelMetric& m : trace.kernel_metrics) ids.insert(m.metric);
  std::set<std::string> names;
  for (StringId id : ids) names.insert(trace.strings.get(id));
  return names;
}

// "a, b, c and 4 more".
std::string some_of(const std::set<std::string>& names, size_t shown = 4) {
  std::string out;
  size_t n = 0;
  for (const std::string& name : names) {
    if (n == shown) return out + fmt::format(" and {} more", names.size() - shown);
    out += (n++ ? ", " : "") + name;
  }
  return out;
}

// Why a capture has no kernel metrics: the status the capture wrote, or how to collect them.
std::string why_none(const Trace& trace) {
  for (const MetricCollection& c : trace.metric_collections)
    if (c.kind == "kernel" && c.status != "ok") return "metric collection failed: " + c.status;
  return "it has no kernel metrics; capture with 'gpuscope profile --metrics SETS'";
}

// Values of one metric per kernel name; a launch key shared by several kernels (the nodes of
// a graph launch) or matching none cannot be attributed and is left out.
std::map<std::string, std::vector<double>> values_by_kernel(const Trace& trace, const std::string& metric) {
  std::map<LaunchKey, size_t> launch;
  for (size_t i = 0; i < trace.kernels.size(); ++i) {
    const Kernel& k = trace.kernels[i];
    auto [it, fresh] = launch.try_emplace(LaunchKey{k.run_id, k.pid, k.correlation_id}, i);
    if (!fresh) it->second = kAmbiguous;
  }
  std::map<std::string, std::vector<double>> out;
  for (const KernelMetric& m : trace.kernel_metrics) {
    if (trace.strings.get(m.metric) != metric) continue;
    auto it = launch.find({m.run_id, m.pid, m.correlation_id});
    if (it == launch.end() || it->second == kAmbiguous) continue;
    out[analysis::detail::kernel_name(trace, trace.kernels[it->second])].push_back(m.value);
  }
  return out;
}

// "gemm (SM throughput)": the kernel and the metric's label (its name when unknown), so a
// table or JUnit line says what was measured without the rules file at hand.
Outcome outcome(const Gate& rule, const std::string& kernel, Measure measure, double value) {
  const MetricInfo* info = find_metric(rule.name);
  Outcome o;
  o.rule_id = rule.id;
  o.rule_line = rule.line;
  o.target = kernel + " (" + (info ? info->label : rule.name) + ")";
  o.measure = measure;
  o.metric = rule.name;
  o.value = value;
  return o;
}

void check_absolute(const Gate& rule, const Trace& trace, std::vector<Outcome>& out, const std::string& at) {
  const auto values = values_by_kernel(trace, rule.name);
  size_t matched = 0;
  for (const analysis::KernelGroup& g : analysis::summarize_kernels(trace)) {  // kernel-summary order
    auto it = values.find(g.name);
    if (it == values.end() || !glob_match(rule.match, g.name)) continue;
    ++matched;
    const double median = analysis::median(it->second);
    Outcome o = outcome(rule, g.name, Measure::Metric, median);
    o.min = rule.min;
    o.max = rule.max;
    o.passed = (!rule.min || median >= *rule.min) && (!rule.max || median <= *rule.max);
    o.message = fmt::format("median of {} launch{}", it->second.size(), it->second.size() == 1 ? "" : "es");
    out.push_back(std::move(o));
  }
  if (matched == 0) {
    std::set<std::string> kernels;
    for (const auto& [name, v] : values) kernels.insert(name);
    throw Error(fmt::format("{}: metric rule '{}' matches no kernel with {} (match = \"{}\"; kernels with it: {})", at,
                            rule.id, rule.name, rule.match, kernels.empty() ? "none" : some_of(kernels)));
  }
}

// Change of medians in %; from a base of 0 the relative change is infinite (or 0 when both are 0).
double change_of(const analysis::Comparison& c) {
  if (c.base_count == 0 || c.new_count == 0) return std::numeric_limits<double>::quiet_NaN();
  if (c.base_median != 0) return c.change_percent;
  if (c.new_median == 0) return 0;
  return std::copysign(std::numeric_limits<double>::infinity(), c.new_median);
}

void check_change(const Gate& rule, const analysis::DiffResult& diff, std::vector<Outcome>& out,
                  const std::string& at) {
  size_t matched = 0;
  for (const analysis::MetricDiffItem& item : diff.metrics) {
    if (item.metric != rule.name || !glob_match(rule.match, item.kernel)) continue;
    ++matched;
    const double change = change_of(item.cmp);
    Outcome o = outcome(rule, item.kernel + (item.detail.empty() ? "" : " [" + item.detail + "]"),
                        Measure::MetricChange, change);
    o.target += " vs baseline";
    o.ci_low = item.cmp.ci.low;
    o.ci_high = item.cmp.ci.high;
    o.p_value = item.cmp.test.p_value;
    if (rule.max_decrease_percent) o.min = -*rule.max_decrease_percent;
    o.max = rule.max_increase_percent;
    // A kernel measured in one file only has no change to judge (as [[baseline]] rules treat it).
    o.passed = std::isnan(change) || ((!o.min || change >= *o.min) && (!o.max || change <= *o.max));
    o.message = analysis::metric_verdict(item.cmp.verdict);
    out.push_back(std::move(o));
  }
  if (matched == 0)
    throw Error(fmt::format("{}: metric rule '{}' matches no kernel with {} in both captures (match = \"{}\")", at,
                            rule.id, rule.name, rule.match));
}

}  // namespace

void require_metric(const Gate& rule, const Trace& trace, const std::string& label, const std::string& at) {
  const std::set<std::string> names = metric_names(trace);
  if (names.count(rule.name)) return;
  throw Error(fmt::format("{}: metric {} not in {} ({})", at, rule.name, label,
                          names.empty() ? why_none(trace) : "it has: " + some_of(names)));
}

void check_metric(const Gate& rule, const Trace& trace, const analysis::DiffResult* diff, std::vector<Outcome>& out,
                  const std::string& at) {
  if (rule.min || rule.max) check_absolute(rule, trace, out, at);
  if (rule.needs_baseline()) check_change(rule, *diff, out, at);
}

}  // namespace gpuscope::check::detail
