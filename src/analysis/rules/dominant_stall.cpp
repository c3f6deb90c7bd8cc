// Rule dominant_stall: in a top kernel one warp-stall reason takes >= 40 % of the stall cycles,
// while the schedulers have idle issue slots (< 60 % busy) and no unit is at its roof (< 80 %),
// so the stall does cost time. "selected" and "not_selected" are not stalls and never count.
// No time estimate: a stall costs time only while no other warp can issue, and the metrics do
// not say how much of it other warps hid.
#include <fmt/format.h>

#include <set>

#include "analysis/rules/metric_rules.h"
#include "analysis/rules/rule.h"

namespace gpuscope::analysis::rules {
namespace {

class DominantStallRule final : public Rule {
 public:
  std::string id() const override { return "dominant_stall"; }

  std::optional<Finding> check(const RuleContext& ctx) const override {
    Finding f;
    std::vector<std::string> reasons;  // in order of first appearance (kernel order)
    std::vector<std::string> named;
    for (const KernelMetrics& k : top_metric_kernels(ctx.trace)) {
      if (!k.stalls || at_roof(k)) continue;
      const WarpStalls& w = *k.stalls;
      if (w.issue_active_percent && *w.issue_active_percent >= kBusyIssuePercent) continue;
      const StallShare* top = nullptr;
      for (const StallShare& s : w.reasons)
        if (!stall_is_benign(s.reason)) {
          top = &s;
          break;
        }
      if (!top || top->percent < kDominantStallPercent) continue;
      if (std::find(reasons.begin(), reasons.end(), top->reason) == reasons.end()) reasons.push_back(top->reason);
      std::string line = fmt::format("{}: {} is {} of the stall cycles", k.values.name, top->reason, pct(top->percent));
      if (w.cycles_per_issue)
        line += fmt::format(" ({:.1f} of {:.1f} cycles between two instructions of a warp)", top->cycles,
                            *w.cycles_per_issue);
      if (w.issue_active_percent) line += fmt::format("; issue slots busy {}", pct(*w.issue_active_percent));
      if (k.sol)
        line += fmt::format("; SM {} and memory {} of peak", pct(k.sol->sm_percent), pct(k.sol->memory_percent));
      line += fmt::format("; {:.1f}% of kernel time", k.values.kernel_share_percent);
      f.evidence.push_back(line);
      named.push_back(k.values.name);
    }
    if (f.evidence.empty()) return std::nullopt;
    f.rule = id();
    f.title = reasons.size() == 1 ? "Warps mostly stall on " + reasons.front()
                                  : "One stall reason dominates a top kernel";
    f.estimate =
        "not estimated: a stall costs time only while no other warp can issue, and the metrics do not say "
        "how much of it other warps hid";
    f.spans = kernel_launch_spans(ctx.trace, named);
    for (const std::string& r : reasons) {
      const StallGuidance* g = stall_guidance(r);
      if (!g) {
        f.advice += r + ": not in gpuscope's guidance table; see Nsight Compute's warp-state documentation. ";
        continue;
      }
      f.advice += fmt::format("{} means {}. Try: {}. ", r, g->meaning, g->advice);
    }
    while (!f.advice.empty() && f.advice.back() == ' ') f.advice.pop_back();
    return f;
  }
};

}  // namespace

std::unique_ptr<Rule> make_dominant_stall_rule() { return std::make_unique<DominantStallRule>(); }

}  // namespace gpuscope::analysis::rules
