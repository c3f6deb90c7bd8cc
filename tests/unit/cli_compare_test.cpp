// `gpuscope diff` and `gpuscope check` run the way CI jobs run them: exit
// codes (0 pass, 1 regression / failed gate, 2 bad input) and what they write.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "spool_builder.h"

namespace gpuscope {
namespace {

struct CliRun {
  int exit_code;
  std::string out, err;
};

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Runs gpuscope in dir with the test captures reachable as base.gpuscope / fixed.gpuscope.
CliRun cli(const std::string& dir, const std::string& args) {
  const std::string data = GPUSCOPE_TEST_DATA_DIR;
  const std::string cmd = "cd '" + dir + "' && ln -sf '" + data + "/bsr_spmm_baseline.gpuscope' base.gpuscope && ln -sf '" +
                          data + "/bsr_spmm_fixed.gpuscope' fixed.gpuscope && " + GPUSCOPE_BINARY + " " + args +
                          " >out.txt 2>err.txt </dev/null";
  const int status = std::system(cmd.c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, read_file(dir + "/out.txt"), read_file(dir + "/err.txt")};
}

TEST(CliDiff, ExitCodesOfTheRegressionGate) {
  const std::string dir = testing::scratch_dir("cli_diff_gate");
  CliRun improved = cli(dir, "diff base.gpuscope fixed.gpuscope --fail-if-slower 25");
  EXPECT_EQ(improved.exit_code, 0) << improved.err;
  EXPECT_NE(improved.out.find("Gate --fail-if-slower 25%: passed."), std::string::npos);
  CliRun reverse = cli(dir, "diff fixed.gpuscope base.gpuscope --fail-if-slower 25");
  EXPECT_EQ(reverse.exit_code, 1);
  EXPECT_NE(reverse.err.find("gpuscope: slower: memory DtoH [256 MiB, 512 MiB) [pinned -> pageable]"), std::string::npos)
      << reverse.err;
  // Without the flag a regression is reported, not fatal.
  EXPECT_EQ(cli(dir, "diff fixed.gpuscope base.gpuscope").exit_code, 0);
  // A practical threshold above every change hides them all.
  EXPECT_EQ(cli(dir, "diff fixed.gpuscope base.gpuscope --fail-if-slower 1 --min-change 1000").exit_code, 0);
}

TEST(CliDiff, FormatsAndOutputFile) {
  const std::string dir = testing::scratch_dir("cli_diff_formats");
  CliRun json = cli(dir, "diff base.gpuscope fixed.gpuscope --format json -o diff.json");
  EXPECT_EQ(json.exit_code, 0) << json.err;
  EXPECT_TRUE(json.out.empty());
  const std::string text = read_file(dir + "/diff.json");
  EXPECT_EQ(text.front(), '{');
  EXPECT_NE(text.find("\"verdict\""), std::string::npos);
  CliRun md = cli(dir, "diff base.gpuscope fixed.gpuscope --format markdown");
  EXPECT_EQ(md.out.rfind("# gpuscope diff", 0), 0u);
}

TEST(CliDiff, BadInputIsExitTwoWithOneLine) {
  const std::string dir = testing::scratch_dir("cli_diff_bad");
  for (const std::string args : {"diff base.gpuscope missing.gpuscope", "diff base.gpuscope",
                                 "diff base.gpuscope fixed.gpuscope --format xml",
                                 "diff base.gpuscope fixed.gpuscope --alpha 2"}) {
    CliRun r = cli(dir, args);
    EXPECT_EQ(r.exit_code, 2) << args;
  }
  CliRun missing = cli(dir, "diff base.gpuscope missing.gpuscope");
  EXPECT_EQ(missing.err.rfind("gpuscope: ", 0), 0u);
  EXPECT_EQ(std::count(missing.err.begin(), missing.err.end(), '\n'), 1);
}

}  // namespace
}  // namespace gpuscope
