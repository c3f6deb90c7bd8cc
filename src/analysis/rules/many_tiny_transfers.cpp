// Rule many_tiny_transfers: bursts of small host<->device copies in the same
// direction whose fixed per-copy cost (the API call, the DMA setup, a few us
// each) dwarfs the time their bytes need on the link. Re-timed as if each burst
// were one copy of all its bytes: the first copy of a burst keeps its fixed cost
// (the burst's shortest copy) plus the burst's bytes at the bandwidth this trace
// shows for large copies of the same direction, device and host-memory kind (else
// the link default); the other copies and their calls go. Host work between the
// copies stays (it now packs the data into one buffer).
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <tuple>

#include "analysis/rules/rule.h"

namespace gpuscope::analysis::rules {
namespace {

constexpr uint64_t kSmallBytes = 64 << 10;         // a copy below 64 KiB is "tiny"
constexpr uint64_t kBandwidthCopyBytes = 1 << 20;  // copies >= 1 MiB measure the link's bandwidth
constexpr TimeNs kBurstGapNs = 1'000'000;          // copies > 1 ms apart are separate bursts
constexpr size_t kMinCopies = 16;                  // tiny copies in bursts of >= 2, in all
constexpr double kMinOverheadShare = 0.5;          // per-copy cost >= half the bursts' copy + call time

using Key = std::tuple<uint32_t, CopyKind, MemoryKind>;  // device, direction, host memory kind

struct Burst {
  std::vector<size_t> copies;  // trace.memcpys indices, by start
  uint64_t bytes = 0;
};

class TinyTransfersRule final : public Rule {
 public:
  std::string id() const override { return "many_tiny_transfers"; }
  std::vector<std::string_view> needs() const override { return {kGapApiCalls, kGapTimeline}; }

  std::optional<Finding> check(const RuleContext& ctx) const override {
    if (!ctx.main) return std::nullopt;
    const Trace& t = ctx.trace;
    LastByKey<uint32_t, size_t> call_of;  // correlation -> main-thread api index
    call_of.reserve(ctx.main_calls.size());
    for (size_t i : ctx.main_calls) call_of.add(t.api_calls[i].correlation_id, i);
    call_of.seal();
    std::vector<TimeNs> kernel_starts;
    for (const Kernel& k : t.kernels)
      if (k.pid == ctx.main->pid) kernel_starts.push_back(k.start);
    std::sort(kernel_starts.begin(), kernel_starts.end());

    std::map<Key, std::pair<double, double>> large;  // bytes, ns of large copies
    std::map<Key, std::vector<size_t>> small;
    for (size_t i = 0; i < t.memcpys.size(); ++i) {
      const Memcpy& m = t.memcpys[i];
      if (m.pid != ctx.main->pid || host_side(m) == MemoryKind::Unknown || m.end < m.start || !ctx.judged(m.start))
        continue;
      const Key key{m.device, m.kind, host_side(m)};
      if (m.bytes >= kBandwidthCopyBytes && m.end > m.start) {
        large[key].first += static_cast<double>(m.bytes), large[key].second += static_cast<double>(m.end - m.start);
      } else if (m.bytes < kSmallBytes && call_of.find(m.correlation_id)) {
        small[key].push_back(i);
      }
    }

    Scenario s;
    std::vector<std::string> evidence;
    std::map<std::string, std::string> sources;
    size_t copies = 0;
    TimeNs spent = 0, link = 0;  // call + copy time of the tiny copies; their bytes' time on the link
    const Burst* biggest = nullptr;
    std::vector<Burst> all;
    for (auto& [key, idx] : small) {
      std::sort(idx.begin(), idx.end(), [&](size_t a, size_t b) { return t.memcpys[a].start < t.memcpys[b].start; });
      const Bandwidth bw = bandwidth(t, large, key, ctx.main->pid);
      auto bursts = split(t, idx, kernel_starts);
      size_t n = 0, nb = 0;
      uint64_t bytes = 0;
      for (Burst& b : bursts) {
        if (b.copies.size() < 2) continue;
        TimeNs fixed = INT64_MAX;
        for (size_t i : b.copies) {
          const Memcpy& m = t.memcpys[i];
          const ApiCall& c = t.api_calls[*call_of.find(m.correlation_id)];
          fixed = std::min(fixed, m.end - m.start);
          spent = add_saturated(add_saturated(spent, c.end - c.start), m.end - m.start);
          s.api_ns[*call_of.find(m.correlation_id)] = 0, s.memcpy_ns[i] = 0;
        }
        const TimeNs on_link = saturated_ns(static_cast<double>(b.bytes) / bw.bytes_per_s * 1e9);
        s.api_ns.erase(*call_of.find(t.memcpys[b.copies.front()].correlation_id));  // the one copy left keeps its call
        s.memcpy_ns[b.copies.front()] = fixed + on_link;
        link += on_link, n += b.copies.size(), bytes += b.bytes, ++nb;
        all.push_back(b);
      }
      if (nb == 0) continue;
      copies += n;
      const std::string dir = fmt::format("{} {}", to_string(std::get<1>(key)), to_string(std::get<2>(key)));
      sources[dir] = bw.source;
      evidence.push_back(fmt::format("{}: {} copies under {} KiB in {} bursts, {:.1f} KiB in all", dir, n,
                                     kSmallBytes >> 10, nb, bytes / 1024.0));
    }
    if (copies < kMinCopies || static_cast<double>(link) > (1 - kMinOverheadShare) * static_cast<double>(spent))
      return std::nullopt;
    const TimeNs saving = ctx.saving(s);
    if (!ctx.worth(saving)) return std::nullopt;
    for (const Burst& b : all)
      if (!biggest || b.copies.size() > biggest->copies.size()) biggest = &b;

    Finding f;
    f.rule = id();
    f.title = "Many tiny transfers: per-copy cost dominates their bytes";
    f.saving_ns = saving;
    f.estimate = "each burst as one copy: its shortest copy's fixed cost + all its bytes at ";
    for (const auto& [dir, src] : sources) f.estimate += (f.estimate.back() == ' ' ? "" : "; ") + dir + ": " + src;
    f.estimate += "; the other copies and their calls removed, host work between them kept";
    f.evidence = std::move(evidence);
    f.evidence.push_back(fmt::format("{} of calls and copies for bytes that need {} on the link", ms(spent), ms(link)));
    const Memcpy& first = t.memcpys[biggest->copies.front()];
    const std::string range = ctx.nvtx_at(first.start);
    f.evidence.push_back(fmt::format("largest burst: {} copies at {}{}", biggest->copies.size(), ctx.at(first.start),
                                     range.empty() ? "" : " in NVTX range '" + range + "'"));
    std::vector<EvidenceSpan> spans;  // each burst, the unit that becomes one copy: first copy's start to last's end
    for (const Burst& b : all)
      spans.push_back({ctx.main->pid, t.memcpys[b.copies.front()].start, t.memcpys[b.copies.back()].end});
    f.spans = evidence_spans(std::move(spans));
    f.advice =
        "Pack the small pieces into one contiguous (pinned) buffer and copy it once per burst, or keep the "
        "data on the device; for many scattered pieces, a gather kernel or cudaMemcpy2D/3D.";
    return f;
  }

 private:
  static Bandwidth bandwidth(const Trace& t, const std::map<Key, std::pair<double, double>>& large, const Key& key,
                             uint32_t pid) {
    if (auto it = large.find(key); it != large.end() && it->second.second > 0) {
      const double bps = it->second.first / (it->second.second / 1e9);
      return {bps, fmt::format("{} measured on this trace's copies >= 1 MiB", gbps(bps))};
    }
    return default_link_bandwidth(t, pid, std::get<0>(key));
  }

  // Consecutive copies of one key are a burst while each starts within kBurstGapNs of the
  // previous one's end and no kernel of the process starts between them (it may read or
  // write the data, so the copies on either side cannot be merged).
  static std::vector<Burst> split(const Trace& t, const std::vector<size_t>& idx,
                                  const std::vector<TimeNs>& kernel_starts) {
    std::vector<Burst> out;
    for (size_t i : idx) {
      const Memcpy& m = t.memcpys[i];
      bool fresh = out.empty();
      if (!fresh) {
        const Memcpy& prev = t.memcpys[out.back().copies.back()];
        auto k = std::upper_bound(kernel_starts.begin(), kernel_starts.end(), prev.end);
        fresh = m.start - prev.end > kBurstGapNs || (k != kernel_starts.end() && *k < m.start);
      }
      if (fresh) out.emplace_back();
      out.back().copies.push_back(i);
      out.back().bytes += m.bytes;
    }
    return out;
  }
};

}  // namespace

std::unique_ptr<Rule> make_many_tiny_transfers_rule() { return std::make_unique<TinyTransfersRule>(); }

}  // namespace gpuscope::analysis::rules
