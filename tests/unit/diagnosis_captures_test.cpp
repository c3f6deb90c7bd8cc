// Real captures of the diagnosis benchmark (bench/diagnosis, docs/diagnosis.md), recorded on an
// NVIDIA H200: the report's #1 finding names the planted cause, and its saving per judged step
// is within ±25 % of the planted − fixed step time measured untraced on the same card.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "export_test_util.h"
#include "gpuscope/analysis_rules.h"
#include "gpuscope/analysis_steps.h"
#include "importers/importer.h"
#include "spool_builder.h"
#include "test_files.h"

namespace gpuscope {
namespace {

Trace unpack(const std::string& name) {
  const std::string path = testing::scratch_dir("diagnosis") + "/" + name + ".gpuscope";
  std::ofstream(path, std::ios::binary) << testing::gunzip(
      testing::read_text_file(std::string(GPUSCOPE_TEST_DATA_DIR) + "/diagnosis/" + name + ".gpuscope.gz"));
  return import_files({path});
}

struct Planted {
  const char* capture;
  const char* rule;
  double measured_ms;  // planted - fixed, per step, untraced (docs/diagnosis.md)
};

class DiagnosisCapture : public ::testing::TestWithParam<Planted> {};

TEST_P(DiagnosisCapture, FirstFindingIsThePlantedCauseWithItsMeasuredSaving) {
  const Planted& p = GetParam();
  const Trace trace = unpack(p.capture);
  const auto steady = analysis::detect_steady_state(trace);
  ASSERT_TRUE(steady.has_value());
  const std::vector<analysis::Finding> findings = analysis::run_rules(trace);
  ASSERT_FALSE(findings.empty());
  EXPECT_EQ(findings.front().rule, p.rule);
  ASSERT_TRUE(findings.front().saving_ns.has_value());
  const double per_step_ms = static_cast<double>(*findings.front().saving_ns) / 1e6 /
                             static_cast<double>(steady->steps - 1);
  EXPECT_GE(per_step_ms, 0.75 * p.measured_ms) << p.capture;
  EXPECT_LE(per_step_ms, 1.25 * p.measured_ms) << p.capture;
}

// cnn: a ResNet-18-style fp32 net with TF32 off for cuDNN (51.28 vs 23.04 ms a step), default
// capture. fp32_gemm: a 4096-wide fp32 MLP with TF32 off (15.58 vs 3.21 ms), `--pytorch=modules`.
// ddp_compute_straggler: 2-rank DDP under torchrun on a 2x H200 host, rank 1 also running a frozen
// bf16 network every step (14.43 vs 11.30 ms a step, medians of 2 runs each), default capture.
INSTANTIATE_TEST_SUITE_P(H200, DiagnosisCapture,
                         ::testing::Values(Planted{"cnn", "fp32_matmul", 28.24},
                                           Planted{"fp32_gemm", "fp32_matmul", 12.37},
                                           Planted{"ddp_compute_straggler", "straggler", 3.13}),
                         [](const auto& info) { return std::string(info.param.capture); });

// The DDP job's fixed twin: both ranks do the same work, so no straggler; and its GEMMs, slower
// beside the all-reduces that overlap them by design, are not called unstable.
TEST(DiagnosisCapture, TheFixedDdpTwinHasNoStragglerAndNoUnstableKernels) {
  const Trace trace = unpack("ddp_compute_straggler_fixed");
  for (const analysis::Finding& f : analysis::run_rules(trace)) {
    EXPECT_NE(f.rule, "straggler");
    EXPECT_NE(f.rule, "unstable_timings") << (f.evidence.empty() ? "" : f.evidence.front());
  }
}

}  // namespace
}  // namespace gpuscope
