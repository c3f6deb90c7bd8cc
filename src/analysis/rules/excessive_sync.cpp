// Rule excessive_sync: synchronization calls (cuda*Synchronize, waits on
// events) whose waiting the run does not need: re-timed with the
// synchronization calls of the main thread removed except the last one of the
// thread and of each repeated instance, so only the waits the
// trace shows as unavoidable remain (blocking copies still wait for their
// stream's work). An upper bound when the host reads GPU results right after
// a sync without a copy (mapped/managed memory).
#include <fmt/format.h>

#include <set>

#include "analysis/rules/rule.h"

namespace gpuscope::analysis::rules {
namespace {

class ExcessiveSyncRule final : public Rule {
 public:
  std::string id() const override { return "excessive_sync"; }
  std::vector<std::string_view> needs() const override { return {kGapApiCalls, kGapTimeline}; }

  std::optional<Finding> check(const RuleContext& ctx) const override {
    std::vector<size_t> syncs;
    for (size_t i : ctx.main_calls)
      if (ctx.class_of(ctx.trace.api_calls[i]) == ApiClass::Synchronization) syncs.push_back(i);
    if (syncs.size() < 2) return std::nullopt;
    // The last sync of the thread and of each repeated instance stay: the host
    // needs the results at least there.
    std::set<size_t> keep{syncs.back()};
    // Both lists are in time order: one pass keeps the last sync inside each instance.
    size_t k = 0;
    for (const Interval& inst : ctx.repeated.steady) {
      std::optional<size_t> last;
      while (k < syncs.size() && ctx.trace.api_calls[syncs[k]].start < inst.start) ++k;
      while (k < syncs.size() && ctx.trace.api_calls[syncs[k]].start < inst.end) last = syncs[k++];
      if (last) keep.insert(*last);
    }
    Scenario s;
    TimeNs waited = 0;
    std::vector<EvidenceSpan> spans;  // the removable syncs
    for (size_t i : syncs) {
      if (keep.count(i)) continue;
      s.api_ns[i] = 0;
      spans.push_back(span_of(ctx.trace.api_calls[i]));
      waited = add_saturated(waited, duration(ctx.trace.api_calls[i].start, ctx.trace.api_calls[i].end));
    }
    if (s.api_ns.empty()) return std::nullopt;
    const TimeNs saving = ctx.saving(s);
    if (!ctx.worth(saving)) return std::nullopt;
    Finding f;
    f.rule = id();
    f.title = "Synchronization the run does not need";
    f.saving_ns = saving;
    f.estimate = "re-timed without the synchronization calls; later blocking copies still wait for the GPU";
    f.evidence.push_back(fmt::format("{} synchronization calls on the main thread; {} of them removable, {} waiting",
                                     syncs.size(), s.api_ns.size(), ms(waited)));
    if (ctx.repeated.instances >= 2)
      f.evidence.push_back(
          fmt::format("{:.1f} per instance of the repeated part", double(syncs.size()) / ctx.repeated.instances));
    f.spans = evidence_spans(std::move(spans));
    f.advice =
        "Synchronize once where the host needs results (or use events and cudaStreamWaitEvent between streams) "
        "instead of after every launch.";
    return f;
  }
};

}  // namespace

std::unique_ptr<Rule> make_excessive_sync_rule() { return std::make_unique<ExcessiveSyncRule>(); }

}  // namespace gpuscope::analysis::rules
