// The rule registry and run_rules(): every rule in a fixed order, findings
// sorted by estimated saving so the first one is the first thing to fix.
#include <fmt/format.h>

#include <algorithm>
#include <tuple>

#include "analysis/rules/rule.h"

namespace gpuscope::analysis {
namespace rules {

// The rules, in registry order: one line each, the rule's id; its file <id>.cpp defines
// make_<id>_rule(). Adding a rule is its file plus its line here.
#define GPUSCOPE_RULES(X)   \
  X(allocation_in_loop)     \
  X(pageable_copies)        \
  X(sync_copies)            \
  X(excessive_sync)         \
  X(host_sync)              \
  X(dataloader_bound)       \
  X(gpu_idle_gaps)          \
  X(copies_not_overlapped)  \
  X(many_tiny_transfers)    \
  X(large_result_copy)      \
  X(launch_bound)           \
  X(graph_replay_gaps)      \
  X(unfused_optimizer)      \
  X(fp32_matmul)            \
  X(layout_conversions)     \
  X(low_occupancy)          \
  X(tail_effect)            \
  X(unstable_timings)       \
  X(startup_cost)           \
  X(straggler)              \
  X(far_from_roofline)      \
  X(shared_bank_conflicts)  \
  X(memory_bound_kernel)    \
  X(dominant_stall)         \
  X(hot_source_line)        \
  X(achieved_occupancy_gap) \
  X(fp16_without_tensor_cores)

#define GPUSCOPE_DECLARE_RULE(name) std::unique_ptr<Rule> make_##name##_rule();
GPUSCOPE_RULES(GPUSCOPE_DECLARE_RULE)
#undef GPUSCOPE_DECLARE_RULE

std::vector<std::unique_ptr<Rule>> all_rules() {
  std::vector<std::unique_ptr<Rule>> r;
#define GPUSCOPE_ADD_RULE(name) r.push_back(make_##name##_rule());
  GPUSCOPE_RULES(GPUSCOPE_ADD_RULE)
#undef GPUSCOPE_ADD_RULE
  return r;
}

}  // namespace rules

namespace {
// The first of the rule's needs that the trace's source does not record, or "".
std::string_view missing_need(const rules::Rule& rule, const Trace& trace) {
  for (std::string_view what : rule.needs())
    if (trace.lacks(what)) return what;
  return {};
}
// Share of the spans' time inside the intervals `covers` (of the same process).
double covered_share(const std::vector<EvidenceSpan>& spans, std::vector<EvidenceSpan> covers) {
  const auto before = [](const EvidenceSpan& a, const EvidenceSpan& b) {
    return std::tie(a.pid, a.start) < std::tie(b.pid, b.start);
  };
  std::sort(covers.begin(), covers.end(), before);
  std::vector<EvidenceSpan> merged;  // disjoint, sorted
  for (const EvidenceSpan& c : covers) {
    if (!merged.empty() && merged.back().pid == c.pid && c.start <= merged.back().end)
      merged.back().end = std::max(merged.back().end, c.end);
    else merged.push_back(c);
  }
  double all = 0, inside = 0;
  for (const EvidenceSpan& s : spans) {
    all += static_cast<double>(s.end - s.start);
    auto it = std::lower_bound(merged.begin(), merged.end(), s, before);
    if (it != merged.begin() && std::prev(it)->pid == s.pid) --it;  // it may reach into s
    for (; it != merged.end() && it->pid == s.pid && it->start < s.end; ++it)
      inside += static_cast<double>(std::max<TimeNs>(0, std::min(s.end, it->end) - std::max(s.start, it->start)));
  }
  return all > 0 ? inside / all : 0.0;
}

// One cause, one finding: a finding that another explains (Finding::explains) and whose spans
// lie >= 80 % in the explaining finding's covers is dropped; the explaining one says so.
void drop_explained(std::vector<Finding>& out) {
  constexpr double kSameCause = 0.8;
  std::vector<bool> drop(out.size(), false);
  for (Finding& f : out) {
    for (size_t j = 0; j < out.size(); ++j) {
      Finding& g = out[j];
      if (&g == &f || drop[j] || std::find(f.explains.begin(), f.explains.end(), g.rule) == f.explains.end()) continue;
      if (g.spans.empty() || covered_share(g.spans, f.covers) < kSameCause) continue;
      drop[j] = true;
      f.evidence.push_back(
          fmt::format("the same cause as {} ('{}'{}), which is not listed apart", g.rule, g.title,
                      g.saving_ns ? ", estimated " + fmt::format("{:.2f} ms", *g.saving_ns / 1e6) : ""));
    }
  }
  size_t k = 0;
  for (size_t j = 0; j < out.size(); ++j)
    if (!drop[j]) {
      if (k != j) out[k] = std::move(out[j]);  // never onto itself: a self-move empties the strings
      ++k;
    }
  out.resize(k);
  for (Finding& f : out) f.explains.clear(), f.covers.clear();
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
          several ? analyze_ranks(trace) : std::nullopt, nullptr};
}

std::vector<Finding> run_rules(const Trace& trace) { return run_rules(trace, rule_inputs(trace)); }

std::vector<Finding> run_rules(const Trace& trace, const RuleInputs& inputs) {
  const rules::RuleContext ctx = rules::make_context(trace, inputs);
  std::vector<Finding> out;
  for (const auto& r : rules::all_rules()) {
    if (!missing_need(*r, trace).empty()) continue;
    if (auto f = r->check(ctx)) out.push_back(std::move(*f));
  }
  drop_explained(out);
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
