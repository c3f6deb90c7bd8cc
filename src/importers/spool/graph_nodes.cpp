// GraphNode records -> GraphNode rows (graph_nodes.h).
#include "importers/spool/graph_nodes.h"

#include <unordered_map>
#include <vector>

namespace gpuscope::spool {
namespace {

using ById = std::unordered_map<uint64_t, const GraphNodeRecord*>;

// The record of the node a call made that node `id` comes from, through clones of clones; nullptr
// when an origin was never recorded or the clones form a cycle (damaged input). Each node is
// resolved once (`made` remembers, and holds nullptr for the nodes on the walk so far, so a cycle
// ends the walk), so a long chain costs its length once, not once per node.
const GraphNodeRecord* made_by_call(uint64_t id, const ById& by_id,
                                    std::unordered_map<uint64_t, const GraphNodeRecord*>& made) {
  std::vector<uint64_t> walked;
  const GraphNodeRecord* root = nullptr;
  for (uint64_t at = id;;) {
    if (const auto known = made.find(at); known != made.end()) {
      root = known->second;
      break;
    }
    const auto record = by_id.find(at);
    if (record == by_id.end()) break;
    made.emplace(at, nullptr);
    walked.push_back(at);
    if (record->second->origin_node_id == 0) {
      root = record->second;
      break;
    }
    at = record->second->origin_node_id;
  }
  for (uint64_t node : walked) made[node] = root;
  return root;
}

}  // namespace

void add_graph_nodes(Trace& trace, uint32_t pid, const std::vector<GraphNodeRecord>& nodes) {
  // Per node id, its record: a clone record wins over a creation record of the same node.
  ById by_id;
  for (const GraphNodeRecord& r : nodes) {
    if (r.node_id == 0) continue;
    auto [it, fresh] = by_id.try_emplace(r.node_id, &r);
    if (!fresh && r.origin_node_id != 0) it->second = &r;
  }
  std::unordered_map<uint64_t, const GraphNodeRecord*> made;
  for (const auto& [id, record] : by_id) {
    const GraphNodeRecord* root = made_by_call(id, by_id, made);
    const GraphNodeRecord& from = root ? *root : *record;  // unresolved: its own thread and time, no call
    GraphNode node;
    node.pid = pid, node.node_id = id, node.tid = from.tid, node.timestamp = from.timestamp_ns;
    node.correlation_id = root ? root->correlation_id : 0;
    trace.graph_nodes.push_back(node);
  }
}

}  // namespace gpuscope::spool
