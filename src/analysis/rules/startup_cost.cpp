// Rule startup_cost: CUDA context creation paid inside the first call that
// needs a context (that call is far longer than its later peers). It cannot
// be removed, but it can overlap host work: create the context on another
// thread (cudaFree(0) / cudaSetDevice + cudaInitDevice) while the host
// prepares its data. Saving = the excess, capped by the host work outside
// CUDA that the main thread did before that call.
//
// It stays a rule when the run has steps (the fix is real and cheap), but as a one-time cost it
// is marked Finding::startup: run_rules() ranks it after every steady-state finding, since a
// 200 ms context creation paid once must not outrank a 0.6 ms loss paid every step; the
// report's Start-up section shows it with the rest of the start-up.
#include <fmt/format.h>

#include "analysis/rules/rule.h"

namespace gpuscope::analysis::rules {
namespace {

class StartupRule final : public Rule {
 public:
  std::string id() const override { return "startup_cost"; }
  std::vector<std::string_view> needs() const override { return {kGapApiCalls, kGapTimeline}; }

  std::optional<Finding> check(const RuleContext& ctx) const override {
    if (!ctx.context_creation || ctx.all_main_calls.empty()) return std::nullopt;
    const auto& t = ctx.trace;
    const ApiCall& cc = t.api_calls[ctx.context_creation->api_index];
    // Host work outside CUDA on the main thread between its first call and the context-creating one.
    TimeNs host = 0, cursor = t.api_calls[ctx.all_main_calls.front()].start;
    for (size_t i : ctx.all_main_calls) {
      const ApiCall& c = t.api_calls[i];
      if (c.start >= cc.start) break;
      host += std::max<TimeNs>(0, c.start - cursor);
      cursor = std::max(cursor, c.end);
    }
    host += std::max<TimeNs>(0, cc.start - cursor);
    const TimeNs excess = ctx.context_creation->excess_ns;
    const TimeNs saving = std::min(excess, host);

    Finding f;
    f.rule = id();
    f.startup = true;
    f.title = "CUDA context creation on the critical path";
    f.evidence.push_back(fmt::format("{} at {} took {}, {} more than its later calls (median): context creation",
                                     ctx.name_of(cc), ctx.at(cc.start), ms(cc.end - cc.start), ms(excess)));
    if (auto range = ctx.nvtx_at(cc.start); !range.empty())
      f.evidence.push_back(fmt::format("inside NVTX range '{}'", range));
    f.evidence.push_back(fmt::format("host work outside CUDA before it on the same thread: {}", ms(host)));
    const TimeNs first = t.api_calls[ctx.all_main_calls.front()].start;
    if (t.run.start > 0 && first > t.run.start)
      f.evidence.push_back(fmt::format("process start to first CUDA call: {} (not counted)", ms(first - t.run.start)));
    if (!ctx.worth(saving)) return std::nullopt;
    f.saving_ns = saving;
    f.estimate = "context-creation excess, capped by the host work it could overlap";
    // The start-up interval: the main thread's first CUDA call to the end of the context-creating one
    // (the host work before it, which the context creation could overlap, and the creation itself).
    f.spans = evidence_spans({{cc.pid, first, cc.end}});
    f.advice =
        "Create the CUDA context early on a helper thread (cudaSetDevice + cudaFree(0)) while the host "
        "prepares data; keep CUDA_MODULE_LOADING=LAZY (the default) so modules load on first use.";
    return f;
  }
};

}  // namespace

std::unique_ptr<Rule> make_startup_cost_rule() { return std::make_unique<StartupRule>(); }

}  // namespace gpuscope::analysis::rules
