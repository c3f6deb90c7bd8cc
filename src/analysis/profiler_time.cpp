// Cutting the profiler's own time out of a trace's timeline (analysis_profiler_time.h).
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "analysis/timeline_util.h"
#include "gpuscope/analysis_profiler_time.h"

namespace gpuscope::analysis {
namespace {

// The cuts, sorted and disjoint, with the length cut before each one: removed(t) in
// O(log n) for every timestamp of the trace.
class TimeCuts {
 public:
  explicit TimeCuts(std::vector<Interval> cuts) : cuts_(merge_intervals(std::move(cuts))) {
    TimeNs total = 0;
    for (const Interval& c : cuts_) {
      before_.push_back(total);
      total += c.end - c.start;
    }
  }

  bool empty() const { return cuts_.empty(); }

  // t moved earlier by the cut time before it; inside a cut, onto the cut's start.
  TimeNs map(TimeNs t) const {
    if (t <= 0) return t;  // unset timestamps stay unset
    auto it = std::upper_bound(cuts_.begin(), cuts_.end(), t, [](TimeNs v, const Interval& c) { return v < c.start; });
    if (it == cuts_.begin()) return t;
    const size_t i = static_cast<size_t>(it - cuts_.begin()) - 1;
    const Interval& c = cuts_[i];
    return t - before_[i] - (std::min(t, c.end) - c.start);
  }

 private:
  std::vector<Interval> cuts_;
  std::vector<TimeNs> before_;
};

// Kernels by start time, to find the one inside each replay interval without scanning them all.
class KernelIndex {
 public:
  explicit KernelIndex(const std::vector<Kernel>& kernels) {
    for (const Kernel& k : kernels)
      if (k.end > k.start) by_start_.push_back(&k);
    std::sort(by_start_.begin(), by_start_.end(), [](const Kernel* a, const Kernel* b) { return a->start < b->start; });
  }

  // The replayed kernel of a replay interval: the one of that process ending last in it (the
  // importer places a replayed kernel at the end of its launch call).
  const Kernel* replayed(uint32_t pid, const Interval& replay) const {
    const Kernel* found = nullptr;
    auto it = std::lower_bound(by_start_.begin(), by_start_.end(), replay.start,
                               [](const Kernel* k, TimeNs t) { return k->start < t; });
    for (; it != by_start_.end() && (*it)->start <= replay.end; ++it) {
      const Kernel& k = **it;
      if (k.pid == pid && k.end <= replay.end && (!found || k.end > found->end)) found = &k;
    }
    return found;
  }

 private:
  std::vector<const Kernel*> by_start_;
};

template <class Record>
void shift(std::vector<Record>& records, const TimeCuts& cuts) {
  for (Record& r : records) {
    r.start = cuts.map(r.start);
    r.end = cuts.map(r.end);
  }
}

}  // namespace

bool is_profiler_time_kind(std::string_view kind) {
  return kind == kMetricSetupOverhead || kind == kKernelReplayOverhead;
}

Trace cut_profiler_time(const Trace& trace, ProfilerTime* cut) {
  std::vector<Interval> cuts;
  std::map<uint32_t, ProfilerTime> by_pid;
  const KernelIndex kernels(trace.kernels);
  for (const CuptiOverhead& o : trace.overheads) {
    const std::string& kind = trace.strings.get(o.kind);
    if (!is_profiler_time_kind(kind) || o.end <= o.start || o.start <= 0) continue;
    ProfilerTime& p = by_pid[o.pid];
    if (kind == kMetricSetupOverhead) {
      cuts.push_back({o.start, o.end});
      p.setup_ns += o.end - o.start;
      continue;
    }
    ++p.launches;
    const Interval replay{o.start, o.end};
    if (const Kernel* k = kernels.replayed(o.pid, replay)) {
      cuts.push_back({replay.start, k->start});
      cuts.push_back({k->end, replay.end});
      p.replay_ns += (replay.end - replay.start) - (k->end - k->start);
    } else {
      cuts.push_back(replay);
      p.replay_ns += replay.end - replay.start;
    }
  }
  Trace out = trace;
  const TimeCuts time_cuts(std::move(cuts));
  if (time_cuts.empty()) return out;

  shift(out.api_calls, time_cuts);
  shift(out.kernels, time_cuts);
  shift(out.memcpys, time_cuts);
  shift(out.memsets, time_cuts);
  shift(out.synchronizations, time_cuts);
  shift(out.nvtx_ranges, time_cuts);
  // The cut time is now the data_loss row below; dropping its rows keeps a second cut a no-op.
  std::erase_if(out.overheads,
                [&](const CuptiOverhead& o) { return is_profiler_time_kind(trace.strings.get(o.kind)); });
  shift(out.overheads, time_cuts);
  shift(out.gpu_metric_samples, time_cuts);
  shift(out.runs, time_cuts);
  for (MemoryEvent& e : out.memory_events) e.timestamp = time_cuts.map(e.timestamp);
  for (NvtxMark& m : out.nvtx_marks) m.timestamp = time_cuts.map(m.timestamp);
  shift(out.processes, time_cuts);
  out.run.start = time_cuts.map(out.run.start);
  out.run.end = time_cuts.map(out.run.end);

  std::map<uint32_t, uint32_t> run_of;  // pid -> bench run
  for (const Process& p : trace.processes) run_of[p.pid] = p.run_id;
  ProfilerTime total;
  for (const auto& [pid, p] : by_pid) {
    total.setup_ns += p.setup_ns;
    total.replay_ns += p.replay_ns;
    total.launches += p.launches;
    out.data_loss.push_back(
        {pid, "metric_collection_cut", p.launches,
         fmt::format("{:.3f} s of metric collection cut out of the timeline before analysis: set-up {:.3f} s, "
                     "replay of {} measured launches {:.3f} s (each launch call keeps its kernel's duration)",
                     p.total_ns() / 1e9, p.setup_ns / 1e9, p.launches, p.replay_ns / 1e9),
         run_of[pid]});
  }
  if (cut) *cut = total;
  return out;
}

AnalysisView::AnalysisView(const Trace& trace) : original_(&trace) {
  const bool has = std::any_of(trace.overheads.begin(), trace.overheads.end(), [&](const CuptiOverhead& o) {
    return is_profiler_time_kind(trace.strings.get(o.kind));
  });
  if (has) cut_ = cut_profiler_time(trace, &profiler_time_);
}

}  // namespace gpuscope::analysis
