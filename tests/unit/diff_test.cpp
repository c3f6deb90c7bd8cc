// gpuscope diff: item matching on synthetic traces, and the verdicts on the
// real H200 captures of bsr_spmm (baseline vs --persistent --pinned).
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "gpuscope/analysis_diff.h"
#include "gpuscope/diff_report.h"
#include "gpuscope/store.h"
#include "test_files.h"

namespace gpuscope::analysis {
namespace {

const DiffItem* find(const DiffResult& d, DiffCategory c, const std::string& name,
                     const std::string& detail_part = "") {
  for (const DiffItem& i : d.items)
    if (i.category == c && i.name == name && i.detail.find(detail_part) != std::string::npos) return &i;
  return nullptr;
}

void add_kernel(Trace& t, const std::string& name, TimeNs start, TimeNs length, int grid_x = 1) {
  Kernel k;
  k.name = t.strings.intern(name);
  k.start = start;
  k.end = start + length;
  k.grid[0] = grid_x;
  k.block[0] = 128;
  t.kernels.push_back(k);
}

TEST(Diff, MatchesKernelsByNameAndSplitsRepeatedNamesByConfiguration) {
  Trace a, b;
  for (int i = 0; i < 10; ++i) {
    add_kernel(a, "gemm", i * 1000, 100 + i % 3);
    add_kernel(b, "gemm", i * 1000, 150 + i % 3);           // +50 %: slower
    add_kernel(a, "scale", i * 1000 + 500, 40, 1 + i % 2);  // two configurations in base
    add_kernel(b, "scale", i * 1000 + 500, 40, 1 + i % 2);
  }
  add_kernel(a, "old_only", 20000, 10);
  add_kernel(b, "new_only", 20000, 10);
  DiffResult d = diff_traces(a, b, {});
  const DiffItem* gemm = find(d, DiffCategory::Kernel, "gemm");
  ASSERT_NE(gemm, nullptr);
  EXPECT_EQ(gemm->detail, "");
  EXPECT_EQ(gemm->cmp.verdict, Verdict::Slower);
  EXPECT_NEAR(gemm->cmp.change_percent, 50 * 100.0 / 101.0, 1e-9);
  const DiffItem* scale1 = find(d, DiffCategory::Kernel, "scale", "grid 1x0x0");
  const DiffItem* scale2 = find(d, DiffCategory::Kernel, "scale", "grid 2x0x0");
  ASSERT_NE(scale1, nullptr);
  ASSERT_NE(scale2, nullptr);
  EXPECT_EQ(scale1->cmp.base_count, 5u);
  EXPECT_EQ(scale1->cmp.verdict, Verdict::NoChange);
  EXPECT_EQ(find(d, DiffCategory::Kernel, "old_only")->cmp.verdict, Verdict::OnlyBase);
  EXPECT_EQ(find(d, DiffCategory::Kernel, "new_only")->cmp.verdict, Verdict::OnlyNew);
  EXPECT_EQ(regressions_over(d, 10).size(), 1u);
  EXPECT_TRUE(regressions_over(d, 60).empty());
  // Totals are one number per file: shown, never judged.
  const DiffItem* kernel_time = find(d, DiffCategory::Total, "Kernel time");
  ASSERT_NE(kernel_time, nullptr);
  EXPECT_EQ(kernel_time->cmp.verdict, Verdict::TooFew);
}

void add_copy(Trace& t, CopyKind kind, MemoryKind host, uint64_t bytes, TimeNs start, TimeNs length, uint32_t corr) {
  Memcpy m;
  m.kind = kind;
  (kind == CopyKind::HtoD ? m.src_kind : m.dst_kind) = host;
  m.dst_kind = kind == CopyKind::HtoD ? MemoryKind::Device : m.dst_kind;
  m.bytes = bytes;
  m.start = start;
  m.end = start + length;
  m.correlation_id = corr;
  t.memcpys.push_back(m);
  ApiCall c;
  c.name = t.strings.intern("cudaMemcpy");
  c.start = start - 100;
  c.end = start + length + 100;
  c.correlation_id = corr;
  t.api_calls.push_back(c);
}

TEST(Diff, CopiesMatchBySizeClassAndSplitByHostKindOnlyWhenMixed) {
  Trace a, b;
  uint32_t corr = 1;
  for (int i = 0; i < 6; ++i) {
    add_copy(a, CopyKind::HtoD, MemoryKind::Pageable, 40 << 20, i * 100000, 4000 + i, corr++);  // 40 MiB
    add_copy(a, CopyKind::HtoD, MemoryKind::Pageable, 8, i * 100000 + 50000, 900 + i, corr++);  // 8 B
    add_copy(b, CopyKind::HtoD, MemoryKind::Pinned, 40 << 20, i * 100000, 1000 + i, corr++);
    add_copy(b, CopyKind::HtoD, MemoryKind::Pinned, 8, i * 100000 + 50000, 900 + i, corr++);
    // DtoH: both kinds inside one file, so split by kind.
    add_copy(a, CopyKind::DtoH, i % 2 ? MemoryKind::Pinned : MemoryKind::Pageable, 1 << 20, i * 100000 + 70000, 500,
             corr++);
    add_copy(b, CopyKind::DtoH, MemoryKind::Pinned, 1 << 20, i * 100000 + 70000, 500, corr++);
  }
  DiffResult d = diff_traces(a, b, {});
  const DiffItem* big = find(d, DiffCategory::Memory, "HtoD [32 MiB, 64 MiB)");
  ASSERT_NE(big, nullptr);
  EXPECT_EQ(big->detail, "pageable -> pinned");
  EXPECT_EQ(big->cmp.verdict, Verdict::Faster);
  EXPECT_EQ(big->base_bytes, 6ull * (40 << 20));
  ASSERT_TRUE(big->base_bandwidth_bps && big->new_bandwidth_bps);
  EXPECT_GT(*big->new_bandwidth_bps, *big->base_bandwidth_bps);
  const DiffItem* tiny = find(d, DiffCategory::Memory, "HtoD [8 B, 16 B)");
  ASSERT_NE(tiny, nullptr);
  EXPECT_EQ(tiny->cmp.verdict, Verdict::NoChange);
  ASSERT_NE(find(d, DiffCategory::Memory, "DtoH [1 MiB, 2 MiB)", "pageable"), nullptr);
  const DiffItem* pinned = find(d, DiffCategory::Memory, "DtoH [1 MiB, 2 MiB)", "pinned");
  ASSERT_NE(pinned, nullptr);
  EXPECT_EQ(pinned->cmp.base_count, 3u);
  EXPECT_EQ(pinned->cmp.new_count, 6u);
  // The API calls follow the copies they issued.
  const DiffItem* call = find(d, DiffCategory::Api, "cudaMemcpy", "HtoD [32 MiB, 64 MiB)");
  ASSERT_NE(call, nullptr);
  EXPECT_EQ(call->cmp.verdict, Verdict::Faster);
  EXPECT_EQ(find(d, DiffCategory::Api, "cudaMemcpy", "HtoD [8 B, 16 B)")->cmp.verdict, Verdict::NoChange);
}

TEST(Diff, EmptyTracesGiveNoItemsAndRender) {
  DiffResult d = diff_traces(Trace{}, Trace{}, {});
  EXPECT_TRUE(d.items.empty());
  const std::string text = render_diff(d, {"a", "b", std::nullopt, 0}, parse_report_format("text"));
  EXPECT_NE(text.find("none in either capture"), std::string::npos);
}

TEST(Diff, SaysWhenTheFilesRecordedDifferentApiTraces) {
  Trace full, core;
  full.processes.emplace_back().api_trace = "full";
  core.processes.emplace_back().api_trace = "core";
  const DiffResult d = diff_traces(full, core, {});
  EXPECT_EQ(d.base_api_traces, std::set<std::string>{"full"});
  EXPECT_EQ(d.new_api_traces, std::set<std::string>{"core"});
  const std::string text = render_diff(d, {"a", "b", std::nullopt, 0}, parse_report_format("text"));
  EXPECT_NE(text.find("different CUDA API traces (base: full, new: core)"), std::string::npos) << text;
  const std::string same = render_diff(diff_traces(core, core, {}), {"a", "b", std::nullopt, 0},
                                       parse_report_format("text"));
  EXPECT_EQ(same.find("different CUDA API traces"), std::string::npos);
}

TEST(Diff, RealBsrSpmmFixIsFasterOnCopiesAndNeutralOnTheKernel) {
  const DiffResult d = diff_traces(testing::read_test_capture("bsr_spmm_baseline.gpuscope"),
                                   testing::read_test_capture("bsr_spmm_fixed.gpuscope"), {});
  // The kernel is the same code on the same data: no significant change.
  const auto kernel = std::find_if(d.items.begin(), d.items.end(), [](const DiffItem& i) {
    return i.category == DiffCategory::Kernel && i.name.find("bsr_spmm_kernel") != std::string::npos;
  });
  ASSERT_NE(kernel, d.items.end());
  EXPECT_EQ(kernel->cmp.verdict, Verdict::NoChange);
  EXPECT_EQ(kernel->cmp.base_count, 5u);
  // Pageable -> pinned: the large copies in both directions are much faster.
  for (const std::string name : {"DtoH [256 MiB, 512 MiB)", "HtoD [128 MiB, 256 MiB)", "HtoD [32 MiB, 64 MiB)"}) {
    const DiffItem* copy = find(d, DiffCategory::Memory, name);
    ASSERT_NE(copy, nullptr) << name;
    EXPECT_EQ(copy->detail, "pageable -> pinned");
    EXPECT_EQ(copy->cmp.verdict, Verdict::Faster) << name;
    EXPECT_LT(copy->cmp.change_percent, -50) << name;
    EXPECT_LT(copy->cmp.ci.high, 0) << name;
    EXPECT_EQ(copy->base_bytes, copy->new_bytes) << name;
  }
  // The cudaMemcpy calls that issued them, likewise.
  const DiffItem* d2h_call = find(d, DiffCategory::Api, "cudaMemcpy", "DtoH [256 MiB, 512 MiB)");
  ASSERT_NE(d2h_call, nullptr);
  EXPECT_EQ(d2h_call->cmp.verdict, Verdict::Faster);
  // Pinned buffers exist only in the fixed program.
  EXPECT_EQ(find(d, DiffCategory::Api, "cudaMallocHost")->cmp.verdict, Verdict::OnlyNew);
  EXPECT_EQ(find(d, DiffCategory::Nvtx, "d2h")->cmp.verdict, Verdict::Faster);
  // Regression gate: the only items of the fix more than 10 % slower are the
  // tiny 4-8 KiB col_idx copy and its call (pinned: ~1 us either way).
  for (const DiffItem* r : regressions_over(d, 10))
    EXPECT_NE((r->name + r->detail).find("[4 KiB, 8 KiB)"), std::string::npos) << r->name << " " << r->detail;
  // ...and the reverse comparison is a large regression.
  const DiffResult back = diff_traces(testing::read_test_capture("bsr_spmm_fixed.gpuscope"),
                                      testing::read_test_capture("bsr_spmm_baseline.gpuscope"), {});
  EXPECT_FALSE(regressions_over(back, 100).empty());
}

TEST(Diff, OutputIsDeterministicInEveryFormat) {
  const Trace a = testing::read_test_capture("bsr_spmm_baseline.gpuscope"),
              b = testing::read_test_capture("bsr_spmm_fixed.gpuscope");
  for (ReportFormat f : {parse_report_format("text"), parse_report_format("markdown"), parse_report_format("json")}) {
    const std::string one = render_diff(diff_traces(a, b, {}), {"base", "new", 5.0, 0}, f);
    const std::string two = render_diff(diff_traces(a, b, {}), {"base", "new", 5.0, 0}, f);
    EXPECT_EQ(one, two);
    EXPECT_NE(one.find("faster"), std::string::npos);
  }
  const std::string md = render_diff(diff_traces(a, b, {}), {"base", "new", 5.0, 0}, parse_report_format("markdown"));
  EXPECT_NE(md.find("| DtoH \\[256 MiB, 512 MiB) |"), std::string::npos) << md;
  EXPECT_NE(md.find("Gate --fail-if-slower 5%: FAILED: memory HtoD \\[4 KiB, 8 KiB)"), std::string::npos) << md;
}

}  // namespace
}  // namespace gpuscope::analysis
