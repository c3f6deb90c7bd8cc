// Rule host_sync: a PyTorch op makes the host wait for the GPU every step (.item() ->
// aten::_local_scalar_dense, .cpu()/.to("cpu") -> aten::to/copy_, aten::nonzero, printing a
// tensor), so the GPU drains, then waits again while the host launches the next work.
// Sync points: the main thread's synchronization calls (not cudaStreamWaitEvent/Query, which
// do not block the host) and its synchronous device-to-host copies, in the judged part; grouped
// by the op that made them (the outermost aten:: op: aten::item around _local_scalar_dense),
// kept when they recur at least once per step (>= steps - 1, >= 2).
//
// Saving: re-timed (retime.h) without those waits: synchronization calls removed, the copies'
// calls returning after kAsyncCallNs without waiting (the value stays on the GPU, or is read
// every N steps, or copied with non_blocking=True into pinned memory).
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "analysis/rules/rule.h"

namespace gpuscope::analysis::rules {
namespace {

constexpr TimeNs kAsyncCallNs = 10'000;  // host time of a copy call that does not wait (cudaMemcpyAsync)

class HostSyncRule final : public Rule {
 public:
  std::string id() const override { return "host_sync"; }
  std::vector<std::string_view> needs() const override { return {kGapApiCalls, kGapTimeline}; }

  std::optional<Finding> check(const RuleContext& ctx) const override {
    if (!ctx.main || !ctx.retimer || !ctx.torch->pytorch()) return std::nullopt;
    const Trace& t = ctx.trace;
    const TorchOps& torch = *ctx.torch;
    std::vector<uint32_t> d2h;  // correlation ids of blocking device-to-host copies
    for (const Memcpy& m : t.memcpys)
      if (m.pid == ctx.main->pid && !m.async && (m.kind == CopyKind::DtoH || m.kind == CopyKind::AtoH))
        d2h.push_back(m.correlation_id);
    std::sort(d2h.begin(), d2h.end());
    std::vector<TimeNs> gpu_starts;  // of the main process's GPU work, sorted: when the GPU resumes
    for (const Kernel& k : t.kernels)
      if (k.pid == ctx.main->pid) gpu_starts.push_back(k.start);
    for (const Memcpy& m : t.memcpys)
      if (m.pid == ctx.main->pid) gpu_starts.push_back(m.start);
    std::sort(gpu_starts.begin(), gpu_starts.end());

    struct Group {
      size_t n = 0;
      TimeNs waited = 0;
      std::vector<size_t> calls;
      std::vector<EvidenceSpan> covers;
    };
    std::map<std::string, Group> groups;  // by the op (or CUDA call) that synced
    for (size_t i : ctx.main_calls) {
      const ApiCall& c = t.api_calls[i];
      const std::string& name = ctx.name_of(c);
      const bool sync = ctx.class_of(c) == ApiClass::Synchronization && name.find("WaitEvent") == std::string::npos &&
                        name.find("Query") == std::string::npos;
      const bool copy = std::binary_search(d2h.begin(), d2h.end(), c.correlation_id);
      if ((!sync && !copy) || !ctx.retimer->replays(c.correlation_id)) continue;
      const uint32_t op = torch.op_of_call(c.run_id, c.pid, c.correlation_id);
      const uint32_t user = op == detail::kNoOp ? op : torch.user_op(op);
      Group& g = groups[user == detail::kNoOp ? name + " (no PyTorch op)" : torch.describe(user)];
      ++g.n, g.waited = add_saturated(g.waited, duration(c.start, c.end)), g.calls.push_back(i);
      // The idle it causes: from the op's start until the GPU has work again.
      const TimeNs from = user == detail::kNoOp ? c.start : t.host_ops[user].start;
      const auto resume = std::lower_bound(gpu_starts.begin(), gpu_starts.end(), c.end);
      g.covers.push_back({c.pid, from, resume == gpu_starts.end() ? c.end : *resume});
    }
    // The thread's last wait stays: the replay ends with the thread's last call, so without
    // it the GPU work still queued would not count (the run's end waits for it anyway).
    size_t last_wait = SIZE_MAX;
    for (size_t i : ctx.all_main_calls) {
      const ApiCall& c = t.api_calls[i];
      if (ctx.class_of(c) == ApiClass::Synchronization || std::binary_search(d2h.begin(), d2h.end(), c.correlation_id))
        last_wait = i;
    }
    const size_t steps = ctx.repeated.steady.size();
    const size_t min_n = std::max<size_t>(2, steps > 0 ? steps - 1 : 2);
    Scenario s;
    Finding f;
    std::vector<EvidenceSpan> spans;
    std::vector<std::pair<size_t, std::string>> named;
    for (auto& [what, g] : groups) {
      if (g.n < min_n) continue;
      for (size_t i : g.calls) {
        if (i == last_wait) continue;
        const ApiCall& c = t.api_calls[i];
        s.api_ns[i] = ctx.class_of(c) == ApiClass::Synchronization ? 0
                                                                   : std::min(kAsyncCallNs, duration(c.start, c.end));
        spans.push_back(span_of(c));
      }
      f.covers.insert(f.covers.end(), g.covers.begin(), g.covers.end());
      f.evidence.push_back(fmt::format("{}: {} host syncs ({:.1f} per step), {} waiting", what, g.n,
                                       steps ? double(g.n) / steps : double(g.n), ms(g.waited)));
      named.emplace_back(g.n, what);
    }
    if (s.api_ns.empty()) return std::nullopt;
    const TimeNs saving = ctx.saving(s);
    if (!ctx.worth(saving)) return std::nullopt;
    std::sort(named.rbegin(), named.rend());
    f.rule = id();
    f.title = "Host syncs in the loop: " + named.front().second + " waits for the GPU every step";
    f.saving_ns = saving;
    f.estimate = fmt::format(
        "re-timed without these waits: synchronization calls removed, device-to-host copy calls "
        "returning after {:.0f} us without waiting for the GPU",
        kAsyncCallNs / 1e3);
    f.spans = evidence_spans(std::move(spans));
    f.explains = {"excessive_sync", "sync_copies", "large_result_copy", "gpu_idle_gaps"};
    f.advice =
        "Keep values on the GPU inside the loop: no .item(), .cpu(), .tolist(), print(tensor) or "
        "data-dependent shapes (nonzero, boolean masks) per step. Accumulate metrics in a GPU tensor and read "
        "them every N steps; where the host needs a copy, use .to(\"cpu\", non_blocking=True) into pinned "
        "memory and read it after a later event or step.";
    return f;
  }
};

}  // namespace

std::unique_ptr<Rule> make_host_sync_rule() { return std::make_unique<HostSyncRule>(); }

}  // namespace gpuscope::analysis::rules
