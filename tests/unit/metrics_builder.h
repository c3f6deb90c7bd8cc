// Hardware-metric rows for synthesized traces (tests of the store, diff, check
// and bench with kernel metrics). Builds on TraceBuilder: pid 1, times in ns.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "gpuscope/model.h"
#include "trace_builder.h"

namespace gpuscope::testing {

inline constexpr const char* kDramBytes = "dram__bytes_read.sum";
inline constexpr const char* kSmThroughput = "sm__throughput.avg.pct_of_peak_sustained_elapsed";

// n values around `center`, spread by +-2 (deterministic).
inline std::vector<double> around(double center, size_t n) {
  std::vector<double> v;
  for (size_t i = 0; i < n; ++i) v.push_back(center + static_cast<double>(i % 5) - 2);
  return v;
}

// One metric value of one launch, linked the way the capture links it (pid, correlation id, run).
inline void add_kernel_metric(Trace& t, const Kernel& k, const std::string& metric, double value) {
  t.kernel_metrics.push_back({k.pid, k.correlation_id, t.strings.intern(metric), value, k.run_id});
}

// One metric and its value for each launch, in launch order.
using MetricValues = std::vector<std::pair<std::string, std::vector<double>>>;

// Launches `kernel` once per value (each launched by its own cudaLaunchKernel, 1 us on the
// GPU, 10 us apart from `start`) and gives launch i the i-th value of every metric.
inline void launches_with_metrics(TraceBuilder& b, const std::string& kernel, const MetricValues& metrics,
                                  TimeNs start = 0) {
  const size_t launches = metrics.empty() ? 0 : metrics.front().second.size();
  for (size_t i = 0; i < launches; ++i) {
    const TimeNs at = start + static_cast<TimeNs>(i) * 10'000;
    const uint32_t corr = b.api("cudaLaunchKernel", at, at + 2'000);
    b.kernel(kernel, at + 3'000, at + 4'000, corr);
    for (const auto& [metric, values] : metrics)
      add_kernel_metric(b.trace(), b.trace().kernels.back(), metric, values.at(i));
  }
}

// The status row the capture writes for the range profiler.
inline void kernel_collection(Trace& t, const std::string& status, uint64_t profiled) {
  MetricCollection c;
  c.pid = 1;
  c.kind = "kernel";
  c.status = status;
  c.chip = "GH100";
  c.passes = 2;
  c.metrics = 2;
  c.kernels_profiled = profiled;
  t.metric_collections.push_back(std::move(c));
}

}  // namespace gpuscope::testing
