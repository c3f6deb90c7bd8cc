// `gpuscope diff` with kernel metrics: per kernel group (as kernels are matched)
// and metric, medians compared with the diff statistics; no section without metrics.
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "gpuscope/analysis_diff.h"
#include "gpuscope/diff_report.h"
#include "gpuscope/runs.h"
#include "metrics_builder.h"

namespace gpuscope {
namespace {

using analysis::Verdict;
using testing::around;
using testing::kDramBytes;
using testing::kSmThroughput;

constexpr const char* kConflicts = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum";

Trace capture(double dram, double sm, size_t launches = 20) {
  testing::TraceBuilder b;
  testing::launches_with_metrics(b, "gemm",
                                 {{kDramBytes, around(dram, launches)}, {kSmThroughput, around(sm, launches)}});
  // A second, shorter kernel without metrics, and one with only a few measured launches.
  b.kernel("helper", 500'000, 500'100, b.api("cudaLaunchKernel", 499'000, 499'500));
  testing::launches_with_metrics(b, "tiny", {{kSmThroughput, {10, 11}}}, 600'000);
  return b.trace();
}

const analysis::MetricDiffItem* find(const analysis::DiffResult& d, const std::string& kernel,
                                     const std::string& metric) {
  for (const auto& m : d.metrics)
    if (m.kernel == kernel && m.metric == metric) return &m;
  return nullptr;
}

TEST(DiffMetrics, ComparesEachMetricPerKernelWithTheDiffStatistics) {
  const analysis::DiffResult d = analysis::diff_traces(capture(1000, 80), capture(1500, 80), {});
  EXPECT_TRUE(d.base_has_metrics && d.new_has_metrics);
  ASSERT_EQ(d.metrics.size(), 3u) << "gemm x 2 metrics, tiny x 1; helper has none";
  const auto* dram = find(d, "gemm", kDramBytes);
  ASSERT_NE(dram, nullptr);
  EXPECT_EQ(dram->cmp.base_count, 20u);
  EXPECT_DOUBLE_EQ(dram->cmp.base_median, 1000);
  EXPECT_DOUBLE_EQ(dram->cmp.new_median, 1500);
  EXPECT_NEAR(dram->cmp.change_percent, 50, 1e-9);
  EXPECT_EQ(dram->cmp.verdict, Verdict::Slower);
  EXPECT_STREQ(analysis::metric_verdict(dram->cmp.verdict), "higher");
  EXPECT_LT(dram->cmp.test.p_value, 0.001);
  EXPECT_EQ(find(d, "gemm", kSmThroughput)->cmp.verdict, Verdict::NoChange);
  EXPECT_EQ(find(d, "tiny", kSmThroughput)->cmp.verdict, Verdict::TooFew);
  // Rows: kernels by kernel time (gemm first), metrics in metric-set order (sol before memory).
  EXPECT_EQ(d.metrics[0].metric, kSmThroughput);
  EXPECT_EQ(d.metrics[1].metric, kDramBytes);
  EXPECT_EQ(d.metrics[2].kernel, "tiny");
  // Metrics never enter the duration items (--fail-if-slower, [[baseline]] rules).
  for (const auto& item : d.items) EXPECT_NE(item.cmp.verdict, Verdict::Slower) << item.name;
}

TEST(DiffMetrics, NoMetricsNoSectionAndNoError) {
  testing::TraceBuilder plain;
  testing::launches_with_metrics(plain, "gemm", {{kDramBytes, around(1000, 5)}});
  plain.trace().kernel_metrics.clear();
  const analysis::DiffResult none = analysis::diff_traces(plain.trace(), plain.trace(), {});
  EXPECT_TRUE(none.metrics.empty());
  DiffReportInfo info{"a.gpuscope", "b.gpuscope", std::nullopt, 0};
  EXPECT_EQ(render_diff(none, info, parse_report_format("text")).find("Kernel metrics"), std::string::npos);
  const auto json = nlohmann::json::parse(render_diff(none, info, parse_report_format("json")));
  for (const auto& s : json["sections"]) EXPECT_NE(s["key"], "kernel_metrics");

  // Only one file has metrics: still no comparison, and the summary says why.
  const analysis::DiffResult one = analysis::diff_traces(plain.trace(), capture(1000, 80), {});
  EXPECT_TRUE(one.metrics.empty());
  EXPECT_TRUE(one.new_has_metrics);
  EXPECT_FALSE(one.base_has_metrics);
  const std::string text = render_diff(one, info, parse_report_format("text"));
  EXPECT_NE(text.find("Kernel metrics are only in the new capture"), std::string::npos) << text;
}

TEST(DiffMetrics, RendersTheKernelMetricsSectionInEveryFormat) {
  const analysis::DiffResult d = analysis::diff_traces(capture(1000, 80), capture(1500, 80), {});
  DiffReportInfo info{"base.gpuscope", "new.gpuscope", std::nullopt, 0};
  const std::string text = render_diff(d, info, parse_report_format("text"));
  EXPECT_NE(text.find("Kernel metrics"), std::string::npos);
  EXPECT_NE(text.find("DRAM bytes read"), std::string::npos) << "the label from metric_sets.h";
  EXPECT_NE(text.find("higher"), std::string::npos);
  const std::string md = render_diff(d, info, parse_report_format("markdown"));
  EXPECT_NE(md.find("SM throughput"), std::string::npos);

  const auto json = nlohmann::json::parse(render_diff(d, info, parse_report_format("json")));
  const nlohmann::json* table = nullptr;
  for (const auto& s : json["sections"])
    if (s["key"] == "kernel_metrics") table = &s["tables"][0];
  ASSERT_NE(table, nullptr);
  const auto& row = (*table)["rows"][1];
  EXPECT_EQ(row["kernel"], "gemm");
  EXPECT_EQ(row["metric"], kDramBytes);
  EXPECT_EQ(row["label"], "DRAM bytes read");
  EXPECT_EQ(row["base_median"], 1000);
  EXPECT_EQ(row["new_median"], 1500);
  EXPECT_EQ(row["change"], 50);
  EXPECT_EQ(row["verdict"], "higher");
  EXPECT_FALSE(row.contains("detail")) << "no configuration column when no kernel is split";

  // --top 1 keeps every metric of the first kernel.
  info.top = 1;
  const auto top = nlohmann::json::parse(render_diff(d, info, parse_report_format("json")));
  for (const auto& s : top["sections"])
    if (s["key"] == "kernel_metrics") {
      EXPECT_EQ(s["tables"][0]["rows"].size(), 2u);
      EXPECT_EQ(s["tables"][0]["rows_omitted"], 1);
    }
}

TEST(DiffMetrics, AMetricRisingFromZeroIsHigherByTheRankTest) {
  auto with_conflicts = [](double value) {
    testing::TraceBuilder b;
    testing::launches_with_metrics(b, "stencil", {{kConflicts, std::vector<double>(8, value)}});
    return b.trace();
  };
  const analysis::DiffResult d = analysis::diff_traces(with_conflicts(0), with_conflicts(4096), {});
  ASSERT_EQ(d.metrics.size(), 1u);
  EXPECT_TRUE(std::isnan(d.metrics[0].cmp.change_percent));
  EXPECT_EQ(d.metrics[0].cmp.verdict, Verdict::Slower) << "exact p of 8 vs 8 separated values is far below 0.05";
  const analysis::DiffResult same = analysis::diff_traces(with_conflicts(0), with_conflicts(0), {});
  EXPECT_EQ(same.metrics[0].cmp.verdict, Verdict::NoChange);
}

TEST(DiffMetrics, SplitsKernelsByLaunchConfigurationLikeDurations) {
  auto two_configs = [](double dram_small, double dram_large) {
    testing::TraceBuilder b;
    testing::launches_with_metrics(b, "gemm", {{kDramBytes, around(dram_small, 6)}});
    testing::launches_with_metrics(b, "gemm", {{kDramBytes, around(dram_large, 6)}}, 1'000'000);
    for (size_t i = 6; i < 12; ++i) b.trace().kernels[i].grid[0] = 264;
    return b.trace();
  };
  const analysis::DiffResult d = analysis::diff_traces(two_configs(100, 1000), two_configs(100, 2000), {});
  ASSERT_EQ(d.metrics.size(), 2u);
  for (const auto& m : d.metrics) {
    EXPECT_FALSE(m.detail.empty());
    const bool large = m.detail.find("grid 264") != std::string::npos;
    EXPECT_EQ(m.cmp.verdict, large ? Verdict::Slower : Verdict::NoChange) << m.detail;
  }
}

TEST(DiffMetrics, LeavesOutValuesWithoutTheirKernel) {
  Trace base = capture(1000, 80), next = capture(1000, 80);
  next.kernel_metrics.push_back({1, 9999, next.strings.intern(kDramBytes), 1e9, 0});
  const analysis::DiffResult d = analysis::diff_traces(base, next, {});
  EXPECT_EQ(find(d, "gemm", kDramBytes)->cmp.new_count, 20u);
}

TEST(DiffMetrics, IterationsLeaveMetricsPerLaunch) {
  // 4 iterations of 5 launches each (launches are 10 us apart): durations are compared per
  // iteration, metric values still per launch (a percentage does not add up over an iteration).
  auto with_iterations = [](double dram) {
    Trace t = capture(dram, 80);
    testing::TraceBuilder ranges;
    for (int i = 0; i < 4; ++i) ranges.range("step", i * 50'000, (i + 1) * 50'000);
    for (NvtxRange r : ranges.trace().nvtx_ranges) {
      r.name = t.strings.intern("step");
      t.nvtx_ranges.push_back(r);
    }
    return t;
  };
  analysis::IterationSpec spec;
  spec.range = "step";
  const analysis::DiffResult d = analysis::diff_traces(with_iterations(1000), with_iterations(1500), {}, spec, spec);
  EXPECT_TRUE(d.by_iterations);
  const auto* dram = find(d, "gemm", kDramBytes);
  ASSERT_NE(dram, nullptr);
  EXPECT_EQ(dram->cmp.base_count, 20u);
  EXPECT_EQ(dram->cmp.verdict, Verdict::Slower);
}

TEST(DiffMetrics, BenchesCompareOneMedianPerRun) {
  auto bench = [](double dram) {
    Trace out;
    for (uint32_t run = 1; run <= 5; ++run) {
      append_run(out, capture(dram + run, 80, 7), run);
      out.runs.push_back({run, run * 1'000'000, run * 1'000'000 + 900'000, 0, 0});
    }
    return out;
  };
  const analysis::DiffResult d = analysis::diff_traces(bench(1000), bench(1100), {});
  const auto* dram = find(d, "gemm", kDramBytes);
  ASSERT_NE(dram, nullptr);
  EXPECT_EQ(dram->cmp.base_count, 5u) << "one value per run";
  // Run r's 7 launches are 1000 + r + (-2, -1, 0, 1, 2, -2, -1): median 999 + r, so 1000..1004.
  EXPECT_DOUBLE_EQ(dram->cmp.base_median, 1002);
  EXPECT_EQ(dram->cmp.verdict, Verdict::Slower);
}

}  // namespace
}  // namespace gpuscope
