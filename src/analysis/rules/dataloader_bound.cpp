// Rule dataloader_bound: the GPU is idle while the main thread waits for the next batch.
// With names (--pytorch ops, torch.profiler, NVTX): GPU idle gaps of the judged part overlapping
// a DataLoader range on the main thread (enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__,
// _MultiProcessingDataLoaderIter, pin_memory); the saving is the overlap. Without names, in a
// PyTorch program: an idle gap spent mostly outside CUDA (>= kHostShare) that ends with a
// host-to-device copy (the next batch arriving) counts with its host time.
// Saving is not re-timed: a loader with workers prepares batches while the GPU runs, so the
// idle it causes disappears when the loading per batch takes less than the step's GPU time;
// beyond that (loading slower than the GPU even in parallel) it is an upper bound.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "analysis/rules/rule.h"

namespace gpuscope::analysis::rules {
namespace {

constexpr double kHostShare = 0.5;        // of an unnamed gap outside CUDA, to call it waiting for data
constexpr TimeNs kCopyFollowsNs = 2'000;  // the batch's copy starts within this of the gap's end

bool loader_name(std::string n) {
  std::transform(n.begin(), n.end(), n.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return n.find("dataloader") != std::string::npos || n.find("pin_memory") != std::string::npos;
}

class DataloaderRule final : public Rule {
 public:
  std::string id() const override { return "dataloader_bound"; }
  std::vector<std::string_view> needs() const override { return {kGapTimeline}; }

  std::optional<Finding> check(const RuleContext& ctx) const override {
    if (!ctx.main || !ctx.torch->pytorch()) return std::nullopt;
    const Trace& t = ctx.trace;
    std::vector<Interval> waits;  // named loader ranges of the main thread, sorted
    std::string named;
    auto take = [&](uint32_t pid, uint32_t tid, StringId name, TimeNs start, TimeNs end) {
      if (pid != ctx.main->pid || tid != ctx.main->tid || end <= start || !loader_name(t.strings.get(name))) return;
      waits.push_back({start, end});
      if (named.empty()) named = t.strings.get(name);
    };
    for (const HostOp& o : t.host_ops) take(o.pid, o.tid, o.name, o.start, o.end);
    for (const NvtxRange& r : t.nvtx_ranges) take(r.pid, r.tid, r.name, r.start, r.end);
    std::sort(waits.begin(), waits.end(), [](const Interval& a, const Interval& b) { return a.start < b.start; });
    std::vector<Interval> merged;  // nested loader ranges (__next__ around pin_memory) count once
    for (const Interval& w : waits) {
      if (!merged.empty() && w.start <= merged.back().end) merged.back().end = std::max(merged.back().end, w.end);
      else merged.push_back(w);
    }
    const size_t ranges = waits.size();
    waits = std::move(merged);
    TimeNs longest = 0;  // a gap meets only waits starting at most this long before it
    for (const Interval& w : waits) longest = std::max(longest, w.end - w.start);
    std::vector<TimeNs> h2d;  // starts of host-to-device copies
    for (const Memcpy& m : t.memcpys)
      if (m.pid == ctx.main->pid && m.kind == CopyKind::HtoD) h2d.push_back(m.start);
    std::sort(h2d.begin(), h2d.end());

    TimeNs saving = 0;
    size_t gaps = 0;
    Finding f;
    for (const DeviceTimeline& d : ctx.timeline.devices) {
      if (d.pid != ctx.main->pid) continue;
      for (const IdleGap& g : d.gaps) {
        TimeNs part = 0;
        if (!waits.empty()) {
          auto w = std::lower_bound(waits.begin(), waits.end(), g.start - longest,
                                    [](const Interval& x, TimeNs v) { return x.start < v; });
          for (; w != waits.end() && w->start < g.end; ++w)
            part += std::max<TimeNs>(0, std::min(w->end, g.end) - std::max(w->start, g.start));
        } else if (g.cpu.outside_ns >= kHostShare * (g.end - g.start)) {
          auto c = std::lower_bound(h2d.begin(), h2d.end(), g.end);
          if (c != h2d.end() && *c - g.end <= kCopyFollowsNs) part = g.cpu.outside_ns;
        }
        if (part <= 0) continue;
        saving = add_saturated(saving, part), ++gaps;
        f.covers.push_back({d.pid, g.start, g.end});
      }
    }
    if (gaps == 0 || !ctx.worth(saving)) return std::nullopt;
    const size_t steps = std::max<size_t>(1, ctx.repeated.steady.size());
    f.rule = id();
    f.title = "GPU idle while the main thread waits for the next batch";
    f.saving_ns = saving;
    f.estimate = waits.empty()
                     ? "host time outside CUDA in GPU idle gaps that end with a host-to-device copy (the batch); "
                       "upper bound when loading stays slower than the GPU with workers"
                     : "GPU idle time inside the DataLoader's ranges; upper bound when loading stays slower than the "
                       "GPU with workers";
    f.evidence.push_back(fmt::format("{} GPU idle gaps while loading ({:.1f} per step), {} in all ({} per step)", gaps,
                                     double(gaps) / steps, ms(saving), ms(saving / static_cast<TimeNs>(steps))));
    if (!named.empty()) f.evidence.push_back(fmt::format("{} ranges on the main thread, e.g. '{}'", ranges, named));
    f.spans = evidence_spans(f.covers);
    f.explains = {"gpu_idle_gaps"};
    f.advice =
        "Load batches in the background: DataLoader(..., num_workers=N (a few per GPU), pin_memory=True, "
        "persistent_workers=True, prefetch_factor=2..4), and copy with .to(device, non_blocking=True); move "
        "per-sample Python work (decoding, augmentation) into the workers or onto the GPU.";
    return f;
  }
};

}  // namespace

std::unique_ptr<Rule> make_dataloader_bound_rule() { return std::make_unique<DataloaderRule>(); }

}  // namespace gpuscope::analysis::rules
