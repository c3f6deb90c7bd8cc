// What an imported file's source does not record (Trace::source_gaps): the rules that read it are
// not run and say so, and the report's tables say "not in the source" instead of "none captured".
// Shown on the real bsr_spmm baseline capture, whose top finding reads copy memory kinds.
#include <gtest/gtest.h>

#include <algorithm>

#include "gpuscope/analysis_rules.h"
#include "gpuscope/report.h"
#include "gpuscope/store.h"

namespace gpuscope {
namespace {

Trace baseline() { return read_trace(std::string(GPUSCOPE_TEST_DATA_DIR) + "/bsr_spmm_baseline.gpuscope"); }

bool fired(const std::vector<analysis::Finding>& fs, const std::string& rule) {
  return std::any_of(fs.begin(), fs.end(), [&](const analysis::Finding& f) { return f.rule == rule; });
}

TEST(SourceGaps, OwnCapturesRunEveryRule) {
  const Trace t = baseline();
  EXPECT_TRUE(analysis::rules_not_run(t).empty());
  EXPECT_TRUE(fired(analysis::run_rules(t), "pageable_copies"));
}

TEST(SourceGaps, RulesThatNeedMissingDataAreNotRunAndSaySo) {
  Trace t = baseline();
  t.source_gaps.push_back({kGapCopyMemoryKinds, "the source names no host memory kinds"});
  const auto fs = analysis::run_rules(t);
  EXPECT_FALSE(fired(fs, "pageable_copies"));
  EXPECT_TRUE(fired(fs, "allocation_in_loop"));  // reads API calls, which the source has
  const auto not_run = analysis::rules_not_run(t);
  ASSERT_EQ(not_run.size(), 1u);
  EXPECT_EQ(not_run[0], std::make_pair(std::string("pageable_copies"), std::string(kGapCopyMemoryKinds)));

  t.source_gaps.push_back({kGapApiCalls, "no API calls"});
  const auto without_api = analysis::run_rules(t);
  EXPECT_FALSE(fired(without_api, "allocation_in_loop"));
  EXPECT_FALSE(fired(without_api, "sync_copies"));
}

TEST(SourceGaps, ReportSaysNotInTheSourceInsteadOfNone) {
  Trace t = baseline();
  t.run.source_tool = "nsys";
  t.run.source_version = "2026.2.1.210";
  t.run.source_schema = "export schema 3.25.0";
  t.run.source_file = "run.sqlite";
  t.synchronizations.clear();
  t.source_gaps.push_back({kGapSynchronization, "the export has no CUPTI_ACTIVITY_KIND_SYNCHRONIZATION table"});
  ReportOptions options;
  const std::string text = render_report(t, options, parse_report_format("text"));
  EXPECT_NE(text.find("nsys 2026.2.1.210 (export schema 3.25.0)"), std::string::npos) << text;
  EXPECT_NE(text.find("Imported from"), std::string::npos);
  EXPECT_NE(text.find("first to last record nsys wrote"), std::string::npos);  // no launcher times in a file
  EXPECT_EQ(text.find("launcher start to exit"), std::string::npos);
  EXPECT_NE(text.find("not in the source (the export has no CUPTI_ACTIVITY_KIND_SYNCHRONIZATION table)"),
            std::string::npos);
  EXPECT_NE(text.find("synchronization: the export has no"), std::string::npos);  // the Run section lists it
  const std::string json = render_report(t, options, parse_report_format("json"));
  EXPECT_NE(json.find("not_in_source.synchronization"), std::string::npos);
}

TEST(SourceGaps, NoTimelineMeansNoWallTimeAndNoBottleneckAttribution) {
  Trace t = baseline();
  t.source_gaps.push_back({kGapTimeline, "ncu records no timestamps"});
  t.source_gaps.push_back({kGapApiCalls, "ncu's CSV has no CUDA API calls"});
  ReportOptions options;
  const std::string text = render_report(t, options, parse_report_format("text"));
  EXPECT_NE(text.find("Wall time           not in the source  timeline"), std::string::npos) << text;
  EXPECT_NE(text.find("CUDA API time       not in the source  api_calls"), std::string::npos) << text;
  EXPECT_NE(text.find("Not in the source  timeline: ncu records no timestamps"), std::string::npos) << text;
  EXPECT_EQ(text.find("Wall time by activity of the main thread"), std::string::npos) << text;
  EXPECT_EQ(text.find("Kernel time         not in the source"), std::string::npos);  // kernel durations are measured

  t.source_gaps.erase(t.source_gaps.begin());  // API calls missing, timestamps there: the GPU timeline stays
  const std::string gpu_only = render_report(t, options, parse_report_format("text"));
  EXPECT_NE(gpu_only.find("GPU timeline per device"), std::string::npos);
  EXPECT_EQ(gpu_only.find("Wall time by activity of the main thread"), std::string::npos);
}

}  // namespace
}  // namespace gpuscope
