// Which range's instances the report leads with as steps (analysis::detect_step_range) and
// `gpuscope report --iteration-range`: torch.profiler's ProfilerStep#N first, else the outermost
// NVTX range repeating 3+ times on the main thread, else none; a named range that is not there
// is one line and exit 2.
#include <gtest/gtest.h>

#include "gpuscope/analysis_steps.h"
#include "gpuscope/report.h"
#include "gpuscope/store.h"
#include "importers/importer.h"
#include "spool_builder.h"
#include "test_files.h"

namespace gpuscope {
namespace {

const std::string kData = GPUSCOPE_TEST_DATA_DIR;

TEST(StepsDetect, ProfilerStepRangesComeFirst) {
  const Trace trace = load_trace(kData + "/kineto/mlp_train.json.gz");
  EXPECT_EQ(analysis::detect_step_range(trace), analysis::kProfilerStepRange);
}

TEST(StepsDetect, ElseTheOutermostRangeRepeatingOnTheMainThread) {
  // bsr_spmm: 'iteration' (depth 0) x5 holds alloc/h2d/compute/d2h/free (depth 1) x5 each.
  const Trace trace = read_trace(kData + "/bsr_spmm_baseline.gpuscope");
  EXPECT_EQ(analysis::detect_step_range(trace), "iteration");
  const auto steps = analysis::summarize_steps(trace, "iteration");
  ASSERT_TRUE(steps);
  EXPECT_EQ(steps->steps.size(), 5u);
  EXPECT_GE(steps->first_ratio, analysis::kWarmupRatio);  // the first iteration pays for warm-up
}

TEST(StepsDetect, FewerThanThreeInstancesAreNoSteps) {
  Trace trace = read_trace(kData + "/bsr_spmm_baseline.gpuscope");
  // Keep two instances of every range: nothing repeats often enough to be a loop.
  std::map<StringId, int> kept;
  std::erase_if(trace.nvtx_ranges, [&](const NvtxRange& r) { return ++kept[r.name] > 2; });
  EXPECT_EQ(analysis::detect_step_range(trace), "");
  EXPECT_EQ(render_report(trace, {}, parse_report_format("text")).find("\nSteps\n"), std::string::npos);
}

TEST(StepsDetect, ReportLeadsWithTheStepsRightAfterTheSummary) {
  const Trace trace = read_trace(kData + "/bsr_spmm_baseline.gpuscope");
  const std::string text = render_report(trace, {}, parse_report_format("text"));
  const size_t summary = text.find("Executive summary\n"), steps = text.find("\nSteps\n-----"),
               bottleneck = text.find("\nBottleneck\n");
  ASSERT_NE(steps, std::string::npos) << text;
  EXPECT_LT(summary, steps);
  EXPECT_LT(steps, bottleneck);
  EXPECT_NE(text.find("\nSteps                              5                             iteration ranges"),
            std::string::npos);
}

TEST(StepsDetect, ReportIterationRangeNamesTheSteps) {
  const std::string dir = testing::scratch_dir("steps_cli");
  const std::string capture = kData + "/bsr_spmm_baseline.gpuscope";
  const testing::CliResult r = testing::run_gpuscope(dir, "report " + capture + " --iteration-range compute");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\nSteps                              5                             compute ranges"),
            std::string::npos)
      << r.out;
  testing::expect_one_line_error(testing::run_gpuscope(dir, "report " + capture + " --iteration-range no_such_range"),
                                 "--iteration-range 'no_such_range': no NVTX range of that name in the capture");
}

}  // namespace
}  // namespace gpuscope
