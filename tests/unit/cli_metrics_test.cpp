// `gpuscope metrics` run as users run it: the built binary, which loads
// libgpuscope_cupti_host.so next to it and, through it, the real libcupti. The CUPTI-backed
// cases skip with a message where that chain cannot load (no CUDA toolkit); --sets and the
// load errors need no CUPTI and always run.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>

#include "gpuscope/metric_sets.h"
#include "spool_builder.h"
#include "test_files.h"

namespace gpuscope {
namespace {

using testing::CliResult;

CliResult metrics(const std::string& args, const std::string& env = "") {
  return testing::run_gpuscope(testing::scratch_dir("cli_metrics"), "metrics " + args, env);
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

using testing::expect_one_line_error;

class CliMetrics : public ::testing::Test {
 protected:
  void SetUp() override {
#if defined(__SANITIZE_ADDRESS__)
    // libcupti dlopens libnvperf_host.so with RTLD_DEEPBIND, which AddressSanitizer refuses by
    // aborting the process (google/sanitizers#611): CI's ASan build runs these tests skipped.
    GTEST_SKIP() << "CUPTI's host API cannot load under AddressSanitizer (RTLD_DEEPBIND)";
#endif
    const CliResult chips = metrics("--chips");
    if (chips.exit_code != 0) GTEST_SKIP() << "CUPTI's host API is not usable here: " << chips.err;
  }
};

TEST(CliMetricsSets, ListsEverySetWithoutCupti) {
  // A host library that does not exist: --sets must not need it.
  const CliResult text = metrics("--sets", "GPUSCOPE_CUPTI_HOST_LIB=/nonexistent/lib.so");
  ASSERT_EQ(text.exit_code, 0) << text.err;
  for (const MetricSet& set : metric_sets()) EXPECT_TRUE(contains(text.out, std::string(set.name) + ": ")) << set.name;
  EXPECT_TRUE(contains(text.out, "sm__throughput.avg.pct_of_peak_sustained_elapsed"));
  EXPECT_TRUE(contains(text.out, "Achieved occupancy"));
  EXPECT_TRUE(contains(text.out, "gpm__sm_active.pct"));               // the GPU samples (NVML GPM)
  EXPECT_TRUE(contains(text.out, "pcie__read_bytes.sum.per_second"));  // PM sampling's list

  const CliResult json = metrics("--sets --format json");
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const auto doc = nlohmann::json::parse(json.out);
  ASSERT_EQ(doc["sets"].size(), metric_sets().size());
  EXPECT_EQ(doc["sets"][0]["metrics"][0]["name"], metric_sets()[0].metrics[0].name);
  EXPECT_EQ(doc["gpu_samples"].size(), gpm_sample_metrics().size());
  EXPECT_EQ(doc["pm_sampling"].size(), gpu_sample_metrics().size());
}

TEST(CliMetricsSets, LoadAndUsageErrorsAreOneLine) {
  expect_one_line_error(metrics("--chips", "GPUSCOPE_CUPTI_HOST_LIB=/nonexistent/lib.so"),
                        "libgpuscope_cupti_host.so not found at /nonexistent/lib.so");
  expect_one_line_error(metrics(""), "name exactly one of --list, --sets, --check, --chips");
  expect_one_line_error(metrics("--sets --chips"), "name exactly one of");
  expect_one_line_error(metrics("--check --metrics bogus --chip GH100"), "unknown metric set 'bogus'");
}

TEST_F(CliMetrics, ChipsIncludeHopper) {
  const CliResult r = metrics("--chips");
  EXPECT_TRUE(contains(r.out, "GH100\n")) << r.out;
}

TEST_F(CliMetrics, ListFiltersAndDescribes) {
  const CliResult text = metrics("--list --chip GH100 --filter dram__throughput");
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_TRUE(contains(text.out, "dram__throughput")) << text.out;
  EXPECT_TRUE(contains(text.out, "DRAM throughput")) << text.out;  // CUPTI's description
  EXPECT_TRUE(contains(text.out, "throughput  percent")) << text.out;
  EXPECT_FALSE(contains(text.out, "lts__")) << text.out;

  const CliResult json = metrics("--list --chip GH100 --filter DRAM__BYTES --submetrics --format json");
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const auto doc = nlohmann::json::parse(json.out);
  EXPECT_EQ(doc["chip"], "GH100");
  ASSERT_FALSE(doc["metrics"].empty());
  for (const auto& m : doc["metrics"]) EXPECT_TRUE(contains(m["name"].get<std::string>(), "dram__bytes")) << m;
  const auto& subs = doc["metrics"][0]["submetrics"];
  EXPECT_NE(std::find(subs.begin(), subs.end(), ".sum"), subs.end());
}

TEST_F(CliMetrics, CheckPrintsPasses) {
  const CliResult text = metrics("--check --metrics sol --chip GH100");
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_TRUE(contains(text.out, "GH100 (range profiler): 8 metrics valid; ")) << text.out;
  EXPECT_TRUE(contains(text.out, "passes")) << text.out;

  const CliResult json = metrics(
      "--check --metrics sol,stalls --metric dram__bytes_read.sum --chip GH100 --format json");
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const auto doc = nlohmann::json::parse(json.out);
  EXPECT_GE(doc["passes"].get<int>(), 1);
  EXPECT_EQ(doc["names"].back(), "dram__bytes_read.sum");

  const CliResult sampling = metrics("--check --sampling --chip GH100");  // gpuscope's GPU-sample list
  ASSERT_EQ(sampling.exit_code, 0) << sampling.err;
  EXPECT_TRUE(contains(sampling.out, "(PM sampling): ")) << sampling.out;
  EXPECT_TRUE(contains(sampling.out, "; 1 pass")) << sampling.out;
}

// On a chip without some of the (Hopper-written) sets' metrics, --check says what profile
// would leave out; a --metric the chip lacks stays an error, as in profile.
TEST_F(CliMetrics, CheckSaysWhatAnotherChipLeavesOut) {
  const CliResult text = metrics("--check --metrics full --chip AD102");
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_TRUE(contains(text.out, "metrics of the sets do not exist on AD102; profile leaves them out")) << text.out;
  EXPECT_TRUE(contains(text.out, "\n  sm__ops_path_tensor_src_fp16.sum\n")) << text.out;
  const CliResult json = metrics("--check --metrics full --chip AD102 --format json");
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const auto doc = nlohmann::json::parse(json.out);
  EXPECT_EQ(doc["metrics"].get<size_t>() + doc["not_on_chip"].size(), doc["names"].size());
  EXPECT_TRUE(
      nlohmann::json::parse(metrics("--check --metrics full --chip GH100 --format json").out)["not_on_chip"].empty());
  expect_one_line_error(metrics("--check --metrics full --metric sm__ops_path_tensor_src_fp16.sum --chip AD102"),
                        "metric 'sm__ops_path_tensor_src_fp16.sum' is not available on AD102");
}

TEST_F(CliMetrics, BadChipAndMetricAreOneLine) {
  expect_one_line_error(metrics("--list --chip XX100"), "chip 'XX100' is not supported by this CUPTI (supported: ");
  expect_one_line_error(metrics("--check --metrics sol --metric foo.sum --chip GH100"),
                        "metric 'foo.sum' is not available on GH100");
}

TEST_F(CliMetrics, WithoutChipUsesTheLocalGpu) {
  const CliResult r = metrics("--check --metrics occupancy");
  if (r.exit_code == 0) GTEST_SKIP() << "this machine has a GPU: " << r.out;
  expect_one_line_error(r, "no GPU found here");
  EXPECT_TRUE(contains(r.err, "name a chip with --chip (e.g. GH100; see `gpuscope metrics --chips`)")) << r.err;
}

TEST_F(CliMetrics, DriverWithoutGpuIsNoGpu) {
  // The toolkit's stub libcuda stands in for a driver that finds no GPU: cuInit fails at once.
  const std::string stub = "/usr/local/cuda/lib64/stubs/libcuda.so";
  if (!std::ifstream(stub)) GTEST_SKIP() << "no " << stub;
  const std::string dir = testing::scratch_dir("cli_metrics_stub");
  ASSERT_EQ(std::system(("ln -s " + stub + " '" + dir + "/libcuda.so.1'").c_str()), 0);
  const CliResult r = metrics("--list", "LD_LIBRARY_PATH='" + dir + "'");
  if (r.exit_code == 0) GTEST_SKIP() << "this machine has a GPU";
  expect_one_line_error(r, "no GPU found here (cuInit returned ");
}

}  // namespace
}  // namespace gpuscope
