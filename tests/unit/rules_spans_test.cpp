// Evidence spans (Finding::spans) beyond the per-rule tests: the shared helper that caps and
// orders them, rules that judge whole kernels pointing at that kernel's launches only, every
// finding on the real captures, and the JSON report carrying them on finding tables only.
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>

#include "analysis/rules/rule.h"
#include "find_finding.h"
#include "gpuscope/analysis_rules.h"
#include "gpuscope/analysis_timeline.h"
#include "gpuscope/report.h"
#include "gpuscope/store.h"
#include "metrics_trace.h"
#include "span_checks.h"
#include "test_files.h"
#include "time_units.h"

namespace gpuscope::analysis {
namespace {

using testing::find;
using testing::kMs;
using testing::kUs;
using testing::Metrics;
using testing::span_times;
using testing::SpanTimes;
using testing::TraceBuilder;

TEST(EvidenceSpans, KeepsTheLongestThenSortsByStartAndDropsUntimedRecords) {
  // 100 spans of 1 us, 10 us apart, and span 50 made the longest (5 us); plus two without times.
  std::vector<EvidenceSpan> in;
  for (int i = 100; i-- > 0;) in.push_back({1, (i + 1) * 10 * kUs, (i + 1) * 10 * kUs + (i == 50 ? 5 : 1) * kUs});
  in.push_back({1, 0, 5 * kUs});          // no start time
  in.push_back({1, 30 * kUs, 20 * kUs});  // ends before it starts
  const std::vector<EvidenceSpan> out = rules::evidence_spans(in);
  ASSERT_EQ(out.size(), kMaxEvidenceSpans);
  // The longest (at 510 us), then the earliest 63 of the equally long rest (10..500 and 520..640 us),
  // in time order.
  EXPECT_TRUE(std::is_sorted(out.begin(), out.end(), [](auto& a, auto& b) { return a.start < b.start; }));
  EXPECT_EQ(out.front().start, 10 * kUs);
  EXPECT_EQ(out[50].start, 510 * kUs);
  EXPECT_EQ(out[50].end - out[50].start, 5 * kUs);
  EXPECT_EQ(out.back().start, 640 * kUs);
  // Under the cap nothing is dropped but the untimed ones.
  EXPECT_EQ(rules::evidence_spans({{1, 5, 6}, {1, -1, 6}, {2, 1, 1}}).size(), 2u);
}

// Two kernels, 3 launches each: `cited` with 244 registers/thread (2 blocks/SM: 12.5 % occupancy)
// and 265 blocks (1.004 waves of 264), `other` with neither problem. Rules on kernels must point at
// `cited` only.
TEST(EvidenceSpans, KernelRulesPointAtTheLaunchesOfTheKernelTheyName) {
  TraceBuilder b;
  b.run(1, 100 * kMs);
  SpanTimes cited;
  for (int i = 0; i < 6; ++i) {
    const TimeNs t0 = 1 * kMs + i * 12 * kMs;
    const bool bad = i % 2 == 0;
    // `cited` varies (CV >= 20 %): 1, 2, 3 ms; `other` takes 3 ms each time.
    const TimeNs len = bad ? (1 + i / 2) * kMs : 3 * kMs;
    b.kernel(bad ? "cited" : "other", t0 + 10 * kUs, t0 + 10 * kUs + len, b.api("cudaLaunchKernel", t0, t0 + 5 * kUs));
    if (!bad) continue;
    b.trace().kernels.back().registers_per_thread = 244;
    b.trace().kernels.back().grid[0] = 265;
    cited.emplace_back(t0 + 10 * kUs, t0 + 10 * kUs + len);
  }
  const Trace& t = b.trace();
  const auto fs = run_rules(t);
  for (const char* rule : {"low_occupancy", "tail_effect"}) {
    const auto f = find(fs, rule);
    ASSERT_TRUE(f) << rule;
    testing::expect_spans_in_run(*f, t);
    EXPECT_EQ(span_times(*f), cited) << rule;
  }
}

// Each hardware-metric rule on 10 launches of "kern" measured with its pattern, next to one
// unmeasured launch of "other" (9 % of kernel time, not judged): the spans are kern's launches.
TEST(EvidenceSpans, MetricRulesPointAtTheLaunchesOfTheKernelTheyName) {
  const Metrics roof = testing::sol(20, 45, 45, 30, 20, 1e6) + testing::flops(1e9, 0, 0, 0) +
                       testing::level_bytes(1e9, 1.2e9, 4e9) + testing::h100_peaks();
  const std::pair<const char*, Metrics> cases[] = {
      {"far_from_roofline", roof},
      {"shared_bank_conflicts", testing::memory(1e8, 1e8, 50, 80, 13.2e6, 1e6) +
                                    testing::stalls({{"short_scoreboard", 5}, {"long_scoreboard", 3}}, 40)},
      {"memory_bound_kernel", testing::sol(20, 85, 85, 50, 30, 2e6) + testing::memory(4e9, 2e9, 20, 35, 0, 2e6)},
      {"dominant_stall", testing::sol(20, 40, 40, 30, 20, 2e6) +
                             testing::stalls({{"long_scoreboard", 6}, {"barrier", 2}, {"wait", 2}}, 20)},
      {"achieved_occupancy_gap", testing::occupancy(6.1, 3.9)},
      {"fp16_without_tensor_cores", testing::flops(1e5, 0, 1e9, 0) + testing::level_bytes(1e8, 2e8, 4e8)},
  };
  for (const auto& [rule, metrics] : cases) {
    TraceBuilder b;
    b.run(1, 100 * kMs);
    const TimeNs end = testing::launches(b, "kern", 10, 1 * kMs, 2 * kMs, metrics);
    b.kernel("other", end + 10 * kUs, end + 2010 * kUs, b.api("cudaLaunchKernel", end, end + 5 * kUs));
    SpanTimes kern;
    for (const Kernel& k : b.trace().kernels)
      if (b.trace().strings.get(k.name) == "kern") kern.emplace_back(k.start, k.end);
    const auto f = find(run_rules(b.trace()), rule);
    ASSERT_TRUE(f) << rule;
    testing::expect_spans_in_run(*f, b.trace());
    EXPECT_EQ(span_times(*f), kern) << rule;
  }
}

TEST(EvidenceSpans, EveryFindingOnTheRealCapturesPointsIntoTheRun) {
  for (const char* name : {"bsr_spmm_baseline.gpuscope", "bsr_spmm_fixed.gpuscope", "bsr_spmm_metrics.gpuscope"}) {
    SCOPED_TRACE(name);
    const Trace t = testing::read_test_capture(name);
    const auto fs = run_rules(t);
    EXPECT_FALSE(fs.empty());
    for (const Finding& f : fs) testing::expect_spans_in_run(f, t);
  }
}

// bsr_spmm's loop: 20 cudaMalloc + 20 cudaFree in iterations 2..5 (rules_real_capture_test).
TEST(EvidenceSpans, BsrSpmmAllocationSpansAreTheLoopsAllocationCalls) {
  const Trace t = testing::read_test_capture("bsr_spmm_baseline.gpuscope");
  const auto f = find(run_rules(t), "allocation_in_loop");
  ASSERT_TRUE(f);
  ASSERT_EQ(f->spans.size(), 40u);
  for (const EvidenceSpan& s : f->spans) {
    const auto call = std::find_if(t.api_calls.begin(), t.api_calls.end(), [&](const ApiCall& c) {
      return c.pid == s.pid && c.start == s.start && c.end == s.end;
    });
    ASSERT_NE(call, t.api_calls.end()) << s.start;
    EXPECT_EQ(classify_api(t.strings.get(call->name)), ApiClass::Allocation) << t.strings.get(call->name);
  }
}

// Findings carry their instances; the critical path's segments table its segments (the page
// outlines the path's work), every step's, whatever --top leaves of its rows.
TEST(EvidenceSpans, JsonReportCarriesThemOnFindingsAndTheCriticalPathOnly) {
  const Trace t = testing::read_test_capture("bsr_spmm_baseline.gpuscope");
  const auto fs = run_rules(t);
  const auto report = nlohmann::json::parse(render_report(t, {}, parse_report_format("json")));
  size_t with_spans = 0;
  bool path = false;
  for (const auto& section : report["sections"])
    for (const auto& table : section["tables"]) {
      if (!table.contains("spans")) continue;
      const std::string key = table["key"];
      if (key == "critical_path_segments") {
        path = true;
        EXPECT_GE(table["spans"].size(), table["rows"].size());
        for (const auto& span : table["spans"]) EXPECT_GE(span["end"], span["start"]);
        continue;
      }
      ++with_spans;
      ASSERT_EQ(key.rfind("finding_", 0), 0u) << key;
      const auto f = find(fs, key.substr(8));
      ASSERT_TRUE(f) << key;
      ASSERT_EQ(table["spans"].size(), f->spans.size()) << key;
      EXPECT_EQ(table["spans"][0]["pid"], f->spans[0].pid);
      EXPECT_EQ(table["spans"][0]["start"], f->spans[0].start);
      EXPECT_EQ(table["spans"][0]["end"], f->spans[0].end);
    }
  EXPECT_EQ(with_spans, fs.size());
  EXPECT_TRUE(path);
}

}  // namespace
}  // namespace gpuscope::analysis
