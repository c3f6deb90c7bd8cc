// ncu CSVs through the gpuscope binary as users run it: report on a CSV alone, --metrics-from on
// a capture of the same program, check metric gates on ncu's values, and every bad input as one
// line on stderr with exit code 2 (and through import_bytes, for the fuzzer to come).
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>

#include "export/gzip.h"
#include "importers/importer.h"
#include "spool_builder.h"
#include "test_files.h"

namespace gpuscope {
namespace {

using testing::CliResult;
using testing::expect_one_line_error;

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

class NcuCli : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = testing::scratch_dir("ncu_cli"); }
  CliResult run(const std::string& args) { return testing::run_gpuscope(dir_, args); }
  std::string write(const std::string& name, const std::string& text) {
    const std::string path = dir_ + "/" + name;
    std::ofstream(path, std::ios::binary) << text;
    return path;
  }
  const nlohmann::json* section(const nlohmann::json& report, const std::string& key) {
    for (const auto& s : report["sections"])
      if (s["key"] == key) return &s;
    return nullptr;
  }
  std::string dir_;
};

TEST_F(NcuCli, ReportOnACsvAloneFillsTheMetricsSections) {
  const CliResult r = run("report " + testing::test_data("ncu/metrics_kernels_raw.csv") + " --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  for (const char* key : {"speed_of_light", "memory_workload", "achieved_occupancy", "warp_stalls", "roofline"}) {
    const auto* s = section(doc, key);
    ASSERT_NE(s, nullptr) << key;
    ASSERT_FALSE((*s)["tables"].empty()) << key;
    EXPECT_EQ((*s)["tables"][0]["rows"].size(), 4u) << key;  // triad, fma and both transposes
  }
  const auto* run_section = section(doc, "run");
  EXPECT_TRUE(contains(run_section->dump(), "ncu (CSV raw page)"));
  EXPECT_TRUE(contains(run_section->dump(), "not_in_source.timeline"));
}

TEST_F(NcuCli, MetricsFromAttachesToTheCapture) {
  const CliResult plain = run("report " + testing::test_data("ncu/bsr_spmm_small.gpuscope") + " --format json");
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_EQ(section(nlohmann::json::parse(plain.out), "speed_of_light"), nullptr);

  const CliResult r = run("report " + testing::test_data("ncu/bsr_spmm_small.gpuscope") + " --metrics-from " +
                          testing::test_data("ncu/bsr_spmm_full_raw.csv") + " --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  const auto* sol = section(doc, "speed_of_light");
  ASSERT_NE(sol, nullptr);
  const auto& row = (*sol)["tables"][0]["rows"][0];
  EXPECT_EQ(row["profiled"], 3);
  EXPECT_TRUE(contains(row["name"], "bsr::bsr_spmm_kernel"));  // the capture's kernel, its own name
  const std::string quality = section(doc, "data_quality")->dump();
  EXPECT_TRUE(contains(quality, "3 launches profiled; from ncu CSV")) << quality;
}

TEST_F(NcuCli, CheckGatesOnNcusValues) {
  // bsr_spmm's kernel: 88.9 us median in the raw page (89,024 / 88,832 / 88,960 ns).
  const std::string pass = write(
      "pass.toml",
      "[[metric]]\nname = \"gpu__time_duration.sum\"\nmatch = \"*bsr_spmm_kernel*\"\nmax = 100000\n"
      "[[metric]]\nname = \"launch__registers_per_thread\"\nmatch = \"*bsr_spmm_kernel*\"\nmax = 255\n");
  const std::string fail = write(
      "fail.toml", "[[metric]]\nname = \"gpu__time_duration.sum\"\nmatch = \"*bsr_spmm_kernel*\"\nmax = 50000\n");
  const std::string metrics = " --metrics-from " + testing::test_data("ncu/bsr_spmm_full_raw.csv");
  const CliResult ok = run("check " + testing::test_data("ncu/bsr_spmm_small.gpuscope") + " --rules " + pass + metrics);
  EXPECT_EQ(ok.exit_code, 0) << ok.out << ok.err;
  const CliResult bad = run("check " + testing::test_data("ncu/bsr_spmm_small.gpuscope") + " --rules " + fail +
                            metrics);
  EXPECT_EQ(bad.exit_code, 1) << bad.out << bad.err;
  EXPECT_TRUE(contains(bad.out, "FAIL")) << bad.out;
  // The CSV alone is a capture too.
  EXPECT_EQ(run("check " + testing::test_data("ncu/bsr_spmm_full_raw.csv") + " --rules " + pass).exit_code, 0);
  // Without the metrics the gate cannot be judged: an error, never a pass.
  expect_one_line_error(run("check " + testing::test_data("ncu/bsr_spmm_small.gpuscope") + " --rules " + pass),
                        "gpu__time_duration.sum");
}

TEST_F(NcuCli, ImportWritesACaptureThatKeepsTheSource) {
  const CliResult r = run("import -o merged " + testing::test_data("ncu/bsr_spmm_small.gpuscope") + " --metrics-from " +
                          testing::test_data("ncu/bsr_spmm_full_details.csv"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const CliResult q = run("query merged.gpuscope \"SELECT source, kernels_profiled FROM metric_collections\"");
  ASSERT_EQ(q.exit_code, 0) << q.err;
  EXPECT_EQ(q.out, "ncu CSV " + testing::test_data("ncu/bsr_spmm_full_details.csv") + "\t3\n");
}

// Each bad input: one line, exit 2, from the CLI and from import_bytes().
TEST_F(NcuCli, BadInputIsOneLineAndExitTwo) {
  const std::string raw = testing::read_text_file(testing::test_data("ncu/bsr_spmm_full_raw.csv"));
  const std::string details = testing::read_text_file(testing::test_data("ncu/metrics_kernels_details.csv"));
  const size_t last_row = raw.rfind("\n\"2\",");
  ASSERT_NE(last_row, std::string::npos);
  const std::string header =
      "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"gpu__time_duration.sum\"\n";
  const struct {
    const char* name;
    std::string bytes;
    const char* message;
  } cases[] = {
      {"cut_mid_quote.csv", raw.substr(0, raw.find("void bsr", last_row) + 10), "quoted field is not closed"},
      {"cut_mid_row.csv", raw.substr(0, raw.find("\",\"", last_row + 300) + 2), "fields, the header"},
      {"cut_details.csv", details.substr(0, details.find("\",\"SM Frequency\"") + 2), "fields, the header"},
      {"only_header.csv", raw.substr(0, raw.find('\n', raw.find("\"ID\"")) + 1), "without any profiled kernel launch"},
      {"empty.csv", "", "not a format gpuscope reads"},
      {"only_prof.csv", "==PROF== Connected to process 1 (/bin/app)\n==PROF== Disconnected from process 1\n",
       "not a format gpuscope reads"},
      {"no_ncu_columns.csv", "\"ID\",\"Name\",\"Value\"\n\"1\",\"k\",\"2\"\n", "not a format gpuscope reads"},
      {"nsys_stats.csv", "\"Time (%)\",\"Total Time (ns)\",\"Instances\",\"Name\"\n\"90.0\",\"1000\",\"3\",\"k\"\n",
       "not a format gpuscope reads"},
      {"bad_header_quote.csv", "\"ID\",\"Process ID\",\"Kernel Name\",\"gpu__time", "quoted field is not closed"},
      // A duration labelled as a rate would be scaled by 10^9 and stored as ns.
      {"time_in_a_rate.csv",
       header + "\"\",\"\",\"\",\"\",\"\",\"Kbyte/usecond\"\n\"0\",\"1\",\"app\",\"h\",\"k(int)\",\"5\"\n",
       "gpu__time_duration.sum in 'Kbyte/usecond', not a time"},
      {"details_time_in_bytes.csv",
       std::regex_replace(details, std::regex("\"Duration\",\"ns\""), "\"Duration\",\"Kbyte\""),
       "Duration in 'Kbyte', not a time"},
      // Two files joined, the second from its header on (its own ncu lines and program output dropped).
      {"two_joined.csv", raw + raw.substr(raw.find("\"ID\"")), "the header again (two ncu CSVs joined into one file?)"},
      {"two_joined_details.csv", details + details.substr(details.find("\"ID\"")),
       "the header again (two ncu CSVs joined into one file?)"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    expect_one_line_error(run("report " + write(c.name, c.bytes)), c.message, c.name);
    Trace trace;
    const std::string error = import_bytes(c.bytes, trace);
    EXPECT_TRUE(contains(error, c.message)) << error;
  }
  // A gzip bomb: 1.4 MB that inflate past 256 MiB end at the limit, in one line.
  {
    std::ofstream file(write("bomb.csv.gz", ""), std::ios::binary);
    GzipOstream bomb(file, 1);
    bomb << header;
    const std::string row = "\"0\",\"1\",\"app\",\"h\",\"k(int)\",\"" + std::string(1 << 20, '7') + "\"\n";
    for (int i = 0; i < 300; ++i) bomb << row;
    bomb.finish();
  }
  expect_one_line_error(run("report bomb.csv.gz"), "an ncu CSV of more than 256 MiB (uncompressed)", "gzip bomb");

  // A number column with text in it: the value is left out and counted, the rest imports.
  const std::string text_value =
      header + "\"0\",\"1\",\"app\",\"h\",\"k(int)\",\"abc\"\n\"1\",\"1\",\"app\",\"h\",\"k(int)\",\"1,000\"\n";
  Trace trace;
  ASSERT_EQ(import_bytes(text_value, trace), "");
  EXPECT_EQ(trace.kernels.size(), 2u);
  EXPECT_EQ(trace.kernel_metrics.size(), 1u);
  EXPECT_TRUE(std::any_of(trace.data_loss.begin(), trace.data_loss.end(),
                          [](const DataLoss& l) { return l.what == "ncu_values_not_numeric" && l.count == 1; }));
}

TEST_F(NcuCli, MetricsFromWhatIsNotAnNcuCsv) {
  const std::string capture = testing::test_data("ncu/bsr_spmm_small.gpuscope");
  expect_one_line_error(run("report " + capture + " --metrics-from " + capture), "has no per-kernel metrics to attach");
  expect_one_line_error(run("report " + capture + " --metrics-from " + write("x.json", "{\"a\": 1}")),
                        "not a format gpuscope reads");
  // An ncu CSV of another program: no launch matches.
  expect_one_line_error(
      run("report " + capture + " --metrics-from " + testing::test_data("ncu/metrics_kernels_raw.csv")),
      "none of its 8 launches matches a kernel of the capture");
  expect_one_line_error(run("report " + testing::test_data("ncu/bsr_spmm_full_raw.csv") + " --metrics-from " +
                            testing::test_data("ncu/metrics_kernels_raw.csv")),
                        "none of its 8 launches matches");
}

}  // namespace
}  // namespace gpuscope

namespace gpuscope {
namespace {

// Beside the ncu fuzz target (tests/fuzz/ncu_fuzz.cpp): the real files cut at many points and with
// bytes changed, through import_bytes. Each must import or give one line, never crash or hang.
// Fixed seed: repeatable.
TEST(NcuFuzz, CutAndDamagedFilesNeverCrash) {
  for (const char* name : {"metrics_kernels_details.csv", "metrics_kernels_raw.csv"}) {
    const std::string text = testing::read_text_file(testing::test_data(std::string("ncu/") + name));
    ASSERT_FALSE(text.empty());
    uint64_t state = 0x9E3779B97F4A7C15ull;
    auto next = [&] {
      state ^= state << 13, state ^= state >> 7, state ^= state << 17;
      return state;
    };
    const char kBytes[] = {'"', ',', '\n', '\r', '=', '0', 'n', '/', 'a', '_', ' ', '\0', '\xff', 'e', '-'};
    for (int i = 0; i < 150; ++i) {
      std::string bytes = text.substr(0, next() % (text.size() + 1));
      for (int changes = static_cast<int>(next() % 8); changes > 0 && !bytes.empty(); --changes)
        bytes[next() % bytes.size()] = kBytes[next() % sizeof kBytes];
      Trace trace;
      const std::string error = import_bytes(bytes, trace);
      EXPECT_EQ(std::count(error.begin(), error.end(), '\n'), 0) << error;
      if (error.empty()) {
        EXPECT_FALSE(trace.kernels.empty()) << name << " case " << i;
      }
    }
  }
}

}  // namespace
}  // namespace gpuscope
