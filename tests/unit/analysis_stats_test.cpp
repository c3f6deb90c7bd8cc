// Descriptive statistics and interval unions (gpuscope/analysis_stats.h).
#include <gtest/gtest.h>

#include <cmath>

#include "gpuscope/analysis.h"
#include "gpuscope/analysis_stats.h"

namespace gpuscope::analysis {
namespace {

TEST(AnalysisStats, EmptySampleIsAllZero) {
  Stats s = describe({});
  EXPECT_EQ(s.count, 0u);
  EXPECT_EQ(s.total, 0);
  EXPECT_EQ(s.mean, 0);
  EXPECT_EQ(s.median, 0);
  EXPECT_EQ(s.stddev, 0);
  EXPECT_EQ(s.cv_percent, 0);
}

TEST(AnalysisStats, SingleSample) {
  Stats s = describe({615837});
  EXPECT_EQ(s.count, 1u);
  EXPECT_EQ(s.total, 615837);
  EXPECT_EQ(s.mean, 615837);
  EXPECT_EQ(s.median, 615837);
  EXPECT_EQ(s.min, 615837);
  EXPECT_EQ(s.max, 615837);
  EXPECT_EQ(s.stddev, 0);  // undefined for n = 1; reported as 0
  EXPECT_EQ(s.cv_percent, 0);
}

TEST(AnalysisStats, OddCountMedianIsMiddleValue) {
  Stats s = describe({9, 1, 5});  // unsorted on purpose
  EXPECT_EQ(s.median, 5);
  EXPECT_EQ(s.min, 1);
  EXPECT_EQ(s.max, 9);
  EXPECT_EQ(s.total, 15);
  EXPECT_EQ(s.mean, 5);
}

TEST(AnalysisStats, EvenCountMedianIsMeanOfMiddleTwo) {
  Stats s = describe({4, 1, 10, 2});
  EXPECT_EQ(s.median, 3);  // (2 + 4) / 2
  EXPECT_EQ(s.mean, 4.25);
}

TEST(AnalysisStats, SampleStandardDeviationAndCv) {
  // Sample (n - 1) stddev of {2, 4, 4, 4, 5, 5, 7, 9}: mean 5, sum of squares 32.
  Stats s = describe({2, 4, 4, 4, 5, 5, 7, 9});
  EXPECT_DOUBLE_EQ(s.stddev, std::sqrt(32.0 / 7.0));
  EXPECT_DOUBLE_EQ(s.cv_percent, std::sqrt(32.0 / 7.0) / 5.0 * 100.0);
}

TEST(AnalysisStats, ZeroVariance) {
  Stats s = describe({1000, 1000, 1000});
  EXPECT_EQ(s.stddev, 0);
  EXPECT_EQ(s.cv_percent, 0);
}

TEST(AnalysisStats, LargeNanosecondValuesKeepPrecision) {
  // Two launches 2524 ns apart around 615.8 µs: the seed report's kernel.
  Stats s = describe({614575, 617099});
  EXPECT_NEAR(s.stddev, 1784.7375, 1e-3);
  EXPECT_NEAR(s.cv_percent, 0.2898, 1e-4);
}

TEST(AnalysisStats, ZeroMeanGivesZeroCv) {
  Stats s = describe({-1, 1});
  EXPECT_EQ(s.mean, 0);
  EXPECT_GT(s.stddev, 0);
  EXPECT_EQ(s.cv_percent, 0);
}

TEST(AnalysisUnion, EmptyAndInvertedIntervalsCoverNothing) {
  EXPECT_EQ(union_length({}), 0);
  EXPECT_EQ(union_length({{10, 10}, {20, 5}}), 0);
}

TEST(AnalysisUnion, DisjointIntervalsAdd) { EXPECT_EQ(union_length({{0, 10}, {20, 25}, {100, 101}}), 16); }

TEST(AnalysisUnion, OverlappingIntervalsCountOnce) { EXPECT_EQ(union_length({{0, 10}, {5, 15}}), 15); }

TEST(AnalysisUnion, NestedIntervalsCountOnce) { EXPECT_EQ(union_length({{0, 100}, {10, 20}, {30, 40}}), 100); }

TEST(AnalysisUnion, TouchingIntervalsMerge) { EXPECT_EQ(union_length({{0, 10}, {10, 20}, {20, 30}}), 30); }

TEST(AnalysisUnion, OrderDoesNotMatter) {
  EXPECT_EQ(union_length({{50, 60}, {0, 10}, {5, 55}}), 60);
  EXPECT_EQ(union_length({{0, 10}, {5, 55}, {50, 60}}), 60);
}

TEST(AnalysisUnion, LongRunSwallowsLaterShortOnes) {
  // The run [0, 100) must not be shortened by [10, 20) ending earlier.
  EXPECT_EQ(union_length({{0, 100}, {10, 20}, {150, 160}}), 110);
}

Kernel kernel_on(uint32_t pid, uint32_t device, TimeNs start, TimeNs end) {
  Kernel k;
  k.pid = pid;
  k.device = device;
  k.start = start;
  k.end = end;
  return k;
}

TEST(AnalysisGpuBusy, UnionPerDeviceSummedOverDevices) {
  Trace t;
  t.kernels.push_back(kernel_on(1, 0, 0, 100));
  t.kernels.push_back(kernel_on(1, 0, 50, 150));  // overlaps on device 0
  t.kernels.push_back(kernel_on(1, 1, 0, 100));   // device 1 runs concurrently
  Memcpy m;
  m.pid = 1;
  m.device = 0;
  m.start = 140;
  m.end = 200;  // overlaps the second kernel
  t.memcpys.push_back(m);
  Memset s;
  s.pid = 1;
  s.device = 1;
  s.start = 300;
  s.end = 310;
  t.memsets.push_back(s);

  auto busy = gpu_busy_by_device(t);
  ASSERT_EQ(busy.size(), 2u);
  EXPECT_EQ(busy[0].device_key, "pid:1/dev:0");
  EXPECT_EQ(busy[0].busy_ns, 200);
  EXPECT_EQ(busy[1].device_key, "pid:1/dev:1");
  EXPECT_EQ(busy[1].busy_ns, 110);
  EXPECT_EQ(summarize_executive(t).gpu_busy_ns, 310);
  EXPECT_EQ(summarize_executive(t).busy_devices, 2u);
}

TEST(AnalysisGpuBusy, ProcessesSharingOneGpuAreUnionedByUuid) {
  Trace t;
  for (uint32_t pid : {10u, 20u}) {
    Device d;
    d.pid = pid;
    d.id = 0;
    d.uuid = "GPU-same";
    t.devices.push_back(d);
  }
  t.kernels.push_back(kernel_on(10, 0, 0, 100));
  t.kernels.push_back(kernel_on(20, 0, 50, 120));
  auto busy = gpu_busy_by_device(t);
  ASSERT_EQ(busy.size(), 1u);
  EXPECT_EQ(busy[0].device_key, "GPU-same");
  EXPECT_EQ(busy[0].busy_ns, 120);
  EXPECT_EQ(unique_devices(t).size(), 1u);
}

}  // namespace
}  // namespace gpuscope::analysis
