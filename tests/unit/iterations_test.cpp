// Iterations from an NVTX range (--iteration-range): attribution on synthetic
// traces (two threads, kernels after their range closed, ties at the edges),
// the errors (missing, nested, too few), and diff / bench by iterations on the
// real H200 captures of bsr_spmm (baseline vs --persistent --pinned).
#include <gtest/gtest.h>

#include "common/error.h"
#include "gpuscope/analysis_diff.h"
#include "gpuscope/analysis_iterations.h"
#include "gpuscope/analysis_runs.h"
#include "gpuscope/bench_report.h"
#include "gpuscope/diff_report.h"
#include "gpuscope/report.h"
#include "gpuscope/runs.h"
#include "gpuscope/store.h"
#include "gpuscope/torch_annotations.h"
#include "test_files.h"

namespace gpuscope::analysis {
namespace {

// Synthetic records; times in ns.
struct Builder {
  Trace t;
  uint32_t corr = 0;

  void range(const std::string& name, TimeNs start, TimeNs end, uint32_t tid = 1, uint32_t pid = 1) {
    t.nvtx_ranges.push_back({pid, tid, NvtxKind::PushPop, 0, t.strings.intern(name), start, end, 0});
  }
  uint32_t call(const std::string& name, TimeNs start, TimeNs end, uint32_t tid = 1, uint32_t pid = 1) {
    t.api_calls.push_back({pid, tid, ApiDomain::Runtime, 0, t.strings.intern(name), start, end, 0, ++corr});
    return corr;
  }
  void kernel(const std::string& name, TimeNs start, TimeNs end, uint32_t correlation, uint32_t pid = 1) {
    Kernel k;
    k.pid = pid;
    k.name = k.mangled_name = t.strings.intern(name);
    k.start = start;
    k.end = end;
    k.correlation_id = correlation;
    t.kernels.push_back(k);
  }
  // One iteration [start, start + length): a launch at its start whose kernel runs `kernel_ns`.
  void iteration(TimeNs start, TimeNs length, TimeNs kernel_ns, uint32_t tid = 1) {
    range("step", start, start + length, tid);
    kernel("gemm", start + 10, start + 10 + kernel_ns, call("cudaLaunchKernel", start + 1, start + 5, tid));
  }
};

IterationSpec spec(const std::string& range, size_t skip = 0) {
  IterationSpec s;
  s.range = range;
  s.skip = skip;
  return s;
}

const DiffItem* find(const DiffResult& d, DiffCategory c, const std::string& name_part) {
  for (const DiffItem& i : d.items)
    if (i.category == c && i.name.find(name_part) != std::string::npos) return &i;
  return nullptr;
}

TEST(Iterations, KernelBelongsToTheIterationOfItsLaunchEvenAfterTheRangeClosed) {
  Builder b;
  b.range("step", 0, 100);
  b.range("step", 100, 200);  // back to back: a tie at 100 belongs to the second (half-open intervals)
  const uint32_t early = b.call("cudaLaunchKernel", 0, 5);  // at the first range's start: inside it
  const uint32_t late = b.call("cudaLaunchKernel", 90, 95);
  b.kernel("gemm", 150, 180, late);  // runs during the second range
  b.kernel("gemm", 10, 20, early);
  const uint32_t edge = b.call("cudaMemcpy", 100, 120);  // starts exactly where the first ends
  b.call("cudaFree", 200, 210);                          // at the second's end: outside both
  b.kernel("orphan", 30, 40, 999);                       // no launching call in the capture
  const Iterations it = find_iterations(b.t, spec("step"));
  ASSERT_EQ(it.kept.size(), 2u);
  EXPECT_EQ(it.of_gpu(0, 1, late), 0u);
  EXPECT_EQ(it.of_gpu(0, 1, early), 0u);
  EXPECT_EQ(it.of_gpu(0, 1, edge), 1u);
  EXPECT_EQ(it.of_call(b.t.api_calls[3]), std::nullopt);
  EXPECT_EQ(it.of_gpu(0, 1, 999), std::nullopt);
  EXPECT_EQ(it.summary.unattributed_gpu, 1u);
  EXPECT_EQ(it.sums({{0, 30}, {0, 10}}), (std::vector<double>{40, 0}));  // 0 where the item did not occur
  EXPECT_EQ(it.durations(), (std::vector<double>{100, 100}));
}

TEST(Iterations, RangesOnTwoThreadsClaimTheirOwnThreadsCalls) {
  Builder b;
  b.range("step", 0, 100, 1);
  b.range("step", 50, 150, 2);  // overlaps thread 1's in time: both are iterations
  b.call("a", 60, 61, 1);       // inside both: its own thread's
  b.call("b", 60, 61, 2);
  b.call("c", 20, 21, 3);  // a worker inside exactly one iteration: that one
  b.call("d", 60, 61, 3);  // a worker inside two other threads' iterations: ambiguous
  b.range("inner", 70, 80, 2);
  const Iterations it = find_iterations(b.t, spec("step"));
  ASSERT_EQ(it.kept.size(), 2u);
  EXPECT_EQ(it.kept[0].tid, 1u);
  EXPECT_EQ(it.of_call(b.t.api_calls[0]), 0u);
  EXPECT_EQ(it.of_call(b.t.api_calls[1]), 1u);
  EXPECT_EQ(it.of_call(b.t.api_calls[2]), 0u);
  EXPECT_EQ(it.of_call(b.t.api_calls[3]), std::nullopt);
  EXPECT_EQ(it.summary.ambiguous, 1u);
  EXPECT_EQ(it.of_range(b.t.nvtx_ranges[2]), 1u);
  EXPECT_EQ(it.of_range(b.t.nvtx_ranges[0]), std::nullopt);  // an iteration is not inside itself
  EXPECT_EQ(it.summary.processes, 1u);
}

TEST(Iterations, NestedMissingUnclosedAndTooFewAreErrors) {
  Builder nested;
  nested.range("step", 0, 100);
  nested.range("step", 10, 20);  // push "step" inside "step" on the same thread
  try {
    find_iterations(nested.t, spec("step"));
    FAIL() << "nested instances accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("two instances overlap on thread 1 of process 1"), std::string::npos)
        << e.what();
  }
  // The report's steps from a range the user named: the overlap is the command's error too.
  ReportOptions named;
  named.iteration_range = "step";
  try {
    render_report(nested.t, named, parse_report_format("text"));
    FAIL() << "a report on overlapping named steps";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("--iteration-range: NVTX range 'step' in the capture: two instances overlap"),
              std::string::npos)
        << e.what();
  }
  Builder none;
  none.range("alloc", 0, 10);
  none.range("open", 20, 0);  // never closed
  auto message = [](const Trace& t, IterationSpec s) {
    try {
      find_iterations(t, s);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  IterationSpec labelled = spec("step");
  labelled.label = "new.gpuscope";
  EXPECT_EQ(message(none.t, labelled), "NVTX range 'step' not found in new.gpuscope (ranges there: alloc)");
  EXPECT_EQ(message(none.t, spec("open")),
            "NVTX range 'open' not found in the capture (its 1 instances were never closed)");
  EXPECT_EQ(message(Trace{}, spec("x")), "NVTX range 'x' not found in the capture (it has no closed NVTX ranges)");
  Builder two;
  two.iteration(0, 100, 10);
  two.iteration(100, 100, 10);
  EXPECT_EQ(find_iterations(two.t, spec("step")).kept.size(), 2u);  // enough for a spread
  // ...but not for a verdict: diff needs 3 a side, and says why.
  try {
    diff_traces(two.t, two.t, {}, spec("step"), spec("step"));
    FAIL() << "2 iterations accepted for a verdict";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("has 2 instances in the base capture: a verdict needs at least 3"),
              std::string::npos)
        << e.what();
  }
}

// torch.profiler's GPU spans of the steps ("GPU: ProfilerStep#1" in their own domain) next to the
// steps themselves: a glob matching both would mix host and GPU times into one set of steps.
TEST(Iterations, APatternMatchingTheStepsAndTheirGpuSpansIsAnError) {
  Builder b;
  b.range("ProfilerStep#1", 0, 100);
  b.range("ProfilerStep#2", 100, 200);
  b.t.nvtx_ranges.push_back({1, 0, NvtxKind::StartEnd, b.t.strings.intern(kGpuAnnotationDomain),
                             b.t.strings.intern("GPU: ProfilerStep#1"), 40, 140, 0});
  EXPECT_EQ(find_iterations(b.t, spec("ProfilerStep#*")).kept.size(), 2u);
  try {
    find_iterations(b.t, spec("*Step*"));
    FAIL() << "CPU steps and GPU spans mixed";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "NVTX range '*Step*' in the capture matches both CPU ranges ('ProfilerStep#1') and torch.profiler's GPU "
              "spans of them ('GPU: ProfilerStep#1'), whose times are not the steps': name the CPU ones (e.g. "
              "'ProfilerStep#*')");
  }
}

TEST(Iterations, SkipsTheFirstInstancesOfEachProcessAndHintsAtWarmUp) {
  Builder b;
  for (uint32_t pid : {1u, 2u})
    for (int i = 0; i < 4; ++i)
      b.range("ProfilerStep#" + std::to_string(i), 1000 * i, 1000 * i + (i == 0 ? 900 : 300), 1, pid);
  const Iterations all = find_iterations(b.t, spec("ProfilerStep#*"));  // a glob over per-step names
  EXPECT_EQ(all.summary.found, 8u);
  EXPECT_EQ(all.summary.processes, 2u);
  EXPECT_DOUBLE_EQ(all.summary.first_ratio, 3.0);  // 900 ns vs a median of 300 ns
  const Iterations skipped = find_iterations(b.t, spec("ProfilerStep#*", 1));
  EXPECT_EQ(skipped.summary.kept, 6u);
  EXPECT_EQ(skipped.summary.skipped, 2u);
  for (const Iteration& i : skipped.kept) EXPECT_GE(i.ordinal, 1u);
}

TEST(Iterations, DiffComparesOneValuePerIterationWithTiesAndAbsentItems) {
  Builder base, next;
  for (int i = 0; i < 6; ++i) {
    base.iteration(i * 1000, 500, 100);  // every iteration alike: all values tied
    next.iteration(i * 1000, 500 + 50 * (i % 2) + 100, 100);
    base.call("cudaMalloc", i * 1000 + 200, i * 1000 + 210);  // in base only
    if (i == 0) next.call("cudaMemset", 300, 310);            // in one iteration of new only
  }
  const DiffResult d = diff_traces(base.t, next.t, {}, spec("step"), spec("step"));
  ASSERT_TRUE(d.by_iterations);
  EXPECT_TRUE(d.totals_judged());
  EXPECT_EQ(d.base_iterations.kept, 6u);
  const DiffItem* time = find(d, DiffCategory::Total, "Iteration time");
  ASSERT_NE(time, nullptr);
  EXPECT_EQ(time->cmp.verdict, Verdict::Slower);
  EXPECT_NEAR(time->cmp.change_percent, 25.0, 1e-9);  // median 500 -> 625 (600 and 650 alternate)
  const DiffItem* gemm = find(d, DiffCategory::Kernel, "gemm");
  ASSERT_NE(gemm, nullptr);
  EXPECT_EQ(gemm->cmp.verdict, Verdict::NoChange);  // 100 ns in every iteration of both: all tied
  EXPECT_EQ(gemm->cmp.test.p_value, 1.0);
  EXPECT_EQ(find(d, DiffCategory::Api, "cudaMalloc")->cmp.verdict, Verdict::OnlyBase);
  const DiffItem* memset = find(d, DiffCategory::Api, "cudaMemset");
  EXPECT_EQ(memset->cmp.new_count, 6u);  // one value per iteration, 0 in five of them
  EXPECT_EQ(memset->cmp.new_median, 0.0);
  EXPECT_FALSE(regressions_over(d, 20).empty());  // totals by iteration can trip --fail-if-slower
}

TEST(Iterations, RealBsrSpmmIterationsAreFasterAndTheKernelIsNot) {
  const Trace base = testing::read_test_capture("bsr_spmm_baseline.gpuscope"),
              fixed = testing::read_test_capture("bsr_spmm_fixed.gpuscope");
  for (size_t skip : {0u, 1u}) {
    const DiffResult d = diff_traces(base, fixed, {}, spec("iteration", skip), spec("iteration", skip));
    EXPECT_EQ(d.base_iterations.kept, 5u - skip);
    EXPECT_EQ(d.new_iterations.kept, 5u - skip);
    const DiffItem* time = find(d, DiffCategory::Total, "Iteration time");
    ASSERT_NE(time, nullptr);
    EXPECT_EQ(time->cmp.verdict, Verdict::Faster) << skip;
    EXPECT_LT(time->cmp.change_percent, -70);  // ~38 ms -> ~9 ms per iteration
    EXPECT_LT(time->cmp.ci.high, 0);
    EXPECT_NEAR(time->cmp.test.p_value, skip == 0 ? 2.0 / 252 : 2.0 / 70, 1e-9);  // exact: complete separation
    EXPECT_EQ(time->cmp.cliffs_delta, -1.0);
    const DiffItem* kernel = find(d, DiffCategory::Kernel, "bsr_spmm_kernel");
    ASSERT_NE(kernel, nullptr);
    EXPECT_EQ(kernel->cmp.verdict, Verdict::NoChange) << skip;
    EXPECT_EQ(find(d, DiffCategory::Total, "Kernel time")->cmp.verdict, Verdict::NoChange);
    EXPECT_EQ(find(d, DiffCategory::Nvtx, "h2d")->cmp.verdict, Verdict::Faster);  // nested ranges, per iteration
    EXPECT_EQ(find(d, DiffCategory::Nvtx, "iteration"), nullptr);  // the iterations themselves are the totals
    EXPECT_EQ(d.base_iterations.unattributed_gpu, 0u);
  }
  // One kernel per iteration: per-iteration sums equal the per-launch durations.
  const DiffResult by_instance = diff_traces(base, fixed, {});
  const DiffResult by_iteration = diff_traces(base, fixed, {}, spec("iteration"), spec("iteration"));
  EXPECT_EQ(find(by_instance, DiffCategory::Kernel, "bsr_spmm")->cmp.base_median,
            find(by_iteration, DiffCategory::Kernel, "bsr_spmm")->cmp.base_median);
  // The baseline's first iteration pays for the first cudaMalloc calls: the warm-up hint says so.
  EXPECT_GT(by_iteration.base_iterations.first_ratio, 5);
  EXPECT_LT(by_iteration.new_iterations.first_ratio, kWarmupRatio);
  const std::string text = render_diff(by_iteration, {"base", "new", std::nullopt, 0}, parse_report_format("text"));
  EXPECT_NE(text.find("base: the first iteration of process 680 took"), std::string::npos) << text;
  EXPECT_NE(text.find("Totals: time per iteration"), std::string::npos);
  // The reverse comparison: the same iterations, slower.
  const DiffResult back = diff_traces(fixed, base, {}, spec("iteration", 1), spec("iteration", 1));
  EXPECT_EQ(find(back, DiffCategory::Total, "Iteration time")->cmp.verdict, Verdict::Slower);
}

TEST(Iterations, BenchSpreadPoolsTheIterationsOfEveryRun) {
  Trace bench;
  const Trace run = testing::read_test_capture("bsr_spmm_fixed.gpuscope");
  for (uint32_t id : {1u, 2u}) {
    append_run(bench, run, id);
    bench.runs.push_back({id, 0, 1, 0, 0});
  }
  const IterationBench b = summarize_iterations(bench, spec("iteration", 1));
  EXPECT_EQ(b.summary.processes, 2u);  // skipping is per process, i.e. per run
  EXPECT_EQ(b.summary.kept, 8u);
  ASSERT_GE(b.metrics.size(), 3u);
  EXPECT_EQ(b.metrics[0].name, "Iteration time");
  EXPECT_EQ(b.metrics[0].values.size(), 8u);
  EXPECT_FALSE(b.metrics[0].unstable);  // 9.0 to 9.1 ms
  EXPECT_TRUE(b.metrics[2].per_kernel);
  const std::string text = render_bench(summarize_bench(bench), "b", parse_report_format("text"), &b);
  EXPECT_NE(text.find("Across iterations"), std::string::npos) << text;
  EXPECT_NE(text.find("NVTX range 'iteration': 8 (10 found, 2 warm-up skipped) in 2 processes"), std::string::npos)
      << text;
}

}  // namespace
}  // namespace gpuscope::analysis
