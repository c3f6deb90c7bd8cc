// Rule pageable_copies: host<->device copies from pageable host memory, which
// the driver stages through a pinned bounce buffer. Re-times each at the pinned
// bandwidth: measured on pinned copies of the same direction and device in
// this trace when there are any, else a conservative default per link.
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "analysis/rules/rule.h"

namespace gpuscope::analysis::rules {
namespace {

// Host time a synchronous pinned copy's call spends after its copy ends. Pageable copies
// spend more (the last staging chunk is copied by the CPU after the DMA); the fixed
// bsr_spmm capture's pinned cudaMemcpy calls last 12 us longer than their copies in all
// (launch before plus return after), so 10 us is a conservative bound for the return part.
constexpr TimeNs kPinnedReturnNs = 10'000;

class PageableRule final : public Rule {
 public:
  std::string id() const override { return "pageable_copies"; }
  std::vector<std::string_view> needs() const override { return {kGapCopyMemoryKinds, kGapApiCalls, kGapTimeline}; }

  std::optional<Finding> check(const RuleContext& ctx) const override {
    if (!ctx.main) return std::nullopt;
    const Trace& t = ctx.trace;
    // Measured pinned bandwidth per (device, direction).
    std::map<std::pair<uint32_t, CopyKind>, std::pair<double, double>> pinned;  // bytes, ns
    for (const Memcpy& m : t.memcpys)
      if (m.pid == ctx.main->pid && host_side(m) == MemoryKind::Pinned && m.end > m.start) {
        auto& [b, ns] = pinned[{m.device, m.kind}];
        b += static_cast<double>(m.bytes);
        ns += static_cast<double>(m.end - m.start);
      }

    Scenario s;
    std::map<std::string, std::tuple<size_t, uint64_t, TimeNs, TimeNs>> by_dir;  // n, bytes, ns, new ns
    std::map<std::string, std::string> sources;
    std::vector<EvidenceSpan> spans;    // the copies re-timed
    std::map<std::string, size_t> ops;  // the PyTorch op of each copy -> copies
    for (size_t i = 0; i < t.memcpys.size(); ++i) {
      const Memcpy& m = t.memcpys[i];
      if (m.pid != ctx.main->pid || host_side(m) != MemoryKind::Pageable || m.end <= m.start || !ctx.judged(m.start))
        continue;
      const Bandwidth bw = bandwidth(t, pinned, m);
      const TimeNs now = m.end - m.start;
      const TimeNs then = std::min<TimeNs>(now, saturated_ns(static_cast<double>(m.bytes) / bw.bytes_per_s * 1e9));
      s.memcpy_ns[i] = then;
      s.memcpy_post_ns[i] = kPinnedReturnNs;
      if (uint32_t op = ctx.torch->op_of_call(m.run_id, m.pid, m.correlation_id); op != detail::kNoOp)
        ++ops[ctx.torch->describe(ctx.torch->user_op(op))];
      spans.push_back(span_of(m));
      auto& [n, bytes, old_ns, new_ns] = by_dir[to_string(m.kind)];
      ++n, bytes += m.bytes, old_ns = add_saturated(old_ns, now), new_ns = add_saturated(new_ns, then);
      sources[to_string(m.kind)] = bw.source;
    }
    if (s.memcpy_ns.empty()) return std::nullopt;
    const TimeNs saving = ctx.saving(s);
    if (!ctx.worth(saving)) return std::nullopt;

    Finding f;
    f.rule = id();
    f.title = "Copies from pageable host memory";
    f.saving_ns = saving;
    f.estimate = "copies re-timed at pinned bandwidth (";
    for (const auto& [dir, src] : sources) f.estimate += (f.estimate.back() == '(' ? "" : "; ") + dir + ": " + src;
    f.estimate +=
        "), their calls returning within 10 us of the copy; excludes the one-time cost of allocating and "
        "pinning the host buffers";
    for (const auto& [dir, v] : by_dir) {
      const auto& [n, bytes, old_ns, new_ns] = v;
      f.evidence.push_back(fmt::format("{} pageable: {} copies, {:.2f} GB in {} ({}), {} at pinned bandwidth", dir, n,
                                       bytes / 1e9, ms(old_ns), gbps(bytes / (old_ns / 1e9)), ms(new_ns)));
    }
    f.spans = evidence_spans(std::move(spans));
    f.advice =
        "Allocate the host buffers with cudaMallocHost/cudaHostAlloc (or cudaHostRegister existing ones) "
        "once, outside the repeated part; pinned memory also allows cudaMemcpyAsync overlap.";
    if (ctx.torch->pytorch()) torch_advice(ops, f);
    return f;
  }

 private:
  // The PyTorch way, naming the ops that copied most.
  static void torch_advice(const std::map<std::string, size_t>& ops, Finding& f) {
    std::vector<std::pair<size_t, std::string>> top;
    for (const auto& [op, n] : ops) top.emplace_back(n, op);
    std::sort(top.rbegin(), top.rend());
    std::string which;
    for (size_t j = 0; j < top.size() && j < 3; ++j)
      which += fmt::format("{}{} ({} copies)", j ? ", " : "", top[j].second, top[j].first);
    if (!which.empty()) f.evidence.push_back("copied by " + which);
    f.advice =
        "Copy from pinned memory: DataLoader(..., pin_memory=True) for batches, or tensor.pin_memory() once "
        "for host tensors reused every step, then .to(device, non_blocking=True) so the copy overlaps GPU work.";
  }

  static Bandwidth bandwidth(const Trace& t,
                             const std::map<std::pair<uint32_t, CopyKind>, std::pair<double, double>>& pinned,
                             const Memcpy& m) {
    if (auto it = pinned.find({m.device, m.kind}); it != pinned.end() && it->second.second > 0)
      return {it->second.first / (it->second.second / 1e9),
              fmt::format("measured on this trace's pinned copies: {}",
                          gbps(it->second.first / (it->second.second / 1e9)))};
    return default_link_bandwidth(t, m.pid, m.device);
  }
};

}  // namespace

std::unique_ptr<Rule> make_pageable_copies_rule() { return std::make_unique<PageableRule>(); }

}  // namespace gpuscope::analysis::rules
