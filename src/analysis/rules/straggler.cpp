// Rule straggler: one rank of a multi-process job arrives last at most collectives
// (analyze_ranks names it) and every other rank waits for it. Saving = its lateness in the
// judged steps (Straggler::step_lateness: the rises of its lateness from collective to
// collective, so a rank that stays 3 ms behind through every gradient bucket costs 3 ms, not
// 3 ms a bucket); without steps, its summed lateness at the collectives in the judged part (its
// arrival minus the next-latest rank's), an upper bound. The job would end that much sooner if the
// straggler kept up with the next-latest rank. The fix follows what it did differently
// (StragglerCause).
#include <fmt/format.h>

#include "analysis/rules/rule.h"

namespace gpuscope::analysis::rules {
namespace {

std::string name_of(const Straggler& s) {
  return s.rank >= 0 ? fmt::format("rank {}", s.rank) : fmt::format("the process with pid {}", s.pid);
}

std::string advice_for(const std::optional<StragglerCause>& cause) {
  const StragglerCauseKind kind = cause ? cause->kind : StragglerCauseKind::Unknown;
  switch (kind) {
    case StragglerCauseKind::HostGaps:
      return "Its host keeps the GPU waiting: find what its thread does between CUDA calls in those gaps (data "
             "loading, preprocessing, logging, checkpoints, a sleep). Prefetch batches (DataLoader num_workers, "
             "pin_memory=True, prefetch_factor), and move host work off the step or onto every rank evenly.";
    case StragglerCauseKind::SlowerKernels:
      return "The same kernels run slower on its GPU: check that GPU's clocks, power and thermal throttling "
             "(nvidia-smi -q -d CLOCK,PERFORMANCE), its placement (PCIe/NVLink topology, NUMA binding, a shared "
             "GPU), or uneven input shapes on that rank.";
    case StragglerCauseKind::MoreKernels:
      return "It launches more work per step than the other ranks: balance the work per rank (uneven shards or "
             "sequence lengths, rank-0-only work such as evaluation or logging inside the step).";
    case StragglerCauseKind::Unknown: break;
  }
  return "Compare its timeline with another rank's around the collectives it arrives late at: host work, input "
         "waits or slower kernels before them hold every rank back.";
}

class StragglerRule final : public Rule {
 public:
  std::string id() const override { return "straggler"; }

  std::optional<Finding> check(const RuleContext& ctx) const override {
    if (!ctx.ranks || !ctx.ranks->straggler) return std::nullopt;
    const Straggler& s = *ctx.ranks->straggler;
    const RankSummary* rank = nullptr;
    for (const RankSummary& r : ctx.ranks->ranks)
      if (r.pid == s.pid) rank = &r;
    if (!rank) return std::nullopt;
    TimeNs summed = 0, late = 0;
    size_t judged = 0;
    std::vector<EvidenceSpan> spans;  // the other ranks' waits
    for (const LateArrival& a : rank->late_arrivals) {
      if (!ctx.judged(a.start)) continue;
      summed = add_saturated(summed, a.late_ns);
      ++judged;
      spans.push_back({0, a.start - a.late_ns, a.start});
    }
    if (s.steps > 0) {
      for (const LateArrival& step : s.step_lateness)
        if (ctx.judged(step.start)) late = add_saturated(late, step.late_ns);
    } else {
      late = summed;
    }
    if (!ctx.worth(late)) return std::nullopt;
    Finding f;
    f.rule = id();
    f.title = s.steps > 0 ? fmt::format("{} is the straggler: the other ranks wait {} per {} for it", name_of(s),
                                        ms(static_cast<TimeNs>(s.late_per_step_ns)), s.step_range)
                          : fmt::format("{} is the straggler: the other ranks wait {} for it", name_of(s), ms(late));
    f.saving_ns = late;
    f.estimate = s.steps > 0
                     ? "its lateness in the judged steps: in each, the rises of its lateness (its start minus the "
                       "next-latest rank's) from one collective to the next, so lateness it carries through several "
                       "collectives counts once; the job ends that much sooner if it keeps up"
                     : "its summed lateness at the collectives it arrived last at (its start minus the next-latest "
                       "rank's), in the judged part: every other rank waits in the collective meanwhile, so the job "
                       "ends that much sooner if it keeps up; an upper bound (lateness carried from one collective to "
                       "the next counts at each)";
    f.evidence.push_back(
        fmt::format("last to arrive at {} of {} matched collectives ({} of them in the judged part, "
                    "{} late at them summed)",
                    s.last_count, s.matched, judged, ms(summed)));
    if (s.steps > 0)
      f.evidence.push_back(fmt::format("{} steps ({}): median lateness {} per step, {:.0f}% of its median step of {}",
                                       s.steps, s.step_range, ms(static_cast<TimeNs>(s.late_per_step_ns)),
                                       100.0 * s.share_of_step, ms(static_cast<TimeNs>(s.step_ns))));
    if (s.cause) f.evidence.push_back("what it did differently: " + s.cause->text);
    f.spans = evidence_spans(std::move(spans));
    f.advice = advice_for(s.cause);
    return f;
  }
};

}  // namespace

std::unique_ptr<Rule> make_straggler_rule() { return std::make_unique<StragglerRule>(); }

}  // namespace gpuscope::analysis::rules
