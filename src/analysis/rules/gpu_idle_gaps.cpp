// Rule gpu_idle_gaps: the GPU sits idle between its first and last work while
// the launching thread does host work outside CUDA. Saving (upper bound) = the
// host-work part of those gaps: it could run while the GPU works if the work
// were issued asynchronously ahead of it (streams, double buffering). Gap time
// spent inside CUDA calls is left to the rules for those calls (allocation,
// copies, synchronization).
#include <fmt/format.h>

#include "analysis/rules/rule.h"

namespace gpuscope::analysis::rules {
namespace {

class IdleGapRule final : public Rule {
 public:
  std::string id() const override { return "gpu_idle_gaps"; }
  std::vector<std::string_view> needs() const override { return {kGapTimeline}; }

  std::optional<Finding> check(const RuleContext& ctx) const override {
    if (!ctx.main) return std::nullopt;
    const Timeline& tl = ctx.timeline;
    TimeNs host = 0, idle = 0;
    size_t gaps = 0;
    const IdleGap* longest = nullptr;
    std::vector<EvidenceSpan> spans;  // the gaps counted
    for (const DeviceTimeline& d : tl.devices) {
      if (d.pid != ctx.main->pid) continue;
      idle += d.idle_ns;
      for (const IdleGap& g : d.gaps) {
        host += g.cpu.outside_ns;
        ++gaps;
        spans.push_back({d.pid, g.start, g.end});
        if (!longest || g.cpu.outside_ns > longest->cpu.outside_ns) longest = &g;
      }
    }
    if (!longest || !ctx.worth(host)) return std::nullopt;
    Finding f;
    f.rule = id();
    f.title = "GPU idle while the host works outside CUDA";
    f.saving_ns = host;
    f.estimate = "host work outside CUDA during GPU idle gaps of >= 0.1 ms, if overlapped with GPU work; upper bound";
    f.evidence.push_back(
        fmt::format("{} idle gaps of >= 0.1 ms, {} GPU idle in total between first and last GPU work", gaps, ms(idle)));
    f.evidence.push_back(
        fmt::format("longest host-work gap: {} at {}{}", ms(longest->end - longest->start), ctx.at(longest->start),
                    ctx.nvtx_at(longest->start).empty() ? "" : ", NVTX range '" + ctx.nvtx_at(longest->start) + "'"));
    f.spans = evidence_spans(std::move(spans));
    f.advice =
        "Issue GPU work asynchronously and ahead of the host work (streams, double buffering), or move the "
        "host work off the launching thread.";
    return f;
  }
};

}  // namespace

std::unique_ptr<Rule> make_gpu_idle_gaps_rule() { return std::make_unique<IdleGapRule>(); }

}  // namespace gpuscope::analysis::rules
