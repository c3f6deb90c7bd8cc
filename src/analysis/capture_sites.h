// Where a kernel replayed from a CUDA graph was made: the kernel carries the graph launch's
// correlation id, whose call says nothing of the code around it, and its node id, whose making
// the capture records (Trace::graph_nodes: the call that made the node during stream capture,
// its thread and time). The op, module and NVTX range of a replayed kernel are those of that
// site, as if the kernel had been launched there; a kernel outside graphs, or of a node the trace
// does not know, keeps its launch call. Shared by the op links (op_links.h) and the NVTX
// projection (nvtx_gpu.cpp) so both attribute a replayed kernel the same way.
#pragma once

#include <cstdint>
#include <unordered_map>

#include "gpuscope/model.h"

namespace gpuscope::analysis::detail {

// An id within one run and process (a correlation id, a graph node id), as a hash map's key.
struct ProcessKey {
  uint32_t run, pid;
  uint64_t id;
  bool operator==(const ProcessKey&) const = default;
};
struct ProcessKeyHash {
  size_t operator()(const ProcessKey& k) const {
    return std::hash<uint64_t>()(k.id * 0x9E3779B97F4A7C15ULL ^ (uint64_t{k.run} << 32 | k.pid));
  }
};

class CaptureSites {
 public:
  explicit CaptureSites(const Trace& trace);
  // The node that made this kernel, or nullptr (not replayed from a graph, or the node is unknown).
  const GraphNode* node_of(const Kernel& k) const {
    if (nodes_.empty() || k.graph_node_id == 0) return nullptr;
    const auto it = nodes_.find({k.run_id, k.pid, k.graph_node_id});
    return it == nodes_.end() ? nullptr : it->second;
  }
  // The correlation id whose call to attribute the kernel to: its node's maker, else its launch's.
  uint32_t correlation_of(const Kernel& k) const {
    const GraphNode* node = node_of(k);
    return node && node->correlation_id ? node->correlation_id : k.correlation_id;
  }

 private:
  std::unordered_map<ProcessKey, const GraphNode*, ProcessKeyHash> nodes_;  // (run, pid, node id)
};

inline CaptureSites::CaptureSites(const Trace& trace) {
  for (const GraphNode& n : trace.graph_nodes) nodes_.emplace(ProcessKey{n.run_id, n.pid, n.node_id}, &n);
}

}  // namespace gpuscope::analysis::detail
