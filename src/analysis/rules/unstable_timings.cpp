// Rule unstable_timings: instances of the same kernel vary a lot (CV >= 20 %
// over >= 5 launches). Saving = time above the median, if every instance ran
// at the median; causes are contention, clocks (power/thermal), data-dependent
// work or first-launch effects.
#include <fmt/format.h>

#include <unordered_map>

#include "analysis/rules/rule.h"
#include "gpuscope/analysis.h"

namespace gpuscope::analysis::rules {
namespace {

constexpr double kMinCvPercent = 20.0;
constexpr size_t kMinLaunches = 5;

class UnstableRule final : public Rule {
 public:
  std::string id() const override { return "unstable_timings"; }

  std::optional<Finding> check(const RuleContext& ctx) const override {
    // Durations per kernel name, in one pass (same naming as summarize_kernels).
    std::unordered_map<std::string, std::vector<TimeNs>> by_name;
    for (const Kernel& k : ctx.trace.kernels) {
      const std::string& dn = ctx.trace.strings.get(k.name);
      by_name[dn.empty() ? ctx.trace.strings.get(k.mangled_name) : dn].push_back(duration(k.start, k.end));
    }
    Finding f;
    TimeNs saving = 0;
    std::vector<std::string> named;
    for (const KernelGroup& g : summarize_kernels(ctx.trace)) {
      if (g.duration.count < kMinLaunches || g.duration.cv_percent < kMinCvPercent) continue;
      TimeNs above = 0;
      for (TimeNs d : by_name[g.name]) above += std::max<TimeNs>(0, d - static_cast<TimeNs>(g.duration.median));
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
