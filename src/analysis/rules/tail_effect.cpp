// Rule tail_effect: a kernel of more than one wave whose last wave fills few
// SM slots. Assuming every wave takes the same time, the idle SM slots of the
// last wave cost total_time x (ceil(waves) - waves) / ceil(waves); that is the
// saving if the work were spread evenly (grid sized to whole waves, or a
// persistent-block/stream-K schedule).
#include <fmt/format.h>

#include <cmath>

#include "analysis/rules/rule.h"
#include "gpuscope/analysis_occupancy.h"

namespace gpuscope::analysis::rules {
namespace {

class TailRule final : public Rule {
 public:
  std::string id() const override { return "tail_effect"; }

  std::optional<Finding> check(const RuleContext& ctx) const override {
    Finding f;
    TimeNs saving = 0;
    for (const KernelOccupancy& k : kernel_occupancy(ctx.trace, 5)) {
      if (!k.occupancy || k.occupancy->waves <= 1.0) continue;
      const Occupancy& o = *k.occupancy;
      const double whole = std::ceil(o.waves);
      const TimeNs lost = static_cast<TimeNs>(k.total_ns * (whole - o.waves) / whole);
      if (lost <= 0) continue;
      saving += lost;
      f.evidence.push_back(fmt::format("{}: {:.2f} waves of {} blocks/SM; last wave fills {:.0f}% of the SM slots, ~{} idle",
                                       k.name, o.waves, o.blocks_per_sm, o.last_wave_percent, ms(lost)));
    }
    if (!ctx.worth(saving)) return std::nullopt;
    f.rule = id();
    f.title = "Tail effect: partial last wave";
    f.saving_ns = saving;
    f.estimate = "idle SM slots of the last wave, assuming equal-length waves";
    f.advice = "Size the grid to whole waves (blocks = k x blocks/SM x SMs), or use a persistent-block / stream-K "
               "schedule that balances the remainder.";
    return f;
  }
};

}  // namespace

std::unique_ptr<Rule> make_tail_rule() { return std::make_unique<TailRule>(); }

}  // namespace gpuscope::analysis::rules
