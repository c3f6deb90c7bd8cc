// Data quality: a possible loss that gpuscope cannot confirm must still be shown; a loss it
// saw (the takeover of CUPTI's records) is shown as such.
#include <gtest/gtest.h>

#include "gpuscope/analysis.h"
#include "gpuscope/report.h"
#include "trace_builder.h"

namespace gpuscope {
namespace {

// A PyTorch-like process: it loaded CUPTI itself, its records stop at 1 s, it ends at 12 s.
Trace shared_cupti_trace(bool shared, TimeNs end) {
  Trace t;
  Process p;
  p.pid = 666;
  p.start = 0;
  p.end = end;
  p.clean_shutdown = true;
  p.capture_status = "ok";
  p.cupti_shared = shared;
  t.processes.push_back(p);
  Kernel k;
  k.pid = 666;
  k.start = 900'000'000;
  k.end = 1'000'000'000;
  t.kernels.push_back(k);
  t.run.start = 0;
  t.run.end = end;
  return t;
}

TEST(DataQuality, LongSilenceAfterSharedCuptiIsAPossibleLoss) {
  const auto q = analysis::assess_data_quality(shared_cupti_trace(true, 12'000'000'000));
  ASSERT_EQ(q.shared_cupti_silences.size(), 1u);
  EXPECT_EQ(q.shared_cupti_silences[0].pid, 666u);
  EXPECT_EQ(q.shared_cupti_silences[0].silent_ns, 11'000'000'000);
  EXPECT_FALSE(q.complete());
  const std::string text = render_report(shared_cupti_trace(true, 12'000'000'000), {}, parse_report_format("text"));
  EXPECT_NE(text.find("torch.profiler"), std::string::npos);
}

TEST(DataQuality, NoWarningWithoutSharedCuptiOrWithoutSilence) {
  EXPECT_TRUE(analysis::assess_data_quality(shared_cupti_trace(false, 12'000'000'000)).complete())
      << "our own CUPTI: nobody else can take the records";
  EXPECT_TRUE(analysis::assess_data_quality(shared_cupti_trace(true, 1'500'000'000)).complete())
      << "0.5 s of silence is ordinary";
}

// torchrun imports torch (which loads CUPTI), counts the GPUs with one CUDA call and then waits
// for its ranks: its silence hides no GPU work, since its ranks ran it. The same silence in a
// process whose children ran none is still a possible loss.
TEST(DataQuality, ALauncherWhoseRanksRanTheGpuWorkIsNoPossibleLoss) {
  Trace t = shared_cupti_trace(true, 12'000'000'000);
  t.kernels.clear();
  ApiCall count;
  count.pid = 666;
  count.start = 100'000'000, count.end = 100'001'000;
  t.api_calls.push_back(count);
  Process rank = t.processes.front();
  rank.pid = 667, rank.parent_pid = 666, rank.cupti_shared = false;
  t.processes.push_back(rank);
  EXPECT_EQ(analysis::assess_data_quality(t).shared_cupti_silences.size(), 1u) << "no rank ran GPU work yet";
  Kernel k;
  k.pid = 667;
  k.start = 900'000'000, k.end = 11'000'000'000;
  t.kernels.push_back(k);
  EXPECT_TRUE(analysis::assess_data_quality(t).shared_cupti_silences.empty());
}

// With the preload library the capture knows when the takeover happened: the losses table
// says so exactly, and the guess from the silence is not repeated.
TEST(DataQuality, AKnownTakeoverReplacesTheGuess) {
  Trace t = shared_cupti_trace(true, 12'000'000'000);
  t.data_loss.push_back({666, "cupti_taken_over", 1, "another CUPTI client in this process took them at 1.000 s"});
  const auto q = analysis::assess_data_quality(t);
  EXPECT_TRUE(q.shared_cupti_silences.empty());
  ASSERT_EQ(q.losses.size(), 1u);
  EXPECT_EQ(q.losses[0].what, "cupti_taken_over");
  EXPECT_FALSE(q.complete());
  const std::string text = render_report(t, {}, parse_report_format("text"));
  EXPECT_EQ(text.find("Possible loss"), std::string::npos);
  EXPECT_NE(text.find("took them at 1.000 s"), std::string::npos);
}

// The core API trace records calls from gpuscope's own callbacks: a process quiet after its last
// call is done with CUDA (torch.compile's exit takes seconds), while calls going on after its GPU
// records stopped is what a client taking CUPTI's activity buffers leaves.
TEST(DataQuality, InTheCoreTraceOnlyCallsWithoutGpuRecordsAreAPossibleLoss) {
  Trace t = shared_cupti_trace(true, 12'000'000'000);
  t.processes[0].api_trace = "core";
  ApiCall launch;
  launch.pid = 666;
  launch.start = 800'000'000, launch.end = 810'000'000;
  t.api_calls.push_back(launch);
  EXPECT_TRUE(analysis::assess_data_quality(t).complete()) << "11 s quiet after its last call and kernel";
  launch.start = 9'990'000'000, launch.end = 10'000'000'000;  // calls 9 s past its last kernel
  t.api_calls.push_back(launch);
  const auto q = analysis::assess_data_quality(t);
  ASSERT_EQ(q.shared_cupti_silences.size(), 1u);
  EXPECT_EQ(q.shared_cupti_silences[0].silent_ns, 9'000'000'000);
  EXPECT_TRUE(q.shared_cupti_silences[0].calls_went_on);
  const std::string text = render_report(t, {}, parse_report_format("text"));
  EXPECT_NE(text.find("its CUDA calls went on for 9.00 s after its last GPU record"), std::string::npos) << text;
  Trace no_gpu = t;  // a process with calls and no GPU record: the span of its calls
  no_gpu.kernels.clear();
  ASSERT_EQ(analysis::assess_data_quality(no_gpu).shared_cupti_silences.size(), 1u);
  EXPECT_EQ(analysis::assess_data_quality(no_gpu).shared_cupti_silences[0].silent_ns, 9'200'000'000);
  no_gpu.api_calls.pop_back();  // one call (torch.compile's worker counting the GPUs): nothing to say
  EXPECT_TRUE(analysis::assess_data_quality(no_gpu).complete());
  t.data_loss.push_back({666, "cupti_callbacks_taken_over", 1, "at 1.000 s"});
  EXPECT_TRUE(analysis::assess_data_quality(t).shared_cupti_silences.empty()) << "the loss is known";
}

// The launcher's start and exit bracket every process: a record past them has bad times (a
// synthetic fixture once had 229.4 ms of API calls on one thread of a 228.3 ms run).
TEST(DataQuality, RecordsOutsideTheRunAreFlagged) {
  testing::TraceBuilder b;
  b.run(1'000'000, 2'000'000);
  b.api("cudaMalloc", 1'100'000, 1'200'000);
  const uint32_t late = b.api("cudaLaunchKernel", 1'900'000, 1'950'000);
  b.kernel("k", 1'960'000, 2'400'000, late);  // ends 0.4 ms after the launcher saw the exit
  const analysis::DataQuality q = analysis::assess_data_quality(b.trace());
  EXPECT_EQ(q.outside_run.records, 1u);
  EXPECT_EQ(q.outside_run.furthest_ns, 400'000);
  EXPECT_FALSE(q.complete());
  const std::string text = render_report(b.trace(), {}, parse_report_format("text"));
  EXPECT_NE(text.find("Outside the run      1     records reaching up to 400.0 µs past"), std::string::npos) << text;

  b.trace().kernels.back().end = 1'990'000;  // inside: nothing to say
  EXPECT_EQ(analysis::assess_data_quality(b.trace()).outside_run.records, 0u);
  b.trace().run = {};  // an import without a launcher's window: nothing to compare with
  b.trace().kernels.back().end = 9'000'000;
  EXPECT_EQ(analysis::assess_data_quality(b.trace()).outside_run.records, 0u);
}

}  // namespace
}  // namespace gpuscope
