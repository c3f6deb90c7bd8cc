// gpuscope check: the rules parser (strict, line-numbered errors), every gate
// outcome on the real bsr_spmm captures, and the command's exit codes.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

#include "common/error.h"
#include "common/glob.h"
#include "common/utf8.h"
#include "gpuscope/check_report.h"
#include "gpuscope/store.h"
#include "spool_builder.h"
#include "test_files.h"

namespace gpuscope::check {
namespace {

// The message of the Error that parsing `text` throws ("" when none).
std::string parse_error(const std::string& text) {
  try {
    parse_rules(text, "rules.toml");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

CheckResult run(const std::string& rules, const std::string& file, const std::string& baseline = "") {
  const Trace trace = testing::read_test_capture(file);
  Trace base;
  if (!baseline.empty()) base = testing::read_test_capture(baseline);
  return evaluate(parse_rules(rules, "rules.toml"), trace, baseline.empty() ? nullptr : &base, {});
}

TEST(CheckRules, ParsesEveryRuleKindInFileOrder) {
  GateSet set = parse_rules(R"(
[[total]]
name = "wall"
max = "1.5 s"

[[kernel]]
id = "spmm"
match = "*spmm*"
stat = "count"
min = 5

[[baseline]]
max_slower_pct = 3

[[kernel]]
match = "*"
min = "10 us"
max = "2ms"
)",
                            "rules.toml");
  ASSERT_EQ(set.rules.size(), 4u);
  EXPECT_EQ(set.rules[0].kind, GateKind::Total);
  EXPECT_DOUBLE_EQ(*set.rules[0].max, 1.5e9);
  EXPECT_EQ(set.rules[1].id, "spmm");
  EXPECT_FALSE(set.rules[1].duration);
  EXPECT_DOUBLE_EQ(*set.rules[1].min, 5);
  EXPECT_EQ(set.rules[2].kind, GateKind::Baseline);
  EXPECT_EQ(set.rules[2].item_kind, "any");
  EXPECT_EQ(set.rules[3].id, "kernel#2");
  EXPECT_DOUBLE_EQ(*set.rules[3].min, 1e4);
  EXPECT_DOUBLE_EQ(*set.rules[3].max, 2e6);
  EXPECT_EQ(set.rules[3].line, 15);
  EXPECT_TRUE(set.needs_baseline());
}

TEST(CheckRules, BadFilesAreLineNumberedErrors) {
  const std::pair<const char*, const char*> cases[] = {
      {"[[total]]\nname = \"wall\"\nmax = 250\n", "rules.toml:3: 'max' is a duration"},
      {"[[total]]\nname = \"wall\"\nmax = \"250 parsecs\"\n", "rules.toml:3: 'max' = \"250 parsecs\""},
      {"[[total]]\nname = \"lunch\"\nmax = \"1 s\"\n", "rules.toml:2: unknown total 'lunch'"},
      {"[[total]]\nname = \"wall\"\n", "rules.toml:1: [[total]] needs 'min' or 'max'"},
      {"[[kernel]]\nmatch = \"*\"\nmax = \"1 ms\"\nmaxx = 3\n", "rules.toml:4: unknown key 'maxx'"},
      {"[[kernel]]\nmax = \"1 ms\"\n", "rules.toml:1: [[kernel]] needs a non-empty 'match'"},
      {"[[kernel]]\nmatch = \"*\"\nstat = \"p99\"\nmax = \"1 ms\"\n", "rules.toml:3: unknown stat 'p99'"},
      {"[[kernel]]\nmatch = \"*\"\nmin = \"2 ms\"\nmax = \"1 ms\"\n", "'min' is larger than 'max'"},
      {"[[baseline]]\nkind = \"kernel\"\n", "rules.toml:1: [[baseline]] needs 'max_slower_pct'"},
      {"[[baseline]]\nkind = \"gpu\"\nmax_slower_pct = 3\n", "rules.toml:2: unknown kind 'gpu'"},
      {"[[metric]]\nname = \"sm__throughput\"\nmin = \"85%\"\n", "rules.toml:3: 'min' must be a number"},
      {"[total]\nname = \"wall\"\n", "'total' must be an array of tables"},
      {"[[gates]]\nx = 1\n", "rules.toml:1: unknown table 'gates'"},
      {"[[total]\nname = \"wall\"\n", "rules.toml:1: "},
      {"name = \"x\"\n", "unknown table 'name'"},
      {"# nothing\n", "rules.toml: no rules"},
      // Non-ASCII text outside "strings" (NonAsciiTextOnlyInStringsAndComments).
      {"[[total]]\n0 µs\n", "rules.toml:2: 'µ' outside a string or a comment"},
      {"[[total]]\nname = \"wall\"\nmax = tµ\n", "rules.toml:3: 'µ' outside a string"},
      {"[[total]]\n'µ' = 1\n", "rules.toml:2: 'µ' in a 'literal string'"},
      {"[[total]]\nname = \"wall\"\nmax = \"1 \\µs\"\n", "rules.toml:3: a backslash before a non-ASCII character"},
      {"[[total]]\nname = \"wall\"\nmax = \"1 s\"\n\"µ\" = 1\n", "rules.toml:4: unknown key 'µ'"},
  };
  for (const auto& [text, expected] : cases) {
    const std::string message = parse_error(text);
    EXPECT_NE(message.find(expected), std::string::npos) << "rules:\n" << text << "message: " << message;
  }
}

// toml++ 3.3.0 classifies characters with a test that is undefined behaviour for U+00A1..U+0499
// (found by the rules fuzz target: tests/fuzz/regressions/rules). Non-ASCII text reaches it only
// as escapes: in "strings" it reads as before; elsewhere it is refused with its line
// (BadFilesAreLineNumberedErrors).
TEST(CheckRules, NonAsciiTextOnlyInStringsAndComments) {
  const GateSet set = parse_rules(
      "# größte Wandzeit\n[[total]]\nid = \"wall \\u00b5 é中😀\"\nname = \"wall\"\n"
      "max = \"2500 µs\"\nmin = \"\"\"1 \\\n   µs\"\"\"\n",
      "rules.toml");
  ASSERT_EQ(set.rules.size(), 1u);
  EXPECT_EQ(set.rules[0].id, "wall µ é中😀");
  EXPECT_EQ(set.rules[0].max, 2.5e6);
  EXPECT_EQ(set.rules[0].min, 1e3);
}

TEST(CheckRules, Glob) {
  EXPECT_TRUE(glob_match("*", ""));
  EXPECT_TRUE(glob_match("*spmm*", "void bsr::bsr_spmm_kernel<128>"));
  EXPECT_TRUE(glob_match("cuda?emcpy", "cudaMemcpy"));
  EXPECT_FALSE(glob_match("cuda?emcpy", "cudaMemcpyAsync"));
  EXPECT_TRUE(glob_match("a*b*c", "axxbyyc"));
  EXPECT_FALSE(glob_match("a*b*c", "axxbyy"));
}

TEST(CheckGates, ThresholdsPassAndFail) {
  CheckResult pass = run(
      "[[total]]\nname = \"wall\"\nmax = \"1.5 s\"\n[[kernel]]\nmatch = \"*bsr_spmm_kernel*\"\n"
      "max = \"1.1 ms\"\n",
      "bsr_spmm_fixed.gpuscope");
  ASSERT_EQ(pass.outcomes.size(), 2u);
  EXPECT_EQ(pass.failures(), 0u);
  CheckResult fail = run(
      "[[total]]\nname = \"gpu_busy\"\nmax = \"100 ms\"\n[[kernel]]\nmatch = \"*\"\nstat = \"count\"\n"
      "min = 6\n",
      "bsr_spmm_baseline.gpuscope");
  ASSERT_EQ(fail.outcomes.size(), 2u);
  EXPECT_FALSE(fail.outcomes[0].passed);  // 330 ms of copies and kernels
  EXPECT_FALSE(fail.outcomes[1].passed);  // 5 launches < 6
  EXPECT_EQ(fail.failures(), 2u);
  const std::string junit = render_junit(fail);
  EXPECT_NE(junit.find("<testsuites name=\"gpuscope check\" tests=\"2\" failures=\"2\""), std::string::npos) << junit;
  EXPECT_NE(junit.find("<failure message=\"measured 330.4 ms, limit &lt;= 100.0 ms\""), std::string::npos) << junit;
}

// Gate ids and kernel names may hold any bytes; the JUnit file must still be XML 1.0 that parses.
TEST(CheckGates, JunitHoldsOnlyXmlCharacters) {
  CheckResult result;
  result.file = "run\x01.gpuscope";
  result.rules_file = "rules.toml";
  Outcome o;
  o.rule_id = "gate\x1b[31m";
  o.target = std::string("kern<T>\n&\xff\xc3(\t\x7f\xef\xbf\xbf") + "\xc3\xa9";
  o.value = 2e6;
  o.max = 1e6;
  o.passed = false;
  o.message = "slow\x02";
  result.outcomes.push_back(o);
  const std::string junit = render_junit(result);
  EXPECT_EQ(utf8::valid(junit), junit) << "valid UTF-8";
  for (char c : junit) EXPECT_TRUE(c == '\n' || static_cast<unsigned char>(c) >= 0x20) << "control byte " << int(c);
  EXPECT_EQ(junit.find("\xef\xbf\xbf"), std::string::npos) << "U+FFFF is not an XML character (DEL is)";
  const std::string fffd = "\xef\xbf\xbd";
  EXPECT_NE(junit.find("name=\"kern&lt;T&gt;&#10;&amp;" + fffd + fffd + "(&#9;\x7f" + fffd + "\xc3\xa9\""),
            std::string::npos)
      << junit;
  EXPECT_NE(junit.find("classname=\"gpuscope.check.gate" + fffd + "[31m\""), std::string::npos) << junit;
}

TEST(CheckGates, BaselineRulesAreSignificanceAware) {
  const std::string rules =
      "[[baseline]]\nkind = \"kernel\"\nmax_slower_pct = 3\n"
      "[[baseline]]\nkind = \"memory\"\nmatch = \"DtoH*\"\nmax_slower_pct = 3\n";
  CheckResult improved = run(rules, "bsr_spmm_fixed.gpuscope", "bsr_spmm_baseline.gpuscope");
  EXPECT_EQ(improved.failures(), 0u);
  CheckResult regressed = run(rules, "bsr_spmm_baseline.gpuscope", "bsr_spmm_fixed.gpuscope");
  ASSERT_EQ(regressed.outcomes.size(), 2u);
  EXPECT_TRUE(regressed.outcomes[0].passed);  // the kernel: no significant change either way
  EXPECT_FALSE(regressed.outcomes[1].passed);
  EXPECT_EQ(regressed.outcomes[1].message, "slower");
  const std::string md = render_check(regressed, parse_report_format("markdown"));
  EXPECT_NE(md.find("FAILED: 1 of 2 checks"), std::string::npos) << md;
}

TEST(CheckGates, NothingMatchedMissingMetricOrBaselineIsAnError) {
  auto message = [](const std::string& rules, const std::string& baseline = "") {
    try {
      run(rules, "bsr_spmm_fixed.gpuscope", baseline);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(message("[[kernel]]\nmatch = \"*flash*\"\nmax = \"1 ms\"\n")
                .find("rules.toml:1: kernel rule 'kernel#1' matches no kernel"),
            std::string::npos);
  EXPECT_NE(message("[[baseline]]\nkind = \"nvtx\"\nmatch = \"epoch*\"\nmax_slower_pct = 3\n",
                    "bsr_spmm_baseline.gpuscope")
                .find("matches nothing"),
            std::string::npos);
  EXPECT_NE(message("[[metric]]\nname = \"sm__throughput.avg.pct_of_peak_sustained_elapsed\"\nmin = 85\n")
                .find("rules.toml:1: metric sm__throughput.avg.pct_of_peak_sustained_elapsed not in capture"),
            std::string::npos);
  EXPECT_NE(message("[[baseline]]\nmax_slower_pct = 3\n").find("need --baseline"), std::string::npos);
}

// The command, as a CI job runs it.
testing::CliResult check_cli(const std::string& dir, const std::string& rules, const std::string& args) {
  std::ofstream(dir + "/rules.toml") << rules;
  return testing::run_gpuscope(dir, "check " + args + " --rules rules.toml");
}

// Rules files are read whole, so only bounded regular files are read: /dev/zero would fill memory
// and a FIFO would block forever.
TEST(CheckCli, RulesMustBeABoundedRegularFile) {
  const std::string dir = testing::scratch_dir("check_cli_rules_bounds");
  const std::string fixed = std::string(GPUSCOPE_TEST_DATA_DIR) + "/bsr_spmm_fixed.gpuscope";
  std::ofstream(dir + "/huge.toml") << "# padding\n" << std::string(2 << 20, '#') << "\n";
  testing::expect_one_line_error(testing::run_gpuscope(dir, "check " + fixed + " --rules huge.toml"),
                                 "cannot read rules file huge.toml: larger than 1 MiB", "huge");
  testing::expect_one_line_error(testing::run_gpuscope(dir, "check " + fixed + " --rules /dev/zero"),
                                 "cannot read rules file /dev/zero: not a regular file", "device");
  ASSERT_EQ(std::system(("mkfifo " + dir + "/fifo.toml").c_str()), 0);
  testing::expect_one_line_error(testing::run_gpuscope(dir, "check " + fixed + " --rules fifo.toml"),
                                 "cannot read rules file fifo.toml: not a regular file", "fifo");
}

TEST(CheckCli, ExitCodesZeroOneTwo) {
  const std::string dir = testing::scratch_dir("check_cli");
  const std::string data = GPUSCOPE_TEST_DATA_DIR;
  const std::string fixed = data + "/bsr_spmm_fixed.gpuscope", base = data + "/bsr_spmm_baseline.gpuscope";
  const std::string gate = "[[baseline]]\nkind = \"memory\"\nmax_slower_pct = 50\n";
  testing::CliResult ok = check_cli(dir, gate, fixed + " --baseline " + base + " --junit junit.xml");
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_NE(ok.out.find("passed"), std::string::npos);
  std::ifstream junit(dir + "/junit.xml");
  EXPECT_TRUE(junit.good());
  testing::CliResult failed = check_cli(dir, gate, base + " --baseline " + fixed + " --format markdown");
  EXPECT_EQ(failed.exit_code, 1) << failed.err;
  EXPECT_NE(failed.out.find("| FAIL |"), std::string::npos);
  for (const std::string& bad : {std::string("[[total]]\nname = \"wall\"\nmax = 3\n"),
                                 std::string("[[metric]]\nname = \"dram__throughput\"\nmin = 80\n"),
                                 std::string("[[kernel]]\nmatch = \"nothing\"\nmax = \"1 ms\"\n")}) {
    testing::CliResult e = check_cli(dir, bad, fixed);
    EXPECT_EQ(e.exit_code, 2) << bad;
    EXPECT_EQ(e.err.rfind("gpuscope: rules.toml:", 0), 0u) << e.err;
  }
  EXPECT_EQ(check_cli(dir, gate, fixed).exit_code, 2);  // baseline rule without --baseline
  EXPECT_EQ(check_cli(dir, gate, "missing.gpuscope --baseline " + base).exit_code, 2);
}

}  // namespace
}  // namespace gpuscope::check
