// MetricsOutbox: metric results from profiler threads become spool records on drain.
#include <gtest/gtest.h>

#include <cstring>

#include "capture/metrics_outbox.h"
#include "capture_test_support.h"

namespace gpuscope::capture {
namespace {
using test::RecordingSink;

template <class T>
std::vector<T> all_of(const RecordingSink& sink, spool::RecordKind kind) {
  std::vector<T> out;
  for (const auto& r : sink.records) {
    if (r.kind != kind || r.body.size() != sizeof(T)) continue;
    T value{};
    std::memcpy(&value, r.body.data(), sizeof(T));
    out.push_back(value);
  }
  return out;
}

TEST(MetricsOutbox, KernelValuesBecomeOneRecordPerMetric) {
  MetricsOutbox box;
  box.set_kernel_metric_names({"gpu__time_duration.sum", "dram__bytes_read.sum"});
  box.push_kernel(41, {1500.0, 4096.0});
  box.push_kernel(42, {1700.0, 0.0});
  RecordingSink sink;
  box.drain(sink);
  auto records = all_of<spool::KernelMetricRecord>(sink, spool::RecordKind::KernelMetric);
  ASSERT_EQ(records.size(), 4u);
  EXPECT_EQ(records[0].correlation_id, 41u);
  EXPECT_EQ(sink.str(records[0].metric), "gpu__time_duration.sum");
  EXPECT_DOUBLE_EQ(records[1].value, 4096.0);
  EXPECT_EQ(sink.str(records[3].metric), "dram__bytes_read.sum");
  EXPECT_EQ(records[3].correlation_id, 42u);

  RecordingSink again;  // drained values are gone
  box.drain(again);
  EXPECT_TRUE(again.records.empty());
}

TEST(MetricsOutbox, SamplesAndTheLastCollectionStatus) {
  MetricsOutbox box;
  box.set_sample_metric_names({"sm__cycles_active.avg.pct_of_peak_sustained_elapsed"});
  box.push_sample(0, 1000, 1100, {87.5});
  spool::MetricCollectionRecord first{};
  first.kind = static_cast<uint8_t>(spool::MetricCollectionKind::Sampling);
  first.interval_ns = 100'000;
  box.set_collection(first, "starting", "GH100");
  spool::MetricCollectionRecord last = first;
  last.kernels_profiled = 0;
  box.set_collection(last, "ok", "GH100");
  RecordingSink sink;
  box.drain(sink);
  auto samples = all_of<spool::GpuSampleRecord>(sink, spool::RecordKind::GpuSample);
  ASSERT_EQ(samples.size(), 1u);
  EXPECT_EQ(samples[0].start_ns, 1000);
  EXPECT_EQ(samples[0].end_ns, 1100);
  EXPECT_DOUBLE_EQ(samples[0].value, 87.5);
  auto status = sink.only<spool::MetricCollectionRecord>(spool::RecordKind::MetricCollection);
  EXPECT_EQ(sink.str(status.status), "ok");  // only the latest per kind is written
  EXPECT_EQ(sink.str(status.chip), "GH100");
  EXPECT_EQ(status.interval_ns, 100'000u);
}

TEST(MetricsOutbox, DropsAndCountsBeyondTheBound) {
  MetricsOutbox box;
  box.set_kernel_metric_names({"m"});
  std::vector<double> big(MetricsOutbox::kMaxPending, 1.0);
  box.push_kernel(1, big);
  box.push_kernel(2, {2.0, 3.0});
  EXPECT_EQ(box.dropped(), 2u);
  RecordingSink sink;
  box.drain(sink);
  box.push_kernel(3, {4.0});  // room again after the drain
  EXPECT_EQ(box.dropped(), 2u);
}

TEST(MetricsOutbox, ProfilerTimeBecomesOverheadRecordsOfItsKind) {
  MetricsOutbox box;
  box.push_profiler_time(kMetricSetupOverhead, 1000, 1900);
  box.push_profiler_time(kKernelReplayOverhead, 1900, 5000);
  RecordingSink sink;
  box.drain(sink);
  auto records = all_of<spool::OverheadRecord>(sink, spool::RecordKind::Overhead);
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(sink.str(records[0].kind), "gpuscope_metric_setup");
  EXPECT_EQ(records[0].start_ns, 1000);
  EXPECT_EQ(records[0].end_ns, 1900);
  EXPECT_EQ(sink.str(records[1].kind), "gpuscope_kernel_replay");
  EXPECT_EQ(records[1].end_ns, 5000);

  RecordingSink again;  // drained once
  box.drain(again);
  EXPECT_TRUE(again.records.empty());
}

}  // namespace
}  // namespace gpuscope::capture
