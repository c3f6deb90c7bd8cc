// The spool's metric records through the importer: kernel metrics, GPU samples and
// collection status; unmatched and NaN values are data loss.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "common/error.h"
#include "importers/spool/spool_importer.h"
#include "spool_builder.h"

namespace gpuscope {
namespace {

using spool::RecordKind;
using testing::SpoolBuilder;

constexpr uint32_t kKernelName = 1, kDram = 2, kSm = 3, kStatusOk = 4, kChip = 5, kStatusStarted = 6;

spool::KernelRecord kernel(int64_t start, uint32_t correlation) {
  spool::KernelRecord k{};
  k.start_ns = start;
  k.end_ns = start + 1000;
  k.name = kKernelName;
  k.grid[0] = k.grid[1] = k.grid[2] = 1;
  k.block[0] = 128, k.block[1] = k.block[2] = 1;
  k.correlation_id = correlation;
  return k;
}

spool::MetricCollectionRecord collection(spool::MetricCollectionKind kind, uint32_t status, uint64_t profiled) {
  spool::MetricCollectionRecord c{};
  c.kernels_profiled = profiled;
  c.kernels_failed = 1;
  c.interval_ns = kind == spool::MetricCollectionKind::Sampling ? 100000 : 0;
  c.status = status;
  c.chip = kChip;
  c.passes = kind == spool::MetricCollectionKind::Kernel ? 3 : 0;
  c.metrics = 2;
  c.kind = static_cast<uint8_t>(kind);
  return c;
}

// Two launches with two metrics each, two samples, a status record that is later updated.
SpoolBuilder metric_spool() {
  SpoolBuilder b(200, 1, 1000);
  b.string(kKernelName, "gemm")
      .string(kDram, "dram__bytes_read.sum")
      .string(kSm, "sm__throughput.avg.pct_of_peak_sustained_elapsed")
      .string(kStatusOk, "ok")
      .string(kChip, "GH100")
      .string(kStatusStarted, "collecting")
      .record(RecordKind::MetricCollection, collection(spool::MetricCollectionKind::Kernel, kStatusStarted, 0))
      .record(RecordKind::Kernel, kernel(2000, 10))
      .record(RecordKind::KernelMetric, spool::KernelMetricRecord{4096.0, 10, kDram})
      .record(RecordKind::KernelMetric, spool::KernelMetricRecord{87.5, 10, kSm})
      .flush();
  // The second launch's metrics arrive before its kernel record, as CUPTI may deliver them.
  b.record(RecordKind::KernelMetric, spool::KernelMetricRecord{8192.0, 11, kDram})
      .record(RecordKind::KernelMetric, spool::KernelMetricRecord{88.0, 11, kSm})
      .record(RecordKind::GpuSample, spool::GpuSampleRecord{2000, 2100, 55.0, 0, kSm})
      .record(RecordKind::GpuSample, spool::GpuSampleRecord{1900, 2000, 12.5, 0, kSm})
      .record(RecordKind::Kernel, kernel(4000, 11))
      .record(RecordKind::MetricCollection, collection(spool::MetricCollectionKind::Sampling, kStatusOk, 0))
      .record(RecordKind::MetricCollection, collection(spool::MetricCollectionKind::Kernel, kStatusOk, 2))
      .flush();
  return b;
}

const DataLoss* loss(const Trace& t, const std::string& what) {
  auto it = std::find_if(t.data_loss.begin(), t.data_loss.end(), [&](const DataLoss& d) { return d.what == what; });
  return it == t.data_loss.end() ? nullptr : &*it;
}

TEST(SpoolMetrics, DecodesKernelMetricsSamplesAndTheLastStatusPerKind) {
  const std::string dir = testing::scratch_dir("spool_metrics");
  SpoolBuilder b = metric_spool();
  b.end(5000);
  b.write(dir + "/m.200.spool");
  const Trace t = import_spool(dir + "/m.200.spool");

  ASSERT_EQ(t.kernel_metrics.size(), 4u);
  EXPECT_EQ(t.kernel_metrics[0].pid, 200u);
  EXPECT_EQ(t.kernel_metrics[0].correlation_id, 10u);
  EXPECT_EQ(t.strings.get(t.kernel_metrics[0].metric), "dram__bytes_read.sum");
  EXPECT_DOUBLE_EQ(t.kernel_metrics[0].value, 4096.0);
  EXPECT_EQ(t.strings.get(t.kernel_metrics[3].metric), "sm__throughput.avg.pct_of_peak_sustained_elapsed");
  EXPECT_EQ(t.kernel_metrics[0].metric, t.kernel_metrics[2].metric) << "one interned id per name";

  ASSERT_EQ(t.gpu_metric_samples.size(), 2u);
  EXPECT_EQ(t.gpu_metric_samples[0].start, 1900) << "samples are sorted by start";
  EXPECT_EQ(t.gpu_metric_samples[0].end, 2000);
  EXPECT_DOUBLE_EQ(t.gpu_metric_samples[0].value, 12.5);
  EXPECT_EQ(t.gpu_metric_samples[0].pid, 200u);

  ASSERT_EQ(t.metric_collections.size(), 2u) << "one per kind: the updated kernel status replaces the first";
  const MetricCollection& k = t.metric_collections[0];
  EXPECT_EQ(k.kind, "kernel");
  EXPECT_EQ(k.status, "ok");
  EXPECT_EQ(k.chip, "GH100");
  EXPECT_EQ(k.passes, 3u);
  EXPECT_EQ(k.metrics, 2u);
  EXPECT_EQ(k.kernels_profiled, 2u);
  EXPECT_EQ(k.kernels_failed, 1u);
  EXPECT_EQ(t.metric_collections[1].kind, "sampling");
  EXPECT_EQ(t.metric_collections[1].interval_ns, 100000u);
  EXPECT_EQ(loss(t, "metrics_unmatched"), nullptr) << "metrics before their kernel record still match";
}

TEST(SpoolMetrics, ACrashKeepsTheFirstStatus) {
  const std::string dir = testing::scratch_dir("spool_metrics_crash");
  SpoolBuilder b(200, 1, 1000);
  b.string(kStatusStarted, "collecting")
      .string(kChip, "GH100")
      .record(RecordKind::MetricCollection, collection(spool::MetricCollectionKind::Kernel, kStatusStarted, 0))
      .flush();
  b.write(dir + "/m.200.spool");
  const Trace t = import_spool(dir + "/m.200.spool");
  ASSERT_EQ(t.metric_collections.size(), 1u);
  EXPECT_EQ(t.metric_collections[0].status, "collecting");
  EXPECT_EQ(t.processes.at(0).clean_shutdown, false);
}

TEST(SpoolMetrics, MetricsWithoutTheirKernelAreKeptAndCounted) {
  const std::string dir = testing::scratch_dir("spool_metrics_unmatched");
  SpoolBuilder b(300, 1, 1000);
  b.string(kKernelName, "gemm")
      .string(kDram, "dram__bytes_read.sum")
      .string(kSm, "sm__throughput.avg.pct_of_peak_sustained_elapsed")
      .record(RecordKind::Kernel, kernel(2000, 10))
      .record(RecordKind::KernelMetric, spool::KernelMetricRecord{1.0, 10, kDram})
      .record(RecordKind::KernelMetric, spool::KernelMetricRecord{2.0, 77, kDram})
      .record(RecordKind::KernelMetric, spool::KernelMetricRecord{3.0, 77, kSm})
      .record(RecordKind::KernelMetric, spool::KernelMetricRecord{4.0, 78, kSm});
  b.end(5000);
  b.write(dir + "/m.300.spool");
  const Trace t = import_spool(dir + "/m.300.spool");
  EXPECT_EQ(t.kernel_metrics.size(), 4u) << "unmatched values are kept";
  const DataLoss* d = loss(t, "metrics_unmatched");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->pid, 300u);
  EXPECT_EQ(d->count, 3u) << "counted in metric values";
  EXPECT_NE(d->detail.find("of 2 launches"), std::string::npos) << d->detail;
}

TEST(SpoolMetrics, ValuesThatAreNotNumbersAreLeftOutAndCounted) {
  const std::string dir = testing::scratch_dir("spool_metrics_nan");
  SpoolBuilder b(400, 1, 1000);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  b.string(kKernelName, "gemm")
      .string(kDram, "dram__bytes_read.sum")
      .record(RecordKind::Kernel, kernel(2000, 10))
      .record(RecordKind::KernelMetric, spool::KernelMetricRecord{nan, 10, kDram})
      .record(RecordKind::KernelMetric, spool::KernelMetricRecord{5.0, 10, kDram})
      .record(RecordKind::GpuSample,
              spool::GpuSampleRecord{2000, 2100, std::numeric_limits<double>::infinity(), 0, kDram});
  b.end(5000);
  b.write(dir + "/m.400.spool");
  const Trace t = import_spool(dir + "/m.400.spool");
  ASSERT_EQ(t.kernel_metrics.size(), 1u);
  EXPECT_DOUBLE_EQ(t.kernel_metrics[0].value, 5.0);
  EXPECT_TRUE(t.gpu_metric_samples.empty());
  const DataLoss* d = loss(t, "metrics_not_a_number");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->count, 2u);
}

}  // namespace
}  // namespace gpuscope
