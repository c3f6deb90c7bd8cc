// Rule tail_effect: a kernel of more than one wave whose last wave fills few
// SM slots. Assuming every wave takes the same time, the idle SM slots of the
// last wave cost total_time x (ceil(waves) - waves) / ceil(waves); that is the
// saving if the work were spread evenly (grid sized to whole waves, or a
// persistent-block/stream-K schedule).
//
// Equal-length waves hold for latency-bound blocks, whose time does not depend on how full
// the SM is. A throughput-bound kernel's blocks run faster on an emptier SM, so its partial
// last wave costs much less than a full wave (H200, rule_patterns --pattern tail with a busy
// timer spin: SM throughput 84 %, a last wave of 4 blocks added 0.15 ms to 1.98 ms, where
// equal waves predict 1.07 ms). When the kernel's metrics were collected and say it is
// throughput-bound, it is named but not estimated.
#include <fmt/format.h>

#include <cmath>

#include "analysis/rules/rule.h"
#include "gpuscope/analysis_metrics.h"
#include "gpuscope/analysis_occupancy.h"

namespace gpuscope::analysis::rules {
namespace {

// The kernel's speed of light when its metrics say a unit is busy (not latency-bound).
std::optional<SpeedOfLight> throughput_bound(const std::vector<KernelMetricValues>& metrics, const std::string& name) {
  for (const KernelMetricValues& m : metrics) {
    if (m.name != name) continue;
    std::optional<SpeedOfLight> sol = speed_of_light(m);
    if (sol && sol->bound != Bound::Latency) return sol;
  }
  return std::nullopt;
}

class TailRule final : public Rule {
 public:
  std::string id() const override { return "tail_effect"; }
  std::vector<std::string_view> needs() const override { return {kGapLaunchConfig, kGapDevices}; }

  std::optional<Finding> check(const RuleContext& ctx) const override {
    Finding f;
    TimeNs saving = 0;
    std::vector<std::string> named;  // estimated or not, each kernel named in the evidence
    const std::vector<KernelMetricValues> metrics = kernel_metric_values(ctx.trace);
    for (const KernelOccupancy& k : ctx.top_occupancy) {
      if (!k.occupancy || k.occupancy->waves <= 1.0) continue;
      const Occupancy& o = *k.occupancy;
      if (std::optional<SpeedOfLight> sol = throughput_bound(metrics, k.name)) {
        f.evidence.push_back(
            fmt::format("{}: {:.2f} waves, last wave fills {:.0f}% of the SM slots, but the kernel is "
                        "throughput-bound (SM {:.0f}%, memory {:.0f}% of peak): a partial wave runs "
                        "faster per block; not estimated",
                        k.name, o.waves, o.last_wave_percent, sol->sm_percent, sol->memory_percent));
        named.push_back(k.name);
        continue;
      }
      const double whole = std::ceil(o.waves);
      const TimeNs lost = saturated_ns(k.total_ns * (whole - o.waves) / whole);
      if (lost <= 0) continue;
      saving += lost;
      f.evidence.push_back(
          fmt::format("{}: {:.2f} waves of {} blocks/SM; last wave fills {:.0f}% of the SM slots, ~{} idle", k.name,
                      o.waves, o.blocks_per_sm, o.last_wave_percent, ms(lost)));
      named.push_back(k.name);
    }
    if (!ctx.worth(saving)) return std::nullopt;
    f.rule = id();
    f.title = "Tail effect: partial last wave";
    f.saving_ns = saving;
    f.estimate = "idle SM slots of the last wave, assuming equal-length waves";
    f.spans = kernel_launch_spans(ctx.trace, named);
    f.advice =
        "Size the grid to whole waves (blocks = k x blocks/SM x SMs), or use a persistent-block / stream-K "
        "schedule that balances the remainder.";
    return f;
  }
};

}  // namespace

std::unique_ptr<Rule> make_tail_effect_rule() { return std::make_unique<TailRule>(); }

}  // namespace gpuscope::analysis::rules
