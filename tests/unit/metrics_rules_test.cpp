// The hardware-metric rules (src/analysis/rules/{far_from_roofline,bank_conflicts,memory_bound,
// dominant_stall,occupancy_gap,no_tensor_cores}.cpp): each fires on a synthesized trace with its
// pattern, with the estimate docs/rules.md describes, and stays silent on a clean one.
#include <gtest/gtest.h>

#include <optional>

#include "find_finding.h"
#include "gpuscope/analysis_rules.h"
#include "metrics_trace.h"
#include "time_units.h"

namespace gpuscope::analysis {
namespace {

using testing::find;
using testing::kMs;
using testing::Metrics;
using testing::TraceBuilder;
const char* const kMetricRules[] = {"far_from_roofline", "shared_bank_conflicts",  "memory_bound_kernel",
                                    "dominant_stall",    "achieved_occupancy_gap", "fp16_without_tensor_cores"};

// One kernel, 10 launches of 2 ms (20 ms of kernel time) in a 100 ms run, each measured with `m`.
std::vector<Finding> rules_for(const Metrics& m) {
  TraceBuilder b;
  b.run(0, 100 * kMs);
  testing::launches(b, "kern", 10, 1 * kMs, 2 * kMs, m);
  return run_rules(b.trace());
}

// FP32 at 2 TFLOP/s on 2 FLOP/byte of DRAM traffic: 29.85 % of the 6.7 TFLOP/s DRAM roof.
Metrics memory_side_roofline(double measured_ns = 1e6) {
  return testing::sol(20, 45, 45, 30, 20, measured_ns) + testing::flops(1e9, 0, 0, 0) +
         testing::level_bytes(1e9, 1.2e9, 4e9) + testing::h100_peaks();
}

TEST(MetricRules, NoMetricsNoMetricFindings) {
  const auto fs = rules_for({});
  for (const char* rule : kMetricRules) EXPECT_FALSE(find(fs, rule)) << rule;
}

// tail_effect: 2200 blocks of 128 threads = 1.04 waves (trace_builder's config: 16 blocks/SM).
// Latency-bound by its metrics, the equal-waves estimate stands; throughput-bound, a partial
// wave runs faster per block, so the kernel is not estimated (measured on an H200: docs/rules.md).
std::optional<Finding> tail_with(const Metrics& m) {
  TraceBuilder b;
  b.run(0, 100 * kMs);
  testing::launches(b, "kern", 10, 1 * kMs, 2 * kMs, m);
  testing::set_grid(b.trace(), "kern", 2200);
  return find(run_rules(b.trace()), "tail_effect");
}

TEST(RuleTail, EstimatedForLatencyBoundKernelsOnly) {
  const auto latency = tail_with(testing::sol(5, 1, 1, 1, 1, 2e6));
  ASSERT_TRUE(latency);
  EXPECT_NEAR(static_cast<double>(*latency->saving_ns), 20e6 * (2 - 2200.0 / 2112) / 2, 10.0);
  EXPECT_FALSE(tail_with(testing::sol(84, 1, 1, 1, 1, 2e6)));      // compute-bound: not estimated
  EXPECT_FALSE(tail_with(testing::sol(20, 75, 75, 30, 20, 2e6)));  // memory-bound: not estimated
  EXPECT_TRUE(tail_with({}));                                      // no metrics: the equal-waves estimate, as before
}

TEST(RuleFarFromRoofline, UpperBoundIsKernelTimeTimesTheMissingFraction) {
  const auto f = find(rules_for(memory_side_roofline()), "far_from_roofline");
  ASSERT_TRUE(f);
  // 20 ms x (1 - 2 / 6.7)
  EXPECT_NEAR(static_cast<double>(*f->saving_ns), 20e6 * (1 - 2 / 6.7), 1.0);
  EXPECT_NE(f->evidence[0].find("bound by DRAM bandwidth; memory-bound region"), std::string::npos) << f->evidence[0];
  EXPECT_NE(f->estimate.find("upper bound"), std::string::npos);
  EXPECT_NE(f->advice.find("Memory-bound region"), std::string::npos);
  EXPECT_TRUE(f->shares_time_with.empty());
}

// A wgmma GEMM at 30 % of its tensor roof, far right of every ridge: compute-bound, tensor advice.
TEST(RuleFarFromRoofline, TensorKernelsAreJudgedAgainstTheirInstructionsPeak) {
  const double ops = 0.3 * 540672 * 1.755e9 * 1e-3;  // 30 % of the wgmma peak for 1 ms
  const Metrics gemm = testing::sol(60, 30, 10, 20, 30, 1e6) + testing::flops(0, 0, 0, ops) +
                       testing::level_bytes(1e8, 5e8, 5e8) + testing::h100_peaks() +
                       testing::tensor_path(testing::kWgmmaBf16, ops, 540672);
  const auto f = find(rules_for(gemm), "far_from_roofline");
  ASSERT_TRUE(f);
  EXPECT_NEAR(static_cast<double>(*f->saving_ns), 20e6 * 0.7, 1e3);
  EXPECT_NE(f->evidence[0].find("Tensor at"), std::string::npos) << f->evidence[0];
  EXPECT_NE(f->evidence[0].find("bound by Tensor peak; compute-bound region"), std::string::npos) << f->evidence[0];
  EXPECT_NE(f->advice.find("wgmma"), std::string::npos) << f->advice;
  EXPECT_EQ(f->advice.find("use tensor cores for matrix products"), std::string::npos) << f->advice;
}

TEST(RuleFarFromRoofline, SilentNearTheRoofAndWithoutPeaks) {
  // Measured in 0.5 ms: 4 TFLOP/s, 59.7 % of the roof.
  EXPECT_FALSE(find(rules_for(memory_side_roofline(5e5)), "far_from_roofline"));
  const Metrics no_peaks = testing::flops(1e9, 0, 0, 0) + testing::level_bytes(1e9, 1.2e9, 4e9);
  EXPECT_FALSE(find(rules_for(no_peaks), "far_from_roofline"));
}

TEST(RuleBankConflicts, ShareOfSmCyclesTimesKernelTime) {
  // 13.2 M conflicts / (1 M active cycles x 132 SMs) = 10 % of the SM cycles: 2 ms of 20 ms.
  const Metrics m = testing::memory(1e8, 1e8, 50, 80, 13.2e6, 1e6) +
                    testing::stalls({{"short_scoreboard", 5}, {"long_scoreboard", 3}}, 40);
  const auto fs = rules_for(m);
  const auto f = find(fs, "shared_bank_conflicts");
  ASSERT_TRUE(f);
  EXPECT_NEAR(static_cast<double>(*f->saving_ns), 2e6, 1.0);
  EXPECT_NE(f->evidence[0].find("short_scoreboard stalls 62.5%"), std::string::npos) << f->evidence[0];
  EXPECT_FALSE(find(rules_for(testing::memory(1e8, 1e8, 50, 80, 1e5, 1e6)), "shared_bank_conflicts"));
}

// Warps that wait on the shared-memory pipe only 6 % of their time (short_scoreboard 1.5 +
// mio_throttle 1 of 41 cycles per instruction) lose at most that share, not the 10 % of SM
// cycles the extra wavefronts take.
TEST(RuleBankConflicts, TheWarpsWaitShareCapsTheEstimate) {
  const Metrics m = testing::memory(1e8, 1e8, 50, 80, 13.2e6, 1e6) +
                    testing::stalls({{"short_scoreboard", 1.5}, {"mio_throttle", 1}, {"long_scoreboard", 37.5}}, 40);
  const auto f = find(rules_for(m), "shared_bank_conflicts");
  ASSERT_TRUE(f);
  EXPECT_NEAR(static_cast<double>(*f->saving_ns), 20e6 * 2.5 / 41, 1.0);
  EXPECT_NE(f->evidence[0].find("wait on the shared-memory pipe 6.1% of their time"), std::string::npos)
      << f->evidence[0];
  EXPECT_EQ(f->estimate.find("upper bound"), std::string::npos);
  // Without the stalls set only the wavefront share is known: an upper bound, and it says so.
  const auto bound = find(rules_for(testing::memory(1e8, 1e8, 50, 80, 13.2e6, 1e6)), "shared_bank_conflicts");
  ASSERT_TRUE(bound);
  EXPECT_NEAR(static_cast<double>(*bound->saving_ns), 2e6, 1.0);
  EXPECT_NE(bound->estimate.find("upper bound"), std::string::npos);
}

TEST(RuleBankConflicts, NamesTheRoofRuleWhenBothCountTheSameKernel) {
  const auto fs = rules_for(memory_side_roofline() + testing::memory(1e9, 0, 50, 80, 13.2e6, 1e6));
  const auto roof = find(fs, "far_from_roofline");
  const auto conflicts = find(fs, "shared_bank_conflicts");
  ASSERT_TRUE(roof && conflicts);
  EXPECT_EQ(roof->shares_time_with, std::vector<std::string>{"shared_bank_conflicts"});
  EXPECT_EQ(conflicts->shares_time_with, std::vector<std::string>{"far_from_roofline"});
}

TEST(RuleMemoryBound, FiresOnMemoryVerdictWithTheBusiestUnitsAdvice) {
  const auto f = find(rules_for(testing::sol(20, 85, 85, 50, 30, 2e6) + testing::memory(4e9, 2e9, 20, 35, 0, 2e6)),
                      "memory_bound_kernel");
  ASSERT_TRUE(f);
  EXPECT_FALSE(f->saving_ns);
  EXPECT_NE(f->evidence[0].find("busiest unit DRAM at 85.0%"), std::string::npos) << f->evidence[0];
  EXPECT_NE(f->evidence[0].find("L2 hit rate 35.0%"), std::string::npos);
  EXPECT_NE(f->advice.find("DRAM-bound"), std::string::npos);
  EXPECT_FALSE(find(rules_for(testing::sol(85, 30, 30, 20, 10, 2e6)), "memory_bound_kernel"));
  EXPECT_FALSE(find(rules_for(testing::sol(30, 50, 50, 20, 10, 2e6)), "memory_bound_kernel"));  // latency
}

TEST(RuleDominantStall, FiresWithGuidanceWhenIssueSlotsAreIdle) {
  const Metrics stalls = testing::stalls({{"long_scoreboard", 6}, {"barrier", 2}, {"wait", 2}}, 20);
  const auto f = find(rules_for(testing::sol(20, 40, 40, 30, 20, 2e6) + stalls), "dominant_stall");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->title, "Warps mostly stall on long_scoreboard");
  EXPECT_NE(f->evidence[0].find("long_scoreboard is 60.0% of the stall cycles (6.0 of 11.0 cycles"), std::string::npos)
      << f->evidence[0];
  EXPECT_NE(f->advice.find("coalesce global accesses"), std::string::npos);
}

TEST(RuleDominantStall, SilentWhenSchedulersAreBusyAtTheRoofSpreadOrBenign) {
  EXPECT_FALSE(find(rules_for(testing::stalls({{"long_scoreboard", 6}, {"wait", 2}}, 70)), "dominant_stall"));
  EXPECT_FALSE(find(rules_for(testing::sol(20, 88, 88, 30, 20, 2e6) + testing::stalls({{"long_scoreboard", 6}}, 20)),
                    "dominant_stall"));
  EXPECT_FALSE(
      find(rules_for(testing::stalls({{"long_scoreboard", 3}, {"barrier", 3}, {"wait", 3}}, 20)), "dominant_stall"));
  EXPECT_FALSE(find(rules_for(testing::stalls({{"not_selected", 8}, {"wait", 2}}, 50)), "dominant_stall"));
}

TEST(RuleOccupancyGap, SmallGridExplainedAndSilentWhenClose) {
  const auto f = find(rules_for(testing::occupancy(6.1, 3.9)), "achieved_occupancy_gap");
  ASSERT_TRUE(f);
  EXPECT_FALSE(f->saving_ns);
  EXPECT_NE(f->evidence[0].find("achieved occupancy 6.1% against 100.0% theoretical"), std::string::npos)
      << f->evidence[0];
  EXPECT_NE(f->advice.find("Grid smaller than one wave"), std::string::npos);
  EXPECT_FALSE(find(rules_for(testing::occupancy(90, 57.6)), "achieved_occupancy_gap"));
  EXPECT_FALSE(find(rules_for(testing::occupancy(6.1, 3.9) + testing::sol(90, 20, 20, 20, 20, 2e6)),
                    "achieved_occupancy_gap"));  // at the SM roof
}

TEST(RuleNoTensorCores, MatrixIntensityFp16WithoutTensorOps) {
  const auto f = find(rules_for(testing::flops(1e5, 0, 1e9, 0) + testing::level_bytes(1e8, 2e8, 4e8)),
                      "fp16_without_tensor_cores");
  ASSERT_TRUE(f);
  EXPECT_NE(f->evidence[0].find("2.0 GFLOP of FP16 math per launch"), std::string::npos) << f->evidence[0];
  EXPECT_NE(f->evidence[0].find("20.0 FLOP/byte at DRAM"), std::string::npos);
  EXPECT_FALSE(find(rules_for(testing::flops(0, 0, 1e9, 5e11) + testing::level_bytes(1e8, 2e8, 4e8)),
                    "fp16_without_tensor_cores"));
  EXPECT_FALSE(
      find(rules_for(testing::flops(0, 0, 1e9, 0) + testing::level_bytes(4e9, 4e9, 4e9)), "fp16_without_tensor_cores"));
}

TEST(MetricRules, SmallKernelsAreNotJudged) {
  // A memory-bound kernel with 5 % of the kernel time next to a clean one with 95 %.
  TraceBuilder b;
  b.run(0, 100 * kMs);
  const TimeNs t = testing::launches(b, "big", 19, 1 * kMs, 2 * kMs, testing::sol(85, 30, 30, 20, 10, 2e6));
  testing::launches(b, "small", 1, t, 2 * kMs, testing::sol(20, 85, 85, 50, 30, 2e6));
  EXPECT_FALSE(find(run_rules(b.trace()), "memory_bound_kernel"));
}

}  // namespace
}  // namespace gpuscope::analysis
