// Rule large_result_copy: each steady instance of the repeated part ends with a
// large device-to-host copy of results, issued after the instance's last kernel,
// that takes a large share of the instance. Estimate: what overlapping that copy
// with the next instance's GPU work would save. The copy depends on the kernel
// before it, so it can only hide under work that comes after it: per pair of
// consecutive steady instances, min(result copy, next instance's kernels and
// host-to-device copies) minus what already overlapped. The copy uses the DtoH
// engine, the next instance's work the compute and HtoD engines (PCIe is full
// duplex), so they can run together; an upper bound (the next instance must not
// need the result).
//
// Overlap needs pinned host memory (cudaMemcpyAsync from pageable memory is
// staged and does not overlap), so pageable copies are counted at pinned rate:
// this saving comes on top of pageable_copies', not instead of part of it. The
// copy-kernel part is also counted by copies_not_overlapped (which pipelines all
// copies with kernels): the finding says how much, and the report does not add
// the two.
#include <fmt/format.h>

#include <algorithm>

#include "analysis/rules/rule.h"
#include "analysis/timeline_util.h"

namespace gpuscope::analysis::rules {
namespace {

constexpr uint64_t kLargeBytes = 1 << 20;  // a result copy of >= 1 MiB
constexpr double kMinShare = 0.25;         // result copies >= 25 % of their instance's time

struct Instance {
  Interval span;
  TimeNs result_ns = 0;    // result copies' time, at pinned rate when pageable
  TimeNs recorded_ns = 0;  // as recorded
  uint64_t bytes = 0;
  size_t copies = 0;
  std::vector<Interval> result;  // the result copies as recorded
  std::vector<Interval> work;    // kernels and HtoD copies (at pinned rate: only their length counts)
  TimeNs kernel_ns = 0, htod_ns = 0;
};

class LargeResultCopyRule final : public Rule {
 public:
  std::string id() const override { return "large_result_copy"; }
  std::vector<std::string_view> needs() const override { return {kGapApiCalls, kGapTimeline}; }

  std::optional<Finding> check(const RuleContext& ctx) const override {
    if (!ctx.main || ctx.repeated.steady.size() < 2) return std::nullopt;
    std::vector<Instance> inst = collect(ctx);
    TimeNs saving = 0, shared = 0, result = 0, recorded = 0, span = 0;
    size_t with_result = 0, copies = 0;
    uint64_t bytes = 0;
    std::vector<EvidenceSpan> spans;  // the result copies
    for (size_t j = 0; j < inst.size(); ++j) {
      const Instance& a = inst[j];
      if (a.copies == 0) continue;
      for (const Interval& r : a.result) spans.push_back({ctx.main->pid, r.start, r.end});
      ++with_result, result += a.result_ns, recorded += a.recorded_ns, span += duration(a.span.start, a.span.end);
      copies += a.copies, bytes += a.bytes;
      if (j + 1 == inst.size()) continue;  // nothing after the last instance to hide it under
      const Instance& b = inst[j + 1];
      const TimeNs already = overlap_of(a.result, b.work);  // pipelined already: the copy runs under b's work
      const TimeNs hide = std::max<TimeNs>(0, std::min(a.result_ns, b.kernel_ns + b.htod_ns) - already);
      saving += hide;
      shared += std::min(hide, b.kernel_ns);
    }
    if (with_result < 2 || static_cast<double>(recorded) < kMinShare * static_cast<double>(span)) return std::nullopt;
    if (!ctx.worth_in_loop(saving)) return std::nullopt;

    Finding f;
    f.rule = id();
    f.title = "Large device-to-host result copy at the end of each iteration";
    f.saving_ns = saving;
    f.estimate =
        "each instance's result copy overlapped with the next instance's kernels and host-to-device copies "
        "(separate engines), at pinned rate; upper bound, needs the next instance not to read the result";
    f.evidence.push_back(fmt::format(
        "{} of {} steady instances{} end with a device-to-host copy after their last kernel: {} copies, {:.2f} GB, "
        "{} of {} ({:.0f} %)",
        with_result, inst.size(),
        ctx.repeated.range_name.empty() ? "" : " of NVTX range '" + ctx.repeated.range_name + "'", copies, bytes / 1e9,
        ms(recorded), ms(span), 100.0 * static_cast<double>(recorded) / static_cast<double>(span)));
    if (result != recorded)
      f.evidence.push_back(
          fmt::format("at pinned rate the result copies take {} (pageable now: pageable_copies' "
                      "saving comes first; this one adds to it)",
                      ms(result)));
    f.evidence.push_back(
        fmt::format("{} of the saving is overlap with kernels, which copies_not_overlapped also "
                    "counts: do not add the two",
                    ms(shared)));
    f.shares_time_with.push_back("copies_not_overlapped");
    f.spans = evidence_spans(std::move(spans));
    f.advice =
        "Keep results on the device for the next step, copy back only the part the host needs, or copy them "
        "with cudaMemcpyAsync from pinned memory on a second stream while the next iteration computes.";
    return f;
  }

 private:
  static TimeNs overlap_of(const std::vector<Interval>& a, const std::vector<Interval>& b) {
    const auto ma = merge_intervals(a), mb = merge_intervals(b);
    TimeNs n = 0;
    for (const Interval& i : ma) n += covered_within(mb, i.start, i.end);
    return n;
  }

  static std::vector<Instance> collect(const RuleContext& ctx) {
    const Trace& t = ctx.trace;
    std::vector<Instance> out;
    for (const Interval& s : ctx.repeated.steady) {
      Instance i;
      i.span = s;
      out.push_back(std::move(i));
    }
    // The first instance containing `at`, as a scan in order finds it, by binary search: the
    // instances are sorted by start and max_end[j] is the latest end of instances 0..j, so the
    // first j with max_end[j] > at is the first ending after `at`; it holds `at` or none does.
    std::vector<TimeNs> max_end;
    max_end.reserve(out.size());
    for (const Instance& i : out)
      max_end.push_back(max_end.empty() ? i.span.end : std::max(max_end.back(), i.span.end));
    auto find = [&](TimeNs at) -> Instance* {
      const size_t j = std::upper_bound(max_end.begin(), max_end.end(), at) - max_end.begin();
      return j < out.size() && out[j].span.start <= at ? &out[j] : nullptr;
    };
    std::vector<TimeNs> last_kernel(out.size(), INT64_MIN);
    for (const Kernel& k : t.kernels)
      if (Instance* i = k.pid == ctx.main->pid ? find(k.start) : nullptr) {
        i->work.push_back({k.start, k.end}), i->kernel_ns = add_saturated(i->kernel_ns, duration(k.start, k.end));
        last_kernel[i - out.data()] = std::max(last_kernel[i - out.data()], k.end);
      }
    for (const Memcpy& m : t.memcpys) {
      Instance* i = m.pid == ctx.main->pid ? find(m.start) : nullptr;
      if (!i || m.end <= m.start) continue;
      const TimeNs pinned = pinned_ns(ctx, m);
      if (m.kind == CopyKind::HtoD) i->work.push_back({m.start, m.end}), i->htod_ns = add_saturated(i->htod_ns, pinned);
      if (m.kind != CopyKind::DtoH || m.bytes < kLargeBytes || m.start < last_kernel[i - out.data()]) continue;
      i->result.push_back({m.start, m.end});
      i->result_ns += pinned, i->recorded_ns += m.end - m.start, i->bytes += m.bytes, ++i->copies;
    }
    return out;
  }

  // The copy's time at pinned rate when its host side is pageable (never longer than recorded).
  static TimeNs pinned_ns(const RuleContext& ctx, const Memcpy& m) {
    const TimeNs now = m.end - m.start;
    if (host_side(m) != MemoryKind::Pageable) return now;
    const Bandwidth bw = default_link_bandwidth(ctx.trace, m.pid, m.device);
    return std::min<TimeNs>(now, saturated_ns(static_cast<double>(m.bytes) / bw.bytes_per_s * 1e9));
  }
};

}  // namespace

std::unique_ptr<Rule> make_large_result_copy_rule() { return std::make_unique<LargeResultCopyRule>(); }

}  // namespace gpuscope::analysis::rules
