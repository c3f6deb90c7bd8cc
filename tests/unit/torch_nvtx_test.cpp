// PyTorch's NVTX ranges -> host ops: the name parser on every shape torch writes and on
// malformed ones, and the converter on a small synthesized training step (src/importers/torch_nvtx/).
#include <gtest/gtest.h>

#include "gpuscope/analysis_host_ops.h"
#include "gpuscope/analysis_modules.h"
#include "importers/finalize.h"
#include "importers/torch_nvtx/range_name.h"
#include "importers/torch_nvtx/torch_nvtx.h"
#include "trace_builder.h"

namespace gpuscope {
namespace {

using torch_nvtx::parse_range_name;
using torch_nvtx::RangeName;

TEST(TorchNvtxName, OpWithSeqShapesAndInputIds) {
  const auto r = parse_range_name(
      "aten::addmm, seq = 1, op_id = 71, sizes = [[1024], [64, 512], [512, 1024], [], []], "
      "input_op_ids = [(8,0), (61,0), (68,0), (0,-1), (0,-1)]");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->kind, RangeName::Kind::Op);
  EXPECT_EQ(r->name, "aten::addmm");
  EXPECT_EQ(r->sequence_number, 1);
  EXPECT_EQ(r->op_id, 71u);
  EXPECT_EQ(r->sizes, "[[1024], [64, 512], [512, 1024], [], []]");
}

TEST(TorchNvtxName, OpsLevelHasNoShapes) {
  const auto r = parse_range_name("aten::add_, seq = 3, op_id = 5");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->name, "aten::add_");
  EXPECT_EQ(r->sequence_number, 3);
  EXPECT_EQ(r->op_id, 5u);
  EXPECT_TRUE(r->sizes.empty());
}

TEST(TorchNvtxName, OpWithoutSeqAndNamesWithSpacesAndColons) {
  const auto empty = parse_range_name("aten::empty, op_id = 1, sizes = [[], [], []], input_op_ids = [(0,-1)]");
  ASSERT_TRUE(empty);
  EXPECT_EQ(empty->sequence_number, -1);
  EXPECT_EQ(empty->sizes, "[[], [], []]");
  const auto evaluate = parse_range_name("autograd::engine::evaluate_function: AddmmBackward0, op_id = 107");
  ASSERT_TRUE(evaluate);
  EXPECT_EQ(evaluate->name, "autograd::engine::evaluate_function: AddmmBackward0");
  const auto step = parse_range_name("Optimizer.step#AdamW.step, op_id = 193");
  ASSERT_TRUE(step);
  EXPECT_EQ(step->name, "Optimizer.step#AdamW.step");
  const auto ids_only = parse_range_name("aten::mm, op_id = 9, input_op_ids = [(1,0)]");
  ASSERT_TRUE(ids_only);
  EXPECT_TRUE(ids_only->sizes.empty());
}

TEST(TorchNvtxName, ModulePath) {
  const auto r = parse_range_name("gpuscope.module: Sequential.0");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->kind, RangeName::Kind::Module);
  EXPECT_EQ(r->name, "Sequential.0");
  EXPECT_FALSE(parse_range_name("gpuscope.module: "));
}

TEST(TorchNvtxName, AnythingElseIsLeftAlone) {
  for (const char* name :
       {"", "train_step", "aten::mm", "aten::mm, seq = 3", ", op_id = 4", "aten::mm, op_id = ", "aten::mm, op_id = x",
        "aten::mm, op_id = -1", "aten::mm, seq = -2, op_id = 4", "aten::mm, seq = 2x, op_id = 4",
        "aten::mm, op_id = 4 ", "aten::mm, op_id = 4, sizes = ", "aten::mm, op_id = 4, sizes = [[1, 2]",
        "aten::mm, op_id = 4, sizes = [[1]], extra = 1", "aten::mm, op_id = 99999999999999999999999",
        "aten::mm, seq = 99999999999999999999, op_id = 1", "aten::mm, op_id = 4, input_op_ids = [(1,0)], sizes = [[1]]",
        "gpuscope.module:Sequential"})
    EXPECT_FALSE(parse_range_name(name)) << name;
}

// One training step on two threads (tid 1 forward, tid 2 autograd), times in ns:
//   tid 1: train_step [0, 1000) > module Net [10, 400) > module Net.fc [20, 300) > aten::linear (seq 0)
//          [30, 290) > aten::addmm (seq 1) [40, 280), which launches kernel A (100 ns);
//          a launch inside Net.fc but outside every op; Optimizer.step [700, 900) > aten::add_ launching C.
//   tid 2: evaluate_function: AddmmBackward0 [500, 650) > AddmmBackward0 (seq 1) [510, 600) > aten::mm
//          launching B (50 ns); aten::sum in the wrapper after the node launching D (20 ns).
Trace training_step() {
  testing::TraceBuilder b;
  b.range("train_step", 0, 1000);
  b.range("gpuscope.module: Net", 10, 400);
  b.range("gpuscope.module: Net.fc", 20, 300);
  b.range("aten::linear, seq = 0, op_id = 1, sizes = [[4, 8], [2, 8], [2]]", 30, 290);
  b.range("aten::addmm, seq = 1, op_id = 2, sizes = [[2], [4, 8], [8, 2], [], []]", 40, 280);
  b.kernel("A", 1000, 1100, b.api("cudaLaunchKernel", 50, 60));
  b.kernel("outside", 1200, 1210, b.api("cudaLaunchKernel", 295, 298));
  b.range("Optimizer.step#SGD.step, op_id = 5", 700, 900);
  b.range("aten::add_, op_id = 6", 710, 800);
  b.kernel("C", 1400, 1430, b.api("cudaLaunchKernel", 720, 730));
  for (auto [name, start, end] :
       {std::tuple{"autograd::engine::evaluate_function: AddmmBackward0, op_id = 3", 500, 650},
        {"AddmmBackward0, seq = 1, op_id = 4", 510, 600},
        {"aten::mm, op_id = 7", 520, 590},
        {"aten::sum, op_id = 8", 610, 640}}) {
    b.range(name, start, end);
    b.trace().nvtx_ranges.back().tid = 2;
  }
  b.kernel("B", 1300, 1350, b.api("cudaLaunchKernel", 530, 540, 2));
  b.kernel("D", 1350, 1370, b.api("cudaLaunchKernel", 620, 625, 2));
  finalize_trace(b.trace());
  return std::move(b.trace());
}

const HostOp* find_op(const Trace& t, const std::string& name) {
  for (const HostOp& op : t.host_ops)
    if (t.strings.get(op.name) == name) return &op;
  return nullptr;
}

TEST(TorchNvtx, RangesBecomeOpsAndModulesUserRangesStay) {
  const Trace t = training_step();
  EXPECT_EQ(t.run.host_ops_source, kHostOpsFromNvtx);
  ASSERT_EQ(t.nvtx_ranges.size(), 1u);
  EXPECT_EQ(t.strings.get(t.nvtx_ranges[0].name), "train_step");
  EXPECT_EQ(t.host_ops.size(), 10u);
  const HostOp* addmm = find_op(t, "aten::addmm");
  ASSERT_TRUE(addmm);
  EXPECT_EQ(t.strings.get(addmm->category), "cpu_op");
  EXPECT_EQ(addmm->sequence_number, 1);
  EXPECT_EQ(t.strings.get(addmm->input_shapes), "[[2], [4, 8], [8, 2], [], []]");
  EXPECT_EQ(addmm->depth, 3u);  // Net > Net.fc > aten::linear > aten::addmm
  const HostOp* fc = find_op(t, "Net.fc");
  ASSERT_TRUE(fc);
  EXPECT_EQ(t.strings.get(fc->category), "module");
  EXPECT_EQ(fc->external_id, 0u);
}

TEST(TorchNvtx, EachCallLinksToTheInnermostOpOnItsThread) {
  const Trace t = training_step();
  const HostOp* addmm = find_op(t, "aten::addmm");
  const HostOp* mm = find_op(t, "aten::mm");
  ASSERT_TRUE(addmm && mm);
  std::map<uint32_t, uint64_t> external_of;  // correlation -> external id
  for (const ExternalCorrelation& x : t.external_correlations) external_of[x.correlation_id] = x.external_id;
  EXPECT_EQ(external_of.at(1), addmm->external_id);  // kernel A's launch, inside linear > addmm
  EXPECT_FALSE(external_of.count(2));                // inside the module, outside every op
  EXPECT_EQ(external_of.at(4), mm->external_id);     // on the autograd thread
  EXPECT_EQ(t.external_correlations.size(), 4u);
}

TEST(TorchNvtx, ConvertsOnceAndLeavesASourcesOwnOpsAlone) {
  Trace t = training_step();
  const size_t ops = t.host_ops.size();
  EXPECT_FALSE(convert_torch_nvtx(t));
  EXPECT_EQ(t.host_ops.size(), ops);

  testing::TraceBuilder b;
  b.range("aten::mm, op_id = 1", 0, 10);
  b.trace().host_ops.push_back({1, 1, b.trace().strings.intern("aten::mm"), 0, 0, 10, 7});
  EXPECT_FALSE(convert_torch_nvtx(b.trace()));
  EXPECT_EQ(b.trace().nvtx_ranges.size(), 1u);
  EXPECT_TRUE(b.trace().run.host_ops_source.empty());
}

TEST(TorchNvtx, PhasesSplitTheGpuTime) {
  const analysis::HostOpSummary s = analysis::summarize_host_ops(training_step());
  EXPECT_EQ(s.gpu_ns, 100 + 10 + 30 + 50 + 20);
  EXPECT_EQ(s.phases[size_t(analysis::OpPhase::Forward)].gpu_ns, 100);
  EXPECT_EQ(s.phases[size_t(analysis::OpPhase::Backward)].gpu_ns, 70);  // B and D, both in the wrapper
  EXPECT_EQ(s.phases[size_t(analysis::OpPhase::Optimizer)].gpu_ns, 30);
  EXPECT_EQ(s.gpu_ns - s.linked_gpu_ns, 10);  // the launch outside every op
  EXPECT_EQ(s.phases[size_t(analysis::OpPhase::Forward)].op_instances, 2u);
  EXPECT_EQ(s.phases[size_t(analysis::OpPhase::Backward)].op_instances, 4u);
  EXPECT_EQ(s.op_instances, 8u);  // modules are not ops
  for (const analysis::OpGroup& g : s.ops) EXPECT_NE(g.category, analysis::kModuleCategory) << g.name;
}

TEST(TorchNvtx, BackwardPairsBySeqWithTheForwardOpsModule) {
  const analysis::ModuleSummary s = analysis::summarize_modules(training_step());
  ASSERT_EQ(s.modules.size(), 2u);
  for (const analysis::ModuleRow& m : s.modules) {  // Net holds Net.fc: the same time in both
    EXPECT_EQ(m.calls, 1u) << m.path;
    EXPECT_EQ(m.forward_gpu_ns, 100) << m.path;
    EXPECT_EQ(m.backward_gpu_ns, 70) << m.path;  // AddmmBackward0 has seq 1 = aten::addmm's, in Net.fc
  }
  EXPECT_EQ(s.backward_gpu_ns, 70);
  EXPECT_EQ(s.unpaired_backward_gpu_ns, 0);
}

}  // namespace
}  // namespace gpuscope
