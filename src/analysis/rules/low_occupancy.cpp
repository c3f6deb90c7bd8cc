// Rule low_occupancy: a kernel that takes a large share of GPU time runs at
// low theoretical occupancy (< 25 %). No time estimate: whether more resident
// warps help depends on what the kernel is bound by (latency-bound kernels
// gain, tensor-core-bound tiles may not). The evidence names the limiter and
// what would fit one more block per SM.
#include <fmt/format.h>

#include "analysis/rules/rule.h"
#include "gpuscope/analysis_occupancy.h"

namespace gpuscope::analysis::rules {
namespace {

constexpr double kLowOccupancyPercent = 25.0;
constexpr double kMinKernelShare = 0.10;  // of all kernel time

// Largest registers/thread that still fits `blocks` blocks per SM (cc >= 7 rules).
uint32_t regs_for(const Device& d, uint32_t warps_per_block, uint32_t blocks) {
  const uint32_t warps_per_sub = (blocks * warps_per_block + 3) / 4;
  if (warps_per_sub == 0) return 0;
  const uint32_t regs_per_warp = (d.max_registers_per_sm / 4) / warps_per_sub / 256 * 256;
  return std::min<uint32_t>(255, regs_per_warp / d.warp_size);
}

class OccupancyRule final : public Rule {
 public:
  std::string id() const override { return "low_occupancy"; }
  std::vector<std::string_view> needs() const override { return {kGapLaunchConfig, kGapDevices}; }

  std::optional<Finding> check(const RuleContext& ctx) const override {
    double all = 0;
    for (const Kernel& k : ctx.trace.kernels) all += static_cast<double>(duration(k.start, k.end));
    Finding f;
    std::vector<std::string> named;
    for (const KernelOccupancy& k : ctx.top_occupancy) {
      if (!k.occupancy || k.total_ns < kMinKernelShare * all || k.occupancy->occupancy_percent >= kLowOccupancyPercent)
        continue;
      const Occupancy& o = *k.occupancy;
      std::string line = fmt::format(
          "{}: {:.1f}% theoretical occupancy ({} blocks/SM of {} warps), limited by {}; "
          "{} regs/thread, {} B shared/block",
          k.name, o.occupancy_percent, o.blocks_per_sm, o.warps_per_block, to_string(o.limiter),
          k.config.registers_per_thread, o.shared_per_block);
      if (o.limiter == OccupancyLimiter::Registers)
        for (const Device& d : ctx.trace.devices)
          if (d.name == k.device_name) {
            line += fmt::format("; <= {} regs/thread would fit {} blocks/SM",
                                regs_for(d, o.warps_per_block, o.blocks_per_sm + 1), o.blocks_per_sm + 1);
            break;
          }
      f.evidence.push_back(line);
      named.push_back(k.name);
    }
    if (f.evidence.empty()) return std::nullopt;
    f.rule = id();
    f.title = "Low theoretical occupancy in a top kernel";
    f.estimate = "not estimated: the gain depends on what the kernel is bound by";
    f.spans = kernel_launch_spans(ctx.trace, named);
    f.advice =
        "Cap registers (__launch_bounds__(threads, minBlocks) or -maxrregcount), shrink shared memory per "
        "block, or give each block more warps; check with Nsight Compute that latency, not throughput, limits it.";
    return f;
  }
};

}  // namespace

std::unique_ptr<Rule> make_low_occupancy_rule() { return std::make_unique<OccupancyRule>(); }

}  // namespace gpuscope::analysis::rules
