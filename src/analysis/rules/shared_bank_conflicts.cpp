// Rule shared_bank_conflicts: in a top kernel, shared-memory bank conflicts add wavefronts —
// one cycle of the SM's shared-memory pipe each — worth >= 5 % of its SM cycles
// (MemoryWorkload::conflict_cycle_percent).
//
// Estimate: the kernel's traced time x the smaller of two shares, each a bound on what the
// conflicts cost:
//   - throughput: the extra wavefronts' share of SM cycles (what they take if nothing hides them);
//   - latency: the share of each warp's time between two instructions spent waiting on the
//     shared-memory pipe (short_scoreboard + mio_throttle stalls, when the stalls set was
//     collected); with a fixed number of resident warps, a kernel's time follows that per-
//     instruction latency, and the fix removes at most those waits.
// Against metrics_kernels' padded transpose the throughput share alone estimated 1.37x (H200)
// and 1.66x (H100) the measured saving; the smaller share 0.89x (H100, measured) and 0.76x
// (H200, computed from that card's stall figures; docs/rules.md).
#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "analysis/rules/metric_rules.h"
#include "analysis/rules/rule.h"

namespace gpuscope::analysis::rules {
namespace {

// "65,000,000": conflict counts read like the report's counts.
std::string count(double v) {
  const std::string digits = fmt::format("{:.0f}", v);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

// Share of a warp's cycles between two issued instructions spent waiting on the shared-memory
// (MIO) pipe; none without the stalls set.
std::optional<double> shared_pipe_wait_share(const KernelMetrics& k) {
  if (!k.stalls || !k.stalls->cycles_per_issue || *k.stalls->cycles_per_issue <= 0) return std::nullopt;
  double waits = 0;
  for (const StallShare& s : k.stalls->reasons)
    if (s.reason == "short_scoreboard" || s.reason == "mio_throttle") waits += s.cycles;
  return waits / *k.stalls->cycles_per_issue;
}

class BankConflictRule final : public Rule {
 public:
  std::string id() const override { return "shared_bank_conflicts"; }

  std::optional<Finding> check(const RuleContext& ctx) const override {
    Finding f;
    double saving = 0;
    bool roof = false, tail = false, all_with_stalls = true;
    std::vector<std::string> named;
    for (const KernelMetrics& k : top_metric_kernels(ctx.trace)) {
      if (!has_bank_conflicts(k)) continue;
      const MemoryWorkload& m = *k.memory;
      double share = std::min(1.0, *m.conflict_cycle_percent / 100.0);
      const std::optional<double> waits = shared_pipe_wait_share(k);
      if (waits) share = std::min(share, *waits);
      all_with_stalls &= waits.has_value();
      const double lost = k.values.total_ns * share;
      saving += lost;
      roof |= far_from_roof(k);
      tail |= has_tail(k);
      std::string line = fmt::format(
          "{}: {} load and {} store bank conflicts per launch, extra shared-memory "
          "wavefronts worth {} of its SM cycles",
          k.values.name, count(m.shared_load_conflicts.value_or(0)), count(m.shared_store_conflicts.value_or(0)),
          pct(*m.conflict_cycle_percent));
      if (k.stalls)
        for (const StallShare& s : k.stalls->reasons)
          if (s.reason == "short_scoreboard" || s.reason == "mio_throttle")
            line += fmt::format("; {} stalls {}", s.reason, pct(s.percent));
      if (waits) line += fmt::format("; warps wait on the shared-memory pipe {} of their time", pct(*waits * 100));
      line += fmt::format("; {} {} of {}", waits ? "about" : "up to", ms(saturated_ns(lost)),
                          ms(saturated_ns(k.values.total_ns)));
      f.evidence.push_back(line);
      named.push_back(k.values.name);
    }
    if (f.evidence.empty() || !ctx.worth(saturated_ns(saving))) return std::nullopt;
    f.rule = id();
    f.title = "Shared-memory bank conflicts";
    f.saving_ns = saturated_ns(saving);
    f.estimate = all_with_stalls
                     ? "each kernel's traced time x the smaller of the extra wavefronts' share of its SM cycles "
                       "(conflicts / (SM active cycles x SMs)) and its warps' share of time waiting on the "
                       "shared-memory pipe (short_scoreboard + mio_throttle stall cycles per instruction)"
                     : "upper bound: each kernel's traced time x the share of its SM cycles that the extra wavefronts "
                       "take (conflicts / (SM active cycles x SMs)), or the warps' share of time waiting on the "
                       "shared-memory pipe where the stalls set was collected; other warps' work usually hides part "
                       "of it";
    if (roof) f.shares_time_with.push_back("far_from_roofline");
    if (tail) f.shares_time_with.push_back("tail_effect");
    f.spans = kernel_launch_spans(ctx.trace, named);
    f.advice =
        "Give each thread of a warp a different bank: pad shared arrays (e.g. [32][33] instead of [32][32] for "
        "a transpose), swizzle the layout (XOR the column with the row, as CUTLASS/CuTe layouts do), or read "
        "128-bit vectors along the fastest-varying index; then check the conflict counts again.";
    return f;
  }
};

}  // namespace

std::unique_ptr<Rule> make_shared_bank_conflicts_rule() { return std::make_unique<BankConflictRule>(); }

}  // namespace gpuscope::analysis::rules
