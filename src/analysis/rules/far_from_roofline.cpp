// Rule far_from_roofline: a top kernel reaches less than half of the FLOP/s its roofline allows
// at its own arithmetic intensity (min of the compute peak and intensity x bandwidth at DRAM,
// L2 and L1; metrics_roofline.cpp). The estimate is an upper bound: each such kernel's traced
// time x (1 - achieved / attainable), as if it ran at its roof and sat on the critical path.
#include <fmt/format.h>

#include "analysis/rules/metric_rules.h"
#include "analysis/rules/rule.h"

namespace gpuscope::analysis::rules {
namespace {

class FarFromRooflineRule final : public Rule {
 public:
  std::string id() const override { return "far_from_roofline"; }

  std::optional<Finding> check(const RuleContext& ctx) const override {
    Finding f;
    double saving = 0;
    bool memory_region = false, compute_region = false, tensor_compute = false, conflicts = false, tail = false;
    std::vector<std::string> named;
    for (const KernelMetrics& k : top_metric_kernels(ctx.trace)) {
      if (!far_from_roof(k)) continue;
      const Roofline& r = *k.roofline;
      const PrecisionRoof& p = r.precisions.front();
      const double fraction = *r.roof_percent / 100.0;
      const double lost = k.values.total_ns * (1.0 - fraction);
      saving += lost;
      (r.region == "memory" ? memory_region : p.precision == "Tensor" ? tensor_compute : compute_region) = true;
      conflicts |= has_bank_conflicts(k);
      tail |= has_tail(k);
      std::string line = fmt::format("{}: {} at {}, {} of the {} attainable (bound by {}; {}-bound region",
                                     k.values.name, p.precision, flops_rate(p.achieved), pct(*r.roof_percent),
                                     flops_rate(*r.attainable), r.bound_by, r.region);
      for (const LevelRoof& l : r.levels)
        if (l.level == "DRAM" && l.intensity && l.ridge)
          line += fmt::format(", {:.2f} FLOP/byte at DRAM against a ridge of {:.2f}", *l.intensity, *l.ridge);
      line += fmt::format("); {} of kernel time, up to {} less at its roof", ms(saturated_ns(k.values.total_ns)),
                          ms(saturated_ns(lost)));
      f.evidence.push_back(line);
      named.push_back(k.values.name);
    }
    if (f.evidence.empty() || !ctx.worth(saturated_ns(saving))) return std::nullopt;
    f.rule = id();
    f.title = "Kernel far below its roofline";
    f.saving_ns = saturated_ns(saving);
    f.estimate =
        "upper bound: each kernel's traced time x (1 - achieved / attainable FLOP/s), as if it ran at its "
        "roof; a kernel that overlaps host work or other kernels saves less wall time";
    if (conflicts) f.shares_time_with.push_back("shared_bank_conflicts");
    if (tail) f.shares_time_with.push_back("tail_effect");
    f.spans = kernel_launch_spans(ctx.trace, named);
    std::string advice;
    if (memory_region)
      advice +=
          "Memory-bound region: reach the bandwidth roof with coalesced, vectorized accesses and more bytes in "
          "flight (more resident warps, more independent loads per thread, cp.async/TMA pipelines), and move "
          "fewer bytes (tiling for reuse, fusing with neighbouring kernels). ";
    if (compute_region)
      advice +=
          "Compute-bound region: issue fewer non-FMA instructions (fuse mul + add, cheaper index math), add "
          "instruction-level parallelism, and use tensor cores for matrix products. ";
    if (tensor_compute)
      advice +=
          "Tensor cores below their peak: keep them fed (deeper shared-memory pipelines with TMA/cp.async, "
          "larger tiles, more MMAs in flight); on Hopper, wgmma runs 1.5x the rate mma.sync/WMMA can "
          "(CUTLASS 3 / CuTe or cuBLAS use it). ";
    f.advice = advice + "The Warp stalls section says what the warps wait for.";
    return f;
  }
};

}  // namespace

std::unique_ptr<Rule> make_far_from_roofline_rule() { return std::make_unique<FarFromRooflineRule>(); }

}  // namespace gpuscope::analysis::rules
