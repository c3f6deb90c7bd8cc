// The profiler's own time inside the program, and the timeline without it.
//
// With `gpuscope profile --metrics`, the range profiler runs on the program's launching
// thread: a one-time set-up (profiler initialization, configuration, enabling it on the
// context) at the first measured launch, then every measured launch replays its kernel once
// per pass before the launch call returns. That time is the profiler's, not the program's,
// yet it lies inside the program's timeline (a replayed launch call lasts all its passes; the
// set-up runs before CUPTI's record of the call even starts). The capture library records it
// as overhead rows of kinds gpuscope_metric_setup and gpuscope_kernel_replay, and analysis
// (report, diff, check) works on the timeline with it cut out. docs/report.md, "Metric
// collection time".
#pragma once

#include <optional>
#include <string_view>

#include "gpuscope/model.h"

namespace gpuscope::analysis {

// True for gpuscope's overhead kinds (kMetricSetupOverhead, kKernelReplayOverhead in model.h) (the profiler's time, as
// opposed to CUPTI's records).
bool is_profiler_time_kind(std::string_view kind);

struct ProfilerTime {
  TimeNs setup_ns = 0;   // one-time set-up, cut whole
  TimeNs replay_ns = 0;  // replay intervals less the replayed kernels' own durations
  size_t launches = 0;   // measured launches (replay intervals)
  TimeNs total_ns() const { return setup_ns + replay_ns; }
};

// `trace` with the profiler's time cut out of its timeline: every timestamp moves earlier by
// the profiler time before it, and a time inside a cut lands on the cut's start. A measured
// launch keeps its kernel's duration (the kernel, placed by the importer at the end of its
// launch call, stays as it was), so its launch call then lasts as long as the kernel, as a
// launch followed by a synchronization would. One data_loss row per process,
// "metric_collection_cut", says what was cut, and replaces the profiler's overhead rows (so
// cutting twice changes nothing). `cut` (optional) receives the totals.
Trace cut_profiler_time(const Trace& trace, ProfilerTime* cut = nullptr);

// The trace that analysis reads: `trace` itself when it holds no profiler time, else a copy
// with that time cut out (cut_profiler_time). Keeps the copy alive as long as the view.
class AnalysisView {
 public:
  explicit AnalysisView(const Trace& trace);
  const Trace& trace() const { return cut_ ? *cut_ : *original_; }
  const ProfilerTime& profiler_time() const { return profiler_time_; }

 private:
  const Trace* original_;
  std::optional<Trace> cut_;
  ProfilerTime profiler_time_;
};

}  // namespace gpuscope::analysis
