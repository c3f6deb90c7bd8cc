// `gpuscope check` [[metric]] rules: parsing, absolute limits on a kernel's median,
// change limits against a baseline, clear errors for missing metrics, JUnit and exit codes.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include "common/error.h"
#include "gpuscope/check_report.h"
#include "gpuscope/store.h"
#include "metrics_builder.h"
#include "spool_builder.h"

namespace gpuscope::check {
namespace {

using testing::around;
using testing::kDramBytes;
using testing::kSmThroughput;

constexpr const char* kConflicts = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum";

// gemm: 20 launches with SM throughput, DRAM bytes and bank conflicts; copy_kernel: 4 with SM throughput.
Trace capture(double sm, double dram, double conflicts = 0) {
  testing::TraceBuilder b;
  testing::launches_with_metrics(b, "gemm",
                                 {{kSmThroughput, around(sm, 20)},
                                  {kDramBytes, around(dram, 20)},
                                  {kConflicts, std::vector<double>(20, conflicts)}});
  testing::launches_with_metrics(b, "copy_kernel", {{kSmThroughput, {20, 21, 22, 23}}}, 1'000'000);
  return b.trace();
}

std::string error_of(const std::string& rules, const Trace& trace, const Trace* baseline = nullptr) {
  try {
    evaluate(parse_rules(rules, "rules.toml"), trace, baseline, {});
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(CheckMetricRules, ParsesLimitsAndRefusesBadOnes) {
  const GateSet set = parse_rules(R"(
[[metric]]
name = "sm__throughput.avg.pct_of_peak_sustained_elapsed"
match = "gemm*"
min = 85

[[metric]]
id = "dram"
name = "dram__bytes_read.sum"
max_change_pct = 5

[[metric]]
name = "dram__bytes_read.sum"
max_increase_pct = 10
)",
                                  "rules.toml");
  ASSERT_EQ(set.rules.size(), 3u);
  EXPECT_EQ(set.rules[0].match, "gemm*");
  EXPECT_FALSE(set.rules[0].needs_baseline());
  EXPECT_DOUBLE_EQ(*set.rules[1].max_increase_percent, 5);
  EXPECT_DOUBLE_EQ(*set.rules[1].max_decrease_percent, 5);
  EXPECT_FALSE(set.rules[2].max_decrease_percent);
  EXPECT_TRUE(set.needs_baseline());

  auto message = [](const std::string& text) {
    try {
      parse_rules(text, "rules.toml");
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  EXPECT_EQ(message("[[metric]]\nname = \"x.sum\"\n"),
            "rules.toml:1: [[metric]] needs 'min' or 'max', or a change limit against --baseline "
            "('max_change_pct', 'max_increase_pct', 'max_decrease_pct')");
  EXPECT_EQ(message("[[metric]]\nname = \"x.sum\"\nmax_change_pct = 5\nmax_decrease_pct = 2\n"),
            "rules.toml:1: 'max_change_pct' bounds both directions: give it, or 'max_increase_pct' / "
            "'max_decrease_pct', not both");
  EXPECT_EQ(message("[[metric]]\nname = \"x.sum\"\nmax_increase_pct = -1\n"),
            "rules.toml:3: 'max_increase_pct' must be a percentage >= 0");
  EXPECT_NE(message("[[metric]]\nname = \"x.sum\"\nmax_slower_pct = 3\n").find("unknown key 'max_slower_pct'"),
            std::string::npos);
}

TEST(CheckMetricRules, AbsoluteLimitsApplyToEachMatchingKernelsMedian) {
  const Trace t = capture(80, 1000);
  const CheckResult r = evaluate(parse_rules(R"(
[[metric]]
name = "sm__throughput.avg.pct_of_peak_sustained_elapsed"
min = 50
)",
                                             "rules.toml"),
                                 t, nullptr, {});
  ASSERT_EQ(r.outcomes.size(), 2u);
  EXPECT_EQ(r.outcomes[0].target, "gemm (SM throughput)");
  EXPECT_EQ(r.outcomes[0].measure, Measure::Metric);
  EXPECT_DOUBLE_EQ(r.outcomes[0].value, 80);
  EXPECT_TRUE(r.outcomes[0].passed);
  EXPECT_EQ(r.outcomes[0].message, "median of 20 launches");
  EXPECT_EQ(r.outcomes[1].target, "copy_kernel (SM throughput)");
  EXPECT_DOUBLE_EQ(r.outcomes[1].value, 21.5);
  EXPECT_FALSE(r.outcomes[1].passed);
  const std::string text = render_check(r, parse_report_format("text"));
  EXPECT_NE(text.find("21.5%"), std::string::npos) << "formatted in the metric's unit\n" << text;
  EXPECT_NE(text.find(">= 50.0%"), std::string::npos) << text;

  const CheckResult only_gemm = evaluate(
      parse_rules("[[metric]]\nname = \"dram__bytes_read.sum\"\nmatch = \"gem?\"\nmax = 999\n", "rules.toml"), t,
      nullptr, {});
  ASSERT_EQ(only_gemm.outcomes.size(), 1u);
  EXPECT_FALSE(only_gemm.outcomes[0].passed);
}

TEST(CheckMetricRules, MissingMetricsAreClearErrors) {
  testing::TraceBuilder plain;
  plain.kernel("gemm", 0, 10, plain.api("cudaLaunchKernel", 0, 5));
  const std::string rule = "[[metric]]\nname = \"dram__bytes_read.sum\"\nmax = 1\n";
  EXPECT_EQ(error_of(rule, plain.trace()),
            "rules.toml:1: metric dram__bytes_read.sum not in capture (it has no kernel metrics; capture with "
            "'gpuscope profile --metrics SETS')");
  testing::kernel_collection(plain.trace(), "no permission to read GPU counters (see docs/capture.md)", 0);
  EXPECT_EQ(error_of(rule, plain.trace()),
            "rules.toml:1: metric dram__bytes_read.sum not in capture (metric collection failed: no permission to "
            "read GPU counters (see docs/capture.md))");
  const Trace with = capture(80, 1000);
  EXPECT_EQ(error_of("[[metric]]\nname = \"lts__t_sector_hit_rate.pct\"\nmin = 1\n", with),
            "rules.toml:1: metric lts__t_sector_hit_rate.pct not in capture (it has: " + std::string(kDramBytes) +
                ", " + kConflicts + ", " + kSmThroughput + ")");
  EXPECT_EQ(error_of("[[metric]]\nname = \"dram__bytes_read.sum\"\nmatch = \"copy*\"\nmax = 1\n", with),
            "rules.toml:1: metric rule 'metric#1' matches no kernel with dram__bytes_read.sum (match = \"copy*\"; "
            "kernels with it: gemm)");
  // Change limits need a baseline, and the metric in it.
  const std::string change = "[[metric]]\nname = \"dram__bytes_read.sum\"\nmax_change_pct = 5\n";
  EXPECT_NE(error_of(change, with).find("need --baseline"), std::string::npos);
  EXPECT_NE(error_of(change, with, &plain.trace()).find("metric dram__bytes_read.sum not in baseline"),
            std::string::npos);
}

TEST(CheckMetricRules, ChangeLimitsAgainstTheBaseline) {
  const Trace base = capture(80, 1000, 0), next = capture(80, 1500, 64);
  const CheckResult r = evaluate(parse_rules(R"(
[[metric]]
id = "dram-rise"
name = "dram__bytes_read.sum"
max_increase_pct = 10

[[metric]]
id = "dram-fall"
name = "dram__bytes_read.sum"
max_decrease_pct = 10

[[metric]]
id = "sm"
name = "sm__throughput.avg.pct_of_peak_sustained_elapsed"
match = "gemm"
min = 70
max_change_pct = 1

[[metric]]
id = "conflicts"
name = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"
max_increase_pct = 1000
)",
                                             "rules.toml"),
                                 next, &base, {});
  ASSERT_EQ(r.outcomes.size(), 5u);
  const Outcome& rise = r.outcomes[0];
  EXPECT_EQ(rise.target, "gemm (DRAM bytes read) vs baseline");
  EXPECT_EQ(rise.measure, Measure::MetricChange);
  EXPECT_NEAR(rise.value, 50, 1e-9);
  EXPECT_FALSE(rise.passed);
  EXPECT_EQ(rise.message, "higher");
  EXPECT_LT(rise.p_value, 0.001);
  EXPECT_TRUE(r.outcomes[1].passed) << "a rise is not a fall";
  EXPECT_DOUBLE_EQ(*r.outcomes[1].min, -10);
  EXPECT_EQ(r.outcomes[2].measure, Measure::Metric) << "absolute first, then the change";
  EXPECT_TRUE(r.outcomes[2].passed);
  EXPECT_TRUE(r.outcomes[3].passed);
  EXPECT_EQ(r.outcomes[3].message, "no significant change");
  EXPECT_TRUE(std::isinf(r.outcomes[4].value)) << "from a base of 0";
  EXPECT_FALSE(r.outcomes[4].passed);

  const std::string md = render_check(r, parse_report_format("markdown"));
  EXPECT_NE(md.find("up from 0"), std::string::npos) << md;
  EXPECT_NE(md.find(">= -10.0%"), std::string::npos) << md;
  const std::string junit = render_junit(r);
  EXPECT_NE(junit.find("classname=\"gpuscope.check.dram-rise\" name=\"gemm (DRAM bytes read) vs baseline\""),
            std::string::npos)
      << junit;
  EXPECT_NE(junit.find("<failure message=\"measured +50.0%"), std::string::npos) << junit;
  EXPECT_NE(junit.find("tests=\"5\" failures=\"2\""), std::string::npos) << junit;
}

// As a CI job runs it: exit 1 on a failed metric gate, 2 on a metric the capture lacks.
TEST(CheckMetricRules, CommandExitCodes) {
  const std::string dir = testing::scratch_dir("check_metrics_cli");
  write_trace(dir + "/base.gpuscope", capture(80, 1000));
  write_trace(dir + "/new.gpuscope", capture(80, 1500));
  testing::TraceBuilder plain;
  plain.kernel("gemm", 0, 10, plain.api("cudaLaunchKernel", 0, 5));
  write_trace(dir + "/plain.gpuscope", plain.trace());
  auto run = [&](const std::string& rules, const std::string& args) {
    std::ofstream(dir + "/rules.toml") << rules;
    const std::string cmd = "cd '" + dir + "' && " + GPUSCOPE_BINARY + " check " + args +
                            " --rules rules.toml --junit junit.xml >out.txt 2>err.txt </dev/null";
    const int status = std::system(cmd.c_str());
    std::ifstream err(dir + "/err.txt");
    std::stringstream text;
    text << err.rdbuf();
    return std::make_pair(WIFEXITED(status) ? WEXITSTATUS(status) : -1, text.str());
  };
  const std::string gate = "[[metric]]\nname = \"dram__bytes_read.sum\"\nmax_change_pct = 10\n";
  EXPECT_EQ(run(gate, "base.gpuscope --baseline base.gpuscope").first, 0);
  EXPECT_EQ(run(gate, "new.gpuscope --baseline base.gpuscope").first, 1);
  std::ifstream junit(dir + "/junit.xml");
  std::stringstream xml;
  xml << junit.rdbuf();
  EXPECT_NE(xml.str().find("<failure"), std::string::npos);
  const auto missing = run("[[metric]]\nname = \"dram__bytes_read.sum\"\nmax = 1\n", "plain.gpuscope");
  EXPECT_EQ(missing.first, 2);
  EXPECT_EQ(missing.second.rfind("gpuscope: rules.toml:1: metric dram__bytes_read.sum not in capture", 0), 0u)
      << missing.second;
}

}  // namespace
}  // namespace gpuscope::check
