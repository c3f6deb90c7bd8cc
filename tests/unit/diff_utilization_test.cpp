// `gpuscope diff` with GPU-wide samples (`--gpu-metrics`): each metric becomes one value per
// run (its mean over the run's samples, weighted by their windows); benches give the test,
// single captures only the two means.
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "gpuscope/analysis_diff.h"
#include "gpuscope/diff_report.h"
#include "gpuscope/runs.h"
#include "metrics_builder.h"
#include "metrics_trace.h"
#include "time_units.h"

namespace gpuscope {
namespace {

using analysis::Verdict;
using testing::kMs;
constexpr const char* kSm = "gpm__sm_active.pct";
constexpr const char* kTensor = "gpm__tensor_active.pct";

// One run: SM active `sm` % for 300 ms, then idle for 100 ms (a shorter last window); the
// tensor pipe active `tensor` % throughout.
Trace run_of(double sm, double tensor) {
  testing::TraceBuilder b;
  b.run(0, 500 * kMs);
  for (int i = 0; i < 3; ++i) testing::add_sample(b.trace(), kSm, i * 100 * kMs, (i + 1) * 100 * kMs, sm);
  testing::add_sample(b.trace(), kSm, 300 * kMs, 350 * kMs, 0);
  testing::add_sample(b.trace(), kTensor, 0, 350 * kMs, tensor);
  return b.trace();
}

Trace bench(double sm, double tensor, int runs = 5) {
  Trace out;
  for (uint32_t run = 1; run <= static_cast<uint32_t>(runs); ++run) {
    append_run(out, run_of(sm + run, tensor), run);
    out.runs.push_back({run, run * 1'000'000'000ll, run * 1'000'000'000ll + 500 * kMs, 0, 0});
  }
  return out;
}

const analysis::UtilizationDiffItem* find(const analysis::DiffResult& d, const std::string& metric) {
  for (const auto& u : d.utilization)
    if (u.metric == metric) return &u;
  return nullptr;
}

TEST(DiffUtilization, BenchesCompareOneWindowWeightedMeanPerRun) {
  const analysis::DiffResult d = analysis::diff_traces(bench(40, 0), bench(80, 50), {});
  EXPECT_TRUE(d.base_has_samples && d.new_has_samples);
  ASSERT_EQ(d.utilization.size(), 2u);
  EXPECT_EQ(d.utilization[0].metric, kSm) << "report order: SM active before the tensor pipe";
  const auto* sm = find(d, kSm);
  ASSERT_NE(sm, nullptr);
  EXPECT_EQ(sm->cmp.base_count, 5u) << "one value per run";
  // Run r: (40 + r) % for 300 ms and 0 % for 50 ms: mean (40 + r) * 300 / 350, median at r = 3.
  EXPECT_NEAR(sm->cmp.base_median, 43.0 * 300 / 350, 1e-9);
  EXPECT_NEAR(sm->cmp.new_median, 83.0 * 300 / 350, 1e-9);
  EXPECT_EQ(sm->cmp.verdict, Verdict::Slower);  // "higher"
  // A pipe that was idle and now works: the change is undefined, the rank test decides.
  const auto* tensor = find(d, kTensor);
  ASSERT_NE(tensor, nullptr);
  EXPECT_TRUE(std::isnan(tensor->cmp.change_percent));
  EXPECT_EQ(tensor->cmp.verdict, Verdict::Slower);
  // Utilization never enters the duration items (--fail-if-slower, [[baseline]] rules).
  for (const auto& item : d.items) EXPECT_NE(item.cmp.verdict, Verdict::Slower) << item.name;
}

TEST(DiffUtilization, SingleCapturesGiveTheMeansWithoutATest) {
  const analysis::DiffResult d = analysis::diff_traces(run_of(40, 10), run_of(80, 10), {});
  const auto* sm = find(d, kSm);
  ASSERT_NE(sm, nullptr);
  EXPECT_EQ(sm->cmp.base_count, 1u);
  EXPECT_NEAR(sm->cmp.base_median, 40.0 * 300 / 350, 1e-9);
  EXPECT_NEAR(sm->cmp.change_percent, 100, 1e-9);
  EXPECT_EQ(sm->cmp.verdict, Verdict::TooFew);
}

TEST(DiffUtilization, ValuesThatCouldNotBeComputedAreLeftOut) {
  Trace base = run_of(40, 10);
  testing::add_sample(base, kSm, 350 * kMs, 450 * kMs, std::nan(""));
  const analysis::DiffResult d = analysis::diff_traces(base, run_of(40, 10), {});
  EXPECT_NEAR(find(d, kSm)->cmp.base_median, 40.0 * 300 / 350, 1e-9);
}

TEST(DiffUtilization, RendersTheSectionAndSaysWhenOnlyOneFileHasSamples) {
  const analysis::DiffResult d = analysis::diff_traces(bench(40, 0), bench(80, 50), {});
  DiffReportInfo info{"base.gpuscope", "new.gpuscope", std::nullopt, 0};
  const auto json = nlohmann::json::parse(render_diff(d, info, parse_report_format("json")));
  const nlohmann::json* table = nullptr;
  for (const auto& s : json["sections"])
    if (s["key"] == "gpu_utilization") table = &s["tables"][0];
  ASSERT_NE(table, nullptr);
  const auto& row = (*table)["rows"][0];
  EXPECT_EQ(row["label"], "SM active");
  EXPECT_EQ(row["metric"], kSm);
  EXPECT_EQ(row["base_count"], 5);
  EXPECT_EQ(row["verdict"], "higher");
  const std::string text = render_diff(d, info, parse_report_format("text"));
  EXPECT_NE(text.find("GPU-wide samples: mean per run"), std::string::npos) << text;

  Trace plain = run_of(40, 10);
  plain.gpu_metric_samples.clear();
  const analysis::DiffResult one = analysis::diff_traces(plain, run_of(40, 10), {});
  EXPECT_TRUE(one.utilization.empty());
  const std::string one_text = render_diff(one, info, parse_report_format("text"));
  EXPECT_NE(one_text.find("GPU-wide samples are only in the new capture"), std::string::npos) << one_text;
  EXPECT_EQ(one_text.find("GPU-wide samples: mean per run"), std::string::npos);
}

}  // namespace
}  // namespace gpuscope
