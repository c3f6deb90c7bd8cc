// The real PyTorch captures (an nn.Sequential MLP 512 -> 1024 -> 1024 -> 10, AdamW, 50 steps in
// NVTX train_step, made on an H100): with `profile --pytorch=modules` (its op and module ranges
// become ops and modules when read) and without (no ops).
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "gpuscope/analysis_diff.h"
#include "gpuscope/analysis_host_ops.h"
#include "gpuscope/analysis_modules.h"
#include "gpuscope/check.h"
#include "gpuscope/report.h"
#include "gpuscope/store.h"
#include "importers/importer.h"
#include "spool_builder.h"

namespace gpuscope {
namespace {

std::string capture(const std::string& name) { return std::string(GPUSCOPE_TEST_DATA_DIR) + "/pytorch/" + name; }

const analysis::OpGroup* group(const analysis::HostOpSummary& s, const std::string& name) {
  for (const analysis::OpGroup& g : s.ops)
    if (g.name == name) return &g;
  return nullptr;
}

TEST(TorchCaptures, OpRangesBecomeOpsAndTrainStepStays) {
  const Trace t = load_trace(capture("mlp_train_modules.gpuscope"));
  EXPECT_EQ(t.run.host_ops_source, kHostOpsFromNvtx);
  EXPECT_GT(t.host_ops.size(), 9000u);
  std::set<std::string> left;
  for (const NvtxRange& r : t.nvtx_ranges) left.insert(t.strings.get(r.name));
  EXPECT_EQ(left, std::set<std::string>{"train_step"});
  EXPECT_EQ(t.nvtx_ranges.size(), 50u);
  for (const NvtxRange& r : t.nvtx_ranges) EXPECT_EQ(r.depth, 0u);
}

TEST(TorchCaptures, OpsHaveGpuTimeAndThePhasesAddUp) {
  const analysis::HostOpSummary s = analysis::summarize_host_ops(load_trace(capture("mlp_train_modules.gpuscope")));
  for (const char* name : {"aten::addmm", "aten::mm"}) {
    const analysis::OpGroup* g = group(s, name);
    ASSERT_TRUE(g) << name;
    EXPECT_GT(g->self_gpu_ns, 0) << name;
    EXPECT_FALSE(g->top_kernels.empty()) << name;
  }
  EXPECT_EQ(group(s, "aten::addmm")->calls, 150u);  // three Linear layers x 50 steps
  EXPECT_GT(s.linked_gpu_ns, 0.9 * s.gpu_ns);
  double phases = 0;
  for (const analysis::PhaseTotals& p : s.phases) {
    EXPECT_GT(p.gpu_ns, 0);
    EXPECT_GT(p.op_instances, 0u);
    phases += p.gpu_ns;
  }
  EXPECT_NEAR(phases + (s.gpu_ns - s.linked_gpu_ns), s.gpu_ns, 1e-6 * s.gpu_ns);
  EXPECT_NEAR(phases, s.linked_gpu_ns, 1e-6 * s.gpu_ns);
}

TEST(TorchCaptures, EveryLayerHasForwardAndBackwardTime) {
  const analysis::ModuleSummary s = analysis::summarize_modules(load_trace(capture("mlp_train_modules.gpuscope")));
  ASSERT_EQ(s.modules.size(), 6u);
  EXPECT_EQ(s.modules[0].path, "Sequential");  // the root holds every layer
  double layers_forward = 0, layers_backward = 0;
  for (const analysis::ModuleRow& m : s.modules) {
    EXPECT_EQ(m.calls, 50u) << m.path;
    EXPECT_GT(m.forward_gpu_ns, 0) << m.path;
    EXPECT_GT(m.backward_gpu_ns, 0) << m.path;
    if (m.path != "Sequential") layers_forward += m.forward_gpu_ns, layers_backward += m.backward_gpu_ns;
  }
  EXPECT_NEAR(layers_forward, s.modules[0].forward_gpu_ns, 1e-6 * s.gpu_ns);
  EXPECT_NEAR(layers_backward, s.modules[0].backward_gpu_ns, 1e-6 * s.gpu_ns);
  EXPECT_LT(s.unpaired_backward_gpu_ns, 0.25 * s.backward_gpu_ns);  // the loss's and AccumulateGrad's
}

// Issue 14's first screen: the steps' verdict, then the top ops and modules, before start-up and the
// ranked fixes.
TEST(TorchCaptures, TheFirstScreenNamesTheVerdictTopOpsAndModules) {
  const std::string text = render_report(load_trace(capture("mlp_train_modules.gpuscope")), {},
                                         parse_report_format("text"));
  const size_t verdict = text.find("launch-bound: the GPU is idle");
  const size_t ops = text.find("Top ops (self GPU time)            aten::addmm ");
  const size_t modules = text.find("Top modules (GPU time)             Sequential.2 ");
  const size_t startup = text.find("\nStart-up\n");
  const size_t fixes = text.find("\nRecommendations\n");
  ASSERT_NE(verdict, std::string::npos) << text.substr(0, 3000);
  ASSERT_NE(ops, std::string::npos) << text.substr(0, 3000);
  ASSERT_NE(modules, std::string::npos) << text.substr(0, 3000);
  EXPECT_LT(verdict, ops);
  EXPECT_LT(ops, modules);
  EXPECT_LT(modules, startup);
  EXPECT_LT(startup, fixes);
  // Without ops (no hook) there are no such lines.
  const std::string plain = render_report(load_trace(capture("mlp_train.gpuscope")), {}, parse_report_format("text"));
  EXPECT_EQ(plain.find("Top ops"), std::string::npos);
}

TEST(TorchCaptures, WithoutTheHookThereAreNoOps) {
  const Trace t = load_trace(capture("mlp_train.gpuscope"));
  EXPECT_TRUE(t.host_ops.empty());
  EXPECT_TRUE(t.run.host_ops_source.empty());
}

TEST(TorchCaptures, AConvertedCaptureKeepsItsOpsAndIsNotConvertedAgain) {
  const Trace converted = load_trace(capture("mlp_train_modules.gpuscope"));
  const std::string path = testing::scratch_dir("torch_roundtrip") + "/m.gpuscope";
  write_trace(path, converted);
  const Trace back = load_trace(path);
  EXPECT_EQ(back.host_ops.size(), converted.host_ops.size());
  EXPECT_EQ(back.external_correlations.size(), converted.external_correlations.size());
  EXPECT_EQ(back.nvtx_ranges.size(), converted.nvtx_ranges.size());
  EXPECT_EQ(back.run.host_ops_source, kHostOpsFromNvtx);
}

const analysis::DiffItem* item(const analysis::DiffResult& d, analysis::DiffCategory c, const std::string& name) {
  for (const analysis::DiffItem& i : d.items)
    if (i.category == c && i.name == name) return &i;
  return nullptr;
}

TEST(TorchCaptures, DiffComparesOpsAndNvtxGpuTime) {
  const Trace with_ops = load_trace(capture("mlp_train_modules.gpuscope"));
  const Trace without = load_trace(capture("mlp_train.gpuscope"));
  const analysis::DiffResult d = analysis::diff_traces(without, with_ops, {});
  const analysis::DiffItem* mm = item(d, analysis::DiffCategory::Op, "aten::mm");
  ASSERT_TRUE(mm);
  EXPECT_EQ(mm->cmp.base_count, 0u);  // only in the capture with ops
  EXPECT_EQ(mm->cmp.new_count, 250u);
  EXPECT_EQ(item(d, analysis::DiffCategory::Op, "aten::empty"), nullptr);  // launches nothing: no row
  const analysis::DiffItem* step = item(d, analysis::DiffCategory::NvtxGpu, "train_step");
  ASSERT_TRUE(step);
  EXPECT_EQ(step->cmp.base_count, 50u);
  EXPECT_EQ(step->cmp.new_count, 50u);
  EXPECT_GT(step->cmp.base_median, 0);
  EXPECT_LT(step->cmp.base_median, step->base_total_ns);
}

TEST(TorchCaptures, CheckGatesAnOpAgainstTheBaseline) {
  const Trace t = load_trace(capture("mlp_train_modules.gpuscope"));
  const check::GateSet rules = check::parse_rules(
      "[[baseline]]\nkind = \"op\"\nmatch = \"aten::mm\"\nmax_slower_pct = 5\n", "rules.toml");
  const check::CheckResult result = check::evaluate(rules, t, &t, {});
  ASSERT_EQ(result.outcomes.size(), 1u);
  EXPECT_EQ(result.outcomes[0].target, "op aten::mm");
  EXPECT_TRUE(result.outcomes[0].passed);
}

}  // namespace
}  // namespace gpuscope
