// Bench captures: run_id on every record and bench_runs through the store, a
// single capture as run 0, merging and splitting runs, across-run statistics,
// diff of two benches by whole runs, and the `gpuscope bench` command.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include "gpuscope/analysis_diff.h"
#include "gpuscope/analysis_runs.h"
#include "gpuscope/runs.h"
#include "gpuscope/store.h"
#include "spool_builder.h"

namespace gpuscope {
namespace {

// One run's capture: `launches` launches of one kernel of `ns` each (+ i % 3
// jitter), plus a differently named second kernel, an API call and an NVTX range.
Trace one_run(TimeNs ns, int launches = 20, const std::string& second = "helper") {
  Trace t;
  const StringId gemm = t.strings.intern("gemm"), other = t.strings.intern(second);
  for (int i = 0; i < launches; ++i) {
    Kernel k;
    k.name = k.mangled_name = gemm;
    k.start = 1000 + i * 100000;
    k.end = k.start + ns + i % 3;
    t.kernels.push_back(k);
    Kernel h = k;
    h.name = h.mangled_name = other;
    h.start = k.start + 50000;
    h.end = h.start + 500;
    t.kernels.push_back(h);
  }
  t.api_calls.push_back({1, 1, ApiDomain::Runtime, 211, t.strings.intern("cudaLaunchKernel"), 10, 20, 0, 1});
  t.nvtx_ranges.push_back({1, 1, NvtxKind::PushPop, 0, t.strings.intern("step"), 0, 5000, 0});
  t.data_loss.push_back({1, "cupti_dropped_records", 2, "test"});
  return t;
}

// A bench of `runs` runs whose gemm takes ns[r] in run r.
Trace bench_of(const std::vector<TimeNs>& ns) {
  Trace b;
  for (size_t r = 0; r < ns.size(); ++r) {
    const uint32_t id = static_cast<uint32_t>(r + 1);
    append_run(b, one_run(ns[r]), id);
    b.runs.push_back(
        {id, static_cast<TimeNs>(r) * 10'000'000, static_cast<TimeNs>(r) * 10'000'000 + 5'000'000 + ns[r], 0, 0});
  }
  return b;
}

TEST(BenchRuns, AppendReinternsNamesAndSelectTakesOneRunBack) {
  Trace b;
  append_run(b, one_run(1000, 2, "alpha"), 1);
  append_run(b, one_run(2000, 2, "beta"), 2);
  ASSERT_EQ(b.kernels.size(), 8u);
  EXPECT_EQ(b.strings.get(b.kernels[1].name), "alpha");
  EXPECT_EQ(b.strings.get(b.kernels[5].name), "beta");
  EXPECT_EQ(b.kernels[4].run_id, 2u);
  EXPECT_EQ(b.data_loss[1].run_id, 2u);
  b.runs = {{1, 100, 200, 0, 0}, {2, 300, 700, 3, 0}};
  const Trace two = select_run(b, 2);
  ASSERT_EQ(two.kernels.size(), 4u);
  EXPECT_EQ(two.strings.get(two.kernels[0].name), "gemm");
  EXPECT_EQ(two.run.start, 300);
  EXPECT_EQ(two.run.exit_code, 3);
  EXPECT_EQ(two.nvtx_ranges.size(), 1u);
}

// Each run of a bench ran under the same --pytorch: the bench says where its ops came from.
TEST(BenchRuns, AppendKeepsWhereTheRunsOpsCameFrom) {
  Trace b;
  Trace first = one_run(1000, 2, "alpha"), second = one_run(2000, 2, "beta");
  first.run.host_ops_source = second.run.host_ops_source = kHostOpsFromObserver;
  append_run(b, first, 1);
  append_run(b, second, 2);
  EXPECT_EQ(b.run.host_ops_source, kHostOpsFromObserver);
}

TEST(BenchRuns, RunIdsRoundTripAndASingleCaptureIsRunZero) {
  const std::string path = testing::scratch_dir("bench_store") + "/b.gpuscope";
  const Trace b = bench_of({1000, 1010, 990});
  write_trace(path, b);
  const Trace back = read_trace(path);
  ASSERT_EQ(back.runs.size(), 3u);
  EXPECT_EQ(back.runs[2].run_id, 3u);
  EXPECT_EQ(back.runs[2].end, b.runs[2].end);
  ASSERT_EQ(back.kernels.size(), b.kernels.size());
  for (size_t i = 0; i < b.kernels.size(); ++i) EXPECT_EQ(back.kernels[i].run_id, b.kernels[i].run_id);
  EXPECT_EQ(back.api_calls[2].run_id, 3u);
  EXPECT_EQ(back.nvtx_ranges[1].run_id, 2u);
  EXPECT_EQ(back.data_loss[0].run_id, 1u);

  // A bundled capture of `gpuscope profile`: no bench runs, every record in run 0.
  const Trace single = read_trace(std::string(GPUSCOPE_TEST_DATA_DIR) + "/bsr_spmm_fixed.gpuscope");
  EXPECT_TRUE(single.runs.empty());
  ASSERT_FALSE(single.kernels.empty());
  for (const Kernel& k : single.kernels) EXPECT_EQ(k.run_id, 0u);
}

TEST(BenchRuns, MeanConfidenceIntervalUsesStudentT) {
  analysis::MeanInterval ci = analysis::mean_ci95({1, 2, 3, 4, 5});
  // mean 3, s = sqrt(2.5), t(0.975, 4) = 2.776: 3 -+ 2.776 * 1.5811 / sqrt(5)
  EXPECT_NEAR(ci.low, 3 - 2.776 * std::sqrt(2.5) / std::sqrt(5.0), 1e-9);
  EXPECT_NEAR(ci.high, 3 + 2.776 * std::sqrt(2.5) / std::sqrt(5.0), 1e-9);
  EXPECT_TRUE(std::isnan(analysis::mean_ci95({7}).low));
}

TEST(BenchRuns, SummaryPerRunAndAcrossRunsFlagsUnstableKernels) {
  const analysis::BenchSummary s = analysis::summarize_bench(bench_of({1000, 1500, 800, 1200}));
  ASSERT_EQ(s.runs.size(), 4u);
  EXPECT_EQ(s.runs[1].kernels, 40u);
  EXPECT_EQ(s.runs[1].wall_ns, 5'001'500);
  ASSERT_GE(s.metrics.size(), 5u);
  EXPECT_EQ(s.metrics[0].name, "Wall time");
  const analysis::RunMetric& gemm = s.metrics[3];
  EXPECT_EQ(gemm.name, "gemm");
  EXPECT_TRUE(gemm.per_kernel);
  EXPECT_EQ(gemm.values, (std::vector<double>{1001, 1501, 801, 1201}));  // median launch per run
  EXPECT_TRUE(gemm.unstable);
  EXPECT_FALSE(s.metrics[4].unstable);  // "helper": 500 ns in every run
  EXPECT_TRUE(analysis::summarize_bench(one_run(1000)).runs.empty());
}

TEST(BenchRuns, DiffOfTwoBenchesComparesWholeRuns) {
  const Trace base = bench_of({1000, 1004, 996, 1002, 998});
  const Trace slow = bench_of({1100, 1104, 1096, 1102, 1098});
  const analysis::DiffResult d = analysis::diff_traces(base, slow, {});
  EXPECT_TRUE(d.by_runs);
  const analysis::DiffItem* gemm = nullptr;
  const analysis::DiffItem* wall = nullptr;
  for (const auto& i : d.items) {
    if (i.category == analysis::DiffCategory::Kernel && i.name == "gemm") gemm = &i;
    if (i.category == analysis::DiffCategory::Total && i.name == "Wall time") wall = &i;
  }
  ASSERT_NE(gemm, nullptr);
  EXPECT_EQ(gemm->cmp.base_count, 5u);  // runs, not 100 launches
  EXPECT_EQ(gemm->cmp.verdict, analysis::Verdict::Slower);
  EXPECT_NEAR(gemm->cmp.change_percent, 10.0, 0.1);
  ASSERT_NE(wall, nullptr);
  EXPECT_EQ(wall->cmp.base_count, 5u);  // totals are judged per run in a bench
  EXPECT_NE(wall->cmp.verdict, analysis::Verdict::TooFew);
  // A bench against a single capture: per-instance comparison as usual.
  EXPECT_FALSE(analysis::diff_traces(base, one_run(1000), {}).by_runs);
}

struct CliResult {
  int code;
  std::string err;
};

CliResult bench_cli(const std::string& dir, const std::string& args) {
  std::ofstream(dir + "/fake_inject.so") << "x";
  const std::string cmd = "cd '" + dir + "' && GPUSCOPE_INJECT_LIB='" + dir + "/fake_inject.so' " + GPUSCOPE_BINARY +
                          " " + args + " >out.txt 2>err.txt </dev/null";
  const int status = std::system(cmd.c_str());
  std::ifstream in(dir + "/err.txt");
  std::stringstream s;
  s << in.rdbuf();
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, s.str()};
}

TEST(BenchCli, RunsTheProgramAndKeepsEveryMeasuredRun) {
  const std::string dir = testing::scratch_dir("bench_cli");
  CliResult ok = bench_cli(dir, "bench -n 3 --warmup 2 -o b --seed-env RUN -- sh -c 'echo $RUN >> seen.txt'");
  EXPECT_EQ(ok.code, 0) << ok.err;
  EXPECT_NE(ok.err.find("Across runs"), std::string::npos) << ok.err;
  const Trace b = read_trace(dir + "/b.gpuscope");
  ASSERT_EQ(b.runs.size(), 3u);
  EXPECT_EQ(b.runs[0].run_id, 1u);
  EXPECT_EQ(b.data_loss.size(), 3u);  // "no_capture" once per measured run (no CUDA in sh)
  std::ifstream seen(dir + "/seen.txt");
  std::stringstream s;
  s << seen.rdbuf();
  EXPECT_EQ(s.str(), "0\n0\n1\n2\n3\n");                         // two warm-ups, then runs 1..3
  EXPECT_EQ(bench_cli(dir, "bench -n 3 -o b -- true").code, 2);  // exists, no --force
  EXPECT_EQ(bench_cli(dir, "bench -n 3 -o b -f -- sh -c 'exit 4'").code, 4);
  EXPECT_EQ(bench_cli(dir, "bench -n 1 -o c -- true").code, 2);
}

TEST(BenchCli, GpuMetricsReachEveryRunsCapture) {
  const std::string dir = testing::scratch_dir("bench_cli_gpu_metrics");
  CliResult ok = bench_cli(
      dir, "bench -n 2 --warmup 0 -o g --gpu-metrics=20 -- sh -c 'echo $GPUSCOPE_INJECT_CONFIG >> cfg.txt'");
  EXPECT_EQ(ok.code, 0) << ok.err;
  std::ifstream cfg(dir + "/cfg.txt");
  std::string line;
  int runs = 0;
  while (std::getline(cfg, line)) {
    ++runs;
    EXPECT_NE(line.find(";gpu_metrics=20"), std::string::npos) << line;
  }
  EXPECT_EQ(runs, 2);
  EXPECT_NE(read_trace(dir + "/g.gpuscope").run.options.find("gpu_metrics=20"), std::string::npos);
  EXPECT_EQ(bench_cli(dir, "bench -n 2 -o h --gpu-metrics=0 -- true").code, 2);
}

TEST(BenchCli, AMissingIterationRangeIsBadInputButTheRunsAreKept) {
  const std::string dir = testing::scratch_dir("bench_cli_iterations");
  CliResult r = bench_cli(dir, "bench -n 2 --warmup 0 -o it --iteration-range step -- true");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("gpuscope: NVTX range 'step' not found in "), std::string::npos) << r.err;
  EXPECT_EQ(read_trace(dir + "/it.gpuscope").runs.size(), 2u);
}

}  // namespace
}  // namespace gpuscope
