// launch_bound on a synthesized trace whose numbers mirror the H200 captures of
// rule_patterns --pattern launch (rp_launch / rp_launch_fixed, 20 iterations of
// 1000 kernels): stream launches take 5.87 us on the host with 0.61 us of loop
// overhead between them, each ~1.67 us kernel starts 7.83 us after its call
// started, so kernels start 6.48 us apart and the GPU idles 4.8 us per kernel;
// the loop measured 129.6 ms. Replayed from a graph the same iteration took
// 3.30 ms: cudaGraphLaunch 1.684 us per node on the host, first node 1.398 us
// x nodes after the call started, nodes 93 ns apart (loop 66.0 ms, saving 63.7
// ms; the rule estimated 95.7 ms before and 66.2 ms now on those captures: docs/rules.md).
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>

#include "find_finding.h"
#include "gpuscope/analysis_rules.h"
#include "span_checks.h"
#include "time_units.h"
#include "trace_builder.h"

namespace gpuscope::analysis {
namespace {

using testing::find;
// The iterations are steps: these tests check the replay over all of them (whole_run_rules).
using testing::kUs;
using testing::TraceBuilder;
using testing::whole_run_rules;
constexpr TimeNs kCall = 5870, kLoop = 610, kStartAfterCall = 7830, kKernel = 1670;  // ns, from rp_launch
constexpr int kIters = 5, kNodes = 200;

// kIters iterations of kNodes stream launches, then a cudaStreamSynchronize; returns the builder.
// host_work_at: launch index after which 100 us of host work sits (-1: none).
// call_ns: host time of each launch call (the H200 capture's by default).
TraceBuilder stream_launches(int host_work_at = -1, TimeNs call_ns = kCall) {
  TraceBuilder b;
  b.run(1, 50'000 * kUs);
  TimeNs t = 1000 * kUs;
  for (int i = 0; i < kIters; ++i) {
    const TimeNs t0 = t;
    TimeNs last_end = 0;
    for (int k = 0; k < kNodes; ++k) {
      const uint32_t c = b.api("cudaLaunchKernel", t, t + call_ns);
      b.kernel("spin", t + kStartAfterCall, t + kStartAfterCall + kKernel, c);
      last_end = t + kStartAfterCall + kKernel;
      t += call_ns + kLoop + (k == host_work_at ? 100 * kUs : 0);
    }
    b.api("cudaStreamSynchronize", t, last_end + 2 * kUs);
    t = last_end + 10 * kUs;
    b.range("iteration", t0, t);
  }
  return b;
}

TEST(RuleLaunchBound, ReplaysEachIterationAsOneGraphWithH200NodeCosts) {
  TraceBuilder b = stream_launches();
  const auto f = find(whole_run_rules(b.trace()), "launch_bound");
  ASSERT_TRUE(f);
  // Per iteration, stream launches: the last kernel ends (kNodes-1) x 6.48 us + 7.83 + 1.67 us after the first call.
  const TimeNs before = (kNodes - 1) * (kCall + kLoop) + kStartAfterCall + kKernel;
  // Graph: first node after kNodes x 1.398 us, then kernels 93 ns apart (GPU-bound: host needs kNodes x 1.684 us).
  const TimeNs after = kNodes * 1398 + kNodes * kKernel + (kNodes - 1) * 93;
  // Within 3.02 us per iteration: the replay measures launch latency from the later of call start and
  // the previous kernel's end (retime.cpp), so the last kernel of each stream-launched iteration, queued
  // 3.02 us behind its predecessor when its call started, replays that much early.
  EXPECT_NEAR(static_cast<double>(*f->saving_ns), kIters * static_cast<double>(before - after),
              kIters * static_cast<double>(kStartAfterCall + kKernel - kCall - kLoop));
  // The capture's ratio: 3.30 ms / 6.48 ms per iteration = 0.51; here the same shape.
  EXPECT_NEAR(static_cast<double>(after) / before, 0.49, 0.03);
  EXPECT_NE(f->estimate.find("NVIDIA H200 defaults"), std::string::npos);
  EXPECT_NE(f->evidence[1].find("4.79 us per kernel"), std::string::npos);  // (6.48 - 1.67 us) x 199/200 of idle GPU
  EXPECT_NE(f->evidence[2].find("5 stretches"), std::string::npos);
  // Spans: the 5 stretches, each an iteration's first launch call to its last kernel's end
  // (the NVTX range closes 10 us after that kernel).
  testing::expect_spans_in_run(*f, b.trace());
  testing::SpanTimes stretches;
  for (const NvtxRange& r : b.trace().nvtx_ranges) stretches.emplace_back(r.start, r.end - 10 * kUs);
  EXPECT_EQ(testing::span_times(*f), stretches);
}

// Graph launch costs the driver's CPU time like a launch call does: on a host whose launch
// calls take half as long, the default per-node host costs are halved too (the GPU gap is not).
TEST(RuleLaunchBound, DefaultGraphCostsScaleWithTheTracesLaunchCalls) {
  const auto f = find(run_rules(stream_launches(-1, kCall / 2).trace()), "launch_bound");
  ASSERT_TRUE(f);
  EXPECT_NE(f->estimate.find("0.84 us of cudaGraphLaunch on the host, 0.70 us before the first node starts, 0.093 us "
                             "between nodes (NVIDIA H200 defaults x 0.50"),
            std::string::npos)
      << f->estimate;
}

TEST(RuleLaunchBound, HostWorkBetweenLaunchesSplitsTheStretchAndIsKept) {
  const auto whole = find(whole_run_rules(stream_launches().trace()), "launch_bound");
  const auto split = find(whole_run_rules(stream_launches(99).trace()), "launch_bound");
  ASSERT_TRUE(whole && split);
  EXPECT_NE(split->evidence[2].find("10 stretches of consecutive launches (largest 100)"), std::string::npos)
      << split->evidence[2];
  EXPECT_EQ(split->spans.size(), 10u);  // one per stretch: the host work splits each iteration in two
  // Without the fix the 100 us of host work sits on the critical path with the GPU idle. With it,
  // the host work runs while the first graph's 100 kernels run, and the second graph's submission
  // (100 x 1.398 us) overlaps them too, so the split trace saves more per iteration:
  // (1299 + 100) - 584 = 815 us instead of 1299 - 632 = 667 us (148 us more, minus the 3 us above).
  EXPECT_NEAR(static_cast<double>(*split->saving_ns - *whole->saving_ns), kIters * 148.0 * kUs, kIters * 4.0 * kUs);
}

TEST(RuleLaunchBound, UsesTheTracesOwnGraphLaunchCostsAndNeverFiresOnGraphReplay) {
  TraceBuilder b = stream_launches();
  // One graph launch of 100 nodes after the loop: 3 us host per node, first node after 2 us per node, 0.5 us apart.
  const TimeNs g0 = 40'000 * kUs;
  const uint32_t c = b.api("cudaGraphLaunch", g0, g0 + 300 * kUs);
  for (int k = 0; k < 100; ++k) {
    const TimeNs s = g0 + 200 * kUs + k * (kKernel + 500);
    b.kernel("spin", s, s + kKernel, c);
    b.trace().kernels.back().graph_id = 1;
  }
  b.api("cudaStreamSynchronize", g0 + 300 * kUs, g0 + 400 * kUs);
  const auto f = find(run_rules(b.trace()), "launch_bound");
  ASSERT_TRUE(f);
  EXPECT_NE(f->estimate.find("3.00 us of cudaGraphLaunch on the host, 2.00 us before the first node starts, "
                             "0.500 us between nodes (measured on this trace's 1 graph launches)"),
            std::string::npos);

  TraceBuilder fixed;  // the fixed variant: every iteration one graph launch (graph kernels are not launch-bound)
  fixed.run(1, 50'000 * kUs);
  for (int i = 0; i < kIters; ++i) {
    const TimeNs t0 = 1000 * kUs + i * 4000 * kUs;
    const uint32_t g = fixed.api("cudaGraphLaunch", t0, t0 + kNodes * 1684);
    for (int k = 0; k < kNodes; ++k) {
      const TimeNs s = t0 + kNodes * 1398 + k * (kKernel + 93);
      fixed.kernel("spin", s, s + kKernel, g);
      fixed.trace().kernels.back().graph_id = 1;
    }
    fixed.api("cudaStreamSynchronize", t0 + kNodes * 1684, t0 + 3300 * kUs);
  }
  EXPECT_FALSE(find(run_rules(fixed.trace()), "launch_bound"));
}

TEST(RuleLaunchBound, FewerThanFiftyLaunchesOrKernelsLongerThanTheirLaunchDoNotFire) {
  TraceBuilder b;
  b.run(1, 10'000 * kUs);
  TimeNs t = 100 * kUs;
  for (int k = 0; k < 49; ++k, t += 10 * kUs)
    b.kernel("tiny", t + 8 * kUs, t + 10 * kUs, b.api("cudaLaunchKernel", t, t + 6 * kUs));
  b.api("cudaDeviceSynchronize", t, t + 5 * kUs);
  EXPECT_FALSE(find(run_rules(b.trace()), "launch_bound"));
  TraceBuilder slow;  // 500 launches of 20 us kernels: the GPU, not the launch, sets the pace
  slow.run(1, 100'000 * kUs);
  t = 100 * kUs;
  for (int k = 0; k < 500; ++k, t += 6 * kUs)
    slow.kernel("k", t + 100 * kUs + k * 14 * kUs, t + 120 * kUs + k * 14 * kUs,
                slow.api("cudaLaunchKernel", t, t + 5 * kUs));
  EXPECT_FALSE(find(run_rules(slow.trace()), "launch_bound"));
}

}  // namespace
}  // namespace gpuscope::analysis
