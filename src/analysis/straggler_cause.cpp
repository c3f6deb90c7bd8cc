// What the straggler did differently (analysis_ranks.h, StragglerCause): per step, its compute
// kernels by launch shape, their GPU time in the step and its host gaps against the other ranks';
// the biggest difference is the likely cause of its lateness. A planted `time.sleep(0.02)` before backward shows as a
// 20 ms host gap per step that the other ranks do not have.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "analysis/grouping.h"
#include "analysis/timeline_util.h"
#include "gpuscope/analysis_ranks.h"
#include "gpuscope/analysis_stats.h"
#include "gpuscope/analysis_timeline.h"

namespace gpuscope::analysis {
namespace {

// The windows a rank's work is measured in: one per iteration of its main thread's range named
// `range`, from an instance's start to the next one's (the last to its own end), by start. An
// iteration, not the range itself: the repeating range may cover only part of the step (a
// torch.profiler trace's `DistributedDataParallel.forward`), and what held the rank back may lie
// outside it. Without any, one window over all its records.
std::vector<Interval> windows_of(const Trace& trace, uint32_t pid, const std::string& range) {
  const auto thread = range.empty() ? std::nullopt : main_thread(trace, pid);
  if (thread)
    for (const NvtxRange& r : trace.nvtx_ranges)
      if (r.pid == pid && r.tid == thread->tid && trace.strings.get(r.name) == range)
        return range_instances(trace, *thread, r.name, true);
  return {};
}

// The window holding t (windows sorted, not overlapping), or nullopt.
std::optional<size_t> window_at(const std::vector<Interval>& windows, TimeNs t) {
  auto it = std::upper_bound(windows.begin(), windows.end(), t,
                             [](TimeNs v, const Interval& w) { return v < w.start; });
  if (it == windows.begin() || t >= std::prev(it)->end) return std::nullopt;
  return static_cast<size_t>(std::prev(it) - windows.begin());
}

// One rank's work per window (medians over the windows).
// Where each window's longest host gap ended (0: none), for "... before the collective it
// arrived late at".
using GapEnds = std::vector<TimeNs>;

// Compute kernels that started in a window, per launch shape: how many, their summed GPU time,
// and the first (which names the shape).
struct Tally {
  double launches = 0, ns = 0;
  const Kernel* first = nullptr;
};
using WindowTally = std::map<detail::LaunchShape, Tally>;

RankWork work_of(const Trace& trace, uint32_t pid, std::vector<Interval> windows, GapEnds& gap_ends,
                 std::vector<WindowTally>& tallies) {
  if (windows.empty()) {  // over the run: first to last record of the process
    TimeNs first = INT64_MAX, last = INT64_MIN;
    for (const ApiCall& c : trace.api_calls)
      if (c.pid == pid) first = std::min(first, c.start), last = std::max(last, c.end);
    for (const Kernel& k : trace.kernels)
      if (k.pid == pid) first = std::min(first, k.start), last = std::max(last, k.end);
    if (first >= last) return {};
    windows.push_back({first, last});
  }
  tallies.assign(windows.size(), {});
  // Launch times by correlation id, and the threads that launched GPU work.
  std::map<uint32_t, const ApiCall*> launch;
  for (const ApiCall& c : trace.api_calls)
    if (c.pid == pid) launch.emplace(c.correlation_id, &c);
  std::set<uint32_t> launching;
  std::vector<double> kernels(windows.size(), 0), kernel_ns(windows.size(), 0);
  const auto note_launch = [&](uint32_t correlation) -> const ApiCall* {
    const auto it = launch.find(correlation);
    if (it == launch.end()) return nullptr;
    launching.insert(it->second->tid);
    return it->second;
  };
  // Every compute kernel of the rank by its GPU time inside each window, whether or not its launch
  // call was recorded or fell inside it (a library's kernels, a GPU running behind its host).
  for (const Kernel& k : trace.kernels) {
    if (k.pid != pid) continue;
    note_launch(k.correlation_id);
    if (classify_collective(trace.strings.get(k.name)) != Collective::None) continue;
    if (const auto w = window_at(windows, k.start)) {
      kernels[*w] += 1;
      Tally& tally = tallies[*w][detail::launch_shape(k)];
      if (!tally.first) tally.first = &k;
      tally.launches += 1;
      tally.ns += static_cast<double>(std::max<TimeNs>(0, k.end - k.start));
    }
    auto w = std::upper_bound(windows.begin(), windows.end(), k.start,
                              [](TimeNs v, const Interval& i) { return v < i.end; });
    for (; w != windows.end() && w->start < k.end; ++w)
      kernel_ns[static_cast<size_t>(w - windows.begin())] += static_cast<double>(
          std::max<TimeNs>(0, std::min(k.end, w->end) - std::max(k.start, w->start)));
  }
  for (const Memcpy& m : trace.memcpys)
    if (m.pid == pid) note_launch(m.correlation_id);
  // Host gaps: the union of the launching threads' calls, per window. None without CUDA calls
  // (an import without API records): no calls is no evidence of host work.
  if (launching.empty()) return {median(std::move(kernels)), median(std::move(kernel_ns)), 0.0, 0.0};
  std::vector<Interval> calls;
  for (const ApiCall& c : trace.api_calls)
    if (c.pid == pid && launching.count(c.tid)) calls.push_back({c.start, c.end});
  const std::vector<Interval> busy = merge_intervals(std::move(calls));
  std::vector<double> gaps(windows.size(), 0), longest(windows.size(), 0);
  gap_ends.assign(windows.size(), 0);
  for (size_t w = 0; w < windows.size(); ++w) {
    const auto [from, to] = std::pair{windows[w].start, windows[w].end};
    auto it = std::upper_bound(busy.begin(), busy.end(), from, [](TimeNs v, const Interval& i) { return v < i.end; });
    TimeNs at = from;
    const auto gap = [&](TimeNs until) {
      const TimeNs g = until - at;
      if (g < kHostGapMin) return;
      gaps[w] += static_cast<double>(g);
      if (static_cast<double>(g) > longest[w]) longest[w] = static_cast<double>(g), gap_ends[w] = until;
    };
    for (; it != busy.end() && it->start < to; ++it) {
      if (it->start > at) gap(it->start);
      at = std::max(at, std::min(it->end, to));
    }
    if (to > at) gap(to);
  }
  return {median(std::move(kernels)), median(std::move(kernel_ns)), median(std::move(gaps)),
          median(std::move(longest))};
}

// The median over the windows with a host gap of the time from the end of its longest gap to
// the next collective the rank arrived last at (nullopt: no such pair).
std::optional<double> gap_before_late(const RankSummary& r, const GapEnds& ends) {
  std::vector<double> before;
  for (TimeNs end : ends) {
    if (end == 0) continue;
    const auto next = std::lower_bound(r.late_arrivals.begin(), r.late_arrivals.end(), end,
                                       [](const LateArrival& a, TimeNs t) { return a.start < t; });
    if (next != r.late_arrivals.end()) before.push_back(static_cast<double>(next->start - end));
  }
  if (before.empty()) return std::nullopt;
  return median(std::move(before));
}

std::string ms_text(double ns) { return fmt::format("{:.1f} ms", ns / 1e6); }

// The straggler's launches beyond what the other ranks run per step, shape by shape. A shape's
// expected launches: the median over the other ranks of each one's median over its windows. Per
// straggler window, each shape's launches over that count, with their share of its GPU time
// there; medians over the windows. The shape with the most extra GPU time in all is named.
struct ExtraWork {
  double launches = 0, ns = 0;
  const Kernel* top = nullptr;          // a launch of the shape with the most
  double top_launches = 0, top_ns = 0;  // per window, over the windows that had extra of it
};

ExtraWork extra_work(const std::vector<WindowTally>& straggler, const std::vector<std::vector<WindowTally>>& others) {
  std::set<detail::LaunchShape> shapes;
  for (const WindowTally& w : straggler)
    for (const auto& [shape, tally] : w) shapes.insert(shape);
  std::map<detail::LaunchShape, double> expected;
  for (const detail::LaunchShape& shape : shapes) {
    std::vector<double> per_rank;
    for (const std::vector<WindowTally>& rank : others) {
      std::vector<double> counts;
      for (const WindowTally& w : rank) {
        const auto it = w.find(shape);
        counts.push_back(it == w.end() ? 0.0 : it->second.launches);
      }
      if (!counts.empty()) per_rank.push_back(median(std::move(counts)));
    }
    expected[shape] = per_rank.empty() ? 0.0 : median(std::move(per_rank));
  }
  struct ShapeExtra {
    double launches = 0, ns = 0;  // summed over the windows
    size_t windows = 0;           // that had extra of it
    const Kernel* first = nullptr;
  };
  std::vector<double> launches, ns;
  std::map<detail::LaunchShape, ShapeExtra> by_shape;
  for (const WindowTally& w : straggler) {
    double window_launches = 0, window_ns = 0;
    for (const auto& [shape, tally] : w) {
      const double extra = tally.launches - expected[shape];
      if (extra <= 0) continue;
      const double extra_ns = tally.ns * extra / tally.launches;
      window_launches += extra, window_ns += extra_ns;
      ShapeExtra& e = by_shape[shape];
      e.launches += extra, e.ns += extra_ns, ++e.windows;
      if (!e.first) e.first = tally.first;
    }
    launches.push_back(window_launches), ns.push_back(window_ns);
  }
  ExtraWork out;
  if (straggler.empty()) return out;
  out.launches = median(std::move(launches));
  out.ns = median(std::move(ns));
  const ShapeExtra* top = nullptr;
  for (const auto& [shape, e] : by_shape)
    if (!top || e.ns > top->ns) top = &e;
  if (top) {
    out.top = top->first;
    out.top_launches = top->launches / static_cast<double>(top->windows);
    out.top_ns = top->ns / static_cast<double>(top->windows);
  }
  return out;
}

}  // namespace

const char* to_string(StragglerCauseKind kind) {
  switch (kind) {
    case StragglerCauseKind::HostGaps: return "host gaps";
    case StragglerCauseKind::SlowerKernels: return "slower kernels";
    case StragglerCauseKind::MoreKernels: return "more kernels";
    case StragglerCauseKind::Unknown: break;
  }
  return "unknown";
}

std::optional<StragglerCause> straggler_cause(const Trace& trace, const RanksAnalysis& ranks) {
  if (!ranks.straggler) return std::nullopt;
  const Straggler& s = *ranks.straggler;
  // Per step only when the straggler and every other rank have the steps.
  std::map<uint32_t, std::vector<Interval>> windows;
  bool per_step = s.steps > 0;
  for (const RankSummary& r : ranks.ranks) {
    windows[r.pid] = windows_of(trace, r.pid, s.step_range);
    per_step = per_step && !windows[r.pid].empty();
  }
  StragglerCause c;
  c.per_step = per_step;
  std::vector<RankWork> others;
  std::vector<WindowTally> straggler_tallies;
  std::vector<std::vector<WindowTally>> other_tallies;
  for (const RankSummary& r : ranks.ranks) {
    GapEnds ends;
    std::vector<WindowTally> tallies;
    const RankWork w = work_of(trace, r.pid, per_step ? windows[r.pid] : std::vector<Interval>{}, ends, tallies);
    if (r.pid == s.pid) {
      c.straggler = w, c.gap_before_late_ns = gap_before_late(r, ends);
      straggler_tallies = std::move(tallies);
    } else {
      others.push_back(w);
      other_tallies.push_back(std::move(tallies));
    }
  }
  if (others.empty()) return std::nullopt;
  const auto others_median = [&](double RankWork::*field) {
    std::vector<double> v;
    for (const RankWork& w : others) v.push_back(w.*field);
    return median(std::move(v));
  };
  c.others = {others_median(&RankWork::kernels), others_median(&RankWork::kernel_ns),
              others_median(&RankWork::host_gap_ns), others_median(&RankWork::longest_gap_ns)};

  // Three candidate causes, each in ns per step: host gaps it has that the others do not; GPU time
  // of launches the others do not make (by shape); and the rest of its extra kernel time, the
  // same kernels running slower. The largest names the cause when it explains a quarter of the
  // lateness.
  const ExtraWork extra = extra_work(straggler_tallies, other_tallies);
  const double gap_diff = c.straggler.host_gap_ns - c.others.host_gap_ns;
  const double kernel_diff = c.straggler.kernel_ns - c.others.kernel_ns;
  const double slower_diff = kernel_diff - extra.ns;
  const double late = per_step ? s.late_per_step_ns : static_cast<double>(s.late_ns);
  const char* per = per_step ? " per step" : " over the run";
  const double best = std::max({gap_diff, extra.ns, slower_diff});
  if (best < kCauseMinShare * late || best <= 0) {
    c.text = fmt::format(
        "unknown: neither its host gaps ({:+.1f} ms{}) nor its kernel time ({:+.1f} ms) explain a "
        "quarter of its lateness",
        gap_diff / 1e6, per, kernel_diff / 1e6);
  } else if (gap_diff == best) {
    c.kind = StragglerCauseKind::HostGaps;
    c.difference = gap_diff;
    c.text = fmt::format(
        "host gaps: +{}{} (its threads that launch GPU work made no CUDA call for {}{}, the "
        "longest {}{}; the other ranks' {})",
        ms_text(gap_diff), per, ms_text(c.straggler.host_gap_ns), per, ms_text(c.straggler.longest_gap_ns),
        c.gap_before_late_ns ? " ending " + ms_text(*c.gap_before_late_ns) + " before the collective it arrived late at"
                             : std::string(),
        ms_text(c.others.host_gap_ns));
  } else if (extra.ns == best) {
    c.kind = StragglerCauseKind::MoreKernels;
    c.difference = extra.ns;
    c.text = fmt::format(
        "more kernels: +{:.0f} launches{} that the other ranks do not make, {} of GPU time ({:.0f} "
        "compute kernels against {:.0f}){}",
        extra.launches, per, ms_text(extra.ns), c.straggler.kernels, c.others.kernels,
        extra.top ? fmt::format("; the most: {:.0f} x {} ({}), {}", extra.top_launches,
                                detail::kernel_name(trace, *extra.top), detail::launch_config_text(*extra.top),
                                ms_text(extra.top_ns))
                  : std::string());
  } else {
    c.kind = StragglerCauseKind::SlowerKernels;
    c.difference = slower_diff;
    c.text = fmt::format("slower kernels: +{}{} ({} of compute kernel time against {}, the same {:.0f} kernels)",
                         ms_text(slower_diff), per, ms_text(c.straggler.kernel_ns), ms_text(c.others.kernel_ns),
                         c.straggler.kernels);
  }
  return c;
}

}  // namespace gpuscope::analysis
