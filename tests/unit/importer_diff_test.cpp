// Importer diff tests: each reader's view of a real file, dumped table by table (trace_dump.h) and
// compared with tests/golden/importers/. A change in what any reader makes of its format (a column
// read differently, a row gained or lost, a name resolved otherwise) shows up as a failing test
// with a diff; GPUSCOPE_UPDATE_GOLDEN=1 rewrites the files to review (tests/golden/README.md).
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "importers/importer.h"
#include "nsys_test_util.h"
#include "spool_builder.h"
#include "test_files.h"
#include "trace_dump.h"

namespace gpuscope {
namespace {

namespace fs = std::filesystem;

// The dump with each input's path (as given and made canonical) written relative to the checkout
// or the shared folder, so the golden files hold on any machine: the run table and the metric
// collections name the file they came from. Only the inputs' own paths are replaced: a program
// path inside a file (a capture's command line) is data and stays as recorded.
std::string portable(std::string dump, const std::vector<std::string>& inputs) {
  const std::pair<std::string, std::string> roots[] = {{GPUSCOPE_SHARED_FIXTURES_DIR, "<fixtures>"},
                                                       {GPUSCOPE_SOURCE_DIR, "<source>"}};
  for (const std::string& input : inputs) {
    std::string shown = input;
    for (const auto& [root, name] : roots) {
      const std::string base = fs::weakly_canonical(root).string();
      const std::string path = fs::weakly_canonical(input).string();
      if (path.rfind(base + "/", 0) == 0) {
        shown = name + path.substr(base.size());
        break;
      }
    }
    for (const std::string& form : {fs::weakly_canonical(input).string(), input})
      for (size_t at = dump.find(form); at != std::string::npos; at = dump.find(form, at + shown.size()))
        dump.replace(at, form.size(), shown);
  }
  return dump;
}

void expect_import(const std::string& golden, const std::string& file,
                   const std::vector<std::string>& metrics_from = {}) {
  const std::string dir = testing::scratch_dir("importer_diff_" + golden);
  const Trace trace = load_trace(file, metrics_from);
  std::vector<std::string> inputs = metrics_from;
  inputs.push_back(file);
  testing::expect_golden("importers/" + golden + ".txt",
                         portable(testing::dump_trace(trace, dir + "/dump.gpuscope"), inputs));
}

TEST(ImporterDiff, NsysSmallExport) {
  const std::string file = testing::nsys_fixture("mock");
  GPUSCOPE_NEED_NSYS_FIXTURE(file);
  expect_import("nsys_mock", file);
}

TEST(ImporterDiff, NsysTrimmedExport) {
  const std::string file = testing::nsys_fixture("healthy_1pct");
  GPUSCOPE_NEED_NSYS_FIXTURE(file);
  expect_import("nsys_healthy_1pct", file);
}

TEST(ImporterDiff, NsysTwoGpuPyTorchJob) {
  const std::string file = testing::nsys_fixture("h100_2gpu_1s");
  GPUSCOPE_NEED_NSYS_FIXTURE(file);
  expect_import("nsys_h100_2gpu_1s", file);
}

TEST(ImporterDiff, TorchProfilerTrace) {
  expect_import("kineto_mlp_train", testing::test_data("kineto/mlp_train.json.gz"));
}

TEST(ImporterDiff, NcuRawPage) { expect_import("ncu_bsr_spmm_raw", testing::test_data("ncu/bsr_spmm_full_raw.csv")); }

TEST(ImporterDiff, NcuMetricsOnACapture) {
  expect_import("ncu_metrics_from", testing::test_data("ncu/bsr_spmm_small.gpuscope"),
                {testing::test_data("ncu/bsr_spmm_full_details.csv")});
}

TEST(ImporterDiff, CaptureOfACrashedProgram) {
  expect_import("capture_crash_segv", testing::test_data("crash_segv.gpuscope"));
}

TEST(ImporterDiff, SpoolWithEveryRecordKind) {
  expect_import("spool_every_record",
                std::string(GPUSCOPE_SOURCE_DIR) + "/tests/fuzz/seeds/spool/every_record.spool.bin");
}

}  // namespace
}  // namespace gpuscope
