// Rule sync_copies: synchronous cudaMemcpy/cudaMemset calls block the host
// until the GPU finishes. With cudaMemcpyAsync on a stream the host could run
// its following work meanwhile. Saving (an upper bound: the trace cannot show
// whether that host work needs the copied data) = for each blocking call, the
// host work outside CUDA after it and before the next call that has to wait
// anyway (synchronization, another blocking copy, allocation/free), capped by
// the call's duration. Host work after the thread's last CUDA call is not counted: nothing
// bounds it, and the end of a run usually consumes the result (verification, output).
#include <fmt/format.h>

#include <algorithm>

#include "analysis/rules/rule.h"

namespace gpuscope::analysis::rules {
namespace {

class SyncCopyRule final : public Rule {
 public:
  std::string id() const override { return "sync_copies"; }
  std::vector<std::string_view> needs() const override { return {kGapApiCalls, kGapTimeline}; }

  std::optional<Finding> check(const RuleContext& ctx) const override {
    if (!ctx.main) return std::nullopt;
    const Trace& t = ctx.trace;
    std::vector<bool> blocking(t.api_calls.size(), false);
    mark_blocking(t, ctx.main->pid, blocking);
    TimeNs saving = 0, blocked = 0;
    size_t count = 0;
    std::vector<EvidenceSpan> spans;  // the blocking calls
    for (size_t n = 0; n < ctx.main_calls.size(); ++n) {
      const size_t i = ctx.main_calls[n];
      if (!blocking[i]) continue;
      const ApiCall& c = t.api_calls[i];
      ++count;
      blocked = add_saturated(blocked, duration(c.start, c.end));
      spans.push_back(span_of(c));
      TimeNs host = 0, cursor = c.end;
      for (size_t m = n + 1; m < ctx.main_calls.size(); ++m) {
        const ApiCall& d = t.api_calls[ctx.main_calls[m]];
        host = add_saturated(host, std::max<TimeNs>(0, d.start - cursor));
        cursor = std::max(cursor, d.end);
        const ApiClass k = ctx.class_of(d);
        if (blocking[ctx.main_calls[m]] || k == ApiClass::Synchronization || k == ApiClass::Allocation) break;
      }
      saving = add_saturated(saving, std::min(host, duration(c.start, c.end)));
    }
    if (count == 0 || !ctx.worth(saving)) return std::nullopt;
    Finding f;
    f.rule = id();
    f.title = "Synchronous copies and memsets block the host";
    f.saving_ns = saving;
    f.estimate =
        "host work after each blocking call (until the next call that must wait) overlapped with it; "
        "upper bound";
    f.evidence.push_back(
        fmt::format("{} blocking copy/memset calls on the main thread, {} blocked", count, ms(blocked)));
    f.spans = evidence_spans(std::move(spans));
    f.advice =
        "Use cudaMemcpyAsync/cudaMemsetAsync on a stream (pinned host memory for real asynchrony) and "
        "synchronize only where the host needs the data.";
    return f;
  }

 private:
  static void mark_blocking(const Trace& t, uint32_t pid, std::vector<bool>& out) {
    std::vector<uint32_t> sync_corr;  // correlation ids of synchronous ops, sorted
    for (const Memcpy& m : t.memcpys)
      if (m.pid == pid && !m.async) sync_corr.push_back(m.correlation_id);
    for (const Memset& m : t.memsets)
      if (m.pid == pid && !m.async) sync_corr.push_back(m.correlation_id);
    std::sort(sync_corr.begin(), sync_corr.end());
    for (size_t i = 0; i < t.api_calls.size(); ++i)
      out[i] = t.api_calls[i].pid == pid &&
               std::binary_search(sync_corr.begin(), sync_corr.end(), t.api_calls[i].correlation_id);
  }
};

}  // namespace

std::unique_ptr<Rule> make_sync_copies_rule() { return std::make_unique<SyncCopyRule>(); }

}  // namespace gpuscope::analysis::rules
