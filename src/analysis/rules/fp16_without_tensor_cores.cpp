// Rule fp16_without_tensor_cores: a top kernel does most of its floating-point math in FP16 on
// the FMA pipe, issues no tensor-core operation at all, and does >= 10 FP16 FLOPs per DRAM byte
// (TensorUse::half_math_without_tensor) — the intensity of a matrix product, not of elementwise
// work, which tensor cores cannot speed up. No time estimate: tensor cores help only if the math
// is a matrix product, which the counters cannot tell.
#include <fmt/format.h>

#include "analysis/rules/metric_rules.h"
#include "analysis/rules/rule.h"

namespace gpuscope::analysis::rules {
namespace {

class NoTensorCoresRule final : public Rule {
 public:
  std::string id() const override { return "fp16_without_tensor_cores"; }

  std::optional<Finding> check(const RuleContext& ctx) const override {
    Finding f;
    std::vector<std::string> named;
    for (const KernelMetrics& k : top_metric_kernels(ctx.trace)) {
      if (!k.tensor || !k.tensor->half_math_without_tensor) continue;
      const ScalarFlops& s = k.tensor->scalar;
      std::string line = fmt::format(
          "{}: {} of FP16 math per launch on the FMA pipe ({} of its FP16+FP32+FP64 "
          "FLOPs), 0 tensor-core operations",
          k.values.name, flop_count(s.fp16), pct(100.0 * s.fp16 / (s.fp16 + s.fp32 + s.fp64)));
      if (k.roofline)
        for (const LevelRoof& l : k.roofline->levels)
          if (l.level == "DRAM" && l.intensity) line += fmt::format(", {:.1f} FLOP/byte at DRAM", *l.intensity);
      if (k.tensor->pipe_active_percent)
        line += fmt::format("; tensor pipe active {}", pct(*k.tensor->pipe_active_percent));
      if (const auto fma = k.values.get("sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_active"))
        line += fmt::format("; FMA pipe {}", pct(*fma));
      line += fmt::format("; {:.1f}% of kernel time", k.values.kernel_share_percent);
      f.evidence.push_back(line);
      named.push_back(k.values.name);
    }
    if (f.evidence.empty()) return std::nullopt;
    f.rule = id();
    f.title = "FP16 math on FMA pipes, no tensor cores";
    f.estimate =
        "not estimated: tensor cores help only if the math is a matrix product (GEMM, convolution, "
        "attention), which the counters cannot tell; where it is, their FP16 peak is many times the FMA "
        "pipe's";
    f.spans = kernel_launch_spans(ctx.trace, named);
    f.advice =
        "If the kernel multiplies matrices, use a tensor-core path: cuBLAS/cuBLASLt or CUTLASS, or WMMA / "
        "mma.sync (wgmma on sm_90) in a custom kernel, with FP16/BF16 inputs and FP32 accumulation. If it is "
        "elementwise math after all, use packed half2 arithmetic instead.";
    return f;
  }
};

}  // namespace

std::unique_ptr<Rule> make_fp16_without_tensor_cores_rule() { return std::make_unique<NoTensorCoresRule>(); }

}  // namespace gpuscope::analysis::rules
