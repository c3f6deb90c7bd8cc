// Rule hot_source_line: PC samples (`profile --source`) put >= 25 % of a kernel's samples on one
// source line (an instruction, without a line table), most of them (>= 40 %) one stall reason
// that is a real stall ("selected" and "not_selected" are not), in a kernel with >= 5 % of all
// samples. It names each such line (up to 3 per kernel), its hottest instruction, the reason and
// the barrier waited at.
//
// Estimate, only for the shared-memory pipe's stalls (short_scoreboard, mio_throttle: bank
// conflicts, shared-memory and MUFU throughput), whose fix (a conflict-free layout) removes the
// wait: the kernel's traced time x the named lines' samples with that stall / the kernel's
// samples. A sample is a warp at an instruction at an instant, so that share is the share of the
// warps' time spent there; with few resident warps (nothing else to issue) the kernel shortens
// by it, and it is an upper bound where other warps' work hides the wait, as the
// shared_bank_conflicts rule's latency share is. Other reasons are not estimated: a barrier's
// waiters wait for other warps' work, which stays, and a load's latency may be the algorithm's.
#include <fmt/format.h>

#include <optional>

#include "analysis/rules/rule.h"
#include "gpuscope/analysis_metrics.h"
#include "gpuscope/analysis_source.h"

namespace gpuscope::analysis::rules {
namespace {

constexpr double kHotShare = 25.0;    // % of the kernel's samples on the line
constexpr double kStallShare = 40.0;  // % of the line's samples with its top reason
constexpr double kKernelShare = 5.0;  // % of all sampled kernels' samples
constexpr size_t kKernelsNamed = 3;
constexpr size_t kLinesNamed = 3;  // per kernel

bool shared_pipe_stall(const std::string& reason) { return reason == "short_scoreboard" || reason == "mio_throttle"; }

class HotSourceLineRule final : public Rule {
 public:
  std::string id() const override { return "hot_source_line"; }

  std::optional<Finding> check(const RuleContext& ctx) const override {
    if (!ctx.source) return std::nullopt;
    Finding f;
    std::vector<std::string> reasons, named;
    double saving = 0;
    bool estimated = false, unestimated = false;
    for (const KernelSource& k : ctx.source->kernels) {
      if (named.size() >= kKernelsNamed) break;
      const double kernel_share = ctx.source->samples ? 100.0 * k.samples / ctx.source->samples : 0;
      if (kernel_share < kKernelShare || k.samples == 0) continue;
      // Its hot lines, else (no line table) its hot instructions.
      const std::vector<SourceHotspot>& spots = k.lines.empty() ? k.instructions : k.lines;
      std::optional<double> kernel_ns;  // its traced time, read once an estimate needs it
      size_t lines = 0;
      for (const SourceHotspot& hot : spots) {
        if (lines >= kLinesNamed || hot.share_percent < kHotShare) break;
        if (hot.stalls.empty()) continue;
        const StallSamples& top = hot.stalls.front();
        const double stall_share = hot.samples ? 100.0 * top.samples / hot.samples : 0;
        if (stall_share < kStallShare || stall_is_benign(top.reason)) continue;
        ++lines;
        std::string where = k.lines.empty() ? fmt::format("{:#06x}", hot.pc) : short_place(hot.location);
        // Its hottest instruction's SASS: from the listing (every instruction) when there is one.
        const std::vector<SourceHotspot>& code = k.listing.empty() ? k.instructions : k.listing;
        const auto sass = std::find_if(code.begin(), code.end(),
                                       [&](const SourceHotspot& i) { return i.pc == hot.pc; });
        if (sass != code.end() && !sass->instruction.empty()) where += ", `" + sass->instruction + "`";
        std::string line = fmt::format("{}: `{}` holds {:.0f}% of the kernel's samples, {:.0f}% of them {} stalls",
                                       k.name, where, hot.share_percent, stall_share, top.reason);
        if (hot.waits_at.line != 0) line += fmt::format(" (waiting at the barrier on {})", short_place(hot.waits_at));
        if (shared_pipe_stall(top.reason) && !kernel_ns) kernel_ns = traced_ns(ctx.trace, k);
        if (shared_pipe_stall(top.reason) && *kernel_ns > 0) {
          const double lost = *kernel_ns * static_cast<double>(top.samples) / static_cast<double>(k.samples);
          saving += lost;
          estimated = true;
          line += fmt::format("; ~{} of the kernel's {}", ms(saturated_ns(lost)), ms(saturated_ns(*kernel_ns)));
        } else {
          unestimated = true;
        }
        line += fmt::format("; the kernel has {:.1f}% of all samples", kernel_share);
        f.evidence.push_back(std::move(line));
        if (std::find(reasons.begin(), reasons.end(), top.reason) == reasons.end()) reasons.push_back(top.reason);
      }
      if (lines > 0) named.push_back(k.name);
    }
    if (f.evidence.empty()) return std::nullopt;
    f.rule = id();
    f.title = reasons.size() == 1 ? "Source lines hold a kernel's " + reasons.front() + " stalls"
                                  : "Source lines hold most of a kernel's stalls";
    if (f.evidence.size() == 1) f.title.replace(0, std::string("Source lines hold").size(), "One source line holds");
    if (estimated) {
      f.saving_ns = saturated_ns(saving);
      f.estimate =
          "each kernel's traced time x its named lines' samples with a shared-memory pipe stall (short_scoreboard, "
          "mio_throttle) / its samples: the warps' time waiting there, which a conflict-free layout removes; less "
          "where other warps' work hides the wait";
      if (unestimated) f.estimate += ". Lines with other stalls are not estimated";
      f.shares_time_with = {"tail_effect", "shared_bank_conflicts", "low_occupancy"};
    } else {
      f.estimate =
          "not estimated: samples say where the warps wait, not how much faster the kernel runs once they do not "
          "(other warps may hide a stall; a barrier's waiters wait for other warps' work)";
    }
    f.spans = kernel_launch_spans(ctx.trace, named);
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
