// Rule copies_not_overlapped: in the repeated part, copies and kernels of the
// process run one after the other on the GPU. With the iterations pipelined
// (double buffers on two or more streams, cudaMemcpyAsync from pinned memory)
// the copies of one iteration run under the kernels of another, so an
// instance shrinks from copy + kernel time towards max(copy, kernel).
// Saving per steady instance = min(copy busy, kernel busy) - what already
// overlapped; an upper bound (iterations must be independent).
#include <fmt/format.h>

#include "analysis/rules/rule.h"
#include "analysis/timeline_util.h"

namespace gpuscope::analysis::rules {
namespace {

class CopyComputeOverlapRule final : public Rule {
 public:
  std::string id() const override { return "copies_not_overlapped"; }
  std::vector<std::string_view> needs() const override { return {kGapTimeline}; }

  std::optional<Finding> check(const RuleContext& ctx) const override {
    if (!ctx.main || ctx.repeated.steady.empty()) return std::nullopt;
    std::vector<Interval> k, c;
    for (const Kernel& e : ctx.trace.kernels)
      if (e.pid == ctx.main->pid) k.push_back({e.start, e.end});
    for (const Memcpy& e : ctx.trace.memcpys)
      if (e.pid == ctx.main->pid) c.push_back({e.start, e.end});
    const auto kernels = merge_intervals(std::move(k)), copies = merge_intervals(std::move(c));
    TimeNs saving = 0, kernel_ns = 0, copy_ns = 0, overlapped = 0;
    for (const Interval& inst : ctx.repeated.steady) {
      const TimeNs kb = covered_within(kernels, inst.start, inst.end);
      const TimeNs cb = covered_within(copies, inst.start, inst.end);
      // Inclusion-exclusion, ordered so no step leaves int64: kb + cb alone may.
      const TimeNs both = kb - (union_within(kernels, copies, inst.start, inst.end) - cb);
      saving = add_saturated(saving, std::max<TimeNs>(0, std::min(kb, cb) - both));
      kernel_ns = add_saturated(kernel_ns, kb), copy_ns = add_saturated(copy_ns, cb);
      overlapped = add_saturated(overlapped, both);
    }
    if (!ctx.worth_in_loop(saving)) return std::nullopt;
    Finding f;
    f.rule = id();
    f.title = "Copies not overlapped with compute";
    f.saving_ns = saving;
    f.estimate =
        "each steady instance from copy + kernel time to max(copy, kernel) time; upper bound, "
        "needs independent iterations";
    const size_t n = ctx.repeated.steady.size();
    f.evidence.push_back(
        fmt::format("{} steady instances{}: {} of copies and {} of kernels per instance, {} overlapped", n,
                    ctx.repeated.range_name.empty() ? "" : " of NVTX range '" + ctx.repeated.range_name + "'",
                    ms(copy_ns / TimeNs(n)), ms(kernel_ns / TimeNs(n)), ms(overlapped / TimeNs(n))));
    std::vector<EvidenceSpan> spans;  // the copies of the steady instances, which pipelining would hide
    for (const Memcpy& e : ctx.trace.memcpys)
      if (e.pid == ctx.main->pid && ctx.repeated.contains(e.start)) spans.push_back(span_of(e));
    f.spans = evidence_spans(std::move(spans));
    f.advice =
        "Pipeline the iterations: double buffers on two or more streams, cudaMemcpyAsync from pinned memory, "
        "so the copies of one iteration run while another computes.";
    return f;
  }
};

}  // namespace

std::unique_ptr<Rule> make_copies_not_overlapped_rule() { return std::make_unique<CopyComputeOverlapRule>(); }

}  // namespace gpuscope::analysis::rules
