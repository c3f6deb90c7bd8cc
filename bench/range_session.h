// One context's CUPTI range profiler for bench/replay_pass_cost.cu: the metrics' configuration,
// the counter data image, start/stop of a pass and the values of the last range. Auto ranges
// (one range per kernel launch) in either replay mode: kernel replay, where CUPTI runs the
// passes inside each launch, or user replay, where the caller repeats the pass until stop()
// says every pass was submitted. Uses gpuscope's own CUPTI loader and host-side metric code, so
// it measures what the capture library does. Errors are one-line strings ("" = fine).
#pragma once

#include <cuda.h>

#include <memory>
#include <string>
#include <vector>

#include "capture/cupti_loader.h"
#include "capture/metrics_host.h"

class RangeSession {
 public:
  RangeSession(std::vector<std::string> metrics, bool user_replay);
  ~RangeSession();
  RangeSession(const RangeSession&) = delete;
  RangeSession& operator=(const RangeSession&) = delete;

  // Loads CUPTI, builds the configuration for the context's chip and enables the profiler.
  std::string open(CUcontext context);
  const std::string& chip() const { return chip_; }
  size_t passes() const { return config_.passes; }

  // One pass (user replay) or one set of replayed launches (kernel replay). stop() returns
  // true once CUPTI has every pass it needs; failures end the program (bench code).
  void start();
  bool stop();

  // Decodes what was collected and evaluates the newest range into `values` (one per metric).
  std::string last_range(std::vector<double>& values);

 private:
  std::string configure();
  std::string failure(const char* call, CUptiResult rc) const;

  std::vector<std::string> metrics_;
  std::vector<const char*> metric_ptrs_;
  bool user_replay_;
  const gpuscope::capture::CuptiApi* api_ = nullptr;
  std::unique_ptr<gpuscope::capture::MetricsHost> host_;
  gpuscope::capture::MetricConfig config_;
  std::string chip_;
  CUpti_RangeProfiler_Object* object_ = nullptr;
  std::vector<uint8_t> counter_data_;
};
