// GraphNode records -> GraphNode rows (graph_nodes.h).
#include "importers/spool/graph_nodes.h"

#include <unordered_map>

namespace gpuscope::spool {

void add_graph_nodes(Trace& trace, uint32_t pid, const std::vector<GraphNodeRecord>& nodes) {
  // Per node id, its record: a clone record wins over a creation record of the same node.
  std::unordered_map<uint64_t, const GraphNodeRecord*> by_id;
  for (const GraphNodeRecord& r : nodes) {
    if (r.node_id == 0) continue;
    auto [it, fresh] = by_id.try_emplace(r.node_id, &r);
    if (!fresh && r.origin_node_id != 0) it->second = &r;
  }
  for (const auto& [id, record] : by_id) {
    const GraphNodeRecord* made = record;
    // Back through the clones to the node a call made; a cycle (damaged input) ends the walk.
    for (size_t hops = 0; made->origin_node_id != 0 && hops < by_id.size(); ++hops) {
      const auto origin = by_id.find(made->origin_node_id);
      if (origin == by_id.end()) break;
      made = origin->second;
    }
    GraphNode node;
    node.pid = pid, node.node_id = id, node.tid = made->tid, node.timestamp = made->timestamp_ns;
    node.correlation_id = made->origin_node_id == 0 ? made->correlation_id : 0;
    trace.graph_nodes.push_back(node);
  }
}

}  // namespace gpuscope::spool
