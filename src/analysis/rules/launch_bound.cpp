// Rule launch_bound: many kernels shorter than the host call that launches
// them; the GPU waits for the CPU. Re-timed as if those launches were replayed
// from a CUDA graph: each launch call costs kGraphNodeNs instead of its
// recorded duration. kGraphNodeNs = 1 us per kernel node is a conservative
// host cost of cudaGraphLaunch per node on Hopper-class hosts (NVIDIA quotes
// well under 1 us per node for straight-line graphs); check it with
// tests/gpu/check_rule_estimates.sh on launch_storm.
#include <fmt/format.h>

#include <unordered_map>

#include "analysis/rules/rule.h"

namespace gpuscope::analysis::rules {
namespace {

constexpr TimeNs kGraphNodeNs = 1'000;
constexpr size_t kMinLaunches = 50;

class LaunchBoundRule final : public Rule {
 public:
  std::string id() const override { return "launch_bound"; }

  std::optional<Finding> check(const RuleContext& ctx) const override {
    if (!ctx.main) return std::nullopt;
    const Trace& t = ctx.trace;
    std::unordered_map<uint32_t, TimeNs> kernel_ns;  // correlation -> kernel duration
    for (const Kernel& k : t.kernels)
      if (k.pid == ctx.main->pid && k.graph_id == 0) kernel_ns[k.correlation_id] += duration(k.start, k.end);
    Scenario s;
    TimeNs launch_ns = 0, gpu_ns = 0;
    for (size_t i : ctx.main_calls) {
      const ApiCall& c = t.api_calls[i];
      auto it = kernel_ns.find(c.correlation_id);
      if (it == kernel_ns.end() || classify_api(ctx.name_of(c)) != ApiClass::Launch) continue;
      if (it->second >= duration(c.start, c.end)) continue;  // the GPU is slower than the launch: not launch-bound
      s.api_ns[i] = std::min(kGraphNodeNs, duration(c.start, c.end));
      launch_ns += duration(c.start, c.end);
      gpu_ns += it->second;
    }
    if (s.api_ns.size() < kMinLaunches) return std::nullopt;
    const TimeNs saving = ctx.saving(s);
    if (!ctx.worth(saving)) return std::nullopt;
    Finding f;
    f.rule = id();
    f.title = "Launch-bound: many kernels shorter than their launch";
    f.saving_ns = saving;
    f.estimate = fmt::format("launch calls re-timed at {} us per graph node (CUDA graph replay)", kGraphNodeNs / 1000);
    f.evidence.push_back(fmt::format("{} launches take {} on the host for {} of kernel time", s.api_ns.size(), ms(launch_ns),
                                     ms(gpu_ns)));
    f.advice = "Capture the launch sequence in a CUDA graph (stream capture) and replay it, or fuse the small kernels.";
    return f;
  }
};

}  // namespace

std::unique_ptr<Rule> make_launch_bound_rule() { return std::make_unique<LaunchBoundRule>(); }

}  // namespace gpuscope::analysis::rules
