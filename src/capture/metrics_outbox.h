// Where metric results wait for the writer thread.
//
// The range profiler measures kernels on the program's launching threads and PM sampling
// decodes on its own thread; neither may touch the SpoolWriter, which belongs to the writer
// thread. They push plain values here (metric names by index into a fixed list), and the
// writer drains the box into spool records on every turn of its loop and once more at the
// end. CUDA-free, so tests run it on a CPU.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "capture/record_sink.h"
#include "gpuscope/model.h"  // kMetricSetupOverhead, kKernelReplayOverhead

namespace gpuscope::capture {

class MetricsOutbox {
 public:
  // Pending values are bounded: beyond this many, values are dropped and counted (a
  // stalled writer must not grow the program's memory without limit).
  static constexpr size_t kMaxPending = 1u << 20;

  // The metric names values refer to; set once, before any push.
  void set_kernel_metric_names(std::vector<std::string> names);
  void set_sample_metric_names(std::vector<std::string> names);

  // `values[i]` belongs to kernel metric name i.
  void push_kernel(uint32_t correlation_id, const std::vector<double>& values);
  // `values[i]` belongs to sample metric name i; times in ns (CLOCK_REALTIME).
  void push_sample(uint32_t device, int64_t start_ns, int64_t end_ns, const std::vector<double>& values);
  // Time the metric collection itself took on a program thread (CLOCK_REALTIME ns), written
  // as an overhead record of `kind` (kMetricSetupOverhead, kKernelReplayOverhead), so analysis can
  // take it out of the program's timeline (docs/capture.md).
  void push_profiler_time(const char* kind, int64_t start_ns, int64_t end_ns);
  // A data loss of metric collection (e.g. metrics_not_on_chip), written as a spool Loss
  // record: `count` of `what`, and one line for people.
  void add_loss(std::string what, uint64_t count, std::string detail);
  // Replaces the last status of that kind; written at the next drain.
  void set_collection(const spool::MetricCollectionRecord& record, std::string status, std::string chip);

  // Writer thread: appends everything pending to `sink` as spool records.
  void drain(RecordSink& sink);

  uint64_t dropped() const;

 private:
  struct KernelValues {
    uint32_t correlation_id;
    std::vector<double> values;
  };
  struct SampleValues {
    uint32_t device;
    int64_t start_ns, end_ns;
    std::vector<double> values;
  };
  struct ProfilerTime {
    const char* kind;  // a string literal
    int64_t start_ns, end_ns;
  };
  struct Loss {
    std::string what, detail;
    uint64_t count;
  };
  struct Collection {
    bool pending = false;
    spool::MetricCollectionRecord record{};
    std::string status, chip;
  };

  mutable std::mutex mutex_;
  std::vector<std::string> kernel_names_, sample_names_;
  std::vector<KernelValues> kernels_;
  std::vector<SampleValues> samples_;
  std::vector<ProfilerTime> profiler_times_;
  std::vector<Loss> losses_;
  Collection collections_[2];  // by MetricCollectionKind
  size_t pending_values_ = 0;
  uint64_t dropped_ = 0;
};

}  // namespace gpuscope::capture
