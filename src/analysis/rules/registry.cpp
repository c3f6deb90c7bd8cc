// The rule registry and run_rules(): every rule in a fixed order, findings
// sorted by estimated saving so the first one is the first thing to fix.
#include <algorithm>

#include "analysis/rules/rule.h"

namespace gpuscope::analysis {
namespace rules {

std::vector<std::unique_ptr<Rule>> all_rules() {
  std::vector<std::unique_ptr<Rule>> r;
  r.push_back(make_allocation_rule());
  r.push_back(make_pageable_rule());
  r.push_back(make_sync_copy_rule());
  r.push_back(make_excessive_sync_rule());
  r.push_back(make_idle_gap_rule());
  r.push_back(make_copy_compute_overlap_rule());
  r.push_back(make_tiny_transfers_rule());
  r.push_back(make_large_result_copy_rule());
  r.push_back(make_launch_bound_rule());
  r.push_back(make_occupancy_rule());
  r.push_back(make_tail_rule());
  r.push_back(make_unstable_rule());
  r.push_back(make_startup_rule());
  r.push_back(make_straggler_rule());
  r.push_back(make_far_from_roofline_rule());
  r.push_back(make_bank_conflict_rule());
  r.push_back(make_memory_bound_rule());
  r.push_back(make_dominant_stall_rule());
  r.push_back(make_occupancy_gap_rule());
  r.push_back(make_no_tensor_cores_rule());
  return r;
}

}  // namespace rules

std::vector<std::string> rule_ids() {
  std::vector<std::string> ids;
  for (const auto& r : rules::all_rules()) ids.push_back(r->id());
  return ids;
}

namespace {
// The first of the rule's needs that the trace's source does not record, or "".
std::string_view missing_need(const rules::Rule& rule, const Trace& trace) {
  for (std::string_view what : rule.needs())
    if (trace.lacks(what)) return what;
  return {};
}
}  // namespace

std::vector<std::pair<std::string, std::string>> rules_not_run(const Trace& trace) {
  std::vector<std::pair<std::string, std::string>> out;
  if (trace.source_gaps.empty()) return out;
  for (const auto& r : rules::all_rules())
    if (auto what = missing_need(*r, trace); !what.empty()) out.emplace_back(r->id(), std::string(what));
  return out;
}

RuleInputs rule_inputs(const Trace& trace) { return rule_inputs(trace, detect_steady_state(trace)); }

RuleInputs rule_inputs(const Trace& trace, std::optional<SteadyState> steady) {
  TimelineOptions all_gaps;
  all_gaps.max_gaps = SIZE_MAX;
  std::optional<Interval> window;
  if (steady) window = Interval{steady->start, steady->end};
  all_gaps.window = window;
  // analyze_ranks answers nullopt unless two processes ran kernels: a single process's run (the
  // usual one, up to millions of launches) skips its pass.
  const bool several = std::any_of(trace.kernels.begin(), trace.kernels.end(),
                                   [&](const Kernel& k) { return k.pid != trace.kernels.front().pid; });
  return {std::move(steady), attribute_wall_time(trace, window), analyze_timeline(trace, all_gaps),
          several ? analyze_ranks(trace) : std::nullopt};
}

std::vector<Finding> run_rules(const Trace& trace) { return run_rules(trace, rule_inputs(trace)); }

std::vector<Finding> run_rules(const Trace& trace, const RuleInputs& inputs) {
  const rules::RuleContext ctx = rules::make_context(trace, inputs);
  std::vector<Finding> out;
  for (const auto& r : rules::all_rules()) {
    if (!missing_need(*r, trace).empty()) continue;
    if (auto f = r->check(ctx)) out.push_back(std::move(*f));
  }
  const bool steady = inputs.steady.has_value();
  std::stable_sort(out.begin(), out.end(), [&](const Finding& a, const Finding& b) {
    if (steady && a.startup != b.startup) return b.startup;  // steady-state findings first
    const TimeNs sa = a.saving_ns.value_or(-1), sb = b.saving_ns.value_or(-1);
    if (sa != sb) return sa > sb;
    return a.rule < b.rule;
  });
  return out;
}

}  // namespace gpuscope::analysis
