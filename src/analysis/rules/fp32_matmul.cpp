// Rule fp32_matmul: fp32 GEMMs and convolutions running on the SIMT FMA pipes (cuBLAS/CUTLASS
// sgemm, xmma f32f32_f32f32 with ffma, cuDNN implicit_convolve_sgemm) where TF32 or bf16 tensor
// cores would do the same math several times faster. Told by the kernel's name alone, so it
// needs no hardware metrics.
//
// Saving: each such kernel's duration divided by an achievable speedup, re-timed (retime.h)
// when every one of them has its launch call; else (a capture without the driver's launches)
// the kernels' time x (1 - 1/speedup), an upper bound when the GPU is not the bottleneck. The
// speedup is kPeakShare x the GPU's TF32-dense / FP32 peak ratio (H100 SXM 495 / 67 TFLOP/s =
// 7.4x, A100 156 / 19.5 = 8x, L4/L40-class (cc 8.6/8.9) about 2x) for kernels of at least
// kLargeKernelNs, which are compute-bound: a 4096-wide fp32 MLP on an H200 ran 4.85x faster
// with TF32 (docs/diagnosis.md). Shorter kernels are latency- and memory-bound and gain far
// less (a 64x512 batch): at most kAchievable.
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "analysis/grouping.h"
#include "analysis/rules/rule.h"

namespace gpuscope::analysis::rules {
namespace {

constexpr double kAchievable = 2.5;         // TF32 tensor-core speedup counted on for short kernels
constexpr double kPeakShare = 0.6;          // of the peak ratio: what large GEMMs reach
constexpr TimeNs kLargeKernelNs = 100'000;  // 0.1 ms: a kernel this long is compute-bound

// TF32-dense / FP32 (FMA) peak ratio by compute capability.
double peak_ratio(int major, int minor) {
  if (major == 8 && minor == 0) return 8.0;  // A100: 156 / 19.5 TFLOP/s
  if (major == 8) return 2.0;                // A10/L4/L40 (cc 8.6, 8.9): tensor TF32 ~2x FP32
  if (major == 9) return 7.4;                // H100 SXM: 495 / 67 TFLOP/s (H200: same chip)
  if (major == 10) return 14.0;              // B200: ~1100 / ~80 TFLOP/s
  return 2.0;                                // other or unknown: the cautious end
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

bool contains(const std::string& s, std::string_view w) { return s.find(w) != std::string::npos; }

// An fp32 matrix product or convolution on SIMT pipes, by kernel name.
bool fp32_simt_matmul_name(const std::string& kernel_name) {
  const std::string n = lower(kernel_name);
  for (std::string_view tensor :
       {"tf32", "hmma", "gmma", "wgmma", "bf16", "f16", "tensorop", "s1688", "s16816", "gemv"})
    if (contains(n, tensor)) return false;
  if (contains(n, "sgemm") || contains(n, "f32f32_f32f32_f32") || contains(n, "convolve_sgemm") ||
      (contains(n, "gemm") && contains(n, "ffma")))
    return true;
  // cuDNN's fp32 convolutions that are no GEMM by name: direct, engine and FFT algorithms on
  // float data, which it stops choosing once TF32 is allowed.
  const bool float_data = contains(n, "<float") || contains(n, ", float") || contains(n, "(float");
  return float_data && !contains(n, "half") &&
         (contains(n, "grouped_direct_kernel") || contains(n, "_engine<float") || contains(n, "fft2d_"));
}

class Fp32MatmulRule final : public Rule {
 public:
  std::string id() const override { return "fp32_matmul"; }
  std::vector<std::string_view> needs() const override { return {kGapTimeline}; }

  std::optional<Finding> check(const RuleContext& ctx) const override {
    const Trace& t = ctx.trace;
    std::map<StringId, bool> simt;  // name -> matches, each name judged once
    KernelTally tally;
    Scenario s;
    TimeNs direct = 0, all_ns = 0;
    std::vector<EvidenceSpan> covers;
    double large_speedup = 0;  // the slowest GPU's, when several
    for (const Device& d : t.devices) {
      const double r = std::max(1.0, kPeakShare * peak_ratio(d.compute_major, d.compute_minor));
      large_speedup = large_speedup == 0 ? r : std::min(large_speedup, r);
    }
    if (large_speedup == 0) large_speedup = kAchievable;
    const double small_speedup = std::min(kAchievable, large_speedup);
    TimeNs large_ns = 0, small_ns = 0;
    for (size_t i = 0; i < t.kernels.size(); ++i) {
      const Kernel& k = t.kernels[i];
      auto [it, fresh] = simt.try_emplace(k.name, false);
      if (fresh) it->second = fp32_simt_matmul_name(t.strings.get(k.name));
      const TimeNs d = duration(k.start, k.end);
      if (ctx.judged(k.start)) all_ns = add_saturated(all_ns, d);
      if (!it->second) continue;
      covers.push_back(span_of(k));  // every launch: the other kernel rules judge them all
      if (!ctx.judged(k.start)) continue;
      tally.add(ctx, k);
      const bool large = d >= kLargeKernelNs;
      (large ? large_ns : small_ns) = add_saturated(large ? large_ns : small_ns, d);
      const TimeNs faster = static_cast<TimeNs>(static_cast<double>(d) / (large ? large_speedup : small_speedup));
      s.kernel_ns[i] = faster;
      direct = add_saturated(direct, d - faster);
    }
    if (tally.empty()) return std::nullopt;
    const TimeNs saving = kernel_saving(ctx, tally, s, direct);
    if (!ctx.worth(saving)) return std::nullopt;

    Finding f;
    f.rule = id();
    f.title = "fp32 matrix math on SIMT FMA pipes, not tensor cores";
    f.saving_ns = saving;
    f.estimate = fmt::format(
        "on TF32 tensor cores, launches of >= {} ({} of them) {:.1f}x faster ({:.1f} x the GPU's TF32/FP32 peak "
        "ratio), "
        "shorter ones ({}) {:.1f}x; {}",
        ms(kLargeKernelNs), ms(large_ns), large_speedup, kPeakShare, ms(small_ns), small_speedup,
        retimed(ctx, tally) ? "re-timed with the shorter kernels"
                            : "their time less the faster kernels', " + not_retimed(tally));
    f.evidence.push_back(fmt::format("{} kernels, {} ({:.1f}% of all kernel time)", tally.launches(), ms(tally.ns()),
                                     all_ns ? 100.0 * tally.ns() / all_ns : 0.0));
    for (std::string& line : tally.lines(4)) f.evidence.push_back(std::move(line));
    f.spans = kernel_launch_spans(t, tally.names());
    f.covers = std::move(covers);
    f.explains = {"low_occupancy", "fp16_without_tensor_cores", "far_from_roofline"};
    f.advice =
        ctx.torch->pytorch()
            ? "Let fp32 matmuls and convolutions use TF32 tensor cores: torch.backends.cuda.matmul.allow_tf32 = True "
              "(or torch.set_float32_matmul_precision(\"high\")) and torch.backends.cudnn.allow_tf32 = True; or run "
              "the forward and backward under torch.autocast(\"cuda\", dtype=torch.bfloat16) for twice TF32's rate."
            : "Use a tensor-core path for these products: cuBLAS with CUBLAS_COMPUTE_32F_FAST_TF32 (or "
              "cublasSetMathMode(CUBLAS_TF32_TENSOR_OP_MATH)), cuDNN's TF32 math type, or bf16/fp16 inputs with "
              "fp32 accumulation.";
    return f;
  }
};

}  // namespace

std::unique_ptr<Rule> make_fp32_matmul_rule() { return std::make_unique<Fp32MatmulRule>(); }

}  // namespace gpuscope::analysis::rules
