// Hardware-metric analyses (analysis_metrics.h) on synthesized traces: medians per kernel group,
// the speed-of-light verdict, memory workload, achieved occupancy, warp stalls, tensor use, the
// roofline and GPU samples over time. Expected numbers are worked out in the comments.
#include <gtest/gtest.h>

#include <cmath>

#include "gpuscope/analysis_metrics.h"
#include "metrics_trace.h"
#include "time_units.h"

namespace gpuscope::analysis {
namespace {

using testing::kMs;
using testing::TraceBuilder;

const KernelMetrics& only(const std::vector<KernelMetrics>& ks) {
  EXPECT_EQ(ks.size(), 1u);
  return ks.front();
}

KernelMetrics analyze_one(const testing::Metrics& metrics, TimeNs kernel_ns = 1 * kMs) {
  TraceBuilder b;
  b.run(0, 100 * kMs);
  testing::launches(b, "k", 3, 1 * kMs, kernel_ns, metrics);
  auto ks = analyze_kernel_metrics(b.trace());
  return only(ks);
}

TEST(MetricValues, MedianPerMetricOverTheLaunchesThatHaveIt) {
  TraceBuilder b;
  b.run(0, 100 * kMs);
  testing::launches(b, "k", 1, 1 * kMs, kMs, {{"a", 10}, {"b", 7}});
  testing::launches(b, "k", 1, 3 * kMs, kMs, {{"a", 30}});
  testing::launches(b, "k", 1, 5 * kMs, kMs, {{"a", 20}, {"b", 9}});
  testing::launches(b, "other", 2, 7 * kMs, kMs / 2, {});  // no metrics: not listed
  const auto v = kernel_metric_values(b.trace());
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].name, "k");
  EXPECT_EQ(v[0].profiled, 3u);
  EXPECT_EQ(*v[0].get("a"), 20);
  EXPECT_EQ(*v[0].get("b"), 8);  // mean of the two middle values of {7, 9}
  EXPECT_FALSE(v[0].get("c"));
  EXPECT_NEAR(v[0].kernel_share_percent, 75.0, 1e-9);  // 3 ms of 4 ms of kernels
  EXPECT_EQ(v[0].duration_ns(), kMs);                  // no gpu__time_duration: the traced median
}

TEST(MetricValues, MainConfigurationFirstOtherConfigurationsOnlyAsFallback) {
  TraceBuilder b;
  b.run(0, 100 * kMs);
  testing::launches(b, "k", 3, 1 * kMs, kMs, {});           // the common configuration, unmeasured ...
  testing::launches(b, "k", 1, 10 * kMs, kMs, {{"a", 5}});  // ... and one launch of another grid
  b.trace().kernels.back().grid[0] = 64;
  auto v = kernel_metric_values(b.trace());
  ASSERT_EQ(v.size(), 1u);
  EXPECT_TRUE(v[0].all_configs);
  EXPECT_EQ(*v[0].get("a"), 5);

  testing::add_metrics(b.trace(), b.trace().kernels.front().correlation_id, {{"a", 1}});
  v = kernel_metric_values(b.trace());
  EXPECT_FALSE(v[0].all_configs);  // a launch of the main configuration now has metrics: only it counts
  EXPECT_EQ(*v[0].get("a"), 1);
}

TEST(MetricValues, UnmatchedAndAmbiguousCorrelationsAreNotAttributed) {
  TraceBuilder b;
  b.run(0, 100 * kMs);
  testing::launches(b, "k", 1, 1 * kMs, kMs, {{"a", 1}});
  testing::add_metrics(b.trace(), 999, {{"a", 100}});  // no such launch
  // Two graph nodes share their graph launch's correlation id: metrics for it match neither.
  const uint32_t graph = b.api("cudaGraphLaunch", 5 * kMs, 5 * kMs + 5'000);
  b.kernel("node", 6 * kMs, 7 * kMs, graph).kernel("node", 7 * kMs, 8 * kMs, graph);
  testing::add_metrics(b.trace(), graph, {{"a", 50}});
  const auto v = kernel_metric_values(b.trace());
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(*v[0].get("a"), 1);
}

TEST(SpeedOfLight, VerdictsFollowTheThresholds) {
  auto bound = [](double sm, double mem) {
    return speed_of_light(analyze_one(testing::sol(sm, mem, mem, 10, 10, kMs)).values)->bound;
  };
  EXPECT_EQ(bound(85, 30), Bound::Compute);
  EXPECT_EQ(bound(20, 75), Bound::Memory);
  EXPECT_EQ(bound(72, 65), Bound::Balanced);   // both >= 60, 7 points apart
  EXPECT_EQ(bound(75, 62), Bound::Compute);    // both >= 60, 13 points apart: the higher one
  EXPECT_EQ(bound(59, 59.9), Bound::Latency);  // neither reaches 60
}

TEST(SpeedOfLight, NamesTheBusiestUnitAndNeedsSmThroughput) {
  const auto s = analyze_one(testing::sol(20, 70, 35, 70, 40, kMs)).sol;
  ASSERT_TRUE(s);
  EXPECT_EQ(s->busiest_unit, "L2");
  EXPECT_EQ(s->busiest_percent, 70);
  EXPECT_FALSE(analyze_one({{"dram__throughput.avg.pct_of_peak_sustained_elapsed", 90}}).sol);
}

TEST(MemoryWorkload, BandwidthFromBytesAndMeasuredDurationConflictsAsShareOfSmCycles) {
  // 2 GB read + 1 GB written in 1 ms (measured) = 3 TB/s. 132 SMs x 1,000,000 active cycles;
  // 13,200,000 conflicts = 10 % of them.
  const auto k = analyze_one(testing::sol(20, 90, 90, 50, 30, 1e6) + testing::memory(2e9, 1e9, 10, 40, 13.2e6, 1e6) +
                                 testing::h100_peaks(),
                             2 * kMs);
  ASSERT_TRUE(k.memory);
  EXPECT_DOUBLE_EQ(*k.memory->dram_bandwidth, 3e12);
  EXPECT_DOUBLE_EQ(*k.memory->dram_peak_bandwidth, 3.35e12);
  EXPECT_NEAR(*k.memory->conflict_cycle_percent, 10.0, 1e-9);
  EXPECT_EQ(*k.memory->l2_hit_percent, 40);
}

TEST(MemoryWorkload, SectorsStandInForMissingBytes) {
  const auto k = analyze_one({{"dram__sectors_read.sum", 1000}, {"dram__sectors_write.sum", 10}}, kMs);
  ASSERT_TRUE(k.memory);
  EXPECT_EQ(*k.memory->dram_read_bytes, 32000);
  EXPECT_EQ(*k.memory->dram_write_bytes, 320);
  EXPECT_FALSE(k.memory->conflict_cycle_percent);
}

TEST(AchievedOccupancy, GapAgainstTheoreticalWithTheReasonFromTheWaves) {
  // trace_builder launches: 132 blocks of 128 threads, 32 regs: 16 blocks/SM, 100 % theoretical.
  // 132 blocks on 132 SMs: one block (4 of 64 warps) per SM, at most 6.25 %.
  const auto small = analyze_one(testing::occupancy(6.1, 3.9)).occupancy;
  ASSERT_TRUE(small && small->theoretical);
  EXPECT_DOUBLE_EQ(small->theoretical->occupancy_percent, 100.0);
  EXPECT_TRUE(small->large_gap);
  EXPECT_NE(small->explanation.find("smaller than one wave"), std::string::npos) << small->explanation;
  EXPECT_NE(small->explanation.find("at most 6.2%"), std::string::npos) << small->explanation;

  TraceBuilder b;
  b.run(0, 100 * kMs);
  testing::launches(b, "k", 2, 1 * kMs, kMs, testing::occupancy(70, 44.8));
  testing::set_grid(b.trace(), "k", 132 * 16);  // exactly one wave
  auto a = only(analyze_kernel_metrics(b.trace())).occupancy;
  EXPECT_TRUE(a->large_gap);  // 70 % < 80 % of 100 %, 30 points
  EXPECT_NE(a->explanation.find("uneven work"), std::string::npos);
  testing::set_grid(b.trace(), "k", 132 * 16 + 10);
  a = only(analyze_kernel_metrics(b.trace())).occupancy;
  EXPECT_NE(a->explanation.find("last one fills"), std::string::npos);

  EXPECT_FALSE(analyze_one(testing::occupancy(85, 54.4)).occupancy->large_gap);
}

TEST(WarpStalls, RankedByShareOfStallCyclesWithoutTheIssuingCycle) {
  const auto w = analyze_one(testing::stalls({{"long_scoreboard", 6}, {"barrier", 2}, {"wait", 2}}, 20)).stalls;
  ASSERT_TRUE(w);
  ASSERT_EQ(w->reasons.size(), 3u);
  EXPECT_EQ(w->reasons[0].reason, "long_scoreboard");
  EXPECT_DOUBLE_EQ(w->reasons[0].percent, 60.0);  // 6 of 10 stall cycles ("selected" left out)
  EXPECT_EQ(w->reasons[1].reason, "barrier");     // tie with wait: by name
  EXPECT_EQ(*w->cycles_per_issue, 11.0);
  EXPECT_EQ(*w->issue_active_percent, 20.0);
}

TEST(WarpStalls, EveryReasonOfTheStallsSetHasGuidance) {
  for (const MetricSet& set : metric_sets()) {
    if (std::string(set.name) != "stalls") continue;
    for (const MetricInfo& m : set.metrics) {
      const std::string name = m.name;
      if (name.find("_issue_stalled_") == std::string::npos) continue;
      const StallGuidance* g = stall_guidance(m.label);
      ASSERT_TRUE(g) << m.label;
      EXPECT_GT(std::string(g->advice).size(), 10u) << m.label;
    }
  }
}

TEST(TensorUse, HalfMathWithoutTensorOpsOnlyAtMatrixIntensity) {
  // 1e9 HFMA = 2e9 FP16 FLOPs; 1e8 DRAM bytes: 20 FLOP/byte, a matrix product's intensity.
  auto t = analyze_one(testing::flops(0, 0, 1e9, 0) + testing::level_bytes(1e8, 2e8, 4e8)).tensor;
  ASSERT_TRUE(t);
  EXPECT_DOUBLE_EQ(t->scalar.fp16, 2e9);
  EXPECT_TRUE(t->half_math_without_tensor);
  // Elementwise: 1 FLOP per byte.
  EXPECT_FALSE(
      analyze_one(testing::flops(0, 0, 1e9, 0) + testing::level_bytes(2e9, 2e9, 2e9)).tensor->half_math_without_tensor);
  // Tensor ops present.
  EXPECT_FALSE(analyze_one(testing::flops(0, 0, 1e9, 1e6) + testing::level_bytes(1e8, 1e8, 1e8))
                   .tensor->half_math_without_tensor);
}

TEST(Roofline, AttainableIsTheLowestRoofAndTheFractionOfIt) {
  // 1e9 FFMA + 0 FADD = 2e9 FP32 FLOPs in 1 ms: 2 TFLOP/s. DRAM 1 GB: 2 FLOP/byte x 3.35 TB/s =
  // 6.7 TFLOP/s; L2 1.2 GB: 1.67 x 5.39 TB/s = 8.99; L1 4 GB: 0.5 x 29.65 = 14.8; FP32 peak 59.3.
  const auto r = analyze_one(testing::sol(20, 40, 40, 30, 20, 1e6) + testing::flops(1e9, 0, 0, 0) +
                             testing::level_bytes(1e9, 1.2e9, 4e9) + testing::h100_peaks())
                     .roofline;
  ASSERT_TRUE(r);
  ASSERT_EQ(r->precisions.size(), 1u);
  EXPECT_EQ(r->precisions[0].precision, "FP32");
  EXPECT_DOUBLE_EQ(r->precisions[0].achieved, 2e12);
  EXPECT_DOUBLE_EQ(*r->precisions[0].peak, 16896 * 2 * 1.755e9);
  EXPECT_DOUBLE_EQ(*r->attainable, 6.7e12);
  EXPECT_EQ(r->bound_by, "DRAM bandwidth");
  EXPECT_NEAR(*r->roof_percent, 100 * 2 / 6.7, 1e-9);
  EXPECT_EQ(r->region, "memory");
  EXPECT_NEAR(*r->levels[0].ridge, 16896 * 2 * 1.755e9 / 3.35e12, 1e-9);
}

TEST(Roofline, ComputeRegionAndNoRoofWithoutPeaksOrForTensorWork) {
  // 1e12 FP32 FLOPs in 50 ms (20 TFLOP/s) on 1 GB of DRAM traffic: 1000 FLOP/byte, far right
  // of the ridge (17.7), so the FP32 peak is the roof.
  auto r = analyze_one(testing::sol(90, 10, 10, 10, 10, 5e7) + testing::flops(5e11, 0, 0, 0) +
                       testing::level_bytes(1e9, 1e9, 1e10) + testing::h100_peaks())
               .roofline;
  EXPECT_EQ(r->region, "compute");
  EXPECT_EQ(r->bound_by, "FP32 peak");
  EXPECT_NEAR(*r->roof_percent, 100 * 2e13 / (16896 * 2 * 1.755e9), 1e-9);

  r = analyze_one(testing::flops(5e11, 0, 0, 0) + testing::level_bytes(1e9, 1e9, 1e10)).roofline;
  ASSERT_TRUE(r);
  EXPECT_FALSE(r->attainable);  // no peaks: no roof, no guess
  EXPECT_FALSE(r->levels[0].peak_bandwidth);

  r = analyze_one(testing::flops(1e6, 0, 0, 1e12) + testing::level_bytes(1e9, 1e9, 1e10) + testing::h100_peaks())
          .roofline;
  EXPECT_EQ(r->precisions[0].precision, "Tensor");
  EXPECT_FALSE(r->attainable);
}

// The tensor roof is the peak of the instructions the kernel ran. Modelled on bsr_spmm on an H100
// (WMMA, i.e. mma.sync FP16->FP32: 2.749e11 tensor FLOPs in 1.149 ms; there, at a 1.778 GHz SM
// clock, 37.3% of the mma.sync peak while its tensor pipe was active 37.9% of the time).
TEST(Roofline, TensorRoofOfTheInstructionsTheKernelRan) {
  const double ops = 274877906944.0;
  const testing::Metrics base = testing::sol(37, 67, 47, 58, 68, 1.149e6) + testing::flops(0, 0, 0, ops) +
                                testing::level_bytes(1.8e9, 5e9, 4.6e9) + testing::h100_peaks();  // SM clock 1.755 GHz
  auto r = analyze_one(base + testing::tensor_path(testing::kMmaSyncFp16, ops, 360448)).roofline;
  ASSERT_TRUE(r);
  const PrecisionRoof& p = r->precisions.front();
  EXPECT_EQ(p.precision, "Tensor");
  ASSERT_TRUE(p.peak);
  EXPECT_NEAR(*p.peak, 360448 * 1.755e9, 1);
  EXPECT_EQ(p.mix, "mma.sync FP16->FP32 100%");
  EXPECT_NEAR(p.achieved, ops / 1.149e-3, 1e3);

  // Half the ops on wgmma, half on mma.sync: the peak of the mix is the harmonic one.
  r = analyze_one(base + testing::tensor_path(testing::kWgmmaBf16, ops / 2, 540672) +
                  testing::tensor_path(testing::kMmaSyncFp16, ops / 2, 360448))
          .roofline;
  EXPECT_NEAR(*r->precisions.front().peak, 2.0 / (1.0 / 540672 + 1.0 / 360448) * 1.755e9, 1);
  EXPECT_EQ(r->precisions.front().mix, "wgmma BF16 50%, mma.sync FP16->FP32 50%");

  // A path without its peak, or paths that miss part of the tensor FLOPs: no roof, no guess.
  r = analyze_one(base + testing::Metrics{{testing::kMmaSyncFp16, ops}}).roofline;
  EXPECT_FALSE(r->precisions.front().peak);
  EXPECT_FALSE(r->attainable);
  r = analyze_one(base + testing::tensor_path(testing::kMmaSyncFp16, ops / 2, 360448)).roofline;
  EXPECT_FALSE(r->precisions.front().peak);
}

// On a chip without one of the sets' tensor counters (Ada and Ampere have no
// sm__ops_path_tensor_src_fp16, the capture leaves it out), the tensor FLOPs are unknown, not
// the sum of the other precisions (0), and a kernel doing tensor work gets no roofline point.
TEST(TensorCores, MissingTensorCountersMakeTheFlopsUnknown) {
  testing::Metrics ada = testing::flops(1e9, 0, 0, 5e11) + testing::level_bytes(1e9, 1e9, 1e10) + testing::h100_peaks();
  std::erase_if(ada, [](const auto& m) { return m.first == "sm__ops_path_tensor_src_fp16.sum"; });
  const auto busy = analyze_one(
      ada + testing::Metrics{{"sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active", 80}});
  ASSERT_TRUE(busy.tensor);
  EXPECT_TRUE(busy.tensor->ops_incomplete);
  EXPECT_TRUE(busy.tensor->ops.empty());
  EXPECT_EQ(busy.tensor->float_ops, 0);
  EXPECT_FALSE(busy.tensor->half_math_without_tensor);
  EXPECT_FALSE(busy.roofline);
  // No tensor work: the FP32 roofline stands.
  const auto idle = analyze_one(
      ada + testing::Metrics{{"sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active", 0}});
  ASSERT_TRUE(idle.roofline);
  EXPECT_EQ(idle.roofline->precisions.front().precision, "FP32");
}

TEST(GpuSamples, StatisticsAndOverlapWeightedBuckets) {
  TraceBuilder b;
  b.run(0, 100 * kMs);
  const std::string sm = "sm__cycles_active.avg.pct_of_peak_sustained_elapsed";
  // 20 samples of 1 ms, values 5, 10, ..., 100; and a bandwidth counter with 4 samples.
  for (int i = 0; i < 20; ++i) testing::add_sample(b.trace(), sm, i * kMs, (i + 1) * kMs, 5.0 * (i + 1));
  for (int i = 0; i < 4; ++i)
    testing::add_sample(b.trace(), "dram__bytes_read.sum.per_second", i * 5 * kMs, (i + 1) * 5 * kMs, 1e12);
  const auto g = summarize_gpu_samples(b.trace(), 10);
  ASSERT_EQ(g.size(), 1u);
  EXPECT_EQ(g[0].interval_ns, kMs);
  ASSERT_EQ(g[0].metrics.size(), 2u);
  const GpuMetricSeries& s = g[0].metrics[0];  // SM active comes first (table order)
  EXPECT_EQ(s.metric, sm);
  EXPECT_EQ(s.label, "SM active");
  EXPECT_DOUBLE_EQ(s.mean, 52.5);
  EXPECT_DOUBLE_EQ(s.p50, 52.5);
  EXPECT_DOUBLE_EQ(s.p95, 95);  // nearest rank: the 19th of 20
  EXPECT_DOUBLE_EQ(s.max, 100);
  ASSERT_EQ(s.buckets.size(), 10u);     // 10 buckets of 2 ms
  EXPECT_DOUBLE_EQ(s.buckets[0], 7.5);  // samples 5 and 10
  EXPECT_DOUBLE_EQ(s.buckets[9], 97.5);
  EXPECT_DOUBLE_EQ(g[0].metrics[1].buckets[3], 1e12);
}

TEST(GpuSamples, ValuesThatCouldNotBeComputedAreAbsent) {
  TraceBuilder b;
  testing::add_sample(b.trace(), "gpm__sm_active.pct", 0, kMs, 40);
  testing::add_sample(b.trace(), "gpm__sm_active.pct", kMs, 2 * kMs, std::nan(""));
  testing::add_sample(b.trace(), "gpm__sm_active.pct", 2 * kMs, 3 * kMs, 60);
  const auto g = summarize_gpu_samples(b.trace(), 20);
  ASSERT_EQ(g.size(), 1u);
  EXPECT_EQ(g[0].metrics[0].samples, 2u);
  EXPECT_DOUBLE_EQ(g[0].metrics[0].mean, 50);
  EXPECT_EQ(g[0].metrics[0].label, "SM active");  // GPM's names are known
}

TEST(GpuSamples, NoMoreBucketsThanSamples) {
  TraceBuilder b;
  for (int i = 0; i < 3; ++i) testing::add_sample(b.trace(), "x", i * kMs, (i + 1) * kMs, i);
  const auto g = summarize_gpu_samples(b.trace(), 20);
  EXPECT_EQ(g[0].metrics[0].buckets.size(), 3u);
  EXPECT_EQ(g[0].metrics[0].label, "x");
}

}  // namespace
}  // namespace gpuscope::analysis
