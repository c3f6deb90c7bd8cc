// `gpuscope diff` and `gpuscope check` run the way CI jobs run them: exit
// codes (0 pass, 1 regression / failed gate, 2 bad input) and what they write.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <utility>

#include "spool_builder.h"
#include "test_files.h"

namespace gpuscope {
namespace {

using testing::CliResult;

// Runs gpuscope in dir with the test captures reachable as base.gpuscope / fixed.gpuscope.
CliResult cli(const std::string& dir, const std::string& args) {
  const std::string data = GPUSCOPE_TEST_DATA_DIR;
  for (const auto& [link, capture] : {std::pair{"base.gpuscope", "bsr_spmm_baseline.gpuscope"},
                                      std::pair{"fixed.gpuscope", "bsr_spmm_fixed.gpuscope"}}) {
    std::filesystem::remove(dir + "/" + link);
    std::filesystem::create_symlink(data + "/" + capture, dir + "/" + link);
  }
  return testing::run_gpuscope(dir, args);
}

TEST(CliDiff, ExitCodesOfTheRegressionGate) {
  const std::string dir = testing::scratch_dir("cli_diff_gate");
  CliResult improved = cli(dir, "diff base.gpuscope fixed.gpuscope --fail-if-slower 25");
  EXPECT_EQ(improved.exit_code, 0) << improved.err;
  EXPECT_NE(improved.out.find("Gate --fail-if-slower 25%: passed."), std::string::npos);
  CliResult reverse = cli(dir, "diff fixed.gpuscope base.gpuscope --fail-if-slower 25");
  EXPECT_EQ(reverse.exit_code, 1);
  EXPECT_NE(reverse.err.find("gpuscope: slower: memory DtoH [256 MiB, 512 MiB) [pinned -> pageable]"),
            std::string::npos)
      << reverse.err;
  // Without the flag a regression is reported, not fatal.
  EXPECT_EQ(cli(dir, "diff fixed.gpuscope base.gpuscope").exit_code, 0);
  // A practical threshold above every change hides them all.
  EXPECT_EQ(cli(dir, "diff fixed.gpuscope base.gpuscope --fail-if-slower 1 --min-change 1000").exit_code, 0);
}

TEST(CliDiff, FormatsAndOutputFile) {
  const std::string dir = testing::scratch_dir("cli_diff_formats");
  CliResult json = cli(dir, "diff base.gpuscope fixed.gpuscope --format json -o diff.json");
  EXPECT_EQ(json.exit_code, 0) << json.err;
  EXPECT_TRUE(json.out.empty());
  const std::string text = testing::read_text_file(dir + "/diff.json");
  EXPECT_EQ(text.front(), '{');
  EXPECT_NE(text.find("\"verdict\""), std::string::npos);
  CliResult md = cli(dir, "diff base.gpuscope fixed.gpuscope --format markdown");
  EXPECT_EQ(md.out.rfind("# gpuscope diff", 0), 0u);
}

TEST(CliDiff, BadInputIsExitTwoWithOneLine) {
  const std::string dir = testing::scratch_dir("cli_diff_bad");
  for (const std::string args :
       {"diff base.gpuscope missing.gpuscope", "diff base.gpuscope", "diff base.gpuscope fixed.gpuscope --format xml",
        "diff base.gpuscope fixed.gpuscope --alpha 2"}) {
    CliResult r = cli(dir, args);
    EXPECT_EQ(r.exit_code, 2) << args;
  }
  CliResult missing = cli(dir, "diff base.gpuscope missing.gpuscope");
  EXPECT_EQ(missing.err.rfind("gpuscope: ", 0), 0u);
  EXPECT_EQ(std::count(missing.err.begin(), missing.err.end(), '\n'), 1);
}

TEST(CliDiff, IterationRangeComparesIterationsAndRefusesWhatItCannotJudge) {
  const std::string dir = testing::scratch_dir("cli_diff_iterations");
  CliResult ok = cli(dir, "diff base.gpuscope fixed.gpuscope --iteration-range iteration --skip-iterations 1");
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_NE(ok.out.find("Base iterations        4          1 warm-up skipped, in 1 process"), std::string::npos)
      << ok.out;
  EXPECT_NE(ok.out.find("Totals: time per iteration"), std::string::npos);
  // The reverse is a judged regression of the iteration time, which the gate names.
  CliResult gate = cli(dir, "diff fixed.gpuscope base.gpuscope --iteration-range iteration --fail-if-slower 25");
  EXPECT_EQ(gate.exit_code, 1);
  EXPECT_NE(gate.err.find("gpuscope: slower: total Iteration time +"), std::string::npos) << gate.err;
  // A missing range, and too few iterations for a verdict: one line each, exit 2.
  for (const std::string args : {"diff base.gpuscope fixed.gpuscope --iteration-range step",
                                 "diff base.gpuscope fixed.gpuscope --iteration-range iteration --skip-iterations 3"}) {
    CliResult r = cli(dir, args);
    EXPECT_EQ(r.exit_code, 2) << args;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
  EXPECT_EQ(cli(dir, "diff base.gpuscope fixed.gpuscope --iteration-range step").err,
            "gpuscope: NVTX range 'step' not found in base.gpuscope (ranges there: alloc, compute, d2h, free, h2d, "
            "host_setup, iteration, verify)\n");
  EXPECT_NE(cli(dir, "diff base.gpuscope fixed.gpuscope --iteration-range iteration --skip-iterations 3")
                .err.find("a verdict needs at least 3 iterations a side"),
            std::string::npos);
  EXPECT_EQ(cli(dir, "diff base.gpuscope fixed.gpuscope --skip-iterations 1").exit_code, 2);  // needs the range
  // An empty name (an unset shell variable): refused by the flag, for diff and report alike.
  for (const std::string args :
       {"diff base.gpuscope fixed.gpuscope --iteration-range ''", "report base.gpuscope --iteration-range ''"}) {
    CliResult r = cli(dir, args);
    EXPECT_EQ(r.exit_code, 2) << args;
    EXPECT_NE(r.err.find("an empty NVTX range name"), std::string::npos) << r.err;
  }
}

// report --iteration-range on a torch.profiler trace: a glob that takes in the GPU spans of the
// steps too is one line and exit 2, not steps of 0.00 ms.
TEST(CliReport, AnIterationRangeMatchingCpuAndGpuRangesIsRefused) {
  const std::string dir = testing::scratch_dir("cli_report_mixed_range");
  const std::string trace = testing::test_data("kineto/mlp_train.json.gz");
  CliResult r = cli(dir, "report " + trace + " --iteration-range '*Step*'");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find("matches both CPU ranges ('ProfilerStep#"), std::string::npos) << r.err;
  EXPECT_EQ(cli(dir, "report " + trace + " --iteration-range 'ProfilerStep#*'").exit_code, 0);
}

TEST(CliCheck, IterationRangeAppliesToBaselineRules) {
  const std::string dir = testing::scratch_dir("cli_check_iterations");
  std::ofstream(dir + "/rules.toml") << "[[baseline]]\nkind = \"nvtx\"\nmatch = \"h2d\"\nmax_slower_pct = 3\n";
  CliResult ok = cli(dir,
                     "check fixed.gpuscope --baseline base.gpuscope --rules rules.toml --iteration-range iteration");
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  CliResult failed = cli(
      dir, "check base.gpuscope --baseline fixed.gpuscope --rules rules.toml --iteration-range iteration");
  EXPECT_EQ(failed.exit_code, 1) << failed.err;
  CliResult alone = cli(dir, "check fixed.gpuscope --rules rules.toml --iteration-range iteration");
  EXPECT_EQ(alone.exit_code, 2);
  EXPECT_EQ(
      cli(dir, "check fixed.gpuscope --baseline base.gpuscope --rules rules.toml --iteration-range nope").exit_code, 2);
}

}  // namespace
}  // namespace gpuscope
