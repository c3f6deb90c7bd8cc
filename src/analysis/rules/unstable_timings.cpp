// Rule unstable_timings: instances of the same kernel vary a lot (CV >= 20 %
// over >= 5 launches; communication kernels, which wait for other ranks, excepted). Saving = time above the median, if every instance ran
// at the median; causes are contention, clocks (power/thermal), data-dependent
// work or first-launch effects.
#include <fmt/format.h>

#include "analysis/grouping.h"
#include "analysis/rules/rule.h"
#include "gpuscope/analysis.h"
#include "gpuscope/analysis_ranks.h"

namespace gpuscope::analysis::rules {
namespace {

constexpr double kMinCvPercent = 20.0;
constexpr size_t kMinLaunches = 5;

class UnstableRule final : public Rule {
 public:
  std::string id() const override { return "unstable_timings"; }

  std::optional<Finding> check(const RuleContext& ctx) const override {
    // Durations per kernel name, in one pass (same naming as summarize_kernels).
    detail::GroupsByName by_name;
    std::vector<std::vector<TimeNs>> durations;  // per group
    for (const Kernel& k : ctx.trace.kernels) {
      const size_t g = by_name.group((static_cast<uint64_t>(k.name) << 32) | k.mangled_name, [&] {
        const std::string& dn = ctx.trace.strings.get(k.name);
        return dn.empty() ? ctx.trace.strings.get(k.mangled_name) : dn;
      });
      if (g == durations.size()) durations.emplace_back();
      durations[g].push_back(duration(k.start, k.end));
    }
    Finding f;
    TimeNs saving = 0;
    std::vector<std::string> named;
    for (const KernelGroup& g : ctx.kernel_groups) {
      if (g.duration.count < kMinLaunches || g.duration.cv_percent < kMinCvPercent) continue;
      // A collective's kernel lasts until the last rank arrives: its spread is the other ranks'
      // lateness (the straggler rule's), not this kernel's instability.
      if (classify_collective(g.name) != Collective::None) continue;
      TimeNs above = 0;
      if (auto named_group = by_name.names().find(g.name); named_group != by_name.names().end())
        for (TimeNs d : durations[named_group->second]) above = add_saturated(above, std::max<TimeNs>(0, d - static_cast<TimeNs>(g.duration.median)));
      saving += above;
      named.push_back(g.name);
      f.evidence.push_back(fmt::format("{}: {} launches, CV {:.0f}%, median {}, max {}; {} above the median", g.name,
                                       g.duration.count, g.duration.cv_percent, ms(static_cast<TimeNs>(g.duration.median)),
                                       ms(static_cast<TimeNs>(g.duration.max)), ms(above)));
    }
    if (!ctx.worth(saving)) return std::nullopt;
    f.rule = id();
    f.title = "Unstable kernel timings";
    f.saving_ns = saving;
    f.estimate = "time above the median if every instance ran at the median";
    f.spans = kernel_launch_spans(ctx.trace, named);
    f.advice = "Look for contention (other processes, concurrent streams), clock changes (lock clocks when "
               "benchmarking), first-launch effects, or data-dependent work.";
    return f;
  }
};

}  // namespace

std::unique_ptr<Rule> make_unstable_rule() { return std::make_unique<UnstableRule>(); }

}  // namespace gpuscope::analysis::rules
