// Each rule on small synthesized traces: when it fires, what it estimates,
// and edge cases (empty trace, a single kernel, overlapping streams, clock ties).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <optional>

#include "analysis/rules/rule.h"
#include "find_finding.h"
#include "gpuscope/analysis_rules.h"
#include "span_checks.h"
#include "time_units.h"
#include "trace_builder.h"

namespace gpuscope::analysis {
namespace {

using testing::find;
using testing::kMs;
using testing::kUs;
using testing::span_times;
using testing::SpanTimes;
using testing::TraceBuilder;

TEST(RulesEdge, EmptyTraceAndSingleKernelFireNothing) {
  EXPECT_TRUE(run_rules(Trace{}).empty());
  TraceBuilder b;
  b.run(1, 10 * kMs);
  b.kernel("k", 2 * kMs, 3 * kMs, b.api("cudaLaunchKernel", 1 * kMs, 1 * kMs + 10 * kUs));
  b.api("cudaDeviceSynchronize", 1 * kMs + 10 * kUs, 3 * kMs + 5 * kUs);
  EXPECT_TRUE(run_rules(b.trace()).empty());
}

// Every rule once, each in the file named after its id (src/analysis/rules/<id>.cpp).
TEST(RulesEdge, RegistryHasEveryRuleOnceInItsOwnFile) {
  std::vector<std::string> ids;
  for (const auto& rule : rules::all_rules()) ids.push_back(rule->id());
  ASSERT_FALSE(ids.empty());
  for (const std::string& id : ids)
    EXPECT_TRUE(std::filesystem::exists(std::string(GPUSCOPE_SOURCE_DIR) + "/src/analysis/rules/" + id + ".cpp")) << id;
  std::sort(ids.begin(), ids.end());
  EXPECT_EQ(std::unique(ids.begin(), ids.end()), ids.end());
}

// 5 iterations (NVTX "iteration"): cudaMalloc 1 ms, kernel 2 ms (waited for by a blocking copy), cudaFree 0.5 ms.
TraceBuilder allocating_loop(bool allocate) {
  TraceBuilder b;
  b.run(1, 30 * kMs);
  for (int i = 0; i < 5; ++i) {
    const TimeNs t0 = 1 * kMs + i * 5 * kMs;
    b.range("iteration", t0, t0 + 5 * kMs);
    if (allocate) b.api("cudaMalloc", t0, t0 + 1 * kMs);
    b.kernel("k", t0 + 1 * kMs + 10 * kUs, t0 + 3 * kMs,
             b.api("cudaLaunchKernel", t0 + 1 * kMs, t0 + 1 * kMs + 5 * kUs));
    b.copy(CopyKind::DtoH, MemoryKind::Pinned, 1 << 20, t0 + 3 * kMs, t0 + 3 * kMs + 50 * kUs,
           b.api("cudaMemcpy", t0 + 1 * kMs + 6 * kUs, t0 + 3 * kMs + 60 * kUs));
    if (allocate) b.api("cudaFree", t0 + 4 * kMs, t0 + 4 * kMs + 500 * kUs);
  }
  return b;
}

TEST(RuleAllocation, FiresOnTheRepeatedPartOnlyAndNotWhenFixed) {
  TraceBuilder b = allocating_loop(true);
  const auto fs = run_rules(b.trace());
  const auto f = find(fs, "allocation_in_loop");
  ASSERT_TRUE(f);
  // Iterations 2..5: 4 x (1 ms + 0.5 ms); the host work between calls is kept, so all of it is saved.
  EXPECT_EQ(*f->saving_ns, 4 * (1 * kMs + 500 * kUs));
  EXPECT_NE(f->evidence[0].find("instances 2..5 of NVTX range 'iteration'"), std::string::npos);
  // Spans: the cudaMalloc and cudaFree calls of iterations 2..5, not the first iteration's.
  testing::expect_spans_in_run(*f, b.trace());
  SpanTimes calls;
  for (int i = 1; i < 5; ++i) {
    const TimeNs t0 = 1 * kMs + i * 5 * kMs;
    calls.insert(calls.end(), {{t0, t0 + 1 * kMs}, {t0 + 4 * kMs, t0 + 4 * kMs + 500 * kUs}});
  }
  EXPECT_EQ(span_times(*f), calls);
  EXPECT_FALSE(find(run_rules(allocating_loop(false).trace()), "allocation_in_loop"));
}

TEST(RuleAllocation, WithoutNvtxTheSteadyStateStartsAfterTheFirstLaunch) {
  TraceBuilder b = allocating_loop(true);
  b.trace().nvtx_ranges.clear();
  const auto f = find(run_rules(b.trace()), "allocation_in_loop");
  ASSERT_TRUE(f);
  // After the first launch call: frees of iterations 1..4 and mallocs of 2..5 (the last free is after the last kernel).
  EXPECT_EQ(*f->saving_ns, 4 * (1 * kMs + 500 * kUs));
}

TEST(RulePageable, UsesMeasuredPinnedBandwidthOfTheSameDirection) {
  TraceBuilder b;
  b.run(1, 100 * kMs);
  // Pinned HtoD: 100 MB in 2 ms = 50 GB/s. Pageable HtoD: 100 MB in 10 ms, three times.
  b.copy(CopyKind::HtoD, MemoryKind::Pinned, 100'000'000, 2 * kMs, 4 * kMs, b.api("cudaMemcpy", 2 * kMs, 4 * kMs));
  for (int i = 0; i < 3; ++i) {
    const TimeNs t0 = 10 * kMs + i * 20 * kMs;
    b.copy(CopyKind::HtoD, MemoryKind::Pageable, 100'000'000, t0, t0 + 10 * kMs,
           b.api("cudaMemcpy", t0, t0 + 10 * kMs));
  }
  const auto f = find(run_rules(b.trace()), "pageable_copies");
  ASSERT_TRUE(f);
  EXPECT_EQ(*f->saving_ns, 3 * 8 * kMs);  // each 10 ms copy becomes 2 ms
  EXPECT_NE(f->estimate.find("measured"), std::string::npos);
  testing::expect_spans_in_run(*f, b.trace());  // the three pageable copies, not the pinned one
  EXPECT_EQ(span_times(*f), (SpanTimes{{10 * kMs, 20 * kMs}, {30 * kMs, 40 * kMs}, {50 * kMs, 60 * kMs}}));
}

// PyTorch's .cuda() of a pageable tensor calls cudaMemcpyAsync: recorded as async, yet the call
// holds the host until the data has gone through the driver's staging buffer, so making the copy
// faster shortens the call too.
TEST(RulePageable, AnAsyncCallOfAPageableCopyBlocksAndGetsItsSaving) {
  TraceBuilder b;
  b.run(1, 100 * kMs);
  for (int i = 0; i < 3; ++i) {
    const TimeNs t0 = 10 * kMs + i * 20 * kMs;
    b.copy(CopyKind::HtoD, MemoryKind::Pageable, 100'000'000, t0, t0 + 10 * kMs,
           b.api("cudaMemcpyAsync", t0, t0 + 10 * kMs), 7, /*async=*/true);
  }
  const auto f = find(run_rules(b.trace()), "pageable_copies");
  ASSERT_TRUE(f);
  EXPECT_EQ(*f->saving_ns, 3 * 8 * kMs);  // each 10 ms copy becomes 2 ms at the Gen5 default (50 GB/s)
}

TEST(RulePageable, FallsBackToTheLinkDefaultAndNeverSlowsACopyDown) {
  TraceBuilder b;
  b.run(1, 100 * kMs);
  // 250 MB in 20 ms (12.5 GB/s); Gen5 default 50 GB/s -> 5 ms. A tiny copy already faster than 50 GB/s stays.
  b.copy(CopyKind::DtoH, MemoryKind::Pageable, 250'000'000, 10 * kMs, 30 * kMs,
         b.api("cudaMemcpy", 10 * kMs, 30 * kMs));
  b.copy(CopyKind::DtoH, MemoryKind::Pageable, 1000, 40 * kMs, 40 * kMs + 10,
         b.api("cudaMemcpy", 40 * kMs, 40 * kMs + 10));
  const auto f = find(run_rules(b.trace()), "pageable_copies");
  ASSERT_TRUE(f);
  EXPECT_EQ(*f->saving_ns, 15 * kMs);
  EXPECT_NE(f->estimate.find("PCIe Gen5"), std::string::npos);
}

TEST(RuleExcessiveSync, SyncAfterEveryLaunchButTheLastIsRemovable) {
  TraceBuilder b;
  b.run(1, 5 * kMs);
  TimeNs t = 1 * kMs;
  for (int i = 0; i < 10; ++i) {  // launch 10 us, kernel 100 us, sync until it ends, 100 us host work
    const uint32_t c = b.api("cudaLaunchKernel", t, t + 10 * kUs);
    b.kernel("k", t + 10 * kUs, t + 110 * kUs, c);
    b.api("cudaDeviceSynchronize", t + 10 * kUs, t + 110 * kUs);
    t += 210 * kUs;
  }
  const auto f = find(run_rules(b.trace()), "excessive_sync");
  ASSERT_TRUE(f);
  // Without the first 9 syncs the host issues a launch every 110 us; the GPU (100 us each) keeps up,
  // and the last sync waits for the last kernel: 9 x 100 us saved.
  EXPECT_EQ(*f->saving_ns, 900 * kUs);
  testing::expect_spans_in_run(*f, b.trace());  // the 9 removable syncs: all but the last
  SpanTimes syncs;
  for (int i = 0; i < 9; ++i)
    syncs.emplace_back(1 * kMs + i * 210 * kUs + 10 * kUs, 1 * kMs + i * 210 * kUs + 110 * kUs);
  EXPECT_EQ(span_times(*f), syncs);
}

// Ten launches of kernel `k`, 1.5 ms apart, each running 100 us but the fifth (at kSlowLaunch),
// 1000 us.
constexpr TimeNs kSlowLaunch = 1 * kMs + 4 * 1500 * kUs;
void ten_launches_one_slow(TraceBuilder& b) {
  b.run(1, 20 * kMs);
  for (int i = 0; i < 10; ++i) {
    const TimeNs t0 = 1 * kMs + i * 1500 * kUs, len = t0 == kSlowLaunch ? 1000 * kUs : 100 * kUs;
    b.kernel("k", t0 + 10 * kUs, t0 + 10 * kUs + len, b.api("cudaLaunchKernel", t0, t0 + 5 * kUs));
  }
}

TEST(RuleUnstable, OneSlowInstanceOutOfTen) {
  TraceBuilder b;
  ten_launches_one_slow(b);
  const auto f = find(run_rules(b.trace()), "unstable_timings");
  ASSERT_TRUE(f);
  EXPECT_EQ(*f->saving_ns, 900 * kUs);
  testing::expect_spans_in_run(*f, b.trace());  // the instances of the unstable kernel: all 10 launches
  ASSERT_EQ(f->spans.size(), 10u);
  EXPECT_EQ(f->spans[4].end - f->spans[4].start, 1000 * kUs);
}

// DDP overlaps gradient all-reduces with backward compute: a launch slower beside an NCCL
// kernel on its GPU is sharing the SMs by design, not unstable.
TEST(RuleUnstable, LaunchesBesideACollectiveAreLeftOut) {
  TraceBuilder b;
  ten_launches_one_slow(b);
  b.kernel("ncclDevKernel_AllReduce_Sum_f32_RING_LL", kSlowLaunch, kSlowLaunch + 1200 * kUs,
           b.api("cudaLaunchKernel", kSlowLaunch - 5 * kUs, kSlowLaunch - 2 * kUs), 2);
  EXPECT_FALSE(find(run_rules(b.trace()), "unstable_timings"));
  // On another GPU the collective shares nothing with it: the slow launch is unstable again.
  for (Kernel& k : b.trace().kernels)
    if (b.trace().strings.get(k.name).rfind("nccl", 0) == 0) k.device = 1;
  const auto f = find(run_rules(b.trace()), "unstable_timings");
  ASSERT_TRUE(f);
  EXPECT_EQ(*f->saving_ns, 900 * kUs);
}

// One library GEMM kernel serving two layer sizes in each step: 100 us and 300 us, every step.
// Judged against the same launch in the other steps it is stable; one slow launch is not.
TEST(RuleUnstable, EachLaunchIsJudgedAgainstTheSameLaunchInTheOtherSteps) {
  const auto trace = [](TimeNs slow_extra) {
    TraceBuilder b;
    b.run(1, 20 * kMs);
    for (int i = 0; i < 8; ++i) {
      const TimeNs t0 = 1 * kMs + i * 2 * kMs;
      b.range("step", t0, t0 + 2 * kMs);
      for (int j = 0; j < 2; ++j) {
        const TimeNs at = t0 + j * 700 * kUs, len = (j == 0 ? 100 : 300) * kUs + (i == 5 && j == 1 ? slow_extra : 0);
        b.kernel("gemm", at + 10 * kUs, at + 10 * kUs + len, b.api("cudaLaunchKernel", at, at + 5 * kUs));
      }
    }
    return b.trace();
  };
  EXPECT_FALSE(find(run_rules(trace(0)), "unstable_timings"));  // shape CV ~52%, but each launch steady
  const auto f = find(run_rules(trace(600 * kUs)), "unstable_timings");
  ASSERT_TRUE(f);
  EXPECT_EQ(*f->saving_ns, 600 * kUs);  // steps 2..8: the slow launch against the other steps' 300 us
  EXPECT_NE(f->evidence[0].find("against the same launch in the other steps"), std::string::npos) << f->evidence[0];
}

TEST(RuleIdleGaps, HostWorkWhileTheGpuIdlesButNotWhenAnotherStreamKeepsItBusy) {
  TraceBuilder b;
  b.run(1, 20 * kMs);
  b.kernel("a", 1 * kMs, 2 * kMs, b.api("cudaLaunchKernel", 990 * kUs, 995 * kUs), 1);
  b.kernel("a", 8 * kMs, 9 * kMs, b.api("cudaLaunchKernel", 7990 * kUs, 7995 * kUs), 1);  // 6 ms of host work between
  const auto f = find(run_rules(b.trace()), "gpu_idle_gaps");
  ASSERT_TRUE(f);
  EXPECT_EQ(*f->saving_ns, 6 * kMs - 5 * kUs);
  testing::expect_spans_in_run(*f, b.trace());
  EXPECT_EQ(span_times(*f),
            (SpanTimes{{2 * kMs, 8 * kMs}}));  // the gap itself: first kernel's end to the second's start
  b.kernel("b", 1500 * kUs, 8 * kMs, b.api("cudaLaunchKernel", 996 * kUs, 999 * kUs), 2);  // overlapping stream
  EXPECT_FALSE(find(run_rules(b.trace()), "gpu_idle_gaps"));
}

TEST(RuleCopyOverlap, SerialCopyThenKernelPerIterationButNotWhenAlreadyOverlapped) {
  TraceBuilder b;
  b.run(1, 20 * kMs);
  for (int i = 0; i < 3; ++i) {  // per iteration: 2 ms copy, then a 1 ms kernel on the same stream
    const TimeNs t0 = 1 * kMs + i * 4 * kMs;
    b.range("iteration", t0, t0 + 4 * kMs);
    b.copy(CopyKind::HtoD, MemoryKind::Pinned, 1 << 26, t0, t0 + 2 * kMs, b.api("cudaMemcpyAsync", t0, t0 + 10 * kUs),
           7, true);
    b.kernel("k", t0 + 2 * kMs, t0 + 3 * kMs, b.api("cudaLaunchKernel", t0 + 20 * kUs, t0 + 30 * kUs));
  }
  const auto f = find(run_rules(b.trace()), "copies_not_overlapped");
  ASSERT_TRUE(f);
  EXPECT_EQ(*f->saving_ns, 2 * 1 * kMs);        // steady instances 2 and 3: min(2 ms, 1 ms) each
  testing::expect_spans_in_run(*f, b.trace());  // the copies of steady instances 2 and 3
  EXPECT_EQ(span_times(*f), (SpanTimes{{5 * kMs, 7 * kMs}, {9 * kMs, 11 * kMs}}));

  TraceBuilder o;  // the same work with the kernel already running under the copy
  o.run(1, 20 * kMs);
  for (int i = 0; i < 3; ++i) {
    const TimeNs t0 = 1 * kMs + i * 4 * kMs;
    o.range("iteration", t0, t0 + 4 * kMs);
    o.copy(CopyKind::HtoD, MemoryKind::Pinned, 1 << 26, t0, t0 + 2 * kMs, o.api("cudaMemcpyAsync", t0, t0 + 10 * kUs),
           8, true);
    o.kernel("k", t0 + 500 * kUs, t0 + 1500 * kUs, o.api("cudaLaunchKernel", t0 + 20 * kUs, t0 + 30 * kUs));
  }
  EXPECT_FALSE(find(run_rules(o.trace()), "copies_not_overlapped"));
}

TEST(RuleTail, PartialLastWaveAndNotForWholeWaves) {
  // 128 threads, 32 regs: 16 blocks/SM x 132 SMs = 2112 slots. 2200 blocks = 1.04 waves: the second
  // wave holds 88 blocks (4 %), so half the SM time of 2 waves is idle slots: 10 ms x (2 - 1.04) / 2.
  TraceBuilder b;
  b.run(1, 20 * kMs);
  b.kernel("k", 1 * kMs, 11 * kMs, b.api("cudaLaunchKernel", 900 * kUs, 910 * kUs));
  b.trace().kernels[0].grid[0] = 2200;
  const auto f = find(run_rules(b.trace()), "tail_effect");
  ASSERT_TRUE(f);
  EXPECT_NEAR(*f->saving_ns / 1e6, 10.0 * (2 - 2200.0 / 2112) / 2, 0.001);
  testing::expect_spans_in_run(*f, b.trace());
  EXPECT_EQ(span_times(*f), (SpanTimes{{1 * kMs, 11 * kMs}}));  // the kernel's launch
  b.trace().kernels[0].grid[0] = 2 * 2112;                      // exactly 2 waves
  EXPECT_FALSE(find(run_rules(b.trace()), "tail_effect"));
}

TEST(RuleOccupancy, NamesTheLimiterAndGivesNoTimeEstimate) {
  TraceBuilder b;
  b.run(1, 20 * kMs);
  b.kernel("heavy", 1 * kMs, 11 * kMs, b.api("cudaLaunchKernel", 900 * kUs, 910 * kUs));
  b.trace().kernels[0].registers_per_thread = 244;  // 2 blocks of 4 warps: 12.5 %
  const auto f = find(run_rules(b.trace()), "low_occupancy");
  ASSERT_TRUE(f);
  EXPECT_FALSE(f->saving_ns);
  ASSERT_EQ(f->evidence.size(), 1u);
  EXPECT_NE(f->evidence[0].find("limited by registers"), std::string::npos);
  EXPECT_NE(f->evidence[0].find("<= 168 regs/thread would fit 3 blocks/SM"), std::string::npos);
  testing::expect_spans_in_run(*f, b.trace());
  EXPECT_EQ(span_times(*f), (SpanTimes{{1 * kMs, 11 * kMs}}));
  b.trace().kernels[0].registers_per_thread = 32;  // 16 blocks of 4 warps: 100 %
  EXPECT_FALSE(find(run_rules(b.trace()), "low_occupancy"));
}

TEST(RuleSyncCopies, HostWorkAfterABlockingCopyCouldOverlapIt) {
  TraceBuilder b;
  b.run(1, 40 * kMs);
  for (int i = 0; i < 3; ++i) {  // 3 ms blocking copy, then 2 ms of host work, then the next copy
    const TimeNs t0 = 1 * kMs + i * 5 * kMs;
    b.copy(CopyKind::DtoH, MemoryKind::Pinned, 1 << 27, t0 + 10 * kUs, t0 + 3 * kMs,
           b.api("cudaMemcpy", t0, t0 + 3 * kMs));
  }
  const auto f = find(run_rules(b.trace()), "sync_copies");
  ASSERT_TRUE(f);
  // After copies 1 and 2: 2 ms of host work each. The host work after the last copy is not
  // counted: no later CUDA call bounds it, and the end of a run usually consumes the result.
  EXPECT_EQ(*f->saving_ns, 2 * kMs + 2 * kMs);
  testing::expect_spans_in_run(*f, b.trace());  // the three blocking calls
  EXPECT_EQ(span_times(*f), (SpanTimes{{1 * kMs, 4 * kMs}, {6 * kMs, 9 * kMs}, {11 * kMs, 14 * kMs}}));
}

TEST(RuleStartup, ContextCreationOverlappableWithHostWork) {
  TraceBuilder b;
  b.run(1, 500 * kMs);
  b.api("cudaGetDeviceCount", 1 * kMs, 1 * kMs + 5 * kUs);
  b.api("cudaMalloc", 300 * kMs, 400 * kMs);  // 100 ms: context creation after 299 ms of host work
  b.api("cudaMalloc", 400 * kMs, 400 * kMs + 50 * kUs);
  b.api("cudaMalloc", 401 * kMs, 401 * kMs + 50 * kUs);
  const auto f = find(run_rules(b.trace()), "startup_cost");
  ASSERT_TRUE(f);
  EXPECT_EQ(*f->saving_ns, 100 * kMs - 50 * kUs);
  // The start-up interval: the first CUDA call to the end of the context-creating cudaMalloc.
  testing::expect_spans_in_run(*f, b.trace());
  EXPECT_EQ(span_times(*f), (SpanTimes{{1 * kMs, 400 * kMs}}));

  TraceBuilder early;  // context created before any host work: nothing to overlap
  early.run(1, 500 * kMs);
  early.api("cudaMalloc", 1 * kMs, 101 * kMs);
  early.api("cudaMalloc", 101 * kMs, 101 * kMs + 50 * kUs);
  early.api("cudaMalloc", 102 * kMs, 102 * kMs + 50 * kUs);
  EXPECT_FALSE(find(run_rules(early.trace()), "startup_cost"));
}

TEST(RulesEdge, ClockTiesAndZeroLengthRecordsAreHarmless) {
  TraceBuilder b;
  b.run(1, 10 * kMs);
  const uint32_t c = b.api("cudaLaunchKernel", 1 * kMs, 1 * kMs);  // zero-length call
  b.kernel("k", 1 * kMs, 1 * kMs, c);                              // zero-length kernel at the same ns
  b.api("cudaMalloc", 1 * kMs, 2 * kMs);                           // same start as the launch
  b.copy(CopyKind::HtoD, MemoryKind::Pageable, 0, 2 * kMs, 2 * kMs, b.api("cudaMemcpy", 2 * kMs, 2 * kMs));
  EXPECT_NO_THROW(run_rules(b.trace()));
  EXPECT_FALSE(find(run_rules(b.trace()), "pageable_copies"));
}

}  // namespace
}  // namespace gpuscope::analysis
