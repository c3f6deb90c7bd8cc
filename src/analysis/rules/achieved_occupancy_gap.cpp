// Rule achieved_occupancy_gap: a top kernel's achieved occupancy (sm__warps_active) is below
// 80 % of its theoretical occupancy and at least 10 points lower, while no unit is at its roof.
// The cause comes from the waves (metrics_sol.cpp): a grid smaller than one wave, a partial
// last wave that accounts for the gap, or else uneven work. No time estimate: what the missing warps would buy depends
// on whether the kernel is latency-bound, which the stall breakdown shows but cannot quantify.
#include <fmt/format.h>

#include "analysis/rules/metric_rules.h"
#include "analysis/rules/rule.h"

namespace gpuscope::analysis::rules {
namespace {

class OccupancyGapRule final : public Rule {
 public:
  std::string id() const override { return "achieved_occupancy_gap"; }
  std::vector<std::string_view> needs() const override { return {kGapLaunchConfig, kGapDevices}; }

  std::optional<Finding> check(const RuleContext& ctx) const override {
    Finding f;
    bool small_grid = false, tail = false, uneven = false;
    std::vector<std::string> named;
    for (const KernelMetrics& k : top_metric_kernels(ctx.trace)) {
      if (!k.occupancy || !k.occupancy->large_gap || at_roof(k)) continue;
      const AchievedOccupancy& a = *k.occupancy;
      const Occupancy& o = *a.theoretical;
      small_grid |= a.cause == OccupancyGapCause::SmallGrid;
      tail |= a.cause == OccupancyGapCause::Tail;
      uneven |= a.cause == OccupancyGapCause::UnevenWork;
      named.push_back(k.values.name);
      f.evidence.push_back(
          fmt::format("{}: achieved occupancy {} against {} theoretical ({} blocks/SM of {} warps, "
                      "limited by {}): {}; {:.1f}% of kernel time",
                      k.values.name, pct(a.achieved_percent), pct(o.occupancy_percent), o.blocks_per_sm,
                      o.warps_per_block, to_string(o.limiter), a.explanation, k.values.kernel_share_percent));
    }
    if (f.evidence.empty()) return std::nullopt;
    f.rule = id();
    f.title = "Achieved occupancy far below theoretical";
    f.estimate =
        "not estimated: more resident warps help only a latency-bound kernel, and by how much the metrics "
        "do not say (see Warp stalls)";
    f.spans = kernel_launch_spans(ctx.trace, named);
    if (small_grid)
      f.advice +=
          "Grid smaller than one wave: launch more, smaller blocks (split the work, e.g. split-K for "
          "reductions and GEMMs) so every SM holds as many warps as fit, or run independent kernels "
          "concurrently on other streams. ";
    if (tail)
      f.advice +=
          "Partial last wave: size the grid to whole waves or use a persistent-block schedule "
          "(tail_effect estimates the idle slots). ";
    if (uneven)
      f.advice +=
          "Uneven work: give blocks and warps equal work (sort or bin variable-length items, grid-stride "
          "loops), avoid early exits of whole warps, and give short kernels more work per launch. ";
    while (!f.advice.empty() && f.advice.back() == ' ') f.advice.pop_back();
    return f;
  }
};

}  // namespace

std::unique_ptr<Rule> make_achieved_occupancy_gap_rule() { return std::make_unique<OccupancyGapRule>(); }

}  // namespace gpuscope::analysis::rules
