// Rule hot_source_line: PC samples (`profile --source`) put >= 25 % of a kernel's samples on one
// source line (an instruction, without a line table), most of them (>= 40 %) one stall reason
// that is a real stall ("selected" and "not_selected" are not), in a kernel with >= 5 % of all
// samples. It names the line, the instruction, the reason and the barrier waited at. No time
// estimate: samples say where warps are, not how much faster the kernel would run without the
// stall (other warps may hide it).
#include <fmt/format.h>

#include "analysis/rules/rule.h"
#include "gpuscope/analysis_metrics.h"
#include "gpuscope/analysis_source.h"

namespace gpuscope::analysis::rules {
namespace {

constexpr double kHotShare = 25.0;    // % of the kernel's samples on the line
constexpr double kStallShare = 40.0;  // % of the line's samples with its top reason
constexpr double kKernelShare = 5.0;  // % of all sampled kernels' samples
constexpr size_t kKernelsNamed = 3;

class HotSourceLineRule final : public Rule {
 public:
  std::string id() const override { return "hot_source_line"; }

  std::optional<Finding> check(const RuleContext& ctx) const override {
    if (!ctx.source) return std::nullopt;
    Finding f;
    std::vector<std::string> reasons;
    for (const KernelSource& k : ctx.source->kernels) {
      if (reasons.size() >= kKernelsNamed) break;
      const double kernel_share = ctx.source->samples ? 100.0 * k.samples / ctx.source->samples : 0;
      if (kernel_share < kKernelShare) continue;
      // The hottest line, else (no line table) the hottest instruction.
      const std::vector<SourceHotspot>& spots = k.lines.empty() ? k.instructions : k.lines;
      if (spots.empty() || spots.front().stalls.empty()) continue;
      const SourceHotspot& hot = spots.front();
      const StallSamples& top = hot.stalls.front();
      const double stall_share = hot.samples ? 100.0 * top.samples / hot.samples : 0;
      if (hot.share_percent < kHotShare || stall_share < kStallShare || stall_is_benign(top.reason)) continue;
      std::string where = k.lines.empty() ? fmt::format("{:#06x}", hot.pc) : short_place(hot.location);
      const auto sass = std::find_if(k.instructions.begin(), k.instructions.end(),
                                     [&](const SourceHotspot& i) { return i.pc == hot.pc; });
      if (sass != k.instructions.end() && !sass->instruction.empty()) where += ", `" + sass->instruction + "`";
      std::string line = fmt::format("{}: `{}` holds {:.0f}% of the kernel's samples, {:.0f}% of them {} stalls",
                                     k.name, where, hot.share_percent, stall_share, top.reason);
      if (hot.waits_at.line != 0) line += fmt::format(" (waiting at the barrier on {})", short_place(hot.waits_at));
      line += fmt::format("; the kernel has {:.1f}% of all samples", kernel_share);
      f.evidence.push_back(std::move(line));
      if (std::find(reasons.begin(), reasons.end(), top.reason) == reasons.end()) reasons.push_back(top.reason);
    }
    if (f.evidence.empty()) return std::nullopt;
    f.rule = id();
    f.title = reasons.size() == 1 ? "One source line holds a kernel's " + reasons.front() + " stalls"
                                  : "One source line holds most of a kernel's stalls";
    f.estimate =
        "not estimated: samples say where the warps wait, not how much faster the kernel runs once they do not "
        "(other warps may hide a stall)";
    for (const std::string& r : reasons) {
      const StallGuidance* g = stall_guidance(r);
      if (g) f.advice += fmt::format("{} means {}. Try: {}. ", r, g->meaning, g->advice);
      else f.advice += r + ": see Nsight Compute's warp-state documentation. ";
    }
    while (!f.advice.empty() && f.advice.back() == ' ') f.advice.pop_back();
    return f;
  }
};

}  // namespace

std::unique_ptr<Rule> make_hot_source_line_rule() { return std::make_unique<HotSourceLineRule>(); }

}  // namespace gpuscope::analysis::rules
