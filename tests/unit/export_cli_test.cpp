// `gpuscope export` as users run it: outputs, gzip, overwrite protection, --run, bad input.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "export/lanes.h"
#include "export_test_util.h"
#include "gpuscope/runs.h"
#include "spool_builder.h"
#include "test_files.h"

namespace gpuscope {
namespace {

using testing::CliResult;
using Json = nlohmann::json;

const std::string kBaseline = std::string(GPUSCOPE_TEST_DATA_DIR) + "/bsr_spmm_baseline.gpuscope";

TEST(ExportCli, WritesBothFormatsAndGzip) {
  const std::string dir = testing::scratch_dir("export_cli");
  for (const std::string args : {"--format chrome -o t.json", "--format perfetto -o t.perfetto-trace",
                                 "--format chrome -o t.json.gz", "--format perfetto --gzip -o t.pftrace"}) {
    const CliResult r = testing::run_gpuscope(dir, "export " + kBaseline + " " + args);
    EXPECT_EQ(r.exit_code, 0) << args << ": " << r.err;
    EXPECT_EQ(testing::line_count(r.err), 1) << r.err;
    EXPECT_NE(r.err.find("gpuscope: wrote "), std::string::npos) << r.err;
  }
  const std::string plain = testing::read_text_file(dir + "/t.json");
  const std::string zipped = testing::read_text_file(dir + "/t.json.gz");
  EXPECT_LT(zipped.size(), plain.size() / 4);
  EXPECT_EQ(testing::gunzip(zipped), plain);
  EXPECT_EQ(Json::parse(plain)["traceEvents"].empty(), false);
  EXPECT_EQ(testing::gunzip(testing::read_text_file(dir + "/t.pftrace")),
            testing::read_text_file(dir + "/t.perfetto-trace"));
  EXPECT_FALSE(std::filesystem::exists(dir + "/t.json.tmp"));
}

// --per-rank needs several GPU processes: a one-process capture is refused in one line, nothing written.
TEST(ExportCli, PerRankRefusesACaptureOfOneProcess) {
  const std::string dir = testing::scratch_dir("export_cli_per_rank");
  const CliResult r = testing::run_gpuscope(dir, "export " + kBaseline + " --format chrome --per-rank -o j.json.gz");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(testing::line_count(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("--per-rank needs a job of several ranks"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir + "/j_rank0.json.gz"));
}

TEST(ExportCli, NoDetailsLeavesOutTheGpuWorksArguments) {
  const std::string dir = testing::scratch_dir("export_cli_details");
  for (const std::string args : {"--format chrome -o full.json", "--format chrome --no-details -o lean.json",
                                 "--format perfetto -o full.pb", "--format perfetto --no-details -o lean.pb"})
    ASSERT_EQ(testing::run_gpuscope(dir, "export " + kBaseline + " " + args).exit_code, 0) << args;
  EXPECT_LT(testing::read_text_file(dir + "/lean.pb").size(), testing::read_text_file(dir + "/full.pb").size());
  size_t kernels = 0;
  const Json lean = Json::parse(testing::read_text_file(dir + "/lean.json"));
  for (const Json& e : lean["traceEvents"]) {
    if (e.value("cat", "") != "kernel") continue;
    ++kernels;
    EXPECT_FALSE(e["args"].contains("grid"));
    EXPECT_TRUE(e["args"].contains("correlation"));
  }
  EXPECT_GT(kernels, 0u);
}

TEST(ExportCli, RefusesToOverwriteWithoutForce) {
  const std::string dir = testing::scratch_dir("export_cli_force");
  std::ofstream(dir + "/t.json") << "keep me";
  testing::expect_one_line_error(testing::run_gpuscope(dir, "export " + kBaseline + " --format chrome -o t.json"),
                                 "already exists (use --force to overwrite)", "no --force");
  EXPECT_EQ(testing::read_text_file(dir + "/t.json"), "keep me");
  EXPECT_EQ(testing::run_gpuscope(dir, "export " + kBaseline + " --format chrome -o t.json -f").exit_code, 0);
  EXPECT_NE(testing::read_text_file(dir + "/t.json"), "keep me");
}

// A dangling symlink is an existing name too: without --force, writing through it would create a
// file wherever it points (export) or silently replace the link (a capture).
TEST(ExportCli, ADanglingSymlinkCountsAsExisting) {
  const std::string dir = testing::scratch_dir("export_cli_symlink");
  std::filesystem::create_symlink("elsewhere.json", dir + "/t.json");
  std::filesystem::create_symlink("elsewhere.gpuscope", dir + "/cap.gpuscope");
  testing::expect_one_line_error(testing::run_gpuscope(dir, "export " + kBaseline + " --format chrome -o t.json"),
                                 "t.json already exists (use --force to overwrite)", "export");
  EXPECT_FALSE(std::filesystem::exists(dir + "/elsewhere.json"));
  testing::expect_one_line_error(testing::run_gpuscope(dir, "import -o cap missing.spool"),
                                 "cap.gpuscope already exists (use --force to overwrite)", "import");
  EXPECT_TRUE(std::filesystem::is_symlink(dir + "/cap.gpuscope"));
}

TEST(ExportCli, BadInputAndBadRunAreOneLine) {
  const std::string dir = testing::scratch_dir("export_cli_bad");
  std::ofstream(dir + "/notes.gpuscope") << "not a capture\n";
  testing::expect_one_line_error(testing::run_gpuscope(dir, "export notes.gpuscope --format chrome -o t.json"),
                                 "notes.gpuscope", "corrupt");
  testing::expect_one_line_error(testing::run_gpuscope(dir, "export missing.gpuscope --format perfetto -o t.pb"),
                                 "missing", "missing");
  testing::expect_one_line_error(testing::run_gpuscope(dir,
                                                       "export " + kBaseline + " --format chrome --run 2 -o t.json"),
                                 "is not a bench capture", "--run on a single capture");
  EXPECT_EQ(testing::run_gpuscope(dir, "export " + kBaseline + " --format xml -o t.json").exit_code, 2);
  EXPECT_EQ(testing::run_gpuscope(dir, "export " + kBaseline + " --format chrome").exit_code, 2);  // no -o
  EXPECT_FALSE(std::filesystem::exists(dir + "/t.json"));
}

// A bench capture: every run is its own group with pids that cannot collide (the runs share
// pid 1); --run N exports one run, Kineto-style.
TEST(ExportCli, BenchRunsAreSeparateGroupsOrOneWithRun) {
  const std::string dir = testing::scratch_dir("export_cli_bench");
  Trace bench;
  for (uint32_t run = 1; run <= 2; ++run) {
    const Trace one = testing::launch_storm(3);
    append_run(bench, one, run);
    bench.runs.push_back({run, one.run.start, one.run.end, 0, 0});
  }
  bench.run.start = bench.runs.front().start;
  bench.run.end = bench.runs.back().end;
  write_trace(dir + "/b.gpuscope", bench);
  testing::expect_one_line_error(testing::run_gpuscope(dir, "export b.gpuscope --format chrome --run 3 -o t.json"),
                                 "has no bench run 3", "--run 3");

  ASSERT_EQ(testing::run_gpuscope(dir, "export b.gpuscope --format chrome -o all.json").exit_code, 0);
  std::map<int64_t, std::string> names;  // pid -> process_name
  size_t kernels = 0;
  const Json all = Json::parse(testing::read_text_file(dir + "/all.json"));
  for (const Json& e : all["traceEvents"]) {
    if (e["ph"] == "M" && e["name"] == "process_name") names[e["pid"]] = e["args"]["name"];
    kernels += e["ph"] == "X" && e["cat"] == "kernel";
  }
  EXPECT_EQ(kernels, 6u);
  ASSERT_EQ(names.size(), 4u);  // two runs x (process, GPU)
  for (const auto& [pid, name] : names) {
    EXPECT_GE(pid, exporting::kSyntheticId) << name;
    EXPECT_EQ(name.rfind("run ", 0) == 0 || name.find(", run ") != std::string::npos, true) << name;
  }

  ASSERT_EQ(testing::run_gpuscope(dir, "export b.gpuscope --format chrome --run 2 -o two.json").exit_code, 0);
  std::set<int64_t> pids;
  kernels = 0;
  const Json two = Json::parse(testing::read_text_file(dir + "/two.json"));
  for (const Json& e : two["traceEvents"]) {
    if (e["ph"] == "X") pids.insert(e["pid"].get<int64_t>());
    kernels += e["ph"] == "X" && e["cat"] == "kernel";
  }
  EXPECT_EQ(kernels, 3u);
  EXPECT_EQ(pids, (std::set<int64_t>{0, 1}));  // GPU 0 and process 1, as Kineto writes them
}

}  // namespace
}  // namespace gpuscope
