// Summaries over small synthesized traces (gpuscope/analysis.h).
#include <gtest/gtest.h>

#include "gpuscope/analysis.h"

namespace gpuscope::analysis {
namespace {

ApiCall api(Trace& t, const char* name, TimeNs start, TimeNs end, ApiDomain domain = ApiDomain::Runtime) {
  ApiCall c;
  c.pid = 1;
  c.domain = domain;
  c.name = t.strings.intern(name);
  c.start = start;
  c.end = end;
  t.api_calls.push_back(c);
  return c;
}

Kernel& kernel(Trace& t, const char* name, TimeNs start, TimeNs end, int grid_x = 1) {
  Kernel k;
  k.pid = 1;
  k.name = t.strings.intern(name);
  k.mangled_name = k.name;
  k.start = start;
  k.end = end;
  k.grid[0] = grid_x;
  k.grid[1] = k.grid[2] = 1;
  k.block[0] = 128;
  k.block[1] = k.block[2] = 1;
  t.kernels.push_back(k);
  return t.kernels.back();
}

Memcpy& copy(Trace& t, CopyKind kind, MemoryKind host, uint64_t bytes, TimeNs start, TimeNs end) {
  Memcpy m;
  m.pid = 1;
  m.kind = kind;
  m.src_kind = kind == CopyKind::HtoD ? host : MemoryKind::Device;
  m.dst_kind = kind == CopyKind::DtoH ? host : MemoryKind::Device;
  m.bytes = bytes;
  m.start = start;
  m.end = end;
  t.memcpys.push_back(m);
  return t.memcpys.back();
}

TEST(AnalysisExecutive, WallTimeFromRun) {
  Trace t;
  t.run.start = 1'000;
  t.run.end = 51'000;
  kernel(t, "k", 2'000, 3'000);
  ExecutiveSummary s = summarize_executive(t);
  EXPECT_EQ(s.wall_source, WallSource::Run);
  EXPECT_EQ(s.wall_ns, 50'000);
}

TEST(AnalysisExecutive, WallTimeFallsBackToEventSpan) {
  Trace t;  // run times are 0: an imported trace
  api(t, "cudaMalloc", 1'000, 5'000);
  kernel(t, "k", 6'000, 9'000);
  t.nvtx_marks.push_back({1, 1, 0, t.strings.intern("m"), 12'000});
  ExecutiveSummary s = summarize_executive(t);
  EXPECT_EQ(s.wall_source, WallSource::EventSpan);
  EXPECT_EQ(s.wall_ns, 11'000);
}

TEST(AnalysisExecutive, EmptyTraceHasNoWallTime) {
  ExecutiveSummary s = summarize_executive(Trace{});
  EXPECT_EQ(s.wall_source, WallSource::None);
  EXPECT_EQ(s.wall_ns, 0);
  EXPECT_EQ(s.gpu_busy_ns, 0);
  EXPECT_EQ(s.busy_devices, 0u);
}

TEST(AnalysisExecutive, SumsKernelsApiMemoryAndSync) {
  Trace t;
  kernel(t, "a", 0, 100);
  kernel(t, "b", 50, 150);  // concurrent: kernel time sums, busy time unions
  copy(t, CopyKind::HtoD, MemoryKind::Pageable, 1'000, 200, 300);
  Memset ms;
  ms.bytes = 64;
  ms.start = 400;
  ms.end = 410;
  t.memsets.push_back(ms);
  api(t, "cudaLaunchKernel", 0, 20);
  api(t, "cudaMemcpy", 30, 330);
  api(t, "cuLaunchKernel", 5, 15, ApiDomain::Driver);  // nested: not added
  t.synchronizations.push_back({1, 1, 0, 0, SyncKind::StreamSynchronize, 500, 700, 0});

  ExecutiveSummary s = summarize_executive(t);
  EXPECT_EQ(s.kernel_ns, 200);
  EXPECT_EQ(s.kernel_count, 2u);
  EXPECT_EQ(s.gpu_busy_ns, 150 + 100 + 10);
  EXPECT_EQ(s.api_domain, ApiDomain::Runtime);
  EXPECT_EQ(s.api_ns, 320);
  EXPECT_EQ(s.api_count, 2u);
  EXPECT_EQ(s.memcpy_ns, 100);
  EXPECT_EQ(s.memcpy_bytes, 1'000u);
  EXPECT_EQ(s.memset_ns, 10);
  EXPECT_EQ(s.memset_bytes, 64u);
  EXPECT_EQ(s.sync_wait_ns, 200);
  EXPECT_EQ(s.sync_count, 1u);
}

TEST(AnalysisExecutive, DriverOnlyTraceCountsDriverCalls) {
  Trace t;
  api(t, "cuMemAlloc", 0, 40, ApiDomain::Driver);
  ExecutiveSummary s = summarize_executive(t);
  EXPECT_EQ(s.api_domain, ApiDomain::Driver);
  EXPECT_EQ(s.api_ns, 40);
}

TEST(AnalysisKernels, GroupedByNameSortedByTotalThenName) {
  Trace t;
  kernel(t, "small", 0, 10);
  kernel(t, "big", 0, 300);
  kernel(t, "big", 400, 500);
  kernel(t, "tie_b", 0, 50);
  kernel(t, "tie_a", 0, 50);
  auto rows = summarize_kernels(t);
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[0].name, "big");
  EXPECT_EQ(rows[0].duration.count, 2u);
  EXPECT_EQ(rows[0].duration.total, 400);
  EXPECT_EQ(rows[0].duration.median, 200);
  EXPECT_EQ(rows[1].name, "tie_a");
  EXPECT_EQ(rows[2].name, "tie_b");
  EXPECT_EQ(rows[3].name, "small");
}

TEST(AnalysisKernels, FallsBackToMangledName) {
  Trace t;
  Kernel& k = kernel(t, "", 0, 10);
  k.mangled_name = t.strings.intern("_Z3fooPf");
  k.name = 0;
  auto rows = summarize_kernels(t);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].name, "_Z3fooPf");
}

TEST(AnalysisKernels, MostCommonLaunchConfigAndVariesCount) {
  Trace t;
  kernel(t, "k", 0, 10, 64).registers_per_thread = 32;
  kernel(t, "k", 20, 30, 128).registers_per_thread = 32;
  kernel(t, "k", 40, 50, 128).registers_per_thread = 32;
  Kernel& dyn = kernel(t, "k", 60, 70, 128);
  dyn.registers_per_thread = 32;
  dyn.dynamic_shared_bytes = 4096;  // a different config: shared memory differs
  auto rows = summarize_kernels(t);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].distinct_configs, 3u);
  EXPECT_EQ(rows[0].config.grid[0], 128);
  EXPECT_EQ(rows[0].config.dynamic_shared_bytes, 0u);
  EXPECT_EQ(rows[0].config.registers_per_thread, 32u);
}

TEST(AnalysisKernels, ConfigTieGoesToSmallestConfig) {
  Trace t;
  kernel(t, "k", 0, 10, 512);
  kernel(t, "k", 20, 30, 256);
  EXPECT_EQ(summarize_kernels(t)[0].config.grid[0], 256);
}

TEST(AnalysisApi, OneTablePerDomainWithTotals) {
  Trace t;
  api(t, "cudaMalloc", 0, 900);
  api(t, "cudaMalloc", 1'000, 1'100);
  api(t, "cudaMemcpy", 2'000, 2'500);
  api(t, "cuMemAlloc", 0, 800, ApiDomain::Driver);
  auto summaries = summarize_api(t);
  ASSERT_EQ(summaries.size(), 2u);
  EXPECT_EQ(summaries[0].domain, ApiDomain::Runtime);
  EXPECT_EQ(summaries[0].total_ns, 1'500);
  ASSERT_EQ(summaries[0].rows.size(), 2u);
  EXPECT_EQ(summaries[0].rows[0].name, "cudaMalloc");
  EXPECT_EQ(summaries[0].rows[0].duration.count, 2u);
  EXPECT_EQ(summaries[0].rows[0].duration.max, 900);
  EXPECT_EQ(summaries[1].domain, ApiDomain::Driver);
  EXPECT_EQ(summaries[1].total_ns, 800);
}

TEST(AnalysisApi, NoCallsNoTables) { EXPECT_TRUE(summarize_api(Trace{}).empty()); }

TEST(AnalysisMemoryOps, SplitsPageableAndPinnedAndComputesBandwidth) {
  Trace t;
  copy(t, CopyKind::HtoD, MemoryKind::Pageable, 15'000'000, 0, 1'000'000);  // 15 GB/s
  copy(t, CopyKind::HtoD, MemoryKind::Pageable, 15'000'000, 2'000'000, 3'000'000);
  copy(t, CopyKind::HtoD, MemoryKind::Pinned, 50'000'000, 4'000'000, 5'000'000);  // 50 GB/s
  copy(t, CopyKind::DtoH, MemoryKind::Pinned, 1'000, 6'000'000, 6'000'100);
  copy(t, CopyKind::DtoD, MemoryKind::Unknown, 2'000, 7'000'000, 7'000'000);  // zero time
  Memset ms;
  ms.bytes = 4096;
  ms.start = 0;
  ms.end = 50;
  t.memsets.push_back(ms);

  auto rows = summarize_memory_ops(t);
  ASSERT_EQ(rows.size(), 5u);
  EXPECT_EQ(rows[0].label, "HtoD (pageable)");
  EXPECT_EQ(rows[0].count, 2u);
  EXPECT_EQ(rows[0].bytes, 30'000'000u);
  EXPECT_EQ(rows[0].time_ns, 2'000'000);
  EXPECT_DOUBLE_EQ(*rows[0].bandwidth_bps, 15e9);
  EXPECT_EQ(rows[1].label, "HtoD (pinned)");
  EXPECT_DOUBLE_EQ(*rows[1].bandwidth_bps, 50e9);
  EXPECT_EQ(rows[2].label, "DtoH (pinned)");
  EXPECT_EQ(rows[3].label, "Memset");
  EXPECT_TRUE(rows[3].is_memset);
  EXPECT_EQ(rows[4].label, "DtoD");  // device-to-device: no host side
  EXPECT_FALSE(rows[4].bandwidth_bps.has_value());
}

TEST(AnalysisSync, ByKindSortedByTotalWait) {
  Trace t;
  t.synchronizations.push_back({1, 1, 0, 0, SyncKind::EventSynchronize, 0, 100, 0});
  t.synchronizations.push_back({1, 1, 0, 0, SyncKind::StreamSynchronize, 0, 500, 0});
  t.synchronizations.push_back({1, 1, 0, 0, SyncKind::EventSynchronize, 200, 250, 0});
  auto rows = summarize_sync(t);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].kind, SyncKind::StreamSynchronize);
  EXPECT_EQ(rows[1].kind, SyncKind::EventSynchronize);
  EXPECT_EQ(rows[1].wait.count, 2u);
  EXPECT_EQ(rows[1].wait.total, 150);
  EXPECT_EQ(rows[1].wait.max, 100);
}

TEST(AnalysisNvtx, GroupsByDomainAndNameAndSkipsUnclosed) {
  Trace t;
  const StringId def = 0, app = t.strings.intern("app");
  const StringId step = t.strings.intern("step"), load = t.strings.intern("load");
  t.nvtx_ranges.push_back({1, 1, NvtxKind::PushPop, def, step, 0, 100, 0});
  t.nvtx_ranges.push_back({1, 1, NvtxKind::PushPop, def, step, 200, 260, 0});
  t.nvtx_ranges.push_back({1, 1, NvtxKind::StartEnd, app, step, 0, 100, 0});  // other domain
  t.nvtx_ranges.push_back({1, 2, NvtxKind::PushPop, def, load, 0, 1'000, 0});
  t.nvtx_ranges.push_back({1, 2, NvtxKind::PushPop, def, load, 5'000, 0, 1});  // never closed
  t.nvtx_marks.push_back({1, 1, def, step, 10});

  NvtxSummary s = summarize_nvtx(t);
  EXPECT_EQ(s.unclosed_ranges, 1u);
  EXPECT_EQ(s.marks, 1u);
  ASSERT_EQ(s.ranges.size(), 3u);
  EXPECT_EQ(s.ranges[0].name, "load");
  EXPECT_EQ(s.ranges[0].duration.count, 1u);
  EXPECT_EQ(s.ranges[1].name, "step");
  EXPECT_EQ(s.ranges[1].domain, "");
  EXPECT_EQ(s.ranges[1].duration.total, 160);
  EXPECT_EQ(s.ranges[2].domain, "app");
  EXPECT_EQ(s.ranges[2].duration.total, 100);
}

TEST(AnalysisDataQuality, CleanTraceIsComplete) {
  Trace t;
  Process p;
  p.pid = 7;
  p.clean_shutdown = true;
  p.capture_status = "ok";
  t.processes.push_back(p);
  EXPECT_TRUE(assess_data_quality(t).complete());
}

TEST(AnalysisDataQuality, ReportsLossesTruncationProblemsAndOverhead) {
  Trace t;
  Process crashed;
  crashed.pid = 20;
  crashed.capture_status = "ok";
  Process no_gpu;
  no_gpu.pid = 10;
  no_gpu.clean_shutdown = true;
  no_gpu.capture_status = "CUPTI could not start: no GPU visible";
  t.processes = {crashed, no_gpu};
  t.data_loss.push_back({20, "cupti_dropped_records", 100, "buffer full"});
  t.data_loss.push_back({10, "cupti_dropped_records", 28, "buffer full"});
  t.data_loss.push_back({20, "spool_truncated", 1, "last chunk incomplete"});
  t.overheads.push_back({20, 0, 0, 1'000});
  t.overheads.push_back({20, 0, 5'000, 5'500});

  DataQuality q = assess_data_quality(t);
  EXPECT_FALSE(q.complete());
  ASSERT_EQ(q.losses.size(), 2u);
  EXPECT_EQ(q.losses[0].what, "cupti_dropped_records");
  EXPECT_EQ(q.losses[0].count, 128u);
  EXPECT_EQ(q.losses[0].pids, (std::vector<uint32_t>{10, 20}));
  EXPECT_EQ(q.losses[0].detail, "buffer full");
  EXPECT_EQ(q.losses[1].what, "spool_truncated");
  EXPECT_EQ(q.truncated_pids, (std::vector<uint32_t>{20}));
  ASSERT_EQ(q.capture_problems.size(), 1u);
  EXPECT_EQ(q.capture_problems[0].pid, 10u);
  EXPECT_EQ(q.cupti_overhead_ns, 1'500);
  EXPECT_EQ(q.overhead_records, 2u);
}

}  // namespace
}  // namespace gpuscope::analysis
