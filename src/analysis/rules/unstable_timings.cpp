// Rule unstable_timings: launches of the same kernel with the same launch shape (grid and block)
// vary a lot (CV >= 20 % over >= 5 launches). One kernel name run on different shapes (a cuDNN
// convolution kernel for every layer of a CNN) is different work, not instability, so shapes are
// judged apart; communication kernels, which wait for other ranks, are left to the straggler
// rule. Saving = time above the shape's median, if every launch ran at the median; causes are
// contention, clocks (power/thermal), data-dependent work or first-launch effects.
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "analysis/rules/rule.h"
#include "gpuscope/analysis.h"
#include "gpuscope/analysis_ranks.h"
#include "gpuscope/analysis_stats.h"

namespace gpuscope::analysis::rules {
namespace {

constexpr double kMinCvPercent = 20.0;
constexpr size_t kMinLaunches = 5;

class UnstableRule final : public Rule {
 public:
  std::string id() const override { return "unstable_timings"; }

  std::optional<Finding> check(const RuleContext& ctx) const override {
    struct Launches {
      const Kernel* first = nullptr;  // names the shape in the evidence
      std::vector<double> ns;
    };
    std::map<detail::LaunchShape, Launches> by_shape;
    for (const Kernel& k : ctx.trace.kernels) {
      Launches& l = by_shape[detail::launch_shape(k)];
      if (!l.first) l.first = &k;
      l.ns.push_back(static_cast<double>(duration(k.start, k.end)));
    }
    Finding f;
    TimeNs saving = 0;
    std::vector<std::string> named;
    for (const auto& [shape, launches] : by_shape) {
      const std::vector<double>& values = launches.ns;
      if (values.size() < kMinLaunches) continue;
      const std::string& name = detail::kernel_name(ctx.trace, *launches.first);
      // A collective's kernel lasts until the last rank arrives: its spread is the other ranks'
      // lateness (the straggler rule's), not this kernel's instability.
      if (classify_collective(name) != Collective::None) continue;
      const Stats s = describe(values);
      if (s.cv_percent < kMinCvPercent) continue;
      TimeNs above = 0;
      for (double d : values) above = add_saturated(above, static_cast<TimeNs>(std::max(0.0, d - s.median)));
      saving = add_saturated(saving, above);
      if (std::find(named.begin(), named.end(), name) == named.end()) named.push_back(name);
      f.evidence.push_back(fmt::format("{} ({}): {} launches, CV {:.0f}%, median {}, max {}; {} above the median", name,
                                       detail::launch_config_text(*launches.first), values.size(), s.cv_percent,
                                       ms(static_cast<TimeNs>(s.median)), ms(static_cast<TimeNs>(s.max)), ms(above)));
    }
    if (!ctx.worth(saving)) return std::nullopt;
    f.rule = id();
    f.title = "Unstable kernel timings";
    f.saving_ns = saving;
    f.estimate = "time above the median of each kernel's launch shape (grid, block) if every launch ran at it";
    f.spans = kernel_launch_spans(ctx.trace, named);
    f.advice =
        "Look for contention (other processes, concurrent streams), clock changes (lock clocks when "
        "benchmarking), first-launch effects, or data-dependent work.";
    return f;
  }
};

}  // namespace

std::unique_ptr<Rule> make_unstable_timings_rule() { return std::make_unique<UnstableRule>(); }

}  // namespace gpuscope::analysis::rules
