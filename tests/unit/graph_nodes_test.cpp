// Kernels replayed from a CUDA graph, attributed to the code that captured them: the spool's
// GraphNode records resolved to the call that made each node (clones to their origin's), and the
// op and NVTX range of that call getting the replayed kernel's GPU time. Times in ns.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "gpuscope/analysis_host_ops.h"
#include "gpuscope/analysis_nvtx_gpu.h"
#include "importers/spool/spool_importer.h"
#include "importers/torch_nvtx/torch_nvtx.h"
#include "spool_builder.h"
#include "trace_builder.h"

namespace gpuscope {
namespace {

using spool::RecordKind;

spool::GraphNodeRecord node_record(uint64_t node, uint64_t origin, uint32_t correlation, int64_t at) {
  spool::GraphNodeRecord r{};
  r.timestamp_ns = at, r.node_id = node, r.origin_node_id = origin, r.correlation_id = correlation, r.tid = 3;
  return r;
}

const GraphNode* node_with_id(const Trace& t, uint64_t id) {
  const auto it = std::find_if(t.graph_nodes.begin(), t.graph_nodes.end(),
                               [&](const GraphNode& n) { return n.node_id == id; });
  return it == t.graph_nodes.end() ? nullptr : &*it;
}

// Stream capture makes node 100 inside launch call 5; instantiation makes node 200 (its creation
// record has no call) and clones it from 100; a clone of the clone, 300; two damaged records
// that clone each other.
TEST(GraphNodes, ClonesTakeTheCallThatMadeTheirOrigin) {
  const std::string dir = testing::scratch_dir("graph_nodes");
  testing::SpoolBuilder b(9);
  b.record(RecordKind::GraphNode, node_record(100, 0, 5, 1000))
      .record(RecordKind::GraphNode, node_record(200, 0, 0, 2000))
      .record(RecordKind::GraphNode, node_record(200, 100, 0, 2001))
      .record(RecordKind::GraphNode, node_record(300, 200, 0, 3000))
      .record(RecordKind::GraphNode, node_record(400, 401, 0, 4000))
      .record(RecordKind::GraphNode, node_record(401, 400, 0, 4001));
  b.flush().end(5000);
  b.write(dir + "/a.9.spool");
  const Trace t = import_spool(dir + "/a.9.spool");
  ASSERT_EQ(t.graph_nodes.size(), 5u);
  for (uint64_t id : {100, 200, 300}) {
    const GraphNode* n = node_with_id(t, id);
    ASSERT_TRUE(n) << id;
    EXPECT_EQ(n->correlation_id, 5u) << id;
    EXPECT_EQ(n->timestamp, 1000) << id;
    EXPECT_EQ(n->tid, 3u);
    EXPECT_EQ(n->pid, 9u);
  }
  ASSERT_TRUE(node_with_id(t, 400));
  EXPECT_EQ(node_with_id(t, 400)->correlation_id, 0u);
}

// A chain of 50,000 clones of clones, as hostile input could hold: each node resolves to the call
// that made the first, once (the walk is not repeated per node).
TEST(GraphNodes, ALongChainOfClonesResolvesOnce) {
  const std::string dir = testing::scratch_dir("graph_node_chain");
  constexpr uint64_t kChain = 50'000;
  testing::SpoolBuilder b(9);
  b.record(RecordKind::GraphNode, node_record(1, 0, 5, 1000));
  for (uint64_t id = 2; id <= kChain; ++id) b.record(RecordKind::GraphNode, node_record(id, id - 1, 0, 2000));
  b.flush().end(5000);
  b.write(dir + "/a.9.spool");
  const Trace t = import_spool(dir + "/a.9.spool");
  ASSERT_EQ(t.graph_nodes.size(), kChain);
  for (const GraphNode& n : t.graph_nodes) ASSERT_EQ(n.correlation_id, 5u) << n.node_id;
}

// An op captured once (aten::mm around launch call 5, inside the user's "capture" range), its
// kernel replayed twice from the graph by cudaGraphLaunch calls outside every range.
Trace replayed_capture() {
  testing::TraceBuilder b;
  b.range("capture", 0, 50);
  b.range("aten::mm, seq = 1, op_id = 7", 10, 30, 1);
  b.api("cudaLaunchKernel", 15, 20);  // correlation 1: made the node during stream capture
  for (TimeNs at : {100, 400}) {
    const uint32_t launch = b.api("cudaGraphLaunch", at, at + 10);
    b.kernel("gemm", at + 20, at + 220, launch);
    Kernel& k = b.trace().kernels.back();
    k.graph_id = 1, k.graph_node_id = 200;
  }
  GraphNode node;
  node.pid = 1, node.node_id = 200, node.tid = 1, node.timestamp = 16, node.correlation_id = 1;
  b.trace().graph_nodes.push_back(node);
  return std::move(b.trace());
}

TEST(GraphNodes, ReplayedKernelsBelongToTheOpAndRangeThatCapturedThem) {
  Trace t = replayed_capture();
  ASSERT_TRUE(convert_torch_nvtx(t));
  const analysis::HostOpSummary ops = analysis::summarize_host_ops(t);
  const auto mm = std::find_if(ops.ops.begin(), ops.ops.end(), [](const auto& op) { return op.name == "aten::mm"; });
  ASSERT_NE(mm, ops.ops.end());
  EXPECT_EQ(mm->self_gpu_ns, 400);
  EXPECT_EQ(mm->kernels, 2u);
  EXPECT_EQ(ops.unlinked_activities, 0u);

  const analysis::NvtxGpuProjection projected = analysis::project_nvtx_gpu(t);
  ASSERT_EQ(t.nvtx_ranges.size(), 1u);  // the op range became a host op; "capture" stays
  EXPECT_EQ(projected.ranges[0].kernels, 2u);
  EXPECT_EQ(projected.ranges[0].gpu_ns, 400);
  EXPECT_EQ(projected.unlaunched, 0u);
}

// Without the node records a replayed kernel stays with its graph launch call: no op, no range.
TEST(GraphNodes, WithoutNodeRecordsReplayedKernelsStayWithTheirLaunch) {
  Trace t = replayed_capture();
  t.graph_nodes.clear();
  ASSERT_TRUE(convert_torch_nvtx(t));
  const analysis::HostOpSummary ops = analysis::summarize_host_ops(t);
  EXPECT_EQ(ops.linked_gpu_ns, 0);
  EXPECT_EQ(analysis::project_nvtx_gpu(t).ranges[0].kernels, 0u);
}

}  // namespace
}  // namespace gpuscope
