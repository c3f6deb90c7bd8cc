// Per-kernel hardware metrics with CUPTI's range profiler (`gpuscope profile --metrics`).
//
// How: the library's callback subscriber (callback_hub.h) hands us the kernel-launch API
// calls (runtime and driver).
// On entry to the outermost launch call of a thread, if the kernel passes the filters
// (--kernel regex, --launch-skip, --launch-count: launch_filter.h), the range profiler is started in
// auto-range / kernel-replay mode: CUPTI runs that one kernel as many times as the metrics
// need passes, saving and restoring the device memory it touches, so the program's results
// are unchanged. On exit the profiler is stopped, the range decoded and evaluated, and the
// values go to the MetricsOutbox under the launch's correlation id — the id of the outermost
// API call, which is the id CUPTI gives the kernel's activity record.
//
// Launches are measured one at a time (a mutex held from entry to exit): kernel replay
// serializes the GPU anyway. The time this takes on the launching thread (the one-time set-up,
// each launch's replay) is recorded as overhead records, and analysis cuts it out of the
// program's timeline (analysis_profiler_time.h).
//
// Fail open: any CUPTI error turns metric collection off for the rest of the run (the trace
// goes on), with one "gpuscope: ..." line and the reason in the MetricCollection record.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "capture/config.h"
#include "capture/cupti_loader.h"
#include "capture/metrics_outbox.h"

namespace gpuscope::capture {

class KernelProfiler {
 public:
  KernelProfiler(const CuptiApi& api, const InjectConfig& config, MetricsOutbox& outbox);
  ~KernelProfiler();
  KernelProfiler(const KernelProfiler&) = delete;
  KernelProfiler& operator=(const KernelProfiler&) = delete;

  // False (and a status in the outbox) when CUPTI lacks the range profiler; the trace is
  // unaffected either way.
  bool start();
  // Turns on the launch callbacks this class needs on `subscriber`.
  static void enable_callbacks(const CuptiApi& api, CUpti_SubscriberHandle subscriber);
  // A launch callback (runtime or driver domain), on the launching thread.
  void on_launch_callback(const CUpti_CallbackData& data);
  // Writes the final MetricCollection status (at exit).
  void finish();
  // The launch callbacks cannot be had: collection is off, with `why` as its status.
  void abandon(const std::string& why);

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace gpuscope::capture
