// Captures recorded by `gpuscope profile` on a real GPU (NVIDIA H200, driver 580,
// CUDA 13.0; see tests/data/README.md), so the CPU tests see real CUPTI output.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "gpuscope/analysis_metrics.h"
#include "gpuscope/analysis_profiler_time.h"
#include "gpuscope/analysis_rules.h"
#include "gpuscope/report.h"
#include "gpuscope/store.h"
#include "test_files.h"

namespace gpuscope {
namespace {

size_t count_api(const Trace& t, const std::string& name) {
  return std::count_if(t.api_calls.begin(), t.api_calls.end(),
                       [&](const ApiCall& c) { return t.strings.get(c.name) == name; });
}

size_t count_host_kind(const Trace& t, MemoryKind kind) {
  return std::count_if(t.memcpys.begin(), t.memcpys.end(),
                       [&](const Memcpy& m) { return m.src_kind == kind || m.dst_kind == kind; });
}

bool report_contains(const Trace& t, const std::string& text) {
  return render_report(t, {}, parse_report_format("text")).find(text) != std::string::npos;
}

TEST(RealCapture, BsrSpmmBaselineAllocatesAndCopiesPageableEveryIteration) {
  const Trace t = testing::read_test_capture("bsr_spmm_baseline.gpuscope");
  ASSERT_EQ(t.processes.size(), 1u);
  EXPECT_TRUE(t.processes[0].clean_shutdown);
  EXPECT_EQ(t.processes[0].capture_status, "ok");
  ASSERT_FALSE(t.devices.empty());
  EXPECT_EQ(t.devices[0].sm_count, 132u);
  EXPECT_EQ(t.devices[0].compute_major, 9u);
  ASSERT_EQ(t.kernels.size(), 5u);
  EXPECT_NE(t.strings.get(t.kernels[0].name).find("bsr_spmm_kernel<128, 128, 32>"), std::string::npos);
  EXPECT_EQ(t.kernels[0].grid[0], 64);
  EXPECT_EQ(t.kernels[0].block[0], 128);
  EXPECT_GT(t.kernels[0].registers_per_thread, 0u);
  EXPECT_EQ(count_api(t, "cudaMalloc"), 25u) << "5 buffers x 5 iterations";
  EXPECT_EQ(count_host_kind(t, MemoryKind::Pageable), 25u);
  EXPECT_EQ(count_host_kind(t, MemoryKind::Pinned), 0u);
  EXPECT_TRUE(t.data_loss.empty());
  EXPECT_TRUE(report_contains(t, "DtoH (pageable)"));
}

TEST(RealCapture, BsrSpmmFixedAllocatesOnceAndCopiesPinned) {
  const Trace t = testing::read_test_capture("bsr_spmm_fixed.gpuscope");
  EXPECT_EQ(t.kernels.size(), 5u);
  EXPECT_EQ(count_api(t, "cudaMalloc"), 5u);
  EXPECT_EQ(count_host_kind(t, MemoryKind::Pageable), 0u);
  EXPECT_EQ(count_host_kind(t, MemoryKind::Pinned), 25u);
  EXPECT_TRUE(report_contains(t, "HtoD (pinned)"));
}

// `--metrics full` on an H100: every launch measured, and the analysis reads the program's
// timeline, not the replay's (the same trace findings as a run without metrics).
TEST(RealCapture, BsrSpmmWithHardwareMetrics) {
  const Trace t = testing::read_test_capture("bsr_spmm_metrics.gpuscope");
  ASSERT_EQ(t.metric_collections.size(), 1u);
  EXPECT_EQ(t.metric_collections[0].status, "ok");
  EXPECT_EQ(t.metric_collections[0].passes, 22u);
  EXPECT_EQ(t.metric_collections[0].kernels_profiled, 5u);
  EXPECT_EQ(t.kernel_metrics.size(), 5u * 111u);
  // 2 x M x N x K_eff tensor FLOPs per launch: 2 x 8192 x 8192 x 2048, exactly.
  size_t exact = 0;
  for (const KernelMetric& m : t.kernel_metrics)
    if (t.strings.get(m.metric) == "sm__ops_path_tensor_src_fp16.sum" && m.value == 274877906944.0) ++exact;
  EXPECT_EQ(exact, 5u);

  const analysis::AnalysisView view(t);
  EXPECT_EQ(view.profiler_time().launches, 5u);
  EXPECT_GT(view.profiler_time().setup_ns, 500'000'000);     // 1.2 s for `full` on this H100
  EXPECT_GT(view.profiler_time().replay_ns, 2'000'000'000);  // ~0.6 s per launch
  const TimeNs analysed_wall = view.trace().run.end - view.trace().run.start;
  EXPECT_LT(analysed_wall, 2'500'000'000) << "the program alone ran 1.5 s traced";
  std::set<std::string> rules;
  for (const auto& f : analysis::run_rules(view.trace())) rules.insert(f.rule);
  EXPECT_FALSE(rules.count("gpu_idle_gaps")) << "the replay is not the program's idle GPU";
  EXPECT_TRUE(rules.count("large_result_copy"));
  EXPECT_TRUE(rules.count("memory_bound_kernel"));
  EXPECT_TRUE(report_contains(t, "of metric collection (Data quality)"));
  // Its WMMA code runs mma.sync, whose H100 peak is 2/3 of wgmma's: the roof is that one's.
  const auto kernels = analysis::analyze_kernel_metrics(view.trace());
  ASSERT_EQ(kernels.size(), 1u);
  ASSERT_TRUE(kernels[0].roofline);
  const analysis::PrecisionRoof& tensor = kernels[0].roofline->precisions.front();
  EXPECT_EQ(tensor.mix, "mma.sync FP16->FP32 100%");
  ASSERT_TRUE(tensor.peak);
  EXPECT_NEAR(*tensor.peak / 1e12, 642.2, 1.0);  // 360,448 ops/cycle x its 1.78 GHz SM clock
}

TEST(RealCapture, SegfaultedProgramIsTruncatedButKeepsItsData) {
  const Trace t = testing::read_test_capture("crash_segv.gpuscope");
  EXPECT_EQ(t.run.term_signal, 11);
  ASSERT_EQ(t.processes.size(), 1u);
  EXPECT_FALSE(t.processes[0].clean_shutdown);
  EXPECT_GT(t.kernels.size(), 100u) << "the sample launched 154 kernels before its segfault";
  EXPECT_TRUE(std::any_of(t.data_loss.begin(), t.data_loss.end(),
                          [](const DataLoss& d) { return d.what == "spool_truncated"; }));
  EXPECT_TRUE(report_contains(t, "signal 11"));
}

TEST(RealCapture, ChildProcessesAreCapturedWithTheirPids) {
  const Trace t = testing::read_test_capture("spawn.gpuscope");
  std::set<uint32_t> pids;
  for (const Kernel& k : t.kernels) pids.insert(k.pid);
  EXPECT_EQ(pids.size(), 2u);
  EXPECT_EQ(t.kernels.size(), 400u) << "2 children x 200 launches";
  for (const Process& p : t.processes) EXPECT_TRUE(p.clean_shutdown);
}

TEST(RealCapture, ReportsAreDeterministic) {
  const Trace t = testing::read_test_capture("bsr_spmm_baseline.gpuscope");
  for (ReportFormat f : {parse_report_format("text"), parse_report_format("markdown"), parse_report_format("json")})
    EXPECT_EQ(render_report(t, {}, f), render_report(testing::read_test_capture("bsr_spmm_baseline.gpuscope"), {}, f));
}

}  // namespace
}  // namespace gpuscope
