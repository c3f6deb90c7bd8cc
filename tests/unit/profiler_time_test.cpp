// Cutting the profiler's own time (metric set-up, kernel replay) out of a trace's timeline.
#include <gtest/gtest.h>

#include "gpuscope/analysis_diff.h"
#include "gpuscope/analysis_profiler_time.h"
#include "gpuscope/analysis_timeline.h"
#include "gpuscope/report.h"
#include "time_units.h"
#include "trace_builder.h"

namespace gpuscope::analysis {
namespace {
using testing::TraceBuilder;

using testing::kMs;

void overhead(Trace& t, std::string_view kind, TimeNs start, TimeNs end) {
  CuptiOverhead o;
  o.pid = 1;
  o.kind = t.strings.intern(std::string(kind));
  o.start = start;
  o.end = end;
  t.overheads.push_back(o);
}

// A program that launches one kernel measured with --metrics, as the capture records it:
// the set-up runs before CUPTI's record of the launch call, the replay passes inside it, and
// the importer placed the replayed kernel (10 ms) at the end of the launch call.
Trace measured_launch() {
  TraceBuilder b;
  b.run(50 * kMs, 800 * kMs);
  b.api("cudaMalloc", 100 * kMs, 110 * kMs);
  const uint32_t launch = b.api("cudaLaunchKernel", 200 * kMs, 700 * kMs);
  b.kernel("k", 690 * kMs, 700 * kMs, launch);
  b.api("cudaEventSynchronize", 710 * kMs, 711 * kMs);
  const uint32_t copy = b.api("cudaMemcpy", 720 * kMs, 730 * kMs);
  b.copy(CopyKind::DtoH, MemoryKind::Pageable, 1 << 20, 721 * kMs, 729 * kMs, copy);
  Trace t = b.trace();
  overhead(t, kMetricSetupOverhead, 150 * kMs, 195 * kMs);
  overhead(t, kKernelReplayOverhead, 195 * kMs, 702 * kMs);
  overhead(t, "cupti_buffer_flush", 720 * kMs, 725 * kMs);
  return t;
}

TEST(ProfilerTime, CutsSetUpAndReplayButKeepsTheKernel) {
  ProfilerTime cut;
  const Trace t = cut_profiler_time(measured_launch(), &cut);
  EXPECT_EQ(cut.setup_ns, 45 * kMs);
  EXPECT_EQ(cut.replay_ns, 497 * kMs);  // 507 ms of replay interval less the 10 ms kernel
  EXPECT_EQ(cut.launches, 1u);
  // Cuts: [150, 690) and [700, 702) ms.
  EXPECT_EQ(t.api_calls[0].start, 100 * kMs);  // before any cut: unchanged
  EXPECT_EQ(t.api_calls[1].start, 150 * kMs);  // the launch call starts where the set-up did
  EXPECT_EQ(t.api_calls[1].end, 160 * kMs);    // and lasts its kernel
  EXPECT_EQ(t.kernels[0].start, 150 * kMs);
  EXPECT_EQ(t.kernels[0].end, 160 * kMs);
  EXPECT_EQ(t.api_calls[2].start, 168 * kMs);  // 710 - 542
  EXPECT_EQ(t.memcpys[0].start, 179 * kMs);
  EXPECT_EQ(t.run.start, 50 * kMs);
  EXPECT_EQ(t.run.end, 258 * kMs);
  // The profiler's rows became one data_loss row; CUPTI's own overhead stays, moved.
  ASSERT_EQ(t.overheads.size(), 1u);
  EXPECT_EQ(t.overheads[0].start, 178 * kMs);
  ASSERT_EQ(t.data_loss.size(), 1u);
  EXPECT_EQ(t.data_loss[0].what, "metric_collection_cut");
  EXPECT_EQ(t.data_loss[0].count, 1u);
  EXPECT_NE(t.data_loss[0].detail.find("0.542 s of metric collection"), std::string::npos) << t.data_loss[0].detail;
}

TEST(ProfilerTime, CuttingTwiceChangesNothing) {
  const Trace once = cut_profiler_time(measured_launch());
  ProfilerTime again_cut;
  const Trace twice = cut_profiler_time(once, &again_cut);
  EXPECT_EQ(again_cut.total_ns(), 0);
  EXPECT_EQ(twice.run.end, once.run.end);
  EXPECT_EQ(twice.data_loss.size(), once.data_loss.size());
}

TEST(ProfilerTime, AReplayWithoutItsKernelIsCutWhole) {
  Trace t = measured_launch();
  t.kernels.clear();  // e.g. the kernel record was lost
  ProfilerTime cut;
  const Trace out = cut_profiler_time(t, &cut);
  EXPECT_EQ(cut.replay_ns, 507 * kMs);
  EXPECT_EQ(out.run.end, (800 - 45 - 507) * kMs);
}

TEST(ProfilerTime, TheViewIsTheTraceItselfWithoutProfilerTime) {
  Trace t = measured_launch();
  t.overheads.erase(t.overheads.begin(), t.overheads.begin() + 2);
  const AnalysisView view(t);
  EXPECT_EQ(&view.trace(), &t);
  EXPECT_EQ(view.profiler_time().total_ns(), 0);

  const Trace measured = measured_launch();
  const AnalysisView cut_view(measured);
  EXPECT_NE(&cut_view.trace(), &measured);
  EXPECT_EQ(cut_view.profiler_time().total_ns(), 542 * kMs);
}

// What the cut is for: the wall time goes to the program's own activities, and the report
// says how much was taken out.
TEST(ProfilerTime, TheReportAnalysesTheProgramsTimeline) {
  const Trace t = measured_launch();
  const Attribution before = attribute_wall_time(t);
  EXPECT_GT(before.get(TimeCategory::OtherApi), 400 * kMs);  // the replay, inside the launch call
  const Attribution after = attribute_wall_time(cut_profiler_time(t));
  EXPECT_EQ(after.wall_ns, 208 * kMs);
  EXPECT_LT(after.get(TimeCategory::OtherApi), 20 * kMs);

  ReportOptions options;
  const std::string text = render_report(t, options, parse_report_format("text"));
  EXPECT_NE(text.find("less 542.0 ms of metric collection"), std::string::npos) << text;
  EXPECT_NE(text.find("metric_collection_cut"), std::string::npos);
}

// A replayed kernel's start is placed, not measured: it has no launch delay.
TEST(ProfilerTime, ReplayedKernelsHaveNoLaunchDelay) {
  Trace t = cut_profiler_time(measured_launch());
  EXPECT_EQ(analyze_timeline(t).launch_delay.count, 1u);
  KernelMetric m;
  m.pid = 1;
  m.correlation_id = t.kernels[0].correlation_id;
  m.metric = t.strings.intern("gpu__time_duration.sum");
  m.value = 10.0 * kMs;
  t.kernel_metrics.push_back(m);
  EXPECT_EQ(analyze_timeline(t).launch_delay.count, 0u);
}

// diff compares the programs' timelines too: a capture with --metrics against one without.
TEST(ProfilerTime, DiffComparesTheProgramsTimelines) {
  Trace plain = measured_launch();
  plain.overheads.erase(plain.overheads.begin(), plain.overheads.begin() + 2);
  const DiffResult diff = diff_traces(plain, measured_launch(), CompareOptions{});
  const auto wall = std::find_if(diff.items.begin(), diff.items.end(),
                                 [](const DiffItem& i) { return i.name == "Wall time"; });
  ASSERT_NE(wall, diff.items.end());
  EXPECT_EQ(wall->base_total_ns, 750.0 * kMs);
  EXPECT_EQ(wall->new_total_ns, 208.0 * kMs);
}

}  // namespace
}  // namespace gpuscope::analysis
