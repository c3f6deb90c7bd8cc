// Rule memory_bound_kernel: a top kernel whose memory throughput bounds it (speed of light:
// memory >= 60 % of peak and above SM throughput; docs/metrics.md). No time estimate: near the
// memory roof a kernel gets faster only by moving fewer bytes, and how many of its bytes could go
// is not in the metrics. The evidence names the busiest unit, which decides what helps.
#include <fmt/format.h>

#include "analysis/rules/metric_rules.h"
#include "analysis/rules/rule.h"

namespace gpuscope::analysis::rules {
namespace {

std::string gb(double bytes) { return fmt::format("{:.2f} GB", bytes / 1e9); }

class MemoryBoundRule final : public Rule {
 public:
  std::string id() const override { return "memory_bound_kernel"; }

  std::optional<Finding> check(const RuleContext& ctx) const override {
    Finding f;
    bool dram = false, l2 = false, l1 = false;
    std::vector<std::string> named;
    for (const KernelMetrics& k : top_metric_kernels(ctx.trace)) {
      if (!k.sol || k.sol->bound != Bound::Memory) continue;
      const SpeedOfLight& s = *k.sol;
      dram |= s.busiest_unit == "DRAM";
      l2 |= s.busiest_unit == "L2";
      l1 |= s.busiest_unit == "L1/TEX";
      std::string line = fmt::format("{}: memory throughput {} of peak against SM {}", k.values.name,
                                     pct(s.memory_percent), pct(s.sm_percent));
      if (!s.busiest_unit.empty())
        line += fmt::format("; busiest unit {} at {}", s.busiest_unit, pct(s.busiest_percent));
      if (k.memory) {
        const MemoryWorkload& m = *k.memory;
        if (m.dram_read_bytes && m.dram_write_bytes)
          line += fmt::format("; DRAM {} read, {} written per launch", gb(*m.dram_read_bytes), gb(*m.dram_write_bytes));
        if (m.dram_bandwidth) line += fmt::format(" at {}", gbps(*m.dram_bandwidth));
        if (m.l2_hit_percent) line += fmt::format("; L2 hit rate {}", pct(*m.l2_hit_percent));
      }
      line += fmt::format("; {:.1f}% of kernel time", k.values.kernel_share_percent);
      f.evidence.push_back(line);
      named.push_back(k.values.name);
    }
    if (f.evidence.empty()) return std::nullopt;
    f.rule = id();
    f.title = "Memory-bound kernel: it needs fewer bytes, not more math";
    f.estimate =
        "not estimated: near its memory roof a kernel is faster only if it moves fewer bytes, and how many "
        "can go is not in the metrics (far_from_roofline estimates the headroom to the roof when collected)";
    f.spans = kernel_launch_spans(ctx.trace, named);
    std::string advice;
    if (dram)
      advice +=
          "DRAM-bound: fuse it with the kernels that produce or consume its data, keep reused data in L2 "
          "(access order, cudaAccessPolicyWindow persistence), use narrower types (FP16/BF16/FP8, packed "
          "indices). ";
    if (l2)
      advice +=
          "L2-bound: reuse data from shared memory or registers instead of re-reading it through L1, and make "
          "accesses coalesced so each 32-byte sector is used fully. ";
    if (l1)
      advice +=
          "L1-bound: fewer and wider shared/L1 accesses, no bank conflicts, uncoalesced accesses cost several "
          "wavefronts each. ";
    f.advice = advice + "Check Memory workload for hit rates and bytes per launch.";
    return f;
  }
};

}  // namespace

std::unique_ptr<Rule> make_memory_bound_kernel_rule() { return std::make_unique<MemoryBoundRule>(); }

}  // namespace gpuscope::analysis::rules
