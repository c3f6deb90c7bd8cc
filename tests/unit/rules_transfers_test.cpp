// many_tiny_transfers and large_result_copy: synthesized edge cases, the real
// captures in tests/data (tiny transfers must not fire there; the bsr_spmm result
// copy is judged on top of pageable_copies), and how overlapping savings are shown.
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>

#include "find_finding.h"
#include "gpuscope/analysis_rules.h"
#include "gpuscope/report.h"
#include "gpuscope/store.h"
#include "span_checks.h"
#include "time_units.h"
#include "trace_builder.h"

namespace gpuscope::analysis {
namespace {

using testing::find;
using testing::kMs;
using testing::kUs;
using testing::TraceBuilder;

// 5 iterations: a burst of `n` synchronous 4 KiB pinned HtoD copies (10 us calls, the 2 us copy
// 6 us into the call, 1 us of host work between calls), then a 100 us kernel that reads them.
// kernel_between: a kernel after every copy instead (each copy feeds its own kernel).
TraceBuilder tiny_copies(int n, bool large_copy, bool kernel_between = false) {
  TraceBuilder b;
  b.run(1, 100 * kMs);
  TimeNs t = 1 * kMs;
  if (large_copy) {  // 64 MiB in 1.25 ms: 53.7 GB/s measured for large pinned HtoD copies
    b.copy(CopyKind::HtoD, MemoryKind::Pinned, 64 << 20, t + 5 * kUs, t + 1255 * kUs,
           b.api("cudaMemcpy", t, t + 1260 * kUs));
    t += 2 * kMs;
  }
  for (int i = 0; i < 5; ++i) {
    for (int k = 0; k < n; ++k) {
      b.copy(CopyKind::HtoD, MemoryKind::Pinned, 4096, t + 6 * kUs, t + 8 * kUs, b.api("cudaMemcpy", t, t + 10 * kUs));
      t += 11 * kUs;
      if (kernel_between) {
        b.kernel("k", t + 5 * kUs, t + 7 * kUs, b.api("cudaLaunchKernel", t, t + 4 * kUs));
        t += 8 * kUs;
      }
    }
    b.kernel("k", t + 5 * kUs, t + 105 * kUs, b.api("cudaLaunchKernel", t, t + 4 * kUs));
    b.api("cudaDeviceSynchronize", t + 4 * kUs, t + 106 * kUs);
    t += 200 * kUs;
  }
  return b;
}

TEST(RuleTinyTransfers, BurstBecomesOneCopyAtTheMeasuredLargeCopyBandwidth) {
  TraceBuilder b = tiny_copies(50, true);
  const auto f = find(run_rules(b.trace()), "many_tiny_transfers");
  ASSERT_TRUE(f);
  // Per burst the host path was 50 x 10 us calls + 49 x 1 us between them = 549 us. Batched: one call
  // (6 us to the copy, 2 us fixed + 200 KiB at 53.7 GB/s = 3.8 us, 2 us after) + the 49 us of host work.
  const double bps = (64 << 20) / 1.25e-3, batched = 6e3 + 2e3 + 50 * 4096 / bps * 1e9 + 2e3 + 49e3;
  EXPECT_NEAR(static_cast<double>(*f->saving_ns), 5 * (549e3 - batched), 5 * 10.0);
  EXPECT_NE(f->estimate.find("measured on this trace's copies >= 1 MiB"), std::string::npos);
  EXPECT_NE(f->evidence[0].find("HtoD pinned: 250 copies under 64 KiB in 5 bursts"), std::string::npos);
  // Spans: the 5 bursts (750 us apart from 3 ms), each from its first copy's start (6 us into its
  // call) to its 50th copy's end (49 x 11 us + 8 us), not the large copy.
  testing::expect_spans_in_run(*f, b.trace());
  testing::SpanTimes bursts;
  for (int i = 0; i < 5; ++i)
    bursts.emplace_back(3 * kMs + i * 750 * kUs + 6 * kUs, 3 * kMs + i * 750 * kUs + 547 * kUs);
  EXPECT_EQ(testing::span_times(*f), bursts);
}

TEST(RuleTinyTransfers, WithoutLargeCopiesUsesTheLinkDefault) {
  const auto f = find(run_rules(tiny_copies(50, false).trace()), "many_tiny_transfers");
  ASSERT_TRUE(f);
  EXPECT_NE(f->estimate.find("PCIe Gen5 x16: 50 GB/s"), std::string::npos);
}

TEST(RuleTinyTransfers, NotForFewCopiesOrCopiesThatEachFeedAKernel) {
  EXPECT_FALSE(find(run_rules(tiny_copies(3, true).trace()), "many_tiny_transfers"));         // 15 copies < 16
  EXPECT_FALSE(find(run_rules(tiny_copies(50, true, true).trace()), "many_tiny_transfers"));  // bursts of 1
}

TEST(RuleTinyTransfers, NotWhenTheBytesDominate) {
  // 60 KiB copies that take as long on the GPU as their bytes need (1.2 us at 50 GB/s), issued async
  // in 0.2 us calls: nothing per copy to save.
  TraceBuilder b;
  b.run(1, 100 * kMs);
  TimeNs t = 1 * kMs;
  for (int k = 0; k < 100; ++k, t += 1300)
    b.copy(CopyKind::DtoH, MemoryKind::Pinned, 60 << 10, t, t + 1250, b.api("cudaMemcpyAsync", t, t + 200), 7, true);
  b.api("cudaDeviceSynchronize", t, t + 5 * kUs);
  EXPECT_FALSE(find(run_rules(b.trace()), "many_tiny_transfers"));
}

TEST(RuleTinyTransfers, QuietOnTheRecordedCaptures) {
  // bsr_spmm copies 260 B and 4 KiB twice per iteration (bursts of 2, 10 copies): not worth it.
  for (const char* name :
       {"bsr_spmm_baseline.gpuscope", "bsr_spmm_fixed.gpuscope", "crash_segv.gpuscope", "spawn.gpuscope"})
    EXPECT_FALSE(find(run_rules(read_trace(std::string(GPUSCOPE_TEST_DATA_DIR) + "/" + name)), "many_tiny_transfers"))
        << name;
}

// 4 iterations (NVTX "iteration"): 2 ms HtoD input, a 1 ms kernel, then `result_ms` of pinned DtoH result.
TraceBuilder result_loop(TimeNs result_ms, uint64_t result_bytes = 256 << 20) {
  TraceBuilder b;
  b.run(1, 100 * kMs);
  for (int i = 0; i < 4; ++i) {
    const TimeNs t0 = 1 * kMs + i * 20 * kMs;
    b.copy(CopyKind::HtoD, MemoryKind::Pinned, 100 << 20, t0 + 10 * kUs, t0 + 2 * kMs,
           b.api("cudaMemcpy", t0, t0 + 2 * kMs));
    b.kernel("k", t0 + 2 * kMs, t0 + 3 * kMs, b.api("cudaLaunchKernel", t0 + 2 * kMs, t0 + 2 * kMs + 5 * kUs));
    const TimeNs r = t0 + 3 * kMs, re = r + result_ms * kMs;
    b.copy(CopyKind::DtoH, MemoryKind::Pinned, result_bytes, r, re,
           b.api("cudaMemcpy", t0 + 2 * kMs + 6 * kUs, re + 5 * kUs));
    b.range("iteration", t0, re + 10 * kUs);
  }
  return b;
}

TEST(RuleLargeResultCopy, OverlapsEachResultWithTheNextIterationsWork) {
  TraceBuilder b = result_loop(5);
  const auto fs = run_rules(b.trace());
  const auto f = find(fs, "large_result_copy");
  ASSERT_TRUE(f);
  // Steady instances 2..4: the results of 2 and 3 hide under the next instance's 1.99 ms HtoD + 1 ms kernel.
  EXPECT_EQ(*f->saving_ns, 2 * (1990 * kUs + 1 * kMs));
  EXPECT_NE(f->evidence.back().find("2.00 ms of the saving is overlap with kernels"), std::string::npos);
  // copies_not_overlapped fires on the same copies: the report must not add the two.
  ASSERT_TRUE(find(fs, "copies_not_overlapped"));
  EXPECT_EQ(f->shares_time_with, std::vector<std::string>{"copies_not_overlapped"});
  // Spans: the result copies of steady instances 2..4 (the evidence counts all three).
  testing::expect_spans_in_run(*f, b.trace());
  testing::SpanTimes results;
  for (int i = 1; i < 4; ++i) results.emplace_back(i * 20 * kMs + 4 * kMs, i * 20 * kMs + 9 * kMs);
  EXPECT_EQ(testing::span_times(*f), results);
}

TEST(RuleLargeResultCopy, NotForASmallShareOrASmallCopy) {
  EXPECT_FALSE(find(run_rules(result_loop(0).trace()), "large_result_copy"));  // zero-length copy
  // 0.5 ms of 3.5 ms per instance: 14 %, below the 25 % share.
  TraceBuilder b = result_loop(1);
  for (auto& m : b.trace().memcpys)
    if (m.kind == CopyKind::DtoH) m.end = m.start + 500 * kUs;
  EXPECT_FALSE(find(run_rules(b.trace()), "large_result_copy"));
  EXPECT_FALSE(find(run_rules(result_loop(5, 512 << 10).trace()), "large_result_copy"));  // 512 KiB: not large
}

TEST(RuleLargeResultCopy, BsrSpmmResultCopyCountsAtPinnedRateOnTopOfPageableCopies) {
  const auto fs = run_rules(read_trace(std::string(GPUSCOPE_TEST_DATA_DIR) + "/bsr_spmm_baseline.gpuscope"));
  const auto f = find(fs, "large_result_copy");
  ASSERT_TRUE(f);
  // 268 MB DtoH per iteration, 46 ms pageable = 42 % of an instance; at the 50 GB/s default 5.37 ms,
  // hidden under the next iteration's HtoD (167.8 MB: 3.36 ms at 50 GB/s) and 1.06 ms kernel, for the
  // 3 pairs of steady instances: ~13.2 ms, far below pageable_copies (287 ms), which stays first.
  EXPECT_NEAR(*f->saving_ns / 1e6, 13.24, 0.05);
  EXPECT_EQ(fs[0].rule, "pageable_copies");
  EXPECT_NE(f->evidence[1].find("at pinned rate"), std::string::npos);
}

TEST(RuleLargeResultCopy, TheReportSaysWhichSavingsAreNotAdditive) {
  const std::string text = render_report(result_loop(5).trace(), {}, parse_report_format("text"));
  EXPECT_NE(text.find("Not additive: large_result_copy + copies_not_overlapped count some of the same time"),
            std::string::npos);
  EXPECT_NE(text.find("Not additive with copies_not_overlapped"), std::string::npos);
  // Only where both fire: a single-rule report carries no such note.
  EXPECT_EQ(render_report(tiny_copies(50, true).trace(), {}, parse_report_format("text")).find("Not additive"),
            std::string::npos);
}

}  // namespace
}  // namespace gpuscope::analysis
