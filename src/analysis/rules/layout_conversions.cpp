// Rule layout_conversions: cuDNN converting tensors between NCHW and NHWC around its
// convolutions. Its tensor-core convolution engines work on NHWC; fed NCHW tensors (PyTorch's
// default memory format, and what a mixed-precision CNN trained without channels_last runs
// in), cuDNN transposes the input and filter to NHWC and the output back, each in a kernel of
// its own: cudnn::ops::nchwToNhwcKernel<...> and nhwcToNchwKernel<...> (in older cuDNN
// cudnn::engines_precompiled::, in front of a bare name before that). Told by the kernel's name
// alone (case-sensitive, as CUDA prints it; the mangled name holds the same words).
// Not counted: nhwcToFoldedNhwcKernel, foldedNhwcToNhwcKernel and foldedNchwToNchwKernel reshape
// a tensor for the convolution algorithm within one layout, and nchwToFoldedNhwcKernel would
// become nhwcToFoldedNhwcKernel under channels_last: none of them goes with the memory format.
//
// Saving: the conversions' GPU time in the judged part removed (Scenario::kernel_ns = 0),
// re-timed when the main thread's replay has every one's launch call, so only the part on the
// critical path counts; else their GPU time, an upper bound when the GPU is not the bottleneck
// (kernel_saving, as fp32_matmul). Their launch calls' host time is kept: conservative.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <utility>

#include "analysis/rules/rule.h"

namespace gpuscope::analysis::rules {
namespace {

// Reported when the conversions take >= 3 % of the GPU's busy time in the judged part (and the
// saving passes ctx.worth(): >= 50 us and >= 0.5 % of the judged time, as every rule's). Below a
// few percent the change is not worth its risk: under channels_last, ops without an NHWC kernel
// (a view that needs NCHW-contiguous input, some custom or pooling ops) add permute copies of
// their own, which can eat a small gain.
constexpr double kMinBusyShare = 0.03;

enum class Conversion { None, ToNhwc, ToNchw };

Conversion conversion_of(const std::string& name) {
  if (name.find("nchwToNhwcKernel") != std::string::npos) return Conversion::ToNhwc;
  if (name.find("nhwcToNchwKernel") != std::string::npos) return Conversion::ToNchw;
  return Conversion::None;
}

class LayoutConversionsRule final : public Rule {
 public:
  std::string id() const override { return "layout_conversions"; }
  std::vector<std::string_view> needs() const override { return {kGapTimeline}; }

  std::optional<Finding> check(const RuleContext& ctx) const override {
    const Trace& t = ctx.trace;
    std::map<std::pair<StringId, StringId>, Conversion> kind;  // (name, mangled) -> conversion, judged once
    KernelTally tally;
    Scenario s;
    size_t to_nhwc = 0, to_nchw = 0;
    std::map<std::pair<std::string, OpPhase>, size_t> by_op;  // "aten::conv2d > aten::cudnn_convolution"
    std::vector<EvidenceSpan> covers;
    for (size_t i = 0; i < t.kernels.size(); ++i) {
      const Kernel& k = t.kernels[i];
      auto [it, fresh] = kind.try_emplace({k.name, k.mangled_name}, Conversion::None);
      if (fresh) {
        it->second = conversion_of(t.strings.get(k.name));
        if (it->second == Conversion::None) it->second = conversion_of(t.strings.get(k.mangled_name));
      }
      if (it->second == Conversion::None) continue;
      covers.push_back(span_of(k));  // every launch: the kernel rules judge them all
      if (!ctx.judged(k.start)) continue;
      tally.add(ctx, k);
      s.kernel_ns[i] = 0;
      ++(it->second == Conversion::ToNhwc ? to_nhwc : to_nchw);
      const uint32_t op = ctx.torch->op_of_call(k.run_id, k.pid, k.correlation_id);
      if (op == detail::kNoOp) continue;
      const uint32_t user = ctx.torch->user_op(op);
      ++by_op[{user == op ? ctx.torch->name(op) : ctx.torch->name(user) + " > " + ctx.torch->name(op),
               ctx.torch->phase(op)}];
    }
    if (tally.empty()) return std::nullopt;
    TimeNs busy = 0;  // of the judged part: the timeline is the steady window's when there is one
    for (const DeviceTimeline& d : ctx.timeline.devices) busy = add_saturated(busy, d.busy_ns);
    const double share = busy > 0 ? static_cast<double>(tally.ns()) / static_cast<double>(busy) : 0.0;
    if (share < kMinBusyShare) return std::nullopt;
    const TimeNs saving = kernel_saving(ctx, tally, s, tally.ns());
    if (!ctx.worth(saving)) return std::nullopt;

    Finding f;
    f.rule = id();
    f.title = "cuDNN converts tensors between NCHW and NHWC around convolutions";
    f.saving_ns = saving;
    f.estimate = fmt::format(
        "the conversion kernels' GPU time in the judged part ({}) removed, their launch calls kept; {}", ms(tally.ns()),
        retimed(ctx, tally) ? "re-timed without them: only the part of that time on the critical path counts"
                            : "their whole time, " + not_retimed(tally));
    f.evidence.push_back(fmt::format(
        "{} conversion kernels ({} NCHW to NHWC, {} NHWC to NCHW), {} ({:.1f}% of GPU "
        "busy time, {}; reported from {:.0f}%)",
        tally.launches(), to_nhwc, to_nchw, ms(tally.ns()), 100.0 * share, ms(busy), 100.0 * kMinBusyShare));
    for (std::string& line : tally.lines(4)) f.evidence.push_back(std::move(line));
    if (!by_op.empty()) {
      std::vector<std::pair<size_t, std::pair<std::string, OpPhase>>> ops;
      for (const auto& [op, n] : by_op) ops.emplace_back(n, op);
      std::stable_sort(ops.begin(), ops.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
      std::string line = "launched by ";
      for (size_t o = 0; o < ops.size() && o < 4; ++o)
        line += fmt::format("{}{} ({}): {}", o ? "; " : "", ops[o].second.first, to_string(ops[o].second.second),
                            ops[o].first);
      f.evidence.push_back(line);
    }
    f.spans = kernel_launch_spans(t, tally.names());
    f.covers = std::move(covers);
    f.explains = {"low_occupancy", "tail_effect", "memory_bound_kernel", "far_from_roofline"};
    f.advice =
        ctx.torch->pytorch()
            ? "Run the network in channels_last (NHWC) memory format: model = "
              "model.to(memory_format=torch.channels_last) once, and every input x = "
              "x.to(memory_format=torch.channels_last), keeping torch.autocast / AMP as it is. cuDNN's tensor-core "
              "convolutions then read and write NHWC directly and these conversions go. Check the profile again: an op "
              "without a channels_last kernel makes a permute copy of its own."
            : "Keep activations and filters in NHWC through the network (CUDNN_TENSOR_NHWC in the tensor and filter "
              "descriptors; channels_last in a framework), converting once at the input if at all: cuDNN's "
              "tensor-core convolution paths work on NHWC and convert NCHW tensors in and out on every call.";
    return f;
  }
};

}  // namespace

std::unique_ptr<Rule> make_layout_conversions_rule() { return std::make_unique<LayoutConversionsRule>(); }

}  // namespace gpuscope::analysis::rules
